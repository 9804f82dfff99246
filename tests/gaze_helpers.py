# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Assertions on released gaze shared by the partition-wise (bit-equality) tests."""

from __future__ import annotations

import numpy as np

__all__ = ["assert_same_gaze"]


def assert_same_gaze(a, b) -> None:
    """``a`` and ``b`` (iterables of recordings) hold the same recordings in the same order with
    bit-equal timestamps and gaze."""
    assert [r.recording for r in a] == [r.recording for r in b]
    for ra, rb in zip(a, b, strict=True):
        np.testing.assert_array_equal(ra.t, rb.t)
        np.testing.assert_array_equal(ra.x, rb.x)
        np.testing.assert_array_equal(ra.y, rb.y)
