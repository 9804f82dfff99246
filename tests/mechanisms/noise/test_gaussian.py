# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Gaussian mechanism: classic and analytic calibration, noise scale, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.mechanisms.noise.analytic_gaussian import analytic_gaussian_sigma
from gazeprivacy.mechanisms.noise.gaussian import gaussian_mechanism, gaussian_sigma


def test_classic_sigma_formula():
    s = gaussian_sigma(sensitivity_l2=2.0, epsilon=0.5, delta=1e-6)
    assert math.isclose(s, math.sqrt(2 * math.log(1.25e6)) * 2.0 / 0.5)


def test_classic_refuses_epsilon_at_least_one():
    with pytest.raises(InvalidParameterError, match="epsilon must be < 1.*calibration=.analytic."):
        gaussian_sigma(sensitivity_l2=1.0, epsilon=1.0, delta=1e-5)


@pytest.mark.parametrize("eps", [0.1, 1.0, 4.0])
def test_analytic_sigma_meets_balle_wang_condition_with_equality(eps):
    d, delta = 1.5, 1e-5
    s = analytic_gaussian_sigma(epsilon=eps, delta=delta, sensitivity=d)
    a, b = d / (2 * s), eps * s / d
    assert abs(norm.cdf(a - b) - math.exp(eps) * norm.cdf(-a - b) - delta) < 1e-9
    if eps < 1:
        assert s < gaussian_sigma(sensitivity_l2=d, epsilon=eps, delta=delta)


def test_noise_has_the_calibrated_standard_deviation(rng):
    s = gaussian_sigma(sensitivity_l2=1.0, epsilon=0.5, delta=1e-5)
    z = gaussian_mechanism(np.zeros(20000), sensitivity_l2=1.0, epsilon=0.5, delta=1e-5, rng=rng)
    assert abs(z.std(ddof=1) / s - 1) < 4 * math.sqrt(1 / (2 * z.size))
