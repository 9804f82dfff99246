# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Issue 16 through ``gazeprivacy protect``: faithful columns (--public, --label), units
(--xy-unit, --px-per-deg, --time-unit), eye-tracker exports (--input-format), and where the
record and the hashes go (the record in the release, hashes only in the data holder's report)."""

from __future__ import annotations

import hashlib
import json
import warnings

import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest

from export_helpers import asc_file, asc_trials_file, tobii_file
from gazeprivacy.cli.app import run
from gazeprivacy.data import Geometry, dataset_from_table, write_dataset
from gazeprivacy.guarantees import Guarantee

NS0 = 1_732_600_000_123_456_789
GEO = "0,16,0,12"
KALEIDO = ["--mechanism", "kaleido", "--epsilon", "1", "--radius-deg", "1", "--window-s", "0.5",
           "--seed", "4"]


def rich_table(n: int = 120) -> pl.DataFrame:
    g = np.random.default_rng(0)
    half = n // 2
    return pl.DataFrame({
        "t": np.tile(np.arange(half) / 100.0, 2),
        "participant": ["p1"] * half + ["p2"] * half,
        "note": [f"w{i % 5}" for i in range(n)],
        "x": np.clip(8 + np.cumsum(g.normal(0, 0.2, n)), 0.5, 15.5),
        "y": np.clip(6 + np.cumsum(g.normal(0, 0.2, n)), 0.5, 11.5),
        "recording": ["r1"] * half + ["r2"] * half,
        "valid": [i % 3 != 0 for i in range(n)],
        "device_ns": pl.Series([NS0 + 10_000_001 * i for i in range(n)], dtype=pl.Int64),
        "stimulus": pl.Series([3] * half + [7] * half, dtype=pl.Int64),
        "block": pl.Series([11] * half + [12] * half, dtype=pl.Int32),
        "group_code": pl.Series([1] * half + [2] * half, dtype=pl.Int64),
    })


def _run(capsys, *args: str) -> tuple[int, str, str]:
    code = run(list(args))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def _error(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert "Traceback" not in err and len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def test_public_columns_are_written_as_they_were(tmp_path, capsys):
    src = tmp_path / "in.parquet"
    rich_table().write_parquet(src)
    out = tmp_path / "out.parquet"
    code, _o, err = _run(capsys, "protect", str(src), str(out), *KALEIDO, "--geometry", GEO,
                         "--public", "note", "--public", "valid", "--public", "device_ns",
                         "--public", "stimulus", "--public", "recording")
    assert code == 0, err
    written = pl.read_parquet(out)
    src_tab = rich_table()
    # the input's order, less what was not declared; every dtype as it was
    assert written.columns == ["t", "participant", "note", "x", "y", "recording", "valid",
                               "device_ns", "stimulus"]
    for c in ("note", "valid", "device_ns", "stimulus"):
        assert written.schema[c] == src_tab.schema[c], c
    by_rec = written.sort("recording", maintain_order=True)
    raw = src_tab.sort("recording", maintain_order=True)
    for c in ("note", "valid", "device_ns", "stimulus"):
        assert by_rec[c].to_list() == raw[c].to_list(), c
    g = Guarantee.from_json((tmp_path / "out.parquet.guarantee.json").read_text())
    assert {c.name: c.status.value for c in g.columns}["block"] == "not-written"
    assert g.column("device_ns").status.value == "public-declared"


def test_label_flag_declares_a_label_and_a_varying_one_is_refused(tmp_path, capsys):
    src = tmp_path / "in.csv"
    rich_table().write_csv(src)
    out = tmp_path / "out.csv"
    code, _o, err = _run(capsys, "protect", str(src), str(out), *KALEIDO, "--geometry", GEO,
                         "--label", "group_code", "--public", "group_code")
    assert code == 0, err
    written = pl.read_csv(out)
    assert written.group_by("recording").agg(pl.col("group_code").n_unique())[
        "group_code"].to_list() == [1, 1]
    code, _o, err = _run(capsys, "protect", str(src), str(tmp_path / "o2.csv"), *KALEIDO,
                         "--geometry", GEO, "--label", "note")
    assert code == 1 and "label 'note' has several values in recording 'r1'" in _error(err)
    assert not (tmp_path / "o2.csv").exists()


def test_k_same_synth_groups_by_a_numeric_stimulus_column(tmp_path, capsys):
    from gazeprivacy.data.sample import load_sample

    ds = load_sample()
    ds = ds.select(lambda r: r.participant in ds.participants[:3]
                   and r.labels["stimulus"] in ("img001", "img010"))
    tab = write_dataset(ds, tmp_path / "s.parquet")
    numeric = pl.read_parquet(tab).with_columns(
        pl.col("stimulus").str.replace("img", "").cast(pl.Int64))
    src = tmp_path / "in.parquet"
    numeric.write_parquet(src)
    pq_meta = pq.read_metadata(tab).metadata
    pq.write_table(pq.read_table(src).replace_schema_metadata(pq_meta), src)
    code, _o, err = _run(capsys, "protect", str(src), str(tmp_path / "o.parquet"),
                         "--mechanism", "k-same-synth", "--k", "3", "--seed", "1",
                         "--public", "stimulus")
    assert code == 0, err
    assert pl.read_parquet(tmp_path / "o.parquet").schema["stimulus"] == pl.Int64


def test_units_through_the_cli(tmp_path, capsys):
    g = np.random.default_rng(2)
    n = 200
    norm = pl.DataFrame({"participant": ["p"] * n, "recording": ["r"] * n,
                         "t": np.arange(n) * 1000.0, "x": g.uniform(0.2, 0.8, n),
                         "y": g.uniform(0.2, 0.8, n)})  # microseconds, normalised
    src = tmp_path / "norm.csv"
    norm.write_csv(src)
    out = tmp_path / "o.csv"
    code, _o, err = _run(capsys, "protect", str(src), str(out), *KALEIDO, "--geometry", GEO,
                         "--time-unit", "ms")
    assert code == 1 and "probably in microseconds: pass --time-unit us" in _error(err)
    code, _o, err = _run(capsys, "protect", str(src), str(out), *KALEIDO, "--geometry", GEO,
                         "--time-unit", "ns")  # too fine: 1 MHz
    assert code == 1 and "faster than any eye tracker" in _error(err)
    assert "probably in microseconds: pass --time-unit us" in _error(err)
    code, _o, err = _run(capsys, "protect", str(src), str(out), *KALEIDO, "--geometry", GEO,
                         "--time-unit", "us")
    line = _error(err)
    assert code == 1 and "normalised" in line and "--xy-unit norm" in line
    code, _o, err = _run(capsys, "protect", str(src), str(out), *KALEIDO, "--geometry", GEO,
                         "--time-unit", "us", "--xy-unit", "norm", "--public", "t")
    assert code == 0, err
    assert pl.read_csv(out)["t"].max() == pytest.approx((n - 1) * 1e-3)
    px = norm.with_columns(pl.col("x") * 600, pl.col("y") * 450)  # pixels under 360
    px.write_csv(src)
    code, _o, err = _run(capsys, "protect", str(src), str(tmp_path / "p.csv"), *KALEIDO,
                         "--geometry", GEO, "--time-unit", "us")
    assert code == 1 and "--xy-unit px" in _error(err)
    code, _o, err = _run(capsys, "protect", str(src), str(tmp_path / "p.csv"), *KALEIDO,
                         "--geometry", GEO, "--time-unit", "us", "--xy-unit", "px",
                         "--px-per-deg", "40")
    assert code == 0, err


def test_bad_reading_options_are_one_line_with_the_flag(tmp_path, capsys):
    src = tmp_path / "in.csv"
    rich_table().write_csv(src)
    code, _o, err = _run(capsys, "protect", str(src), str(tmp_path / "o.csv"), *KALEIDO,
                         "--geometry", GEO, "--xy-unit", "inch")
    assert code == 2 and "--xy-unit" in err and "Traceback" not in err
    code, _o, err = _run(capsys, "protect", str(src), str(tmp_path / "o.csv"), *KALEIDO,
                         "--geometry", GEO, "--label", "nope")
    assert code == 1 and "--label nope not found" in _error(err)
    code, _o, err = _run(capsys, "protect", str(src), str(tmp_path / "o.csv"), *KALEIDO,
                         "--geometry", GEO, "--px-per-deg", "30")
    assert code == 1 and "--px-per-deg applies to --xy-unit px" in _error(err)


def test_a_tobii_export_is_read_by_its_header(tmp_path, capsys):
    path = tobii_file(tmp_path)
    out = tmp_path / "o.parquet"
    code, _o, err = _run(capsys, "protect", str(path), str(out), "--mechanism", "kaleido",
                         "--epsilon", "1", "--radius-deg", "1", "--param", "window_samples=10",
                         "--seed", "1", "--public", "mask")
    assert code == 1 and "--px-per-deg N" in _error(err)
    code, _o, err = _run(capsys, "protect", str(path), str(out), "--mechanism", "kaleido",
                         "--epsilon", "1", "--radius-deg", "1", "--param", "window_samples=10",
                         "--seed", "1", "--public", "mask", "--px-per-deg", "40")
    assert code == 0, err
    assert pl.read_parquet(out).height == 80


# ---------------------------------------------------------------------- record and hashes


@pytest.mark.parametrize("suffix", ["parquet", "csv"])
def test_record_is_embedded_and_hashes_stay_in_the_report(tmp_path, capsys, suffix):
    geo = Geometry(x_min_deg=0, x_max_deg=16, y_min_deg=0, y_max_deg=12)
    src = write_dataset(dataset_from_table(rich_table(), geometry=geo), tmp_path / "in.parquet")
    out = tmp_path / f"out.{suffix}"
    report = tmp_path / "holder.json"
    code, _o, err = _run(capsys, "protect", str(src), str(out), *KALEIDO,
                         "--report", str(report))
    assert code == 0, err
    files = json.loads(report.read_text())["files"]
    in_hash = hashlib.sha256(src.read_bytes()).hexdigest()
    out_hash = hashlib.sha256(out.read_bytes()).hexdigest()
    assert files["input_sha256"] == in_hash and files["output_sha256"] == out_hash
    sidecar = json.loads((tmp_path / f"out.{suffix}.guarantee.json").read_text())
    assert sidecar["written"]["software"] == "gazeprivacy" and sidecar["written"]["version"]
    assert sidecar["written"]["at"].endswith("+00:00")
    released = [out, tmp_path / f"out.{suffix}.guarantee.json"]
    released += [p for p in [tmp_path / f"out.{suffix}.meta.json"] if p.exists()]
    for p in released:  # neither hash (a fingerprint of the raw input) leaves the data holder
        data = p.read_bytes()
        assert in_hash.encode() not in data and in_hash[:16].encode() not in data, p
        assert out_hash.encode() not in data, p
    if suffix == "parquet":
        meta = pq.read_metadata(out).metadata
        record = json.loads(meta[b"gazeprivacy.guarantee"])
        assert record["written"]["version"] == sidecar["written"]["version"]
        assert Guarantee.from_dict(record) == Guarantee.from_dict(sidecar)
        assert all(in_hash.encode() not in v for v in meta.values())
        (tmp_path / "out.parquet.guarantee.json").unlink()  # the file alone carries its record
        code, text, err = _run(capsys, "info", str(out))
        assert code == 0, err
        assert "record (Parquet metadata 'gazeprivacy.guarantee'): kaleido" in text


def test_an_eyelink_asc_file_through_the_cli(tmp_path, capsys):
    path = asc_file(tmp_path)
    out = tmp_path / "o.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("default")  # shown as the command line shows them
        code, _o, err = _run(capsys, "protect", str(path), str(out), "--mechanism", "kaleido",
                             "--epsilon", "1", "--radius-deg", "1", "--param",
                             "window_samples=10", "--seed", "1", "--public", "mask",
                             "--px-per-deg", "40", "--report", str(tmp_path / "r.json"))
    assert code == 0, err
    assert "warning (DataPolicyWarning)" in err and "'sub07'" in err  # the participant's name
    assert "--participant NAME" in err  # the way out, as a flag
    assert pl.read_csv(out).height == 30
    assert json.loads((tmp_path / "r.json").read_text())["files"]["input"] == str(path)


def test_participant_names_the_wearer_of_an_export_that_names_none(tmp_path, capsys):
    common = ["--mechanism", "kaleido", "--epsilon", "1", "--radius-deg", "1", "--param",
              "window_samples=10", "--seed", "1", "--public", "mask", "--px-per-deg", "40"]
    out = tmp_path / "o.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        code, _o, err = _run(capsys, "protect", str(asc_file(tmp_path)), str(out), *common,
                             "--participant", "P-07", "--public", "participant")
    assert code == 0, err
    assert "DataPolicyWarning" not in err
    assert pl.read_csv(out)["participant"].unique().to_list() == ["P-07"]
    # a Tobii export names its participants: the flag would contradict it
    code, _o, err = _run(capsys, "protect", str(tobii_file(tmp_path)), str(tmp_path / "t.csv"),
                         *common, "--participant", "P-07")
    assert code == 1 and "'Participant name'" in _error(err) and "--participant" in _error(err)


# ------------------------------------------------------------------ the reader options


def test_eyelink_trials_and_both_eyes_through_protect(tmp_path, capsys):
    out = tmp_path / "o.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        code, _o, err = _run(capsys, "protect", str(asc_trials_file(tmp_path)), str(out),
                             *KALEIDO, "--px-per-deg", "40", "--participant", "s12",
                             "--eye", "both", "--public", "eye", "--public", "stimulus",
                             "--public", "recording", "--public", "mask")
    assert code == 0, err
    assert "15 samples outside every trial dropped" in err  # counted, not silent
    rel = pl.read_csv(out)
    assert rel["recording"].n_unique() == 6  # 3 trials x 2 eyes, each protected
    assert sorted(rel["eye"].unique().to_list()) == ["left", "right"]
    assert sorted(rel["stimulus"].unique().to_list()) == [f"images/scene{k}.png"
                                                         for k in (1, 2, 3)]
    per = rel.group_by("recording").agg(pl.col("t").max())["t"].to_list()
    assert per == pytest.approx([49 / 500] * 6)  # the public grid at the file's RATE


