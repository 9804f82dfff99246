# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The streaming partitioner gives the partitions of reading the file whole and cutting it."""

import json

import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest

from gazeprivacy.data import partitioning
from gazeprivacy.data.io import read_dataset, write_dataset
from gazeprivacy.data.partitioned import MANIFEST, write_partitioned
from gazeprivacy.data.partitioning import partition_data_file
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.exceptions import InvalidDataError


def _same_partitions(a, b):
    """Manifest, every partition file's rows (NaN = NaN) and gazeprivacy metadata equal."""
    ma, mb = (json.loads((p / MANIFEST).read_text()) for p in (a, b))
    assert ma == mb and len(ma["partitions"]) > 1
    for p in ma["partitions"]:
        fa, fb = a / p["file"], b / p["file"]
        ta, tb = pl.read_parquet(fa), pl.read_parquet(fb)
        assert ta.schema == tb.schema
        assert ta.equals(tb)
        meta = [json.loads(pq.read_metadata(f).metadata[b"gazeprivacy"]) for f in (fa, fb)]
        assert meta[0] == meta[1]


def _whole(src, dest, k, **kw):
    return write_partitioned(read_dataset(src, **kw), dest, recordings_per_partition=k)


@pytest.fixture(autouse=True)
def small_batches(monkeypatch):
    # batches that do not line up with recordings or partitions
    monkeypatch.setattr(partitioning, "_BATCH_ROWS", 37)


def test_parquet_partitions_equal_reading_whole(tmp_path):
    ds = simulate_dataset(n_participants=3, tasks=("reading", "free-viewing"), duration_s=1.5,
                          sampling_rate_hz=100, rng=np.random.default_rng(1))
    tab = ds.to_table()
    n = tab.height
    rng = np.random.default_rng(2)
    # a channel, an exact integer column, and a text column constant in the first recordings
    # but varying in the last one (whole-file: per-sample, in every partition)
    note = np.array(["a"] * n, dtype=object)
    note[-5:] = "b"
    tab = tab.with_columns(pl.Series("conf", rng.random(n)),
                           pl.Series("device_ns", np.arange(n, dtype=np.int64) * 10_000_000),
                           pl.Series("note", note.tolist(), dtype=pl.String))
    src = tmp_path / "in.parquet"
    tab.write_parquet(src)
    for k in (1, 2, 4):
        _whole(src, tmp_path / f"whole{k}", k)
        partition_data_file(src, tmp_path / f"stream{k}", k)
        _same_partitions(tmp_path / f"whole{k}", tmp_path / f"stream{k}")
    # gazeprivacy's own file (metadata: rates, geometry, name)
    own = write_dataset(ds, tmp_path / "own.parquet")
    _whole(own, tmp_path / "w", 4)
    pds = partition_data_file(own, tmp_path / "s", 4)
    _same_partitions(tmp_path / "w", tmp_path / "s")
    assert pds.n_samples == ds.n_samples and pds.name == ds.name


def test_csv_partitions_equal_reading_whole(tmp_path):
    ds = simulate_dataset(n_participants=2, tasks=("reading", "free-viewing"), duration_s=1.0,
                          sampling_rate_hz=50, rng=np.random.default_rng(3))
    tab = ds.to_table()
    n = tab.height
    trial = [None if i % 7 == 0 else "007" for i in range(n)]  # a named label with nulls
    tab = tab.with_columns(pl.Series("trial", trial, dtype=pl.String),
                           pl.Series("blink", ["" if i % 11 else "blink" for i in range(n)]))
    src = tmp_path / "in.csv"
    tab.write_csv(src)
    for k in (1, 3):
        _whole(src, tmp_path / f"whole{k}", k, time_unit="s")
        partition_data_file(src, tmp_path / f"stream{k}", k)
        _same_partitions(tmp_path / f"whole{k}", tmp_path / f"stream{k}")
    first = pl.read_parquet(tmp_path / "stream1" / "part-00000.parquet")
    assert first["trial"].unique().to_list() == ["007"]


def test_refusals_match_reading_whole(tmp_path):
    ds = simulate_dataset(n_participants=2, tasks=("reading",), duration_s=1.0,
                          sampling_rate_hz=50, rng=np.random.default_rng(4))
    tab = ds.to_table()
    norm = tab.with_columns(pl.col("x").abs() / 1e3, pl.col("y").abs() / 1e3)
    px = tab.with_columns(pl.col("x") * 40 + 900, pl.col("y") * 40 + 500)
    wide = tab.with_columns(pl.col("x") * 40 - 240)  # within 360 degrees: the span check
    split = pl.concat([tab.slice(0, 10), tab.slice(60, 10), tab.slice(10, 40)])
    for name, bad, words in (("norm", norm, "within [0, 1]"), ("px", px, "pixels"),
                             ("wide", wide, "more than the 120 degrees"),
                             ("split", split, "not contiguous")):
        f = tmp_path / f"{name}.parquet"
        bad.write_parquet(f)
        with pytest.raises(InvalidDataError, match=words.replace("[", r"\[")) as whole:
            read_dataset(f)
        with pytest.raises(InvalidDataError, match=words.replace("[", r"\[")) as streamed:
            partition_data_file(f, tmp_path / f"out-{name}", 1)
        if name in ("norm", "wide"):  # one check, io's, gives the same message on both paths
            assert str(streamed.value) == str(whole.value)


def test_csv_into_a_new_nested_folder_leaves_no_temporary_file(tmp_path):
    ds = simulate_dataset(n_participants=2, tasks=("reading",), duration_s=1.0,
                          sampling_rate_hz=50, rng=np.random.default_rng(5))
    src = tmp_path / "in.csv"
    ds.to_table().write_csv(src)
    pds = partition_data_file(src, tmp_path / "a" / "b" / "parts", 1)
    assert pds.n_partitions == 2 and pds.n_samples == ds.n_samples
    assert sorted(p.name for p in (tmp_path / "a" / "b").iterdir()) == ["parts"]


def test_overwrite_keeps_the_old_dataset_when_a_late_recording_is_bad(tmp_path):
    ds = simulate_dataset(n_participants=4, tasks=("reading",), duration_s=1.0,
                          sampling_rate_hz=50, rng=np.random.default_rng(6))
    f = write_dataset(ds, tmp_path / "in.parquet")
    partition_data_file(f, tmp_path / "parts", 1)
    before = {p.name: p.read_bytes() for p in (tmp_path / "parts").iterdir()}
    tab = ds.to_table()
    third = tab["recording"].unique(maintain_order=True)[2]
    bad = tmp_path / "bad.parquet"
    tab.with_columns(  # the 3rd recording has two participants
        pl.when((pl.col("recording") == third) & (pl.int_range(pl.len()) % 2 == 0))
        .then(pl.lit("someone-else")).otherwise(pl.col("participant")).alias("participant")
    ).write_parquet(bad)
    with pytest.raises(InvalidDataError, match=third):
        partition_data_file(bad, tmp_path / "parts", 1, overwrite=True)
    assert {p.name: p.read_bytes() for p in (tmp_path / "parts").iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.parquet", "in.parquet", "parts"]
    pds = partition_data_file(f, tmp_path / "parts", 2, overwrite=True)  # and replaced when good
    assert pds.n_partitions == 2 and sorted(p.name for p in tmp_path.iterdir()) == [
        "bad.parquet", "in.parquet", "parts"]
