# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""NMSE, utility and the lag-correlation analysis of seed 002."""

from __future__ import annotations

import numpy as np
import pytest

from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.features.window_features import FeatureSeries
from gazeprivacy.metrics.series import lag_correlation, nmse, series_utility, utility


def test_nmse_is_eq_4() -> None:
    x = np.array([1.0, 2.0, 3.0, 4.0])
    xt = np.array([1.5, 2.0, 2.0, 5.0])
    expect = np.mean((x - xt) ** 2) / (x.mean() * xt.mean())
    assert float(nmse(x, xt)) == pytest.approx(expect)
    assert float(utility(x, xt)) == pytest.approx(1 / abs(expect))
    assert np.isinf(utility(x, x))


def test_series_utility_shape_and_mismatch() -> None:
    a = FeatureSeries(recording="r", participant="p", t_start=np.arange(4.0),
                      values=np.ones((4, 2)), feature_names=("f", "g"))
    b = a.with_values(a.values + 0.5)
    u = series_utility([a], [b])
    assert u.shape == (1, 2)
    np.testing.assert_allclose(u, 1 / (0.25 / 1.5))
    with pytest.raises(InvalidDataError, match="shapes differ"):
        series_utility([a], [a.with_values(np.ones((3, 2)), t_start=np.arange(3.0))])


def test_differences_decorrelate_a_random_walk() -> None:
    rng = np.random.default_rng(2)
    S = [FeatureSeries(recording=f"r{i}", participant=f"p{i}", t_start=np.arange(200.0),
                       values=np.cumsum(rng.normal(size=(200, 1)), axis=0), feature_names=("f",))
         for i in range(300)]
    raw = lag_correlation(S, "f", ref_index=5, max_lag=20)
    diff = lag_correlation(S, "f", ref_index=5, max_lag=20, difference=True)
    assert raw[0] == pytest.approx(1.0) and diff[0] == pytest.approx(1.0)
    # a random walk at step 5 correlates with step 5 + d as sqrt(6 / (6 + d)); increments don't
    assert raw[10] == pytest.approx(np.sqrt(6 / 16), abs=0.12)
    assert np.abs(diff[1:]).max() < 4 / np.sqrt(300)
