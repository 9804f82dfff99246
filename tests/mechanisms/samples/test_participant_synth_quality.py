# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's tracker marginals: bounded one-hot statistics and the estimate."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit, logit

from gazeprivacy.data.recording import Recording
from gazeprivacy.mechanisms.samples._participant_synth_quality import (
    QUALITY,
    QUALITY_SIZES,
    fit_quality,
    participant_tracker,
    quality_parts,
    quality_statistics,
)

__all__: list[str] = []


def _rec(x: np.ndarray, y: np.ndarray, rid: str = "r") -> Recording:
    return Recording.from_arrays(recording=rid, participant="p", x=x, y=y, sampling_rate_hz=100)


@pytest.mark.parametrize("scale", [1e-9, 50.0], ids=["still", "huge_steps"])
def test_extreme_trackers_land_in_the_end_bins_with_weight_one(scale):
    """Steps far below or above the public range, and almost all samples missing: one unit of
    weight per marginal, in the end bin (clipped), whatever the values."""
    rng = np.random.default_rng(0)
    x, y = scale * rng.standard_normal(400), scale * rng.standard_normal(400)
    gone = np.where(np.arange(400) < 398, np.nan, 0.0)  # 398 of 400 missing
    stats = quality_statistics(quality_parts([_rec(x, y), _rec(gone, gone, "g")]))
    for m in QUALITY:
        assert stats[m].sum() == 1.0 and np.count_nonzero(stats[m]) == 1, m
    end = 0 if scale < 1 else QUALITY_SIZES["tracker_step"] - 1
    assert stats["tracker_step"][end] == 1.0
    alone = quality_statistics(quality_parts([_rec(gone, gone)]))
    assert alone["tracker_missing"][-1] == 1.0  # 99.5 % missing, clipped to 0.9


def test_a_participant_without_samples_adds_nothing():
    stats = quality_statistics(quality_parts([_rec(np.full(10, np.nan), np.full(10, np.nan))]))
    assert all(stats[m].sum() == 0.0 for m in ("tracker_step", "tracker_smooth"))
    assert stats["tracker_missing"].sum() == 1.0


def test_white_noise_reads_as_correlation_minus_a_half_and_its_median_step():
    """sd 0.1 per axis: median 2-D step sqrt(2 ln 2) x sqrt(2) x 0.1 = 0.1665 (bin [-1, -0.5]);
    white positions: step correlation -0.5 (on the edge of the bins [-0.75, -0.5) and
    [-0.5, -0.25))."""
    rng = np.random.default_rng(1)
    stats = quality_statistics(quality_parts([_rec(0.1 * rng.standard_normal(20000),
                                                   0.1 * rng.standard_normal(20000))]))
    assert np.argmax(stats["tracker_step"]) == 4
    assert np.argmax(stats["tracker_smooth"]) in (1, 2)
    assert np.argmax(stats["tracker_missing"]) == 0


def test_fit_finds_a_concentrated_population_and_falls_back_to_the_prior():
    z = np.zeros(QUALITY_SIZES["tracker_missing"])
    z[2] = 20.0  # 20 participants at 5 - 20 % missing
    mu, f = fit_quality("tracker_missing", z, 20.0, 0.5)
    assert logit(0.05) < mu[0] < logit(0.2) and f > 0.9
    mu, f = fit_quality("tracker_missing", z, 20.0, 1e6)
    # the public prior (1 %, sd 2.5 on the logit scale, truncated to the bins' range from
    # 0.001 up: about 2 %)
    assert logit(0.01) < mu[0] < logit(0.03) and f == pytest.approx(0.0, abs=1e-6)


def test_the_posterior_sd_narrows_with_the_measurement():
    """The released sd of a tracker centre: the prior's (sd 1 decade, truncated to the bins'
    range: 0.82) when the measurement is noise, a fraction of a bin (half a decade) when 20
    participants stand out of noise sd 1, and between for noise sd 10."""
    z = np.zeros(QUALITY_SIZES["tracker_step"])
    z[2] = 20.0
    sds = [float(fit_quality("tracker_step", z, 20.0, s)[0][1]) for s in (1.0, 10.0, 1e6)]
    assert sds[0] < 0.1 < sds[1] < 0.7 < sds[2] == pytest.approx(0.82, abs=0.01)


