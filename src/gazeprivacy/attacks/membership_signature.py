# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The membership attacker's *signature* view: how a person's eyes (and tracker) move.

The profile view of :mod:`gazeprivacy.attacks.membership` compares single recordings, mostly
by *where* they look; on free viewing of shared images (DOVES: 29 observers on the same images,
probes of 1.7 s) where a recording looks is set by the image, not the person, and that view
does not catch a copy of the input. This view compares *people* by how their gaze moves:

* per recording (:func:`signature_profiles`, :data:`SIGNATURE_FEATURES`): log percentiles of
  the sample-to-sample speed and acceleration, of the absolute horizontal and vertical velocity,
  the tracker's noise level (median and lower quartile of the absolute second differences of x
  and y), the share and rate of fast samples (> 30 deg/s, I-VT's threshold) and the median peak
  speed and amplitude of those fast runs, the mean slow-run duration, the horizontal share of
  the movement, the missing share, the velocity's power in six frequency bands (Welch), and
  percentiles of the gaze position (a person's calibration offset);
* standardised on everything the attacker holds
  (:func:`~gazeprivacy.attacks.membership.standardise`) and weighted per feature by how well
  it tells the *candidates* apart (:func:`fisher_weights`: between- over within-candidate
  variance of the candidates' own probes -- the attacker knows whose probe is whose, never who
  is a member);
* pooled per person (:func:`signature_scores`): a candidate's profile is the mean of its probes',
  a release participant's (a real or a pseudonymous id) the mean of its recordings'; the score
  is ``log(d_ref / d_rel)`` as in the profile view (``d_rel`` to the closest release
  participant, ``d_ref`` to the closest other candidate).

Written here rather than taken from :mod:`gazeprivacy.features`: those cut recordings into
windows (1-10 s) or events, and a probe of 1.7 s holds one window and a few events; these are
percentiles over all the samples of a recording, a few milliseconds each.
"""

from __future__ import annotations

import warnings
from itertools import pairwise

import numpy as np
from scipy.signal import welch

from gazeprivacy.data.recording import Dataset, Recording

__all__ = ["SIGNATURE_FEATURES", "fisher_weights", "signature_profiles", "signature_scores"]

_SPEED_Q = (5, 10, 25, 50, 75, 90, 95, 99)
_ACCEL_Q = (10, 25, 50, 75, 90, 99)
_AXIS_Q = (10, 50, 90)
_POS_Q = (10, 25, 50, 75, 90)
_BANDS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5)  # band edges, fractions of the sampling rate
_FAST_DEG_S = 30.0

#: the per-recording signature, in :func:`signature_profiles`' column order
SIGNATURE_FEATURES = (
    *(f"log_speed_p{q}" for q in _SPEED_Q), *(f"log_accel_p{q}" for q in _ACCEL_Q),
    *(f"log_abs_vx_p{q}" for q in _AXIS_Q), *(f"log_abs_vy_p{q}" for q in _AXIS_Q),
    "log_noise_x", "log_noise_y", "log_noise_x_p25", "log_noise_y_p25",
    "fast_share", "fast_runs_per_s", "log_fast_peak_speed", "log_fast_amplitude",
    "log_slow_run_s", "horizontal_share", "missing_share",
    *(f"log_power_band{i}" for i in range(len(_BANDS) - 1)),
    *(f"x_p{q}" for q in _POS_Q), *(f"y_p{q}" for q in _POS_Q), "log_x_std", "log_y_std",
)


def _q(v: np.ndarray, qs: tuple[int, ...]) -> np.ndarray:
    return (np.nanpercentile(v, qs) if np.isfinite(v).any()
            else np.full(len(qs), np.nan))


def _fast_runs(rec: Recording, speed: np.ndarray) -> np.ndarray:
    """Share, rate (per s), log median peak speed and amplitude of the fast runs, log mean
    slow-run duration (s)."""
    fast = np.nan_to_num(speed, nan=0.0) > _FAST_DEG_S
    f = np.r_[False, fast, False]
    starts = np.flatnonzero(~f[:-1] & f[1:])
    ends = np.flatnonzero(f[:-1] & ~f[1:])  # run k: speed[starts[k]:ends[k]]
    dur = max(float(rec.t[-1] - rec.t[0]), 1e-9)
    if starts.size:
        peak = np.maximum.reduceat(np.nan_to_num(speed, nan=0.0), starts)
        amp = np.hypot(rec.x[ends] - rec.x[starts], rec.y[ends] - rec.y[starts])
        peak_l, amp_l = np.log(np.median(peak)), np.log(np.nanmedian(amp) + 1e-6)
    else:
        peak_l = amp_l = np.nan
    slow = (dur - (ends - starts).sum() / rec.sampling_rate_hz) / (starts.size + 1)
    share = np.nanmean(np.where(np.isfinite(speed), fast, np.nan))
    return np.array([share, starts.size / dur, peak_l, amp_l, np.log(max(slow, 1e-6))])


def _one(rec: Recording) -> np.ndarray:
    x, y, fs = rec.x, rec.y, rec.sampling_rate_hz
    if rec.n_samples < 8:
        return np.full(len(SIGNATURE_FEATURES), np.nan)
    dt = np.diff(rec.t)
    vx, vy = np.diff(x) / dt, np.diff(y) / dt
    speed = np.hypot(vx, vy)
    accel = np.hypot(np.diff(vx), np.diff(vy)) / dt[1:]
    d2x, d2y = np.abs(np.diff(x, 2)), np.abs(np.diff(y, 2))
    f, pxy = welch(np.nan_to_num(np.vstack([vx, vy])), fs=fs, nperseg=min(vx.size, 64))
    power = pxy.sum(axis=0)
    bands = [np.log(np.mean(power[sel]) + 1e-9) if (sel := (f >= a * fs) & (f < b * fs)).any()
             else np.nan for a, b in pairwise(_BANDS)]
    return np.r_[
        np.log(_q(speed, _SPEED_Q) + 1e-6), np.log(_q(accel, _ACCEL_Q) + 1e-6),
        np.log(_q(np.abs(vx), _AXIS_Q) + 1e-6), np.log(_q(np.abs(vy), _AXIS_Q) + 1e-6),
        np.log(np.r_[np.nanmedian(d2x), np.nanmedian(d2y), _q(d2x, (25,)), _q(d2y, (25,))]
               + 1e-9),
        _fast_runs(rec, speed),
        np.nanmedian(np.abs(vx) / (np.abs(vx) + np.abs(vy) + 1e-12)), np.mean(~np.isfinite(x)),
        bands, _q(x, _POS_Q), _q(y, _POS_Q),
        np.log(np.nanstd(x) + 1e-6), np.log(np.nanstd(y) + 1e-6)]


def signature_profiles(dataset: Dataset) -> tuple[np.ndarray, list[str]]:
    """One row of :data:`SIGNATURE_FEATURES` per recording (NaN where undefined, e.g. a
    recording with no valid sample) and the recordings' participant ids.

    >>> from gazeprivacy.data.simulate import simulate_dataset
    >>> ds = simulate_dataset(n_participants=2, tasks="reading", duration_s=2.0,
    ...                       sampling_rate_hz=60, rng=np.random.default_rng(0))
    >>> X, who = signature_profiles(ds)
    >>> X.shape == (len(ds), len(SIGNATURE_FEATURES)), sorted(set(who))
    (True, ['p01', 'p02'])
    """
    with warnings.catch_warnings():  # all-NaN slices give NaN features, kept as NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        rows = [_one(r) for r in dataset.recordings]
    return np.vstack(rows), [r.participant for r in dataset.recordings]


def fisher_weights(x: np.ndarray, who: np.ndarray) -> np.ndarray:
    """Per column, ``sqrt(B / W)``: the share of its variance between the groups of ``who``
    over the share within them (shrunk by 1e-3), so columns that tell people apart count more;
    all ones when no group has two rows.

    >>> x = np.array([[0.0, 1.0], [0.1, -1.0], [5.0, 1.0], [5.1, -1.0]])
    >>> w = fisher_weights(x, np.array(["a", "a", "b", "b"]))
    >>> bool(w[0] > 10 * w[1])
    True
    """
    within, dof = np.zeros(x.shape[1]), 0
    for p in np.unique(who):
        z = x[who == p]
        if len(z) > 1:
            within += ((z - z.mean(axis=0)) ** 2).sum(axis=0)
            dof += len(z) - 1
    if dof == 0:
        return np.ones(x.shape[1])
    between = np.clip(1.0 - (within / dof) / (x.var(axis=0) + 1e-12), 0.0, None)
    return np.sqrt(between / (1.0 - between + 1e-3))


def signature_scores(release: np.ndarray, release_who: list[str], probes: np.ndarray,
                     probe_who: list[str], candidates: list[str]) -> np.ndarray:
    """Each candidate's score ``log(d_ref / d_rel)`` on the pooled, Fisher-weighted signatures
    (module docstring); ``release`` and ``probes`` are already standardised together."""
    who = np.array(probe_who, dtype=object)
    w = fisher_weights(probes, who)
    rel_who = np.array(release_who, dtype=object)
    rel = np.vstack([release[rel_who == p].mean(axis=0) for p in sorted(set(release_who))]) * w
    cand = np.vstack([probes[who == p].mean(axis=0) for p in candidates]) * w
    d_rel = np.sqrt(((cand[:, None, :] - rel[None, :, :]) ** 2).sum(-1)).min(axis=1)
    d_all = np.sqrt(((cand[:, None, :] - cand[None, :, :]) ** 2).sum(-1))
    np.fill_diagonal(d_all, np.inf)
    eps = 1e-9
    return np.log((d_all.min(axis=1) + eps) / (d_rel + eps))
