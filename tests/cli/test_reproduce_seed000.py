# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy reproduce ren-2025-dpgazesynth --quick`` (seed 000) on a slice of the real data."""

from __future__ import annotations

import json

import polars as pl
import pytest
from typer.testing import CliRunner

from gazeprivacy.cli.app import app

runner = CliRunner()


@pytest.mark.realdata
@pytest.mark.slow
def test_reproduce_seed000_quick_writes_tables_with_paper_columns(tmp_path, data_dir):
    out = tmp_path / "s000"
    res = runner.invoke(app, ["reproduce", "ren-2025-dpgazesynth", "--out", str(out), "--quick",
                              "--data-dir", str(data_dir), "--seed", "3", "--workers", "1"])
    assert res.exit_code == 0, res.output
    for key in ("fig2", "table2", "table3", "table4"):
        assert (out / f"seed000_{key}.md").is_file(), key
    t2 = (out / "seed000_table2.md").read_text()
    assert "GazebaseVR task (paper Table 2)" in t2
    # the paper's printed values sit beside ours (Kaleido r = 5 %, eps 1; DPGazeSynth G = 60)
    assert "| Kaleido | r = 5% | 1 |" in t2 and "| 0.340 |" in t2
    assert "| original data |" in t2 and "| 0.985 |" in t2
    # four protocols per dataset: participants held out, event and sample-level features
    for col in ("events, recordings split (first run)", "events, participants held out",
                "samples, participants held out", "samples per 10 s, participants held out"):
        assert f"VR environment: {col}" in t2 and f"GazeGraph activity: {col}" in t2
    t4 = (out / "seed000_table4.md").read_text()
    assert "360_em (paper)" in t4 and "GazebaseVR (paper)" in t4
    start = "| DPGazeSynth | G = 60 (r = 5%) | 1 |"
    row = next(ln for ln in t4.splitlines() if ln.startswith(start))
    cells = [c.strip() for c in row.strip("|").split("|")]
    ours = [float(c) for c in cells[3:6]]            # DOVES, VR, GazeGraph: measured here
    assert all(0.0 <= v <= 1.0 for v in ours)
    assert cells[6:] == ["0.122", "0.011"]           # 360_em, GazebaseVR as printed
    assert "1.917e+06" in (out / "seed000_table3.md").read_text()  # Kaleido r 10 %, eps 1
    assert "not printed" in (out / "seed000_fig2.md").read_text()
    assert (out / "seed000_fig2.png").stat().st_size > 1000
    html = (out / "report.html").read_text()
    assert "<h2>Paper comparison</h2>" in html and "GazebaseVR task (paper Table 2)" in html
    # one merged table: re-identification on DOVES, task accuracy on VR and GazeGraph
    r = pl.read_parquet(out / "results.parquet")
    assert set(r["dataset"]) == {"doves", "vr_selfcalib_office_supermarket",
                                 "gazegraph_desktop_activity"}
    assert set(r.filter(pl.col("kind") == "privacy")["dataset"]) == {"doves"}
    # besides the paper's attack: the aware random forest and the deep attacker (both modes)
    assert {"reid:rbfn:seed000", "reid:aware-rf:seed004", "reid:deep:seed000",
            "reid:deep:seed004"} <= set(r.filter(pl.col("kind") == "privacy")["evaluation"])
    assert {"rmse", "rss_distance", "density_error"} <= set(r["metric"])
    t2rows = r.filter(pl.col("kind") == "utility")
    assert {e.split(":rf:")[1] for e in t2rows["evaluation"]} == {
        "events:by-recording", "events:by-participant", "samples:by-participant",
        "samples-10s:by-participant"}
    assert t2rows.filter(pl.col("metric") == "accuracy")["value"].is_between(0, 1).all()
    guarantees = json.loads((out / "guarantees.json").read_text())
    assert {g["guarantee"]["mode"] for g in guarantees} == {"paper"}
    assert len(guarantees) == 3 * 4  # datasets x (DPGazeSynth G 60 / 30, Kaleido r 5 / 10 %)
