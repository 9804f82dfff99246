# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Noise-free aggregate gaze map: NOT private (a baseline that shows why noise is needed).

Liu, Xia, Duchowski, Bailey, Holmqvist, Jain. Differential privacy for eye-tracking data.
ETRA 2019, https://doi.org/10.1145/3314111.3319823, section 3.3 ("There is no free privacy").

Releases ``G = (1/n) sum_i min(G_i, m)`` exactly. With everyone else's maps known, the adversary
recovers ``G_i = n G - sum_{j != i} G_j``; formally, for neighbours that differ in ``G_i`` the
output ``G`` has probability 1 under one and 0 under the other, so no ``delta < 1`` holds.
The record is of kind ``"none"``.

Deviations: none (the paper's mechanism with the cap applied). See
docs/privacy/heatmap-baselines.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gazeprivacy._validation import check_int
from gazeprivacy.features.gaze_maps import GazeMaps
from gazeprivacy.guarantees import Flag, FlagCode, Guarantee, Kind, Release
from gazeprivacy.mechanisms.contract import Mode
from gazeprivacy.mechanisms.heatmaps._base import (
    LIU_2019,
    AggregateMap,
    check_public_shape,
    heatmap_entry,
    observer_record,
    release_map,
)

__all__ = ["NoiseFreeParams", "guarantee", "noise_free"]

CITATION = "Liu et al., Differential privacy for eye-tracking data, ETRA 2019, section 3.3"


@dataclass(frozen=True, slots=True, kw_only=True)
class NoiseFreeParams:
    """Parameters of the noise-free aggregate.

    Parameters
    ----------
    cap : int
        ``m``: per-observer count cap (>= 1).
    """

    cap: int

    def __post_init__(self) -> None:
        check_int(cap=self.cap)

    @classmethod
    def paper(cls) -> NoiseFreeParams:
        """The paper's Figure 3 setting (cap ``m = 1``)."""
        return cls(cap=1)


def guarantee(params: NoiseFreeParams, *, n_observers: int, n_cells: int) -> Guarantee:
    """Privacy map: none (never reads data).

    >>> guarantee(NoiseFreeParams(cap=1), n_observers=10, n_cells=4).formally_private
    False
    """
    check_public_shape(n_observers=n_observers, n_cells=n_cells)
    return observer_record(
        mechanism="heatmap-noise-free", kind=Kind.NONE, cap=params.cap, n_observers=n_observers,
        n_cells=n_cells,
        flags=(Flag(FlagCode.NOT_PRIVATE,
                    "the exact aggregate is released: with the other observers' maps known, "
                    "G_i = n G - sum_{j != i} G_j; neighbouring maps give outputs of probability "
                    "1 and 0 (Liu et al. 2019, section 3.3), so no delta < 1 holds"),),
        paper_claim="poor privacy (delta >= 1), section 3.3",
    )


def noise_free(maps: GazeMaps, params: NoiseFreeParams, *,
               rng: np.random.Generator | None = None) -> Release[AggregateMap]:
    """Release the exact capped aggregate (``rng`` is accepted for a uniform interface, unused).

    Examples
    --------
    >>> from gazeprivacy.features.gaze_maps import MapGrid
    >>> maps = GazeMaps(counts=np.array([[[3]], [[0]]]), observers=("a", "b"), stimulus="s",
    ...                 grid=MapGrid(width_px=1, height_px=1))
    >>> rel = noise_free(maps, NoiseFreeParams(cap=2))
    >>> rel.output.values.tolist(), rel.guarantee.kind.value
    ([[1.0]], 'none')
    """
    return release_map(maps, maps.aggregate(params.cap),
                       guarantee(params, n_observers=maps.n_observers, n_cells=maps.n_cells),
                       cap=params.cap)


SPEC = heatmap_entry(
    name="heatmap-noise-free",
    params_type=NoiseFreeParams,
    run=noise_free,
    guarantee=guarantee,
    summary="exact capped aggregate gaze map; NOT private (baseline)",
    citation=LIU_2019,
    example_params=lambda mode: NoiseFreeParams(cap=1) if mode is Mode.BASELINE else None,
)
