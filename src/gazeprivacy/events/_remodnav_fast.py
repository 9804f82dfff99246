# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Faster, bit-identical replacements for the hot pure-Python parts of ``remodnav.clf`` 1.1.2.

REMoDNaV is pure Python and NumPy on small windows; on ten-minute recordings it was nearly all
of participant-synth's time. Each function here gives the same values, bit for bit, as the
REMoDNaV code it replaces (``tests/events/test_remodnav_fast.py`` checks them against the
installed package, event by event), and only runs inside :mod:`gazeprivacy.events.remodnav`'s
call (its ``_patched`` context and its classifier):

* :func:`spike_filtered`: ``filter_spikes``' ``_filter`` (Stampe 1993), a sequential loop over
  every sample, as whole-array passes that recompute only the samples whose left neighbour
  changed (the sequential result is the one fixed point of that update);
* :func:`adaptive_thresholds`: ``get_adaptive_saccade_velocity_velthresh`` sorts the speeds
  once: every iteration's "speeds below the cut" is then a prefix of the sorted speeds, and its
  median a lookup (REMoDNaV filtered and partitioned them again at every step); a step that
  keeps the last step's speeds ends the loop without recomputing;
* :func:`nan_free_runs`: ``_classify_intersaccade_period``'s sample-by-sample search for NaN-free
  stretches, as one mask;
* :func:`signal_props`: ``_get_signal_props`` without the record-array copy when no speed is
  NaN;
* :func:`fix_or_pursuit`: ``_fix_or_pursuit`` with its runs of equal pursuit flags from one
  comparison instead of a loop over samples, ``x`` and ``y`` low-passed together, and a
  stretch with no speed above the pursuit threshold one fixation without the run search;
* :func:`detect_saccades`: ``_detect_saccades`` without the PSO search of an empty window (no
  PSO at ``max_pso_dur = 0``, below 200 Hz);
* :func:`lean_record` (the classifier of :func:`lean_classifier_type`, which
  :func:`~gazeprivacy.events.remodnav.remodnav_codes` uses): event records of label and
  bounds only when no PSO is looked for (the positions, median and mean speed of each event
  are read by nothing there);
* :func:`preproc`: ``preproc`` with the speed cap (a too-fast speed becomes the previous one)
  as a forward fill instead of a loop over samples, and no NaN-cluster search on NaN-free
  speeds.

:func:`clf_module` imports ``remodnav.clf`` without statsmodels: REMoDNaV's only use of it is
``statsmodels.robust.scale.mad``, which :mod:`gazeprivacy.events.remodnav` replaces during
every call, and importing it (pandas, patsy, scipy.stats) was 1-3 s of every process that
detects events.

We wrote these because REMoDNaV has no vectorised or compiled variant to call instead.
"""

from __future__ import annotations

import functools
import sys
import types
from typing import Any

import numpy as np

from gazeprivacy._scipy import scipy_signal
from gazeprivacy.events.remodnav import (
    _butter_sos,
    _find_peaks,
    _median,
    _sosfilt_kernel,
    _sosfiltfilt,
)

__all__ = ["SILENT_LOG", "adaptive_thresholds", "clf_module", "detect_saccades",
           "fast_classifier_type", "filter_spikes", "fix_or_pursuit", "lean_classifier_type",
           "lean_record", "nan_free_runs", "preproc", "pursuit_runs", "signal_props",
           "spike_filtered",
           "spike_filtered_pieces"]

class _SilentLog:
    """Stands in for ``remodnav.clf``'s logger during a call (it is set to ERROR then, and
    REMoDNaV logs nothing above WARNING): its debug / info / warning calls do nothing."""

    def _nothing(self, *args: Any, **kwargs: Any) -> None:
        return None

    debug = info = warning = _nothing


SILENT_LOG = _SilentLog()
_MAD_SCALE = 0.6744897501960817  # statsmodels' mad: the normal's 0.75 quantile
_SEQUENTIAL_AFTER = 8  # passes before the rest is finished by the sequential loop


def _spike_step(prev: np.ndarray, cur: np.ndarray, nxt: np.ndarray) -> np.ndarray:
    """``_filter``'s update of sample ``i`` from its (filtered) left neighbour ``prev`` and its
    own and right neighbour's input values: at a sign reversal of the differences, the closer
    neighbour (the right one on a tie)."""
    flip = ((prev < cur) & (cur > nxt)) | ((prev > cur) & (cur < nxt))
    closer = np.where(np.abs(prev - cur) < np.abs(nxt - cur), prev, nxt)
    return np.where(flip, closer, cur)


def _spike_loop(out: np.ndarray, a: np.ndarray, start: int) -> None:
    """REMoDNaV's loop itself from sample ``start`` on (``out`` final before it)."""
    for i in range(max(start, 1), a.shape[0] - 1):
        p, c, nx = out[i - 1], a[i], a[i + 1]
        if (p < c and c > nx) or (p > c and c < nx):
            out[i] = p if abs(p - c) < abs(nx - c) else nx
        else:
            out[i] = c


