# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Gaussian heatmap mechanism (Theorem 3.4): (epsilon, delta)-DP per observer map.

Liu, Xia, Duchowski, Bailey, Holmqvist, Jain. Differential privacy for eye-tracking data.
ETRA 2019, https://doi.org/10.1145/3314111.3319823, section 3.5.1, Theorem 3.4: i.i.d.
``N(0, sigma_N^2)`` noise on every cell of the capped aggregate with

    sigma_N = (m / (n epsilon)) sqrt(r (epsilon / 2 + ln(r / delta))).

Deviations: the paper's proof bounds the L2 norm of an r-dimensional Gaussian by a union bound
over single pixels at the same threshold, which does not hold (a norm above ``t`` only forces some
coordinate above ``t / sqrt(r)``); the theorem itself therefore has no valid proof. We check it
exactly instead: the Gaussian mechanism with L2 sensitivity ``Delta = m sqrt(r) / n`` and noise
``sigma`` is (epsilon, delta')-DP with ``delta'`` from Balle & Wang (2018, Theorem 8), a function
of public quantities only. In the paper's regime (r large against 1/delta, e.g. images of
10^5-10^6 pixels) ``delta' <= delta`` for every epsilon we tried, also for epsilon >= 1 (the
``epsilon < 1`` condition of the classical Gaussian mechanism does not apply to this bound); for
small ``r`` it fails (r = 1, n = 50 000: delta' = 1.9e-6 against delta = 8.9e-8 at epsilon = 1).
Sound mode (default) raises :class:`Theorem34RangeError` when ``delta' > delta`` and suggests
``analytic-gaussian``; paper mode releases with the printed sigma and flags the proof gap with the
exact ``delta'``. Noise: ``numpy.random.Generator.normal`` in floating point (not hardened
against the Mironov 2012 floating-point attacks). See docs/privacy/heatmap-gaussian.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from gazeprivacy._validation import check_int, check_positive, check_probability
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.features.gaze_maps import GazeMaps
from gazeprivacy.guarantees import Flag, FlagCode, Guarantee, Kind, Release
from gazeprivacy.mechanisms.contract import Mode, coerce_option
from gazeprivacy.mechanisms.heatmaps._base import (
    LIU_2019,
    AggregateMap,
    LiuPrivacyLevels,
    check_public_shape,
    gaussian_release,
    heatmap_entry,
    l2_sensitivity,
    observer_record,
)
from gazeprivacy.mechanisms.noise.analytic_gaussian import gaussian_delta

__all__ = [
    "GaussianParams",
    "Theorem34RangeError",
    "gaussian",
    "guarantee",
    "noise_std",
    "theorem_3_4_sigma",
]

# Relative slack for comparing the exact delta' with the requested delta (float round-off only).
_DELTA_RTOL = 1e-9


