# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Engine ``dask``: same output as engine ``local`` for a seed, errors naming the partition,
the scheduler-address path and the CLI. One local cluster of 2 worker processes per module."""

from __future__ import annotations

import json

import dask
import numpy as np
import pytest
from typer.testing import CliRunner

from gazeprivacy.cli.app import app
from gazeprivacy.data import Dataset
from gazeprivacy.data.partitioned import MANIFEST, PartitionedDataset, write_partitioned
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.engines import (
    combine_guarantees,
    partition_streams,
    plan_for,
    protect_partitioned,
    read_guarantee,
    run_plan_local,
)
from gazeprivacy.engines.dask import PartitionTaskError, _partition_error, local_cluster, run_plan
from gazeprivacy.exceptions import (
    InvalidDataError,
    InvalidParameterError,
    NotFormallyPrivateWarning,
)
from gazeprivacy.mechanisms.release import TEST_ONLY_KEY_ENV


@pytest.fixture(autouse=True)
def _fixed_pseudonym_key(monkeypatch):
    """Equal outputs of two seeded runs need equal pseudonyms (rows are in pseudonym order):
    the test-only key; a seed never fixes it."""
    monkeypatch.setenv(TEST_ONLY_KEY_ENV, bytes(range(32)).hex())


CASES = {
    "dpgazesynth": {"epsilon": 3.0, "grid_size": 8},
    "kaleido": {"epsilon": 1.0, "radius_deg": 2.0, "window_samples": 25},
    # its curator's model is a dict over all recordings (scattered whole, not split)
    "k-same-synth": {"k": 2, "group_by": "task"},
}


@pytest.fixture(scope="module")
def scheduler():
    """Address of a 2-worker local cluster. Worker threads that talk TCP: tasks, plans, streams,
    messages and the model are serialised as on a real cluster, without the start-up of worker
    processes (the CLI test below starts the default cluster of worker processes)."""
    with local_cluster(2, processes=False, protocol="tcp://") as cluster:
        assert cluster.scheduler_address.startswith("tcp://")
        yield cluster.scheduler_address


@pytest.fixture(scope="module")
def src(tmp_path_factory):
    ds = simulate_dataset(n_participants=3, tasks=("reading", "free-viewing"), duration_s=3.0,
                          sampling_rate_hz=100, rng=np.random.default_rng(11))
    # 6 recordings in 3 partitions; participants span partitions
    return write_partitioned(ds, tmp_path_factory.mktemp("dask") / "in",
                             recordings_per_partition=2)


def _without_engine_note(g):
    d = json.loads(g.to_json())
    d["notes"] = [n.replace("engine 'dask'", "engine 'local'") for n in d["notes"]]
    return d


@pytest.mark.parametrize("mechanism", sorted(CASES))
def test_dask_output_equals_local_bit_for_bit(mechanism, src, scheduler, tmp_path):
    kw = CASES[mechanism]
    loc = protect_partitioned(src, tmp_path / "local", mechanism=mechanism, seed=21,
                              public=["mask"], **kw)
    dsk = protect_partitioned(src, tmp_path / "dask", mechanism=mechanism, seed=21,
                              engine="dask", scheduler=scheduler, public=["mask"], **kw)
    a, b = PartitionedDataset(tmp_path / "local"), PartitionedDataset(tmp_path / "dask")
    assert a.partitions == b.partitions and (a.name, a.info) == (b.name, b.info)
    assert b.n_partitions == src.n_partitions == 3
    # each task wrote its file (beside, then renamed: no temporary files left), driver the rest
    assert sorted(f.name for f in (tmp_path / "dask").iterdir()) == [
        MANIFEST, "guarantee.json", "part-00000.parquet", "part-00001.parquet",
        "part-00002.parquet"]
    raw_ids = {r.recording for p in src for r in p}
    for pa, pb, raw in zip(a, b, src, strict=True):
        for ra, rb in zip(pa, pb, strict=True):
            assert ra.recording == rb.recording and rb.recording not in raw_ids  # pseudonyms
            np.testing.assert_array_equal(ra.x, rb.x)
            np.testing.assert_array_equal(ra.y, rb.y)
            np.testing.assert_array_equal(ra.t, rb.t)
            assert not any(np.array_equal(rb.x, rr.x, equal_nan=True) for rr in raw)
    # the combined record: identical but for the engine named in the note
    assert _without_engine_note(read_guarantee(tmp_path / "dask")) == _without_engine_note(
        read_guarantee(tmp_path / "local"))
    assert any("engine 'dask'" in n for n in dsk.guarantee.notes)
    assert loc.guarantee.per_participant == dsk.guarantee.per_participant
    # and partition by partition, straight from the engines
    plan, streams = plan_for(mechanism, **kw), partition_streams(21, src.n_partitions)
    local_records = run_plan_local(src, plan, streams)
    dask_records = run_plan(src.path, plan, streams, scheduler=scheduler,
                            write_to=tmp_path / "again")
    assert [r.to_json() for r in dask_records] == [r.to_json() for r in local_records]
    assert combine_guarantees(dask_records) == combine_guarantees(local_records)


def test_another_seed_gives_another_output(src, scheduler, tmp_path):
    plan = plan_for("dpgazesynth", **CASES["dpgazesynth"])
    one = run_plan(src, plan, partition_streams(1, 3), scheduler=scheduler)
    two = run_plan(src, plan, partition_streams(2, 3), scheduler=scheduler, progress=True)
    # without write_to: the releases come back to the driver, in partition order
    assert [[r.recording for r in rel.output] for rel in one] == [
        list(p.recordings) for p in src.partitions]
    assert not np.array_equal(one[0].output[0].x, two[0].output[0].x)


def test_failing_partition_names_partition_and_keeps_message(src, scheduler, tmp_path):
    bad = tmp_path / "bad"
    write_partitioned(list(src), bad)
    (bad / "part-00001.parquet").write_bytes(b"not a parquet file")
    plan = plan_for("dpgazesynth", **CASES["dpgazesynth"])
    with pytest.raises(InvalidDataError,
                       match=r"partition 1 \(part-00001\.parquet\), client phase: .*corrupt"
                       ) as info:
        run_plan(bad, plan, partition_streams(0, 3), scheduler=scheduler,
                 write_to=tmp_path / "out")
    assert isinstance(info.value.__cause__, InvalidDataError)  # the worker's own error
    assert not (tmp_path / "out" / MANIFEST).exists()  # no manifest: the output is refused
    with pytest.raises(InvalidDataError, match="no _gazeprivacy.json"):
        PartitionedDataset(tmp_path / "out")


def test_foreign_errors_become_partition_task_errors():
    err = _partition_error(ZeroDivisionError("division by zero"), 4, "part-00004.parquet",
                           "release")
    assert isinstance(err, PartitionTaskError)
    assert str(err) == ("partition 4 (part-00004.parquet), release phase: division by zero "
                        "(ZeroDivisionError)")
    missing = ModuleNotFoundError("No module named 'gazeprivacy'", name="gazeprivacy")
    assert "install the same gazeprivacy version on every Dask worker" in str(
        _partition_error(missing, 0, "part-00000.parquet", "client"))


def test_task_warnings_reach_the_driver(src, scheduler, tmp_path):
    # in-process worker threads emit them directly; worker processes hand them back (CLI test)
    plan = plan_for("dpgazesynth", epsilon=3.0, grid_size=8, mode="paper")
    with pytest.warns(NotFormallyPrivateWarning, match="paper mode"):
        run_plan(src, plan, partition_streams(0, 3), scheduler=scheduler,
                 write_to=tmp_path / "out")
    assert PartitionedDataset(tmp_path / "out").n_partitions == 3


def test_cli_protect_engine_dask_with_scheduler(src, scheduler, tmp_path):
    args = ["protect", str(src.path), str(tmp_path / "out"), "--mechanism", "dpgazesynth",
            "--epsilon", "3", "--grid-size", "8", "--seed", "5", "--engine", "dask",
            "--public", "mask"]
    res = CliRunner().invoke(app, [*args, "--scheduler", scheduler])
    assert res.exit_code == 0, res.output + repr(res.exception)
    assert "engine dask" in " ".join(res.output.split())
    local = protect_partitioned(src, tmp_path / "local", mechanism="dpgazesynth", seed=5,
                                epsilon=3.0, grid_size=8, public=["mask"]).output
    for pa, pb in zip(local, PartitionedDataset(tmp_path / "out"), strict=True):
        for ra, rb in zip(pa, pb, strict=True):
            np.testing.assert_array_equal(ra.x, rb.x)
    assert read_guarantee(tmp_path / "out").seed is None  # a written release keeps no seed
    # an unreachable scheduler: an error naming the address and the way out
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):  # default 30 s
        res = CliRunner().invoke(app, [*args, "--overwrite", "--scheduler",
                                       "tcp://127.0.0.1:1"])
    assert isinstance(res.exception, InvalidParameterError)  # main() makes it exit code 2
    assert "cannot reach the Dask scheduler at 'tcp://127.0.0.1:1'" in str(res.exception)


@pytest.mark.slow
def test_cli_protect_engine_dask_starts_a_local_cluster_of_processes(src, tmp_path):
    """No --scheduler: a local cluster of worker processes (they import gazeprivacy from the
    inherited PYTHONPATH or the installed package); the output still equals engine local's,
    and paper mode's warning, raised on the workers, reaches the user once."""
    res = CliRunner().invoke(app, ["protect", str(src.path), str(tmp_path / "out"),
                                   "--mechanism", "dpgazesynth", "--epsilon", "3",
                                   "--grid-size", "8", "--mode", "paper", "--seed", "6",
                                   "--engine", "dask", "--public", "mask"])
    assert res.exit_code == 0, res.output + repr(res.exception)
    text = " ".join(res.output.split())
    assert text.count("warning: DPGazeSynth paper mode releases the number of runs") == 1
    with pytest.warns(NotFormallyPrivateWarning, match="paper mode"):
        local = protect_partitioned(src, tmp_path / "local", mechanism="dpgazesynth", seed=6,
                                    epsilon=3.0, grid_size=8, mode="paper", public=["mask"])
    out = PartitionedDataset(tmp_path / "out")
    assert out.partitions == local.output.partitions
    for pa, pb in zip(local.output, out, strict=True):
        for ra, rb in zip(pa, pb, strict=True):
            np.testing.assert_array_equal(ra.x, rb.x)
            np.testing.assert_array_equal(ra.y, rb.y)
    assert _without_engine_note(read_guarantee(tmp_path / "out")) == _without_engine_note(
        local.guarantee)


