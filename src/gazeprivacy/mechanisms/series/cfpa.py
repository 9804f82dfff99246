# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""CFPA: epsilon-LDP per chunk of a feature series (chunk-based FPA).

Bozkir, Günlü, Fuhl, Schaefer, Kasneci. Differential privacy for eye tracking with temporal
correlations. PLOS ONE 16(8): e0255979, 2021 (seed 002). Split each series into chunks of 32 / 64
/ 128 windows and apply the FPA per chunk with chunk sensitivities.

Deviations: the FPA scale is the one for what the code does, ``sqrt(L) sqrt(2k - 1) Delta_2 /
epsilon`` (see :mod:`gazeprivacy.mechanisms.series.fpa`). Seed 002 invokes parallel composition
across the chunks of one signal; the chunks of one participant are not disjoint sets of
individuals, so the record composes them sequentially: per participant epsilon x chunks x features
x recordings. Sound mode (default) clips into declared ranges with ``Delta_2 = sqrt(L)(hi - lo)``
per chunk of length L and a fixed ``k``; paper mode uses the data-driven per-chunk Delta_2 of eq.
7 over the recordings of one group and may tune ``k`` per chunk (flagged). A last chunk shorter
than the chunk size is released on its own with its own length. See docs/privacy/series_cfpa.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from gazeprivacy._validation import check_int, check_positive
from gazeprivacy.features.ranges import FeatureRange
from gazeprivacy.features.window_features import FeatureSeries
from gazeprivacy.guarantees import Guarantee, Release, Unit
from gazeprivacy.mechanisms.series import _core

__all__ = ["CFPAParams", "cfpa", "guarantee", "n_chunks"]


@dataclass(frozen=True, kw_only=True)
class CFPAParams:
    """CFPA settings.

    Parameters
    ----------
    epsilon : float
        Budget per chunk of one feature series (> 0).
    chunk_size : int
        Windows per chunk (seed 002: 32, 64 or 128).
    k : int, float or "tuned"
        Coefficients kept per chunk (count capped at the chunk length, fraction, or "tuned").
    mode, ranges, sensitivity_group
        As in :class:`~gazeprivacy.mechanisms.series.fpa.FPAParams`.
    """

    epsilon: float
    chunk_size: int
    k: int | float | str = 0.1
    mode: str = "sound"
    ranges: Mapping[str, FeatureRange] | None = None
    sensitivity_group: str | None = None

    def __post_init__(self) -> None:
        check_positive(epsilon=self.epsilon)
        check_int(minimum=2, chunk_size=self.chunk_size)
        _core.check_mode(self.mode)
        _core.check_k(self.k)

    @classmethod
    def paper(cls, *, epsilon: float, chunk_size: int) -> CFPAParams:
        """Seed 002: data-driven chunk sensitivities per document type, k tuned per chunk."""
        return cls(epsilon=epsilon, chunk_size=chunk_size, k="tuned", mode="paper",
                   sensitivity_group="document")


def n_chunks(n_windows: int, chunk_size: int) -> int:
    """Chunks of a series (the last may be shorter).

    >>> n_chunks(100, 32)
    4
    """
    return -(-n_windows // chunk_size)


def guarantee(params: CFPAParams, shape: _core.SeriesShape) -> Guarantee:
    """The privacy map (reads only the public shape)."""
    c = params.chunk_size
    return _core.series_guarantee(
        mechanism="cfpa", params=params, shape=shape, unit=Unit.CHUNK,
        units_per_series=lambda n: n_chunks(n, c), epsilon=params.epsilon, mode=params.mode,
        parameters={"epsilon": params.epsilon, "chunk_size": c, "k": params.k,
                    "differences": False, "scale": "sqrt(L) sqrt(2k-1) Delta_2 / epsilon",
                    "sensitivity_group": params.sensitivity_group},
        extra_flags=_core.k_flags(params.k),
        paper_claim=("seed 002: epsilon-DP for the complete signal by parallel composition "
                     "over non-overlapping chunks (Theorem 2)"),
        notes=("per participant the chunks, features and recordings compose sequentially: "
               "epsilon x chunks x features x recordings",))


def cfpa(series: Sequence[FeatureSeries], params: CFPAParams, *,
        rng: np.random.Generator) -> Release[list[FeatureSeries]]:
    """Release every chunk of every feature series (same windows, same order)."""
    out, _ = _core.transform_release(
        series, epsilon=params.epsilon, k=params.k, mode=params.mode, ranges=params.ranges,
        sensitivity_group=params.sensitivity_group,
        chunk=params.chunk_size, difference=False, transform="dft", rng=rng, name="cfpa")
    return Release(out, guarantee(params, _core.SeriesShape.of(out)))