def test_a_raw_second_eye_is_never_writable(tmp_path, capsys):
    code, _o, err = _run(capsys, "protect", str(tobii_file(tmp_path)), str(tmp_path / "o.csv"),
                         *KALEIDO, "--px-per-deg", "40", "--eye", "left", "--public",
                         "Gaze point right X")
    assert code != 0 and "Gaze point right X" in _error(err)


def test_rate_declares_the_nominal_rate_and_the_grid_follows(tmp_path, capsys):
    path = tobii_file(tmp_path, n=120)
    for extra, last in (((), 119 / 120), (("--rate", "125"), 119 / 125)):
        out = tmp_path / f"o{len(extra)}.csv"
        code, _o, err = _run(capsys, "protect", str(path), str(out), *KALEIDO,
                             "--px-per-deg", "40", "--public", "mask", *extra)
        assert code == 0, err
        assert pl.read_csv(out)["t"].max() == pytest.approx(last)


def test_columns_map_a_user_table_on_protect_and_info(tmp_path, capsys):
    tab = rich_table().rename({"participant": "subject", "recording": "trial_name",
                               "t": "timestamp", "x": "gaze_x", "y": "gaze_y"})
    src = tmp_path / "study.csv"
    tab.write_csv(src)
    code, _o, err = _run(capsys, "info", str(src))
    assert code == 1 and "map your columns with --columns participant=" in _error(err)
    cols = "participant=subject,recording=trial_name,t=timestamp,x=gaze_x,y=gaze_y"
    code, text, err = _run(capsys, "info", str(src), "--columns", cols, "--geometry", GEO)
    assert code == 0, err
    assert "2 recordings, 2 participants" in text and "100 Hz" in text
    code, _o, err = _run(capsys, "protect", str(src), str(tmp_path / "o.csv"), *KALEIDO,
                         "--geometry", GEO, "--columns", cols)
    assert code == 0, err
    code, _o, err = _run(capsys, "info", str(src), "--columns", "who=subject")
    assert code == 1 and "columns maps who" in _error(err)
    assert "e.g. --columns participant=subject" in _error(err)


