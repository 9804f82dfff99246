# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The nominal sampling rate of a recording, never its clock's drift.

A recording's ``sampling_rate_hz`` is public (it sets the release's grid ``t = i / rate``), so
it must be the device's nominal rate, not a rate measured on the raw clock: a 120 Hz Tobii
export with millisecond timestamps has intervals of 8, 8 and 9 ms (median 125 Hz), and a
measured 100.095 Hz identifies the device that drifted. In order:

1. the rate the export states (EyeLink ``RATE``, a Tobii sampling-rate column) or the caller
   declares (``sampling_rate_hz=...``, CLI ``--rate HZ``);
2. else the clock's rate (:func:`clock_rate_hz`: the mean interval between successive samples,
   intervals longer than 1.5 median intervals, i.e. gaps, left out) snapped to the nearest of
   :data:`STANDARD_RATES_HZ` when within 1 %, or to a whole number of hertz when within 0.1 %
   (an exact clock, e.g. resampled data);
3. else the clock's rate rounded to a whole hertz, with a warning that names the way to declare
   it (:func:`nominal_rate` returns it as not standard).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from gazeprivacy.exceptions import DataPolicyWarning

__all__ = ["STANDARD_RATES_HZ", "RateLog", "clock_rate_hz", "nominal_rate"]

#: Sampling rates of common eye trackers, hertz.
STANDARD_RATES_HZ = (30.0, 50.0, 60.0, 90.0, 120.0, 200.0, 250.0, 300.0, 500.0, 600.0, 1000.0,
                     2000.0)
_SNAP_REL, _WHOLE_REL = 0.01, 0.001


def clock_rate_hz(t: np.ndarray) -> float:
    """The rate of timestamps ``t`` (seconds): one over the mean interval between successive
    samples, gaps (intervals above 1.5 median intervals) left out; NaN for fewer than two.

    The mean, not the median: millisecond timestamps of a 120 Hz tracker step 8, 8, 9 ms, whose
    median says 125 Hz.

    >>> t = np.round(np.arange(600) * 1000 / 120) / 1000   # 120 Hz, millisecond clock
    >>> round(float(1 / np.median(np.diff(t))), 1), round(clock_rate_hz(t), 1)
    (125.0, 120.0)
    """
    t = np.asarray(t, dtype=np.float64)
    if t.shape[0] < 2:
        return float("nan")
    d = np.diff(t)
    d = d[np.isfinite(d) & (d > 0)]
    if d.size == 0:
        return float("nan")
    d = d[d <= 1.5 * np.median(d)]
    return float(1.0 / d.mean())


def nominal_rate(clock_hz: float) -> tuple[float, str]:
    """The nominal rate for a clock rate, and how it was found (module docstring):
    ``"standard"`` (snapped to :data:`STANDARD_RATES_HZ`), ``"whole"`` (an exact clock) or
    ``"unsure"`` (rounded to a whole hertz; the caller warns).

    >>> nominal_rate(120.4), nominal_rate(100.05), nominal_rate(87.3)
    ((120.0, 'standard'), (100.0, 'whole'), (87.0, 'unsure'))
    """
    best = min(STANDARD_RATES_HZ, key=lambda r: abs(r - clock_hz))
    if abs(best - clock_hz) <= _SNAP_REL * best:
        return best, "standard"
    whole = float(round(clock_hz))
    if whole >= 1 and abs(whole - clock_hz) <= _WHOLE_REL * whole:
        return whole, "whole"
    return (whole if clock_hz >= 10 else round(clock_hz, 3)), "unsure"


class RateLog:
    """Each recording's nominal rate as a reader finds it (declared, from a file's metadata,
    or from its clock), and a summary of where they came from (:meth:`source`)."""

    def __init__(self, declared: float | None, declared_source: str, scale: float) -> None:
        self.declared, self.declared_source = declared, declared_source
        self.scale = scale  # of the timestamps, to seconds
        self.kinds: dict[str, int] = {}
        self.unsure: list[tuple[float, float]] = []

    def of(self, t: np.ndarray, meta: dict[str, Any]) -> float | None:
        if self.declared is not None:
            return self._count(self.declared_source, self.declared)
        if meta.get("sampling_rate_hz"):
            return self._count("metadata", meta["sampling_rate_hz"])
        if t.shape[0] < 2:
            return None  # (the recording's own error names the rate)
        clock = clock_rate_hz(t * self.scale)
        if not math.isfinite(clock):
            return None  # (timestamps that do not increase: the recording's own error)
        rate, how = nominal_rate(clock)
        if how == "unsure":
            self.unsure.append((clock, rate))
        return self._count({"standard": "clock, snapped to a standard rate",
                            "whole": "clock (a whole number of hertz)",
                            "unsure": "clock, no standard rate"}[how], rate)

    def _count(self, kind: str, rate: float) -> float:
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        return rate

    def source(self, where: str) -> str:
        """Where the rates came from, in words (warns once for rates no standard fits)."""
        if self.unsure:
            clock, rate = self.unsure[0]
            warnings.warn(f"{where}: the timestamps of {len(self.unsure)} recording(s) fit no "
                          f"standard eye-tracker rate (first: {clock:.4g} Hz, taken as "
                          f"{rate:g} Hz): declare the nominal rate with sampling_rate_hz=...",
                          DataPolicyWarning, stacklevel=4)
        return "; ".join(k if len(self.kinds) == 1 else f"{k} ({n} recordings)"
                         for k, n in self.kinds.items())
