# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Random selection rs1(c) / rs2(c): aggregate a random subset of maps. NOT private.

Liu, Xia, Duchowski, Bailey, Holmqvist, Jain. Differential privacy for eye-tracking data.
ETRA 2019, https://doi.org/10.1145/3314111.3319823, section 3.4, Theorems 3.2 (rs1, without
replacement) and 3.3 (rs2, with replacement; proof in appendix A.1).

``rs1(c)`` averages ``k = round(c n)`` maps drawn without replacement, ``rs2(c)`` ``k`` maps drawn
with replacement. Sampling noise is not privacy: with one cell, observer ``i`` the only one who
looked there (``G_i = 1``, all others 0), the output ``1/k`` (rs1) or any output ``>= 1/k``
(rs2) has probability ``k/n = c`` (rs1) or ``1 - (1 - 1/n)^k ~ 1 - e^-c`` (rs2), and probability 0
when ``G_i = 0``; so ``delta >= c`` (poor privacy). :func:`distinguishing_probability` gives these
probabilities; the tests exhibit the event by simulation. The record is of kind ``"none"``.

Deviations: the paper assumes ``c n`` is an integer; here ``k = max(1, round(c n))`` and the
record states ``k``. See docs/privacy/heatmap-baselines.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

import numpy as np

from gazeprivacy._validation import check_int, check_range
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.features.gaze_maps import GazeMaps
from gazeprivacy.guarantees import Flag, FlagCode, Guarantee, Kind, Release, Unit
from gazeprivacy.mechanisms.contract import Mode
from gazeprivacy.mechanisms.heatmaps._base import (
    LIU_2019,
    NEIGHBOURING,
    AggregateMap,
    check_public_shape,
    heatmap_entry,
    per_observer,
    release_map,
)

