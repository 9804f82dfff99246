# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
import json

import numpy as np
import polars as pl
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
MASK = {"public": ["mask"]}  # the simulated blinks stay NaN rows: the mask is declared public


def to_raw(id_map) -> dict[str, str]:
    ids = pl.read_csv(id_map)
    return dict(zip(ids["pseudonym"], ids["raw"], strict=True))


@pytest.fixture(scope="module")
def ds():
    return simulate_dataset(n_participants=3, tasks=("reading", "free-viewing"), duration_s=2.0,
                            sampling_rate_hz=100, rng=np.random.default_rng(2))


@pytest.fixture
def src(ds, tmp_path):
    return write_partitioned(ds, tmp_path / "in", recordings_per_partition=3)


def test_protect_partitioned_writes_partitions_manifest_and_guarantee(ds, src, tmp_path):
    rel = protect_partitioned(src, tmp_path / "out", mechanism="dpgazesynth", seed=4, **DGS,
                              **MASK, id_map_path=tmp_path / "ids.csv")
    out = PartitionedDataset(tmp_path / "out")
    raw = to_raw(tmp_path / "ids.csv")
    assert out.n_partitions == src.n_partitions
    # sealed: pseudonyms (one key for all partitions), in pseudonym order within a partition
    assert [sorted(raw[r] for r in p.recordings) for p in out.partitions] == [
        sorted(p.recordings) for p in src.partitions]
    for p in out.partitions:  # ordered by (participant, recording) pseudonym
        pairs = list(zip(p.participants, p.recordings, strict=True))
        assert pairs == sorted(pairs)
    assert [p.n_samples for p in out.partitions] == [p.n_samples for p in src.partitions]
    assert out.name == "release" and out.info == {}
    assert out.partition(0).to_table().columns == ["participant", "recording", "t", "x", "y"]
    g = read_guarantee(tmp_path / "out")
    assert g == rel.guarantee and g.seed == 4
    assert g.column("mask").status.value == "public-declared"
    whole = protect(ds, mechanism="dpgazesynth", seed=4, **DGS).guarantee
    assert {raw[k]: b.epsilon for k, b in g.per_participant.items()} == pytest.approx(
        {k: b.epsilon for k, b in whole.per_participant.items()})
    assert any("partition-wise" in n for n in g.notes)
    json.loads((tmp_path / "out" / "guarantee.json").read_text())


def test_same_seed_same_output_and_equal_to_in_memory_partitions(ds, src, tmp_path):
    a = protect_partitioned(src, tmp_path / "a", mechanism="dpgazesynth", seed=9, **DGS,
                            **MASK, id_map_path=tmp_path / "ids.csv").output
    b = protect_partitioned(src.path, tmp_path / "b", mechanism="dpgazesynth", seed=9,
                            **DGS, **MASK).output
    raw = to_raw(tmp_path / "ids.csv")
    plan = plan_for("dpgazesynth", **DGS)
    mem = run_plan_local(split_dataset(ds, 3), plan, partition_streams(9, 2))
    assert len(mem) == 2
    for pa, pb in zip(a, b, strict=True):
        for ra, rb in zip(pa, pb, strict=True):
            np.testing.assert_array_equal(ra.x, rb.x)
    stream = iter_protected(split_dataset(ds, 3), mechanism="dpgazesynth", seed=9, **DGS)
    for (_, prot), pa in zip(stream, a, strict=True):
        for r2 in pa:  # the in-memory stream keeps raw ids; the written one is sealed
            r1 = prot[raw[r2.recording]]
            np.testing.assert_array_equal(r1.x, r2.x)
            np.testing.assert_array_equal(r1.y, r2.y)
    assert stream.guarantee.per_participant == {
        raw[k]: v for k, v in read_guarantee(tmp_path / "a").per_participant.items()}


def test_refusals(ds, src, tmp_path):
    protect_partitioned(src, tmp_path / "o", mechanism="kaleido", epsilon=1.0, radius_deg=1.0,
                        window_samples=10, seed=1, **MASK)
    with pytest.raises(InvalidParameterError, match="not empty"):
        protect_partitioned(src, tmp_path / "o", mechanism="kaleido", epsilon=1.0,
                            radius_deg=1.0, window_samples=10, seed=1, **MASK)
    protect_partitioned(src, tmp_path / "o", mechanism="kaleido", epsilon=1.0, radius_deg=1.0,
                        window_samples=10, seed=1, overwrite=True, **MASK)
    with pytest.raises(InvalidParameterError, match="is the input"):
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


def test_partitions_are_sealed_with_one_pseudonym_per_participant(ds, src, tmp_path):
    # participant p02's recordings span both partitions (3 participants x 2 tasks, 3 per part)
    spanning = set(src.partitions[0].participants) & set(src.partitions[1].participants)
    assert spanning
    protect_partitioned(src, tmp_path / "o", mechanism="kaleido", epsilon=1.0, radius_deg=1.0,
                        window_samples=10, seed=2, public=["mask", "task"],
                        id_map_path=tmp_path / "ids.csv")
    out = PartitionedDataset(tmp_path / "o")
    raw = to_raw(tmp_path / "ids.csv")
    pseudo = {v: k for k, v in raw.items()}
    for pid in spanning:
        assert pseudo[pid] in out.partitions[0].participants
        assert pseudo[pid] in out.partitions[1].participants
    for part in out:
        assert part.to_table().columns == ["participant", "recording", "t", "x", "y", "task"]
        assert all(r.pupil is None and not r.channels for r in part)
    text = (tmp_path / "o" / "_gazeprivacy.json").read_text() + (
        tmp_path / "o" / "guarantee.json").read_text()
    assert not any(r.recording in text or r.participant in text for r in ds)
    g = read_guarantee(tmp_path / "o")
    assert g.column("pupil").status.value == "not-written"
    assert g.column("task").status.value == "public-declared"
    with pytest.raises(InvalidParameterError, match="missing-sample mask"):
        protect_partitioned(src, tmp_path / "nomask", mechanism="kaleido", epsilon=1.0,
                            radius_deg=1.0, window_samples=10, seed=2)
