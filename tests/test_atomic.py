# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy._atomic``: the one output policy and the atomic writers, from the library side
(the command line's matrix is tests/cli/test_output_policy.py)."""

from __future__ import annotations

import errno
import os

import numpy as np
import pytest

from gazeprivacy._atomic import Output, atomic_dir, atomic_files, check_outputs
from gazeprivacy.data.partitioned import PartitionedDataset, PartitionWriter, write_partitioned
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.exceptions import DiskFullError, InvalidParameterError


@pytest.fixture
def ds():
    return simulate_dataset(n_participants=3, tasks=("reading",), duration_s=1.0,
                            sampling_rate_hz=50, rng=np.random.default_rng(0))


def test_links_hard_links_and_folders_holding_an_input_are_refused(tmp_path):
    data = tmp_path / "in.csv"
    data.write_text("raw")
    os.link(data, tmp_path / "hard.csv")
    (tmp_path / "a").symlink_to(data)
    (tmp_path / "b.csv").symlink_to(tmp_path / "a")  # a chain of links
    for out in (tmp_path / "hard.csv", tmp_path / "b.csv"):
        with pytest.raises(InvalidParameterError, match="is the input"):
            check_outputs([Output(out, "OUT")], inputs=[data], overwrite=True)
    with pytest.raises(InvalidParameterError, match="holds the input"):
        check_outputs([Output(tmp_path, "OUT", folder=True)], inputs=[data], overwrite=True)
    with pytest.raises(InvalidParameterError, match="privacy ledger's key"):
        check_outputs([Output(tmp_path / "l.sqlite.key", "OUT")], ledger=tmp_path / "l.sqlite")
    with pytest.raises(InvalidParameterError, match="name the same file"):
        check_outputs([Output(tmp_path / "x.csv", "OUT"), Output(tmp_path / "./x.csv", "MAP")])
    assert data.read_text() == "raw"


def test_a_full_disk_is_named_and_leaves_nothing(tmp_path):
    final = tmp_path / "out.csv"
    final.write_text("old")
    with pytest.raises(DiskFullError, match="disk full"), atomic_files(final) as (tmp,):
        tmp.write_text("half")
        tmp.with_name(tmp.name + ".meta.json").write_text("half")
        raise OSError(errno.ENOSPC, "No space left on device")
    assert final.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == [
        "out.csv"]


def test_a_folder_swap_interrupted_keeps_the_old_folder(tmp_path):
    final = tmp_path / "out"
    final.mkdir()
    (final / "a").write_text("old")
    with pytest.raises(KeyboardInterrupt), atomic_dir(final) as tmp:
        (tmp / "a").write_text("new")
        raise KeyboardInterrupt
    assert (final / "a").read_text() == "old" and len(list(tmp_path.iterdir())) == 1
    with atomic_dir(final) as tmp:
        (tmp / "b").write_text("new")
    assert sorted(p.name for p in final.iterdir()) == ["b"] and len(list(tmp_path.iterdir())) == 1


def test_partition_writer_keeps_the_old_dataset_until_close(ds, tmp_path):
    """The issue's case: an interrupted overwrite used to delete the old parts first."""
    old = write_partitioned(ds, tmp_path / "p", recordings_per_partition=1)
    files = {p.name: p.read_bytes() for p in old.path.iterdir()}
    writer = PartitionWriter(tmp_path / "p", overwrite=True)
    writer.write(type(ds)(ds.recordings[:2], name="new"))
    assert {p.name: p.read_bytes() for p in (tmp_path / "p").iterdir()} == files
    writer.abort()
    assert {p.name: p.read_bytes() for p in (tmp_path / "p").iterdir()} == files
    assert [p.name for p in tmp_path.iterdir()] == ["p"]  # no hidden folder left
    with PartitionWriter(tmp_path / "p", overwrite=True) as writer:
        writer.write(type(ds)(ds.recordings[:2], name="new"))
    assert PartitionedDataset(tmp_path / "p").n_partitions == 1


def test_library_writers_refuse_an_existing_output_without_overwrite(ds, tmp_path):
    from gazeprivacy.guarantees import Release
    from gazeprivacy.mechanisms import protect
    from gazeprivacy.mechanisms.release import write_release

    rel = protect(ds, mechanism="kaleido", epsilon=1.0, radius_deg=1.0, window_samples=10,
                  rng=np.random.default_rng(1))
    rel = Release(rel.output, rel.guarantee)
    out = tmp_path / "r.parquet"
    write_release(rel, out, public=["mask"])
    before = out.read_bytes()
    with pytest.raises(InvalidParameterError, match="already exists"):
        write_release(rel, out, public=["mask"])
    with pytest.raises(InvalidParameterError, match="name the same file"):
        write_release(rel, tmp_path / "s.parquet", id_map_path=tmp_path / "s.parquet")
    assert out.read_bytes() == before
    write_release(rel, out, public=["mask"], overwrite=True)
