# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The runner's raw-feature cache is keyed on the data's content, not its shape."""

from __future__ import annotations

import shutil

from evaluate_helpers import fake_featurizer, fake_registry, tiny_dataset
from gazeprivacy.data.partitioned import PartitionedDataset, write_partitioned
from gazeprivacy.data.recording import Dataset
from gazeprivacy.experiments.config import parse_config
from gazeprivacy.experiments.engine import run_experiment
from gazeprivacy.experiments.featurize import dataset_fingerprint


def _config():
    return parse_config({
        "name": "c", "seeds": [0], "datasets": [{"name": "tiny", "source": "injected"}],
        "mechanisms": [{"name": "fake-noise", "grid": {"epsilon": [5.0]}}],
        "attacks": [{"kind": "reidentification", "classifier": "knn", "n_splits": 2},
                    {"kind": "attribute", "attribute": "gender", "classifier": "knn",
                     "threat": "seed004"}],
        "utility": [{"label": "task", "n_splits": 1, "n_trees": 10}]})


def _run(out, data):
    return run_experiment(_config(), out, registry=fake_registry(), datasets={"tiny": data},
                          featurizer=fake_featurizer, workers=1)


def test_same_shape_different_values_get_fresh_features(tmp_path):
    a = tiny_dataset(n_participants=4, n_stimuli=4, n_samples=300, seed=0)
    b = tiny_dataset(n_participants=4, n_stimuli=4, n_samples=300, seed=1)
    assert (a.name, len(a), a.n_samples) == (b.name, len(b), b.n_samples)
    first = _run(tmp_path / "shared", a)
    shutil.rmtree(tmp_path / "shared" / "cells")  # rerun every cell, keep the feature cache
    again = _run(tmp_path / "shared", b)
    fresh = _run(tmp_path / "fresh", b)
    assert not fresh.results.equals(first.results)  # the data matter to the table ...
    assert again.results.equals(fresh.results)  # ... so a stale cache would show here
    assert len(list((tmp_path / "shared" / "cache").glob("tiny-*-events.parquet"))) == 2


def test_finished_cells_rerun_when_their_data_changed(tmp_path):
    a = tiny_dataset(n_participants=4, n_stimuli=4, n_samples=300, seed=0)
    b = tiny_dataset(n_participants=4, n_stimuli=4, n_samples=300, seed=1)
    first = _run(tmp_path / "shared", a)
    assert (first.n_run, first.n_skipped) == (2, 0)
    changed = _run(tmp_path / "shared", b)
    assert (changed.n_run, changed.n_skipped) == (2, 0)
    assert changed.results.equals(_run(tmp_path / "fresh", b).results)
    same = _run(tmp_path / "shared", b)
    assert (same.n_run, same.n_skipped) == (0, 2)
    assert same.results.equals(changed.results)


def test_fingerprint_follows_values_labels_and_ids_not_object_identity():
    a = tiny_dataset(n_samples=200)
    same = Dataset(tuple(r.with_gaze(r.x.copy(), r.y.copy()) for r in a), name=a.name)
    assert dataset_fingerprint(same) == dataset_fingerprint(a)
    first, *rest = a.recordings
    nudged_x = first.x.copy()
    nudged_x[-1] = nudged_x[-1] + 1e-9
    changes = {
        "one_value": first.with_gaze(nudged_x, first.y),
        "label": first.with_gaze(first.x, first.y, labels={**first.labels, "task": "other"}),
        "participant": first.with_gaze(first.x, first.y, participant="p9"),
        "recording_id": first.with_gaze(first.x, first.y, recording="p9_s9"),
    }
    prints = {k: dataset_fingerprint(Dataset((r, *rest), name=a.name))
              for k, r in changes.items()}
    assert len(set(prints.values()) | {dataset_fingerprint(a)}) == len(changes) + 1


def test_partitioned_fingerprint_changes_when_the_partitions_are_rewritten(tmp_path):
    write_partitioned(tiny_dataset(n_samples=200, seed=0), tmp_path, recordings_per_partition=5)
    before = dataset_fingerprint(PartitionedDataset(tmp_path))
    assert dataset_fingerprint(PartitionedDataset(tmp_path)) == before
    write_partitioned(tiny_dataset(n_samples=200, seed=1), tmp_path,
                      recordings_per_partition=5, overwrite=True)
    assert dataset_fingerprint(PartitionedDataset(tmp_path)) != before
