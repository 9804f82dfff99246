# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``evaluate`` on a partitioned dataset equals the in-memory run when the same partition
streams are used."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import polars as pl
import pytest

from evaluate_helpers import fake_featurizer, tiny_dataset
from gazeprivacy.data.partitioned import split_dataset, write_partitioned
from gazeprivacy.data.recording import Dataset
from gazeprivacy.engines import iter_protected
from gazeprivacy.experiments.config import ConfigError, parse_config
from gazeprivacy.experiments.engine import run_experiment
from gazeprivacy.guarantees import Release
from gazeprivacy.mechanisms import MECHANISMS

RPP = 5  # 16 recordings -> partitions of 5, 5, 5, 1; participants span partitions


def _partitionwise_in_memory(mechanism):
    """The in-memory stand-in: the same plan over the same split, the same streams."""
    def protect(dataset, params, *, rng, progress=False):
        stream = iter_protected(split_dataset(dataset, RPP), mechanism=mechanism,
                                params=params, seed=rng.bit_generator.seed_seq)
        recs = tuple(r for _, prot in stream for r in prot)
        return Release(Dataset(recs, name=dataset.name, info=dataset.info), stream.guarantee)
    spec = MECHANISMS[mechanism]
    return dataclasses.replace(spec, run=protect)


def _config(dataset):
    return parse_config({
        "name": "s", "seeds": [0], "datasets": [dataset],
        "mechanisms": [
            {"name": "kaleido", "preset": "params", "grid": {"epsilon": [0.5, 5.0]},
             "fixed": {"radius_deg": 2.0, "window_samples": 25}},
            {"name": "dpgazesynth", "preset": "params", "grid": {"epsilon": [2.0]},
             "fixed": {"grid_size": 8}}],
        "attacks": [{"kind": "reidentification", "classifier": "knn", "n_splits": 2},
                    {"kind": "attribute", "attribute": "gender", "classifier": "knn",
                     "threat": "seed004"}],
        "utility": [{"label": "task", "n_splits": 1, "n_trees": 10}]})


@pytest.fixture(scope="module")
def tiny():
    return tiny_dataset(n_participants=4, n_stimuli=4, n_samples=300)


def test_partitioned_evaluate_equals_in_memory_with_the_same_streams(tmp_path, tiny):
    write_partitioned(tiny, tmp_path / "parts", recordings_per_partition=RPP)
    streamed = run_experiment(
        _config({"name": "tiny", "source": "file", "path": str(tmp_path / "parts")}),
        tmp_path / "streamed", workers=1, featurizer=fake_featurizer)
    registry = {m: _partitionwise_in_memory(m) for m in ("kaleido", "dpgazesynth")}
    memory = run_experiment(_config({"name": "tiny", "source": "injected"}), tmp_path / "mem",
                            workers=1, featurizer=fake_featurizer, registry=registry,
                            datasets={"tiny": tiny})
    assert streamed.results.height == 4 * 11  # (raw + 3 points) x 11 metrics (with accuracy_se)
    assert streamed.results.equals(memory.results)
    assert streamed.guarantees == memory.guarantees
    # raw features: the per-partition cache equals the whole-dataset one
    (a,) = (tmp_path / "streamed" / "cache").glob("*.parquet")
    (b,) = (tmp_path / "mem" / "cache").glob("*.parquet")
    assert pl.read_parquet(a).equals(pl.read_parquet(b))
    sa = json.loads((tmp_path / "streamed" / "data_summary.json").read_text())["tiny"]
    sb = json.loads((tmp_path / "mem" / "data_summary.json").read_text())["tiny"]
    assert sa.pop("partitions") == 4
    assert sa == sb
    # participants spanning partitions are composed over all of them
    g = streamed.guarantees[0]["guarantee"]
    assert g["per_participant"]["p0"]["units"] == 4 * 12  # 4 recordings x ceil(300 / 25)


def test_partitioned_evaluate_notes_skipped_fidelity_and_refuses_unplannable(tmp_path, tiny):
    write_partitioned(tiny, tmp_path / "parts", recordings_per_partition=8)
    ds = {"name": "tiny", "source": "file", "path": str(tmp_path / "parts")}
    cfg = parse_config({
        "name": "s", "seeds": [0], "datasets": [ds],
        "mechanisms": [{"name": "kaleido", "preset": "params", "grid": {"epsilon": [1.0]},
                        "fixed": {"radius_deg": 2.0, "window_samples": 25}}],
        "attacks": [{"kind": "reidentification", "classifier": "knn", "n_splits": 2}],
        "fidelity": ["rmse"]})
    res = run_experiment(cfg, tmp_path / "o", workers=1, featurizer=fake_featurizer)
    assert any("fidelity metrics skipped" in n for n in res.notes)
    bad = parse_config({
        "name": "s", "seeds": [0], "datasets": [ds],
        "mechanisms": [{"name": "event-synth-pd", "preset": "params",
                        "grid": {"k": [2]}, "fixed": {"gamma": 2.0, "mode": "paper"}}],
        "attacks": [{"kind": "reidentification", "classifier": "knn", "n_splits": 2}]})
    with pytest.raises(ConfigError, match="partitioned.*partition-wise"):
        run_experiment(bad, tmp_path / "bad", workers=1, featurizer=fake_featurizer)


def test_raw_features_stream_to_one_file(tmp_path, tiny):
    from gazeprivacy.data.partitioned import PartitionedDataset
    from gazeprivacy.experiments.streaming import featurize_partitions, raw_pass

    pds = write_partitioned(tiny, tmp_path / "p", recordings_per_partition=3)
    n = featurize_partitions(PartitionedDataset(pds.path), fake_featurizer, tmp_path / "f.pq")
    whole = fake_featurizer(tiny)
    assert n == whole.height
    assert pl.read_parquet(tmp_path / "f.pq").equals(whole)
    skel, summ = raw_pass(pds, None, None)
    assert [r.recording for r in skel] == [r.recording for r in tiny]
    assert all(r.n_samples == 1 and np.isnan(r.x).all() for r in skel)
    assert summ["samples"] == tiny.n_samples and summ["partitions"] == 6


@pytest.mark.parametrize("extra", [
    {"attacks": [{"kind": "linkage", "quasi_identifiers": ["gender"], "k": 2}]},
    {"utility": [{"kind": "gaze-prediction"}]},
])
def test_partitioned_dataset_refuses_evaluations_that_need_whole_datasets(tmp_path, tiny,
                                                                           extra):
    write_partitioned(tiny, tmp_path / "parts", recordings_per_partition=8)
    cfg = parse_config({
        "name": "s", "seeds": [0],
        "datasets": [{"name": "tiny", "source": "file", "path": str(tmp_path / "parts")}],
        "mechanisms": [{"name": "kaleido", "preset": "params", "grid": {"epsilon": [1.0]},
                        "fixed": {"radius_deg": 2.0, "window_samples": 25}}],
        "attacks": [{"kind": "reidentification", "classifier": "knn", "n_splits": 2}],
        **extra})
    with pytest.raises(ConfigError, match="need.*whole datasets"):
        run_experiment(cfg, tmp_path / "o", workers=1, featurizer=fake_featurizer)
