# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Feature-series mechanisms (seeds 002 and 004; SPEC section 5), one per module.

:func:`protect_series` runs any of them on a list of
:class:`~gazeprivacy.features.window_features.FeatureSeries` or on a feature table (polars, as
written by :func:`~gazeprivacy.features.window_features.feature_table`) and returns the same
kind of object inside a :class:`~gazeprivacy.guarantees.Release`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy.features.window_features import FeatureSeries, feature_table, series_from_table
from gazeprivacy.guarantees import Release
from gazeprivacy.mechanisms.base import MechanismSpec
from gazeprivacy.mechanisms.series import cfpa as _cfpa
from gazeprivacy.mechanisms.series import dcfpa as _dcfpa
from gazeprivacy.mechanisms.series import dct as _dct
from gazeprivacy.mechanisms.series import fpa as _fpa
from gazeprivacy.mechanisms.series import lpa as _lpa
from gazeprivacy.mechanisms.series import steil_exponential as _steil

__all__ = [
    "CFPA_SPEC",
    "DCFPA_SPEC",
    "DCT_SPEC",
    "FPA_SPEC",
    "LPA_SPEC",
    "STEIL_SPEC",
    "protect_series",
]

_SEED002 = ("Bozkir, Günlü, Fuhl, Schaefer, Kasneci. Differential privacy for eye tracking with "
            "temporal correlations. PLOS ONE 2021")
_SEED004 = ("Steil, Hagestedt, Huang, Bulling. Privacy-aware eye tracking using differential "
            "privacy. ETRA 2019")


def _wrap(fn: Callable[..., Release[list[FeatureSeries]]]) -> Callable[..., Release[Any]]:
    def protect(data: Sequence[FeatureSeries] | pl.DataFrame, params: Any, *,
                rng: np.random.Generator, progress: bool = False) -> Release[Any]:
        del progress  # vectorised; nothing to report per recording
        if isinstance(data, pl.DataFrame):
            rel = fn(series_from_table(data), params, rng=rng)
            return Release(feature_table(rel.output), rel.guarantee)
        return fn(list(data), params, rng=rng)
    protect.__doc__ = f"Run ``{fn.__name__}`` on feature series or a feature table."
    return protect


def _spec(name: str, params_type: type, fn: Callable[..., Any], summary: str,
          citation: str) -> MechanismSpec:
    return MechanismSpec(name=name, level="series", params_type=params_type, protect=_wrap(fn),
                         summary=summary, citation=citation)


LPA_SPEC = _spec("series-lpa", _lpa.LPAParams, _lpa.lpa,
                 "Laplace noise on every window value", _SEED002)
FPA_SPEC = _spec("series-fpa", _fpa.FPAParams, _fpa.fpa,
                 "Fourier perturbation (k lowest DFT coefficients)", _SEED002)
DCT_SPEC = _spec("series-dct", _dct.DCTParams, _dct.dct,
                 "orthonormal DCT-II perturbation (k coefficients)", _SEED002 + " (variant)")
CFPA_SPEC = _spec("series-cfpa", _cfpa.CFPAParams, _cfpa.cfpa,
                  "FPA per chunk of 32/64/128 windows", _SEED002)
DCFPA_SPEC = _spec("series-dcfpa", _dcfpa.DCFPAParams, _dcfpa.dcfpa,
                   "FPA on within-chunk differences", _SEED002)
STEIL_SPEC = _spec("series-steil-exponential", _steil.SteilParams, _steil.steil_exponential,
                   "subsampling + seed 004's exponential-mechanism noise", _SEED004)


def protect_series(data: Sequence[FeatureSeries] | pl.DataFrame, mechanism: str, params: Any, *,
                   rng: np.random.Generator) -> Release[Any]:
    """Protect feature series (or a feature table) with a series mechanism from ``MECHANISMS``.

    Examples
    --------
    >>> from gazeprivacy.features.ranges import FeatureRange
    >>> tab = pl.DataFrame({"participant": ["p"] * 3, "recording": ["r"] * 3,
    ...                     "t_start": [0.0, 0.5, 1.0], "ratio": [0.1, 0.2, 0.3]})
    >>> rel = protect_series(tab, "series-lpa", _lpa.LPAParams(epsilon=1.0,
    ...     ranges={"ratio": FeatureRange(0, 1, "natural", "")}), rng=np.random.default_rng(0))
    >>> rel.output.shape
    (3, 4)
    """
    from gazeprivacy.mechanisms import MECHANISMS  # the one registry

    spec = MECHANISMS[mechanism]
    if spec.level != "series":
        from gazeprivacy.exceptions import InvalidParameterError

        raise InvalidParameterError(f"mechanism {mechanism!r} works on {spec.level}, not on "
                                    "feature series; choose one of: " + ", ".join(
                                        n for n, s in MECHANISMS.items() if s.level == "series"))
    if not isinstance(params, spec.params_type):
        from gazeprivacy.exceptions import InvalidParameterError

        raise InvalidParameterError(f"params for {mechanism!r} must be "
                                    f"{spec.params_type.__name__}, got {type(params).__name__}")
    return spec.protect(data, params, rng=rng)
