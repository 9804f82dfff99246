# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Steil et al.'s "exponential mechanism" on feature series, with subsampling (paper: guarantee
not established; sound: epsilon-LDP per feature series via Laplace).

Steil, Hagestedt, Huang, Bulling. Privacy-aware eye tracking using differential privacy. ETRA
2019 (seed 004), section 4.3, eqs. 4-8: per feature ``lambda_i = eps_i / (2 t_max delta_i)``;
draw one ``y ~ Exponential(scale 1 / lambda_i)`` per recording and feature; release
``r_j = p_j +/- ln(y) / (lambda_i t_max)`` with an independent random sign per element.
Subsampling: one random window per non-overlapping block of ``w`` (w = 10), drawn independently
per feature, so ``t_max`` (and the sensitivity) shrink by ``w``. Total: ``sum_i eps_i``.

Deviations: paper mode implements eqs. 4-8 exactly (``delta_i = max_i - min_i`` over all data,
``t_max`` = the longest subsampled series) and is flagged: every element moves by the *same*
magnitude ``|ln y| / (lambda_i t_max)``, which is not the exponential mechanism's output
distribution, so no epsilon-DP proof covers it. Sound mode (default) is the SPEC's alternative:
after the same subsampling, clip into declared ranges and add ``Lap(n_sub (hi - lo) / eps_i)``
per element (LPA with the sensitivity of the subsampled series). The output has
``ceil(n / w)`` windows (block start times), not n. See docs/privacy/series_steil_exponential.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gazeprivacy._validation import check_int, check_positive
from gazeprivacy.features.ranges import FeatureRange
from gazeprivacy.features.window_features import FeatureSeries
from gazeprivacy.guarantees import Flag, FlagCode, Guarantee, Release, Unit
from gazeprivacy.mechanisms.contract import Mode
from gazeprivacy.mechanisms.series import _core

__all__ = [
    "SPEC", "SteilParams", "guarantee", "paper_lambda", "steil_exponential", "subsample"]


@dataclass(frozen=True, kw_only=True)
class SteilParams:
    """Settings of seed 004's mechanism.

    Parameters
    ----------
    epsilon : float
        ``eps_i``, the budget per feature series of one recording (> 0); the paper's total is
        ``sum_i eps_i`` over the features.
    subsample_w : int
        Subsampling block length ``w`` (seed 004: 10; 1 = no subsampling).
    mode : {"sound", "paper"}
    ranges : mapping, optional
        Declared ranges (sound mode).
    """

    epsilon: float
    subsample_w: int = 10
    mode: Mode = Mode.SOUND
    ranges: Mapping[str, FeatureRange] | None = None

    def __post_init__(self) -> None:
        check_positive(epsilon=self.epsilon)
        check_int(subsample_w=self.subsample_w)
        _core.check_mode(self)

    @classmethod
    def paper(cls, *, epsilon: float, **kw: Any) -> SteilParams:
        """Seed 004's values: w = 10.

        Sets values only; pass ``mode="paper"`` for eqs. 4-8 as printed (data-driven ranges)."""
        return cls(epsilon=epsilon, **{"subsample_w": 10, **kw})


def paper_lambda(epsilon: float, t_max: int, delta: float) -> float:
    """``lambda_i = eps_i / (2 t_max delta_i)`` (seed 004, after eq. 7).

    >>> paper_lambda(1.0, 10, 0.5)
    0.1
    """
    return epsilon / (2.0 * t_max * delta)


def subsample(values: np.ndarray, w: int, rng: np.random.Generator) -> tuple[np.ndarray,
                                                                             np.ndarray]:
    """One random row per non-overlapping block of ``w`` rows, independently per column.

    Returns ``(sub, block_index)``: (ceil(n / w), F) values and the first row of each block.
    """
    n, F = values.shape
    blocks = math.ceil(n / w)
    starts = np.arange(blocks) * w
    sizes = np.minimum(w, n - starts)
    offs = np.floor(rng.random((blocks, F)) * sizes[:, None]).astype(np.int64)
    return values[starts[:, None] + offs, np.arange(F)[None, :]], starts


def guarantee(params: SteilParams, shape: _core.SeriesShape) -> Guarantee:
    """The privacy map (reads only the public shape)."""
    flags: list[Flag] = []
    if params.mode is Mode.PAPER:
        flags.append(Flag(FlagCode.PROOF_GAP,
                          "seed 004 eqs. 4-8 release p +/- ln(y)/(lambda t_max) with one y per "
                          "series: all elements move by the same magnitude; this is not the "
                          "exponential mechanism and no epsilon-DP proof covers it"))
    g = _core.series_guarantee(
        mechanism="series-steil-exponential", params=params, shape=shape, unit=Unit.SERIES,
        units_per_series=lambda n: 1, epsilon=params.epsilon, mode=params.mode,
        parameters={"epsilon_per_feature": params.epsilon, "subsample_w": params.subsample_w,
                    "noise": "seed 004 eqs. 4-8" if params.mode is Mode.PAPER
                    else "Laplace n_sub (hi - lo) / epsilon"},
        extra_flags=flags,
        paper_claim="seed 004: the released data of the whole dataset is sum_i eps_i-private "
                    f"(52 features: {52 * params.epsilon:g})",
        notes=("per participant: eps_i x features x recordings (each recording is a separate "
               "series release)",))
    return g


def steil_exponential(series: Sequence[FeatureSeries], params: SteilParams, *,
                      rng: np.random.Generator) -> Release[list[FeatureSeries]]:
    """Subsample and perturb every feature series (output: ceil(n / w) windows per recording).

    Examples
    --------
    >>> s = FeatureSeries(recording="r", participant="p", t_start=np.arange(20.0),
    ...                   values=np.ones((20, 1)), feature_names=("f",))
    >>> rel = steil_exponential([s], SteilParams(epsilon=1.0,
    ...     ranges={"f": FeatureRange(0, 2, "cap", "")}), rng=np.random.default_rng(1))
    >>> rel.output[0].n_windows
    2
    """
    series = _core.check_series(series)
    w = params.subsample_w
    sub_rngs = rng.spawn(2)
    subs = []
    for s, child in zip(series, sub_rngs[0].spawn(len(series)), strict=True):
        v, starts = subsample(s.values, w, child)
        subs.append(s.with_values(v, t_start=s.t_start[starts]))
    noise_rng = sub_rngs[1]
    out = []
    if params.mode is Mode.PAPER:
        _core.warn_paper("series-steil-exponential")
        allv = np.concatenate([s.values for s in series])
        delta = allv.max(axis=0) - allv.min(axis=0)
        delta = np.where(delta > 0, delta, 1e-12)
        t_max = max(s.n_windows for s in subs)
        lam = paper_lambda(params.epsilon, t_max, delta)
        for s in subs:
            n, F = s.values.shape
            y = noise_rng.exponential(1.0 / lam, size=F)
            sign = np.where(noise_rng.random((n, F)) < 0.5, -1.0, 1.0)
            out.append(s.with_values(s.values + sign * (np.log(y) / (lam * t_max))[None, :]))
    else:
        lo, hi = _core.bounds_for(series, params.ranges)
        for s in subs:
            v = _core.clip(s.values, lo, hi)
            scale = s.n_windows * (hi - lo) / params.epsilon
            out.append(s.with_values(v + _core.laplace(noise_rng, scale, v.shape[::-1]).T))
    return Release(out, guarantee(params, _core.SeriesShape.of(out)))


SPEC = _core.series_entry(
    "series-steil-exponential", guarantee, SteilParams, steil_exponential,
    "subsampling + Steil et al.'s exponential-mechanism noise", _core.SEED004)
