# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Issue 16, "Faithful columns" and units: every column is read and written as it is."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from gazeprivacy.data import Geometry, dataset_from_table, read_dataset, write_dataset
from gazeprivacy.data.recording import Recording
from gazeprivacy.exceptions import DataPolicyWarning, InvalidDataError, InvalidParameterError

NS0 = 1_732_600_000_123_456_789  # an epoch clock in ns: not exact as a float64


def table(n: int = 40) -> pl.DataFrame:
    """Two recordings with every kind of column, in an unusual order."""
    half = n // 2
    return pl.DataFrame({
        "t": np.tile(np.arange(half) / 100.0, 2),
        "note": [f"w{i % 3}" for i in range(n)],                 # per-sample text
        "x": np.linspace(1.0, 9.0, n), "y": np.linspace(2.0, 7.0, n),
        "participant": ["p1"] * half + ["p2"] * half,
        "valid": [i % 4 != 0 for i in range(n)],                  # Boolean
        "device_ns": pl.Series([NS0 + 1001 * i for i in range(n)], dtype=pl.Int64),
        "recording": ["r1"] * half + ["r2"] * half,
        "stimulus": pl.Series([3] * half + [7] * half, dtype=pl.Int64),  # numeric label
        "task": [None] + ["read"] * (half - 1) + ["view"] * half,  # null in the first row
        "head_yaw": np.linspace(-1, 1, n),                        # float channel
    })


def test_every_column_is_read_by_kind_and_kept():
    ds = dataset_from_table(table())
    r1 = ds["r1"]
    assert r1.labels == {"stimulus": "3", "task": "read"}  # the first row's null is skipped
    assert set(r1.channels) == {"head_yaw"}  # a numeric stimulus is no channel
    assert set(r1.extras) == {"note", "valid", "device_ns"}
    assert r1.extras["note"].to_list()[:4] == ["w0", "w1", "w2", "w0"]  # not cut to one value
    assert r1.extras["valid"].dtype == pl.Boolean
    assert r1.extras["device_ns"].to_list() == [NS0 + 1001 * i for i in range(20)]


@pytest.mark.parametrize("suffix", ["parquet", "csv"])
def test_round_trip_keeps_order_dtypes_and_exact_integers(tmp_path, suffix):
    src = table()
    back = read_dataset(write_dataset(dataset_from_table(src), tmp_path / f"d.{suffix}"))
    out = back.to_table()
    assert out.columns == src.columns
    for c in ("note", "valid", "device_ns", "stimulus", "task"):
        assert out.schema[c] == src.schema[c], c
    assert out["device_ns"].to_list() == src["device_ns"].to_list()  # not moved by float64
    assert out["note"].to_list() == src["note"].to_list()
    assert out["valid"].to_list() == src["valid"].to_list()
    assert out["stimulus"].to_list() == src["stimulus"].to_list()
    assert out["task"].to_list()[1:] == src["task"].to_list()[1:]


def test_declared_label_of_any_dtype_and_its_conflicts():
    tab = table().with_columns(pl.Series("group_code", [5] * 20 + [6] * 20))
    assert "group_code" in dataset_from_table(tab)["r1"].extras  # an integer: per-sample
    ds = dataset_from_table(tab, labels=["group_code"])
    assert ds["r2"].labels["group_code"] == "6" and "group_code" not in ds["r2"].extras
    with pytest.raises(InvalidDataError, match=r"label 'note' has several values in recording "
                                               r"'r1' \(row 1 holds 'w1'\)"):
        dataset_from_table(tab, labels=["note"])
    with pytest.raises(InvalidParameterError, match=r"label column\(s\) nope not found"):
        dataset_from_table(tab, labels=["nope"])


def test_a_sparse_text_column_is_not_spread_over_its_recording():
    tab = table().with_columns(
        pl.Series("event", [None] * 5 + ["blink"] + [None] * 34, dtype=pl.String))
    r = dataset_from_table(tab)["r1"]
    assert "event" not in r.labels
    assert r.extras["event"].to_list()[4:7] == [None, "blink", None]


def test_a_recognised_label_that_varies_is_kept_per_sample_not_as_a_channel():
    tab = table().with_columns(pl.Series("trial", list(range(40)), dtype=pl.Int64))
    r = dataset_from_table(tab)["r1"]
    assert "trial" not in r.labels and "trial" not in r.channels
    assert r.extras["trial"].to_list() == list(range(20))