class Theorem34RangeError(InvalidParameterError):
    """Theorem 3.4's sigma does not give the requested (epsilon, delta) for this shape."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GaussianParams(LiuPrivacyLevels):
    """Parameters of the Theorem 3.4 Gaussian mechanism.

    Parameters
    ----------
    epsilon : float
        > 0.
    delta : float
        In (0, 1); the paper's privacy levels use ``n^-1.5`` (presets :meth:`okay`,
        :meth:`good`).
    cap : int
        ``m`` (>= 1): a public bound; choosing it with Algorithm 1 reads the data
        (:mod:`gazeprivacy.mechanisms.heatmaps.cap`).
    mode : {"sound", "paper"}
        See the module docstring.
    """

    epsilon: float
    delta: float
    cap: int
    mode: Mode = Mode.SOUND

    def __post_init__(self) -> None:
        check_positive(epsilon=self.epsilon)
        check_probability(delta=self.delta)
        check_int(cap=self.cap)
        object.__setattr__(self, "mode", coerce_option("mode", self.mode, Mode,
                                                       (Mode.SOUND, Mode.PAPER)))

    @classmethod
    def paper(cls, *, epsilon: float, n_observers: int, cap: int = 1,
              **kw: Any) -> GaussianParams:
        """The paper's Figure 3 values: ``delta = n^-1.5``, cap 1 (Algorithm 1's choice there).

        Sets values only; pass ``mode="paper"`` for Theorem 3.4's sigma even where it falls
        short of ``delta``."""
        check_int(n_observers=n_observers)
        return cls(epsilon=epsilon, delta=n_observers ** -1.5, cap=cap, **kw)


def theorem_3_4_sigma(*, epsilon: float, delta: float, cap: int, n_observers: int,
                      n_cells: int) -> float:
    """``sigma_N = (m / (n epsilon)) sqrt(r (epsilon / 2 + ln(r / delta)))`` (Theorem 3.4).

    >>> round(theorem_3_4_sigma(epsilon=1.5, delta=50_000 ** -1.5, cap=1, n_observers=50_000,
    ...                         n_cells=1050 * 1680), 4)
    0.0992
    """
    check_positive(epsilon=epsilon)
    check_probability(delta=delta)
    check_public_shape(n_observers=n_observers, n_cells=n_cells)
    return (cap / (n_observers * epsilon)) * math.sqrt(
        n_cells * (epsilon / 2.0 + math.log(n_cells / delta)))


def noise_std(params: GaussianParams, *, n_observers: int, n_cells: int) -> float:
    """Per-cell noise standard deviation (``sigma_N``)."""
    return theorem_3_4_sigma(epsilon=params.epsilon, delta=params.delta, cap=params.cap,
                             n_observers=n_observers, n_cells=n_cells)


def guarantee(params: GaussianParams, *, n_observers: int, n_cells: int) -> Guarantee:
    """Privacy map (never reads data): the requested (epsilon, delta), checked exactly.

    Raises
    ------
    Theorem34RangeError
        Sound mode, when Theorem 3.4's sigma gives ``delta' > delta``.

    Examples
    --------
    >>> g = guarantee(GaussianParams(epsilon=1.0, delta=1e-6, cap=1), n_observers=1000,
    ...               n_cells=10_000)
    >>> g.kind.value, g.formally_private
    ('(epsilon,delta)-DP', True)
    >>> guarantee(GaussianParams(epsilon=1.0, delta=1e-6, cap=1), n_observers=1000, n_cells=1)
    Traceback (most recent call last):
    ...
    gazeprivacy.mechanisms.heatmaps.gaussian.Theorem34RangeError: Gaussian (Theorem 3.4) ...
    """
    check_public_shape(n_observers=n_observers, n_cells=n_cells)
    sigma = noise_std(params, n_observers=n_observers, n_cells=n_cells)
    sens = l2_sensitivity(cap=params.cap, n_observers=n_observers, n_cells=n_cells)
    actual = gaussian_delta(epsilon=params.epsilon, sigma=sigma, sensitivity=sens)
    holds = actual <= params.delta * (1.0 + _DELTA_RTOL)
    if not holds and params.mode is Mode.SOUND:
        raise Theorem34RangeError(
            f"Gaussian (Theorem 3.4) with epsilon={params.epsilon:g}, delta={params.delta:.3g}, "
            f"r={n_cells} cells, n={n_observers} gives sigma={sigma:.4g}, which is only "
            f"(epsilon, {actual:.3g})-DP by the exact Gaussian profile (Balle & Wang 2018); the "
            "paper's proof does not cover this shape. Use mechanism='analytic-gaussian' (or "
            "mode='paper' to reproduce the printed noise with a proof-gap flag)")
    flags: tuple[Flag, ...] = ()
    notes = [f"exact check (Balle & Wang 2018, Theorem 8): sigma={sigma:.6g} with L2 "
             f"sensitivity {sens:.6g} gives delta'={actual:.3g} at epsilon={params.epsilon:g}"]
    if holds:
        notes.append("the guarantee rests on this exact check; the paper's printed proof of "
                     "Theorem 3.4 uses an invalid union bound")
    else:
        flags = (Flag(FlagCode.PROOF_GAP,
                      f"paper mode: Theorem 3.4's sigma gives only delta'={actual:.3g} > "
                      f"delta={params.delta:.3g} at epsilon={params.epsilon:g} for r={n_cells}, "
                      f"n={n_observers}; the paper's proof does not hold here"),)
    return observer_record(
        mechanism="heatmap-gaussian", kind=Kind.APPROX_DP, cap=params.cap,
        n_observers=n_observers, n_cells=n_cells,
        parameters={"noise_std": sigma, "l2_sensitivity": sens, "exact_delta": actual},
        epsilon=float(params.epsilon), delta=float(params.delta), mode=params.mode,
        flags=flags, paper_claim="(epsilon, delta)-DP, Theorem 3.4", notes=tuple(notes),
    )


def gaussian(maps: GazeMaps, params: GaussianParams, *,
             rng: np.random.Generator) -> Release[AggregateMap]:
    """Capped aggregate plus i.i.d. ``N(0, sigma_N^2)`` per cell (Theorem 3.4).

    Examples
    --------
    >>> from gazeprivacy.features.gaze_maps import MapGrid
    >>> maps = GazeMaps(counts=np.zeros((20, 30, 40), dtype=int), observers=map(str, range(20)),
    ...                 stimulus="s", grid=MapGrid(width_px=40, height_px=30))
    >>> rel = gaussian(maps, GaussianParams(epsilon=1.0, delta=1e-3, cap=1),
    ...                rng=np.random.default_rng(1))
    >>> rel.output.values.shape, round(rel.output.noise_std, 3)
    ((30, 40), 6.595)
    """
    g = guarantee(params, n_observers=maps.n_observers, n_cells=maps.n_cells)
    return gaussian_release(maps, g, cap=params.cap, rng=rng)


SPEC = heatmap_entry(
    name="heatmap-gaussian",
    params_type=GaussianParams,
    run=gaussian,
    guarantee=guarantee,
    summary="(eps, delta)-DP aggregate, Gaussian noise of Theorem 3.4 (checked exactly)",
    citation=LIU_2019,
    # paper example: a delta that Theorem 3.4's sigma misses on the example's 20 x 20 shape
    example_params=lambda mode: (None if mode is Mode.BASELINE else GaussianParams(
        epsilon=1.0, delta=1e-3 if mode is Mode.SOUND else 1e-6, cap=1, mode=mode)),
)
