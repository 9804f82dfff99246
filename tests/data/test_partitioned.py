# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
import numpy as np
import pytest

from gazeprivacy.data.partitioned import (
    MANIFEST,
    PartitionedDataset,
    PartitionWriter,
    is_partitioned,
    split_dataset,
    write_partitioned,
)
from gazeprivacy.data.recording import Dataset
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError


@pytest.fixture
def ds():
    return simulate_dataset(n_participants=3, tasks=("reading", "free-viewing"), duration_s=1.5,
                            sampling_rate_hz=100, rng=np.random.default_rng(1))


def test_round_trip_keeps_every_recording_and_sample(ds, tmp_path):
    pds = write_partitioned(ds, tmp_path / "p", recordings_per_partition=4)
    assert is_partitioned(tmp_path / "p")
    assert pds.n_partitions == 2 and pds.n_recordings == len(ds)
    assert pds.participants == ds.participants
    assert pds.recordings_per_participant() == {p: 2 for p in ds.participants}
    back = [r for part in pds for r in part]
    assert [r.recording for r in back] == [r.recording for r in ds]
    for a, b in zip(back, ds, strict=True):
        np.testing.assert_array_equal(a.x, b.x)
        np.testing.assert_array_equal(a.t, b.t)
        assert a.labels == b.labels and a.participant == b.participant
        assert a.sampling_rate_hz == b.sampling_rate_hz and a.geometry == b.geometry


def test_interrupted_writer_leaves_no_manifest_and_is_refused(ds, tmp_path):
    with pytest.raises(RuntimeError), PartitionWriter(tmp_path / "p", name="x") as w:
        w.write(split_dataset(ds, 2)[0])
        raise RuntimeError("crash")
    assert not (tmp_path / "p" / MANIFEST).exists()
    with pytest.raises(InvalidDataError, match="no _gazeprivacy.json"):
        PartitionedDataset(tmp_path / "p")


def test_existing_folder_needs_overwrite(ds, tmp_path):
    write_partitioned(ds, tmp_path / "p", recordings_per_partition=6)
    with pytest.raises(InvalidParameterError, match="overwrite"):
        write_partitioned(ds, tmp_path / "p", recordings_per_partition=6)
    pds = write_partitioned(ds, tmp_path / "p", recordings_per_partition=1, overwrite=True)
    assert pds.n_partitions == len(ds)
    assert len(list((tmp_path / "p").glob("part-*.parquet"))) == len(ds)


def test_duplicate_recording_ids_and_empty_partitions_refused(ds, tmp_path):
    w = PartitionWriter(tmp_path / "p")
    w.write(split_dataset(ds, 2)[0])
    with pytest.raises(InvalidDataError, match="unique"):
        w.write(split_dataset(ds, 2)[0])
    with pytest.raises(InvalidDataError, match="empty"):
        w.write(Dataset((), name="e"))


def test_corrupt_manifest_and_missing_partition(ds, tmp_path):
    write_partitioned(ds, tmp_path / "p", recordings_per_partition=4)
    (tmp_path / "p" / "part-00001.parquet").unlink()
    with pytest.raises(InvalidDataError, match="missing"):
        PartitionedDataset(tmp_path / "p")
    (tmp_path / "p" / MANIFEST).write_text("{not json")
    with pytest.raises(InvalidDataError, match="corrupt"):
        PartitionedDataset(tmp_path / "p")


def test_iterable_of_partitions_and_bad_sizes(ds, tmp_path):
    pds = write_partitioned(iter(split_dataset(ds, 3)), tmp_path / "p")
    assert pds.n_partitions == 2 and pds.name == ds.name
    with pytest.raises(InvalidParameterError, match="recordings_per_partition"):
        split_dataset(ds, 0)
    with pytest.raises(InvalidParameterError, match="required"):
        write_partitioned(ds, tmp_path / "q")
    with pytest.raises(InvalidDataError, match="nothing to write"):
        write_partitioned(iter(()), tmp_path / "r")
    with pytest.raises(IndexError):
        pds.partition(5)


def test_write_manifest_for_partitions_written_by_parallel_workers(ds, tmp_path):
    from gazeprivacy.data.io import write_dataset
    from gazeprivacy.data.partitioned import PartitionInfo, write_manifest

    infos = []
    for i, part in enumerate(split_dataset(ds, 4)):
        write_dataset(part, tmp_path / f"part-{i:05d}.parquet")
        infos.append(PartitionInfo(file=f"part-{i:05d}.parquet",
                                   recordings=tuple(r.recording for r in part),
                                   participants=tuple(r.participant for r in part),
                                   n_samples=part.n_samples))
    pds = write_manifest(tmp_path, infos, name="w", info={"a": 1})
    assert pds.n_recordings == len(ds) and pds.name == "w" and pds.info == {"a": 1}
    assert [r.recording for part in pds for r in part] == [r.recording for r in ds]
    with pytest.raises(InvalidDataError, match="unique"):
        write_manifest(tmp_path, [infos[0], infos[0]])
