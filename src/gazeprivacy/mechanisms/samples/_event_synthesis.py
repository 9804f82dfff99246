# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Shared machinery of the event-level synthesisers (k-same-synth, event-synth-PD).

A recording's events (REMoDNaV in sound mode, I-VT in paper mode: :func:`fit_dataset_events`)
are fitted once (:func:`fit_events`): every fixation gets its
2-D normal, every saccade its 30-step velocity profile, amplitude and duration (both mechanisms
work on the profiles themselves, so the three-parameter Gaussian fit is not needed here).
:func:`render` turns per-event synthetic parameters back into samples with the input's
timestamps and row count:

* fixation rows: draws from the (synthetic) normal, or given samples (a tested candidate);
* saccade rows: a profile integrated from the previous synthetic sample towards the next
  synthetic fixation's centre, each step ``speed * dt`` (seed 001, section 4.3.1). A saccade that
  no fixation follows moves along a direction drawn uniformly at random (data-independent) by
  its synthetic amplitude; one with no rendered event before it starts at the next synthetic
  fixation's centre or, with none, at the public centre of the recording's geometry (0, 0
  without one). The raw landing point (``FittedEvents.saccade_landing``) is never used: no raw
  position is released;
* rows in no event (short sub-threshold runs, samples beside blinks, smooth pursuit: neither
  mechanism models pursuit) are interpolated linearly in
  time between synthetic samples (nearest synthetic sample at the edges), so no raw position
  is released; a recording without any event is released as all-missing;
* missing input rows (NaN) stay missing;
* finally every sample is clamped to the recording's geometry (post-processing; without a
  geometry to +-180 x +-90 degrees): a saccade integrated with another person's speed profile
  can overshoot its target, and the clamp keeps it where gaze can be.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.events.kinematics import angular_distance_deg
from gazeprivacy.events.models import MIN_SIGMA_DEG, PROFILE_STEPS
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.mechanisms.base import _track

__all__ = ["HOLDER_REPORT_KEY", "FittedEvents", "fit_dataset_events", "fit_events",
           "group_events", "public_centre", "render", "with_holder_report"]

#: Key of ``Dataset.info`` under which a mechanism leaves its report to the data holder (counts
#: of suppressed or failed events: they depend on the data). It is NOT part of the release: a
#: release writer must drop it (SPEC section 4: "never written into the release").
HOLDER_REPORT_KEY = "holder_report"


@dataclass(frozen=True)
class FittedEvents:
    """The fitted events of one recording, in time order."""

    names: np.ndarray  # "fixation" | "saccade"
    onset: np.ndarray  # first sample index
    offset: np.ndarray  # exclusive end index
    fixation_params: np.ndarray  # (n_fix, 4) mu_x, mu_y, sigma_x, sigma_y
    saccade_profiles: np.ndarray  # (n_sacc, 30) deg/s
    saccade_amplitude_deg: np.ndarray
    saccade_duration_s: np.ndarray
    saccade_landing: np.ndarray  # (n_sacc, 2) last sample: RAW, never rendered (see render)

    @property
    def n_fixations(self) -> int:
        return int(self.fixation_params.shape[0])

    @property
    def n_saccades(self) -> int:
        return int(self.saccade_profiles.shape[0])


def with_holder_report(info: Mapping[str, Any], mechanism: str,
                       counts: Mapping[str, Any]) -> dict[str, Any]:
    """``info`` with ``counts`` added under ``info[HOLDER_REPORT_KEY][mechanism]`` (a copy)."""
    out = dict(info)
    report = dict(out.get(HOLDER_REPORT_KEY, {}))
    report[mechanism] = dict(counts)
    out[HOLDER_REPORT_KEY] = report
    return out


