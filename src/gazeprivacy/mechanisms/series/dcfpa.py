# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DCFPA: epsilon-LDP per chunk of a feature series (difference- and chunk-based FPA).

Bozkir, Günlü, Fuhl, Schaefer, Kasneci. Differential privacy for eye tracking with temporal
correlations. PLOS ONE 16(8): e0255979, 2021 (seed 002). Within each chunk keep the first value
and take consecutive differences (eq. 16), apply the FPA to the difference signal with difference
sensitivities, and sum back (Algorithm 1).

Deviations: the FPA scale is the one for what the code does, ``sqrt(L) sqrt(2k - 1) Delta_2 /
epsilon`` (see :mod:`gazeprivacy.mechanisms.series.fpa`). The differencing is a bijection of the
chunk, so the chunk release is epsilon-LDP without the paper's independence assumption; temporal
correlation between chunks still matters for what an adversary infers, not for the epsilon
statement. Chunks, features and recordings of one participant compose sequentially. Sound mode
(default) clips into declared ranges with ``Delta_2 = (hi - lo) sqrt(4L - 3)`` per chunk of length
L (first value within w, each difference within 2w) and a fixed ``k``; paper mode uses the data-
driven per-chunk Delta_2 of eq. 7 over the recordings of one group and may tune ``k`` per chunk
(flagged). A last chunk shorter than the chunk size is released on its own with its own length.
See docs/privacy/series_dcfpa.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gazeprivacy.features.window_features import FeatureSeries
from gazeprivacy.guarantees import Guarantee, Release
from gazeprivacy.mechanisms.series import _core

__all__ = [
    "SPEC", "DCFPAParams", "dcfpa", "guarantee", "n_chunks"]


@dataclass(frozen=True, kw_only=True)
class DCFPAParams(_core.ChunkParams):
    """DCFPA settings (fields as in :class:`~gazeprivacy.mechanisms.series.cfpa.CFPAParams`)."""


n_chunks = _core.n_chunks


def guarantee(params: DCFPAParams, shape: _core.SeriesShape) -> Guarantee:
    """The privacy map (reads only the public shape)."""
    return _core.chunk_guarantee(
        params, shape, mechanism="series-dcfpa", difference=True,
        paper_claim=("seed 002: epsilon-DP by Theorem 1 when consecutive differences are "
                     "assumed independent"))


def dcfpa(series: Sequence[FeatureSeries], params: DCFPAParams, *,
        rng: np.random.Generator) -> Release[list[FeatureSeries]]:
    """Release every chunk of every feature series (same windows, same order)."""
    out, _ = _core.transform_release(
        series, epsilon=params.epsilon, k=params.k, mode=params.mode, ranges=params.ranges,
        sensitivity_group=params.sensitivity_group,
        chunk=params.chunk_size, difference=True, transform="dft", rng=rng, name="series-dcfpa")
    return Release(out, guarantee(params, _core.SeriesShape.of(out)))


SPEC = _core.series_entry(
    "series-dcfpa", guarantee, DCFPAParams, dcfpa,
    "FPA on within-chunk differences", _core.SEED002, chunk_size=16, k=4)
