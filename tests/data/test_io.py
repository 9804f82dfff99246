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
    with pytest.raises(InvalidDataError, match="cannot read .*broken.parquet.* as parquet"):
        read_dataset(p)


def test_missing_file_and_unknown_suffix(tmp_path):
    with pytest.raises(InvalidDataError, match="no such file"):
        read_dataset(tmp_path / "nope.csv")
    with pytest.raises(InvalidParameterError, match="cannot tell the format"):
        read_dataset(tmp_path / "data.xlsx")


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
