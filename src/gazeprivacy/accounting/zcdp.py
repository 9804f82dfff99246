# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""rho-zCDP <-> (epsilon, delta)-DP: one fixed, tight conversion, in our own code.

Zero-concentrated DP (Bun & Steinke, TCC 2016) composes additively in rho; a release states
(epsilon, delta). The conversion used everywhere in gazeprivacy is Canonne, Kamath & Steinke's
(NeurIPS 2020, "The discrete Gaussian for differential privacy", Proposition 12 / Corollary 13):
a rho-zCDP mechanism is (epsilon, delta)-DP for

    epsilon(rho, delta) = inf_{alpha > 1}  alpha rho + (log(1/delta) + (alpha - 1) log(1 - 1/alpha)
                                                      - log(alpha)) / (alpha - 1),

computed here numerically (a bounded scalar minimisation over log(alpha - 1)). It is never
larger than Bun & Steinke's ``rho + 2 sqrt(rho log(1/delta))`` (Proposition 1.3), which the
tests use as a bound, and it does not depend on which optional packages are installed (OpenDP's
``make_zCDP_to_approxDP`` implements the same bound; a test compares them when OpenDP is there).

:func:`epsilon_to_rho` inverts it (epsilon is increasing in rho): the largest rho whose
conversion at ``delta`` is at most ``epsilon``, by bisection to a relative 1e-12, rounded down
so that ``rho_to_epsilon(epsilon_to_rho(e, d), d) <= e``.

Why our own code: the ledger's conversion depended on whether OpenDP was installed, so the
printed epsilon did too; one formula in one function removes that.
"""

from __future__ import annotations

import math

from scipy.optimize import brentq, minimize_scalar

from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["CONVERSION", "bun_steinke_epsilon", "epsilon_to_rho", "rho_to_epsilon"]

CONVERSION = "Canonne, Kamath & Steinke 2020 (Corollary 13), numerical infimum over alpha"
"""The name the records carry for :func:`rho_to_epsilon`."""


def _check(rho: float | None = None, delta: float | None = None,
           epsilon: float | None = None) -> None:
    if rho is not None and not (math.isfinite(rho) and rho >= 0):
        raise InvalidParameterError(f"rho must be finite and >= 0, got {rho!r}")
    if delta is not None and not (0.0 < delta < 1.0):
        raise InvalidParameterError(f"delta must be in (0, 1), got {delta!r}")
    if epsilon is not None and not (math.isfinite(epsilon) and epsilon > 0):
        raise InvalidParameterError(f"epsilon must be finite and > 0, got {epsilon!r}")


def bun_steinke_epsilon(rho: float, delta: float) -> float:
    """``rho + 2 sqrt(rho log(1/delta))`` (Bun & Steinke 2016, Proposition 1.3): looser than
    :func:`rho_to_epsilon`, kept as the bound its tests check against.

    >>> round(bun_steinke_epsilon(0.5, 1e-6), 4)
    5.7565
    """
    _check(rho=rho, delta=delta)
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def _objective(log_am1: float, rho: float, log_inv_delta: float) -> float:
    am1 = math.exp(log_am1)  # alpha - 1 > 0
    alpha = 1.0 + am1
    return (alpha * rho + (log_inv_delta + am1 * math.log1p(-1.0 / alpha) - math.log(alpha))
            / am1)


def rho_to_epsilon(rho: float, delta: float) -> float:
    """epsilon of a rho-zCDP mechanism at ``delta`` (Canonne, Kamath & Steinke 2020).

    Parameters
    ----------
    rho : float, >= 0
    delta : float, in (0, 1)

    Returns
    -------
    float
        The infimum over alpha > 1 (>= 0; 0 for rho = 0).

    Raises
    ------
    InvalidParameterError
        rho negative or not finite, delta outside (0, 1).

    Examples
    --------
    >>> eps = rho_to_epsilon(0.5, 1e-6)
    >>> round(eps, 3), eps < bun_steinke_epsilon(0.5, 1e-6)
    (5.222, True)
    """
    _check(rho=rho, delta=delta)
    if rho == 0.0:
        return 0.0
    log_inv_delta = math.log(1.0 / delta)
    # the optimum alpha is about 1 + sqrt(log(1/delta) / rho); search two decades either side
    centre = 0.5 * math.log(log_inv_delta / rho)
    res = minimize_scalar(_objective, bounds=(centre - 12.0, centre + 12.0), method="bounded",
                          args=(rho, log_inv_delta), options={"xatol": 1e-10})
    best = min(float(res.fun), bun_steinke_epsilon(rho, delta))
    return max(0.0, best)


def epsilon_to_rho(epsilon: float, delta: float) -> float:
    """The largest rho with ``rho_to_epsilon(rho, delta) <= epsilon``.

    Examples
    --------
    >>> rho = epsilon_to_rho(3.0, 1e-6)
    >>> round(rho, 4), rho_to_epsilon(rho, 1e-6) <= 3.0
    (0.1851, True)
    """
    _check(epsilon=epsilon, delta=delta)
    hi = epsilon  # rho_to_epsilon(rho) >= rho, so rho <= epsilon
    rho = brentq(lambda r: rho_to_epsilon(r, delta) - epsilon, 0.0, hi, rtol=1e-12,
                 xtol=1e-15)
    while rho > 0 and rho_to_epsilon(rho, delta) > epsilon:  # round down (a few ulps)
        rho = math.nextafter(rho, 0.0)
    return float(rho)
