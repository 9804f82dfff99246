# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
import json

import numpy as np
import pytest

from gazeprivacy.data.partitioned import PartitionedDataset, split_dataset, write_partitioned
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.engines import (
    iter_protected,
    partition_streams,
    plan_for,
    protect_partitioned,
    read_guarantee,
    run_plan_local,
)
from gazeprivacy.exceptions import InvalidParameterError, MissingDependencyError
from gazeprivacy.mechanisms import protect

DGS = {"epsilon": 3.0, "grid_size": 8}


@pytest.fixture(scope="module")
def ds():
    return simulate_dataset(n_participants=3, tasks=("reading", "free-viewing"), duration_s=2.0,
                            sampling_rate_hz=100, rng=np.random.default_rng(2))


@pytest.fixture
def src(ds, tmp_path):
    return write_partitioned(ds, tmp_path / "in", recordings_per_partition=3)


def test_protect_partitioned_writes_partitions_manifest_and_guarantee(ds, src, tmp_path):
    rel = protect_partitioned(src, tmp_path / "out", mechanism="dpgazesynth", seed=4, **DGS)
    out = PartitionedDataset(tmp_path / "out")
    assert out.n_partitions == src.n_partitions
    assert [p.recordings for p in out.partitions] == [p.recordings for p in src.partitions]
    assert [p.n_samples for p in out.partitions] == [p.n_samples for p in src.partitions]
    g = read_guarantee(tmp_path / "out")
    assert g == rel.guarantee and g.seed == 4
    whole = protect(ds, mechanism="dpgazesynth", seed=4, **DGS).guarantee
    assert {k: b.epsilon for k, b in g.per_participant.items()} == pytest.approx(
        {k: b.epsilon for k, b in whole.per_participant.items()})
    assert any("partition-wise" in n for n in g.notes)
    json.loads((tmp_path / "out" / "guarantee.json").read_text())


def test_same_seed_same_output_and_equal_to_in_memory_partitions(ds, src, tmp_path):
    a = protect_partitioned(src, tmp_path / "a", mechanism="dpgazesynth", seed=9, **DGS).output
    b = protect_partitioned(src.path, tmp_path / "b", mechanism="dpgazesynth", seed=9,
                            **DGS).output
    plan = plan_for("dpgazesynth", **DGS)
    mem = run_plan_local(split_dataset(ds, 3), plan, partition_streams(9, 2))
    assert len(mem) == 2
    for pa, pb in zip(a, b, strict=True):
        for ra, rb in zip(pa, pb, strict=True):
            np.testing.assert_array_equal(ra.x, rb.x)
    stream = iter_protected(split_dataset(ds, 3), mechanism="dpgazesynth", seed=9, **DGS)
    for (_, prot), pa in zip(stream, a, strict=True):
        for r1, r2 in zip(prot, pa, strict=True):
            np.testing.assert_array_equal(r1.x, r2.x)
            np.testing.assert_array_equal(r1.y, r2.y)
    assert stream.guarantee.per_participant == read_guarantee(tmp_path / "a").per_participant


def test_refusals(ds, src, tmp_path):
    protect_partitioned(src, tmp_path / "o", mechanism="kaleido", epsilon=1.0, radius_deg=1.0,
                        window_samples=10, seed=1)
    with pytest.raises(InvalidParameterError, match="not empty"):
        protect_partitioned(src, tmp_path / "o", mechanism="kaleido", epsilon=1.0,
                            radius_deg=1.0, window_samples=10, seed=1)
    protect_partitioned(src, tmp_path / "o", mechanism="kaleido", epsilon=1.0, radius_deg=1.0,
                        window_samples=10, seed=1, overwrite=True)
    with pytest.raises(InvalidParameterError, match="input folder"):
        protect_partitioned(src, src.path, mechanism="kaleido", epsilon=1.0, radius_deg=1.0,
                            window_samples=10, overwrite=True)
    with pytest.raises(InvalidParameterError, match="engine must be"):
        protect_partitioned(src, tmp_path / "x", mechanism="kaleido", engine="spark",
                            epsilon=1.0, radius_deg=1.0, window_samples=10)
    with pytest.raises(InvalidParameterError, match="scheduler"):
        protect_partitioned(src, tmp_path / "x", mechanism="kaleido", scheduler="tcp://x:1",
                            epsilon=1.0, radius_deg=1.0, window_samples=10)
    with pytest.raises(InvalidParameterError, match="not a partitioned"):
        protect_partitioned(tmp_path / "nothing", tmp_path / "x", mechanism="kaleido",
                            epsilon=1.0, radius_deg=1.0, window_samples=10)
    with pytest.raises(InvalidParameterError, match="partition-wise"):
        protect_partitioned(src, tmp_path / "x", mechanism="event-synth-pd", k=2, gamma=2.0)
    stream = iter_protected(src, mechanism="kaleido", epsilon=1.0, radius_deg=1.0,
                            window_samples=10)
    with pytest.raises(InvalidParameterError, match="iterate"):
        _ = stream.guarantee


def test_engine_dask_without_the_extra_names_it(src, tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails as if not installed
    with pytest.raises(MissingDependencyError, match=r"gazeprivacy\[distributed\]"):
        protect_partitioned(src, tmp_path / "x", mechanism="kaleido", engine="dask",
                            epsilon=1.0, radius_deg=1.0, window_samples=10)
