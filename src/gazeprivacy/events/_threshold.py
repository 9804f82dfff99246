# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The vectorised block of recordings that event detection works on (:class:`_Block`: flat
arrays, per-sample parameters, the links between valid samples), its runs of equal sample
codes, and the two threshold detectors, I-VT and I-DT (:func:`_ivt_codes`,
:func:`_idt_codes`). :mod:`gazeprivacy.events.detection` runs them; moved here unchanged from
``detection.py`` (682 lines).
"""

from __future__ import annotations

import math

import numpy as np

from gazeprivacy.data.recording import Recording
from gazeprivacy.events.kinematics import mixed_distance_deg, resolve_metric
from gazeprivacy.exceptions import InvalidParameterError

# Sample codes used internally: 0 none, 1 fixation (candidate), 2 saccade, 3 pursuit.
_NONE, _FIX, _SAC, _PUR = 0, 1, 2, 3
_CODE_NAMES = np.array(["", "fixation", "saccade", "pursuit"], dtype=object)
_TOL = 1e-9  # seconds; absorbs floating error in timestamp arithmetic


def _runs(code: np.ndarray, breaks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Maximal runs of equal ``code`` not crossing a break (``breaks[i]``: a run starts at i)."""
    n = code.shape[0]
    start = np.ones(n, dtype=bool)
    start[1:] = (code[1:] != code[:-1]) | breaks[1:]
    starts = np.flatnonzero(start)
    ends = np.append(starts[1:], n)
    return starts, ends, code[starts]


class _Block:
    """Recordings concatenated into flat arrays, with per-sample parameters."""

    def __init__(self, recs: list[Recording], max_intervals: list[float], metric: str) -> None:
        self.recs = recs
        self.metric = metric
        lengths = np.array([r.n_samples for r in recs])
        self.starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        self.t = np.concatenate([r.t for r in recs])
        self.x = np.concatenate([r.x for r in recs])
        self.y = np.concatenate([r.y for r in recs])
        self.period = np.repeat([1.0 / r.sampling_rate_hz for r in recs], lengths)
        self.great_circle = np.repeat(
            [resolve_metric(r, metric) == "great-circle" for r in recs], lengths)
        n = self.t.shape[0]
        valid = ~np.isnan(self.x)
        boundary = np.zeros(n, dtype=bool)
        boundary[self.starts] = True
        max_iv = np.repeat(max_intervals, lengths)
        # link[i]: samples i and i + 1 are valid, in one recording and close in time.
        self.link = (valid[:-1] & valid[1:] & ~boundary[1:]
                     & (np.diff(self.t) <= max_iv[1:] + _TOL))
        self.breaks = np.ones(n, dtype=bool)
        self.breaks[1:] = ~self.link


def _sample_speed(b: _Block) -> np.ndarray:
    """Per-sample speed (deg/s): preceding interval, else following interval, else NaN."""
    n = b.t.shape[0]
    speed = np.full(n, np.nan)
    if n < 2:
        return speed
    with np.errstate(invalid="ignore", divide="ignore"):
        d = mixed_distance_deg(b.x[:-1], b.y[:-1], b.x[1:], b.y[1:], b.great_circle[1:])
        iv = np.where(b.link, d / np.diff(b.t), np.nan)
    speed[1:] = iv
    first = np.isnan(speed[:-1]) & b.link  # segment starts: no preceding interval, a following one
    speed[:-1][first] = iv[first]
    return speed


def _ivt_codes(b: _Block, *, velocity_threshold_deg_s: float,
               minimum_fixation_duration_s: float, short_runs: str) -> np.ndarray:
    speed = _sample_speed(b)
    defined = ~np.isnan(speed)
    code = np.where(defined, np.where(speed >= velocity_threshold_deg_s, _SAC, _FIX), _NONE)
    code = code.astype(np.int8)
    starts, ends, codes = _runs(code, b.breaks)
    dur = b.t[ends - 1] - b.t[starts] + b.period[starts]
    short = (codes == _FIX) & (dur < minimum_fixation_duration_s - _TOL)
    fill = _SAC if short_runs == "saccade" else _NONE
    return np.where(np.repeat(short, ends - starts), fill, code).astype(np.int8)