@pytest.mark.parametrize(("args", "says"), [
    (["--screen-cm", "38,30", "--distance-cm", "68", "--geometry", GEO],
     "not with --geometry or --px-per-deg"),
    (["--screen-cm", "38,30", "--distance-cm", "68", "--px-per-deg", "40"],
     "not with --geometry or --px-per-deg"),
    (["--screen-cm", "38,30"], "--screen-cm W,H and --distance-cm D go together"),
    (["--screen-cm", "38;30", "--distance-cm", "68"], "--screen-cm must be W,H"),
    (["--rate", "0"], "--rate must be > 0"),
    (["--input-format", "eyelink", "--px-per-deg", "40"],
     "not an EyeLink ASC file (no START, SAMPLES or MSG line); it looks like a tobii export: "
     "pass --input-format tobii"),
    (["--trial-message", "(", "--px-per-deg", "40"], "--trial-message applies to EyeLink"),
    (["--eye", "both", "--columns", "t=x"], "columns apply to the long format"),
])
def test_reader_option_errors_are_one_line(tmp_path, capsys, args, says):
    code, _o, err = _run(capsys, "protect", str(tobii_file(tmp_path)), str(tmp_path / "o.csv"),
                         *KALEIDO, *args)
    assert code in (1, 2) and says in _error(err)


def test_broken_eyelink_files_never_end_in_an_internal_error(tmp_path, capsys):
    bad = tmp_path / "bad.asc"
    bad.write_text("** CONVERTED FROM bad.edf\nSTART\t1 LEFT SAMPLES\n1\t2\n3\tx\ty\n")
    code, _o, err = _run(capsys, "protect", str(bad), str(tmp_path / "o.csv"), *KALEIDO,
                         "--px-per-deg", "40", "--participant", "s")
    line = _error(err)
    assert code == 1 and "internal error" not in line and "TypeError" not in line
    assert "2 sample lines do not parse" in line
    with warnings.catch_warnings():
        warnings.simplefilter("default")  # shown as the command line shows them
        code, _o, err = _run(capsys, "protect", str(asc_trials_file(tmp_path, rate=False)),
                             str(tmp_path / "o.csv"), *KALEIDO, "--screen-cm", "53,30",
                             "--distance-cm", "60", "--participant", "s", "--public", "mask")
    assert code == 0, err
    assert "has no RATE" in err and "--rate HZ" in err
