# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Fidelity metrics: rmse (mean), rss_distance (eq. 15 as printed), density error (JSD)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gazeprivacy.data import Dataset, Geometry, Recording
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.metrics.fidelity import (
    density_error,
    gaze_density,
    rmse,
    rss_distance,
    suppressed_fraction,
)

GEO = Geometry(x_min_deg=0.0, x_max_deg=6.0, y_min_deg=0.0, y_max_deg=6.0)


def ds(xs, ys) -> Dataset:
    return Dataset(tuple(Recording.from_arrays(recording=f"r{i}", participant="p", x=x, y=y,
                                               sampling_rate_hz=10, geometry=GEO)
                         for i, (x, y) in enumerate(zip(xs, ys, strict=True))))


def test_rmse_is_mean_over_recordings_and_rss_has_no_one_over_n():
    a = ds([np.zeros(4), np.zeros(16)], [np.zeros(4), np.zeros(16)])
    b = a.map(lambda r: r.with_gaze(r.x + 1.0, r.y))
    assert rmse(a, b) == pytest.approx(1.0)
    assert rss_distance(a, b) == pytest.approx((math.sqrt(4) + math.sqrt(16)) / 2)


def test_nan_samples_are_left_out_of_pairs():
    a = ds([np.array([0.0, np.nan, 0.0])], [np.array([0.0, np.nan, 0.0])])
    b = a.map(lambda r: r.with_gaze(np.array([3.0, 100.0, np.nan]), np.array([4.0, 0, np.nan])))
    assert rmse(a, b) == pytest.approx(5.0)


def test_suppressed_fraction_counts_only_samples_valid_before():
    a = ds([np.array([0.0, np.nan, 0.0, 0.0]), np.zeros(4)],
           [np.array([0.0, np.nan, 0.0, 0.0]), np.zeros(4)])
    gone = np.array([np.nan, np.nan, 1.0, 1.0])
    b = a.map(lambda r: r.with_gaze(gone, gone))
    # recording 0 loses 1 of its 3 valid samples (its own blink is not counted), r1 loses 2 of 4
    assert suppressed_fraction(a, b) == pytest.approx(3 / 7)
    assert suppressed_fraction(a, a) == 0.0
    with pytest.raises(InvalidDataError, match="recordings"):
        suppressed_fraction(a, Dataset(a.recordings[:1]))


def test_mismatched_datasets_raise():
    a = ds([np.zeros(3)], [np.zeros(3)])
    b = ds([np.zeros(4)], [np.zeros(4)])
    with pytest.raises(InvalidDataError, match="does not match"):
        rmse(a, b)


def test_density_error_zero_for_same_density_one_for_disjoint():
    a = ds([np.full(10, 1.0)], [np.full(10, 1.0)])
    b = ds([np.full(10, 5.0)], [np.full(10, 5.0)])
    assert density_error(a, a) == 0.0
    assert density_error(a, b) == pytest.approx(1.0)


def test_density_error_uses_on_screen_points_only(rng):
    x = rng.uniform(0, 6, 500)
    y = rng.uniform(0, 6, 500)
    a = ds([x], [y])
    x2 = x.copy()
    x2[:100] = -5.0  # off screen: ignored, the rest is the same points
    b = ds([x2], [y])
    h = gaze_density(b, geometry=GEO, grid_size=60)
    assert h.sum() == 400
    # same points minus a random fifth: small but non-zero divergence
    assert 0 < density_error(a, b) < 0.2


def test_density_error_needs_on_screen_points():
    a = ds([np.full(3, 1.0)], [np.full(3, 1.0)])
    b = ds([np.full(3, 50.0)], [np.full(3, 1.0)])
    with pytest.raises(InvalidDataError, match="no on-screen point"):
        density_error(a, b)
