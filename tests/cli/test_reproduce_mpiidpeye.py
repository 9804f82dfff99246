# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy reproduce bozkir-2021`` and ``steil-2019`` on 6 of MPIIDPEye's 20 people: the
common output format (results.parquet in the runner's schema + report.html), seed 002's two
sensitivity variants and seed 004's balanced classes."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from gazeprivacy.cli.app import app, run
from gazeprivacy.experiments.engine import RESULT_SCHEMA

runner = CliRunner()
_PEOPLE = range(1, 7)


@pytest.fixture(scope="module")
def small_mpiidpeye(data_dir, tmp_path_factory) -> Path:
    """A data folder whose mpiidpeye/ holds participants 1-6 (links to the real files)."""
    src = Path(data_dir) / "mpiidpeye"
    root = tmp_path_factory.mktemp("data")
    dst = root / "mpiidpeye"
    (dst / "Eye_Tracking_Data").mkdir(parents=True)
    for name in ("Ground_Truth.csv", "Readme.txt"):
        if (src / name).exists():
            (dst / name).symlink_to(src / name)
    for p in _PEOPLE:
        for f in (src / "Eye_Tracking_Data").glob(f"Data_P{p}_R*.csv.gz"):
            (dst / "Eye_Tracking_Data" / f.name).symlink_to(f)
    return root


def _common_outputs(out: Path) -> pl.DataFrame:
    r = pl.read_parquet(out / "results.parquet")
    assert list(r.columns[:len(RESULT_SCHEMA)]) == list(RESULT_SCHEMA)
    assert r.schema["value"] == pl.Float64 and r["metric"].null_count() == 0
    html = (out / "report.html").read_text()
    assert "<h2>Paper comparison</h2>" in html
    assert not list(out.glob("*results.csv"))
    assert json.loads((out / "guarantees.json").read_text())
    return r


@pytest.mark.realdata
def test_bozkir_2021_writes_both_sensitivities(tmp_path, small_mpiidpeye):
    out = tmp_path / "s002"
    res = runner.invoke(app, ["reproduce", "bozkir-2021", "--out", str(out), "--data-dir",
                              str(small_mpiidpeye), "--method", "CFPA-32", "--epsilon", "0.48",
                              "--classifier", "svm", "--subsample-lopo", "30",
                              "--subsample-person", "15", "--seed", "1"])
    assert res.exit_code == 0, res.output
    r = _common_outputs(out)
    acc = r.filter((pl.col("metric") == "accuracy") & (pl.col("mechanism") == "CFPA-32"))
    assert set(acc["sensitivity"]) == {"per-document", "uniform"}
    assert set(acc["kind"]) == {"privacy", "utility"}  # gender / person attacks, document task
    assert {json.loads(p)["sensitivity"] for p in acc["parameters"]} == {"per-document",
                                                                       "uniform"}
    ch = r.filter((pl.col("metric") == "chance") & (pl.col("task") == "person"))
    assert ch["value"].unique().to_list() == [pytest.approx(1 / 6)]
    md = (out / "seed002_tables.md").read_text()
    assert "per-document / uniform / paper" in md and "0.37" in md  # paper CFPA-32 SVM eps 0.48


@pytest.mark.realdata
def test_bozkir_2021_rejects_an_unknown_method(tmp_path, small_mpiidpeye, capsys):
    code = run(["reproduce", "bozkir-2021", "--out", str(tmp_path / "x"), "--data-dir",
                str(small_mpiidpeye), "--method", "CFPA-33"])
    err = capsys.readouterr().err
    assert code == 1 and "unknown method(s) ['CFPA-33']" in err and "Traceback" not in err


@pytest.mark.realdata
def test_steil_2019_balances_classes(tmp_path, small_mpiidpeye):
    out = tmp_path / "s004"
    res = runner.invoke(app, ["reproduce", "steil-2019", "--out", str(out), "--data-dir",
                              str(small_mpiidpeye), "--epsilon", "15", "--seed", "2"])
    assert res.exit_code == 0, res.output
    r = _common_outputs(out)
    assert set(r["balanced"].drop_nulls()) == {True}
    assert {"fig6", "fig7", "fig8", "clean"} <= set(r["figure"])
    assert (out / "seed004_fig6.png").stat().st_size > 1000
    g = r.filter(pl.col("metric") == "per_participant_epsilon")
    assert g["kind"].to_list() == ["guarantee"] * 2  # paper and sound mode
