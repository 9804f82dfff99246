# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Long-format CSV / Parquet I/O and its bad-input errors."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from gazeprivacy.data import (
    Dataset,
    Geometry,
    Recording,
    dataset_from_table,
    read_dataset,
    read_input,
    repair_timestamps,
    write_dataset,
)
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError


@pytest.fixture
def ds() -> Dataset:
    g = Geometry.screen_px(width_px=1024, height_px=768, px_per_deg=60)
    a = Recording.from_arrays(recording="a", participant="p1", x=[1.0, np.nan, 3.0],
                              y=[1.0, np.nan, 2.0], sampling_rate_hz=200,
                              labels={"task": "read"}, pupil=[3.0, 3.1, 3.2], geometry=g)
    b = Recording.from_arrays(recording="b", participant="p2", x=[4.0, 5.0], y=[1.0, 2.0],
                              sampling_rate_hz=200, labels={"task": "view", "stimulus": "s1"},
                              geometry=g)
    return Dataset((a, b), name="toy", info={"source": "test"})


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".csv.gz"])
def test_round_trip_keeps_rows_labels_nan_and_metadata(ds, tmp_path, suffix):
    path = write_dataset(ds, tmp_path / f"d{suffix}")
    back = read_dataset(path)
    assert [r.recording for r in back] == ["a", "b"]
    assert [r.n_samples for r in back] == [3, 2]
    assert back["a"].labels == {"task": "read"}
    assert back["b"].labels == {"task": "view", "stimulus": "s1"}
    assert np.isnan(back["a"].x[1]) and back["a"].x[2] == 3.0
    assert back["a"].geometry == ds["a"].geometry
    assert back["b"].sampling_rate_hz == 200
    assert back.info == {"source": "test"}


def test_missing_columns_are_named(tmp_path):
    pl.DataFrame({"participant": ["p"], "recording": ["r"], "t": [0.0]}).write_csv(
        tmp_path / "bad.csv")
    with pytest.raises(InvalidDataError, match="missing required column"):
        read_dataset(tmp_path / "bad.csv")


def test_corrupt_parquet_is_a_clear_error(tmp_path):
    p = tmp_path / "broken.parquet"
    p.write_bytes(b"PAR1 this is not parquet")
    with pytest.raises(InvalidDataError,
                       match="cannot read .*broken.parquet.* as parquet: the file is corrupt"):
        read_dataset(p)


def test_missing_file_and_unknown_suffix(tmp_path):
    with pytest.raises(InvalidDataError, match="no such file"):
        read_dataset(tmp_path / "nope.csv")
    with pytest.raises(InvalidParameterError, match="cannot tell the format"):
        read_dataset(tmp_path / "data.xlsx")


def test_a_folder_is_named_a_folder_not_a_missing_file(tmp_path):
    """A folder read as a data file said "no such file" although it exists; a partitioned
    folder gets the command that reads it."""
    from gazeprivacy.data.partitioned import write_partitioned
    from gazeprivacy.experiments.fixation_tables import read_fixation_table

    (tmp_path / "plain").mkdir()
    for read in (read_dataset, read_input):
        with pytest.raises(InvalidDataError, match="'.*plain' is a folder, not a file$"):
            read(tmp_path / "plain")
    with pytest.raises(InvalidDataError, match="is a folder, not a fixation file"):
        read_fixation_table(tmp_path / "plain", width_px=10, height_px=10)
    ds = Dataset(tuple(Recording.from_arrays(recording=f"r{i}", participant=f"p{i}",
                                             x=np.zeros(4), y=np.zeros(4), sampling_rate_hz=10)
                       for i in range(2)))
    write_partitioned(ds, tmp_path / "parts", recordings_per_partition=1)
    with pytest.raises(InvalidDataError, match="a partitioned folder: give it to gazeprivacy "
                                               "protect"):
        read_input(tmp_path / "parts")


def test_non_numeric_gaze_column_is_named():
    tab = pl.DataFrame({"participant": ["p"], "recording": ["r"], "t": [0.0], "x": ["a"],
                        "y": [1.0]})
    with pytest.raises(InvalidDataError, match="column 'x' must be numeric"):
        dataset_from_table(tab, sampling_rate_hz=10)


def test_interleaved_recordings_are_refused():
    tab = pl.DataFrame({"participant": ["p"] * 3, "recording": ["a", "b", "a"],
                        "t": [0.0, 0.0, 0.1], "x": [1.0] * 3, "y": [1.0] * 3})
    with pytest.raises(InvalidDataError, match="rows of recording 'a' are not contiguous"):
        dataset_from_table(tab, sampling_rate_hz=10)


def test_empty_table_is_refused():
    tab = pl.DataFrame(schema={"participant": pl.String, "recording": pl.String,
                               "t": pl.Float64, "x": pl.Float64, "y": pl.Float64})
    with pytest.raises(InvalidDataError, match="the table has no rows"):
        dataset_from_table(tab)