def test_k_same_synth_finds_a_numeric_stimulus_label():
    from gazeprivacy.mechanisms import protect
    from gazeprivacy.mechanisms.samples.k_same_synth import KSameSynthParams

    g = np.random.default_rng(0)
    rows = []
    for p in range(3):
        n = 300
        rows.append(pl.DataFrame({
            "participant": [f"p{p}"] * n, "recording": [f"r{p}"] * n,
            "t": np.arange(n) / 100.0,
            "x": np.clip(8 + np.cumsum(g.normal(0, 0.3, n)), 0.5, 15.5),
            "y": np.clip(6 + np.cumsum(g.normal(0, 0.3, n)), 0.5, 11.5),
            "stimulus": pl.Series([4] * n, dtype=pl.Int64)}))
    geo = Geometry(x_min_deg=0, x_max_deg=16, y_min_deg=0, y_max_deg=12)
    ds = dataset_from_table(pl.concat(rows), geometry=geo)
    rel = protect(ds, mechanism="k-same-synth", params=KSameSynthParams(
                      k=2, group_by="stimulus", accept_implausible_events=True),  # a random walk
                  seed=0)
    assert len(rel.output) == 3 and rel.output[0].labels["stimulus"] == "4"


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow", "lazy"])
def test_tables_of_every_library_are_accepted(kind):
    src = table()
    tab = {"pandas": lambda: src.to_pandas(), "polars": lambda: src,
           "pyarrow": lambda: src.to_arrow(), "lazy": lambda: src.lazy()}[kind]()
    import gazeprivacy as gp

    for read in (dataset_from_table, gp.read_dataset, gp.read_input):  # no AttributeError
        ds = read(tab)
        assert [r.recording for r in ds] == ["r1", "r2"]
        assert ds["r1"].extras["device_ns"].to_list()[-1] == NS0 + 1001 * 19


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_gp_protect_takes_tables(kind):
    import gazeprivacy as gp

    src = table().drop("task")
    tab = {"pandas": src.to_pandas, "polars": lambda: src, "pyarrow": src.to_arrow}[kind]()
    geo = gp.Geometry(x_min_deg=0, x_max_deg=10, y_min_deg=0, y_max_deg=10)
    rel = gp.protect(tab, mechanism="kaleido", epsilon=1.0, radius_deg=1.0, window_samples=10,
                     geometry=geo, seed=1)
    assert [r.recording for r in rel.output] == ["r1", "r2"]
    assert rel.output[0].extras["note"].len() == 20


def test_something_else_is_refused_by_name():
    import gazeprivacy as gp

    with pytest.raises(InvalidDataError, match="expected a long-format table"):
        dataset_from_table({"x": [1.0]})
    with pytest.raises(InvalidDataError):
        gp.protect([1, 2, 3], mechanism="kaleido", epsilon=1.0, radius_deg=1.0,
                   window_samples=10, seed=1)


# ------------------------------------------------------------------------------------- units


def gaze_table(x, y) -> pl.DataFrame:
    n = len(x)
    return pl.DataFrame({"participant": ["p"] * n, "recording": ["r"] * n,
                         "t": np.arange(n) / 100.0, "x": x, "y": y})


SCREEN = Geometry.screen_px(width_px=1280, height_px=1024, px_per_deg=40.0)


def test_normalised_coordinates_are_refused_then_converted():
    g = np.random.default_rng(0)
    tab = gaze_table(g.uniform(0.1, 0.9, 50), g.uniform(0.1, 0.9, 50))
    with pytest.raises(InvalidDataError, match="normalised screen coordinates.*xy_unit='norm'"):
        dataset_from_table(tab, geometry=SCREEN)
    ds = dataset_from_table(tab, geometry=SCREEN, xy_unit="norm")
    np.testing.assert_allclose(ds[0].x, tab["x"].to_numpy() * 32.0)
    np.testing.assert_allclose(ds[0].y, tab["y"].to_numpy() * 25.6)
    assert dataset_from_table(tab, xy_unit="deg")[0].x[0] == tab["x"][0]  # the user's word
    with pytest.raises(InvalidParameterError, match="xy_unit='norm' maps 0-1"):
        dataset_from_table(tab, xy_unit="norm")


