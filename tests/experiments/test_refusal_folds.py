# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Refusals under the frontier protocol and for synthetic populations: a refused frontier
release or membership fold is recorded and the rest kept; an earlier run's fold files of a cell
computed again are removed, never pooled."""

from __future__ import annotations

import dataclasses
import json

import polars as pl
import pytest

from evaluate_helpers import activity_dataset, fake_featurizer, fake_registry, tiny_dataset
from gazeprivacy.exceptions import ReleaseRefusedError
from gazeprivacy.experiments.config import parse_config
from gazeprivacy.experiments.engine import run_experiment
from gazeprivacy.report.membership import read_membership_scores
from gazeprivacy.report.verdict import REFUSED

__all__: list[str] = []

_REASON = "fake-refuser refuses to release: too few people (test)"


def _counting_registry(refuse_calls: set[int], *, synthetic: bool = False):
    """fake-noise under the name fake-refuser, refusing its n-th calls (1-based)."""
    base = fake_registry()["fake-noise"]
    calls = [0]

    def run(dataset, params, *, rng, progress=False):
        calls[0] += 1
        if calls[0] in refuse_calls:
            raise ReleaseRefusedError(_REASON)
        return base.run(dataset, params, rng=rng, progress=progress)

    spec = dataclasses.replace(base, name="fake-refuser", run=run)
    if synthetic:
        spec = dataclasses.replace(spec, synthetic_population=True)
    return {"fake-refuser": spec}


def _frontier_config():
    return parse_config({
        "name": "t", "seeds": [0],
        "datasets": [{"name": "d", "source": "injected", "group_label": ""}],
        "mechanisms": [{"name": "fake-refuser", "grid": {"epsilon": [0.5]}}],
        "attacks": [{"kind": "membership"}, {"kind": "attribute", "attribute": "gender"}],
        "frontier": {"n_trees": 10, "membership_folds": 3}})


@pytest.fixture(scope="module")
def people():
    return activity_dataset(n_participants=9, duration_s=12.0, seed=3)


def test_a_refused_fold_is_recorded_and_the_other_folds_kept(tmp_path, people):
    # calls: the cell's own release (1), then folds 0, 1, 2 (2, 3, 4): fold 1 is refused
    run_experiment(_frontier_config(), tmp_path, registry=_counting_registry({3}),
                   datasets={"d": people}, workers=1)
    refusals = json.loads((tmp_path / "refusals.json").read_text())
    assert [(r["mechanism"], r["seed"], r["fold"]) for r in refusals] == [
        ("fake-refuser", 0, 1)]
    assert _REASON in refusals[0]["reason"] and "fold 1" in refusals[0]["reason"]
    scores = read_membership_scores(tmp_path).filter(pl.col("mechanism") == "fake-refuser")
    assert sorted(set(scores["fold"])) == [0, 2]
    for name in ("membership.json", "attribute.json"):
        rows = {r["mechanism"]: r for r in json.loads((tmp_path / name).read_text())}
        assert rows["fake-refuser"]["n_games"] == 2, name
        assert rows["fake-refuser"]["refused_folds"] == ["seed 0 fold 1"], name
        assert rows["none"]["refused_folds"] == [] and rows["none"]["n_games"] == 3, name


def test_a_refused_frontier_release_replaces_the_cells_old_fold_files(tmp_path, people, capsys):
    first = run_experiment(_frontier_config(), tmp_path, registry=_counting_registry(set()),
                           datasets={"d": people}, workers=1)
    assert not first.refusals
    assert "fake-refuser" in set(read_membership_scores(tmp_path)["mechanism"])
    capsys.readouterr()
    # other data under the same name: the cell is computed again, and now refused
    other = activity_dataset(n_participants=9, duration_s=12.0, seed=4)
    res = run_experiment(_frontier_config(), tmp_path, registry=_counting_registry({1}),
                         datasets={"d": other}, workers=1)
    assert [(r["mechanism"], "fold" in r) for r in res.refusals] == [("fake-refuser", False)]
    kind, _, _ = REFUSED
    refused = res.results.filter(pl.col("mechanism") == "fake-refuser")
    assert set(refused["kind"]) == {kind} and set(refused["mode"]) == {"refused"}
    # the old fold rows of the refused cell are gone, and said so; none pooled
    assert "fake-refuser" not in set(read_membership_scores(tmp_path)["mechanism"])
    pooled = {r["mechanism"] for r in json.loads((tmp_path / "membership.json").read_text())}
    assert "fake-refuser" not in pooled
    err = capsys.readouterr().err
    assert "removed" in err and "membership" in err and "attribute" in err


def test_a_refused_population_release_and_its_membership_fit_are_recorded(tmp_path):
    tiny = tiny_dataset(n_participants=6, n_stimuli=3, n_samples=300)
    cfg = parse_config({
        "name": "t", "seeds": [0], "datasets": [{"name": "tiny", "source": "injected"}],
        "mechanisms": [{"name": "fake-refuser", "grid": {"epsilon": [0.5, 5.0]}}],
        "attacks": [{"kind": "reidentification", "classifier": "knn", "n_splits": 2}]})
    # calls: eps 0.5's release (1, refused: no fit follows), eps 5's release (2), its fit (3)
    res = run_experiment(cfg, tmp_path, registry=_counting_registry({1, 3}, synthetic=True),
                         datasets={"tiny": tiny}, featurizer=fake_featurizer, workers=1)
    got = sorted((r["epsilon"], r.get("fold")) for r in res.refusals)
    assert got == [(0.5, None), (5.0, "membership split")]
    assert json.loads((tmp_path / "refusals.json").read_text()) == res.refusals
    kind, _, _ = REFUSED
    eps = res.results.filter(pl.col("mechanism") == "fake-refuser")
    assert set(eps.filter(pl.col("epsilon") == 0.5)["kind"]) == {kind}
    five = eps.filter(pl.col("epsilon") == 5.0)
    assert kind not in set(five["kind"])  # released; only its membership attack skipped
    assert any("training part was refused" in r["reason"] for r in res.refusals)