def test_unsorted_timestamps_error_then_repair_keeps_every_row():
    tab = pl.DataFrame({"participant": ["p"] * 4, "recording": ["a"] * 4,
                        "t": [0.0, 0.02, 0.01, 0.03], "x": [1.0, 2.0, 3.0, 4.0],
                        "y": [0.0] * 4})
    with pytest.raises(InvalidDataError, match="row 2 .* goes back from row 1"):
        dataset_from_table(tab)
    fixed, removed = repair_timestamps(tab, how="sort")
    assert removed.height == 0 and fixed.height == 4
    assert dataset_from_table(fixed)["a"].x.tolist() == [1.0, 3.0, 2.0, 4.0]


def test_duplicate_timestamps_repair_reports_removed_rows():
    tab = pl.DataFrame({"participant": ["p"] * 4, "recording": ["a"] * 4,
                        "t": [0.0, 0.01, 0.01, 0.02], "x": [1.0, 2.0, 3.0, 4.0],
                        "y": [0.0] * 4})
    with pytest.raises(InvalidDataError, match="duplicates row 1"):
        dataset_from_table(tab)
    fixed, removed = repair_timestamps(tab, how="drop-duplicates")
    assert fixed.height == 3 and removed["x"].to_list() == [3.0]


def test_a_recording_with_several_participants_is_refused():
    tab = pl.DataFrame({"participant": ["p1", "p1", "p2", "p3", "p3"],
                        "recording": ["a", "a", "a", "b", "b"], "t": [0.0, 0.01, 0.02, 0, 0.01],
                        "x": [1.0] * 5, "y": [1.0] * 5})
    with pytest.raises(InvalidDataError, match=r"recording 'a' has several participants "
                                                r"\['p1', 'p2'\]"):
        dataset_from_table(tab)


def test_read_recordings_share_the_tables_buffers_read_only(tmp_path):
    """The reader hands a Parquet file's float columns to the recordings without copying
    (issue 18); they are read-only, and a caller's own arrays are still copied."""
    rng = np.random.default_rng(0)
    tab = pl.DataFrame({"participant": ["p"] * 200, "recording": ["a"] * 100 + ["b"] * 100,
                        "t": np.tile(np.arange(100) / 100, 2), "x": rng.normal(size=200),
                        "y": rng.normal(size=200), "task": ["read"] * 100 + ["view"] * 100})
    path = write_dataset(dataset_from_table(tab), tmp_path / "d.parquet")
    ds = read_dataset(path)
    assert [r.labels for r in ds] == [{"task": "read"}, {"task": "view"}]
    for r in ds:
        assert not r.x.flags.writeable and not r.t.flags.writeable
        assert not r.x.flags.owndata  # a view of the table's buffer
    np.testing.assert_array_equal(np.concatenate([r.x for r in ds]), tab["x"].to_numpy())
    mine = np.arange(3) / 100
    rec = Recording.from_arrays(recording="r", participant="p", t=mine, x=mine, y=mine)
    mine[0] = -1.0
    assert rec.t[0] == 0.0 and mine.flags.writeable  # copied, the caller's array untouched


@pytest.mark.parametrize("kind", ["polars", "pandas"])
def test_a_callers_table_is_copied_so_later_writes_do_not_reach_the_recordings(kind):
    """A table the caller gave may share memory with the caller's arrays: the recordings copy
    it (a later write would otherwise change a recording after its checks)."""
    import pandas as pd

    x = np.linspace(0.0, 10.0, 50)
    t = np.arange(50) / 100
    cols = {"participant": ["p"] * 50, "recording": ["a"] * 50, "t": t, "x": x, "y": x}
    tab = pl.DataFrame(cols) if kind == "polars" else pd.DataFrame(cols)
    for ds in (dataset_from_table(tab), read_input(tab)):
        x[5] = 999.0
        t[5] = -1.0
        if kind == "pandas":
            tab.loc[6, "x"] = 777.0
        r = ds[0]
        assert r.x[5] == pytest.approx(50 / 49) and r.t[5] == 0.05 and r.x[6] != 777.0
        x[5], t[5] = 50 / 49, 0.05
        if kind == "pandas":
            tab.loc[6, "x"] = 60 / 49


def test_uniform_and_mixed_recordings_write_the_same_table(ds):
    """Dataset.to_table builds recordings with the same columns from whole columns at once;
    the table equals the per-recording one (NaN, labels, extras and channels included)."""
    from gazeprivacy.data.recording import restore_schema

    def rec(i: int, **kw) -> Recording:
        x = np.array([1.0, np.nan, 3.0]) + i
        return Recording.from_arrays(
            recording=f"r{i}", participant=f"p{i % 2}", x=x, y=x, sampling_rate_hz=100,
            labels={"task": f"t{i}"}, pupil=[1.0, 2.0, 3.0], channels={"head": [0.5, 0.6, 0.7]},
            extras={"note": pl.Series(["a", None, "c"])}, **kw)

    uniform = Dataset(tuple(rec(i) for i in range(3)), schema={"t": pl.Float64})
    slow = restore_schema(pl.concat([r.to_table() for r in uniform], how="diagonal_relaxed"),
                          uniform.schema)
    assert uniform.to_table().equals(slow)
    assert uniform.to_table()["participant"].to_list() == ["p0"] * 3 + ["p1"] * 3 + ["p0"] * 3
    mixed = Dataset((*uniform.recordings, *ds.recordings))  # other labels and columns
    assert mixed.to_table().height == 9 + ds.n_samples
    assert mixed.to_table()["stimulus"].null_count() == 9 + 3
