# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""George & Routray per-event features: hand-computed values, a scipy reference, NaN policy."""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
import pytest
from scipy import stats

from gazeprivacy.data import Dataset, Geometry, Recording
from gazeprivacy.events import detect_events, detect_events_dataset
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.features import EVENT_FEATURE_COLUMNS, event_features, event_features_dataset


def rec(x, y, *, rid="r", pid="p", fs=10.0, geometry=None) -> Recording:
    return Recording.from_arrays(recording=rid, participant=pid, x=np.asarray(x, float),
                                 y=np.asarray(y, float), sampling_rate_hz=fs, geometry=geometry)


def table(rows) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=["recording", "participant", "name", "onset", "offset"],
                        orient="row")


def test_hand_computed_small_event():
    r = rec([0, 3, 3, 6], [0, 4, 4, 8])  # t = 0, .1, .2, .3
    f = event_features(r, table([("r", "p", "saccade", 0, 4)])).row(0, named=True)
    assert list(f)[:5] == ["recording", "participant", "name", "onset", "offset"]
    assert list(f)[5:] == list(EVENT_FEATURE_COLUMNS)
    want = {
        "duration_s": 0.4, "path_length_deg": 10.0, "amplitude_deg": 10.0,
        "dispersion_deg": 14.0, "mean_velocity_deg_s": 25.0,
        "std_x_deg": np.sqrt(4.5), "std_y_deg": np.sqrt(8.0), "skew_x": 0.0, "skew_y": 0.0,
        "kurtosis_x": -1.0, "kurtosis_y": -1.0,
        "velocity_x_mean": 20.0, "velocity_x_median": 30.0, "velocity_x_max": 30.0,
        "velocity_x_min": 0.0, "velocity_x_var": 200.0, "velocity_x_std": np.sqrt(200.0),
        "velocity_x_skew": -2000 / 200 ** 1.5, "velocity_x_kurtosis": -1.5,
        "velocity_ang_mean": 100 / 3, "velocity_ang_median": 50.0, "velocity_ang_max": 50.0,
        "acceleration_x_mean": 0.0, "acceleration_x_median": 0.0, "acceleration_x_max": 300.0,
        "acceleration_x_min": -300.0, "acceleration_x_std": 300.0,
        "acceleration_x_var": 90000.0, "acceleration_x_skew": 0.0,
        "acceleration_x_kurtosis": -2.0, "acceleration_ang_max": 500.0,
    }
    for k, v in want.items():
        assert f[k] == pytest.approx(v, abs=1e-9), k
    assert np.isnan(f["distance_prev_deg"]) and np.isnan(f["angle_prev_deg"])


def test_previous_event_of_same_type():
    x = np.r_[np.zeros(5), 3.0, np.full(5, 6.0), 3.0, np.zeros(5), 1.0]
    y = np.r_[np.zeros(5), 4.0, np.full(5, 8.0), 8.0, np.full(5, 8.0), 8.0]
    ev = table([("r", "p", "fixation", 0, 5), ("r", "p", "saccade", 4, 8),
                ("r", "p", "fixation", 6, 11), ("r", "p", "saccade", 10, 14),
                ("r", "p", "fixation", 12, 17)])
    f = event_features(rec(x, y), ev)
    assert f["distance_prev_deg"][0] is not None and np.isnan(f["distance_prev_deg"][0])
    assert f["distance_prev_deg"][2] == pytest.approx(10.0)        # (0,0) -> (6,8)
    assert f["angle_prev_deg"][2] == pytest.approx(np.degrees(np.arctan2(8, 6)))
    assert f["distance_prev_deg"][4] == pytest.approx(6.0)         # (6,8) -> (0,8)
    assert f["angle_prev_deg"][4] == pytest.approx(180.0)
    assert np.isnan(f["distance_prev_deg"][1]) and np.isfinite(f["distance_prev_deg"][3])
    filled = event_features(rec(x, y), ev, fill_undefined=0.0)
    assert filled["distance_prev_deg"][0] == 0.0 and filled["angle_prev_deg"][1] == 0.0
    assert filled["distance_prev_deg"][2] == pytest.approx(10.0)


def test_short_events_left_out_and_keys_kept():
    r = rec(np.arange(20.0), np.zeros(20))
    ev = table([("r", "p", "fixation", 0, 3), ("r", "p", "saccade", 3, 7),
                ("r", "p", "fixation", 7, 20)])
    f = event_features(r, ev)
    assert f.select("name", "onset", "offset").rows() == [("saccade", 3, 7),
                                                          ("fixation", 7, 20)]
    assert event_features(r, ev, min_samples=3).height == 3
    with pytest.raises(InvalidParameterError, match="min_samples must be an integer >= 3"):
        event_features(r, ev, min_samples=2)
    empty = event_features(r, ev.filter(pl.col("offset") - pl.col("onset") < 4))
    assert empty.height == 0 and empty.columns[5:] == list(EVENT_FEATURE_COLUMNS)