__all__ = [
    "RS1Params",
    "RS2Params",
    "distinguishing_probability",
    "guarantee",
    "n_selected",
    "rs1",
    "rs2",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class _SelectionParams:
    """Fields and checks shared by :class:`RS1Params` and :class:`RS2Params` (not siblings'
    instances: each mechanism accepts only its own type)."""

    cap: int
    fraction: float

    def __post_init__(self) -> None:
        check_int(cap=self.cap)
        check_range(fraction=self.fraction, lo=0.0, hi=1.0, lo_open=True)

    @classmethod
    def paper(cls, *, fraction: float) -> Self:
        """Cap ``m = 1`` as in the paper's Figure 3; ``c`` from the caller."""
        return cls(cap=1, fraction=fraction)


@dataclass(frozen=True, slots=True, kw_only=True)
class RS1Params(_SelectionParams):
    """rs1(c): ``round(c n)`` maps without replacement.

    Parameters
    ----------
    cap : int
        ``m`` (>= 1).
    fraction : float
        ``c`` in (0, 1].
    """


@dataclass(frozen=True, slots=True, kw_only=True)
class RS2Params(_SelectionParams):
    """rs2(c): ``round(c n)`` maps with replacement (same fields as :class:`RS1Params`)."""


def n_selected(fraction: float, n_observers: int) -> int:
    """``k = max(1, round(c n))``.

    >>> n_selected(0.1, 15)
    2
    """
    return max(1, round(fraction * n_observers))


def distinguishing_probability(params: RS1Params | RS2Params, *, n_observers: int) -> float:
    """Probability of the proofs' event when ``G_i = 1`` (it is 0 when ``G_i = 0``).

    rs1: ``P[output = 1/k] = k / n``; rs2: ``P[output >= 1/k] = 1 - (1 - 1/n)^k``. Either is a
    lower bound on ``delta`` for every ``epsilon``.

    >>> round(distinguishing_probability(RS2Params(cap=1, fraction=0.5), n_observers=10), 4)
    0.4095
    """
    check_int(n_observers=n_observers)
    k = n_selected(params.fraction, n_observers)
    if isinstance(params, RS1Params):
        return k / n_observers
    return 1.0 - (1.0 - 1.0 / n_observers) ** k


def guarantee(params: RS1Params | RS2Params, *, n_observers: int, n_cells: int) -> Guarantee:
    """Privacy map: none (never reads data); the flag gives the lower bound on delta.

    >>> g = guarantee(RS1Params(cap=1, fraction=0.2), n_observers=10, n_cells=4)
    >>> g.kind.value, g.parameters["n_selected"]
    ('none', 2)
    """
    check_public_shape(n_observers=n_observers, n_cells=n_cells)
    rs1_ = isinstance(params, RS1Params)
    name = "heatmap-rs1" if rs1_ else "heatmap-rs2"
    k = n_selected(params.fraction, n_observers)
    p = distinguishing_probability(params, n_observers=n_observers)
    thm = "Theorem 3.2" if rs1_ else "Theorem 3.3"
    event = f"output = 1/{k}" if rs1_ else f"output >= 1/{k}"
    g = Guarantee(
        mechanism=name, kind=Kind.NONE, unit=Unit.RECORDING, neighbouring=NEIGHBOURING,
        parameters={"cap": params.cap, "fraction": params.fraction, "n_selected": k,
                    "with_replacement": not rs1_, "n_observers": n_observers,
                    "n_cells": n_cells},
        flags=(Flag(FlagCode.NOT_PRIVATE,
                    f"random selection is sampling, not privacy ({thm}): with one observer the "
                    f"only one to look at a cell, the event '{event}' has probability {p:.3g} "
                    "when that observer looked and 0 when not, so delta >= "
                    f"{p:.3g} for every epsilon"),),
        paper_claim=f"poor privacy (delta >= c), {thm}",
    )
    return per_observer(g)


def _select(maps: GazeMaps, params: RS1Params | RS2Params, *, rng: np.random.Generator,
            replace: bool) -> Release[AggregateMap]:
    n = maps.n_observers
    k = n_selected(params.fraction, n)
    if not replace and k > n:
        raise InvalidParameterError(f"rs1 cannot select {k} of {n} maps without replacement")
    idx = rng.choice(n, size=k, replace=replace)
    values = maps.capped(params.cap)[idx].sum(axis=0, dtype=np.float64) / k
    return release_map(maps, values, guarantee(params, n_observers=n, n_cells=maps.n_cells),
                       cap=params.cap)


def rs1(maps: GazeMaps, params: RS1Params, *, rng: np.random.Generator) -> Release[AggregateMap]:
    """Average of ``round(c n)`` capped maps drawn without replacement (NOT private).

    Examples
    --------
    >>> from gazeprivacy.features.gaze_maps import MapGrid
    >>> maps = GazeMaps(counts=np.array([[[1]], [[0]], [[0]], [[0]]]), observers="abcd",
    ...                 stimulus="s", grid=MapGrid(width_px=1, height_px=1))
    >>> out = rs1(maps, RS1Params(cap=1, fraction=0.5), rng=np.random.default_rng(0)).output
    >>> float(out.values[0, 0]) in (0.0, 0.5)
    True
    """
    if not isinstance(params, RS1Params):
        raise InvalidParameterError(f"rs1 needs RS1Params, got {type(params).__name__}")
    return _select(maps, params, rng=rng, replace=False)


def rs2(maps: GazeMaps, params: RS2Params, *, rng: np.random.Generator) -> Release[AggregateMap]:
    """Average of ``round(c n)`` capped maps drawn with replacement (NOT private)."""
    if not isinstance(params, RS2Params):
        raise InvalidParameterError(f"rs2 needs RS2Params, got {type(params).__name__}")
    return _select(maps, params, rng=rng, replace=True)


RS1_SPEC = heatmap_entry(
    name="heatmap-rs1",
    params_type=RS1Params,
    run=rs1,
    guarantee=guarantee,
    summary="aggregate of round(c n) maps drawn without replacement; NOT private (Thm 3.2)",
    citation=LIU_2019,
    example_params=lambda mode: RS1Params(cap=1, fraction=0.5) if mode is Mode.BASELINE else None,
)


RS2_SPEC = heatmap_entry(
    name="heatmap-rs2",
    params_type=RS2Params,
    run=rs2,
    guarantee=guarantee,
    summary="aggregate of round(c n) maps drawn with replacement; NOT private (Thm 3.3)",
    citation=LIU_2019,
    example_params=lambda mode: RS2Params(cap=1, fraction=0.5) if mode is Mode.BASELINE else None,
)
