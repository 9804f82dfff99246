# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""What the heatmap mechanisms share: the output type, sensitivities and the record skeleton.

The unit of privacy is one observer's (capped) gaze map on one stimulus, i.e. a recording.
Neighbouring aggregates replace one observer's map by any other map with entries in ``[0, m]``;
``n`` (observers) and ``r`` (cells) are public (Liu et al. 2019, Definition 3.1). Replacing one
map moves the aggregate ``G = (1/n) sum_i min(G_i, m)`` by at most ``m / n`` per cell, so the L1
sensitivity is ``m r / n`` and the L2 sensitivity ``m sqrt(r) / n``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from gazeprivacy._validation import check_int
from gazeprivacy.features.gaze_maps import GazeMaps, MapGrid
from gazeprivacy.guarantees import Guarantee, Kind, Release, Unit
from gazeprivacy.mechanisms.contract import HeatmapShape, Level, Mechanism, Mode

__all__ = [
    "LIU_2019",
    "NEIGHBOURING",
    "AggregateMap",
    "LiuPrivacyLevels",
    "check_public_shape",
    "gaussian_release",
    "l1_sensitivity",
    "l2_sensitivity",
    "observer_record",
    "per_observer",
    "release_map",
]

NEIGHBOURING = ("replace one observer's capped gaze map on this stimulus by any map with entries "
                "in [0, cap]; the number of observers n and of cells r are public")


@dataclass(frozen=True, eq=False, kw_only=True)
class AggregateMap:
    """A released aggregate gaze map ``G`` (noisy or not), shape ``grid.shape``.

    ``values`` may be negative after additive noise; clip or render as post-processing.
    """

    values: np.ndarray
    stimulus: str
    grid: MapGrid
    n_observers: int
    cap: int
    noise_std: float = 0.0

    def __post_init__(self) -> None:
        v = np.array(self.values, dtype=np.float64)
        v.flags.writeable = False
        object.__setattr__(self, "values", v)


def check_public_shape(*, n_observers: int, n_cells: int) -> None:
    """Validate the public shape a privacy map needs."""
    check_int(n_observers=n_observers)
    check_int(n_cells=n_cells)


def l1_sensitivity(*, cap: int, n_observers: int, n_cells: int) -> float:
    """``m r / n``: the largest L1 change of the aggregate under replace-one."""
    return cap * n_cells / n_observers


def l2_sensitivity(*, cap: int, n_observers: int, n_cells: int) -> float:
    """``m sqrt(r) / n``: the largest L2 change of the aggregate under replace-one."""
    return cap * math.sqrt(n_cells) / n_observers


def per_observer(g: Guarantee) -> Guarantee:
    """Fill ``per_participant`` for one release: every observer contributed one map.

    Participant ids are deliberately not listed (they are not part of the release); a
    participant who appears in several released heatmaps composes sequentially over them.
    """
    return g.compose({"each observer": 1})


def observer_record(*, mechanism: str, kind: Kind, cap: int, n_observers: int, n_cells: int,
                    parameters: Mapping[str, object] | None = None, **fields: Any) -> Guarantee:
    """The record of one heatmap release, composed by :func:`per_observer`.

    Unit one observer's map (a recording), the replace-one relation :data:`NEIGHBOURING`, and
    ``parameters`` that start with the public ``cap``, ``n_observers`` and ``n_cells`` followed by
    the mechanism's own; ``fields`` go to :class:`~gazeprivacy.guarantees.Guarantee` unchanged.
    """
    g = Guarantee(mechanism=mechanism, kind=kind, unit=Unit.RECORDING, neighbouring=NEIGHBOURING,
                  parameters={"cap": cap, "n_observers": n_observers, "n_cells": n_cells,
                              **(parameters or {})}, **fields)
    return per_observer(g)


def release_map(maps: GazeMaps, values: np.ndarray, g: Guarantee, *, cap: int,
                noise_std: float = 0.0) -> Release[AggregateMap]:
    """Wrap released ``values`` on ``maps``' grid as an :class:`AggregateMap` with its record."""
    out = AggregateMap(values=values, stimulus=maps.stimulus, grid=maps.grid,
                       n_observers=maps.n_observers, cap=cap, noise_std=noise_std)
    return Release(out, g)


