# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The learned utility models learn on clean data (issue 10), with fixed seeds."""

from __future__ import annotations

import numpy as np
import pytest

from gazeprivacy.data import Dataset, Recording
from gazeprivacy.exceptions import InvalidDataError

pytest.importorskip("torch")

from gazeprivacy.metrics.activity import ActivityClassifier, activity_recognition
from gazeprivacy.metrics.gaze_prediction import (
    GazePredictor,
    gaze_prediction_utility,
    gaze_prediction_windows,
)


def pursuit_dataset(n_participants: int, rng: np.random.Generator, offset: int = 0) -> Dataset:
    """Smooth-pursuit-like gaze: sums of slow sines, 60 Hz, 20 s, with a blink gap."""
    recs = []
    t = np.arange(0, 20, 1 / 60)
    for p in range(n_participants):
        f = rng.uniform(0.2, 0.6, 2)
        ph = rng.uniform(0, 2 * np.pi, 2)
        x = 8 * np.sin(2 * np.pi * f[0] * t + ph[0]) + rng.normal(0, 0.05, t.size)
        y = 5 * np.sin(2 * np.pi * f[1] * t + ph[1]) + rng.normal(0, 0.05, t.size)
        x[300:310] = np.nan
        y[300:310] = np.nan
        recs.append(Recording.from_arrays(recording=f"r{p + offset}", participant=f"p{p + offset}",
                                          t=t, x=x, y=y))
    return Dataset(tuple(recs))


def test_windows_are_relative_and_skip_missing(rng):
    ds = pursuit_dataset(1, rng)
    x, y, last, owners, skipped = gaze_prediction_windows(ds)
    assert x.shape[1:] == (30, 2) and np.allclose(x[:, -1, :], 0.0)
    assert skipped > 0 and not np.isnan(x).any()
    assert set(owners) == {"p0"}
    assert last.shape == y.shape


def test_gaze_prediction_beats_the_constant_position_baseline():
    rng = np.random.default_rng(11)
    train, test = pursuit_dataset(6, rng), pursuit_dataset(3, rng, offset=10)
    res = gaze_prediction_utility(train, test, rng=np.random.default_rng(0),
                                  model=GazePredictor(epochs=6))
    assert res.model_error_deg < 0.6 * res.baseline_error_deg, res


def test_gaze_prediction_refuses_shared_participants(rng):
    ds = pursuit_dataset(2, rng)
    with pytest.raises(InvalidDataError, match="in both train and test data"):
        gaze_prediction_utility(ds, ds, rng=rng)


def activity_dataset(n_participants: int, rng: np.random.Generator, offset: int = 0) -> Dataset:
    """Two activities: 'pursuit' (smooth sines) vs 'saccadic' (steps every ~300 ms), 30 Hz."""
    recs = []
    t = np.arange(0, 30, 1 / 30)
    for p in range(n_participants):
        for act in ("pursuit", "saccadic"):
            if act == "pursuit":
                x = 6 * np.sin(2 * np.pi * rng.uniform(0.2, 0.5) * t)
                y = 4 * np.cos(2 * np.pi * rng.uniform(0.2, 0.5) * t)
            else:
                jumps = np.repeat(rng.uniform(-8, 8, (t.size // 9 + 1, 2)), 9, axis=0)[:t.size]
                x, y = jumps[:, 0], jumps[:, 1]
            recs.append(Recording.from_arrays(
                recording=f"p{p + offset}-{act}", participant=f"p{p + offset}", t=t,
                x=x + rng.normal(0, 0.1, t.size), y=y + rng.normal(0, 0.1, t.size),
                labels={"activity": act}))
    return Dataset(tuple(recs))


def test_activity_model_beats_chance_clearly():
    rng = np.random.default_rng(5)
    res = activity_recognition(activity_dataset(4, rng), activity_dataset(2, rng, offset=10),
                               "activity", rng=np.random.default_rng(1),
                               model=ActivityClassifier(epochs=6))
    assert res.chance == pytest.approx(0.5)
    assert res.accuracy >= 0.9, res


def test_activity_same_seed_same_predictions():
    rng = np.random.default_rng(5)
    train = activity_dataset(2, rng)
    test = activity_dataset(1, rng, offset=10)
    a = activity_recognition(train, test, "activity", rng=np.random.default_rng(3),
                             model=ActivityClassifier(epochs=1))
    b = activity_recognition(train, test, "activity", rng=np.random.default_rng(3),
                             model=ActivityClassifier(epochs=1))
    assert a == b


def test_activity_model_beats_chance_on_the_simulator():
    from gazeprivacy.data.simulate import simulate_dataset

    ds = simulate_dataset(n_participants=6, duration_s=40.0, sampling_rate_hz=60,
                          rng=np.random.default_rng(7))
    train = ds.select(lambda r: r.participant in ds.participants[:4])
    test = ds.select(lambda r: r.participant in ds.participants[4:])
    res = activity_recognition(train, test, "task", rng=np.random.default_rng(2),
                               model=ActivityClassifier(epochs=8))
    assert res.n_classes == 3 and res.chance == pytest.approx(1 / 3)
    assert res.accuracy >= 0.7, res



def test_gaze_prediction_refuses_a_release_without_complete_windows(rng):
    train, test = pursuit_dataset(2, rng), pursuit_dataset(1, rng, offset=10)
    gap = np.arange(train[0].n_samples) % 10 == 0   # a missing sample in every 0.5 s window
    holes = Dataset(tuple(r.with_gaze(np.where(gap, np.nan, r.x), np.where(gap, np.nan, r.y))
                          for r in train))
    with pytest.raises(InvalidDataError, match="no complete training window"):
        gaze_prediction_utility(holes, test, rng=rng, model=GazePredictor(epochs=1))


def test_head_channels_enter_relative_and_wrapped():
    t = np.arange(0, 2, 0.01)
    yaw = (170.0 + 40.0 * t + 180.0) % 360.0 - 180.0     # turns through +-180 deg
    rec = Recording.from_arrays(recording="r", participant="p", t=t, x=np.zeros_like(t),
                                y=np.zeros_like(t), channels={"head_yaw_deg": yaw})
    x, *_ = gaze_prediction_windows(Dataset((rec,)), channels=("head_yaw_deg",))
    assert x.shape[2] == 3 and np.allclose(x[:, -1, 2], 0.0)
    # 0.5 s of a 40 deg/s turn: at most 20 deg from the last value, never ~340
    assert np.abs(x[:, :, 2]).max() <= 20.0 + 1e-9
