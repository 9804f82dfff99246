# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
from __future__ import annotations

import json
import re

import polars as pl
import pytest
from typer.testing import CliRunner

from evaluate_helpers import fake_featurizer, fake_registry, tiny_dataset
from gazeprivacy.cli.app import app

runner = CliRunner()


@pytest.fixture
def fast(monkeypatch):
    """Cheap features, the test-only mechanism and a tiny 'bundled sample'."""
    import gazeprivacy.data.sample as sample
    import gazeprivacy.mechanisms as mechanisms
    from gazeprivacy.experiments import demo
    from gazeprivacy.experiments.engine import runner

    monkeypatch.setattr(runner, "event_features_of", fake_featurizer)
    monkeypatch.setattr(mechanisms, "MECHANISMS", fake_registry())
    monkeypatch.setattr(demo, "DEMO_SETTINGS", {
        "fake-noise": {"preset": "paper", "grid": "epsilon", "fixed": {}}})
    monkeypatch.setattr(sample, "load_sample",
                        lambda: tiny_dataset(n_participants=3, n_stimuli=3, n_samples=200,
                                             name="doves_sample", constant_task=True))


def test_evaluate_writes_results_guarantees_and_report(tmp_path, fast):
    data = tmp_path / "tiny.parquet"
    from gazeprivacy.data.io import write_dataset

    write_dataset(tiny_dataset(n_participants=3, n_stimuli=3, n_samples=200), data)
    cfg = tmp_path / "exp.toml"
    cfg.write_text(f"""
name = "cli-test"
seeds = [0]
workers = 1

[[datasets]]
name = "tiny"
source = "file"
path = "{data}"

[[mechanisms]]
name = "fake-noise"
grid = {{ epsilon = [1.0, 3.0] }}

[[attacks]]
kind = "reidentification"
classifier = "knn"
n_splits = 2
""")
    out = tmp_path / "out"
    res = runner.invoke(app, ["evaluate", str(cfg), "--out", str(out), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "3 cells (3 run, 0 reused)" in res.output
    table = pl.read_parquet(out / "results.parquet")
    assert set(table["mechanism"]) == {"none", "fake-noise"}
    assert len(json.loads((out / "guarantees.json").read_text())) == 2
    assert "data:image/png;base64," in (out / "report.html").read_text()
    refused = runner.invoke(app, ["evaluate", str(cfg), "--out", str(out), "--no-progress"])
    assert refused.exit_code != 0 and "--overwrite" in str(refused.exception)
    again = runner.invoke(app, ["evaluate", str(cfg), "--out", str(out), "--no-progress",
                               "--overwrite"])
    assert "3 cells (0 run, 3 reused)" in again.output


def test_evaluate_bad_config_is_one_named_error(tmp_path):
    cfg = tmp_path / "bad.toml"
    cfg.write_text('name = "x"\nseeds = [0]\ndatasets = []\n')
    res = runner.invoke(app, ["evaluate", str(cfg), "--out", str(tmp_path / "o")])
    assert res.exit_code != 0
    assert "at least one [[datasets]]" in str(res.exception)


def test_demo_runs_every_sample_mechanism_and_writes_the_report(tmp_path, fast):
    out = tmp_path / "demo"
    res = runner.invoke(app, ["demo", "--out", str(out), "--seed", "7", "--workers", "1",
                              "--n-splits", "2", "--no-progress"])
    assert res.exit_code == 0, res.output
    table = pl.read_parquet(out / "results.parquet")
    prot = table.filter(pl.col("mechanism") == "fake-noise")
    assert sorted(prot["epsilon"].unique().to_list()) == [1.0, 2.0, 3.0]
    assert table.filter(pl.col("mechanism") == "none")["metric"].to_list()
    assert {"reid:aware-rf:seed004", "reid:deep:seed004"} <= set(prot["evaluation"])
    html = (out / "report.html").read_text()
    assert html.count('<img src="data:image/png;base64,') >= 4
    # every attack line gives chance beside the rate, the attack named by its assumptions
    lines = [ln for ln in res.stdout.splitlines() if "% identified" in ln]
    assert lines and all(re.search(r"% identified vs chance \d+\.\d % = [\d.]+x chance \(",
                                   ln) for ln in lines), lines
    assert "seed00" not in res.stdout
    assert "label 'task' missing or constant" in res.output  # like DOVES: free viewing only