PARTICIPANT = {"epsilon": 3.0, "grid_size": 8, "unit": "participant",
               "windows_per_participant": 2, "missing": "fill"}


def test_participant_level_on_dask_equals_local_bit_for_bit(src, scheduler, tmp_path):
    # partitions of 3 recordings: p02 spans partitions 0 and 1, its m windows drawn across them
    whole = Dataset(tuple(r for part in src for r in part), name=src.name)
    src = write_partitioned(whole, tmp_path / "in", recordings_per_partition=3)
    assert set(src.partitions[0].participants) & set(src.partitions[1].participants)
    loc = protect_partitioned(src, tmp_path / "local", mechanism="dpgazesynth", seed=21,
                              **PARTICIPANT)
    res = CliRunner().invoke(app, [
        "protect", str(src.path), str(tmp_path / "dask"), "--mechanism", "dpgazesynth",
        "--per-participant-epsilon", "3", "--windows-per-participant", "2", "--grid-size", "8",
        "--param", "missing=fill", "--seed", "21", "--engine", "dask", "--scheduler",
        scheduler])
    assert res.exit_code == 0, res.output + repr(res.exception)
    for pa in loc.output.partitions:  # the same bytes
        assert (tmp_path / "local" / pa.file).read_bytes() == (
            tmp_path / "dask" / pa.file).read_bytes()
    assert _without_engine_note(read_guarantee(tmp_path / "dask")) == _without_engine_note(
        loc.guarantee)
    assert {b.units for b in loc.guarantee.per_participant.values()} == {2}


