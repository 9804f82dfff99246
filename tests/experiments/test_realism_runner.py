# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The realism views in the runner: config keys, rows per cell, the demo's config."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from evaluate_helpers import fake_registry
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.experiments.config import (
    REALISM_VIEWS,
    ConfigError,
    RealismConfig,
    parse_config,
)
from gazeprivacy.experiments.demo import demo_config
from gazeprivacy.experiments.engine import run_experiment
from gazeprivacy.metrics.realism import METRIC_INFO, VIEWS

_BASE = {"name": "t", "seeds": [0], "datasets": [{"name": "d", "source": "injected"}]}


def test_realism_config_keys():
    assert REALISM_VIEWS == VIEWS
    assert parse_config(_BASE).realism is None
    assert parse_config({**_BASE, "realism": True}).realism == RealismConfig()
    rc = parse_config({**_BASE, "realism": {"labels": ["task", "stimulus"], "n_splits": 3,
                                            "views": ["discriminator"]}}).realism
    assert rc.labels == ("task", "stimulus") and rc.views == ("discriminator",)
    with pytest.raises(ConfigError, match="realism.views"):
        parse_config({**_BASE, "realism": {"views": ["beauty"]}})
    with pytest.raises(ConfigError, match="unknown key"):
        parse_config({**_BASE, "realism": {"label": "task"}})
    with pytest.raises(ConfigError, match="realism.n_splits must be an integer >= 2"):
        parse_config({**_BASE, "realism": {"n_splits": 1}})
    with pytest.raises(ConfigError, match="realism.window_s"):
        parse_config({**_BASE, "realism": {"window_s": 0}})


def test_demo_config_has_realism():
    rc = demo_config(["dpgazesynth"], seed=0).realism
    assert rc is not None and set(rc.views) == set(VIEWS) and "stimulus" in rc.labels


def test_runner_writes_realism_rows_for_every_cell(tmp_path):
    sim = simulate_dataset(n_participants=4, tasks=("reading", "random-dot"), duration_s=8.0,
                           sampling_rate_hz=60, rng=np.random.default_rng(0))
    cfg = parse_config({
        **_BASE, "datasets": [{"name": "sim", "source": "injected", "group_label": ""}],
        "mechanisms": [{"name": "fake-noise", "grid": {"epsilon": [50.0]}}],
        "baselines": ["baseline-uniform"],
        "realism": {"labels": ["task", "stimulus"], "n_splits": 2, "n_trees": 10}})
    res = run_experiment(cfg, tmp_path, registry=fake_registry(), datasets={"sim": sim},
                         workers=1)
    t = res.results
    auc = t.filter(pl.col("metric") == "discriminator_auc")
    assert set(auc["mechanism"]) == {"none", "fake-noise", "baseline-uniform"}
    assert set(auc["kind"]) == {"realism"} and set(auc["evaluation"]) == {
        "realism:discriminator"}
    by = dict(zip(auc["mechanism"], auc["value"], strict=True))
    assert by["none"] == pytest.approx(0.5)  # raw against itself: the reference
    assert by["baseline-uniform"] > 0.9
    assert set(t.filter(pl.col("kind") == "realism")["metric"]) <= set(METRIC_INFO)
    tstr = t.filter(pl.col("evaluation") == "task:tstr-rf")
    assert set(tstr["kind"]) == {"utility"}
    assert set(tstr["mechanism"]) == {"none", "fake-noise", "baseline-uniform"}
    # the TSTR accuracy is compared with the data-free baseline like every utility metric
    acc = tstr.filter((pl.col("metric") == "accuracy") & (pl.col("mechanism") == "fake-noise"))
    assert acc["beats_baselines"].is_not_null().all()
    w1 = t.filter((pl.col("metric") == "fixation_duration_w1_s")
                  & (pl.col("mechanism") == "none"))["value"]
    assert w1.to_list() == [0.0]
    assert any("TSTR on 'stimulus' skipped" in n for n in res.notes)