def gaussian_release(maps: GazeMaps, g: Guarantee, *, cap: int,
                     rng: np.random.Generator) -> Release[AggregateMap]:
    """Capped aggregate plus i.i.d. ``N(0, sigma^2)`` per cell, ``sigma`` from the record ``g``."""
    sigma = float(g.parameters["noise_std"])
    values = maps.aggregate(cap) + rng.normal(0.0, sigma, size=maps.grid.shape)
    return release_map(maps, values, g, cap=cap, noise_std=sigma)


#: The seed paper of the heatmap mechanisms.
LIU_2019 = ("Liu, Xia, Duchowski, Bailey, Holmqvist, Jain. Differential privacy for eye-tracking "
            "data. ETRA 2019")


class LiuPrivacyLevels:
    """The named (epsilon, delta) levels of Liu et al. (section 3.2), for approximate-DP params.

    A mixin of frozen parameter dataclasses with ``epsilon``, ``delta`` and ``cap`` fields.
    """

    __slots__ = ()

    @classmethod
    def okay(cls, *, n_observers: int, cap: int):
        """"Okay privacy": ``epsilon = 3``, ``delta = n^-1.5``."""
        check_int(n_observers=n_observers)
        return cls(epsilon=3.0, delta=n_observers ** -1.5, cap=cap)

    @classmethod
    def good(cls, *, n_observers: int, cap: int):
        """"Good privacy": ``epsilon = 1``, ``delta = n^-1.5``."""
        check_int(n_observers=n_observers)
        return cls(epsilon=1.0, delta=n_observers ** -1.5, cap=cap)


# ------------------------------------------------------------------------ registry entries

#: Why no heatmap mechanism has a partition plan.
HEATMAP_REFUSAL = ("it is a heatmap-level mechanism (one aggregate over all observers of a "
                   "stimulus; heatmap releases are not supported partition-wise)")


def example_maps(n_observers: int = 20) -> GazeMaps:
    """Tiny gaze maps of one stimulus (a 4 x 5 grid, counts 0..2) for examples and tests."""
    counts = np.random.default_rng(0).integers(0, 3, size=(n_observers, 4, 5))
    return GazeMaps(counts=counts, observers=tuple(f"o{i}" for i in range(n_observers)),
                    stimulus="s", grid=MapGrid(width_px=5, height_px=4))


def heatmap_entry(*, name: str, params_type: type, run: Callable[..., Release[AggregateMap]],
                  guarantee: Callable[..., Guarantee], summary: str, citation: str,
                  example_params: Callable[[Mode], Any]) -> Mechanism:
    """The registry entry of a heatmap mechanism (each module's ``SPEC``).

    ``run(maps, params, *, rng)`` and ``guarantee(params, *, n_observers, n_cells)`` are the
    module's own; the entry adapts them to the contract (``progress`` is accepted and unused;
    the privacy map reads a :class:`HeatmapShape`). ``example_params(mode)`` gives parameters
    for :func:`example_maps` (None when the mechanism has no such mode).
    """
    def protect(maps: GazeMaps, params: Any, *, rng: np.random.Generator,
                progress: bool = False) -> Release[AggregateMap]:
        del progress  # one vectorised release
        return run(maps, params, rng=rng)

    def shape_guarantee(params: Any, shape: HeatmapShape) -> Guarantee:
        return guarantee(params, n_observers=shape.n_observers, n_cells=shape.n_cells)

    def example(mode: Mode) -> tuple[GazeMaps, Any] | None:
        params = example_params(mode)
        return None if params is None else (example_maps(), params)

    protect.__doc__ = run.__doc__
    protect.__module__ = run.__module__  # the implementing module (audit adapters)
    shape_guarantee.__doc__ = guarantee.__doc__
    return Mechanism(name=name, level=Level.HEATMAP, params_type=params_type, run=protect,
                     guarantee=shape_guarantee, summary=summary, citation=citation,
                     partition_refusal=HEATMAP_REFUSAL, example=example)
