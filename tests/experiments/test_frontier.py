# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The frontier protocol in the runner: config keys, what a mechanism sees, the rows."""

from __future__ import annotations

from dataclasses import replace

import polars as pl
import pytest

from evaluate_helpers import activity_dataset, fake_registry
from gazeprivacy.experiments.config import ConfigError, FrontierConfig, parse_config
from gazeprivacy.experiments.engine import run_experiment
from gazeprivacy.report.attribute import UNCHECKED as ATTR_UNCHECKED
from gazeprivacy.report.verdict import frontier

_BASE = {"name": "t", "seeds": [0], "datasets": [{"name": "d", "source": "injected",
                                                   "group_label": ""}]}


def test_frontier_config_keys():
    assert parse_config(_BASE).frontier is None
    fc = parse_config({**_BASE, "frontier": {"labels": ["activity"],
                                             "holdout_fraction": 0.25}}).frontier
    assert fc == FrontierConfig(labels=("activity",), holdout_fraction=0.25)
    with pytest.raises(ConfigError, match="frontier.holdout_fraction must be in"):
        parse_config({**_BASE, "frontier": {"holdout_fraction": 1.0}})
    with pytest.raises(ConfigError, match="unknown key"):
        parse_config({**_BASE, "frontier": {"label": "activity"}})
    with pytest.raises(ConfigError, match="need a \\[frontier\\] table"):
        parse_config({**_BASE, "attacks": [{"kind": "membership"}]})


_SEEN: list[set[str]] = []


def _spy_registry():
    spec = fake_registry()["fake-noise"]

    def run(dataset, params, *, rng, progress=False):
        _SEEN.append(set(dataset.participants))
        return spec.run(dataset, params, rng=rng, progress=progress)

    return {"fake-noise": replace(spec, run=run)}


@pytest.fixture(scope="module")
def frontier_run(tmp_path_factory):
    ds = activity_dataset(n_participants=10, duration_s=12.0, seed=3)
    cfg = parse_config({
        **_BASE, "seeds": [0, 1],
        "mechanisms": [{"name": "fake-noise", "grid": {"epsilon": [0.5]}}],
        "baselines": ["baseline-centre-gaussian", "baseline-uniform"],
        "attacks": [{"kind": "membership"}, {"kind": "attribute", "attribute": "gender"},
                    {"kind": "reidentification"}],
        "frontier": {"labels": ["activity"], "n_trees": 20, "holdout_fraction": 0.3}})
    _SEEN.clear()
    res = run_experiment(cfg, tmp_path_factory.mktemp("frontier"), registry=_spy_registry(),
                         datasets={"d": ds}, workers=1)
    return ds, res


def test_mechanism_sees_only_training_participants(frontier_run):
    _, res = frontier_run
    assert len(_SEEN) == 2  # one protected cell per seed
    for seen in _SEEN:
        assert len(seen) == 7  # 3 of 10 held out
    assert _SEEN[0] != _SEEN[1]  # each seed draws its own split
    assert any("frontier protocol runs membership and attribute" in n for n in res.notes)


def test_rows_of_every_cell(frontier_run):
    _, res = frontier_run
    t = res.results
    for ev in ("frontier:density", "frontier:density-coarse", "frontier:density:activity",
               "activity:tstr-frontier", "realism:discriminator", "realism:events",
               "membership:relative-distance", "gender:release-attribute"):
        got = set(t.filter(pl.col("evaluation") == ev)["mechanism"])
        assert got == {"none", "fake-noise", "baseline-centre-gaussian", "baseline-uniform"}, ev
    eps = t.filter(pl.col("metric") == "participant_epsilon")
    assert set(eps["mechanism"]) == {"fake-noise"} and (eps["value"] > 0.5).all()


def test_copy_beats_the_guess_and_the_guess_learns_nothing(frontier_run):
    _, res = frontier_run
    mean = (res.results.group_by("mechanism", "evaluation", "metric")
            .agg(pl.col("value").mean()))

    def get(mech, ev, metric):
        return mean.filter((pl.col("mechanism") == mech) & (pl.col("evaluation") == ev)
                           & (pl.col("metric") == metric))["value"][0]

    # raw data of other people predict the held-out activity; data-free gaze does not
    assert get("none", "activity:tstr-frontier", "accuracy") > 0.9
    assert get("baseline-uniform", "activity:tstr-frontier", "accuracy") < 0.75
    assert (get("none", "frontier:density", "density_error")
            < get("baseline-uniform", "frontier:density", "density_error"))


def test_frontier_verdict(frontier_run):
    _, res = frontier_run
    v = frontier(res.results, max_participant_epsilon=1e9)
    assert set(v["dataset"]) == {"d"}
    row = v.row(0, named=True)
    assert row["n_candidates"] == 1  # fake-noise only: the raw cell has no bound
    assert row["verdict"] in ("none", "fake-noise")
    none = frontier(res.results, max_participant_epsilon=0.1)
    assert none.row(0, named=True)["n_candidates"] == 0
    assert none.row(0, named=True)["verdict"] == "none"


