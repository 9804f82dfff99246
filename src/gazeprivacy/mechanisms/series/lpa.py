# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""LPA: epsilon-LDP per feature series (Laplace perturbation of every window value).

Dwork, McSherry, Nissim, Smith. Calibrating noise to sensitivity in private data analysis.
TCC 2006; as used on eye-movement feature series by Bozkir, Günlü, Fuhl, Schaefer, Kasneci,
"Differential privacy for eye tracking with temporal correlations", PLOS ONE 16(8), 2021
(seed 002): ``X~ = X + Lap(Delta_1 / epsilon)`` per element.

Deviations: sound mode (default) clips each feature into its declared range ``[lo, hi]`` and
uses ``Delta_1 = n (hi - lo)`` (n = windows of the recording); paper mode uses seed 002's
data-driven ``Delta_1 = max_{p,q} ||X_p - X_q||_1`` over the recordings of one group (eq. 7) and
is flagged. The unit is one feature series of one recording; per participant the features and
recordings compose sequentially. See docs/privacy/series_lpa.md.
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
    "SPEC", "LPAParams", "guarantee", "lpa", "noise_scale"]


@dataclass(frozen=True, kw_only=True)
class LPAParams:
    """LPA settings.

    Parameters
    ----------
    epsilon : float
        Budget per feature series of one recording (> 0).
    mode : {"sound", "paper"}
        Declared ranges (sound) or data-driven sensitivity (paper, flagged).
    ranges : mapping of feature name to FeatureRange, optional
        Declared ranges; required in sound mode.
    sensitivity_group : str, optional
        Paper mode: label whose recordings share one sensitivity (seed 002: "document").
    """

    epsilon: float
    mode: Mode = Mode.SOUND
    ranges: Mapping[str, FeatureRange] | None = None
    sensitivity_group: str | None = None

    def __post_init__(self) -> None:
        check_positive(epsilon=self.epsilon)
        _core.check_mode(self)

    @classmethod
    def paper(cls, *, epsilon: float, **kw: Any) -> LPAParams:
        """Seed 002's setting: sensitivities per document type.

        Sets values only; pass ``mode="paper"`` for the paper's data-driven sensitivities."""
        return cls(epsilon=epsilon, **{"sensitivity_group": "document", **kw})


def noise_scale(delta_1: float, epsilon: float) -> float:
    """Laplace scale ``Delta_1 / epsilon``.

    >>> noise_scale(10.0, 2.0)
    5.0
    """
    return delta_1 / epsilon


def guarantee(params: LPAParams, shape: _core.SeriesShape) -> Guarantee:
    """The privacy map (reads only the public shape)."""
    return _core.series_guarantee(
        mechanism="series-lpa", params=params, shape=shape, unit=Unit.SERIES,
        units_per_series=lambda n: 1, epsilon=params.epsilon, mode=params.mode,
        parameters={"epsilon": params.epsilon,
                    "sensitivity": "declared ranges" if params.mode is Mode.SOUND
                    else "data-driven (seed 002 eq. 7, w=1)",
                    "sensitivity_group": params.sensitivity_group},
        paper_claim="seed 002: LPA is epsilon-DP for lambda = Delta_1 / epsilon (per feature)")


def lpa(series: Sequence[FeatureSeries], params: LPAParams, *,
        rng: np.random.Generator) -> Release[list[FeatureSeries]]:
    """Release every feature series with Laplace noise.

    Raises
    ------
    InvalidDataError
        Non-finite feature values.
    InvalidParameterError
        Sound mode without ranges.

    Examples
    --------
    >>> from gazeprivacy.features.ranges import FeatureRange
    >>> s = FeatureSeries(recording="r", participant="p", t_start=np.arange(4.0),
    ...                   values=np.full((4, 1), 0.5), feature_names=("ratio",))
    >>> rel = lpa([s], LPAParams(epsilon=1.0, ranges={"ratio": FeatureRange(0, 1, "natural", "")}),
    ...           rng=np.random.default_rng(0))
    >>> rel.output[0].values.shape, rel.guarantee.max_participant_epsilon
    ((4, 1), 1.0)
    """
    series = _core.check_series(series)
    shape = _core.SeriesShape.of(series)
    scales = noise_scales(series, params)
    out = []
    for s, lam in zip(series, scales, strict=True):
        v = s.values
        if params.mode is Mode.SOUND:
            lo, hi = _core.bounds_for(series, params.ranges)
            v = _core.clip(v, lo, hi)
        out.append(s.with_values(v + _core.laplace(rng, lam, v.shape[::-1]).T))
    return Release(out, guarantee(params, shape))


def noise_scales(series: Sequence[FeatureSeries], params: LPAParams) -> list[np.ndarray]:
    """Per recording, the Laplace scale of each feature (paper mode reads the data)."""
    series = _core.check_series(series)
    if params.mode is Mode.SOUND:
        lo, hi = _core.bounds_for(series, params.ranges)
        return [noise_scale(s.n_windows * (hi - lo), params.epsilon) for s in series]
    _core.warn_paper("series-lpa")
    groups = _core.groups_of(series, params.sensitivity_group)
    sens = _core.paper_block_sensitivity([s.values for s in series], groups, None, 1, False)
    return [noise_scale(d[0], params.epsilon) for d in sens]


SPEC = _core.series_entry(
    "series-lpa", guarantee, LPAParams, lpa,
    "Laplace noise on every window value", _core.SEED002)
