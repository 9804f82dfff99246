# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Synthetic smooth pursuit with catch-up saccades, added to simulated recordings.

The simulator (:mod:`gazeprivacy.data.simulate`) has fixations, saccades, microsaccades and
blinks but no smooth pursuit, so a pursuit-aware detector cannot be validated on it as it is.
:func:`add_pursuit` turns some of its fixations into pursuit and labels them in the
``event_code`` channel with :data:`PURSUIT_CODE`:

* a chosen fixation (at least ``min_duration_s`` long) keeps its own drift, tremor and
  measurement noise, and gains a movement towards the screen centre (+-60 deg) at a speed drawn
  uniformly from ``speed_deg_s`` (2-30 deg/s by default; lowered so that the pursuit travels at
  most ``max_travel_deg``, 10 deg) times a gain (0.8-0.95: the eye lags the target);
* the lag is made up by **catch-up saccades** every 0.15-0.4 s (each a raised-cosine step of
  the accumulated lag, lasting ``21 ms + 2.2 ms/deg x amplitude`` as main-sequence saccades
  do, labelled saccade), when the lag reaches ``min_catch_up_deg`` (0.5 deg); slower pursuit
  has none;
* the saccade that follows the pursuit is bent so that it starts where the pursuit ended and
  still lands where it did (the displacement fades with the saccade's progress), so the trace
  stays continuous; if a blink or the end of the recording follows, nothing needs bending.

The share of fixations turned into pursuit is set per task (``pursuit_share``): the
validation (``scripts/event_kappa.py``) uses 0.7 for the random-dot task (moving dots), 0.2 for
free viewing (natural scenes and video, where the hidden human-coded hold-out also has pursuit)
and 0 for reading. This is a model of pursuit, not a recording of it: it checks that a detector
finds pursuit where there is some and does not invent it elsewhere, not how it fares on
real pursuit.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from gazeprivacy._validation import check_range
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import InvalidDataError

__all__ = ["PURSUIT_CODE", "add_pursuit", "add_pursuit_dataset"]

#: ``event_code`` of pursuit samples (the simulator's own codes are 0-3).
PURSUIT_CODE = 4
_FIX, _SAC, _MICRO = 0, 1, 2  # gazeprivacy.data.simulate.EVENT_CODES


def _runs(mask: np.ndarray) -> np.ndarray:
    d = np.diff(np.r_[0, mask.astype(np.int8), 0])
    return np.c_[np.flatnonzero(d == 1), np.flatnonzero(d == -1)]


def _pursuit_offset(t: np.ndarray, speed: float, gain: float, min_catch_up_deg: float,
                    rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Displacement along the pursuit direction over times ``t`` (from 0) and the catch-up
    saccade mask."""
    eye = gain * speed * t
    catch = np.zeros(t.shape[0], dtype=bool)
    t_next = rng.uniform(0.15, 0.4)
    done = 0.0  # displacement added by catch-up saccades so far
    while t_next < t[-1]:
        lag = (1.0 - gain) * speed * t_next - done
        if lag >= min_catch_up_deg:
            dur = 0.021 + 0.0022 * lag
            phase = np.clip((t - t_next) / dur, 0.0, 1.0)
            eye = eye + lag * 0.5 * (1.0 - np.cos(np.pi * phase))
            catch |= (t >= t_next) & (t < t_next + dur)
            done += lag
            t_next += dur
        t_next += rng.uniform(0.15, 0.4)
    return eye, catch


def _bend_saccade(x: np.ndarray, y: np.ndarray, a: int, b: int, dx: float, dy: float) -> None:
    """Add ``(dx, dy)`` at the start of the saccade ``[a, b)``, fading with its progress."""
    px, py = x[a:b], y[a:b]
    step = np.hypot(np.diff(px, prepend=px[0]), np.diff(py, prepend=py[0]))
    path = np.cumsum(np.nan_to_num(step))
    frac = path / path[-1] if path[-1] > 0 else np.linspace(0.0, 1.0, b - a)
    x[a:b] = px + (1.0 - frac) * dx
    y[a:b] = py + (1.0 - frac) * dy


def add_pursuit(recording: Recording, *, pursuit_share: float, rng: np.random.Generator,
                speed_deg_s: tuple[float, float] = (2.0, 30.0), min_duration_s: float = 0.2,
                min_catch_up_deg: float = 0.5, max_travel_deg: float = 10.0) -> Recording:
    """``recording`` with ``pursuit_share`` of its fixations (those at least
    ``min_duration_s`` long) turned into smooth pursuit (see the module docstring).

    >>> from gazeprivacy.data.simulate import simulate_dataset
    >>> ds = simulate_dataset(n_participants=1, tasks="random-dot", duration_s=5.0,
    ...                       sampling_rate_hz=250, rng=np.random.default_rng(0),
    ...                       ground_truth=True)
    >>> r = add_pursuit(ds.recordings[0], pursuit_share=1.0, rng=np.random.default_rng(1))
    >>> bool((r.channels["event_code"] == PURSUIT_CODE).mean() > 0.5)
    True
    """
    check_range(lo=0.0, hi=1.0, pursuit_share=pursuit_share)
    code = recording.channels.get("event_code")
    if code is None:
        raise InvalidDataError(f"recording {recording.recording!r} has no 'event_code' "
                               "channel; simulate it with ground_truth=True")
    code = code.astype(np.int64).copy()
    x, y, t = recording.x.copy(), recording.y.copy(), recording.t
    sacs = _runs(code == _SAC)
    for a, b in _runs(np.isin(code, (_FIX, _MICRO))):
        if t[b - 1] - t[a] < min_duration_s or rng.random() >= pursuit_share:
            continue
        # towards the screen centre (+-60 deg), at most max_travel_deg: gaze stays on screen
        speed = min(rng.uniform(*speed_deg_s), max_travel_deg / max(t[b - 1] - t[a], 1e-9))
        angle = np.arctan2(-y[a], -x[a]) + rng.uniform(-np.pi / 3, np.pi / 3)
        eye, catch = _pursuit_offset(t[a:b] - t[a], speed, rng.uniform(0.8, 0.95),
                                     min_catch_up_deg, rng)
        x[a:b] += eye * np.cos(angle)
        y[a:b] += eye * np.sin(angle)
        code[a:b] = np.where(catch, _SAC, PURSUIT_CODE)
        k = int(np.searchsorted(sacs[:, 0], b)) if sacs.size else 0
        if k < sacs.shape[0] and sacs[k, 0] == b:  # a saccade follows at once: bend it
            _bend_saccade(x, y, b, int(sacs[k, 1]), eye[-1] * np.cos(angle),
                          eye[-1] * np.sin(angle))
    code[np.isnan(x)] = recording.channels["event_code"][np.isnan(x)]
    return recording.with_gaze(x, y, channels={**recording.channels,
                                               "event_code": code.astype(
                                                   recording.channels["event_code"].dtype)})


def add_pursuit_dataset(dataset: Dataset, *, pursuit_share: Mapping[str, float] | float,
                        rng: np.random.Generator, **kwargs: float) -> Dataset:
    """:func:`add_pursuit` on every recording; ``pursuit_share`` per ``task`` label (tasks
    not listed get none) or one share for all. One child generator per recording."""
    recs = []
    for r, child in zip(dataset.recordings, rng.spawn(len(dataset)), strict=True):
        share = (pursuit_share if isinstance(pursuit_share, float | int)
                 else pursuit_share.get(r.labels.get("task", ""), 0.0))
        recs.append(add_pursuit(r, pursuit_share=float(share), rng=child, **kwargs))
    return Dataset(tuple(recs), name=dataset.name, info=dataset.info)