def test_participant_synth_runs_partition_wise_on_both_engines(scheduler, tmp_path):
    # partitions of 3 recordings: participants p01, p02, p03 are split across two partitions
    # each (their raw parts merged on the driver, normalised whole); the synthetic population's
    # recordings are set by its parameters, not the input's (the engines accept that)
    ds = simulate_dataset(n_participants=4, tasks=("free-viewing", "reading"),
                          recordings_per_task=2, duration_s=3.0, sampling_rate_hz=100,
                          rng=np.random.default_rng(11))
    src = write_partitioned(ds, tmp_path / "in", recordings_per_partition=3)
    assert set(src.partitions[0].participants) & set(src.partitions[1].participants)
    kw = {"epsilon_per_participant": 3.0, "delta": 1e-6, "output_length_s": 1.5,
          "public_labels": ("task",), "n_participants": 6}
    loc = protect_partitioned(src, tmp_path / "local", mechanism="participant-synth", seed=3,
                              public=["task"], **kw)
    res = CliRunner().invoke(app, [
        "protect", str(src.path), str(tmp_path / "dask"), "--mechanism", "participant-synth",
        "--per-participant-epsilon", "3", "--per-participant-delta", "1e-6",
        "--output-length-s", "1.5", "--public", "task", "--participants", "6", "--seed", "3",
        "--engine", "dask", "--scheduler", scheduler])
    assert res.exit_code == 0, res.output + repr(res.exception)
    dsk = PartitionedDataset(tmp_path / "dask")
    assert loc.output.n_partitions == dsk.n_partitions == 6
    n = [sum(r.n_samples for r in p) for p in loc.output]
    assert n == [sum(r.n_samples for r in p) for p in dsk] and all(n)
    for pa, pb in zip(loc.output, dsk, strict=True):
        for ra, rb in zip(pa, pb, strict=True):
            np.testing.assert_array_equal(ra.x, rb.x)
            np.testing.assert_array_equal(ra.y, rb.y)
    assert loc.guarantee.kind.value == "rho-zCDP"
    assert _without_engine_note(read_guarantee(tmp_path / "dask")) == _without_engine_note(
        loc.guarantee)
    assert {b.units for b in loc.guarantee.per_participant.values()} == {1}