def test_first_seconds_cuts_every_recording():
    from gazeprivacy.experiments.frontier import first_seconds

    ds = activity_dataset(n_participants=2, duration_s=10.0, seed=0)
    cut = first_seconds(ds, 4.0)
    assert [r.recording for r in cut] == [r.recording for r in ds]
    assert {r.n_samples for r in cut} == {120}  # 4 s at 30 Hz
    assert first_seconds(ds, None) is ds
    with pytest.raises(ConfigError, match="frontier.max_duration_s"):
        parse_config({**_BASE, "frontier": {"max_duration_s": 0}})


def test_tstr_balanced_accuracy_scores_a_constant_answer_at_one_over_classes():
    import numpy as np

    from gazeprivacy.data.recording import Dataset
    from gazeprivacy.experiments.frontier import _tstr
    from gazeprivacy.metrics.realism import window_feature_table

    ds = activity_dataset(n_participants=6, duration_s=6.0, seed=1)
    values = sorted({r.labels["activity"] for r in ds.recordings})
    assert len(values) == 2
    first, other = values
    # held out: every participant's `first` recordings, `other` of two participants only
    keep = sorted(ds.participants)[:2]
    held = Dataset(tuple(r for r in ds.recordings
                         if r.labels["activity"] == first or r.participant in keep))
    w = window_feature_table(held, window_s=1.0)
    # a release labelled `first` but for one recording: the forest answers `first` mostly
    rel = [replace(r, labels={**r.labels, "activity": first}) for r in ds.recordings]
    rel[0] = replace(rel[0], labels={**rel[0].labels, "activity": other})
    w_rel = window_feature_table(Dataset(tuple(rel)), window_s=1.0)
    out = _tstr(w, w_rel, held, Dataset(tuple(rel)), "activity", 20,
                np.random.default_rng(0))
    assert out["uniform_chance"] == 0.5 and out["chance"] == pytest.approx(0.75)
    assert out["balanced_accuracy"] < 0.6  # near 1 / classes
    # the majority share counts in plain accuracy (fixed seed: 0.625 against 0.417)
    assert out["accuracy"] > out["balanced_accuracy"] + 0.15
    assert 0 < out["balanced_accuracy_se"] < 0.2
    copy = _tstr(w, w, held, held, "activity", 20, np.random.default_rng(0))
    assert copy["balanced_accuracy"] > 0.9


def test_membership_fold_keys():
    fc = parse_config({**_BASE, "frontier": {"membership_folds": 3,
                                             "membership_probes": "recordings"}}).frontier
    assert fc.membership_folds == 3 and fc.membership_probes == "recordings"
    assert FrontierConfig().membership_folds is None  # absent: no pooled measurement
    with pytest.raises(ConfigError, match="frontier.membership_folds must be an integer >= 2"):
        parse_config({**_BASE, "frontier": {"membership_folds": 1}})
    with pytest.raises(ConfigError, match="frontier.membership_probes must be"):
        parse_config({**_BASE, "frontier": {"membership_probes": "windows"}})


def test_membership_folds_regenerate_the_release_and_pool_over_seeds(tmp_path):
    import json

    from gazeprivacy.report.attribute import read_attribute_guesses
    from gazeprivacy.report.membership import read_membership_scores

    ds = activity_dataset(n_participants=9, duration_s=12.0, seed=3)
    cfg = parse_config({
        **_BASE, "seeds": [0, 1],
        "mechanisms": [{"name": "fake-noise", "grid": {"epsilon": [0.5]}}],
        "baselines": ["baseline-uniform"],
        "attacks": [{"kind": "membership"}, {"kind": "attribute", "attribute": "gender"}],
        "frontier": {"n_trees": 10, "membership_folds": 3}})
    _SEEN.clear()
    run_experiment(cfg, tmp_path, registry=_spy_registry(), datasets={"d": ds}, workers=1)
    # per seed: the cell's own split, then one release per fold (each fold's members only),
    # shared by the membership and the attribute attacks (not generated twice)
    assert [len(s) for s in _SEEN] == [6, 6, 6, 6] * 2
    guesses = read_attribute_guesses(tmp_path)
    assert set(guesses["mechanism"]) == {"none", "fake-noise", "baseline-uniform"}
    per = guesses.filter((pl.col("mechanism") == "none") & (pl.col("seed") == 0))
    assert per.height == 3 * 9 and per.filter(pl.col("member")).height == 2 * 9
    attr = {r["mechanism"]: r for r in json.loads((tmp_path / "attribute.json").read_text())}
    assert attr["none"]["n_games"] == 6 and attr["none"]["attribute"] == "gender"
    # gender here follows the participant's parity, not the gaze, and 9 people give an SE
    # near 0.15: measured, the copy +0.083 [-0.222, +0.361] (not refuted), fake-noise exactly
    # at chance -- so nothing is detected and, the copy not caught, nothing is checked either
    assert attr["none"]["verdict"] == ATTR_UNCHECKED and attr["none"]["excess_low"] <= 0
    assert attr["fake-noise"]["copy_caught"] is False
    assert attr["fake-noise"]["verdict"] == ATTR_UNCHECKED
    scores = read_membership_scores(tmp_path)
    assert set(scores["mechanism"]) == {"none", "fake-noise", "baseline-uniform"}
    per = scores.filter((pl.col("mechanism") == "none") & (pl.col("seed") == 0))
    assert per.height == 3 * 9 and per.filter(~pl.col("member"))["participant"].n_unique() == 9
    pooled = {r["mechanism"]: r for r in json.loads((tmp_path / "membership.json").read_text())}
    assert pooled["none"]["n_games"] == 6 and pooled["none"]["n_participants"] == 9
    # 9 participants: the copy's AUC interval [0.42, 0.63] and its advantage's [-0.14, 0.47]
    # straddle both targets, so neither is decided, and the copy is not caught (measured)
    none = pooled["none"]
    assert (none["auc_verdict"], none["advantage_verdict"], none["verdict"]) == (
        "not certified", "not certified", "not certified")
    assert none["copy_caught"] is False and none["beats_chance"] is False
    assert pooled["fake-noise"]["copy_caught"] == pooled["none"]["beats_chance"]


