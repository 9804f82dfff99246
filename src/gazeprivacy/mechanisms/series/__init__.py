# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Feature-series mechanisms (seeds 002 and 004; SPEC section 5), one per module.

:func:`protect_series` runs any of them on a list of
:class:`~gazeprivacy.features.window_features.FeatureSeries` or on a feature table (polars, as
written by :func:`~gazeprivacy.features.window_features.feature_table`) and returns the same
kind of object inside a :class:`~gazeprivacy.guarantees.Release`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy.features.window_features import FeatureSeries
from gazeprivacy.guarantees import Release
from gazeprivacy.mechanisms.contract import Level
from gazeprivacy.mechanisms.series import cfpa as _cfpa
from gazeprivacy.mechanisms.series import dcfpa as _dcfpa
from gazeprivacy.mechanisms.series import dct as _dct
from gazeprivacy.mechanisms.series import fpa as _fpa
from gazeprivacy.mechanisms.series import lpa as _lpa
from gazeprivacy.mechanisms.series import steil_exponential as _steil
from gazeprivacy.mechanisms.series._core import SERIES_REFUSAL, example_series, nmse

__all__ = [
    "CFPA_SPEC",
    "DCFPA_SPEC",
    "DCT_SPEC",
    "FPA_SPEC",
    "LPA_SPEC",
    "SERIES_REFUSAL",
    "STEIL_SPEC",
    "example_series",
    "nmse",
    "protect_series",
]

LPA_SPEC = _lpa.SPEC
FPA_SPEC = _fpa.SPEC
DCT_SPEC = _dct.SPEC
CFPA_SPEC = _cfpa.SPEC
DCFPA_SPEC = _dcfpa.SPEC
STEIL_SPEC = _steil.SPEC


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
    if spec.level is not Level.SERIES:
        from gazeprivacy.exceptions import InvalidParameterError

        raise InvalidParameterError(f"mechanism {mechanism!r} works on {spec.level}, not on "
                                    "feature series; choose one of: " + ", ".join(
                                        n for n, s in MECHANISMS.items()
                                        if s.level is Level.SERIES))
    return spec.protect(data, params, rng=rng)
