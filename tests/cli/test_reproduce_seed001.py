# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy reproduce david-john-2023 --quick`` (seed 001) on simulated stand-ins."""

from __future__ import annotations

import json

import polars as pl
import pytest
from typer.testing import CliRunner

from gazeprivacy.cli.app import app

pytest.importorskip("torch")

runner = CliRunner()


def _row(md: str, start: str) -> list[str]:
    line = next(ln for ln in md.splitlines() if ln.startswith(start))
    return [c.strip() for c in line.strip("|").split("|")]


@pytest.mark.slow
# the RBFN's k-means meets duplicate feature rows on these tiny simulated releases
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_reproduce_seed001_quick_simulated_writes_tables_figures_and_report(tmp_path):
    out = tmp_path / "s001"
    res = runner.invoke(app, ["reproduce", "david-john-2023", "--out", str(out), "--quick",
                              "--simulate", "--seed", "2", "--workers", "1"])
    assert res.exit_code == 0, res.output
    for key in ("utility", "fig4", "fig8", "table3", "table4", "fig1"):
        assert (out / f"seed001_{key}.md").is_file(), key
    for key in ("fig1", "fig4", "fig8"):
        assert (out / f"seed001_{key}.png").stat().st_size > 1000, key
    # every sample-level mechanism has a row of learned utility on both datasets
    util = (out / "seed001_utility.md").read_text()
    for mech in ("raw data", "k-same-synth", "event-synth-PD", "Kaleido", "DPGazeSynth"):
        assert f"| {mech} |" in util, mech
    raw = _row(util, "| raw data |")
    # raw-trained columns equal the raw row's own values (same split and seed)
    assert raw[2] == raw[4] and raw[5] == raw[7]
    # the paper's numbers sit beside ours
    t3 = (out / "seed001_table3.md").read_text()
    assert _row(t3, "| k-same-synth | k = 2 |")[-1] == "9.7 %"
    assert _row(t3, "| raw data |")[-1] == "28.0 %"
    assert _row((out / "seed001_table4.md").read_text(),
                "| Kaleido | w = 0.5 s, r = 2 deg, eps = 1 |")[-1] == "2.6 %"
    assert _row((out / "seed001_fig8.md").read_text(), "| raw data |")[-1] == "4.3"
    fig1 = (out / "seed001_fig1.md").read_text()
    assert _row(fig1, "| raw | 2 |")[5] == "50.0 %"          # the 1 / k bound
    # the engine's tidy table holds the learned metrics and their reference levels
    table = pl.read_parquet(out / "results.parquet")
    metrics = set(table["metric"].unique())
    assert {"error_deg", "baseline_error_deg", "raw_error_deg", "accuracy", "chance",
            "raw_accuracy", "success_quasi_and_gaze", "bound", "identification_rate"} <= metrics
    assert {"reid:aware-rf:seed004", "reid:deep:seed000", "reid:deep:seed004"} <= set(
        table["evaluation"])
    # the linkage ablation (three causes above 1 / k), in the table and in results.parquet
    abl = (out / "seed001_linkage_ablation.md").read_text()
    assert "features: no-gaps" in abl and "- same groups for every document" in abl
    assert _row(abl, "| 2 | raw gaze (no release) |")[-1] == "50.0 %"
    rows = table.filter(pl.col("evaluation").str.starts_with("linkage-ablation"))
    releases = {json.loads(p)["release"] for p in rows["parameters"]}
    assert {"raw", "paper", "same-groups", "gender-groups"} <= releases
    assert rows["value"].is_between(0, 1).all()
    cfg = json.loads((out / "seed001_configs.json").read_text())
    assert cfg["simulate"] is True and cfg["settings"]["quick"] is True
    page = (out / "report.html").read_text()
    assert "Paper comparison" in page and "Fig. 8 in shape" in page
