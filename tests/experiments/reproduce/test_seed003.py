# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The seed-003 reproduction on a small real-data slice (coarse cells, few draws)."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from gazeprivacy.experiments.reproduce.seed003 import reproduce_seed003


@pytest.mark.realdata
def test_reproduce_seed003_small(tmp_path, data_dir):
    res = reproduce_seed003(tmp_path, data_dir=data_dir, rng=np.random.default_rng(1),
                            n_draws=4, n_stimuli=1, datasets=("osie",), epsilons=(1.0, 3.0),
                            cell_px=10, sigma_px=30.0)
    assert (tmp_path / "seed003_figure3.png").is_file()
    assert res.table.height == 1 * 3 * 2 * 4 * 2  # stimuli x mechanisms x eps x draws x metrics
    s = res.summary.filter(pl.col("metric") == "mse")
    get = {(r["mechanism"], r["epsilon"]): r["mean"] for r in s.iter_rows(named=True)}
    # more privacy, more error; Laplace worst; analytic Gaussian at most Theorem 3.4's error
    for mech in ("gaussian", "laplace", "analytic-gaussian"):
        assert get[(mech, 1.0)] > get[(mech, 3.0)]
    assert get[("laplace", 1.0)] > get[("gaussian", 1.0)] >= get[("analytic-gaussian", 1.0)]
    assert (res.sigmas["ratio"] <= 1.0).all()
    recs = [g["guarantee"] for g in json.loads((tmp_path / "guarantees.json").read_text())]
    assert len(recs) == 6
    # the cap came from Algorithm 1 on the private maps: every record says so
    assert all(any(f["code"] == "tuned-on-private-data" for f in r["flags"]) for r in recs)
    assert res.table["n_simulated"].unique().to_list() == [49_995]
    # one output format for every reproduction: results.parquet (long schema) + report.html
    from gazeprivacy.experiments.engine import RESULT_SCHEMA

    r = pl.read_parquet(tmp_path / "results.parquet")
    assert list(r.columns[:len(RESULT_SCHEMA)]) == list(RESULT_SCHEMA)
    assert set(r["metric"]) == {"cc", "mse"} and set(r["kind"]) == {"fidelity"}
    assert r.height == res.table.height
    assert set(r["mode"]) == {"paper", "sound"}
    assert not list(tmp_path.glob("*.csv"))
    html = (tmp_path / "report.html").read_text()
    assert "<h2>Paper comparison</h2>" in html and "Figure 3" in html
