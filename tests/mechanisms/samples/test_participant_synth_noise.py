# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's tracker noise shape: heavy-tailed bursts only in the simulated saccades."""

from __future__ import annotations

import numpy as np
from scipy.special import logit

from gazeprivacy.data.simulate import EVENT_CODES
from gazeprivacy.mechanisms.samples._participant_synth_noise import AFTER_S, saccade_envelope
from gazeprivacy.mechanisms.samples._participant_synth_quality import track

__all__: list[str] = []

_MARG = {"tracker_step": np.array([-1.0]), "tracker_smooth": np.array([-0.5]),
         "tracker_missing": np.array([logit(0.001)])}


def _codes(n: int, every: int, length: int) -> np.ndarray:
    code = np.full(n, EVENT_CODES["fixation"], dtype=np.int8)
    for s in range(every // 2, n - length, every):
        code[s:s + length] = EVENT_CODES["saccade"]
    return code


def test_bursts_cover_the_saccades_and_the_ringing_after_them_only():
    """The scale is exactly 1 outside each saccade and its ``AFTER_S``, at least 1 inside,
    and above 2 somewhere inside (a log-normal of log sd 1.2)."""
    code = _codes(6000, 100, 4)
    e = saccade_envelope(code, 100.0, np.random.default_rng(0))
    k = round(AFTER_S * 100)
    inside = np.zeros(code.size, dtype=bool)
    for s in np.flatnonzero(np.diff(np.r_[0, code == EVENT_CODES["saccade"]]) == 1):
        inside[s:s + 4 + k] = True
    assert (e[~inside] == 1.0).all()
    assert (e[inside] >= 1.0).all() and e[inside].max() > 2.0


def test_track_keeps_gaussian_noise_in_fixations_and_bursts_in_saccades():
    """A still eye with a saccade code every second (4 samples at 100 Hz), 40 recordings: the
    noise's steps far from the saccades keep the Gaussian ratio p90 / median (1.82 for 2-D
    white noise; within 0.15: an envelope over the whole recording gives 3 and more), its sd in
    the saccades and the ringing after them is at least 1.3 times the sd elsewhere, and the
    median step is the released one (mean log10 within 0.05; gaps, drawn from the released
    share, are left out)."""
    code = _codes(3000, 100, 4)
    near = np.convolve(code == EVENT_CODES["saccade"], np.ones(21), mode="same") > 0
    burst = np.convolve(code == EVENT_CODES["saccade"], np.r_[np.zeros(3), np.ones(4)],
                        mode="same") > 0
    rng = np.random.default_rng(3)
    ratio, sd_in, sd_out, med = [], [], [], []
    for _ in range(40):
        x, y = track(np.zeros(3000), np.zeros(3000), _MARG, 100.0, rng, code=code)
        d = np.hypot(np.diff(x), np.diff(y))
        far = d[~(near[1:] | near[:-1])]
        ratio.append(np.nanpercentile(far, 90) / np.nanmedian(far))
        sd_in.append(np.nanstd(x[burst]))
        sd_out.append(np.nanstd(x[~near]))
        med.append(np.log10(np.nanmedian(d)))
    assert abs(np.mean(ratio) - 1.82) < 0.15
    assert np.mean(sd_in) > 1.3 * np.mean(sd_out)
    assert abs(np.mean(med) + 1.0) < 0.05
