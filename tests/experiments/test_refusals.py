# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""A release its mechanism refuses (ReleaseRefusedError) is recorded as the cell's outcome and
the run goes on (any other error is a failed cell: ``test_failures.py``)."""

from __future__ import annotations

import dataclasses
import json

import polars as pl
import pytest

from evaluate_helpers import FakeNoiseParams, fake_featurizer, fake_registry, tiny_dataset
from gazeprivacy.exceptions import InvalidDataError, ReleaseRefusedError
from gazeprivacy.experiments.config import parse_config
from gazeprivacy.experiments.engine import run_experiment
from gazeprivacy.report.html import build_report
from gazeprivacy.report.tables import pivot_tables
from gazeprivacy.report.verdict import REFUSED, refused_releases

_REASON = "fake-refuser refuses to release: the detected events are implausible (test)"


def _refusing(dataset, params: FakeNoiseParams, *, rng, progress=False):
    if params.epsilon < 1:
        raise ReleaseRefusedError(_REASON + "\nsecond line, not shown")
    return fake_registry()["fake-noise"].run(dataset, params, rng=rng, progress=progress)


def _registry():
    base = fake_registry()["fake-noise"]
    return {"fake-noise": base,
            "fake-refuser": dataclasses.replace(base, name="fake-refuser", run=_refusing)}


def _config(mechanisms):
    return parse_config({
        "name": "t", "seeds": [0, 1], "datasets": [{"name": "tiny", "source": "injected"}],
        "mechanisms": mechanisms,
        "attacks": [{"kind": "reidentification", "classifier": "knn", "n_splits": 2}]})


@pytest.fixture(scope="module")
def tiny():
    return tiny_dataset(n_participants=4, n_stimuli=4, n_samples=300)


def _run(cfg, out, tiny, **kw):
    return run_experiment(cfg, out, registry=_registry(), datasets={"tiny": tiny},
                          featurizer=fake_featurizer, workers=1, **kw)


def test_a_refused_release_is_recorded_and_the_run_goes_on(tmp_path, tiny, capsys):
    cfg = _config([{"name": "fake-refuser", "grid": {"epsilon": [0.5, 5.0]}},
                   {"name": "fake-noise", "grid": {"epsilon": [0.2]}}])
    res = _run(cfg, tmp_path, tiny, progress=True)
    # the refused point: one line per cell on stderr, beside the progress
    err = capsys.readouterr().err
    assert f'refused: tiny / fake-refuser {{"epsilon": 0.5}} seed 0: {_REASON}' in err
    assert "second line" not in err
    # recorded: mechanism, parameters, epsilon, seed and the one-line reason
    assert sorted((r["mechanism"], r["epsilon"], r["seed"]) for r in res.refusals) == [
        ("fake-refuser", 0.5, 0), ("fake-refuser", 0.5, 1)]
    assert {r["reason"] for r in res.refusals} == {_REASON}
    assert json.loads((tmp_path / "refusals.json").read_text()) == res.refusals
    kind, evaluation, metric = REFUSED
    rows = res.results.filter(pl.col("kind") == kind)
    assert rows.height == 2 and set(rows["epsilon"]) == {0.5} and set(rows["mode"]) == {"refused"}
    assert (rows["evaluation"] == evaluation).all() and (rows["metric"] == metric).all()
    # the other releases ran: the refuser's other point and fake-noise have their attack rows
    reid = res.results.filter(pl.col("metric") == "identification_rate")
    assert set(zip(reid["mechanism"], reid["epsilon"], strict=True)) == {
        ("none", None), ("fake-refuser", 5.0), ("fake-noise", 0.2)}
    assert refused_releases(res.results)["seeds"].to_list() == [[0, 1]]
    # the tables say "refused" instead of dropping the release
    pivot = pivot_tables(res.results)
    assert "refused on seed(s) 0, 1" in pivot and ">refused</td>" in pivot
    report = build_report(tmp_path).read_text()
    assert "Refused releases" in report and "the detected events are implausible" in report
    # a refused cell is finished: a rerun reuses it
    again = _run(cfg, tmp_path, tiny)
    assert again.n_run == 0 and again.refusals == res.refusals


def test_the_refusals_of_the_mechanisms_are_release_refused_errors():
    from gazeprivacy.events.plausibility import EventPlausibility, require_plausible

    with pytest.raises(ReleaseRefusedError, match="refuses to release"):
        require_plausible(EventPlausibility("ivt", 0.61, 10, 9), accept=False, what="m")
    assert issubclass(ReleaseRefusedError, InvalidDataError)  # callers catching it still do


def test_reproduce_runs_keep_every_roles_refusals(tmp_path, tiny, monkeypatch):
    from gazeprivacy.experiments.reproduce import _runs

    def run(cfg, out, *, datasets, progress, featurizer):  # the fake mechanisms and features
        return run_experiment(cfg, out, registry=_registry(), datasets=datasets,
                              featurizer=fake_featurizer, workers=1, progress=progress)

    monkeypatch.setattr(_runs, "run_experiment", run)
    raw = {"name": "t", "seeds": [0], "attacks": [
        {"kind": "reidentification", "classifier": "knn", "n_splits": 2}]}
    configs = {role: {**raw, "datasets": [{"name": name, "source": "injected"}],
                      "mechanisms": [{"name": "fake-refuser", "grid": {"epsilon": [0.5]}}]}
               for role, name in (("a", "tiny"), ("b", "tiny2"))}
    datasets = {"a": tiny, "b": dataclasses.replace(tiny, name="tiny2")}
    _runs.run_roles(configs, datasets, tmp_path, name="t", progress=False)
    refusals = json.loads((tmp_path / "refusals.json").read_text())
    assert sorted(r["dataset"] for r in refusals) == ["tiny", "tiny2"]


def test_reproduce_cli_prints_the_refusals(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from gazeprivacy.cli.app import app
    from gazeprivacy.experiments.reproduce import seed000

    def fake(out, **kw):
        out.mkdir(parents=True, exist_ok=True)
        (out / "refusals.json").write_text(json.dumps([{
            "dataset": "doves", "mechanism": "m", "parameters": {"k": 2}, "epsilon": 1.0,
            "seed": 0, "reason": "m refuses to release: too few people"}]))
        table = out / "t.md"
        table.write_text("| table |\n")
        return dataclasses.make_dataclass("R", ["tables", "figure", "report"])(
            {k: table for k in ("fig2", "table2", "table4")}, table, table)

    monkeypatch.setattr(seed000, "reproduce_seed000", fake)
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["reproduce", "ren-2025-dpgazesynth", "--out", str(out),
                                   "--quick", "--data-dir", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert ('refused: doves / m {"k": 2} on seed(s) 0: m refuses to release: too few people'
            in res.output)