def test_pixels_under_360_are_refused_then_converted():
    g = np.random.default_rng(1)
    tab = gaze_table(g.uniform(30, 350, 50), g.uniform(30, 300, 50))  # a small window, in px
    with pytest.raises(InvalidDataError, match="probably in pixels; pass xy_unit='px'"):
        dataset_from_table(tab, geometry=SCREEN)
    ds = dataset_from_table(tab, geometry=SCREEN, xy_unit="px")  # px_per_deg from the grid
    np.testing.assert_allclose(ds[0].x, tab["x"].to_numpy() / 40.0)
    ds = dataset_from_table(tab, xy_unit="px", px_per_deg=20.0)
    np.testing.assert_allclose(ds[0].y, tab["y"].to_numpy() / 20.0)
    with pytest.raises(InvalidParameterError, match="needs px_per_deg"):
        dataset_from_table(tab, xy_unit="px")
    with pytest.raises(InvalidParameterError, match="px_per_deg applies to xy_unit='px'"):
        dataset_from_table(tab, px_per_deg=20.0)


def test_without_a_geometry_a_span_no_screen_has_is_refused_as_pixels():
    g = np.random.default_rng(3)
    tab = gaze_table(g.uniform(0, 300, 60), g.uniform(0, 200, 60))
    with pytest.raises(InvalidDataError, match="more than the 120 degrees of any screen"):
        dataset_from_table(tab)
    assert dataset_from_table(tab, xy_unit="deg")[0].n_samples == 60  # e.g. VR angles


def test_csv_labels_are_read_as_written(tmp_path):
    p = tmp_path / "d.csv"
    gaze_table(np.full(20, 5.0), np.full(20, 4.0)).with_columns(
        pl.lit("007").alias("stimulus"), pl.lit("012").alias("cond")).write_csv(p)
    r = read_dataset(p, labels=["cond"])[0]
    assert r.labels == {"stimulus": "007", "cond": "012"}


def test_off_screen_samples_are_named_in_a_warning_not_clamped_silently():
    x = np.full(100, 10.0)
    x[:5] = 40.0  # 5 % beyond the 32-degree screen
    with pytest.warns(DataPolicyWarning, match=r"5 of 100 gaze samples \(5.0%\) lie outside"):
        ds = dataset_from_table(gaze_table(x, np.full(100, 5.0)), geometry=SCREEN)
    assert ds[0].x[0] == 40.0  # kept as recorded


@pytest.mark.parametrize(("unit", "raw_dt", "hint"), [
    ("s", 10.0, "milliseconds: pass time_unit='ms'"),      # 100 Hz in ms read as s
    ("ms", 1000.0, "microseconds: pass time_unit='us'"),   # 1000 Hz in us read as ms
    ("s", 1000.0, "microseconds: pass time_unit='us'"),
    ("us", 4e6, "nanoseconds: pass time_unit='ns'"),       # 250 Hz in ns read as us
])
def test_the_time_unit_hint_names_the_likely_unit(unit, raw_dt, hint):
    t = np.arange(10) * raw_dt
    with pytest.raises(InvalidDataError, match=hint):
        Recording.from_arrays(recording="r", participant="p", t=t, x=np.ones(10),
                              y=np.ones(10), time_unit=unit)
    likely = hint.split("'")[1]
    r = Recording.from_arrays(recording="r", participant="p", t=t, x=np.ones(10),
                              y=np.ones(10), time_unit=likely)
    assert 2 <= r.sampling_rate_hz <= 5000


def test_csv_errors_name_the_row(tmp_path):
    p = tmp_path / "bad.csv"
    lines = ["participant,recording,t,x,y"] + [f"p,r,{i / 100},1.5,2" for i in range(30)]
    lines[21] = "p,r,0.2,abc,2"
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(InvalidDataError, match=r"column 'x' must be numeric; data row 20 "
                                               r"\(line 22 of a CSV\) holds 'abc'"):
        read_dataset(p)
    lines[21] = "p,r,0.2,1.5,2,9"
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(InvalidDataError, match="line 22 has 6 fields, the header has 5") as e:
        read_dataset(p)
    assert str(e.value).count("cannot read") == 1  # the file named once, not twice


def test_a_bad_value_after_the_first_10000_rows_is_named_too(tmp_path):
    p = tmp_path / "late.csv"
    lines = ["participant,recording,t,x,y"] + [f"p,r,{i / 100},{1 + i % 7},2" for i in range(10050)]
    lines[10021] = "p,r,100.2,n/a,2"
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(InvalidDataError, match=r"data row 10020 \(line 10022 of a CSV\) holds "
                                               r"'n/a'"):
        read_dataset(p)
