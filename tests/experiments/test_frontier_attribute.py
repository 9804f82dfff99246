# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The attribute attack pooled over the membership folds: a release that copies the attribute
is refuted, one that carries nothing is not; every fold and seed is pooled and the attacker
scores the candidates' probes (fixed seeds, stated tolerances)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import polars as pl
import pytest

import gazeprivacy.experiments.frontier_membership as fm
from evaluate_helpers import wandering_people
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.experiments.baselines import BASELINES
from gazeprivacy.report.attribute import (
    NO_COPY,
    NOT_DETECTED,
    UNCHECKED,
    attribute_verdict,
    pooled_attribute,
)
from script_helpers import load_script

GEO = Geometry(x_min_deg=0, x_max_deg=40, y_min_deg=0, y_max_deg=30)
SEEDS, FOLDS = 3, 3


@pytest.fixture(scope="module")
def people():
    return wandering_people(18, groups=True)


def _guesses(people, release_of, mechanism="m"):
    truth = {r.participant: r.labels["group"] for r in people}
    tables = []
    for seed in range(SEEDS):
        rng = np.random.default_rng(seed)
        folds = fm.membership_folds(people, rng=rng, n_folds=FOLDS, probe_fraction=0.34,
                                    probes="segments")
        for k, f in enumerate(folds):
            tables.append(fm.fold_attribute_guesses(
                f, release_of(f.fit, rng), truth, attribute="group", fold=k,
                rng=np.random.default_rng(100 + 10 * seed + k), window_s=1.0
            ).with_columns(pl.lit(seed).alias("seed")))
    return pl.concat(tables).with_columns(pl.lit("d").alias("dataset"),
                                          pl.lit(mechanism).alias("mechanism"),
                                          pl.lit("{}").alias("parameters"))


def _pool(guesses):
    return pooled_attribute(guesses, rng=np.random.default_rng(0), n_bootstrap=400)


@pytest.fixture(scope="module")
def copied(people):
    return _guesses(people, lambda fit, rng: fit, mechanism="none")


def test_a_release_that_copies_the_attribute_is_refuted(copied):
    # measured (400 resamples of 18 people): accuracy 0.981 against chance 0.667, excess
    # +0.315, 2.81 bootstrap SE, interval [+0.102, +0.546]; a perfect attacker reaches
    # sqrt(n p / (1 - p)) = 3.0 SE here (p = 1/3 the minority share). Tolerance: accuracy above
    # 0.9, the excess more than 2.5 SE and its interval above 0
    r = _pool(copied).row(0, named=True)
    assert r["accuracy"] > 0.9 and r["chance"] == pytest.approx(2 / 3, abs=0.05)
    assert r["excess_z"] > 2.5 and r["excess_low"] > 0 and r["verdict"] == "refuted"
    assert r["excess_z"] == pytest.approx(r["excess"] / r["excess_se"])
    assert r["carried"] == 1.0 and r["copy_caught"]
    # over independent answers (measured: chance 0.565, excess +0.417, 5.8 SE, interval
    # [+0.190, +0.465]): the copy is refuted by both references
    assert r["info_z"] > 4.0 and r["info_low"] > 0
    assert r["info_excess"] == pytest.approx(r["accuracy"] - r["independent"])


@pytest.mark.parametrize("kind", ["data-free gaze", "no attribute"])
def test_a_release_that_carries_nothing_is_not_refuted(people, copied, kind):
    if kind == "data-free gaze":  # the labels kept, the gaze drawn without the data
        def release_of(fit, rng):
            return BASELINES["baseline-centre-gaussian"].release(fit, rng=rng)
    else:  # the attribute dropped: the attacker's best answer is the majority value
        def release_of(fit, rng):
            return Dataset(tuple(replace(r, labels={}) for r in fit))
    both = pl.concat([copied, _guesses(people, release_of)])
    r = _pool(both).filter(pl.col("mechanism") == "m").row(0, named=True)
    # measured: data-free gaze -0.083 (-1.1 SE, interval [-0.213, +0.074]), no attribute
    # exactly 0 (the majority answer is right on the majority share); tolerance: at most 2 SE
    # above chance, as the target says, the excess within 0.15 of 0, the interval reaching 0:
    # not detected (never "met": the run failed to refute), its upper end the bound
    assert r["verdict"] == NOT_DETECTED and r["excess"] <= 2 * r["excess_se"]
    assert abs(r["excess"]) < 0.15 and r["excess_low"] <= 0.0
    assert r["copy_caught"]  # the copy on the same games is refuted: the pass means something
    # over independent answers the forest on data-free gaze reads near 0 where it read below
    # the majority share (measured +0.020, 1.0 SE, against -0.083): within 0.06 of 0 and at
    # most 2 SE
    assert abs(r["info_excess"]) < 0.06 and r["info_excess"] <= 2 * r["info_se"]
    if kind == "no attribute":
        assert r["excess"] == 0.0 and r["carried"] == 0.0 and r["info_excess"] == 0.0


