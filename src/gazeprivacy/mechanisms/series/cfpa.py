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

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gazeprivacy.features.window_features import FeatureSeries
from gazeprivacy.guarantees import Guarantee, Release
from gazeprivacy.mechanisms.series import _core

__all__ = [
    "SPEC", "CFPAParams", "cfpa", "guarantee", "n_chunks"]


@dataclass(frozen=True, kw_only=True)
class CFPAParams(_core.ChunkParams):
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


n_chunks = _core.n_chunks


def guarantee(params: CFPAParams, shape: _core.SeriesShape) -> Guarantee:
    """The privacy map (reads only the public shape)."""
    return _core.chunk_guarantee(
        params, shape, mechanism="series-cfpa", difference=False,
        paper_claim=("seed 002: epsilon-DP for the complete signal by parallel composition "
                     "over non-overlapping chunks (Theorem 2)"))


def cfpa(series: Sequence[FeatureSeries], params: CFPAParams, *,
        rng: np.random.Generator) -> Release[list[FeatureSeries]]:
    """Release every chunk of every feature series (same windows, same order)."""
    out, _ = _core.transform_release(
        series, epsilon=params.epsilon, k=params.k, mode=params.mode, ranges=params.ranges,
        sensitivity_group=params.sensitivity_group,
        chunk=params.chunk_size, difference=False, transform="dft", rng=rng, name="series-cfpa")
    return Release(out, guarantee(params, _core.SeriesShape.of(out)))


SPEC = _core.series_entry(
    "series-cfpa", guarantee, CFPAParams, cfpa,
    "FPA per chunk of 32/64/128 windows", _core.SEED002, chunk_size=16, k=4)
