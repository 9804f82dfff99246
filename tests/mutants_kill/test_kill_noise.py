# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Noise primitives against their textbook formulas, written out here (mutation gate, issue 14).

The OUE flip probability and the Gaussian mechanism's draw were only checked against the
module's own helpers (``oue_q``, ``gaussian_sigma``), so a wrong value there passed. Fixed
seeds; tolerance 4 standard errors.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from gazeprivacy.mechanisms.noise.gaussian import gaussian_mechanism
from gazeprivacy.mechanisms.noise.oue import oue_curator_view, oue_encode


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_oue_bits_are_one_half_and_one_over_e_eps_plus_one(eps):
    """Wang et al. 2017: the true bit is 1 with p = 1/2, every other bit with
    q = 1 / (e^eps + 1); both client paths."""
    n, d = 4000, 16
    q = 1.0 / (math.exp(eps) + 1.0)
    rep = oue_encode(np.zeros(n, dtype=np.int64), domain_size=d, epsilon=eps,
                     rng=np.random.default_rng(31))
    sums = np.bincount(rep.indices, minlength=d).astype(float)
    view = oue_curator_view(np.r_[n, np.zeros(d - 1, dtype=np.int64)], epsilon=eps,
                            rng=np.random.default_rng(32))
    for s in (sums, view):
        assert abs(s[0] - n / 2) < 4 * math.sqrt(n / 4), s[0]
        other = s[1:].sum()
        m = n * (d - 1)
        assert abs(other - m * q) < 4 * math.sqrt(m * q * (1 - q)), (other, m * q)


@pytest.mark.parametrize("calibration", ["classic", "analytic"])
def test_gaussian_mechanism_draws_at_the_calibrated_sigma(calibration):
    """Classic: sigma = sqrt(2 ln(1.25 / delta)) Delta_2 / epsilon (Dwork and Roth, Thm A.1);
    analytic (Balle and Wang 2018, Theorem 8): the measured sigma (plus 4 standard errors) must
    give delta(sigma) = Phi(D / 2s - eps s / D) - e^eps Phi(-D / 2s - eps s / D) <= delta and
    must not exceed the classic sigma. Sample standard deviation of 200 000 draws."""
    eps, delta, sens, n = 0.5, 1e-5, 2.0, 200_000
    out = gaussian_mechanism(np.zeros(n), sensitivity_l2=sens, epsilon=eps, delta=delta,
                             rng=np.random.default_rng(33), calibration=calibration)
    sd = out.std()
    se = sd / math.sqrt(2 * n)
    classic = math.sqrt(2.0 * math.log(1.25 / delta)) * sens / eps
    if calibration == "classic":
        assert abs(sd - classic) < 4 * se, (sd, classic)
    else:
        s = sd + 4 * se
        exact = (norm.cdf(sens / (2 * s) - eps * s / sens)
                 - math.exp(eps) * norm.cdf(-sens / (2 * s) - eps * s / sens))
        assert exact <= delta and sd < classic + 4 * se, (sd, exact)
