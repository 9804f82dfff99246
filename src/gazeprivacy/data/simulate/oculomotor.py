# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Oculomotor rendering: a scan path becomes samples (fixations with drift and microsaccades,
saccades on the main sequence, post-saccadic oscillations), plus tremor; the ground-truth event
codes."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from scipy.special import betainc

from gazeprivacy._scipy import scipy_signal
from gazeprivacy.data.simulate.saccades import _profile_shape, _saccade_durations
from gazeprivacy.data.simulate.tasks import ScanPath
from gazeprivacy.data.simulate.traits import ParticipantTraits

__all__ = ["EVENT_CODES"]

EVENT_CODES: Mapping[str, int] = {"fixation": 0, "saccade": 1, "microsaccade": 2, "blink": 3}
"""Codes of the optional ``event_code`` ground-truth channel (``ground_truth=True``)."""

#: Post-saccadic oscillation (``ParticipantTraits.pso_gain``): a damped sine of this frequency
#: and decay time, in the range reported for the landing wobble of the pupil and of the lens
#: (pupil-based and dual-Purkinje trackers: Deubel & Bridgeman 1995; Nyström, Hooge &
#: Holmqvist 2013; Hooge et al. 2015: 10-40 ms of visible oscillation). One shape for every
#: saccade: Hooge et al. find the oscillation smaller relative to larger saccades, which this
#: does not model.
PSO_FREQUENCY_HZ = 20.0
PSO_DECAY_S = 0.02


