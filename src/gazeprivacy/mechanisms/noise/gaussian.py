# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The Gaussian mechanism: (epsilon, delta)-DP for a query of L2 sensitivity ``Delta_2``.

Classic calibration: Dwork and Roth, The algorithmic foundations of differential privacy,
Theorem A.1, ``sigma = sqrt(2 ln(1.25 / delta)) Delta_2 / epsilon`` (valid for epsilon < 1).
Analytic calibration: Balle and Wang, Improving the Gaussian mechanism for differential privacy:
analytical calibration and optimal denoising, ICML 2018, Algorithm 1 (any epsilon > 0), in
:mod:`gazeprivacy.mechanisms.noise.analytic_gaussian`.

Sampler and floating-point status: ``numpy.random.Generator.normal`` (ziggurat) in double
precision; open to floating-point attacks of the Mironov kind, guarantee for the idealised real
mechanism. OpenDP's ``make_gaussian`` samples exactly (discrete Gaussian) but ignores the
project's seeded generator and is thousands of times slower; it is not used. See
``docs/privacy/noise.md``.
"""

from __future__ import annotations

import math

import numpy as np

from gazeprivacy._validation import check_positive, check_probability
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.mechanisms.noise.analytic_gaussian import analytic_gaussian_sigma

__all__ = ["gaussian_mechanism", "gaussian_sigma", "zcdp_gaussian_sigma"]


def gaussian_sigma(*, sensitivity_l2: float, epsilon: float, delta: float) -> float:
    """Classic sigma ``sqrt(2 ln(1.25/delta)) Delta_2 / epsilon``; needs ``0 < epsilon < 1``.

    >>> round(gaussian_sigma(sensitivity_l2=1.0, epsilon=0.5, delta=1e-5), 4)
    9.6896
    """
    check_positive(allow_zero=True, sensitivity_l2=sensitivity_l2)
    check_probability(delta=delta)
    check_positive(epsilon=epsilon)
    if epsilon >= 1:
        raise InvalidParameterError(
            f"epsilon must be < 1 for the classic Gaussian calibration, got {epsilon!r}; use "
            "calibration='analytic' (Balle & Wang) for epsilon >= 1")
    return math.sqrt(2.0 * math.log(1.25 / delta)) * sensitivity_l2 / epsilon


def zcdp_gaussian_sigma(*, sensitivity_l2: float, rho: float) -> float:
    """sigma ``Delta_2 / sqrt(2 rho)``: the Gaussian mechanism is then exactly rho-zCDP (Bun &
    Steinke 2016, Proposition 1.6), for any rho > 0.

    >>> zcdp_gaussian_sigma(sensitivity_l2=2.0, rho=2.0)
    1.0
    """
    check_positive(allow_zero=True, sensitivity_l2=sensitivity_l2)
    check_positive(rho=rho)
    return sensitivity_l2 / math.sqrt(2.0 * rho)


def gaussian_mechanism(values: np.ndarray, *, sensitivity_l2: float, epsilon: float,
                       delta: float, rng: np.random.Generator,
                       calibration: str = "classic") -> np.ndarray:
    """``values + N(0, sigma^2)`` elementwise, sigma from ``calibration`` (classic | analytic).

    Raises
    ------
    InvalidParameterError
        Bad epsilon / delta / sensitivity, or classic calibration with ``epsilon >= 1``.

    Examples
    --------
    >>> out = gaussian_mechanism(np.zeros(2), sensitivity_l2=1.0, epsilon=0.5, delta=1e-5,
    ...                          rng=np.random.default_rng(0))
    >>> out.shape
    (2,)
    """
    if calibration == "classic":
        sigma = gaussian_sigma(sensitivity_l2=sensitivity_l2, epsilon=epsilon, delta=delta)
    elif calibration == "analytic":
        sigma = analytic_gaussian_sigma(epsilon=epsilon, delta=delta,
                                        sensitivity=sensitivity_l2)
    else:
        raise InvalidParameterError(
            f"calibration must be 'classic' or 'analytic', got {calibration!r}")
    values = np.asarray(values, dtype=np.float64)
    return values + rng.normal(0.0, sigma, values.shape)