def test_an_attacker_below_the_majority_share_whose_answers_follow_the_person_is_refuted(
        copied):
    """A third of the people answered right, the others always the minority value: accuracy
    0.611 under the majority share 0.667 (the old reference read -0.056, not detected), but
    the answers follow the person: over independent answers with the same shares (0.427) the
    excess is +0.184 at 3.0 SE, interval above 0 (measured, 400 resamples). Tolerance: refuted,
    the excess over independent answers above 2 SE and its interval above 0."""
    minority = copied.group_by("value").len().sort("len")["value"][0]
    known = sorted(set(copied["participant"]))[::3]
    weak = copied.with_columns(
        pl.when(pl.col("participant").is_in(known)).then(pl.col("value"))
        .otherwise(pl.lit(minority)).alias("guess"), pl.lit("m").alias("mechanism"))
    r = _pool(pl.concat([copied, weak])).filter(pl.col("mechanism") == "m").row(0, named=True)
    assert r["accuracy"] < r["chance"] and r["excess_low"] < 0
    assert r["info_z"] > 2.0 and r["info_low"] > 0 and r["verdict"] == "refuted"


def test_every_fold_and_seed_is_pooled(copied):
    # each participant is a member in FOLDS - 1 folds of every seed, a non-member in one
    members = copied.filter(pl.col("member"))
    assert (members.group_by("participant").len()["len"] == SEEDS * (FOLDS - 1)).all()
    assert (copied.filter(~pl.col("member")).group_by("participant").len()["len"]
            == SEEDS).all()
    # a copy whose answers are wrong in one fold only: the pooled accuracy must see it
    spoiled = copied.with_columns(
        pl.when(pl.col("fold") == 1).then(pl.lit("x")).otherwise(pl.col("guess")).alias("guess"))
    r = _pool(spoiled).row(0, named=True)
    expected = members.with_columns(pl.col("fold") != 1).select(
        (pl.col("fold") & (pl.col("value") == pl.col("guess"))).mean()).item()
    assert r["n_games"] == SEEDS * FOLDS and r["n_scores"] == members.height
    assert r["n_participants"] == 18 and r["accuracy"] == pytest.approx(expected)


def test_the_attacker_scores_the_probes_never_the_release_input(people, monkeypatch):
    seen = []

    def spy(release, member_probes, nonmember_probes, *args, **kw):
        seen.append(({r.recording for r in member_probes}, {r.recording for r in release}))
        return real(release, member_probes, nonmember_probes, *args, **kw)

    real = fm.release_attribute_guesses
    monkeypatch.setattr(fm, "release_attribute_guesses", spy)
    out = _guesses(people, lambda fit, rng: fit)
    assert out.height == SEEDS * FOLDS * 18 and len(seen) == SEEDS * FOLDS
    for targets, released in seen:
        assert targets and all(t.endswith(":probe") for t in targets)
        assert not targets & released
    # a probe inside the release's input is refused, not scored
    fold = fm.membership_folds(people, rng=np.random.default_rng(0), n_folds=FOLDS,
                               probe_fraction=0.34, probes="segments")[0]
    leaky = replace(fold, member_probes=fold.fit)
    with pytest.raises(InvalidDataError, match="a probe recording is in the release's input"):
        fm.fold_attribute_guesses(leaky, fold.fit, {p: "a" for p in people.participants},
                                  attribute="group", fold=0, rng=np.random.default_rng(0),
                                  window_s=1.0)


def test_a_release_that_meets_the_target_where_the_copy_is_not_caught_is_unchecked(copied):
    # the copy's answers replaced by the majority answer: the attacker no longer catches it
    blind = copied.with_columns(pl.lit("b").alias("guess"))
    other = blind.with_columns(pl.lit("m").alias("mechanism"))
    out = _pool(pl.concat([blind, other]))
    row = out.filter(pl.col("mechanism") == "m").row(0, named=True)
    assert not row["copy_caught"] and row["verdict"] == UNCHECKED


