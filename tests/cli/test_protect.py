# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy protect``: formats, row order, labels, guarantee record, seeds, real data."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from gazeprivacy.cli.app import app
from gazeprivacy.data import Dataset, Geometry, Recording, read_dataset, write_dataset
from gazeprivacy.data.loaders import load_doves, load_vr_selfcalib
from gazeprivacy.guarantees import Guarantee

GEO = Geometry(x_min_deg=0.0, x_max_deg=16.0, y_min_deg=0.0, y_max_deg=12.0)
runner = CliRunner()


def small_dataset() -> Dataset:
    g = np.random.default_rng(0)
    recs = []
    for i in range(4):
        n = 150 + 20 * i
        x = np.clip(8 + np.cumsum(g.normal(0, 0.2, n)), 0, 16)
        y = np.clip(6 + np.cumsum(g.normal(0, 0.2, n)), 0, 12)
        x[10:14] = np.nan
        y[10:14] = np.nan
        recs.append(Recording.from_arrays(recording=f"rec{3 - i}", participant=f"p{i % 2}",
                                          x=x, y=y, sampling_rate_hz=100, geometry=GEO,
                                          labels={"task": f"task{i}", "stimulus": "s"}))
    return Dataset(tuple(recs), name="small")


def invoke(*args: str) -> None:
    res = runner.invoke(app, ["protect", *args])
    assert res.exit_code == 0, res.output + repr(res.exception)


def aligned(src, out, id_map) -> list[tuple[Recording, Recording]]:
    """(raw, released) recording pairs, matched through the id map (the release is in
    pseudonym order)."""
    ids = pl.read_csv(id_map) if str(id_map).endswith(".csv") else pl.read_parquet(id_map)
    to_raw = dict(zip(ids["pseudonym"], ids["raw"], strict=True))
    raw = read_dataset(src)
    return [(raw[to_raw[r.recording]], r) for r in read_dataset(out)]


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
@pytest.mark.parametrize("mechanism", ["dpgazesynth", "kaleido"])
def test_round_trip_keeps_rows_and_declared_labels_and_writes_the_record(tmp_path, suffix,
                                                                         mechanism):
    src = write_dataset(small_dataset(), tmp_path / f"in.{suffix}")
    out = tmp_path / f"out.{suffix}"
    extra = (["--radius-deg", "1.0", "--window-s", "0.5"] if mechanism == "kaleido"
             else ["--grid-size", "20"])
    invoke(str(src), str(out), "--mechanism", mechanism, "--epsilon", "2", "--seed", "7",
           "--public", "mask", "--public", "task", "--public", "stimulus",
           "--id-map", str(tmp_path / "ids.csv"), *extra)
    b = read_dataset(out).to_table()
    assert b.columns == ["participant", "recording", "t", "x", "y", "task", "stimulus"]
    assert b.height == read_dataset(src).n_samples
    pairs = aligned(src, out, tmp_path / "ids.csv")
    assert [r.n_samples for r in pairs[0]] == [pairs[0][0].n_samples] * 2
    for raw, rel in pairs:
        assert raw.labels == rel.labels and raw.n_samples == rel.n_samples
        np.testing.assert_array_equal(raw.missing, rel.missing)
        assert not np.allclose(np.nan_to_num(raw.x), np.nan_to_num(rel.x))
    record = json.loads((tmp_path / f"out.{suffix}.guarantee.json").read_text())
    g = Guarantee.from_dict(record)
    assert g.mechanism == mechanism and g.seed == 7 and g.epsilon == 2.0
    assert sorted(g.per_participant) == sorted({r.participant for _, r in pairs})
    assert record["unit"] in ("window", "w-window") and record["mode"] == "sound"
    assert "fixed-seed" in [f["code"] for f in record["flags"]]