def spike_filtered(arr: Any) -> np.ndarray:
    """``remodnav.clf.filter_spikes``' ``_filter`` of a 1-D float array, as a new array.

    Sample ``i``'s update reads its filtered left neighbour and its unfiltered right one, so
    the result is the unique sequence with ``out[i] = step(out[i - 1], a[i], a[i + 1])``. Each
    pass recomputes the samples whose left neighbour changed since they were computed; once
    none did, that equation holds everywhere. After a few passes (long chains of reversals)
    the sequential loop finishes from the first sample still in doubt (all before it are
    final).

    >>> spike_filtered(np.array([0.0, 5.0, 0.1, 0.2, 0.3])).tolist()
    [0.0, 0.1, 0.1, 0.2, 0.3]
    """
    a = np.array(arr, dtype=np.float64)
    n = a.shape[0]
    out = a.copy()
    if n < 3:
        return out
    used = a[:-2].copy()  # the left neighbour each sample 1 .. n-2 was computed from
    out[1:-1] = _spike_step(used, a[1:-1], a[2:])
    for _ in range(_SEQUENTIAL_AFTER):
        # bitwise comparison: NaN equals NaN, -0.0 differs from 0.0
        dirty = np.flatnonzero(out[:-2].view(np.int64) != used.view(np.int64))
        if dirty.size == 0:
            return out
        used[dirty] = out[dirty]
        out[dirty + 1] = _spike_step(used[dirty], a[dirty + 1], a[dirty + 2])
    dirty = np.flatnonzero(out[:-2].view(np.int64) != used.view(np.int64))
    if dirty.size:
        _spike_loop(out, a, int(dirty[0]) + 1)
    return out


def spike_filtered_pieces(pieces: list[np.ndarray]) -> list[np.ndarray]:
    """:func:`spike_filtered` of each 1-D array of ``pieces`` (new arrays), in one set of
    whole-array passes over all of them end to end (each piece's first and last samples kept,
    as the filter keeps an array's): a recording's segments, ``x`` and ``y``, at once instead
    of two calls of a few passes per segment. The same update and the same fixed point per
    piece; after ``2 * _SEQUENTIAL_AFTER`` passes the sequential loop finishes each piece from
    its first sample still in doubt.

    >>> [p.tolist() for p in spike_filtered_pieces([np.array([0.0, 5.0, 0.1, 0.2, 0.3]),
    ...                                              np.array([1.0, 0.0, 1.0])])]
    [[0.0, 0.1, 0.1, 0.2, 0.3], [1.0, 1.0, 1.0]]
    """
    if not pieces:
        return []
    a = np.concatenate([np.asarray(p, dtype=np.float64) for p in pieces])
    lengths = np.array([len(p) for p in pieces])
    ends = np.cumsum(lengths)
    interior = np.ones(a.shape[0], dtype=bool)
    interior[ends[lengths > 0] - 1] = False
    interior[(ends - lengths)[lengths > 0]] = False
    idx = np.flatnonzero(interior)
    out = a.copy()
    used = a[idx - 1]  # the left neighbour each interior sample was computed from
    out[idx] = _spike_step(used, a[idx], a[idx + 1])
    for _ in range(2 * _SEQUENTIAL_AFTER):
        # bitwise comparison: NaN equals NaN, -0.0 differs from 0.0
        dirty = np.flatnonzero(out[idx - 1].view(np.int64) != used.view(np.int64))
        if dirty.size == 0:
            break
        used[dirty] = out[idx[dirty] - 1]
        at = idx[dirty]
        out[at] = _spike_step(used[dirty], a[at], a[at + 1])
    else:
        dirty = np.flatnonzero(out[idx - 1].view(np.int64) != used.view(np.int64))
        piece = np.searchsorted(ends, idx[dirty], side="right")
        for k in np.unique(piece).tolist():  # before its first doubt a piece is final
            first = int(idx[dirty][np.searchsorted(piece, k)])
            lo = int(ends[k] - lengths[k])
            _spike_loop(out[lo:ends[k]], a[lo:ends[k]], first - lo)
    return np.split(out, ends[:-1])