def test_the_verdict_refutes_above_2_se_or_an_interval_above_0_else_not_detected():
    # 2.5 SE above chance with an interval reaching 0: refuted by the target's own words
    assert attribute_verdict(0.25, 0.1, -0.01) == "refuted"
    # 1.5 SE but the interval above 0 (a skewed bootstrap): measurably above chance
    assert attribute_verdict(0.15, 0.1, 0.01) == "refuted"
    assert attribute_verdict(0.15, 0.1, -0.05) == NOT_DETECTED
    assert attribute_verdict(0.2, 0.1, -0.05) == NOT_DETECTED  # exactly 2 SE: within the target
    # no standard error (NaN: one participant): refuted by any excess above 0
    nan = float("nan")
    assert attribute_verdict(0.01, nan, nan) == "refuted"
    assert attribute_verdict(0.0, nan, nan) == NOT_DETECTED


def test_a_run_without_a_raw_copy_is_unchecked_and_several_copy_rows_do_not_duplicate(copied):
    blind = copied.with_columns(pl.lit("b").alias("guess"), pl.lit("m").alias("mechanism"))
    alone = _pool(blind).row(0, named=True)
    assert alone["copy_caught"] is None and alone["verdict"] == NO_COPY
    # two copy rows (two parameter sets of mechanism none): one caught, one not -- the release
    # keeps one row, checked by the copy that is caught
    blind_copy = copied.with_columns(pl.lit("b").alias("guess"),
                                     pl.lit('{"k": 1}').alias("parameters"))
    out = _pool(pl.concat([copied, blind_copy, blind]))
    assert out.height == 3 and out.filter(pl.col("mechanism") == "m").height == 1
    row = out.filter(pl.col("mechanism") == "m").row(0, named=True)
    assert row["copy_caught"] and row["verdict"] == NOT_DETECTED


def test_frontier_table_renders_the_verdicts_from_the_run_guesses(copied):
    mod = load_script("frontier_table.py", "frontier_table_attr")
    blind = copied.with_columns(pl.lit("b").alias("guess"), pl.lit("m").alias("mechanism"))
    results = pl.DataFrame({"dataset": ["d"], "mechanism": ["m"], "parameters": ["{}"],
                            "metric": ["participant_epsilon"], "value": [3.0]})
    lines = mod.attribute_table(pl.concat([copied, blind]), results, "d")
    rows = [line for line in lines if line.startswith("| raw") or line.startswith("| m ")]
    assert rows[0].startswith("| raw (copy of the input)") and rows[0].endswith("| refuted |")
    m = _pool(pl.concat([copied, blind])).filter(pl.col("mechanism") == "m").row(0, named=True)
    assert rows[1].endswith(f"| not detected (at most {m['excess_high']:+.3f} / "
                            f"{m['info_high']:+.3f}) |")
    assert f"| {m['independent']:.3f} | {m['info_excess']:+.3f} [" in rows[1]
    assert "| 3 |" in rows[1] and "not a proof of absence" in lines[0]


def test_a_release_s_interval_does_not_depend_on_the_other_releases_in_the_table(copied):
    # another release listed first must not shift this release's bootstrap resamples
    other = copied.with_columns(pl.lit("a-first").alias("mechanism"),
                                pl.lit("b").alias("guess"))
    alone = _pool(copied)
    both = pooled_attribute(pl.concat([other, copied]), rng=np.random.default_rng(0),
                            n_bootstrap=400).filter(pl.col("mechanism") == "none")
    assert both.drop("copy_caught", "verdict").equals(alone.drop("copy_caught", "verdict"))


def test_frontier_table_main_split_cell_shows_both_chance_levels():
    mod = load_script("frontier_table.py", "frontier_table_cell")

    def rows(metrics):
        return pl.DataFrame({"kind": ["privacy"] * len(metrics),
                             "evaluation": ["gender:release-attribute"] * len(metrics),
                             "metric": [m for m, _ in metrics],
                             "value": [v for _, v in metrics],
                             "beats_baselines": [None] * len(metrics)},
                            schema_overrides={"beats_baselines": pl.Boolean})

    both = rows([("accuracy", 0.55), ("chance", 0.58), ("independent", 0.51)])
    assert mod._cell(both, ":release-attribute", "accuracy") == "0.550 / 0.58 / 0.51"
    # a run from before the second chance level: the cell says it has none
    old = rows([("accuracy", 0.55), ("chance", 0.58)])
    assert mod._cell(old, ":release-attribute", "accuracy") == "0.550 / 0.58 / -"
