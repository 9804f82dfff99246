# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DCT perturbation: epsilon-LDP per feature series via an orthonormal DCT-II.

A clean alternative to the FPA named in SPEC section 5, after Rastogi & Nath (SIGMOD 2010) and
Bozkir, Günlü et al. (PLOS ONE 2021, seed 002), who cite DCT-based transform coding (Günlü and
Iscan, ICASSP 2014): orthonormal DCT-II, keep the ``k`` lowest coefficients, add
``Lap(sqrt(k) Delta_2 / epsilon)`` to each, zero-pad, inverse DCT.

Deviations: not in the papers. The transform is orthonormal and real, so the kept coefficients'
L2 change is at most Delta_2 and their L1 change at most ``sqrt(k) Delta_2``; no ``sqrt(n)`` and no
complex parts. Sound mode clips into declared ranges (``Delta_2 = sqrt(n)(hi - lo)``); paper mode
uses seed 002's data-driven Delta_2 (flagged). See docs/privacy/series_dct.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gazeprivacy._validation import check_int, check_positive
from gazeprivacy.features.ranges import FeatureRange
from gazeprivacy.features.window_features import FeatureSeries
from gazeprivacy.guarantees import Guarantee, Release, Unit
from gazeprivacy.mechanisms.contract import Mode
from gazeprivacy.mechanisms.series import _core

__all__ = [
    "SPEC", "DCTParams", "dct", "guarantee", "noise_scale"]


@dataclass(frozen=True, kw_only=True)
class DCTParams:
    """DCT settings (fields as in :class:`~gazeprivacy.mechanisms.series.fpa.FPAParams`;
    ``chunk_size`` optionally applies it per chunk, like CFPA)."""

    epsilon: float
    k: int | float | str = 0.1
    mode: Mode = Mode.SOUND
    ranges: Mapping[str, FeatureRange] | None = None
    sensitivity_group: str | None = None
    chunk_size: int | None = None

    def __post_init__(self) -> None:
        check_positive(epsilon=self.epsilon)
        _core.check_mode(self)
        _core.check_k(self.k)
        if self.chunk_size is not None:
            check_int(minimum=2, chunk_size=self.chunk_size)

    @classmethod
    def paper(cls, *, epsilon: float, **kw: Any) -> DCTParams:
        """Seed 002's protocol applied to the DCT: k tuned on the data, Delta_2 per document.

        Sets values only; pass ``mode="paper"`` for the paper's data-driven sensitivities."""
        return cls(epsilon=epsilon, **{"k": "tuned", "sensitivity_group": "document", **kw})


def noise_scale(k: int, delta_2: float, epsilon: float) -> float:
    """``sqrt(k) Delta_2 / epsilon``.

    >>> noise_scale(4, 3.0, 2.0)
    3.0
    """
    return float(np.sqrt(k) * delta_2 / epsilon)


def guarantee(params: DCTParams, shape: _core.SeriesShape) -> Guarantee:
    """The privacy map (reads only the public shape)."""
    c = params.chunk_size
    return _core.series_guarantee(
        mechanism="series-dct", params=params, shape=shape,
        unit=Unit.SERIES if c is None else Unit.CHUNK,
        units_per_series=(lambda n: 1) if c is None else (lambda n: -(-n // c)),
        epsilon=params.epsilon, mode=params.mode,
        parameters={"epsilon": params.epsilon, "k": params.k, "chunk_size": c,
                    "transform": "orthonormal DCT-II", "scale": "sqrt(k) Delta_2 / epsilon",
                    "sensitivity_group": params.sensitivity_group},
        extra_flags=_core.k_flags(params.k),
        paper_claim="not in the papers (SPEC section 5 alternative to the FPA)")


def dct(series: Sequence[FeatureSeries], params: DCTParams, *,
        rng: np.random.Generator) -> Release[list[FeatureSeries]]:
    """Release every feature series (or chunk) through the truncated orthonormal DCT."""
    out, _ = _core.transform_release(
        series, epsilon=params.epsilon, k=params.k, mode=params.mode, ranges=params.ranges,
        sensitivity_group=params.sensitivity_group,
        chunk=params.chunk_size, difference=False, transform="dct", rng=rng, name="series-dct")
    return Release(out, guarantee(params, _core.SeriesShape.of(out)))


SPEC = _core.series_entry(
    "series-dct", guarantee, DCTParams, dct,
    "orthonormal DCT-II perturbation (k coefficients)", _core.SEED002 + " (variant)", k=4)
