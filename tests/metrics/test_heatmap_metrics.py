# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""CC and MSE between heatmaps."""

from __future__ import annotations

import numpy as np
import pytest

from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.metrics.heatmap import correlation_coefficient, mean_squared_error


def test_cc_matches_numpy_and_batches(rng):
    ref = rng.random((10, 12))
    est = ref + rng.normal(0, 0.3, size=(4, 10, 12))
    cc = correlation_coefficient(est, ref)
    want = [np.corrcoef(e.ravel(), ref.ravel())[0, 1] for e in est]
    np.testing.assert_allclose(cc, want, rtol=1e-12)
    np.testing.assert_allclose(mean_squared_error(est, ref),
                               [np.mean((e - ref) ** 2) for e in est])


def test_cc_of_negated_map_is_minus_one():
    a = np.arange(12.0).reshape(3, 4)
    assert correlation_coefficient(-a, a) == pytest.approx(-1.0)


@pytest.mark.parametrize("a,b,msg", [
    (np.ones((2, 2)), np.arange(4.0).reshape(2, 2), "constant heatmap"),
    (np.zeros((2, 3)), np.zeros((3, 2)), "share their last two axes"),
    (np.full((2, 2), np.nan), np.zeros((2, 2)), "NaN"),
], ids=["constant_map", "shape_mismatch", "nan"])
def test_bad_input(a, b, msg):
    with pytest.raises(InvalidDataError, match=msg):
        correlation_coefficient(a, b)