def test_seed_is_deterministic_and_os_entropy_is_not(tmp_path):
    src = write_dataset(small_dataset(), tmp_path / "in.parquet")
    outs = {}
    for name, seed in (("a", ["--seed", "3"]), ("b", ["--seed", "3"]), ("c", []), ("d", [])):
        invoke(str(src), str(tmp_path / f"{name}.parquet"), "--mechanism", "kaleido",
               "--epsilon", "1", "--radius-deg", "2", "--window-s", "0.5", "--public", "mask",
               *seed)
        outs[name] = pl.read_parquet(tmp_path / f"{name}.parquet")["x"].to_numpy()
    np.testing.assert_array_equal(outs["a"], outs["b"])
    assert not np.array_equal(outs["c"], outs["d"], equal_nan=True)
    rec = json.loads((tmp_path / "c.parquet.guarantee.json").read_text())
    assert rec["seed"] is None and rec["formally_private"]


def test_paper_mode_and_extra_parameters(tmp_path):
    src = write_dataset(small_dataset(), tmp_path / "in.csv")
    invoke(str(src), str(tmp_path / "o.csv"), "--mechanism", "dpgazesynth", "--epsilon", "1",
           "--mode", "paper", "--param", "transitions=one-per-window", "--seed", "1",
           "--public", "mask")
    rec = json.loads((tmp_path / "o.csv.guarantee.json").read_text())
    assert rec["mode"] == "paper" and not rec["formally_private"]
    assert rec["parameters"]["transitions"] == "one-per-window"


@pytest.mark.parametrize(("args", "message"), [
    (["--mechanism", "nope", "--epsilon", "1"], "unknown mechanism 'nope'"),
    (["--mechanism", "kaleido", "--epsilon", "1", "--radius-deg", "1", "--param", "zzz=1"],
     "kaleido has no parameter(s) zzz"),
    (["--mechanism", "dpgazesynth", "--epsilon", "-1"], "epsilon must be > 0"),
], ids=["unknown_mechanism", "unknown_param", "negative_epsilon"])
def test_bad_options_give_named_errors(tmp_path, args, message):
    src = write_dataset(small_dataset(), tmp_path / "in.csv")
    res = runner.invoke(app, ["protect", str(src), str(tmp_path / "o.csv"), *args])
    assert res.exit_code != 0
    assert message in str(res.exception)


# ------------------------------------------------------------------------------ real data