def test_constant_event_gives_finite_values():
    r = rec(np.full(30, 2.5), np.full(30, -1.0), fs=200)
    f = event_features(r, detect_events(r))
    vals = f.select(EVENT_FEATURE_COLUMNS).drop("distance_prev_deg", "angle_prev_deg").row(0)
    assert np.isfinite(vals).all()
    row = f.row(0, named=True)
    assert row["skew_x"] == 0.0 and row["kurtosis_y"] == 0.0 and row["velocity_ang_max"] == 0.0
    assert row["acceleration_x_kurtosis"] == 0.0 and row["std_x_deg"] == 0.0
    # linear motion: constant velocity, zero acceleration (up to rounding) -> moments 0
    r = rec(np.arange(30) * 0.1, np.zeros(30), fs=200)
    row = event_features(r, table([("r", "p", "saccade", 0, 30)])).row(0, named=True)
    assert row["velocity_x_skew"] == 0.0 and row["acceleration_x_kurtosis"] == 0.0
    assert row["velocity_x_mean"] == pytest.approx(20.0)


def test_against_scipy_reference(rng):
    recs, rows = [], []
    for k in range(3):
        n = 400
        t = np.cumsum(rng.uniform(0.004, 0.006, n))  # jittered timestamps
        r = Recording.from_arrays(recording=f"r{k}", participant=f"p{k % 2}", t=t,
                                  x=np.cumsum(rng.normal(0, 0.3, n)),
                                  y=np.cumsum(rng.normal(0, 0.3, n)), sampling_rate_hz=200)
        recs.append(r)
        cuts = np.sort(rng.choice(np.arange(5, n - 5), 20, replace=False))
        edges = np.r_[0, cuts, n]
        for j, (a, b) in enumerate(itertools.pairwise(edges)):
            rows.append((r.recording, r.participant, ("fixation", "saccade")[j % 2], a, b))
    ds = Dataset(tuple(recs))
    f = event_features_dataset(ds, table(rows))
    assert f.height == sum(1 for row in rows if row[4] - row[3] >= 4)
    for row in f.iter_rows(named=True):
        r = ds[row["recording"]]
        sl = slice(row["onset"], row["offset"])
        t, x, y = r.t[sl], r.x[sl], r.y[sl]
        dt = np.diff(t)
        vx, vy = np.diff(x) / dt, np.diff(y) / dt
        va = np.hypot(np.diff(x), np.diff(y)) / dt
        tm = (t[1:] + t[:-1]) / 2
        series = {"velocity_x": vx, "velocity_y": vy, "velocity_ang": va,
                  "acceleration_x": np.diff(vx) / np.diff(tm),
                  "acceleration_y": np.diff(vy) / np.diff(tm),
                  "acceleration_ang": np.diff(va) / np.diff(tm)}
        ref = {"duration_s": t[-1] - t[0] + 1 / 200, "std_x_deg": np.std(x),
               "skew_y": stats.skew(y), "kurtosis_x": stats.kurtosis(x),
               "path_length_deg": np.hypot(np.diff(x), np.diff(y)).sum(),
               "dispersion_deg": np.ptp(x) + np.ptp(y)}
        for name, v in series.items():
            ref.update({f"{name}_mean": v.mean(), f"{name}_median": np.median(v),
                        f"{name}_max": v.max(), f"{name}_min": v.min(),
                        f"{name}_std": v.std(), f"{name}_var": v.var(),
                        f"{name}_skew": stats.skew(v), f"{name}_kurtosis": stats.kurtosis(v)})
        for k, v in ref.items():
            assert row[k] == pytest.approx(v, rel=1e-7, abs=1e-7 * (1 + abs(v))), k


def test_vr_uses_great_circle():
    geo = Geometry(x_min_deg=-180, x_max_deg=180, y_min_deg=-90, y_max_deg=90, kind="vr")
    x = np.array([0.0, 60.0, 120.0, 180.0])
    y = np.full(4, 60.0)
    f = event_features(rec(x, y, geometry=geo), table([("r", "p", "saccade", 0, 4)]))
    # three 60-deg azimuth steps at 60 deg elevation: each a great-circle arc of ~28.96 deg;
    # first to last (180 deg apart in azimuth) is 60 deg over the pole
    step = np.degrees(2 * np.arcsin(np.cos(np.radians(60)) * np.sin(np.radians(30))))
    assert f["path_length_deg"].item() == pytest.approx(3 * step)
    assert f["amplitude_deg"].item() == pytest.approx(60.0)
    assert f["velocity_x_mean"].item() == pytest.approx(600.0)  # component rate of the angle


def test_bad_events_raise():
    r = rec(np.r_[np.zeros(5), np.nan, np.zeros(5)], np.r_[np.zeros(5), np.nan, np.zeros(5)])
    with pytest.raises(InvalidDataError, match="covers a missing sample"):
        event_features(r, table([("r", "p", "fixation", 0, 8)]))
    with pytest.raises(InvalidDataError, match="lies outside its recording"):
        event_features(r, table([("r", "p", "fixation", 6, 20)]))
    with pytest.raises(InvalidDataError, match="not in dataset"):
        event_features_dataset(Dataset((r,)), table([("zz", "p", "fixation", 0, 5)]))


def test_detected_events_on_random_walk_are_finite(rng):
    x = np.cumsum(rng.normal(0, 0.05, 3000)) + np.repeat(rng.normal(0, 4, 15), 200)
    y = np.cumsum(rng.normal(0, 0.05, 3000))
    x[1000:1010] = np.nan
    r = rec(x, np.where(np.isnan(x), np.nan, y), fs=200)
    ev = detect_events_dataset(Dataset((r,)))
    f = event_features_dataset(Dataset((r,)), ev, fill_undefined=0.0)
    assert f.height == ev.filter(pl.col("n_samples") >= 4).height > 10
    assert np.isfinite(f.select(EVENT_FEATURE_COLUMNS).to_numpy()).all()
