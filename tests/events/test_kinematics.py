# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Angular distances (Euclidean, haversine), interval speeds and Savitzky-Golay speeds."""

from __future__ import annotations

import numpy as np
import polars as pl
import pymovements as pm
import pytest

from gazeprivacy.data import Geometry, Recording
from gazeprivacy.events import (
    angular_distance_deg,
    interval_speed_deg_s,
    mixed_distance_deg,
    resolve_metric,
)
from gazeprivacy.events.kinematics import savgol_speed_deg_s
from gazeprivacy.exceptions import InvalidParameterError


def test_great_circle_against_unit_vectors(rng):
    az0, az1 = rng.uniform(-180, 180, (2, 500))
    el0, el1 = rng.uniform(-89, 89, (2, 500))

    def vec(az, el):
        a, e = np.radians(az), np.radians(el)
        return np.c_[np.cos(e) * np.sin(a), np.sin(e), np.cos(e) * np.cos(a)]

    want = np.degrees(np.arccos(np.clip((vec(az0, el0) * vec(az1, el1)).sum(1), -1, 1)))
    got = angular_distance_deg(az0, el0, az1, el1, metric="great-circle")
    np.testing.assert_allclose(got, want, atol=1e-6)
    # small angles near the equator: great-circle ~ Euclidean
    small = angular_distance_deg(10.0, 0.0, 10.3, 0.4, metric="great-circle")
    assert small == pytest.approx(0.5, rel=1e-4)


def test_nan_propagates_and_mixed_metric():
    d = angular_distance_deg(np.array([0.0, np.nan]), np.zeros(2), np.ones(2), np.zeros(2),
                             metric="euclidean")
    assert d[0] == 1.0 and np.isnan(d[1])
    m = mixed_distance_deg(np.zeros(2), np.full(2, 89.0), np.full(2, 180.0), np.full(2, 89.0),
                           np.array([False, True]))
    assert m[0] == 180.0 and m[1] == pytest.approx(2.0)


def test_preceding_speed_equals_pymovements_pos2vel_on_uniform_screen_data(rng):
    xy = np.cumsum(rng.normal(0, 0.3, (1000, 2)), axis=0)
    t = np.arange(1000) / 250.0
    ours = interval_speed_deg_s(t, xy[:, 0], xy[:, 1], metric="euclidean")
    v = pm.transforms.numpy.pos2vel(xy, sampling_rate=250.0, method="preceding")
    np.testing.assert_allclose(ours, np.hypot(v[1:, 0], v[1:, 1]), rtol=1e-9)


def test_speed_uses_recorded_timestamps():
    t = np.array([0.0, 0.01, 0.03])  # a dropped frame between the 2nd and 3rd sample
    s = interval_speed_deg_s(t, np.array([0.0, 1.0, 2.0]), np.zeros(3), metric="euclidean")
    np.testing.assert_allclose(s, [100.0, 50.0])


def test_resolve_metric_by_geometry():
    vr = Geometry(x_min_deg=-180, x_max_deg=180, y_min_deg=-90, y_max_deg=90, kind="vr")
    r = Recording.from_arrays(recording="r", participant="p", x=[0, 1], y=[0, 0],
                              sampling_rate_hz=50, geometry=vr)
    assert resolve_metric(r) == "great-circle"
    assert resolve_metric(r, "euclidean") == "euclidean"
    with pytest.raises(InvalidParameterError, match="metric must be one of"):
        resolve_metric(r, "l1")
    with pytest.raises(InvalidParameterError, match="metric must be one of"):
        angular_distance_deg(0, 0, 1, 1, metric="auto")


def test_savgol_speed_equals_pymovements_savitzky_golay_on_a_segment():
    # on one gap-free segment our per-segment filter is pymovements' transform (same scipy call,
    # same "nearest" padding); ours only adds the split at gaps
    rng = np.random.default_rng(0)
    x, y = np.cumsum(rng.normal(0, 0.1, 200)), np.cumsum(rng.normal(0, 0.1, 200))
    df = pl.DataFrame({"position": [[a, b] for a, b in zip(x, y, strict=True)]})
    expr = pm.transforms.savitzky_golay(window_length=11, degree=2, sampling_rate=1000.0,
                                        n_components=2, input_column="position",
                                        output_column="velocity", derivative=1,
                                        padding="nearest")
    v = np.array(df.select(expr)["velocity"].to_list())
    ours = savgol_speed_deg_s(x, y, sampling_rate_hz=1000.0, window=11)
    np.testing.assert_allclose(ours, np.hypot(v[:, 0], v[:, 1]), rtol=1e-12, atol=1e-12)
