# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Helpers shared by several test modules: assertions on released gaze (the partition-wise
bit-equality tests) and a fresh process that has run REMoDNaV (the import-time tests)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

__all__ = ["after_detection_in_a_fresh_process", "assert_same_gaze"]


def assert_same_gaze(a, b) -> None:
    """``a`` and ``b`` (iterables of recordings) hold the same recordings in the same order with
    bit-equal timestamps and gaze."""
    assert [r.recording for r in a] == [r.recording for r in b]
    for ra, rb in zip(a, b, strict=True):
        np.testing.assert_array_equal(ra.t, rb.t)
        np.testing.assert_array_equal(ra.x, rb.x)
        np.testing.assert_array_equal(ra.y, rb.y)


_DETECT = (
    "import sys, numpy as np\n"
    "from gazeprivacy.data.simulate import simulate_dataset\n"
    "from gazeprivacy.events import detect_events\n"
    "r = simulate_dataset(n_participants=1, tasks=('free-viewing',), duration_s=3.0, "
    "sampling_rate_hz=100, rng=np.random.default_rng(0))[0]\n"
    "assert detect_events(r, method='remodnav').height > 3\n")


def after_detection_in_a_fresh_process(code: str) -> list[str]:
    """The lines ``code`` prints in a new interpreter that has simulated one recording and run
    REMoDNaV on it (``sys`` and ``np`` imported): what detection leaves imported."""
    res = subprocess.run([sys.executable, "-c", _DETECT + code], capture_output=True,
                         text=True, check=True)
    return res.stdout.split("\n")
