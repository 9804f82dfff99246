# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth's compiled per-window kernel (``_dpgazesynth_kernel.c``) or None: not built (no
C compiler at install time) or ``GAZEPRIVACY_PURE_PYTHON=1``, as Kaleido's loop.

The kernel does the deterministic passes of the client windows (:func:`~.grid.client_windows`),
the run-length rounding (:func:`~.client.release_run_lengths`, :func:`~.grid._round_keep_sum`)
and the synthesis (:func:`~.synthesis.synthesise`) in one pass each over the samples or the runs,
without the numpy path's temporaries (about 1.5 GB first-touched in a whole ``protect`` of 5.4 M
samples). Every random draw stays in numpy, in the same generators and order, so the release is
bit-identical to the numpy path (tests/mechanisms/samples/test_dpgazesynth_compiled.py).
"""

from __future__ import annotations

import os
from typing import Any

__all__: list[str] = []


def _compiled_kernel() -> Any:
    """The module ``_dpgazesynth_kernel`` or None (the numpy path)."""
    if os.environ.get("GAZEPRIVACY_PURE_PYTHON", "") not in ("", "0"):
        return None
    try:
        from gazeprivacy.mechanisms.samples import _dpgazesynth_kernel
    except ImportError:
        return None
    return _dpgazesynth_kernel


#: The compiled kernel or None; read at every call, so tests switch it with monkeypatch.
KERNEL = _compiled_kernel()
