# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""scripts/task_in_raw.py: is a label in raw gaze at all (trained and tested on raw people)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from gazeprivacy.data.recording import Dataset
from gazeprivacy.data.simulate import simulate_dataset
from script_helpers import load_script


def _split(ds, n_train):
    people = sorted(ds.participants)
    train = set(people[:n_train])
    return (ds.select(lambda r: r.participant in train),
            ds.select(lambda r: r.participant not in train))


def test_a_label_in_the_gaze_is_found_and_one_beside_it_is_chance():
    """Simulated reading against free viewing (12 people, 12 s at 60 Hz; 8 train, 4 test) is
    told apart far above chance (balanced accuracy above 0.85 with every feature). A label
    independent of the gaze -- the session of the same free viewing, twice per person (20
    people, 8 s; 10 train, 10 test) -- reads chance: 0.5 within 0.15 (over six simulated data
    sets its readings spread by 0.04 around 0.5)."""
    mod = load_script("task_in_raw.py")
    ds = simulate_dataset(n_participants=12, tasks=("reading", "free-viewing"), duration_s=12.0,
                          sampling_rate_hz=60, rng=np.random.default_rng(0))
    train, test = _split(ds, 8)
    found = mod.raw_task(train, test, "task", window_s=1.0, rng=np.random.default_rng(1))
    assert set(found) == set(mod.FEATURE_SETS)
    assert found["all"] > 0.85, found
    ds = simulate_dataset(n_participants=20, tasks=("free-viewing",), recordings_per_task=2,
                          duration_s=8.0, sampling_rate_hz=60, rng=np.random.default_rng(0))
    train, test = _split(ds, 10)
    none = mod.raw_task(train, test, "session", window_s=1.0, rng=np.random.default_rng(1))
    assert abs(none["all"] - 0.5) < 0.15, none


def test_a_label_with_one_value_on_a_side_reads_nan():
    mod = load_script("task_in_raw.py")
    ds = simulate_dataset(n_participants=4, tasks=("free-viewing",), duration_s=3.0,
                          sampling_rate_hz=60, rng=np.random.default_rng(0))
    train, test = _split(ds, 2)
    out = mod.raw_task(train, test, "task", window_s=1.0, rng=np.random.default_rng(1))
    assert all(np.isnan(v) for v in out.values())


def test_windows_without_the_label_are_left_out_not_a_class_of_their_own():
    """Test recordings that lack the label are not scored (a "None" class would be a label no
    training window has); a training side whose only labelled recordings share one value reads
    NaN."""
    mod = load_script("task_in_raw.py")
    ds = simulate_dataset(n_participants=12, tasks=("reading", "free-viewing"), duration_s=12.0,
                          sampling_rate_hz=60, rng=np.random.default_rng(0))
    train, test = _split(ds, 8)
    unlabelled = [replace(r, labels={}) for r in test.recordings[:2]]
    part = Dataset(recordings=(*unlabelled, *test.recordings[2:]), name=test.name)
    out = mod.raw_task(train, part, "task", window_s=1.0, rng=np.random.default_rng(1))
    assert out["all"] > 0.85, out
    one_value = train.select(lambda r: r.labels["task"] == "reading")
    bare = Dataset(recordings=(*one_value.recordings,
                               *(replace(r, labels={}) for r in train.recordings
                                 if r.labels["task"] != "reading")), name=train.name)
    assert all(np.isnan(v) for v in mod.raw_task(bare, test, "task", window_s=1.0,
                                                  rng=np.random.default_rng(1)).values())
