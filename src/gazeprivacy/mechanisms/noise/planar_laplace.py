# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Planar Laplace: epsilon-geo-indistinguishability in the Euclidean plane.

Andrés, Bordenabe, Chatzikokolakis, Palamidessi. Geo-indistinguishability: differential privacy
for location-based systems. CCS 2013.

For a parameter ``epsilon_per_unit`` (per unit of distance, e.g. per degree) the output density is
proportional to ``exp(-epsilon_per_unit * d(x, z))``, so two points at distance ``d`` are
``epsilon_per_unit * d``-indistinguishable; with ``epsilon_per_unit = epsilon / r`` any two points
within ``r`` are ``epsilon``-indistinguishable. In polar form the angle is uniform on
``[0, 2 pi)`` and the radius is Gamma(shape 2, scale ``1 / epsilon_per_unit``), which is the
distribution Andrés et al. sample with the Lambert-W inverse CDF; we draw the Gamma directly.

Sampler and floating-point status: ``numpy.random.Generator.gamma`` (Marsaglia-Tsang) and
``Generator.random`` for the angle, in double precision. Like every floating-point continuous
sampler this is open to Mironov-style attacks (CCS 2012) and the guarantee holds for the idealised
real mechanism; Andrés et al.'s own remedy (truncation to a grid) is not applied. OpenDP offers no
planar Laplace. Points outside the valid region are clamped to the nearest valid point
(post-processing), never resampled. See ``docs/privacy/noise.md``.
"""

from __future__ import annotations

import numpy as np

from gazeprivacy._validation import check_positive

__all__ = ["planar_laplace", "planar_laplace_noise"]


def planar_laplace_noise(n: int, *, epsilon_per_unit: float, rng: np.random.Generator,
                         angle_rng: np.random.Generator | None = None,
                         ) -> tuple[np.ndarray, np.ndarray]:
    """``n`` planar Laplace displacements ``(dx, dy)`` for ``epsilon_per_unit`` (> 0).

    The radius (Gamma(2, ``1 / epsilon_per_unit``)) is drawn before the angle, as two separate
    vectorised draws from ``rng``, or the angles from ``angle_rng`` when given. A streaming
    caller that draws ahead in blocks of varying length (Kaleido) passes two generators: each
    then yields the same values however the draws are cut into blocks, which one generator
    alternating between radii and angles would not.

    >>> dx, dy = planar_laplace_noise(4, epsilon_per_unit=2.0, rng=np.random.default_rng(0))
    >>> dx.shape, dy.shape
    ((4,), (4,))
    """
    check_positive(epsilon_per_unit=epsilon_per_unit)
    radius = rng.gamma(2.0, 1.0 / epsilon_per_unit, n)
    theta = (rng if angle_rng is None else angle_rng).random(n) * (2.0 * np.pi)
    return radius * np.cos(theta), radius * np.sin(theta)


def planar_laplace(x: np.ndarray, y: np.ndarray, *, epsilon_per_unit: float,
                   rng: np.random.Generator,
                   bounds: tuple[float, float, float, float] | None = None,
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Perturb points ``(x, y)`` with planar Laplace noise; clamp to ``bounds`` if given.

    Parameters
    ----------
    x, y : array of float
        Points (same shape). NaN points stay NaN (noise is still drawn for them, so the random
        stream does not depend on which points are missing).
    epsilon_per_unit : float, > 0
        Privacy parameter per unit of distance: ``epsilon / r`` protects radius ``r`` at
        ``epsilon``.
    rng : numpy.random.Generator
    bounds : (x_min, x_max, y_min, y_max), optional
        Valid region. Outputs outside it go to the nearest valid point (post-processing).

    Raises
    ------
    InvalidParameterError
        ``epsilon_per_unit <= 0``.

    Examples
    --------
    >>> px, py = planar_laplace(np.array([0.5]), np.array([0.5]), epsilon_per_unit=0.001,
    ...                         rng=np.random.default_rng(3), bounds=(0, 1, 0, 1))
    >>> bool(0 <= px[0] <= 1 and 0 <= py[0] <= 1)
    True
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    dx, dy = planar_laplace_noise(x.size, epsilon_per_unit=epsilon_per_unit, rng=rng)
    ox = x + dx.reshape(x.shape)
    oy = y + dy.reshape(y.shape)
    if bounds is not None:
        ox = np.clip(ox, bounds[0], bounds[1])
        oy = np.clip(oy, bounds[2], bounds[3])
    return ox, oy
