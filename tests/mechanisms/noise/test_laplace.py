# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Laplace mechanism: calibration, distribution, neighbouring inputs, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.mechanisms.noise.laplace import (
    laplace_mechanism,
    laplace_noise,
    laplace_noise_opendp,
    laplace_scale,
)


def test_scale_is_sensitivity_over_epsilon():
    assert laplace_scale(sensitivity=3.0, epsilon=1.5) == 2.0


@pytest.mark.parametrize("eps", [0.0, -1.0, float("nan")], ids=["zero", "negative", "nan"])
def test_bad_epsilon_raises_named_error(eps):
    with pytest.raises(InvalidParameterError, match="epsilon must be > 0"):
        laplace_mechanism(np.zeros(2), sensitivity=1.0, epsilon=eps,
                          rng=np.random.default_rng(0))


def test_noise_matches_laplace_distribution(rng):
    b = 2.5
    z = laplace_noise(scale=b, size=20000, rng=rng)
    # mean within 4 standard errors (var = 2 b^2), variance within 4 SE of its estimator
    assert abs(z.mean()) < 4 * math.sqrt(2 * b * b / z.size)
    assert stats.kstest(z, stats.laplace(scale=b).cdf).pvalue > 1e-3


def test_neighbouring_inputs_density_ratio_bounded(rng):
    eps, sens, n = 1.0, 1.0, 200000
    a = laplace_mechanism(np.zeros(n), sensitivity=sens, epsilon=eps, rng=rng)
    b = laplace_mechanism(np.full(n, sens), sensitivity=sens, epsilon=eps, rng=rng)
    bins = np.linspace(-3, 4, 15)
    ha, _ = np.histogram(a, bins)
    hb, _ = np.histogram(b, bins)
    ratio = np.maximum(ha / hb, hb / ha)
    se = np.sqrt(1 / ha + 1 / hb)  # delta method on log counts
    assert np.all(np.log(ratio) <= eps + 4 * se)
    assert np.log(ratio).max() > 0.8 * eps  # the bound is nearly reached at the tails


def test_opendp_sampler_is_laplace():
    z = laplace_noise_opendp(scale=1.0, size=600)
    assert stats.kstest(z, stats.laplace().cdf).pvalue > 1e-3
