# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Utility of released feature series: NMSE, utility and the lag-correlation analysis.

Bozkir, Günlü et al., PLOS ONE 2021 (seed 002): NMSE (eq. 4)
``(1/n) sum (X_i - X~_i)^2 / (mean(X) mean(X~))``, utility ``1 / |NMSE|`` (eq. 6), and the
correlation coefficients of a feature at one time index with the same feature ``Delta t`` steps
later, across participants, for the raw and the difference signals (Figs 3-6).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.features.window_features import FeatureSeries
from gazeprivacy.mechanisms.series import nmse as _nmse

__all__ = ["lag_correlation", "nmse", "series_utility", "utility"]


def nmse(x: np.ndarray, x_tilde: np.ndarray, axis: int = -1) -> np.ndarray:
    """Seed 002 eq. 4 along ``axis`` (inf / nan when a mean is 0).

    >>> float(nmse(np.array([1.0, 3.0]), np.array([1.0, 1.0])))
    1.0
    """
    return _nmse(np.asarray(x, np.float64), np.asarray(x_tilde, np.float64), axis=axis)


def utility(x: np.ndarray, x_tilde: np.ndarray, axis: int = -1) -> np.ndarray:
    """``1 / |NMSE|`` (seed 002 eq. 6); inf for a perfect release.

    >>> float(utility(np.array([1.0, 3.0]), np.array([1.0, 1.0])))
    1.0
    """
    with np.errstate(divide="ignore"):
        return 1.0 / np.abs(nmse(x, x_tilde, axis=axis))


def series_utility(original: Sequence[FeatureSeries], released: Sequence[FeatureSeries]
                   ) -> np.ndarray:
    """Per recording and feature, the utility ``1/|NMSE|`` (shape (recordings, features)).

    Seed 002 averages per feature and then over features; features whose mean is 0 in a
    recording give nan here and are left out of such averages by ``np.nanmean``.
    """
    if len(original) != len(released):
        raise InvalidDataError(f"{len(original)} original but {len(released)} released series")
    out = []
    for a, b in zip(original, released, strict=True):
        if a.values.shape != b.values.shape:
            raise InvalidDataError(f"recording {a.recording!r}: shapes differ "
                                   f"({a.values.shape} vs {b.values.shape})")
        u = utility(a.values.T, b.values.T)
        out.append(np.where(np.isfinite(u), u, np.nan))
    return np.array(out)


def lag_correlation(series: Sequence[FeatureSeries], feature: str, *, ref_index: int = 5,
                    max_lag: int = 100, difference: bool = False) -> np.ndarray:
    """Correlation across recordings of ``X[ref]`` with ``X[ref + dt]``, dt = 0 .. max_lag.

    Seed 002 Figs 3-6 (raw signals; ``difference=True`` for the difference signals of eq. 16).
    Returns an array of length ``max_lag + 1`` (nan where a sample is constant).

    Examples
    --------
    >>> s = [FeatureSeries(recording=f"r{i}", participant=f"p{i}", t_start=np.arange(10.0),
    ...                    values=np.full((10, 1), float(i)) + np.arange(10)[:, None],
    ...                    feature_names=("f",)) for i in range(4)]
    >>> lag_correlation(s, "f", ref_index=2, max_lag=3).round(3).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    cols = [s.column(feature) for s in series]
    if difference:
        cols = [np.diff(c, prepend=0.0) for c in cols]
    n = min(len(c) for c in cols)
    max_lag = min(max_lag, n - 1 - ref_index)
    if max_lag < 0:
        raise InvalidDataError(f"series have {n} windows; ref_index={ref_index} is beyond them")
    M = np.array([c[ref_index:ref_index + max_lag + 1] for c in cols])  # (recordings, lags)
    a = M[:, 0] - M[:, 0].mean()
    B = M - M.mean(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (a @ B) / np.sqrt((a @ a) * (B * B).sum(axis=0))
