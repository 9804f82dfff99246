# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.metrics.utility import task_classification


def _tables(shift: float, seed: int = 0, n: int = 60):
    rng = np.random.default_rng(seed)
    tasks = np.array(["read", "watch", "search"])[np.arange(n) % 3]
    code = np.arange(n) % 3
    orig = pl.DataFrame({"recording": [f"r{i}" for i in range(n)],
                         "participant": [f"p{i % 10}" for i in range(n)],
                         "a": code * shift + rng.normal(size=n), "b": rng.normal(size=n)})
    noisy = orig.with_columns(pl.Series("a", rng.normal(0, 1, n)))  # task signal destroyed
    return orig, noisy, dict(zip(orig["recording"], tasks.tolist(), strict=True))


def test_clear_task_signal_survives_on_original_data():
    orig, _, lab = _tables(shift=6.0)
    res = task_classification(orig, None, lab, rng=np.random.default_rng(0), n_splits=2,
                              n_trees=20)
    assert res.accuracy > 0.95
    assert res.chance == pytest.approx(1 / 3, abs=0.05)
    assert res.uniform_chance == pytest.approx(1 / 3)


def test_destroyed_signal_drops_to_chance():
    accs = []
    for seed in range(4):
        orig, noisy, lab = _tables(shift=6.0, seed=seed)
        accs.append(task_classification(orig, noisy, lab, rng=np.random.default_rng(seed),
                                        n_splits=2, n_trees=20).accuracy)
    # 4 x 2 splits x ~18 test recordings at chance 1/3: SE ~ sqrt(2/9 / 72) ~ 0.056; 4 SE
    assert abs(np.mean(accs) - 1 / 3) < 4 * 0.056


@pytest.mark.parametrize("kwargs, match", [
    pytest.param({"direction": "sideways"}, "direction must be one of", id="bad_direction"),
    pytest.param({"test_fraction": 1.0}, "test_fraction must be in", id="bad_fraction"),
    pytest.param({"group_by": "stimulus"}, "group_by must be one of", id="bad_group_by"),
])
def test_bad_options_raise_named_errors(kwargs, match):
    orig, _, lab = _tables(shift=1.0)
    with pytest.raises(InvalidParameterError, match=match):
        task_classification(orig, None, lab, rng=np.random.default_rng(0), **kwargs)


def test_missing_label_is_named():
    orig, _, lab = _tables(shift=1.0)
    lab.pop("r3")
    with pytest.raises(InvalidDataError, match="r3"):
        task_classification(orig, None, lab, rng=np.random.default_rng(0))


def test_participant_split_holds_out_people():
    orig, _, lab = _tables(shift=6.0)
    res = task_classification(orig, None, lab, rng=np.random.default_rng(0), n_splits=2,
                              n_trees=20, group_by="participant", direction="train-protected")
    assert res.accuracy > 0.9 and res.direction == "train-protected"


def test_task_classifier_is_far_above_chance_on_raw_simulated_gaze():
    """Issue 4: the whole pipeline (I-VT, event features, per-recording aggregates, RF) on the
    simulator's three tasks, participants held out."""
    from gazeprivacy.data.simulate import simulate_dataset
    from gazeprivacy.experiments.featurize import event_features_of
    from gazeprivacy.features.aggregate import recording_features

    ds = simulate_dataset(n_participants=8, recordings_per_task=2, duration_s=20.0,
                          sampling_rate_hz=100, rng=np.random.default_rng(4))
    table = recording_features(event_features_of(ds), recordings=[r.recording for r in ds])
    labels = {r.recording: r.labels["task"] for r in ds}
    res = task_classification(table, None, labels, rng=np.random.default_rng(0),
                              group_by="participant", n_splits=3, n_trees=50)
    assert res.uniform_chance == pytest.approx(1 / 3)
    assert res.accuracy > 0.85, res