def _render(plan: ScanPath, traits: ParticipantTraits, n_samples: int, rate: float,
            rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Positions ``(n, 2)`` and event codes for a plan, or None if the plan is too short."""
    # long: one vectorised pass (segments -> durations -> samples) whose dozen arrays feed each
    # other and whose random draws must stay in this order; split, the helpers would pass them all
    centres, fix_dur = plan.centres, plan.durations_s
    k_fix = centres.shape[0]
    # Microsaccades split a fixation into drift segments; segments per fixation:
    # drift, (micro, drift) * m, inter-fixation saccade.
    m = rng.poisson(traits.microsaccade_rate_hz * fix_dur)
    m = np.minimum(m, np.floor(fix_dur / 0.15)).astype(np.int64)
    n_seg = 2 * m + 2
    seg_fix = np.repeat(np.arange(k_fix), n_seg)
    first_of_fix = np.cumsum(n_seg) - n_seg
    j = np.arange(seg_fix.shape[0]) - first_of_fix[seg_fix]
    is_drift = j % 2 == 0
    is_inter = j == 2 * m[seg_fix] + 1
    is_micro = ~is_drift & ~is_inter
    target = np.empty((seg_fix.shape[0], 2))
    n_micro = int(is_micro.sum())
    target[is_micro] = (centres[seg_fix[is_micro]]
                        + rng.normal(0.0, traits.fixation_dispersion_deg, size=(n_micro, 2)))
    target[is_inter] = centres[np.minimum(np.arange(k_fix) + 1, k_fix - 1)]
    start = is_drift & (j == 0)
    target[start] = centres
    inner = np.flatnonzero(is_drift & (j > 0))
    target[inner] = target[inner - 1]
    # Durations: microsaccades from the main sequence, the rest of the fixation time split
    # among its drift segments, inter-fixation saccades from the plan or the main sequence.
    sac = np.flatnonzero(~is_drift)
    amp = np.zeros(seg_fix.shape[0])
    amp[sac] = np.hypot(*(target[sac] - target[sac - 1]).T)
    dur = np.empty(seg_fix.shape[0])
    dur[is_micro] = _saccade_durations(amp[is_micro], traits, rng)
    if plan.saccade_durations_s is not None:
        dur[is_inter] = plan.saccade_durations_s
    else:
        dur[is_inter] = _saccade_durations(amp[is_inter], traits, rng)
    micro_time = np.bincount(seg_fix[is_micro], weights=dur[is_micro], minlength=k_fix)
    budget = np.maximum(fix_dur - micro_time, 0.02 * (m + 1))
    w = rng.uniform(0.5, 1.5, size=int(is_drift.sum()))
    w_sum = np.bincount(seg_fix[is_drift], weights=w, minlength=k_fix)
    dur[is_drift] = budget[seg_fix[is_drift]] * w / w_sum[seg_fix[is_drift]]
    seg_start = np.concatenate([[0.0], np.cumsum(dur)[:-1]])
    t = np.arange(n_samples) / rate
    if seg_start[-1] + dur[-1] < t[-1] + 1.0 / rate:
        return None
    s_idx = np.searchsorted(seg_start, t, side="right") - 1
    first = np.searchsorted(t, seg_start, side="left")
    # Drift: one random walk for the whole recording, re-anchored at each drift segment.
    walk = np.cumsum(rng.normal(0.0, traits.drift_speed_deg_s / math.sqrt(rate),
                                size=(n_samples, 2)), axis=0)
    first_c = np.minimum(first, n_samples - 1)
    last = np.concatenate([first[1:], [n_samples]]) - 1
    has = last >= first
    end_off = np.where(has[:, None], walk[np.clip(last, 0, n_samples - 1)] - walk[first_c], 0.0)
    a, b = _profile_shape(amp, traits.saccade_skew)
    pos = np.empty((n_samples, 2))
    drift_s = is_drift[s_idx]
    di = np.flatnonzero(drift_s)
    ds = s_idx[di]
    pos[di] = target[ds] + walk[di] - walk[first_c[ds]]
    si = np.flatnonzero(~drift_s)
    ss = s_idx[si]
    begin = target[ss - 1] + end_off[ss - 1]
    u = np.clip((t[si] - seg_start[ss]) / dur[ss], 0.0, 1.0)
    frac = betainc(a[ss], b[ss], u)
    pos[si] = begin + (target[ss] - begin) * frac[:, None]
    if traits.pso_gain > 0:
        _add_pso(pos, traits.pso_gain, target, end_off, sac, seg_start, t, di, ds)
    code = np.where(drift_s, EVENT_CODES["fixation"],
                    np.where(is_micro[s_idx], EVENT_CODES["microsaccade"], EVENT_CODES["saccade"]))
    return pos, code.astype(np.float64), t


def _add_pso(pos: np.ndarray, gain: float, target: np.ndarray, end_off: np.ndarray,
             sac: np.ndarray, seg_start: np.ndarray, t: np.ndarray, di: np.ndarray,
             ds: np.ndarray) -> None:
    """Add the post-saccadic oscillation in place: the drift samples ``di`` (segments ``ds``)
    within five decay times of a (micro)saccade's end move by the saccade's vector times
    ``gain * exp(-t / PSO_DECAY_S) * sin(2 pi PSO_FREQUENCY_HZ t)`` (no random draws, so the
    rest of the recording is that of no oscillation). The samples keep the fixation's code."""
    prev = ds - 1
    since = t[di] - seg_start[ds]
    ok = np.isin(prev, sac) & (since < 5.0 * PSO_DECAY_S)  # saccade segments are >= 1
    p = prev[ok]
    vector = target[p] - (target[p - 1] + end_off[p - 1])  # where the saccade began -> target
    u = since[ok]
    wave = gain * np.exp(-u / PSO_DECAY_S) * np.sin(2.0 * math.pi * PSO_FREQUENCY_HZ * u)
    pos[di[ok]] += vector * wave[:, None]


def _tremor(amplitude_deg: float, n: int, rate: float, rng: np.random.Generator) -> np.ndarray:
    """Tremor as AR(1) noise with a 1.8 ms correlation time (a ~90 Hz oscillation's band) and
    stationary standard deviation ``amplitude_deg``: white at <= 200 Hz, smoother at 1 kHz."""
    phi = math.exp(-1.0 / (rate * 0.0018))
    e = rng.normal(0.0, amplitude_deg * math.sqrt(1.0 - phi * phi), size=(n, 2))
    zi = phi * rng.normal(0.0, amplitude_deg, size=(1, 2))
    return scipy_signal().lfilter([1.0], [1.0, -phi], e, axis=0, zi=zi)[0]