def filter_spikes(data: Any) -> Any:
    """``remodnav.clf.filter_spikes`` (in place on ``data``'s ``x`` and ``y``, returned)."""
    data["x"] = spike_filtered(data["x"])
    data["y"] = spike_filtered(data["y"])
    return data


def adaptive_thresholds(self: Any, vels: Any) -> tuple[Any, Any]:
    """``EyegazeClassifier.get_adaptive_saccade_velocity_velthresh`` (Nystroem & Holmqvist's
    iteration: median + 2 x factor x MAD of the speeds below the current threshold, until it
    moves by at most 1 deg/s or 30 steps), with the speeds sorted once: each step's speeds
    below the cut are a prefix, whose median is a look-up (NumPy's mean of the middle one or
    two values, the same bits), and the MAD's median a partition. A step whose cut keeps the
    same speeds as the step before gives that step's threshold again (the same median and
    MAD): it is not recomputed, and the loop stops there (it moved by 0)."""
    s = np.array(vels, dtype=np.float64)
    s.sort()  # NaN last: never below a cut
    cur = self.velthresh_startvel
    count, dif = 0, 2
    med: Any = np.nan
    scale = np.nan
    kept = -1
    while dif > 1 and count < 30:
        old = cur
        j = int(s.searchsorted(old, side="left"))
        if j == kept:  # (old is then the last step's nonzero threshold)
            count += 1
            break
        kept = j
        if j:
            k = j // 2
            med = s[k] / 1 if j % 2 else (s[k - 1] + s[k]) / 2  # np.median's mean of the middle
            d = np.abs(s[:j] - med)
            d.partition(k if j % 2 else (k - 1, k))
            scale = float(d[k] / 1 if j % 2 else (d[k - 1] + d[k]) / 2) / _MAD_SCALE
        else:  # REMoDNaV's median and MAD of no value
            med, scale = np.float64(np.nan), np.nan
        cur = med + 2 * self.noise_factor * scale
        if not cur:
            cur = old
            break
        dif = abs(old - cur)
        count += 1
    return cur, (med + self.noise_factor * scale)


def nan_free_runs(x: np.ndarray, start: int, end: int) -> list[tuple[int, int]]:
    """The maximal NaN-free stretches ``[a, b)`` of ``x[start:end]`` (absolute indices), in
    order: what ``_classify_intersaccade_period`` finds sample by sample."""
    nan = np.isnan(x[start:end])
    if not nan.any():
        return [(start, end)] if end > start else []
    edges = np.diff(np.concatenate(([True], nan, [True])).astype(np.int8))
    ons, offs = np.flatnonzero(edges == -1), np.flatnonzero(edges == 1)
    return [(start + int(a), start + int(b)) for a, b in zip(ons, offs, strict=True)]


