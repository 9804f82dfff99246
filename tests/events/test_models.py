# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Fixation and saccade models recover known parameters (issue 5 point 1)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from gazeprivacy.events.models import (
    fit_fixation,
    fit_saccade_profile,
    fixation_log_prob,
    fixation_log_prob_approx,
    gaussian_profile,
    integrate_profile,
    resample_profile,
    velocity_profile_deg_s,
)
from gazeprivacy.exceptions import InvalidDataError


def test_fixation_fit_recovers_parameters_within_4_standard_errors(rng):
    n = 4000
    x = rng.normal(3.0, 0.4, n)
    y = rng.normal(-1.0, 0.2, n)
    p = fit_fixation(x, y)
    assert abs(p.mu_x - 3.0) < 4 * 0.4 / np.sqrt(n)
    assert abs(p.mu_y + 1.0) < 4 * 0.2 / np.sqrt(n)
    # standard error of a normal's standard deviation: sigma / sqrt(2n)
    assert abs(p.sigma_x - 0.4) < 4 * 0.4 / np.sqrt(2 * n)
    assert abs(p.sigma_y - 0.2) < 4 * 0.2 / np.sqrt(2 * n)


def test_fixation_fit_ignores_nan_and_refuses_all_nan():
    p = fit_fixation(np.array([1.0, np.nan, 3.0]), np.array([0.0, np.nan, 0.0]))
    assert p.mu_x == 2.0
    with pytest.raises(InvalidDataError, match="at least one non-missing sample"):
        fit_fixation(np.array([np.nan]), np.array([np.nan]))


def test_box_probability_matches_cdf_difference_and_survives_far_tails():
    p = np.array([0.0, 0.0, 0.5, 0.5])
    x, y = np.array([0.3]), np.array([-0.2])
    expect = np.log((stats.norm.cdf(0.31, 0, 0.5) - stats.norm.cdf(0.29, 0, 0.5))
                    * (stats.norm.cdf(-0.19, 0, 0.5) - stats.norm.cdf(-0.21, 0, 0.5)))
    assert fixation_log_prob(x, y, p) == pytest.approx(expect, rel=1e-10)
    far = fixation_log_prob(np.array([20.0]), np.array([0.0]), p)  # 40 sigma out
    assert np.isfinite(far) and far < -700


def test_fast_approximation_is_close_near_the_model(rng):
    x = rng.normal(5, 0.2, 60)
    y = rng.normal(3, 0.15, 60)
    p = np.array([[5.0, 3.0, 0.2, 0.15], [5.2, 3.1, 0.25, 0.2]])
    np.testing.assert_allclose(fixation_log_prob_approx(x, y, p), fixation_log_prob(x, y, p),
                               atol=0.05)


def test_saccade_fit_recovers_noisy_gaussian_profile(rng):
    true = np.array([450.0, 0.4, 0.03])
    prof = gaussian_profile(true) + rng.normal(0, 5.0, 30)
    fit = fit_saccade_profile(prof).as_array()
    assert abs(fit[0] - 450) < 15 and abs(fit[1] - 0.4) < 0.02 and abs(fit[2] - 0.03) < 0.005


def test_velocity_resampling_and_integration_round_trip():
    # 21 samples moving 10 deg along x with a bell-shaped speed profile, 500 Hz
    prof = gaussian_profile(np.array([1.0, 0.5, 0.05]), steps=20)
    x, y = integrate_profile(prof, 21, np.array([0.0, 0.0]), np.array([10.0, 0.0]))
    assert x[0] == 0.0 and x[-1] == pytest.approx(10.0) and np.all(y == 0)
    v = velocity_profile_deg_s(x, y, 500.0)
    assert v.shape == (20,) and np.argmax(v) in (9, 10)
    assert resample_profile(v).shape == (30,)


def test_integration_with_sample_interval_follows_the_profile_amplitude():
    x, y = integrate_profile(np.full(30, 100.0), 11, np.array([0.0, 0.0]),
                             np.array([0.0, 1.0]), step_s=0.01)
    # 10 steps of 100 deg/s x 10 ms along +y
    assert y[-1] == pytest.approx(10.0) and np.allclose(x, 0.0)

