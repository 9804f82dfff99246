# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Analytic Gaussian heatmap mechanism: (epsilon, delta)-DP per observer map, smallest sigma.

Noise calibration: Balle, B. and Wang, Y.-X. Improving the Gaussian mechanism for differential
privacy: analytical calibration and optimal denoising. ICML 2018, Algorithm 1 (exact Gaussian
privacy profile, Theorem 8). Applied to the heatmaps of Liu, Xia, Duchowski, Bailey, Holmqvist,
Jain, Differential privacy for eye-tracking data, ETRA 2019 (the same capped aggregate and
neighbouring relation as their Theorem 3.4).

Deviations: beyond the paper (SPEC section 7). Same aggregate, same L2 sensitivity
``m sqrt(r) / n``, but sigma is the smallest value whose exact privacy profile meets
(epsilon, delta) - valid for every epsilon > 0 and never larger than Theorem 3.4's sigma wherever
Theorem 3.4 holds. Noise: ``numpy.random.Generator.normal`` in floating point (not hardened
against the Mironov 2012 floating-point attacks). See docs/privacy/heatmap-analytic-gaussian.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gazeprivacy._validation import check_int, check_positive, check_probability
from gazeprivacy.features.gaze_maps import GazeMaps
from gazeprivacy.guarantees import Guarantee, Kind, Release
from gazeprivacy.mechanisms.contract import Mode
from gazeprivacy.mechanisms.heatmaps._base import (
    LIU_2019,
    AggregateMap,
    LiuPrivacyLevels,
    check_public_shape,
    gaussian_release,
    heatmap_entry,
    l2_sensitivity,
    observer_record,
)
from gazeprivacy.mechanisms.noise.analytic_gaussian import analytic_gaussian_sigma, gaussian_delta

__all__ = ["AnalyticGaussianParams", "analytic_gaussian", "guarantee", "noise_std"]


@dataclass(frozen=True, slots=True, kw_only=True)
class AnalyticGaussianParams(LiuPrivacyLevels):
    """Parameters of the analytic Gaussian heatmap mechanism.

    Parameters
    ----------
    epsilon : float
        > 0 (any size).
    delta : float
        In (0, 1).
    cap : int
        ``m`` (>= 1), a public bound.
    """

    epsilon: float
    delta: float
    cap: int

    def __post_init__(self) -> None:
        check_positive(epsilon=self.epsilon)
        check_probability(delta=self.delta)
        check_int(cap=self.cap)

    @classmethod
    def paper(cls, *, epsilon: float, n_observers: int, cap: int = 1) -> AnalyticGaussianParams:
        """Liu et al.'s Figure 3 setting for comparison: ``delta = n^-1.5``, cap 1."""
        check_int(n_observers=n_observers)
        return cls(epsilon=epsilon, delta=n_observers ** -1.5, cap=cap)


def noise_std(params: AnalyticGaussianParams, *, n_observers: int, n_cells: int) -> float:
    """Per-cell noise standard deviation (Balle & Wang 2018, Algorithm 1).

    >>> round(noise_std(AnalyticGaussianParams(epsilon=1.0, delta=1e-5, cap=1),
    ...                 n_observers=100, n_cells=100), 5)
    0.37306
    """
    check_public_shape(n_observers=n_observers, n_cells=n_cells)
    sens = l2_sensitivity(cap=params.cap, n_observers=n_observers, n_cells=n_cells)
    return analytic_gaussian_sigma(epsilon=params.epsilon, delta=params.delta, sensitivity=sens)


def guarantee(params: AnalyticGaussianParams, *, n_observers: int, n_cells: int) -> Guarantee:
    """Privacy map (never reads data): (epsilon, delta)-DP per observer map.

    >>> g = guarantee(AnalyticGaussianParams(epsilon=2.0, delta=1e-6, cap=1), n_observers=50,
    ...               n_cells=16)
    >>> g.formally_private, g.parameters["exact_delta"] <= 1e-6
    (True, True)
    """
    sigma = noise_std(params, n_observers=n_observers, n_cells=n_cells)
    sens = l2_sensitivity(cap=params.cap, n_observers=n_observers, n_cells=n_cells)
    return observer_record(
        mechanism="heatmap-analytic-gaussian", kind=Kind.APPROX_DP, cap=params.cap,
        n_observers=n_observers, n_cells=n_cells,
        parameters={"noise_std": sigma, "l2_sensitivity": sens,
                    "exact_delta": gaussian_delta(epsilon=params.epsilon, sigma=sigma,
                                                  sensitivity=sens)},
        epsilon=float(params.epsilon), delta=float(params.delta),
        notes=("sigma calibrated with Balle & Wang (2018), Algorithm 1; not in Liu et al. 2019",),
    )


def analytic_gaussian(maps: GazeMaps, params: AnalyticGaussianParams, *,
                      rng: np.random.Generator) -> Release[AggregateMap]:
    """Capped aggregate plus i.i.d. ``N(0, sigma^2)`` per cell with the analytic sigma.

    Examples
    --------
    >>> from gazeprivacy.features.gaze_maps import MapGrid
    >>> maps = GazeMaps(counts=np.zeros((10, 2, 2), dtype=int), observers=tuple("abcdefghij"),
    ...                 stimulus="s", grid=MapGrid(width_px=2, height_px=2))
    >>> rel = analytic_gaussian(maps, AnalyticGaussianParams(epsilon=1.0, delta=1e-3, cap=1),
    ...                         rng=np.random.default_rng(0))
    >>> rel.output.values.shape, rel.guarantee.kind.value
    ((2, 2), '(epsilon,delta)-DP')
    """
    g = guarantee(params, n_observers=maps.n_observers, n_cells=maps.n_cells)
    return gaussian_release(maps, g, cap=params.cap, rng=rng)


SPEC = heatmap_entry(
    name="heatmap-analytic-gaussian",
    params_type=AnalyticGaussianParams,
    run=analytic_gaussian,
    guarantee=guarantee,
    summary="(eps, delta)-DP aggregate, analytic Gaussian sigma (Balle & Wang 2018)",
    citation=LIU_2019 + "; Balle & Wang, ICML 2018",
    example_params=lambda mode: (AnalyticGaussianParams(epsilon=1.0, delta=1e-3, cap=1)
                                if mode is Mode.SOUND else None),
)
