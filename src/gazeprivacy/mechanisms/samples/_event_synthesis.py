# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Shared machinery of the event-level synthesisers (k-same-synth, event-synth-PD).

A recording's events (from I-VT) are fitted once (:func:`fit_events`): every fixation gets its
2-D normal, every saccade its 30-step velocity profile, amplitude and duration (both mechanisms
work on the profiles themselves, so the three-parameter Gaussian fit is not needed here).
:func:`render` turns per-event synthetic parameters back into samples with the input's
timestamps and row count:

* fixation rows: draws from the (synthetic) normal, or given samples (a tested candidate);
* saccade rows: a profile integrated from the previous synthetic sample towards the next
  synthetic fixation's centre (or the saccade's own landing point when no fixation follows),
  each step ``speed * dt`` (seed 001, section 4.3.1);
* rows in no event (short sub-threshold runs, samples beside blinks) are interpolated linearly in
  time between synthetic samples (nearest synthetic sample at the edges), so no raw position
  is released; a recording without any event is released as all-missing;
* missing input rows (NaN) stay missing;
* finally every sample is clamped to the recording's geometry (post-processing; without a
  geometry to +-180 x +-90 degrees): a saccade integrated with another person's speed profile
  can overshoot its target, and the clamp keeps it where gaze can be.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from gazeprivacy.data.recording import Recording
from gazeprivacy.events.models import (
    fit_fixation,
    integrate_profile,
    resample_profile,
    velocity_profile_deg_s,
)
from gazeprivacy.exceptions import InvalidDataError

__all__ = ["FittedEvents", "fit_events", "render"]


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
    saccade_landing: np.ndarray  # (n_sacc, 2) last sample of the saccade

    @property
    def n_fixations(self) -> int:
        return int(self.fixation_params.shape[0])

    @property
    def n_saccades(self) -> int:
        return int(self.saccade_profiles.shape[0])


def fit_events(recording: Recording, events: pl.DataFrame) -> FittedEvents:
    """Fit the models of every usable event of ``recording``.

    ``events`` has at least ``name, onset, offset`` (sample indices, offset exclusive) for this
    recording. Fixations without any non-missing sample and saccades with fewer than two
    non-missing samples cannot be fitted; they are treated as rows in no event (interpolated).
    """
    ev = events.sort("onset")
    n = recording.n_samples
    x, y = recording.x, recording.y
    names, on, off = [], [], []
    fix, prof, amp, dur, land = [], [], [], [], []
    for name, a, b in ev.select("name", "onset", "offset").iter_rows():
        if not (0 <= a < b <= n):
            raise InvalidDataError(f"recording {recording.recording!r}: event [{a}, {b}) is "
                                   f"outside its {n} samples")
        xs, ys = x[a:b], y[a:b]
        ok = ~np.isnan(xs)
        if name == "fixation":
            if not ok.any():
                continue
            fix.append(fit_fixation(xs, ys).as_array())
        elif name == "saccade":
            if ok.sum() < 2 or not (ok[0] and ok[-1]):
                continue
            v = velocity_profile_deg_s(xs[ok], ys[ok], recording.sampling_rate_hz)
            prof.append(resample_profile(v))
            amp.append(float(np.hypot(xs[-1] - xs[0], ys[-1] - ys[0])))
            dur.append((b - a) / recording.sampling_rate_hz)
            land.append((xs[-1], ys[-1]))
        else:
            continue
        names.append(name)
        on.append(a)
        off.append(b)
    return FittedEvents(
        names=np.array(names, dtype=object), onset=np.array(on, dtype=np.int64),
        offset=np.array(off, dtype=np.int64),
        fixation_params=np.array(fix, dtype=np.float64).reshape(-1, 4),
        saccade_profiles=np.array(prof, dtype=np.float64).reshape(-1, 30),
        saccade_amplitude_deg=np.array(amp, dtype=np.float64),
        saccade_duration_s=np.array(dur, dtype=np.float64),
        saccade_landing=np.array(land, dtype=np.float64).reshape(-1, 2),
    )


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
    """
    n = recording.n_samples
    out_x = np.full(n, np.nan)
    out_y = np.full(n, np.nan)
    done = np.zeros(n, dtype=bool)
    blank = np.zeros(n, dtype=bool)
    dt = 1.0 / recording.sampling_rate_hz
    fix_i = sacc_i = 0
    # Index of the fixation that follows each event, for saccade targets.
    fix_order = np.cumsum(fitted.names == "fixation")
    for e, (name, a, b) in enumerate(zip(fitted.names, fitted.onset, fitted.offset, strict=True)):
        gone = suppressed is not None and bool(suppressed[e])
        blank[a:b] |= gone
        if name == "fixation":
            if not gone:
                if fixation_samples is not None and fix_i in fixation_samples:
                    out_x[a:b], out_y[a:b] = fixation_samples[fix_i]
                else:
                    p = fixation_params[fix_i]
                    out_x[a:b] = rng.normal(p[0], p[2], b - a)
                    out_y[a:b] = rng.normal(p[1], p[3], b - a)
                done[a:b] = True
            fix_i += 1
            continue
        if not gone:
            nxt = fix_order[e]  # fixations before or at e; the next one has this index
            if nxt < fitted.n_fixations:
                target = fixation_params[nxt, :2]
            else:
                target = fitted.saccade_landing[sacc_i]
            prev = np.flatnonzero(done[:a])
            # With no synthetic sample before it, a leading saccade starts at its target.
            start = np.array([out_x[prev[-1]], out_y[prev[-1]]]) if prev.size else target
            sx, sy = integrate_profile(saccade_profiles[sacc_i], b - a, start, target, step_s=dt)
            out_x[a:b], out_y[a:b] = sx, sy
            done[a:b] = True
        sacc_i += 1
    _interpolate_rest(recording.t, out_x, out_y, done)
    if recording.geometry is not None:
        out_x, out_y = recording.geometry.clamp(out_x, out_y)
    else:
        out_x, out_y = np.clip(out_x, -180.0, 180.0), np.clip(out_y, -90.0, 90.0)
    missing = recording.missing | blank
    out_x[missing] = np.nan
    out_y[missing] = np.nan
    return out_x, out_y


def _interpolate_rest(t: np.ndarray, x: np.ndarray, y: np.ndarray, done: np.ndarray) -> None:
    """Fill rows not rendered from an event by linear interpolation between rendered rows."""
    if done.all() or not done.any():
        return
    idx = np.flatnonzero(done)
    rest = ~done
    x[rest] = np.interp(t[rest], t[idx], x[idx])
    y[rest] = np.interp(t[rest], t[idx], y[idx])
