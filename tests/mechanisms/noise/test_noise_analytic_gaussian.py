# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Analytic Gaussian calibration against independent computations of the privacy profile."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.mechanisms.noise.analytic_gaussian import (
    analytic_gaussian_sigma,
    classical_gaussian_sigma,
    gaussian_delta,
)

GRID = [(eps, delta) for eps in (0.05, 0.5, 1.0, 3.0, 10.0) for delta in (1e-2, 1e-6, 1e-10)]


def _delta_by_integral(eps: float, sigma: float, sens: float) -> float:
    """Hockey-stick divergence as an integral over the privacy-loss distribution.

    L ~ N(mu, 2 mu) with mu = sens^2 / (2 sigma^2); delta(eps) = E[(1 - e^(eps - L))_+].
    Independent of Balle & Wang's closed form.
    """
    mu = sens ** 2 / (2 * sigma ** 2)
    sd = math.sqrt(2 * mu)
    def f(loss):
        return (1 - math.exp(eps - loss)) * stats.norm.pdf(loss, mu, sd)
    val, _ = integrate.quad(f, eps, mu + 40 * sd, epsabs=1e-15, epsrel=1e-10, limit=200)
    return val


@pytest.mark.parametrize("eps,delta", GRID)
def test_sigma_meets_condition_and_is_smallest(eps, delta):
    s = analytic_gaussian_sigma(epsilon=eps, delta=delta, sensitivity=2.0)
    assert gaussian_delta(epsilon=eps, sigma=s, sensitivity=2.0) <= delta
    assert gaussian_delta(epsilon=eps, sigma=s * (1 - 1e-6), sensitivity=2.0) > delta
    assert _delta_by_integral(eps, s, 2.0) == pytest.approx(delta, rel=1e-5)


@pytest.mark.parametrize("eps,delta", [(0.1, 1e-5), (0.5, 1e-6), (0.9, 1e-3)])
def test_never_above_classical_gaussian(eps, delta):
    assert (analytic_gaussian_sigma(epsilon=eps, delta=delta, sensitivity=1.0)
            <= classical_gaussian_sigma(epsilon=eps, delta=delta, sensitivity=1.0))


def test_opendp_zcdp_bound_is_looser_and_consistent():
    """OpenDP's zCDP -> approx-DP conversion is a valid upper bound on the exact profile."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    space = (dp.vector_domain(dp.atom_domain(T=float, nan=False), size=3),
             dp.l2_distance(T=float))
    for eps, delta in [(1.0, 1e-6), (3.0, 1e-4)]:
        s = analytic_gaussian_sigma(epsilon=eps, delta=delta, sensitivity=1.0)
        meas = dp.c.make_zCDP_to_approxDP(dp.m.make_gaussian(*space, scale=s))
        assert meas.map(1.0).delta(eps) >= delta


def test_monte_carlo_privacy_loss(rng):
    """Simulated privacy loss of N(0, s^2) vs N(1, s^2): E[(1 - e^(eps-L))_+] matches delta."""
    eps, delta = 1.0, 1e-2
    s = analytic_gaussian_sigma(epsilon=eps, delta=delta, sensitivity=1.0)
    x = rng.normal(0.0, s, size=400_000)
    loss = (1 - 2 * x) / (2 * s * s)  # log p0(x) - log p1(x)
    vals = np.clip(1 - np.exp(eps - loss), 0, None)
    se = vals.std() / math.sqrt(vals.size)
    assert abs(vals.mean() - delta) < 4 * se


@pytest.mark.parametrize("kw,msg", [
    ({"epsilon": 0.0, "delta": 1e-5, "sensitivity": 1.0}, "epsilon must be > 0"),
    ({"epsilon": 1.0, "delta": 1.0, "sensitivity": 1.0}, "delta must be in"),
    ({"epsilon": 1.0, "delta": 1e-5, "sensitivity": -1.0}, "sensitivity must be > 0"),
], ids=["epsilon_zero", "delta_one", "negative_sensitivity"])
def test_bad_parameters(kw, msg):
    with pytest.raises(InvalidParameterError, match=msg):
        analytic_gaussian_sigma(**kw)