def test_participant_tracker_draws_each_centre_from_the_released_posterior():
    """4000 synthetic participants: each centre ``N(mu, sd)`` clipped at 2 sd (mean ``mu``
    within 4 SE, sd 0.959 sd within 5 %), never beyond the bins' range (a posterior near the
    top of ``tracker_smooth``'s range: clipped at 1, the top edge); a marginal not measured
    (sd 0) gives its value to everyone."""
    rel = {"tracker_step": np.array([-1.3, 0.5]), "tracker_smooth": np.array([0.9, 0.3]),
           "tracker_missing": np.array([-4.6, 0.0]), "tracker_tail": np.array([0.2, 0.05])}
    rng = np.random.default_rng(3)
    draws = [participant_tracker(rel, rng) for _ in range(4000)]
    step = np.array([d["tracker_step"][0] for d in draws])
    assert abs(step.mean() + 1.3) < 4 * 0.5 / np.sqrt(step.size)
    assert step.std() == pytest.approx(0.959 * 0.5, rel=0.05)
    assert step.min() >= -2.3 and step.max() <= -0.3
    smooth = np.array([d["tracker_smooth"][0] for d in draws])
    assert smooth.max() == 1.0 and smooth.min() >= 0.3  # clipped at the range's top, 1
    assert {float(d["tracker_missing"][0]) for d in draws} == {-4.6}
    assert all(d[m][1] == 0.0 for d in draws for m in QUALITY)


@pytest.mark.parametrize(("shares", "lo", "hi"), [((0.15, 0.5), 0.25, 0.45),
                                                 ((0.0, 0.0), 0.0, 0.02)],
                         ids=["a quarter missing", "none missing"])
def test_a_few_participants_missing_a_quarter_are_not_pulled_to_the_prior(shares, lo, hi):
    """14 participants at 15 - 50 % missing (MPIIDPEye's tracker), the noise of the default
    split at epsilon 10 (sd 4.4 a bin): the released share (mean of the posterior centres over
    200 noise draws) is 25 - 45 % (0.34; with the prior's sd 1.5: 0.20; with 8 bins as well:
    0.09); with none missing, under 2 % (0.005)."""
    rng = np.random.default_rng(7)
    vals = logit(np.clip(np.linspace(*shares, 14), 0.001, 0.9))
    stats = [quality_statistics({"step_counts": np.zeros(1), "step2_counts": np.zeros(1),
                                 "missing_counts": np.array([expit(v) * 1000, 1000])})
             for v in vals]
    z = np.sum([st["tracker_missing"] for st in stats], axis=0)
    got = [expit(fit_quality("tracker_missing", z + 4.4 * rng.standard_normal(z.size), 14.0,
                             4.4)[0][0]) for _ in range(200)]
    assert lo < np.mean(got) < hi


def test_the_steps_shoulder_reads_rayleigh_for_white_noise_and_more_for_a_scale_mixture():
    """Gaussian white noise: log10(q75 / q50) of the 2-D steps is the Rayleigh 0.15 (bin
    [0.1, 0.2)); the same noise with each sample's scale drawn log-normal (log sd 1.2): a
    heavier shoulder, two or more bins up (measured 0.36)."""
    rng = np.random.default_rng(6)
    x, y = 0.1 * rng.standard_normal((2, 20000))
    white = quality_statistics(quality_parts([_rec(x, y)]))["tracker_tail"]
    f = np.exp(1.2 * rng.standard_normal(20000))
    heavy = quality_statistics(quality_parts([_rec(x * f, y * f)]))["tracker_tail"]
    assert white.sum() == heavy.sum() == 1.0
    assert np.argmax(white) == 0 and np.argmax(heavy) >= 2
