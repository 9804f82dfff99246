# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Laplacian heatmap mechanism (Theorem 3.5): epsilon-DP per observer map.

Liu, Xia, Duchowski, Bailey, Holmqvist, Jain. Differential privacy for eye-tracking data.
ETRA 2019, https://doi.org/10.1145/3314111.3319823, section 3.5.2, Theorem 3.5 (proof in
appendix A.2): i.i.d. Laplace noise on every cell of the capped aggregate with standard deviation
``sigma_L = sqrt(2) m r / (epsilon n)``, i.e. Laplace scale ``b = m r / (n epsilon)`` = L1
sensitivity / epsilon. This is the standard Laplace mechanism and the proof is sound.

Deviations: none. The paper states the noise level as a standard deviation; we parametrise by the
scale ``b = sigma_L / sqrt(2)`` and record both. Noise: ``numpy.random.Generator.laplace`` in
floating point (not hardened against the Mironov 2012 floating-point attacks). See
docs/privacy/heatmap-laplacian.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gazeprivacy._validation import check_int, check_positive
from gazeprivacy.features.gaze_maps import GazeMaps
from gazeprivacy.guarantees import Guarantee, Kind, Release
from gazeprivacy.mechanisms.contract import Mode
from gazeprivacy.mechanisms.heatmaps._base import (
    LIU_2019,
    AggregateMap,
    check_public_shape,
    heatmap_entry,
    l1_sensitivity,
    observer_record,
    release_map,
)

__all__ = ["LaplacianParams", "guarantee", "laplacian", "noise_std", "theorem_3_5_scale"]


@dataclass(frozen=True, slots=True, kw_only=True)
class LaplacianParams:
    """Parameters of the Theorem 3.5 Laplacian mechanism.

    Parameters
    ----------
    epsilon : float
        > 0.
    cap : int
        ``m`` (>= 1), a public bound.
    """

    epsilon: float
    cap: int

    def __post_init__(self) -> None:
        check_positive(epsilon=self.epsilon)
        check_int(cap=self.cap)

    @classmethod
    def paper(cls, *, epsilon: float, cap: int = 1) -> LaplacianParams:
        """The paper's Figure 3 setting (cap 1)."""
        return cls(epsilon=epsilon, cap=cap)


def theorem_3_5_scale(*, epsilon: float, cap: int, n_observers: int, n_cells: int) -> float:
    """Laplace scale ``b = m r / (n epsilon)`` (standard deviation ``sqrt(2) b``).

    >>> theorem_3_5_scale(epsilon=2.0, cap=1, n_observers=100, n_cells=400)
    2.0
    """
    check_positive(epsilon=epsilon)
    check_public_shape(n_observers=n_observers, n_cells=n_cells)
    return l1_sensitivity(cap=cap, n_observers=n_observers, n_cells=n_cells) / epsilon


def noise_std(params: LaplacianParams, *, n_observers: int, n_cells: int) -> float:
    """Per-cell noise standard deviation ``sigma_L = sqrt(2) b``."""
    return math.sqrt(2.0) * theorem_3_5_scale(epsilon=params.epsilon, cap=params.cap,
                                              n_observers=n_observers, n_cells=n_cells)


def guarantee(params: LaplacianParams, *, n_observers: int, n_cells: int) -> Guarantee:
    """Privacy map (never reads data): epsilon-DP per observer map.

    >>> guarantee(LaplacianParams(epsilon=1.0, cap=1), n_observers=10, n_cells=4).summary()
    'heatmap-laplace [sound]: epsilon-DP per recording; epsilon=1, delta=0 per recording; per \
participant epsilon <= 1, delta = 0'
    """
    b = theorem_3_5_scale(epsilon=params.epsilon, cap=params.cap, n_observers=n_observers,
                          n_cells=n_cells)
    return observer_record(
        mechanism="heatmap-laplace", kind=Kind.PURE_DP, cap=params.cap,
        n_observers=n_observers, n_cells=n_cells,
        parameters={"laplace_scale": b, "noise_std": math.sqrt(2.0) * b,
                    "l1_sensitivity": l1_sensitivity(cap=params.cap, n_observers=n_observers,
                                                     n_cells=n_cells)},
        epsilon=float(params.epsilon), paper_claim="(epsilon, 0)-DP, Theorem 3.5",
    )


def laplacian(maps: GazeMaps, params: LaplacianParams, *,
              rng: np.random.Generator) -> Release[AggregateMap]:
    """Capped aggregate plus i.i.d. ``Laplace(0, m r / (n epsilon))`` per cell.

    Examples
    --------
    >>> from gazeprivacy.features.gaze_maps import MapGrid
    >>> maps = GazeMaps(counts=np.zeros((10, 2, 2), dtype=int), observers=tuple("abcdefghij"),
    ...                 stimulus="s", grid=MapGrid(width_px=2, height_px=2))
    >>> rel = laplacian(maps, LaplacianParams(epsilon=1.0, cap=1), rng=np.random.default_rng(0))
    >>> round(rel.guarantee.parameters["laplace_scale"], 3)
    0.4
    """
    g = guarantee(params, n_observers=maps.n_observers, n_cells=maps.n_cells)
    b = float(g.parameters["laplace_scale"])
    values = maps.aggregate(params.cap) + rng.laplace(0.0, b, size=maps.grid.shape)
    return release_map(maps, values, g, cap=params.cap, noise_std=math.sqrt(2.0) * b)


SPEC = heatmap_entry(
    name="heatmap-laplace",
    params_type=LaplacianParams,
    run=laplacian,
    guarantee=guarantee,
    summary="eps-DP aggregate, Laplace noise of Theorem 3.5",
    citation=LIU_2019,
    example_params=lambda mode: LaplacianParams(epsilon=1.0, cap=1) if mode is Mode.SOUND else None,
)
