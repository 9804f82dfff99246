# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The runner's learned evaluations (seed 001): gaze prediction, sequence activity, linkage.

The data are two activities per participant (smooth pursuit and saccadic jumps, see
``evaluate_helpers.activity_dataset``): the simulator's saccadic tasks leave a 100 ms gaze
predictor almost nothing to gain over "no movement" (~0.2 %), pursuit gives it a clear margin.
"""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

pytest.importorskip("torch")

from evaluate_helpers import activity_dataset
from gazeprivacy.experiments.config import parse_config
from gazeprivacy.experiments.engine import run_experiment
from gazeprivacy.report.html import build_report


def _data():
    return activity_dataset(duration_s=20.0, seed=1)


def _config(**over):
    d = {"name": "learned", "seeds": [3], "workers": 1,
         "datasets": [{"name": "acts", "source": "injected", "group_label": ""}],
         "mechanisms": [{"name": "kaleido", "preset": "paper",
                         "grid": {"epsilon": [1.0], "radius_deg": [2.0], "window_s": [0.5]}}],
         "utility": [{"kind": "gaze-prediction", "epochs": 8, "test_fraction": 0.34,
                      "max_train_windows": 1500},
                     {"kind": "activity-sequence", "label": "activity", "epochs": 5,
                      "window_s": 3.0, "test_fraction": 0.34}],
         "attacks": [{"kind": "linkage", "quasi_identifiers": ["gender"], "k": 3,
                      "n_splits": 1, "test_fraction": 0.5, "window_s": 5.0}]}
    d.update(over)
    return parse_config(d)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("learned")
    res = run_experiment(_config(), out, datasets={"acts": _data()})
    return out, res


def _metric(table, mechanism, evaluation, metric):
    v = table.filter((pl.col("mechanism") == mechanism) & (pl.col("evaluation") == evaluation)
                     & (pl.col("metric") == metric))["value"]
    assert v.len() == 1, (mechanism, evaluation, metric)
    return float(v[0])


@pytest.mark.slow
def test_raw_models_learn_and_protected_rows_carry_reference_levels(run):
    out, res = run
    t = res.results
    gp, act = "gaze-prediction:gru:seed001", "activity:seq:seed001"
    link = "linkage:gender:k3:seed001"
    assert set(t["evaluation"].unique()) == {gp, act, link}
    # raw data: the predictor beats the constant-position baseline, the classifier beats chance
    assert _metric(t, "none", gp, "error_deg") < 0.8 * _metric(t, "none", gp, "baseline_error_deg")
    assert _metric(t, "none", act, "accuracy") >= _metric(t, "none", act, "chance") + 0.3
    # a protected cell reports its own metric and the references as separate rows; the
    # raw-trained reference is the raw cell's own number (same split, same torch seed)
    assert _metric(t, "kaleido", gp, "raw_error_deg") == _metric(t, "none", gp, "error_deg")
    assert _metric(t, "kaleido", act, "raw_accuracy") == _metric(t, "none", act, "accuracy")
    assert _metric(t, "kaleido", gp, "baseline_error_deg") == _metric(t, "none", gp,
                                                                      "baseline_error_deg")
    assert _metric(t, "kaleido", act, "chance") == pytest.approx(0.5)
    assert _metric(t, "kaleido", act, "uniform_chance") == pytest.approx(0.5)
    # Kaleido (eps 1, r 2 deg) jitters and repeats positions: prediction gets worse than raw
    assert _metric(t, "kaleido", gp, "error_deg") > _metric(t, "none", gp, "error_deg")
    # linkage: 1/k bound and the gender-only guess (3 of 6 people per gender class)
    assert _metric(t, "none", link, "bound") == pytest.approx(1 / 3)
    assert _metric(t, "none", link, "quasi_only") == pytest.approx(1 / 3)
    assert 0.0 <= _metric(t, "kaleido", link, "success_quasi_and_gaze") <= 1.0
    # no event features were computed for a config of learned evaluations only
    assert not list((out / "cache").glob("*-events.parquet"))


@pytest.mark.slow
def test_cells_are_deterministic_given_the_seed(run, tmp_path):
    # the raw cell again, in a fresh folder (no cache): the same numbers to the last bit
    _, first = run
    again = run_experiment(_config(mechanisms=[]), tmp_path, datasets={"acts": _data()})
    cols = ["evaluation", "metric"]
    assert again.results.sort(cols).equals(
        first.results.filter(pl.col("mechanism") == "none").sort(cols))


@pytest.mark.slow
def test_report_draws_the_learned_metrics_with_reference_lines(run):
    out, _ = run
    page = build_report(out).read_text()
    figs = {p.name for p in (out / "figures").glob("curve_*.png")}
    assert any("gaze-prediction" in f and f.endswith("error_deg.png") for f in figs), figs
    assert any("activity-seq" in f and f.endswith("accuracy.png") for f in figs), figs
    assert any("linkage" in f and "success_quasi_and_gaze" in f for f in figs), figs
    assert ("gaze prediction by a recurrent network (GRU) (trained on the release, tested on "
            "raw gaze): prediction error [deg] vs epsilon") in page
    assert "constant-position baseline" in page


def test_linkage_with_missing_quasi_identifier_becomes_a_note(tmp_path):
    ds = activity_dataset(n_participants=3, duration_s=12.0, seed=2)
    cfg = _config(utility=[], mechanisms=[], attacks=[
        {"kind": "linkage", "quasi_identifiers": ["age"], "k": 2, "n_splits": 1}])
    res = run_experiment(cfg, tmp_path, datasets={"acts": ds})
    assert res.results.height == 0
    assert any("lacks quasi-identifier label(s) ['age']" in n for n in res.notes)
    meta = json.loads(next((tmp_path / "cells").glob("*.json")).read_text())
    assert meta["notes"]


def test_participant_splits_hold_people_out():
    from gazeprivacy.experiments.learned import participant_splits

    people = tuple(f"p{i}" for i in range(10))
    splits = participant_splits(people, n_splits=5, test_fraction=0.3,
                                rng=np.random.default_rng(0))
    assert all(len(te) == 3 and len(tr) == 7 and not (tr & te) for tr, te in splits)
    assert len({frozenset(te) for _, te in splits}) > 1
