# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The rho-zCDP <-> (epsilon, delta) conversion (Canonne, Kamath & Steinke 2020)."""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np
import pytest

from gazeprivacy.accounting.zcdp import bun_steinke_epsilon, epsilon_to_rho, rho_to_epsilon
from gazeprivacy.exceptions import InvalidParameterError

RHOS = (1e-4, 0.01, 0.1, 0.5, 1.0, 5.0, 50.0)
DELTAS = (1e-3, 1e-6, 1e-10)


@pytest.mark.parametrize("delta", DELTAS)
@pytest.mark.parametrize("rho", RHOS)
def test_never_above_bun_steinke_and_above_rho(rho, delta):
    eps = rho_to_epsilon(rho, delta)
    assert eps <= bun_steinke_epsilon(rho, delta) + 1e-12
    assert eps > rho  # alpha rho >= rho, and the delta term is positive at these deltas


def test_the_infimum_is_found():
    """The numerical infimum is no larger than the objective on a dense alpha grid."""
    rho, delta = 0.3, 1e-6
    alphas = 1.0 + np.geomspace(1e-3, 1e4, 20000)
    obj = alphas * rho + (math.log(1 / delta) + (alphas - 1) * np.log1p(-1 / alphas)
                          - np.log(alphas)) / (alphas - 1)
    assert rho_to_epsilon(rho, delta) <= obj.min() + 1e-9
    assert rho_to_epsilon(rho, delta) >= obj.min() - 1e-4


@pytest.mark.parametrize("delta", DELTAS)
def test_increasing_in_rho_and_zero_at_zero(delta):
    eps = [rho_to_epsilon(r, delta) for r in RHOS]
    assert all(a < b for a, b in pairwise(eps))
    assert rho_to_epsilon(0.0, delta) == 0.0


@pytest.mark.parametrize("delta", DELTAS)
@pytest.mark.parametrize("epsilon", (0.1, 1.0, 3.0, 10.0))
def test_epsilon_to_rho_is_the_tight_inverse_rounded_down(epsilon, delta):
    rho = epsilon_to_rho(epsilon, delta)
    assert rho_to_epsilon(rho, delta) <= epsilon
    assert rho_to_epsilon(rho * (1 + 1e-9), delta) > epsilon - 1e-6
    assert rho > (math.sqrt(math.log(1 / delta) + epsilon) - math.sqrt(math.log(1 / delta))) ** 2


def test_matches_opendp_when_installed():
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    space = dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float)
    gauss = dp.m.make_gaussian(*space, scale=1.0)
    for rho in (0.02, 0.185, 1.5):
        ref = dp.c.make_zCDP_to_approxDP(gauss).map(math.sqrt(2.0 * rho)).epsilon(1e-6)
        assert rho_to_epsilon(rho, 1e-6) == pytest.approx(float(ref), rel=1e-6)


@pytest.mark.parametrize(("call", "match"), [
    (lambda: rho_to_epsilon(-1.0, 1e-6), "rho must be finite and >= 0, got -1.0"),
    (lambda: rho_to_epsilon(1.0, 0.0), r"delta must be in \(0, 1\), got 0.0"),
    (lambda: epsilon_to_rho(0.0, 1e-6), "epsilon must be finite and > 0, got 0.0"),
    (lambda: epsilon_to_rho(1.0, 1.0), r"delta must be in \(0, 1\), got 1.0"),
], ids=["negative_rho", "zero_delta", "zero_epsilon", "delta_one"])
def test_bad_values_raise_named_errors(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()
