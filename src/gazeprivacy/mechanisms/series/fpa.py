# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""FPA: epsilon-LDP per feature series via the Fourier perturbation algorithm.

Rastogi, Nath. Differentially private aggregation of distributed time-series with transformation
and encryption. SIGMOD 2010; with the scale correction of Bozkir, Günlü, Fuhl, Schaefer,
Kasneci, "Differential privacy for eye tracking with temporal correlations", PLOS ONE 16(8),
2021 (seed 002): DFT, keep the ``k`` lowest-frequency coefficients, add Laplace noise, zero-pad,
inverse DFT.

Deviations: the printed scale ``sqrt(n) sqrt(k) Delta_2 / epsilon`` treats the k complex
coefficients as k numbers; this code puts noise on real and imaginary parts (2k - 1 reals), so
both modes use ``lambda = sqrt(n) sqrt(2k - 1) Delta_2 / epsilon``, the bound for what the code
does (SPEC section 5). Coefficients whose mirror was kept are completed conjugate-symmetrically
(post-processing) and the real part is returned. Sound mode clips into declared ranges with
``Delta_2 = sqrt(n) (hi - lo)`` and a fixed ``k`` (default 10 % of n); paper mode uses seed 002's
data-driven Delta_2 and may tune ``k`` on the private data (both flagged). See
docs/privacy/series_fpa.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gazeprivacy._validation import check_positive
from gazeprivacy.features.ranges import FeatureRange
from gazeprivacy.features.window_features import FeatureSeries
from gazeprivacy.guarantees import Guarantee, Release, Unit
from gazeprivacy.mechanisms.contract import Mode
from gazeprivacy.mechanisms.series import _core

__all__ = [
    "SPEC", "FPAParams", "fpa", "guarantee", "noise_scale"]


@dataclass(frozen=True, kw_only=True)
class FPAParams:
    """FPA settings.

    Parameters
    ----------
    epsilon : float
        Budget per feature series of one recording (> 0).
    k : int, float or "tuned"
        Coefficients kept: a count (capped at n), a fraction of n in (0, 1], or "tuned" (paper:
        least expected error, see ``_core.tune_k``; flagged). Default 0.1 (data-free).
    mode, ranges, sensitivity_group
        As in :class:`~gazeprivacy.mechanisms.series.lpa.LPAParams`.
    """

    epsilon: float
    k: int | float | str = 0.1
    mode: Mode = Mode.SOUND
    ranges: Mapping[str, FeatureRange] | None = None
    sensitivity_group: str | None = None

    def __post_init__(self) -> None:
        check_positive(epsilon=self.epsilon)
        _core.check_mode(self)
        _core.check_k(self.k)

    @classmethod
    def paper(cls, *, epsilon: float, **kw: Any) -> FPAParams:
        """Seed 002's values: k tuned on the data, sensitivity per document type.

        Sets values only; pass ``mode="paper"`` for the paper's data-driven sensitivities."""
        return cls(epsilon=epsilon, **{"k": "tuned", "sensitivity_group": "document", **kw})


def noise_scale(n: int, k: int, delta_2: float, epsilon: float) -> float:
    """``sqrt(n) sqrt(2k - 1) Delta_2 / epsilon`` (noise on 2k - 1 reals of a length-n DFT).

    >>> noise_scale(16, 1, 2.0, 1.0)
    8.0
    """
    return float(np.sqrt(n) * np.sqrt(2 * k - 1) * delta_2 / epsilon)


def guarantee(params: FPAParams, shape: _core.SeriesShape) -> Guarantee:
    """The privacy map (reads only the public shape)."""
    return _core.series_guarantee(
        mechanism="series-fpa", params=params, shape=shape, unit=Unit.SERIES,
        units_per_series=lambda n: 1, epsilon=params.epsilon, mode=params.mode,
        parameters={"epsilon": params.epsilon, "k": params.k, "transform": "DFT (numpy fft)",
                    "scale": "sqrt(n) sqrt(2k-1) Delta_2 / epsilon",
                    "sensitivity_group": params.sensitivity_group},
        extra_flags=_core.k_flags(params.k),
        paper_claim="seed 002: epsilon-DP per feature for lambda = sqrt(n) sqrt(k) Delta_2 / "
                    "epsilon",
        notes=("the printed sqrt(k) covers k real numbers; with noise on real and imaginary "
               "parts it would give epsilon * sqrt((2k-1)/k) (up to sqrt(2) epsilon), so the "
               "code uses sqrt(2k-1)",))


def fpa(series: Sequence[FeatureSeries], params: FPAParams, *,
        rng: np.random.Generator) -> Release[list[FeatureSeries]]:
    """Release every feature series with the FPA (one block per recording and feature).

    Examples
    --------
    >>> from gazeprivacy.features.ranges import FeatureRange
    >>> s = FeatureSeries(recording="r", participant="p", t_start=np.arange(8.0),
    ...                   values=np.linspace(0, 1, 8)[:, None], feature_names=("f",))
    >>> rel = fpa([s], FPAParams(epsilon=1.0, k=2, ranges={"f": FeatureRange(0, 1, "cap", "")}),
    ...           rng=np.random.default_rng(0))
    >>> rel.output[0].n_windows, rel.guarantee.unit.value
    (8, 'series')
    """
    out, _ = _core.transform_release(
        series, epsilon=params.epsilon, k=params.k, mode=params.mode, ranges=params.ranges,
        sensitivity_group=params.sensitivity_group, chunk=None,
        difference=False, transform="dft", rng=rng, name="series-fpa")
    return Release(out, guarantee(params, _core.SeriesShape.of(out)))


SPEC = _core.series_entry(
    "series-fpa", guarantee, FPAParams, fpa,
    "Fourier perturbation (k lowest DFT coefficients)", _core.SEED002, k=4)
