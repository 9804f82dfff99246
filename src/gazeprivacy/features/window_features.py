# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The 52 sliding-window eye-movement features of MPIIDPEye / MPIIPrivacEye (SPEC sections 1, 5).

Steil, Hagestedt, Huang, Bulling, ETRA 2019 (seed 004) and Bozkir, Günlü et al., PLOS ONE 2021
(seed 002) use 52 features per 30 s window (0.5 s step) after Bulling, Ward, Gellersen, Tröster,
"Eye movement analysis for activity recognition using electrooculography", IEEE TPAMI 33(4),
2011: rates and ratios of fixations and saccades, saccade amplitudes, fixation durations, the
within-fixation spread of the position and of the pupil diameter, blinks, and the wordbook
(n-gram of saccade characters) statistics for n = 1..4. The order and names follow the dataset's
``Readme.txt`` (``FEATURE_NAMES``).

Event detection (written here, vectorised, for ~30 Hz uncalibrated pupil positions):

* A sample is **valid** when its position is finite (and, for MPIIDPEye, its pupil-detection
  confidence is >= 0.6; PROVENANCE.md). Invalid samples are kept in the input and simply never
  belong to a fixation or a saccade.
* **Saccades**: I-VT on the forward step velocity ``|p[i+1] - p[i]| / (t[i+1] - t[i])`` between two
  valid samples closer than ``max_gap_s``; a run of steps above ``velocity_threshold`` is one
  saccade from the first to the last sample of the run. At 30 Hz most saccades are one or two
  steps, so a velocity detector on steps is the natural choice (a dispersion detector would need
  a window of several samples that is longer than a reading fixation's neighbourhood).
  Amplitude = straight-line distance between the saccade's end points; sign = sign of the
  horizontal component (``x`` increasing = "positive"; in the eye-camera image this is a fixed
  but unknown mirror of gaze direction).
* **Fixations**: maximal runs of valid, non-saccadic samples lasting ``>= min_fixation_s``.
* **Blinks**: maximal runs of invalid samples lasting between ``blink_min_s`` and
  ``blink_max_s`` (longer runs are tracking loss, not blinks).

Units: MPIIDPEye has *no calibration*: positions are normalised eye-camera coordinates (0..1,
"eye-image units", eiu), which the shared loader maps to pseudo-degrees (100 per eiu; see
:mod:`gazeprivacy.data.loaders.mpiidpeye`). :meth:`WindowFeatureParams.mpiidpeye` states its
thresholds in that unit: ``velocity_threshold = 15 pseudo-deg/s`` (0.15 eiu/s, about the 85th
percentile of sample-to-sample speeds in MPIIDPEye) and ``large_saccade_amplitude = 3 pseudo-deg``
(0.03 eiu; ~20 % of the detected saccades are "large"). They were set by looking at the speed and
amplitude distributions of one recording, not tuned on any task. A real eye rotation per eiu is
unknown (very roughly 150-200 degrees for a typical eye camera), so these are not physiological
thresholds; they are only comparable within this dataset. The velocity threshold is below the
usual 30 deg/s because at ~30 Hz a reading saccade spans one or two samples and its measured mean
speed is low. :meth:`WindowFeatureParams.degrees` gives the calibrated-gaze version (30 deg/s, 5
degrees). Rates are per second; durations in seconds; amplitudes and position variances in
position units (squared); diameters in the tracker's unit (eye-camera pixels).

Window policy: window ``j`` covers ``[t0 + j step_s, t0 + j step_s + window_s)``; only complete
windows are produced. An event belongs to the window that contains its onset; a wordbook word (n
consecutive saccades) belongs to a window when all its saccades do. Statistics of an empty set
(e.g. mean fixation duration in a window without fixations) are 0, and so are ratios with a zero
denominator; variances are population variances (ddof 0).

Speed: events are detected once per recording; window aggregates use cumulative sums and
``searchsorted`` (counts, sums, variances), a sparse table (maxima) and one incremental pass
(wordbooks), so a whole MPIIDPEye (60 recordings, ~80 k windows) takes seconds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy._validation import check_positive
from gazeprivacy.data.loaders.mpiidpeye import FOLDER, load_mpiidpeye
from gazeprivacy.data.recording import Recording
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError

__all__ = [
    "FEATURE_NAMES",
    "WORDBOOK_MIN_FEATURES",
    "FeatureSeries",
    "WindowFeatureParams",
    "detect_events",
    "feature_table",
    "load_mpiidpeye_features",
    "recording_features",
    "series_from_table",
    "window_features",
]

FEATURE_NAMES: tuple[str, ...] = (
    "rate_fixations", "rate_saccades", "rate_small_saccades", "rate_large_saccades",
    "rate_positive_saccades", "rate_negative_saccades", "ratio_saccades_fixations",
    "ratio_small_saccades", "ratio_large_saccades", "ratio_positive_saccades",
    "ratio_negative_saccades", "mean_saccade_amplitude", "var_saccade_amplitude",
    "max_saccade_amplitude", "mean_fixation_duration", "var_fixation_duration",
    "max_fixation_duration", "mean_var_x", "mean_var_y", "var_var_x", "var_var_y",
    "mean_mean_diameter_fix", "var_mean_diameter_fix", "mean_var_diameter_fix",
    "var_var_diameter_fix", "mean_blink_duration", "var_blink_duration", "blink_rate",
    *(f"{stat}_wb{n}" for n in (1, 2, 3, 4)
      for stat in ("nonzero", "max", "min", "maxmin", "mean", "var")),
)
"""The 52 feature names, in the order of MPIIDPEye's ``Readme.txt`` (#0 .. #51)."""

WORDBOOK_MIN_FEATURES: tuple[str, ...] = ("min_wb1", "min_wb2", "min_wb3", "min_wb4")
"""Seed 002 drops these (always 0 in its data) from utility and privacy calculations."""

_N_DIRECTIONS = 8  # saccade characters: 8 direction sectors x {small, large} = 16 letters
_ALPHABET = 2 * _N_DIRECTIONS


@dataclass(frozen=True, kw_only=True)
class WindowFeatureParams:
    """Event-detection and windowing settings of the 52 features.

    Parameters
    ----------
    velocity_threshold : float
        I-VT threshold in position units per second (> 0).
    large_saccade_amplitude : float
        Saccades with a larger amplitude (position units) are "large" (> 0).
    position_unit : str
        Name of the position unit, recorded with the features ("pseudo-deg" or "deg").
    window_s, step_s : float
        Window length and step (s); 30 and 0.5 as in MPIIDPEye.
    min_fixation_s : float
        Shortest fixation (s). 0.1 s: reading fixations are short and at 30 Hz this is 3 samples.
    blink_min_s, blink_max_s : float
        Duration range (s) of an invalid run that counts as a blink.
    max_gap_s : float
        Two valid samples further apart than this are not joined into one event.
    """

    velocity_threshold: float
    large_saccade_amplitude: float
    position_unit: str = "deg"
    window_s: float = 30.0
    step_s: float = 0.5
    min_fixation_s: float = 0.1
    blink_min_s: float = 0.09
    blink_max_s: float = 0.6
    max_gap_s: float = 0.1

    def __post_init__(self) -> None:
        for name in ("velocity_threshold", "large_saccade_amplitude", "window_s", "step_s",
                     "min_fixation_s", "blink_max_s", "max_gap_s"):
            check_positive(**{name: getattr(self, name)})
        check_positive(allow_zero=True, blink_min_s=self.blink_min_s)
        if self.blink_min_s >= self.blink_max_s:
            raise InvalidParameterError(
                f"blink_min_s must be < blink_max_s, got {self.blink_min_s} >= {self.blink_max_s}")
        if self.step_s > self.window_s:
            raise InvalidParameterError(
                f"step_s must be <= window_s, got {self.step_s} > {self.window_s}")

    @classmethod
    def mpiidpeye(cls, **changes: Any) -> WindowFeatureParams:
        """Thresholds for MPIIDPEye's uncalibrated pupil positions (pseudo-degrees, ~30 Hz)."""
        return replace(cls(velocity_threshold=15.0, large_saccade_amplitude=3.0,
                           position_unit="pseudo-deg"), **changes)

    @classmethod
    def degrees(cls, **changes: Any) -> WindowFeatureParams:
        """Thresholds for calibrated gaze in degrees (I-VT 30 deg/s, large saccade > 5 deg)."""
        return replace(cls(velocity_threshold=30.0, large_saccade_amplitude=5.0,
                           position_unit="deg"), **changes)


@dataclass(frozen=True, eq=False, kw_only=True)
class FeatureSeries:
    """One recording's feature time series: ``values[j, f]`` is feature ``f`` in window ``j``.

    Examples
    --------
    >>> fs = FeatureSeries(recording="r", participant="p", t_start=np.array([0.0, 0.5]),
    ...                    values=np.zeros((2, 52)), labels={"document": "comic"})
    >>> fs.n_windows, fs.to_table().shape
    (2, (2, 56))
    """

    recording: str
    participant: str
    t_start: np.ndarray
    values: np.ndarray
    labels: Mapping[str, str] = field(default_factory=dict)
    feature_names: tuple[str, ...] = FEATURE_NAMES
    window_s: float = 30.0

    def __post_init__(self) -> None:
        t = np.array(self.t_start, dtype=np.float64)
        v = np.array(self.values, dtype=np.float64)
        if v.ndim != 2 or v.shape[1] != len(self.feature_names) or v.shape[0] != t.shape[0]:
            raise InvalidDataError(
                f"recording {self.recording!r}: values must be (n_windows={t.shape[0]}, "
                f"{len(self.feature_names)}), got {v.shape}")
        t.setflags(write=False)
        v.setflags(write=False)
        object.__setattr__(self, "t_start", t)
        object.__setattr__(self, "values", v)
        object.__setattr__(self, "labels", {str(k): str(x) for k, x in self.labels.items()})
        object.__setattr__(self, "feature_names", tuple(self.feature_names))

    @property
    def n_windows(self) -> int:
        return int(self.values.shape[0])

    def column(self, name: str) -> np.ndarray:
        """One feature's series; the error lists the valid names."""
        try:
            return self.values[:, self.feature_names.index(name)]
        except ValueError:
            raise InvalidParameterError(f"unknown feature {name!r}; choose one of: "
                                        f"{', '.join(self.feature_names)}") from None

    def with_values(self, values: np.ndarray, t_start: np.ndarray | None = None) -> FeatureSeries:
        """A copy with new values (and optionally new window times, e.g. after subsampling)."""
        return replace(self, values=values,
                       t_start=self.t_start if t_start is None else t_start)

    def select(self, names: Sequence[str]) -> FeatureSeries:
        idx = [self.feature_names.index(n) for n in names]
        return replace(self, values=self.values[:, idx], feature_names=tuple(names))

    def to_table(self) -> pl.DataFrame:
        """Long-by-window table: participant, recording, labels, t_start, one column per feature."""
        n = self.n_windows
        cols: dict[str, Any] = {
            "participant": pl.Series([self.participant] * n, dtype=pl.String),
            "recording": pl.Series([self.recording] * n, dtype=pl.String),
            **{k: pl.Series([v] * n, dtype=pl.String) for k, v in self.labels.items()},
            "t_start": self.t_start,
        }
        cols.update({name: self.values[:, i] for i, name in enumerate(self.feature_names)})
        return pl.DataFrame(cols)


def feature_table(series: Iterable[FeatureSeries]) -> pl.DataFrame:
    """Concatenate feature series into one table (recordings in order)."""
    return pl.concat([s.to_table() for s in series], how="diagonal_relaxed")


def series_from_table(table: pl.DataFrame, *, feature_names: Sequence[str] | None = None,
                      window_s: float = 30.0) -> list[FeatureSeries]:
    """Split a feature table (as written by :func:`feature_table`) back into series.

    Columns other than ``participant``, ``recording``, ``t_start`` and the features are string
    labels. Feature columns default to every numeric column besides ``t_start``.
    """
    for col in ("participant", "recording", "t_start"):
        if col not in table.columns:
            raise InvalidDataError(f"feature table needs a {col!r} column; it has "
                                   f"{', '.join(table.columns)}")
    if feature_names is None:
        feature_names = [c for c, dt in table.schema.items()
                         if dt.is_numeric() and c != "t_start"]
    labels = [c for c in table.columns
              if c not in ("participant", "recording", "t_start", *feature_names)]
    out = []
    for (rec,), part in table.group_by(["recording"], maintain_order=True):
        first = part.row(0, named=True)
        out.append(FeatureSeries(
            recording=str(rec), participant=str(first["participant"]),
            t_start=part["t_start"].to_numpy(),
            values=part.select(feature_names).to_numpy().astype(np.float64),
            labels={k: str(first[k]) for k in labels}, feature_names=tuple(feature_names),
            window_s=window_s))
    return out


# --------------------------------------------------------------------------- event detection

def _runs(mask: np.ndarray, breaks: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Start and (exclusive) end indices of the True runs of ``mask``.

    ``breaks[i]`` True splits a run between samples ``i`` and ``i + 1``.
    """
    m = np.asarray(mask, dtype=bool)
    if m.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    prev = np.concatenate([[False], m[:-1]])
    nxt = np.concatenate([m[1:], [False]])
    if breaks is not None:
        prev = prev & ~np.concatenate([[False], breaks])
        nxt = nxt & ~np.concatenate([breaks, [False]])
    starts = np.flatnonzero(m & ~prev)
    ends = np.flatnonzero(m & ~nxt) + 1
    return starts, ends


def detect_events(t: np.ndarray, x: np.ndarray, y: np.ndarray, valid: np.ndarray,
                  pupil: np.ndarray | None, params: WindowFeatureParams) -> dict[str, np.ndarray]:
    """Fixations, saccades and blinks of one recording (see the module docstring).

    Returns a dict of arrays: ``fix_onset``, ``fix_duration``, ``fix_var_x``, ``fix_var_y``,
    ``fix_mean_d``, ``fix_var_d``; ``sac_onset``, ``sac_amplitude``, ``sac_dx``, ``sac_dy``;
    ``blink_onset``, ``blink_duration``.

    Examples
    --------
    >>> t = np.arange(60) / 30.0
    >>> x = np.where(t < 1.0, 30.0, 40.0); y = np.zeros(60)
    >>> ev = detect_events(t, x, y, np.ones(60, bool), None, WindowFeatureParams.mpiidpeye())
    >>> len(ev["fix_onset"]), len(ev["sac_onset"]), round(float(ev["sac_amplitude"][0]), 2)
    (2, 1, 10.0)
    """
    t = np.asarray(t, np.float64)
    n = t.shape[0]
    valid = np.asarray(valid, bool) & np.isfinite(x) & np.isfinite(y)
    dt_nom = float(np.median(np.diff(t))) if n > 1 else 1.0
    dt = np.diff(t)
    gap = dt > params.max_gap_s
    step_ok = valid[:-1] & valid[1:] & ~gap
    with np.errstate(invalid="ignore", divide="ignore"):
        speed = np.hypot(np.diff(x), np.diff(y)) / dt
    fast = step_ok & (speed > params.velocity_threshold)
    # saccades: runs of fast steps; step i joins samples i and i+1
    s_start, s_end = _runs(fast)
    s_from, s_to = s_start, s_end  # sample indices of the saccade's end points
    sac_dx = x[s_to] - x[s_from] if s_start.size else np.zeros(0)
    sac_dy = y[s_to] - y[s_from] if s_start.size else np.zeros(0)
    # fixations: valid samples not inside a saccade (interior samples of a run are saccadic; the
    # end points are shared with the neighbouring fixations, as in sample-labelling I-VT)
    in_sac = np.zeros(n, bool)
    if n > 1:
        fast_pad = np.concatenate([[False], fast, [False]])
        in_sac = fast_pad[:-1] & fast_pad[1:]  # both adjacent steps fast
    fix_mask = valid & ~in_sac
    # a fixation must not straddle a saccade: break runs at fast steps and gaps
    f_start, f_end = _runs(fix_mask, breaks=np.concatenate([fast | gap]) if n > 1 else None)
    f_dur = (t[f_end - 1] - t[f_start]) + dt_nom if f_start.size else np.zeros(0)
    keep = f_dur >= params.min_fixation_s - 1e-9
    f_start, f_end, f_dur = f_start[keep], f_end[keep], f_dur[keep]
    # within-fixation variances from centred cumulative sums
    def seg_stats(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        c = np.where(fix_mask, v - np.nanmean(v[fix_mask]) if fix_mask.any() else 0.0, 0.0)
        c = np.nan_to_num(c)
        cs = np.concatenate([[0.0], np.cumsum(c)])
        cs2 = np.concatenate([[0.0], np.cumsum(c * c)])
        cnt = (f_end - f_start).astype(np.float64)
        mean = (cs[f_end] - cs[f_start]) / cnt
        var = np.maximum((cs2[f_end] - cs2[f_start]) / cnt - mean**2, 0.0)
        offset = np.nanmean(v[fix_mask]) if fix_mask.any() else 0.0
        return mean + offset, var
    _, var_x = seg_stats(x)
    _, var_y = seg_stats(y)
    if pupil is None:
        mean_d = var_d = np.zeros(f_start.shape[0])
    else:
        mean_d, var_d = seg_stats(np.asarray(pupil, np.float64))
    # blinks: invalid runs of blink-like duration
    b_start, b_end = _runs(~valid)
    b_dur = (b_end - b_start) * dt_nom
    keep = (b_dur >= params.blink_min_s - 1e-9) & (b_dur <= params.blink_max_s + 1e-9)
    return {
        "fix_onset": t[f_start], "fix_duration": f_dur, "fix_var_x": var_x, "fix_var_y": var_y,
        "fix_mean_d": mean_d, "fix_var_d": var_d,
        "sac_onset": t[s_from], "sac_amplitude": np.hypot(sac_dx, sac_dy),
        "sac_dx": sac_dx, "sac_dy": sac_dy,
        "blink_onset": t[b_start[keep]], "blink_duration": b_dur[keep],
    }


# --------------------------------------------------------------------------- window aggregation

class _RangeMax:
    """Sparse table for range-maximum queries over ``[a, b)`` (0 for empty ranges)."""

    def __init__(self, v: np.ndarray) -> None:
        self.table = [np.asarray(v, np.float64)]
        j = 1
        while (1 << j) <= len(v):
            prev = self.table[-1]
            half = 1 << (j - 1)
            self.table.append(np.maximum(prev[:-half], prev[half:]))
            j += 1

    def query(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        out = np.zeros(a.shape[0])
        ln = b - a
        ok = ln > 0
        if not ok.any():
            return out
        k = np.floor(np.log2(np.maximum(ln, 1))).astype(np.int64)
        for j in np.unique(k[ok]):
            sel = ok & (k == j)
            tab = self.table[j]
            out[sel] = np.maximum(tab[a[sel]], tab[b[sel] - (1 << j)])
        return out


def _agg(values: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and population variance of ``values[a:b]`` per window (0 for empty windows)."""
    cnt = (b - a).astype(np.float64)
    if values.size == 0:
        return np.zeros(a.shape[0]), np.zeros(a.shape[0])
    off = float(np.mean(values))
    c = values - off
    cs = np.concatenate([[0.0], np.cumsum(c)])
    cs2 = np.concatenate([[0.0], np.cumsum(c * c)])
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (cs[b] - cs[a]) / cnt
        var = np.maximum((cs2[b] - cs2[a]) / cnt - mean**2, 0.0)
    empty = cnt == 0
    mean = np.where(empty, 0.0, mean + off)
    var = np.where(empty, 0.0, var)
    return mean, var


def _count(mask: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    cs = np.concatenate([[0], np.cumsum(mask.astype(np.int64))])
    return (cs[b] - cs[a]).astype(np.float64)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


def _saccade_letters(dx: np.ndarray, dy: np.ndarray, large: np.ndarray) -> np.ndarray:
    """16-letter alphabet: 8 direction sectors (45 degrees, centred on the axes) x small/large."""
    ang = np.arctan2(dy, dx)
    sector = np.round(ang / (2 * math.pi / _N_DIRECTIONS)).astype(np.int64) % _N_DIRECTIONS
    return sector + _N_DIRECTIONS * large.astype(np.int64)


def _wordbook(letters: np.ndarray, a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    """(n_windows, 6): nonzero, max, min, max-min, mean, var of the n-gram counts per window.

    One incremental pass: windows have non-decreasing ``a`` and ``b``, so each word is added and
    removed once; a count-of-counts array keeps the maximum exact (hand-written because no
    library offers sliding n-gram histograms, and re-counting per window is ~100x slower).
    """
    vocab = _ALPHABET**n
    n_win = a.shape[0]
    out = np.zeros((n_win, 6))
    m = letters.shape[0] - n + 1
    if m <= 0:
        return out
    codes = np.zeros(m, np.int64)
    for j in range(n):
        codes = codes * _ALPHABET + letters[j:j + m]
    counts = np.zeros(vocab, np.int64)
    max_words = m + 1
    count_of = np.zeros(max_words + 1, np.int64)
    count_of[0] = vocab
    lo = hi = 0
    total = nonzero = sumsq = cmax = 0
    wa = a.tolist()
    wb = (b - n + 1).tolist()
    cl = codes.tolist()
    for w in range(n_win):
        end = max(wb[w], wa[w])
        while hi < end:
            c = cl[hi]
            old = counts[c]
            counts[c] = old + 1
            count_of[old] -= 1
            count_of[old + 1] += 1
            if old == 0:
                nonzero += 1
            if old + 1 > cmax:
                cmax = old + 1
            sumsq += 2 * old + 1
            total += 1
            hi += 1
        start = min(wa[w], hi)
        while lo < start:
            c = cl[lo]
            old = counts[c]
            counts[c] = old - 1
            count_of[old] -= 1
            count_of[old - 1] += 1
            if old == 1:
                nonzero -= 1
            sumsq -= 2 * old - 1
            total -= 1
            while cmax > 0 and count_of[cmax] == 0:
                cmax -= 1
            lo += 1
        cmin = 0 if nonzero < vocab else int(counts.min())
        mean = total / vocab
        out[w] = (nonzero, cmax, cmin, cmax - cmin, mean, max(sumsq / vocab - mean * mean, 0.0))
    return out


def window_features(t: np.ndarray, x: np.ndarray, y: np.ndarray, valid: np.ndarray,
                    pupil: np.ndarray | None, params: WindowFeatureParams
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The 52 features on sliding windows of one recording: ``(t_start, values)``.

    Parameters
    ----------
    t : array, s
        Strictly increasing timestamps.
    x, y : array, position units
        Position (NaN = missing).
    valid : array of bool
        Usable samples (e.g. confidence >= 0.6).
    pupil : array or None
        Pupil diameter; None gives 0 for the four diameter features.
    params : WindowFeatureParams

    Returns
    -------
    t_start : (n_windows,) window start times (s)
    values : (n_windows, 52)

    Raises
    ------
    InvalidDataError
        When the recording is shorter than one window.
    """
    t = np.asarray(t, np.float64)
    if t.shape[0] < 2 or t[-1] - t[0] < params.window_s:
        dur = float(t[-1] - t[0]) if t.shape[0] else 0.0
        raise InvalidDataError(f"recording lasts {dur:.3g} s, shorter than one window "
                               f"(window_s={params.window_s}); shorten window_s or drop it")
    dt_nom = float(np.median(np.diff(t)))
    t_end = t[-1] + dt_nom
    n_win = math.floor((t_end - t[0] - params.window_s) / params.step_s + 1e-9) + 1
    starts = t[0] + params.step_s * np.arange(n_win)
    stops = starts + params.window_s
    ev = detect_events(t, x, y, valid, pupil, params)
    W = params.window_s

    def idx(onsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (np.searchsorted(onsets, starts, "left"), np.searchsorted(onsets, stops, "left"))

    fa, fb = idx(ev["fix_onset"])
    sa, sb = idx(ev["sac_onset"])
    ba, bb = idx(ev["blink_onset"])
    n_fix = (fb - fa).astype(np.float64)
    n_sac = (sb - sa).astype(np.float64)
    amp = ev["sac_amplitude"]
    large = amp > params.large_saccade_amplitude
    n_large = _count(large, sa, sb)
    n_small = n_sac - n_large
    n_pos = _count(ev["sac_dx"] > 0, sa, sb)
    n_neg = _count(ev["sac_dx"] < 0, sa, sb)
    amp_mean, amp_var = _agg(amp, sa, sb)
    fd_mean, fd_var = _agg(ev["fix_duration"], fa, fb)
    vx_mean, vx_var = _agg(ev["fix_var_x"], fa, fb)
    vy_mean, vy_var = _agg(ev["fix_var_y"], fa, fb)
    md_mean, md_var = _agg(ev["fix_mean_d"], fa, fb)
    vd_mean, vd_var = _agg(ev["fix_var_d"], fa, fb)
    bd_mean, bd_var = _agg(ev["blink_duration"], ba, bb)
    cols = [
        n_fix / W, n_sac / W, n_small / W, n_large / W, n_pos / W, n_neg / W,
        _ratio(n_sac, n_fix), _ratio(n_small, n_sac), _ratio(n_large, n_sac),
        _ratio(n_pos, n_sac), _ratio(n_neg, n_sac),
        amp_mean, amp_var, _RangeMax(amp).query(sa, sb) if amp.size else np.zeros(n_win),
        fd_mean, fd_var,
        _RangeMax(ev["fix_duration"]).query(fa, fb) if n_fix.any() else np.zeros(n_win),
        vx_mean, vy_mean, vx_var, vy_var, md_mean, md_var, vd_mean, vd_var,
        bd_mean, bd_var, (bb - ba) / W,
    ]
    letters = _saccade_letters(ev["sac_dx"], ev["sac_dy"], large)
    wb = [_wordbook(letters, sa, sb, n) for n in (1, 2, 3, 4)]
    values = np.column_stack([*cols, *wb])
    assert values.shape == (n_win, len(FEATURE_NAMES))
    return starts, values


def recording_features(recording: Recording, params: WindowFeatureParams, *,
                       valid: np.ndarray | None = None) -> FeatureSeries:
    """The 52-feature series of a :class:`~gazeprivacy.data.Recording` (valid = non-NaN gaze)."""
    ok = ~recording.missing if valid is None else np.asarray(valid, bool)
    t_start, values = window_features(recording.t, recording.x, recording.y, ok,
                                      recording.pupil, params)
    return FeatureSeries(recording=recording.recording, participant=recording.participant,
                         t_start=t_start, values=values, labels=recording.labels,
                         window_s=params.window_s)


# --------------------------------------------------------------------------- MPIIDPEye

def load_mpiidpeye_features(data_dir: str | Path, *, params: WindowFeatureParams | None = None,
                            cache_dir: str | Path | None = None) -> list[FeatureSeries]:
    """MPIIDPEye's 60 feature series (recomputed from raw samples), cached as Parquet.

    Samples come from :func:`gazeprivacy.data.loaders.mpiidpeye.load_mpiidpeye` (pseudo-degrees,
    low-confidence rows NaN = invalid). ``data_dir`` is the shared data folder or its
    ``mpiidpeye`` subfolder. The cache file name encodes the parameters; a stale cache is never
    reused.
    """
    params = params or WindowFeatureParams.mpiidpeye()
    cache = None
    if cache_dir is not None:
        key = "_".join(f"{v:g}" if isinstance(v, float) else str(v)
                       for v in params.__dict__.values())
        cache = Path(cache_dir) / f"mpiidpeye_features_{key}.parquet"
        if cache.is_file():
            return series_from_table(pl.read_parquet(cache), feature_names=FEATURE_NAMES,
                                     window_s=params.window_s)
    root = Path(data_dir)
    dataset = load_mpiidpeye(root.parent if root.name == FOLDER else root)
    out = [recording_features(rec, params) for rec in dataset]
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        feature_table(out).write_parquet(cache)
    return out