def _classify_isp(self: Any, data: Any, start: int, end: int, saccade_detection: bool) -> Any:
    """``EyegazeClassifier._classify_intersaccade_period`` over :func:`nan_free_runs`."""
    for a, b in nan_free_runs(data["x"], start, end):
        yield from self._classify_intersaccade_period_helper(data, a, b, saccade_detection)


def signal_props(self: Any, data: Any) -> tuple[Any, Any, Any, Any]:
    """``EyegazeClassifier._get_signal_props``: amplitude, peak, median and mean speed of the
    samples with a speed (the same record layout, so the same sums)."""
    ok = ~np.isnan(data["vel"])
    if not ok.all():
        data = data[ok]
    if not len(data):
        return np.nan, np.nan, np.nan, np.nan
    vel, x, y = data["vel"], data["x"], data["y"]
    amp = (((x[0] - x[-1]) ** 2 + (y[0] - y[-1]) ** 2) ** 0.5) * self.px2deg
    # np.mean's own steps (its sum, over the count) without its per-call dispatch
    return amp, vel.max(), _median(vel), np.float64(np.add.reduce(vel) / vel.shape[0])


def _statsmodels_mad(*args: Any, **kwargs: Any) -> Any:
    """``statsmodels.robust.scale.mad``, imported on its first call."""
    from statsmodels.robust.scale import mad

    return mad(*args, **kwargs)


def clf_module() -> types.ModuleType:
    """``remodnav.clf``; when neither it nor statsmodels' ``scale`` module is loaded yet, it is
    imported with a stand-in ``statsmodels.robust.scale`` (only for the import; removed from
    ``sys.modules`` right after) whose ``mad`` imports statsmodels' own on its first call, so
    REMoDNaV used outside gazeprivacy's calls still computes statsmodels' MAD."""
    scipy_signal()  # (without scipy.stats)
    name = "statsmodels.robust.scale"
    if "remodnav.clf" in sys.modules or name in sys.modules:
        import remodnav.clf

        return remodnav.clf
    stand_in = types.ModuleType(name)
    stand_in.mad = _statsmodels_mad  # type: ignore[attr-defined]
    sys.modules[name] = stand_in
    try:
        import remodnav.clf
    finally:
        if sys.modules.get(name) is stand_in:
            del sys.modules[name]
    return remodnav.clf


def _runs(flags: np.ndarray) -> list[list[int]]:
    """``[flag, first, last]`` of each run of equal values of ``flags``, in order."""
    n = flags.shape[0]
    if n == 0:
        return []
    cut = np.flatnonzero(flags[1:] != flags[:-1]) + 1
    firsts = [0, *cut.tolist()]
    lasts = [*(cut - 1).tolist(), n - 1]
    return [[int(flags[a]), a, b] for a, b in zip(firsts, lasts, strict=True)]


def _merged(evs: list[list[int]], min_dur: dict[int, int], n: int) -> list[list[int]]:
    """``_fix_or_pursuit``'s events from its runs: too short ones dropped, neighbours of one
    kind merged, a boundary halfway between two kinds, the first from 0 and the last to ``n``
    (all fixation when nothing is left)."""
    evs = [ev for ev in evs if ev[2] - ev[1] >= min_dur[ev[0]]]
    merged = []
    for i, ev in enumerate(evs):
        if i == len(evs) - 1:
            merged.append(ev)
            break
        if ev[0] == evs[i + 1][0]:
            evs[i + 1][1] = ev[1]
            continue
        boundary = ev[2] + int((evs[i + 1][1] - ev[2]) / 2)
        ev[2] = boundary
        evs[i + 1][1] = boundary
        merged.append(ev)
    if not merged:
        return [[0, 0, n]]
    merged[0][1] = 0
    merged[-1][2] = n
    return merged


