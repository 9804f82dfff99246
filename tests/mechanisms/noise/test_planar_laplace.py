# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Planar Laplace: radius Gamma(2, 1/eps), uniform angle, clamping, neighbouring points."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.mechanisms.noise.planar_laplace import planar_laplace, planar_laplace_noise


@pytest.mark.parametrize("eps", [0.3, 2.0])
def test_radius_is_gamma_2_and_angle_uniform(eps, rng):
    dx, dy = planar_laplace_noise(20000, epsilon_per_unit=eps, rng=rng)
    radius = np.hypot(dx, dy)
    assert stats.kstest(radius, stats.gamma(a=2, scale=1 / eps).cdf).pvalue > 1e-3
    angle = np.mod(np.arctan2(dy, dx), 2 * np.pi)
    assert stats.kstest(angle, stats.uniform(scale=2 * np.pi).cdf).pvalue > 1e-3


def test_outputs_outside_bounds_are_clamped_not_resampled(rng):
    x = np.full(5000, 0.9)
    ox, oy = planar_laplace(x, x, epsilon_per_unit=1.0, rng=rng, bounds=(0.0, 1.0, 0.0, 1.0))
    assert ox.min() >= 0 and ox.max() <= 1 and oy.min() >= 0 and oy.max() <= 1
    # clamping piles mass on the border (resampling would not)
    assert (ox == 1.0).mean() > 0.3


def test_nan_points_stay_nan(rng):
    ox, oy = planar_laplace(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]),
                            epsilon_per_unit=1.0, rng=rng)
    assert np.isnan(ox[0]) and np.isnan(oy[0]) and np.isfinite(ox[1])


def test_points_within_r_are_epsilon_indistinguishable(rng):
    eps, r, n = 1.0, 1.0, 200000
    a, _ = planar_laplace(np.zeros(n), np.zeros(n), epsilon_per_unit=eps / r, rng=rng)
    b, _ = planar_laplace(np.full(n, r), np.zeros(n), epsilon_per_unit=eps / r, rng=rng)
    bins = np.linspace(-3, 4, 15)
    ha, _ = np.histogram(a, bins)
    hb, _ = np.histogram(b, bins)
    lr = np.abs(np.log(ha / hb))
    assert np.all(lr <= eps + 4 * np.sqrt(1 / ha + 1 / hb))


def test_bad_parameter_raises():
    with pytest.raises(InvalidParameterError, match="epsilon_per_unit must be > 0"):
        planar_laplace_noise(3, epsilon_per_unit=0.0, rng=np.random.default_rng(0))


def test_two_generators_give_block_invariant_draws_of_the_same_distribution():
    def draw(sizes: list[int]) -> np.ndarray:
        ra, rb = np.random.default_rng(5).spawn(2)
        parts = [planar_laplace_noise(k, epsilon_per_unit=0.5, rng=ra, angle_rng=rb)
                 for k in sizes]
        return np.concatenate([np.column_stack(p) for p in parts])

    whole = draw([20000])
    np.testing.assert_array_equal(draw([7, 1024, 1, 18968]), whole)
    radius = np.hypot(whole[:, 0], whole[:, 1])
    assert stats.kstest(radius, stats.gamma(a=2, scale=2.0).cdf).pvalue > 1e-3
    angle = np.mod(np.arctan2(whole[:, 1], whole[:, 0]), 2 * np.pi)
    assert stats.kstest(angle, stats.uniform(scale=2 * np.pi).cdf).pvalue > 1e-3
