# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from evaluate_helpers import fake_featurizer, fake_registry, tiny_dataset
from gazeprivacy.experiments.config import ConfigError, parse_config
from gazeprivacy.experiments.engine import RESULT_SCHEMA, run_experiment


def _config(**over):
    d = {"name": "t", "seeds": [0, 1],
         "datasets": [{"name": "tiny", "source": "injected"}],
         "mechanisms": [{"name": "fake-noise", "grid": {"epsilon": [0.2, 50.0]}}],
         "attacks": [{"kind": "reidentification", "classifier": "knn", "n_splits": 2},
                     {"kind": "attribute", "attribute": "gender", "classifier": "knn",
                      "threat": "seed004"}],
         "utility": [{"label": "task", "n_splits": 1, "n_trees": 10}]}
    d.update(over)
    return parse_config(d)


@pytest.fixture(scope="module")
def tiny():
    return tiny_dataset(n_participants=4, n_stimuli=4, n_samples=300)


def _run(cfg, out, tiny, **kw):
    return run_experiment(cfg, out, registry=fake_registry(), datasets={"tiny": tiny},
                          featurizer=fake_featurizer, **kw)


def test_tidy_table_and_guarantees(tmp_path, tiny):
    res = _run(_config(), tmp_path, tiny, workers=1)
    table = pl.read_parquet(tmp_path / "results.parquet")
    assert dict(table.schema) == RESULT_SCHEMA
    assert table.equals(res.results)
    # 2 seeds x (raw + 2 points) cells; each has reid (4), gender (3), task (3 + its split
    # standard error) metrics
    assert res.n_cells == 6 and table.height == 6 * 11
    assert table["beats_baselines"].is_null().all()  # no baseline in this run
    assert set(table["kind"].unique()) == {"privacy", "utility"}
    raw = table.filter(pl.col("mechanism") == "none")
    assert raw["epsilon"].is_null().all() and raw["mode"].unique().to_list() == ["none"]
    prot = table.filter(pl.col("mechanism") == "fake-noise")
    assert sorted(prot["epsilon"].unique().to_list()) == [0.2, 50.0]
    assert {json.loads(p)["epsilon"] for p in prot["parameters"]} == {0.2, 50.0}
    g = json.loads((tmp_path / "guarantees.json").read_text())
    assert len(g) == 4
    rec = g[0]["guarantee"]
    assert rec["mechanism"] == "fake-noise" and rec["per_participant"]
    assert rec["seed"] == g[0]["seed"]
    assert any(f["code"] == "fixed-seed" for f in rec["flags"])


def test_attack_success_falls_with_noise(tmp_path, tiny):
    res = _run(_config(seeds=[0]), tmp_path, tiny, workers=1)
    ident = res.results.filter(pl.col("metric") == "identification_rate")
    by = {(r["mechanism"], r["epsilon"]): r["value"] for r in ident.iter_rows(named=True)}
    assert by[("none", None)] == 1.0
    assert by[("fake-noise", 0.2)] < by[("none", None)]


@pytest.mark.slow
def test_serial_and_parallel_runs_give_the_same_table(tmp_path, tiny):
    cfg = _config(mechanisms=[{"name": "fake-noise", "grid": {"epsilon": [0.2]}}])
    a = _run(cfg, tmp_path / "serial", tiny, workers=1)
    b = _run(cfg, tmp_path / "parallel", tiny, workers=2)
    assert a.results.equals(b.results)
    assert a.guarantees == b.guarantees


def test_rerun_skips_finished_cells_and_resumes_missing_ones(tmp_path, tiny, monkeypatch):
    cfg = _config(seeds=[0])
    first = _run(cfg, tmp_path, tiny, workers=1)
    assert (first.n_run, first.n_skipped) == (3, 0)
    from gazeprivacy.experiments.engine import runner

    calls = []
    real = runner._run_cell
    monkeypatch.setattr(runner, "_run_cell", lambda c, ctx: calls.append(c.key) or real(c, ctx))
    again = _run(cfg, tmp_path, tiny, workers=1)
    assert (again.n_run, again.n_skipped) == (0, 3) and calls == []
    assert again.results.equals(first.results)
    # losing one cell's completion marker reruns exactly that cell, with the same result
    victim = sorted((tmp_path / "cells").glob("*.json"))[0]
    victim.unlink()
    third = _run(cfg, tmp_path, tiny, workers=1)
    assert (third.n_run, third.n_skipped) == (1, 2) and calls == [victim.stem]
    assert third.results.equals(first.results)


def test_a_new_seed_adds_cells_without_changing_old_ones(tmp_path, tiny):
    one = _run(_config(seeds=[0]), tmp_path, tiny, workers=1)
    two = _run(_config(seeds=[0, 3]), tmp_path, tiny, workers=1)
    assert two.n_skipped == 3 and two.n_run == 3
    assert two.results.filter(pl.col("seed") == 0).equals(one.results)


def test_unknown_mechanism_fails_before_any_work(tmp_path, tiny):
    cfg = _config(mechanisms=[{"name": "dpgazesynth", "grid": {"epsilon": [1]}}])
    with pytest.raises(ConfigError, match="'dpgazesynth' is not a registered mechanism"):
        _run(cfg, tmp_path, tiny, workers=1)
    assert not (tmp_path / "cells").exists()


def test_missing_attribute_label_becomes_a_note(tmp_path, tiny):
    cfg = _config(seeds=[0], attacks=[{"kind": "attribute", "attribute": "age",
                                       "classifier": "knn"}], utility=[])
    res = _run(cfg, tmp_path, tiny, workers=1)
    assert res.results.height == 0
    assert any("label 'age'" in n for n in res.notes)
    assert np.isfinite(res.seconds)


def test_unbuildable_parameter_point_fails_before_any_cell_runs(tmp_path, tiny):
    cfg = _config(mechanisms=[{"name": "fake-noise", "grid": {"epsilon": [1.0]},
                               "fixed": {"radius_deg": 2.0}}])
    with pytest.raises(ConfigError, match="cannot build parameters"):
        _run(cfg, tmp_path, tiny, workers=1)
    assert not list((tmp_path / "cells").glob("*.json"))