def fix_or_pursuit(self: Any, data: Any, start: int, end: int) -> Any:
    """``EyegazeClassifier._fix_or_pursuit``: the low-passed speeds of a stretch between
    saccades, pursuit where they exceed the pursuit threshold long enough, fixation elsewhere.
    The low-pass filter is :mod:`gazeprivacy.events.remodnav`'s (the one its call puts in
    REMoDNaV's place), on ``x`` and ``y``; a stretch with no speed above the threshold
    is one fixation (what the runs give then) without the run search."""
    if end - start < self.min_fix_dur:
        return
    xy = np.stack((data["x"][start:end], data["y"][start:end]))
    if xy.shape[1] >= 2:
        sos, zi = _butter_sos(5, float(self.lp_cutoff_freq / (0.5 * self.sr)), "low", False)
        xy = np.stack([_sosfiltfilt(sos, zi, v) for v in xy])
    d = np.diff(xy, axis=1)
    vels = (d[0] ** 2 + d[1] ** 2) ** 0.5  # REMoDNaV's _get_velocities, step by step
    vels *= self.px2deg * self.sr
    if not (vels > self.pursuit_velthresh).any():
        yield self._mk_event_record(data, None, "FIXA", start, end)
        return
    for ev in pursuit_runs(self, vels, end - start):
        yield self._mk_event_record(data, None, "PURS" if ev[0] else "FIXA", start + ev[1],
                                    start + ev[-1])


def pursuit_runs(self: Any, vels: np.ndarray, n: int) -> list[list[int]]:
    """``_fix_or_pursuit``'s events ``[pursuit?, first, end]`` (relative to the stretch of
    ``n`` samples) from its low-passed speeds ``vels``: pursuit where they exceed the pursuit
    threshold long enough (REMoDNaV's peaks, onsets and offsets), fixation elsewhere."""
    clf = self.clf_module
    thresh = self.pursuit_velthresh
    flags = np.zeros((len(vels),), dtype=int)
    for on, off, _ in sorted(_find_peaks(vels, thresh), key=lambda x: x[2].sum(),
                             reverse=True):
        on = clf.find_movement_onsetidx(vels, on, thresh)
        off = clf.find_movement_offsetidx(vels, off, thresh)
        if off - on >= self.min_purs_dur:
            flags[on:off] = 1
    return _merged(_runs(flags), {1: self.min_purs_dur, 0: self.min_fix_dur}, n)


def detect_saccades(self: Any, candidate_locs: Any, data: Any, start: int, end: int,
                    context: Any) -> Any:
    """``EyegazeClassifier._detect_saccades`` (the same steps and events), reading the speeds
    once, with its peak finder :func:`~gazeprivacy.events.remodnav._find_peaks` called
    directly, and no PSO search when ``max_pso_dur`` is 0 (its window is then empty: REMoDNaV
    finds no PSO in it)."""
    clf = self.clf_module
    vel = data["vel"]
    saccade_events: list[Any] = []
    if context is None:
        sac_peak_velthresh, sac_onset_velthresh = \
            self.get_adaptive_saccade_velocity_velthresh(vel[start:end])
        if candidate_locs is None:
            candidate_locs = [(e[0] + start, e[1] + start, e[2])
                              for e in _find_peaks(vel[start:end], sac_peak_velthresh)]
    n = len(data)
    status = np.zeros((n,), dtype=int) if candidate_locs else None
    for i, props in enumerate(sorted(candidate_locs, key=lambda x: x[2].sum(), reverse=True)):
        sacc_start, sacc_end, _ = props
        if context:
            win_start = max(start, sacc_start - int(context / 2))
            win_end = min(end, sacc_end + context - (sacc_start - win_start))
            sac_peak_velthresh, sac_onset_velthresh = \
                self.get_adaptive_saccade_velocity_velthresh(vel[win_start:win_end])
        sacc_start = clf.find_movement_onsetidx(vel, sacc_start, sac_onset_velthresh)
        sacc_end = clf.find_movement_offsetidx(vel, sacc_end, sac_onset_velthresh)
        if sacc_end - sacc_start < self.min_sac_dur:
            continue
        if np.isnan(data["x"][sacc_start:sacc_end]).any():  # pragma: no cover - REMoDNaV's too
            continue
        if status[max(0, sacc_start - self.min_intersac_dur):min(
                n, sacc_end + self.min_intersac_dur)].any():
            continue
        event = self._mk_event_record(data, i, "SACC", sacc_start, sacc_end)
        yield event.copy()
        saccade_events.append(event)
        status[sacc_start:sacc_end] = 1
        pso = clf.find_psoend(vel[sacc_end:sacc_end + self.max_pso_dur], sac_onset_velthresh,
                              sac_peak_velthresh) if self.max_pso_dur else None
        if pso:
            pso_label, pso_end = pso
            psoevent = self._mk_event_record(data, i, pso_label, sacc_end, sacc_end + pso_end)
            if psoevent["amp"] < saccade_events[-1]["amp"]:
                yield psoevent.copy()
                status[sacc_end:sacc_end + pso_end] = 1
        if self.max_sac_freq and float(len(saccade_events)) / n > self.max_sac_freq:
            break