def _idt_fixations(x: np.ndarray, y: np.ndarray, n_min: int,
                   threshold: float) -> list[tuple[int, int]]:
    """Salvucci & Goldberg's I-DT on one gap-free segment; returns ``[(onset, offset), ...]``.

    Hand-written because pymovements' ``idt`` loops in Python over every sample. Here the
    minimum-window dispersions of all start positions come from one vectorised sliding-window
    pass, and each fixation is grown with cumulative maxima in chunks of doubling size, so the
    Python loop runs once per fixation.
    """
    n = x.shape[0]
    if n < n_min:
        return []
    wx = np.lib.stride_tricks.sliding_window_view(x, n_min)
    wy = np.lib.stride_tricks.sliding_window_view(y, n_min)
    disp = (wx.max(axis=1) - wx.min(axis=1)) + (wy.max(axis=1) - wy.min(axis=1))
    ok = np.flatnonzero(disp <= threshold)
    out: list[tuple[int, int]] = []
    cur = 0
    while True:
        k = int(np.searchsorted(ok, cur))
        if k == ok.shape[0]:
            return out
        s = int(ok[k])
        j = s + n_min
        bounds = [x[s:j].max(), x[s:j].min(), y[s:j].max(), y[s:j].min()]
        step = 64
        end = n
        while j < n:
            k2 = min(n, j + step)
            xmax = np.maximum.accumulate(np.r_[bounds[0], x[j:k2]])[1:]
            xmin = np.minimum.accumulate(np.r_[bounds[1], x[j:k2]])[1:]
            ymax = np.maximum.accumulate(np.r_[bounds[2], y[j:k2]])[1:]
            ymin = np.minimum.accumulate(np.r_[bounds[3], y[j:k2]])[1:]
            over = np.flatnonzero((xmax - xmin) + (ymax - ymin) > threshold)
            if over.size:
                end = j + int(over[0])
                break
            bounds = [xmax[-1], xmin[-1], ymax[-1], ymin[-1]]
            j = k2
            step *= 2
        out.append((s, end))
        cur = end


def _idt_codes(b: _Block, *, dispersion_threshold_deg: float,
               minimum_fixation_duration_s: float) -> tuple[np.ndarray, np.ndarray]:
    """Sample codes and run breaks (I-DT fixations can touch, so each one starts a run)."""
    n = b.t.shape[0]
    breaks = b.breaks.copy()
    in_pair = np.zeros(n, dtype=bool)
    in_pair[:-1] |= b.link
    in_pair[1:] |= b.link
    code = np.where(in_pair, _SAC, _NONE).astype(np.int8)
    seg_starts = np.flatnonzero(b.breaks)
    seg_ends = np.append(seg_starts[1:], n)
    rec_of = np.searchsorted(b.starts, seg_starts, side="right") - 1
    for a, e, r in zip(seg_starts, seg_ends, rec_of, strict=True):
        n_min = _idt_window(b.recs[r], minimum_fixation_duration_s)
        if e - a < n_min or not in_pair[a]:
            continue
        for s, f in _idt_fixations(b.x[a:e], b.y[a:e], n_min, dispersion_threshold_deg):
            code[a + s:a + f] = _FIX
            breaks[a + s] = True
            if a + f < n:
                breaks[a + f] = True
    return code, breaks


def _idt_window(rec: Recording, minimum_fixation_duration_s: float) -> int:
    n_min = math.ceil(minimum_fixation_duration_s * rec.sampling_rate_hz - 1e-9)
    if n_min < 2:
        raise InvalidParameterError(
            f"I-DT needs a minimum window of >= 2 samples; minimum_fixation_duration_s="
            f"{minimum_fixation_duration_s!r} at {rec.sampling_rate_hz:g} Hz gives {n_min}; "
            "raise minimum_fixation_duration_s")
    return n_min
