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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from gazeprivacy._validation import check_int, check_positive
from gazeprivacy.features.ranges import FeatureRange
from gazeprivacy.features.window_features import FeatureSeries
from gazeprivacy.guarantees import Guarantee, Release, Unit
from gazeprivacy.mechanisms.series import _core

__all__ = ["DCFPAParams", "dcfpa", "guarantee", "n_chunks"]


@dataclass(frozen=True, kw_only=True)
class DCFPAParams:
    """DCFPA settings.

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
    def paper(cls, *, epsilon: float, chunk_size: int) -> DCFPAParams:
        """Seed 002: data-driven chunk sensitivities per document type, k tuned per chunk."""
        return cls(epsilon=epsilon, chunk_size=chunk_size, k="tuned", mode="paper",
                   sensitivity_group="document")


def n_chunks(n_windows: int, chunk_size: int) -> int:
    """Chunks of a series (the last may be shorter).

    >>> n_chunks(100, 32)
    4
    """
    return -(-n_windows // chunk_size)


def guarantee(params: DCFPAParams, shape: _core.SeriesShape) -> Guarantee:
    """The privacy map (reads only the public shape)."""
    c = params.chunk_size
    return _core.series_guarantee(
        mechanism="dcfpa", params=params, shape=shape, unit=Unit.CHUNK,
        units_per_series=lambda n: n_chunks(n, c), epsilon=params.epsilon, mode=params.mode,
        parameters={"epsilon": params.epsilon, "chunk_size": c, "k": params.k,
                    "differences": True, "scale": "sqrt(L) sqrt(2k-1) Delta_2 / epsilon",
                    "sensitivity_group": params.sensitivity_group},
        extra_flags=_core.k_flags(params.k),
        paper_claim=("seed 002: epsilon-DP by Theorem 1 when consecutive differences are "
                     "assumed independent"),
        notes=("per participant the chunks, features and recordings compose sequentially: "
               "epsilon x chunks x features x recordings",))


def dcfpa(series: Sequence[FeatureSeries], params: DCFPAParams, *,
        rng: np.random.Generator) -> Release[list[FeatureSeries]]:
    """Release every chunk of every feature series (same windows, same order)."""
    out, _ = _core.transform_release(
        series, epsilon=params.epsilon, k=params.k, mode=params.mode, ranges=params.ranges,
        sensitivity_group=params.sensitivity_group,
        chunk=params.chunk_size, difference=True, transform="dft", rng=rng, name="dcfpa")
    return Release(out, guarantee(params, _core.SeriesShape.of(out)))