def lean_record(self: Any, data: Any, idx: Any, label: str, start: int, end: int
                ) -> dict[str, Any]:
    """``_mk_event_record`` with only the fields the classification itself reads (id, label,
    bounds) when it looks for no PSO; the whole record (positions, amplitude, speeds) when it
    does (a PSO's amplitude is compared with its saccade's). For
    :func:`~gazeprivacy.events.remodnav.remodnav_codes`, which reads labels and bounds only:
    the positions, the median and the mean speed of every event were a fifth of its time."""
    if self.max_pso_dur:
        return clf_module().EyegazeClassifier._mk_event_record(self, data, idx, label, start,
                                                               end)
    return {"id": idx, "label": label, "start_time": start, "end_time": end}


def _capped(v: np.ndarray, max_vel: float) -> np.ndarray:
    """``preproc``'s loop: ``[0.0]`` then each speed, or the previous output where it exceeds
    ``max_vel`` (NaN is kept)."""
    out = np.concatenate(([0.0], v))
    keep = np.concatenate(([True], ~(v > max_vel)))
    return out[np.maximum.accumulate(np.where(keep, np.arange(out.shape[0]), 0))]


def _median_reflect(a: np.ndarray, size: int, median_filter: Any) -> np.ndarray:
    """SciPy's ``median_filter(a, size)`` (mode ``reflect``), also on segments shorter than
    the window. There SciPy 1.17 reads past the samples, strided or contiguous (a 2-sample
    segment with a window of 6 gave different medians from run to run, in CI), so a short
    segment is padded by repeated reflection here (NumPy's ``symmetric``, SciPy's ``reflect``)
    and its window medians taken directly; written out because no library call is safe there.

    >>> x = np.array([3.0, 1.0, 2.0, 5.0, 4.0, 0.0, 7.0])
    >>> from scipy.ndimage import median_filter
    >>> bool((_median_reflect(x, 4, median_filter) == median_filter(x, size=4)).all())
    True
    >>> _median_reflect(np.array([1.0, 2.0]), 6, median_filter)  # 2 2 1 | 1 2 | 2 1
    array([2. , 1.5])
    """
    a = np.ascontiguousarray(a)
    if a.size >= size:
        return median_filter(a, size=size)
    padded = np.pad(a, (size // 2, size - 1 - size // 2), mode="symmetric")
    return np.median(np.lib.stride_tricks.sliding_window_view(padded, size), axis=1)


def preproc(self: Any, data: Any, min_blink_duration: float = 0.02, dilate_nan: float = 0.01,
            median_filter_length: float = 0.05, savgol_length: float = 0.019,
            savgol_polyord: int = 2, max_vel: float = 1000.0) -> np.ndarray:
    """``EyegazeClassifier.preproc`` (spike filter, blink dilation, Savitzky-Golay filter,
    speeds, median-filtered speeds, the speed cap, acceleration), as a structured array with
    its fields; its logging of each capped speed left out."""
    from scipy.ndimage import median_filter
    from scipy.signal import savgol_filter

    clf = clf_module()
    sr = self.sr
    dilate, blink = int(dilate_nan * sr), int(min_blink_duration * sr)
    sg = int(savgol_length * sr)
    if (sg % 2 != 1 or sg < savgol_polyord) and savgol_length != 0.0:
        raise ValueError(f"Inappropriate window size for Savitzgy-Golay filter: {sg}")
    med_len = int(median_filter_length * sr)
    if not getattr(self, "spikes_filtered", False):  # (the lean classifier's caller does it)
        data = clf.filter_spikes(data)
    if dilate:
        mask = clf.get_dilated_nan_mask(data["x"], dilate, blink)
        data["x"][mask] = np.nan
        data["y"][mask] = np.nan
    if sg:
        for i in ("x", "y"):
            data[i] = savgol_filter(data[i], sg, savgol_polyord)
    velocities = self._get_velocities(data)
    if med_len:
        med = np.zeros((len(data),), velocities.dtype)
        med[1:] = (np.diff(_median_reflect(data["x"], med_len, median_filter)) ** 2
                   + np.diff(_median_reflect(data["y"], med_len, median_filter)) ** 2) ** 0.5
        med *= self.px2deg * sr
        if np.isnan(med).any():  # (REMoDNaV's mask of no NaN is empty)
            med[clf.get_dilated_nan_mask(med, dilate, 0)] = np.nan
    velocities = _capped(velocities, max_vel)
    if not med_len:
        med = velocities
    accel = np.zeros(velocities.shape, velocities.dtype)
    accel[1:] = (velocities[1:] - velocities[:-1]) * sr
    out = np.empty(velocities.shape[0], dtype=[(n, np.float64) for n in
                                               ("med_vel", "vel", "accel", "x", "y")])
    for name, v in (("med_vel", med), ("vel", velocities), ("accel", accel),
                    ("x", data["x"]), ("y", data["y"])):
        out[name] = v
    return out


@functools.cache
def fast_classifier_type() -> type:
    """``remodnav.EyegazeClassifier`` with the methods above (its whole event records)."""
    return type("FastEyegazeClassifier", (clf_module().EyegazeClassifier,), {
        "get_adaptive_saccade_velocity_velthresh": adaptive_thresholds,
        "_classify_intersaccade_period": _classify_isp,
        "_get_signal_props": signal_props, "preproc": preproc,
        "_fix_or_pursuit": fix_or_pursuit, "_detect_saccades": detect_saccades,
        "clf_module": clf_module()})


@functools.cache
def lean_classifier_type() -> type:
    """:func:`fast_classifier_type` with :func:`lean_record` as its event record: the same
    events (labels and bounds), without their other fields unless it looks for PSOs; its
    ``preproc`` takes ``x`` and ``y`` already spike-filtered (``spikes_filtered``: its caller
    filters a recording's segments at once, :func:`spike_filtered_pieces`); with SciPy's
    filter loop at hand it notes the stretches between saccades and its caller classifies
    them all at once afterwards (its ``_fix_or_pursuit`` is
    :func:`~gazeprivacy.events._remodnav_batch.deferred_fix_or_pursuit`), and its ``__call__``,
    thresholds and ``preproc`` are :mod:`gazeprivacy.events._remodnav_compiled`'s (compiled
    when built)."""
    from gazeprivacy.events import _remodnav_compiled as compiled
    from gazeprivacy.events._remodnav_batch import deferred_fix_or_pursuit

    batch = {"_fix_or_pursuit": deferred_fix_or_pursuit, "__call__": compiled.compiled_call,
             "get_adaptive_saccade_velocity_velthresh": compiled.compiled_thresholds,
             "preproc": compiled.compiled_preproc} if _sosfilt_kernel() is not None else {}
    return type("LeanEyegazeClassifier", (fast_classifier_type(),),
                {"_mk_event_record": lean_record, "spikes_filtered": True, **batch})