def _check_real(tmp_path, ds: Dataset, mechanism: str) -> None:
    src = write_dataset(ds, tmp_path / "real.parquet")
    out = tmp_path / f"real_{mechanism}.parquet"
    labels = [x for n in ds.label_names() for x in ("--public", n)]
    invoke(str(src), str(out), "--mechanism", mechanism, "--epsilon", "2", "--radius-frac",
           "0.05", "--window-s", "0.5", "--seed", "11", "--public", "mask", *labels,
           "--id-map", str(tmp_path / f"ids_{mechanism}.parquet"),
           *(["--grid-size", "60"] if mechanism == "dpgazesynth" else []))
    pairs = aligned(src, out, tmp_path / f"ids_{mechanism}.parquet")
    assert len(pairs) == len(ds)
    for ra, rb in pairs:
        assert ra.n_samples == rb.n_samples
        np.testing.assert_array_equal(np.isnan(ra.x), np.isnan(rb.x))
        assert ra.labels == rb.labels
        assert not np.array_equal(ra.x, rb.x, equal_nan=True)
    g = Guarantee.from_json((tmp_path / f"real_{mechanism}.parquet.guarantee.json").read_text())
    assert g.formally_private  # the fixed-seed flag is informational
    windows = sum(-(-r.n_samples // round(0.5 * r.sampling_rate_hz)) for r in ds)
    assert sum(b.epsilon for b in g.per_participant.values()) == pytest.approx(2.0 * windows)


@pytest.mark.realdata
@pytest.mark.slow  # reading the DOVES file takes ~10 s
def test_protect_works_on_doves_for_both_mechanisms(tmp_path, data_dir):
    ds = load_doves(data_dir, observers=["ABT2", "CE2"], images=[1, 2])
    for mechanism in ("dpgazesynth", "kaleido"):
        _check_real(tmp_path, ds, mechanism)


@pytest.mark.realdata
def test_protect_works_on_the_vr_set_for_both_mechanisms(tmp_path, data_dir):
    ds = load_vr_selfcalib(data_dir, participants=[10], environments=["office", "supermarket"])
    assert np.isnan(ds[0].x).any()  # blinks are NaN rows, kept through the release
    for mechanism in ("dpgazesynth", "kaleido"):
        _check_real(tmp_path, ds, mechanism)


@pytest.mark.parametrize(("mechanism", "params", "kind"), [
    # 3 participants and k = 2 make one group of 3: the record's k is the smallest group
    pytest.param("k-same-synth", ["--k", "2"], "k-anonymity", id="k_same_synth"),
    pytest.param("event-synth-pd", ["--k", "2", "--gamma", "3", "--mode", "paper",
                                    "--param", "cvae_epochs=2", "--param", "max_tries=3"],
                 "(k,gamma)-PD", id="event_synth_pd"),
])
def test_event_mechanisms_through_the_cli(tmp_path, mechanism, params, kind):
    from gazeprivacy.data.sample import load_sample

    ds = load_sample()
    ds = ds.select(lambda r: r.participant in ds.participants[:3]
                   and r.labels["stimulus"] in ("img001", "img010"))
    src = write_dataset(ds, tmp_path / "in.parquet")
    out = tmp_path / "out.parquet"
    invoke(str(src), str(out), "--mechanism", mechanism, *params, "--seed", "3",
           "--id-map", str(tmp_path / "ids.csv"), "--report", str(tmp_path / "report.json"))
    pairs = aligned(src, out, tmp_path / "ids.csv")
    assert sorted(raw.recording for raw, _ in pairs) == sorted(r.recording for r in ds)
    assert all(raw.n_samples == rel.n_samples for raw, rel in pairs)
    assert read_dataset(out).info == {}  # counts of failed tests go to the report only
    assert (tmp_path / "report.json").is_file()
    g = Guarantee.from_json((tmp_path / "out.parquet.guarantee.json").read_text())
    expected_k = 3 if mechanism == "k-same-synth" else 2
    assert g.kind.value == kind and g.k == expected_k and not g.formally_private


def test_missing_privacy_parameter_is_named(tmp_path):
    src = write_dataset(small_dataset(), tmp_path / "in.parquet")
    res = runner.invoke(app, ["protect", str(src), str(tmp_path / "o.parquet"),
                              "--mechanism", "k-same-synth"])
    assert res.exit_code != 0
    assert "k-same-synth needs k (privacy parameters have no defaults" in str(res.exception)


def test_feature_table_through_the_cli_with_declared_ranges(tmp_path):
    g = np.random.default_rng(0)
    tab = pl.DataFrame({"participant": ["p1"] * 64 + ["p2"] * 64,
                        "recording": ["r1"] * 64 + ["r2"] * 64,
                        "t_start": np.tile(np.arange(64) * 0.5, 2),
                        "ratio": g.uniform(0, 1, 128), "document": ["comic"] * 128})
    src = tmp_path / "features.parquet"
    tab.write_parquet(src)
    ranges = tmp_path / "ranges.json"
    ranges.write_text(json.dumps({"ratio": [0, 1]}))
    out = tmp_path / "out.parquet"
    invoke(str(src), str(out), "--mechanism", "series-lpa", "--epsilon", "1",
           "--ranges", str(ranges), "--seed", "2")
    back = pl.read_parquet(out)
    assert back.height == 128 and back.columns == ["participant", "recording", "t_start", "ratio"]
    assert not set(back["recording"]) & {"r1", "r2"}  # pseudonyms; the label is not declared
    assert back["t_start"].to_list()[:3] == [0.0, 0.5, 1.0]
    assert not np.allclose(np.sort(back["ratio"].to_numpy()), np.sort(tab["ratio"].to_numpy()))
    g2 = Guarantee.from_json((tmp_path / "out.parquet.guarantee.json").read_text())
    assert g2.mechanism.lower().endswith("lpa") and g2.epsilon == 1.0 and g2.seed == 2
    assert {c.name: c.status.value for c in g2.columns}["document"] == "not-written"


def test_heatmap_mechanisms_are_pointed_to_the_heatmap_command(tmp_path):
    src = write_dataset(small_dataset(), tmp_path / "in.parquet")
    res = runner.invoke(app, ["protect", str(src), str(tmp_path / "o.parquet"),
                              "--mechanism", "heatmap-laplace", "--epsilon", "1"])
    assert res.exit_code != 0 and "use `gazeprivacy heatmap`" in str(res.exception)