def _segments(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of the half-open ranges ``[a, b)`` concatenated: ``(rows, segment, rank)``."""
    lengths = b - a
    seg = np.repeat(np.arange(a.size), lengths)
    starts = np.cumsum(lengths) - lengths
    rank = np.arange(seg.size) - starts[seg]
    return a[seg] + rank, seg, rank


def _covered(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Mask of the rows in any of the ranges ``[a, b)`` (a running count of open ranges)."""
    d = np.bincount(a, minlength=n + 1) - np.bincount(b, minlength=n + 1)
    return np.cumsum(d[:n]) > 0


def _interp_rows(profiles: np.ndarray, seg: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Linear interpolation of each row's profile ``profiles[seg]`` at fractional step ``q``
    (in [0, steps - 1]); the same as :func:`numpy.interp` per row, vectorised."""
    last = profiles.shape[1] - 1
    lo = np.minimum(np.floor(q).astype(np.int64), max(last - 1, 0))
    frac = q - lo
    v0 = profiles[seg, lo]
    if last == 0:
        return v0
    return v0 + frac * (profiles[seg, lo + 1] - v0)


def group_events(events: pl.DataFrame, recordings: Iterable[str]) -> dict[str, pl.DataFrame]:
    """The event table split by recording once (zero-copy slices of one sorted table; a
    per-recording filter costs a full scan each); recordings without events get an empty table.
    """
    ev = events.sort("recording", maintain_order=True)
    rec = ev["recording"].to_numpy()
    cut = (np.flatnonzero(rec[1:] != rec[:-1]) + 1).tolist()
    starts, ends = [0, *cut], [*cut, ev.height]
    out = {str(rec[a]): ev.slice(a, b - a) for a, b in zip(starts, ends, strict=True) if b > a}
    empty = events.clear()
    return {r: out.get(r, empty) for r in recordings}


def fit_dataset_events(dataset: Dataset, events: pl.DataFrame | None = None, *,
                       progress: bool = False, method: str = "remodnav",
                       accept_implausible_events: bool = False,
                       mechanism: str = "the event mechanism") -> list[FittedEvents]:
    """:func:`fit_events` for every recording of ``dataset``, in order.

    ``events`` are detected with ``method`` when not given (REMoDNaV; seed 001's I-VT in paper
    mode), and then must pass :func:`gazeprivacy.events.require_plausible` unless
    ``accept_implausible_events``; given events are the caller's and are not checked."""
    if events is None:
        from gazeprivacy.events import detect_events_checked, require_plausible

        events, plausibility = detect_events_checked(dataset, method=method,
                                                     progress=progress)
        require_plausible(plausibility, accept=accept_implausible_events, what=mechanism)
    by_rec = group_events(events, [r.recording for r in dataset.recordings])
    return [fit_events(rec, by_rec[rec.recording])
            for rec in _track(dataset.recordings, progress, "fitting events")]


def fit_events(recording: Recording, events: pl.DataFrame) -> FittedEvents:
    """Fit the models of every usable event of ``recording``.

    ``events`` has at least ``name, onset, offset`` (sample indices, offset exclusive) for this
    recording. Fixations without any non-missing sample and saccades with fewer than two
    non-missing samples cannot be fitted; they are treated as rows in no event (interpolated).

    Vectorised over the recording's events (segment sums with :func:`numpy.bincount`); the same
    numbers as fitting each event with :func:`~gazeprivacy.events.models.fit_fixation`,
    :func:`~gazeprivacy.events.models.velocity_profile_deg_s` and
    :func:`~gazeprivacy.events.models.resample_profile`, up to rounding.
    """
    names, on, off = _sorted_events(recording, events)
    ok_row = ~np.isnan(recording.x)
    fi = np.flatnonzero(names == "fixation")
    fix, keep_f = _fit_fixations(recording, ok_row, on[fi], off[fi])
    si = np.flatnonzero(names == "saccade")
    keep_s, prof = _fit_saccade_profiles(recording, ok_row, on[si], off[si])
    si = si[keep_s]
    x, y = recording.x, recording.y
    first, last = on[si], off[si] - 1
    amp = np.hypot(x[last] - x[first], y[last] - y[first])
    dur = (off[si] - on[si]) / recording.sampling_rate_hz
    land = np.column_stack([x[last], y[last]])
    kept = np.sort(np.concatenate([fi[keep_f], si]))
    return FittedEvents(
        names=names[kept], onset=on[kept], offset=off[kept],
        fixation_params=fix.reshape(-1, 4),
        saccade_profiles=prof.reshape(-1, PROFILE_STEPS),
        saccade_amplitude_deg=amp.astype(np.float64),
        saccade_duration_s=dur.astype(np.float64),
        saccade_landing=land.reshape(-1, 2),
    )


def _sorted_events(recording: Recording,
                   events: pl.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(names, onset, offset)`` of ``events`` sorted by onset (stable); raises
    :class:`InvalidDataError` for an event outside the recording's samples."""
    n = recording.n_samples
    on = events["onset"].to_numpy().astype(np.int64)
    order = np.argsort(on, kind="stable")
    on = on[order]
    off = events["offset"].to_numpy().astype(np.int64)[order]
    names = np.asarray(events["name"].to_numpy(), dtype=object)[order]
    bad = np.flatnonzero(~((on >= 0) & (on < off) & (off <= n)))
    if bad.size:
        a, b = int(on[bad[0]]), int(off[bad[0]])
        raise InvalidDataError(f"recording {recording.recording!r}: event [{a}, {b}) is "
                               f"outside its {n} samples")
    return names, on, off


def _fit_fixations(recording: Recording, ok_row: np.ndarray, on: np.ndarray,
                   off: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Maximum-likelihood normal of each fixation's non-missing samples (two-pass variance,
    sigmas at least ``MIN_SIGMA_DEG``): ``(params of the fitted ones (n, 4), fitted mask)``;
    a fixation without any non-missing sample is not fitted."""
    x, y = recording.x, recording.y
    n_fix = on.size
    rows, seg, _ = _segments(on, off)
    okf = ok_row[rows]
    cnt = np.bincount(seg, weights=okf, minlength=n_fix)
    keep_f = cnt > 0
    safe = np.where(keep_f, cnt, 1.0)
    fx, fy = np.where(okf, x[rows], 0.0), np.where(okf, y[rows], 0.0)
    mx = np.bincount(seg, weights=fx, minlength=n_fix) / safe
    my = np.bincount(seg, weights=fy, minlength=n_fix) / safe
    sx = np.sqrt(np.bincount(seg, weights=np.where(okf, (fx - mx[seg]) ** 2, 0.0),
                             minlength=n_fix) / safe)
    sy = np.sqrt(np.bincount(seg, weights=np.where(okf, (fy - my[seg]) ** 2, 0.0),
                             minlength=n_fix) / safe)
    fix = np.column_stack([mx, my, np.maximum(sx, MIN_SIGMA_DEG),
                           np.maximum(sy, MIN_SIGMA_DEG)])[keep_f]
    return fix, keep_f


def _fit_saccade_profiles(recording: Recording, ok_row: np.ndarray, on: np.ndarray,
                          off: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(fitted mask, velocity profiles of the fitted saccades (n, PROFILE_STEPS))``: a
    saccade is fitted when its first and last samples are present (so at least two are); its
    profile is the velocity between consecutive present samples, resampled."""
    x, y = recording.x, recording.y
    rows, seg, _ = _segments(on, off)
    oks = ok_row[rows]
    cnt = np.bincount(seg, weights=oks, minlength=on.size)
    keep_s = (cnt >= 2) & ok_row[on] & ok_row[off - 1]
    cnt = cnt[keep_s].astype(np.int64)
    rows = rows[oks & keep_s[seg]]
    seg = np.repeat(np.arange(cnt.size), cnt)
    # velocity between consecutive present samples of the same saccade
    same = seg[1:] == seg[:-1]
    v = (angular_distance_deg(x[rows[:-1]], y[rows[:-1]], x[rows[1:]], y[rows[1:]],
                              metric="great-circle") * recording.sampling_rate_hz)[same]
    return keep_s, _resample_velocities(v, cnt - 1)


def _resample_velocities(v: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Each saccade's ``m`` consecutive velocities in ``v`` resampled to ``PROFILE_STEPS``
    points (:func:`numpy.interp` on [0, 1] per saccade, vectorised): ``(len(m), steps)``."""
    v_start = np.cumsum(m) - m
    step = np.arange(PROFILE_STEPS)
    q = step[None, :] / (PROFILE_STEPS - 1) * (m[:, None] - 1)
    lo = np.minimum(np.floor(q).astype(np.int64), np.maximum(m[:, None] - 2, 0))
    frac = q - lo
    base = v_start[:, None] + lo
    v0 = v[base] if v.size else np.zeros(q.shape)
    v1 = v[np.minimum(base + 1, v.size - 1)] if v.size else v0
    return np.where(m[:, None] > 1, v0 + frac * (v1 - v0), v0)


def render(recording: Recording, fitted: FittedEvents, fixation_params: np.ndarray,
           saccade_profiles: np.ndarray, *, rng: np.random.Generator,
           suppressed: np.ndarray | None = None,
           fixation_samples: dict[int, tuple[np.ndarray, np.ndarray]] | None = None,
           ) -> tuple[np.ndarray, np.ndarray]:
    """Synthetic ``x, y`` for ``recording`` from per-event parameters (see module docstring).

    ``fixation_params`` is ``(n_fixations, 4)`` and ``saccade_profiles`` ``(n_saccades, 30)``, in
    the order of ``fitted``; ``suppressed`` (one flag per event) marks events whose rows become
    missing; ``fixation_samples`` gives, by fixation index, samples to release as they are (a
    candidate that passed a privacy test) instead of fresh draws.

    Vectorised over events: fixation rows in one draw; saccades integrated together, in rounds
    when a saccade starts where another synthetic saccade ended (its start depends on it).
    """
    n = recording.n_samples
    out_x = np.full(n, np.nan)
    out_y = np.full(n, np.nan)
    gone = (np.zeros(fitted.names.size, dtype=bool) if suppressed is None
            else np.asarray(suppressed, dtype=bool))
    fixation_params = np.asarray(fixation_params, dtype=np.float64).reshape(-1, 4)
    saccade_profiles = np.asarray(saccade_profiles, dtype=np.float64).reshape(-1, PROFILE_STEPS)
    # random draws in a fixed order: fixation samples first, then free saccade directions
    _draw_fixations(fitted, fixation_params, gone, rng, out_x, out_y)
    _place_given_samples(fitted, fixation_samples, gone, out_x, out_y)
    plan = _plan_saccades(recording, fitted, fixation_params, gone, rng)
    _render_saccades(plan, fitted, saccade_profiles, 1.0 / recording.sampling_rate_hz,
                     out_x, out_y)
    return _finish(recording, fitted, gone, out_x, out_y)


def _draw_fixations(fitted: FittedEvents, fixation_params: np.ndarray, gone: np.ndarray,
                    rng: np.random.Generator, out_x: np.ndarray, out_y: np.ndarray) -> None:
    """Fill the rows of every rendered fixation from its normal, in one draw for all rows."""
    on, off = fitted.onset, fitted.offset
    is_fix = fitted.names == "fixation"
    fix_idx = np.cumsum(is_fix) - 1          # fixation index of each fixation event
    fe = np.flatnonzero(is_fix & ~gone)
    rows, _, _ = _segments(on[fe], off[fe])
    p = np.repeat(fixation_params[fix_idx[fe]], off[fe] - on[fe], axis=0)
    z = rng.standard_normal((2, rows.size))
    out_x[rows] = p[:, 0] + p[:, 2] * z[0]
    out_y[rows] = p[:, 1] + p[:, 3] * z[1]


def _place_given_samples(fitted: FittedEvents,
                         fixation_samples: dict[int, tuple[np.ndarray, np.ndarray]] | None,
                         gone: np.ndarray, out_x: np.ndarray, out_y: np.ndarray) -> None:
    """Overwrite the rows of the given (not suppressed) fixations with their given samples."""
    if not fixation_samples:
        return
    on, off = fitted.onset, fitted.offset
    fix_events = np.flatnonzero(fitted.names == "fixation")
    for f, (gx, gy) in fixation_samples.items():
        e = fix_events[f]
        if not gone[e]:
            out_x[on[e]:off[e]], out_y[on[e]:off[e]] = gx, gy


@dataclass(frozen=True)
class _SaccadePlan:
    """Where each rendered saccade starts and heads (arrays over the rendered saccades)."""

    se: np.ndarray  # event index
    prev: np.ndarray  # previous rendered event (-1: none; start at the target)
    target: np.ndarray  # (n, 2) next synthetic fixation's centre, else the public centre
    direction: np.ndarray  # (n, 2) random unit direction; NaN: head for the target
    si: np.ndarray  # saccade index (row of the profiles)
    depth: np.ndarray  # rendered saccades directly before it, in a row (its round)


def _plan_saccades(recording: Recording, fitted: FittedEvents, fixation_params: np.ndarray,
                   gone: np.ndarray, rng: np.random.Generator) -> _SaccadePlan:
    """Start, target and round of each rendered saccade: it starts at the last synthetic
    sample of the previous rendered event (or at the target when there is none) and heads for
    the next synthetic fixation's centre; with no fixation after it, along a random direction
    (never towards the raw landing point)."""
    is_fix = fitted.names == "fixation"
    sac_idx = np.cumsum(~is_fix) - 1         # saccade index of each saccade event
    se = np.flatnonzero(~is_fix & ~gone)
    rendered = np.flatnonzero(~gone)
    pos = np.searchsorted(rendered, se)      # se's own index in `rendered`
    prev = np.where(pos > 0, rendered[np.maximum(pos - 1, 0)], -1)
    nxt = np.cumsum(is_fix)[se]              # index of the following fixation
    has_next = nxt < fitted.n_fixations
    target = np.tile(public_centre(recording), (se.size, 1))
    target[has_next] = fixation_params[nxt[has_next], :2]
    direction = np.full((se.size, 2), np.nan)  # NaN: head for the target
    if (~has_next).any():
        angle = rng.uniform(0.0, 2.0 * np.pi, int((~has_next).sum()))
        direction[~has_next] = np.column_stack([np.cos(angle), np.sin(angle)])
    # rounds: a saccade can be integrated once its predecessor's last sample is known, so
    # round r takes the saccades preceded by r rendered saccades in a row
    r_sacc = ~is_fix[rendered]
    idx = np.arange(rendered.size)
    last_fix = np.maximum.accumulate(np.where(r_sacc, -1, idx)) if idx.size else idx
    depth = (idx - last_fix - 1)[pos] if se.size else np.zeros(0, dtype=np.int64)
    return _SaccadePlan(se=se, prev=prev, target=target, direction=direction,
                        si=sac_idx[se], depth=depth)


def _render_saccades(plan: _SaccadePlan, fitted: FittedEvents, saccade_profiles: np.ndarray,
                     dt: float, out_x: np.ndarray, out_y: np.ndarray) -> None:
    """Integrate the planned saccades round by round, each round vectorised: a saccade of
    round ``r`` starts where its predecessor of round ``r - 1`` ended. Rounds are grouped by
    a sort of the depths (deep rounds, of many events suppressed in a row, are small)."""
    on, off, depth = fitted.onset, fitted.offset, plan.depth
    order = np.argsort(depth, kind="stable")
    cut = np.flatnonzero(np.diff(depth[order])) + 1
    for sel in np.split(order, cut) if order.size else []:
        _integrate(sel, plan.se, plan.prev, plan.target, plan.direction, plan.si,
                   saccade_profiles, on, off, out_x, out_y, dt)


def _finish(recording: Recording, fitted: FittedEvents, gone: np.ndarray, out_x: np.ndarray,
            out_y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Interpolate the rows in no rendered event, clamp to the geometry (+-180 x +-90 degrees
    without one), and blank the missing input rows and the suppressed events' rows."""
    n = recording.n_samples
    on, off = fitted.onset, fitted.offset
    rendered = np.flatnonzero(~gone)
    done = _covered(n, on[rendered], off[rendered])
    blank = _covered(n, on[gone], off[gone])
    _interpolate_rest(recording.t, out_x, out_y, done)
    if recording.geometry is not None:
        out_x, out_y = recording.geometry.clamp(out_x, out_y)
    else:
        out_x, out_y = np.clip(out_x, -180.0, 180.0), np.clip(out_y, -90.0, 90.0)
    missing = recording.missing | blank
    out_x[missing] = np.nan
    out_y[missing] = np.nan
    return out_x, out_y


def public_centre(recording: Recording) -> np.ndarray:
    """The centre of the recording's geometry (public by design), ``(0, 0)`` without one."""
    g = recording.geometry
    if g is None:
        return np.zeros(2)
    return np.array([(g.x_min_deg + g.x_max_deg) / 2, (g.y_min_deg + g.y_max_deg) / 2])


def _integrate(sel: np.ndarray, se: np.ndarray, prev: np.ndarray, target: np.ndarray,
               direction: np.ndarray, si: np.ndarray, profiles: np.ndarray, on: np.ndarray,
               off: np.ndarray, out_x: np.ndarray, out_y: np.ndarray, dt: float) -> None:
    """Integrate the saccades ``se[sel]`` (as :func:`integrate_profile` with ``step_s``):
    from the previous rendered sample (or the target) towards the target, or along
    ``direction`` where it is not NaN."""
    if sel.size == 0:
        return
    e, pe, tgt = se[sel], prev[sel], target[sel]
    last = off[np.maximum(pe, 0)] - 1
    start = np.where((pe >= 0)[:, None], np.column_stack([out_x[last], out_y[last]]), tgt)
    d = tgt - start
    norm = np.hypot(d[:, 0], d[:, 1])
    unit = np.where((norm > 0)[:, None], d / np.where(norm > 0, norm, 1.0)[:, None], 0.0)
    free = ~np.isnan(direction[sel, 0])
    unit[free] = direction[sel][free]
    rows, seg, rank = _segments(on[e], off[e])
    n_steps = (off[e] - on[e] - 1)[seg]  # profile resampled to n - 1 steps
    q = np.where(n_steps > 1, (rank - 1) / np.maximum(n_steps - 1, 1), 0.0) * (PROFILE_STEPS - 1)
    speed = np.clip(_interp_rows(profiles[si[sel]], seg, np.clip(q, 0.0, None)), 0.0, None)
    speed[rank == 0] = 0.0
    dist = np.cumsum(speed * dt)
    seg_start = np.cumsum(off[e] - on[e]) - (off[e] - on[e])
    dist -= dist[seg_start][seg]
    out_x[rows] = start[seg, 0] + dist * unit[seg, 0]
    out_y[rows] = start[seg, 1] + dist * unit[seg, 1]


def _interpolate_rest(t: np.ndarray, x: np.ndarray, y: np.ndarray, done: np.ndarray) -> None:
    """Fill rows not rendered from an event by linear interpolation between rendered rows."""
    if done.all() or not done.any():
        return
    idx = np.flatnonzero(done)
    rest = ~done
    x[rest] = np.interp(t[rest], t[idx], x[idx])
    y[rest] = np.interp(t[rest], t[idx], y[idx])