def test_a_pilot_tracker_leaves_the_input_and_is_declared(tmp_path):
    """``tracker = "pilot"``: participant-synth's input is the training part without its first
    participant by id, whose tracker the record declares (with the pooled membership folds
    beside, which run the same input rule)."""
    import json

    ds = activity_dataset(n_participants=8, duration_s=6.0, seed=5)
    fixed = {"delta": 1e-6, "output_length_s": 2.0, "public_labels": ["activity"],
             "tracker": "pilot"}
    cfg = parse_config({
        **_BASE, "mechanisms": [{"name": "participant-synth",
                                 "grid": {"epsilon_per_participant": [3.0]}, "fixed": fixed}],
        "baselines": [], "attacks": [{"kind": "membership"}],
        "frontier": {"labels": ["activity"], "n_trees": 10, "holdout_fraction": 0.25,
                     "membership_folds": 2}})
    res = run_experiment(cfg, tmp_path, datasets={"d": ds}, workers=1)
    metas = [json.loads(p.read_text()) for p in (tmp_path / "cells").glob("*.json")]
    (meta,) = [m for m in metas if m["cell"]["mechanism"] == "participant-synth"]
    params = meta["guarantee"]["parameters"]
    assert params["n_participants_input"] == 5  # 8 - 2 held out - the pilot
    assert params["declared_tracker"]["source"].startswith("evaluation pilot")
    assert params["split"]["tracker_step"] == 0.0
    assert not meta.get("fold_refusals")
    assert res.results.filter(pl.col("mechanism") == "participant-synth").height > 0


def test_pilots_leave_the_input_and_are_declared_as_a_population(tmp_path):
    """``tracker = "pilots:2"``: the first two training participants by id leave the input,
    and the record declares both trackers; a K that leaves nobody, or no whole K, is refused."""
    import json

    from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
    from gazeprivacy.experiments.engine.cells import pilot_count
    from gazeprivacy.experiments.frontier import pilot_tracker

    ds = activity_dataset(n_participants=8, duration_s=6.0, seed=5)
    fixed = {"delta": 1e-6, "output_length_s": 2.0, "public_labels": ["activity"],
             "tracker": "pilots:2"}
    cfg = parse_config({
        **_BASE, "mechanisms": [{"name": "participant-synth",
                                 "grid": {"epsilon_per_participant": [3.0]}, "fixed": fixed}],
        "baselines": [], "frontier": {"labels": ["activity"], "n_trees": 10,
                                      "holdout_fraction": 0.25}})
    run_experiment(cfg, tmp_path, datasets={"d": ds}, workers=1)
    metas = [json.loads(p.read_text()) for p in (tmp_path / "cells").glob("*.json")]
    (meta,) = [m for m in metas if m["cell"]["mechanism"] == "participant-synth"]
    params = meta["guarantee"]["parameters"]
    assert params["n_participants_input"] == 4  # 8 - 2 held out - the two pilots
    assert [d["source"][:22] for d in params["declared_tracker"]] == [
        "evaluation pilot 1 of ", "evaluation pilot 2 of "]
    with pytest.raises(InvalidDataError, match="would leave no participant"):
        pilot_tracker(ds.select(lambda r: r.participant in sorted(ds.participants)[:2]), 2)
    for bad in ("pilots:0", "pilots:two", "pilots:-1"):
        with pytest.raises(InvalidParameterError, match="needs a whole K >= 1"):
            pilot_count(bad)
