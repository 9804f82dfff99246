# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The pieces of Kaleido's sequential loop outside the stream class: the compiled threshold
loop or None (``GAZEPRIVACY_PURE_PYTHON=1``), the great-circle test distance, the checks of
pushed samples and the tested positions of a chunk with missing samples."""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from gazeprivacy.exceptions import InvalidDataError

__all__: list[str] = []


#: Tested samples whose noise is drawn per generator call (see KaleidoStream._refill).
_NOISE_BLOCK = 1024
#: Chunks up to this length go sample by sample (KaleidoStream._push_small).
_SMALL_CHUNK = 24
_F64 = np.dtype(np.float64)


def _haversine_deg(x1: float, y1: float, x2: float, y2: float) -> float:
    la1, la2 = math.radians(y1), math.radians(y2)
    dlo, dla = math.radians(x2 - x1), math.radians(y2 - y1)
    a = math.sin(dla / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin(dlo / 2) ** 2
    # rounding may put a just outside [0, 1] (coincident or antipodal points past +-90 deg
    # latitude, e.g. (0, 100) and (180, 80)): clamped, as the compiled loop does
    a = 0.0 if a < 0.0 else (1.0 if a > 1.0 else a)
    return math.degrees(2.0 * math.asin(min(1.0, math.sqrt(a))))


def _compiled_loop() -> Any:
    """The compiled threshold loop (module ``_kaleido_loop``, from ``_kaleido_loop.c``), or
    None: not built (no C compiler at install time) or ``GAZEPRIVACY_PURE_PYTHON=1``.

    Hand-written C because the loop is sequential (numpy cannot vectorise it), no library
    implements it, and in Python it is most of a whole ``protect --mechanism kaleido`` run
    (~1.2 us per tested sample; ~50 ns compiled, with the per-sample release and budget arrays
    filled in the same pass). numba 0.68 would cost ~0.2 s to import plus ~0.15 s to load its
    cached code in every process; the extension imports in ~0.3 ms. Its output and state are
    bit-identical to :meth:`KaleidoStream._push_arrays` with :meth:`KaleidoStream._run_python`
    (tests/mechanisms/samples/test_kaleido_compiled.py).
    """
    if os.environ.get("GAZEPRIVACY_PURE_PYTHON", "") not in ("", "0"):
        return None
    try:
        from gazeprivacy.mechanisms.samples import _kaleido_loop
    except ImportError:
        return None
    return _kaleido_loop


#: The module ``_kaleido_loop`` or None (the Python loop); tests switch it per stream.
_LOOP = _compiled_loop()


def _scalar(name: str, v: Any) -> float:
    """One coordinate of one sample as a float; None, text and Booleans are refused."""
    if v is None or isinstance(v, str | bytes | bool | np.bool_):
        raise InvalidDataError(f"{name} must be a number (NaN for a missing sample), got {v!r}")
    if isinstance(v, np.ndarray):
        if v.size != 1 or v.ndim > 1:
            raise InvalidDataError(f"{name} must be one number here, got shape {v.shape}")
        return _scalar(name, v.reshape(()).item())
    try:
        return float(v)
    except (TypeError, ValueError):
        raise InvalidDataError(
            f"{name} must be a number (NaN for a missing sample), got {v!r}") from None


def _samples(name: str, v: Any) -> np.ndarray:
    """A 1-D float64 array of samples; None, text, Booleans and 2-D input are refused."""
    if v is None:
        raise InvalidDataError(f"{name} must be a 1-D array of numbers, got None")
    a = np.asarray(v)
    if a.dtype != np.float64:
        if a.dtype.kind in "iuf":
            a = a.astype(np.float64)
        else:
            what = ("None" if a.dtype == object and any(e is None for e in a.ravel())
                    else f"dtype {a.dtype}")
            raise InvalidDataError(
                f"{name} must be numbers (NaN for a missing sample), got {what}")
    if a.ndim != 1:
        raise InvalidDataError(
            f"{name} must be 1-D (one value per sample), got shape {a.shape}; push x and y "
            "as separate 1-D arrays")
    return a


def _tested_with_missing(ok: np.ndarray, j0: int, skip: int) -> np.ndarray:
    """Tested positions of a chunk with missing samples: from ``j0``, the next valid sample,
    then the next valid one at least ``skip`` later, and so on.

    Within a run of valid samples the tests are ``skip`` apart, so the loop is over the runs
    (one per gap), not over the tests.
    """
    edges = np.flatnonzero(np.diff(np.concatenate([[False], ok, [False]]).astype(np.int8)))
    parts: list[np.ndarray] = []
    pending = j0
    for s, e in zip(edges[0::2].tolist(), edges[1::2].tolist(), strict=True):
        if e <= pending:
            continue
        tests = np.arange(max(s, pending), e, skip)
        parts.append(tests)
        pending = int(tests[-1]) + skip
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
