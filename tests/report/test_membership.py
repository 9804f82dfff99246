# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The pooled membership verdict: pooled AUC / advantage, bootstrap over participants, the
certificate (synthetic score tables; fixed seeds, stated tolerances)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from gazeprivacy.report.membership import NO_COPY, UNCHECKED, pooled_membership
from script_helpers import load_script


def _games(n_people: int, *, seeds: int = 5, folds: int = 3, leak: float = 0.0,
           person_sd: float = 1.0, repeat: int = 1, seed: int = 0) -> pl.DataFrame:
    """Scores of ``seeds`` x ``folds`` games: each person out in one fold per seed; a score is
    the person's own typicality (``person_sd``) + noise + ``leak`` when a member."""
    rng = np.random.default_rng(seed)
    typical = rng.normal(0, person_sd, n_people)
    rows = []
    for s in range(seeds):
        fold_of = rng.permutation(n_people) % folds
        for f in range(folds):
            noise = rng.normal(0, 1, n_people)
            for _ in range(repeat):  # the same game written again: no new information
                for i in range(n_people):
                    member = bool(fold_of[i] != f)
                    rows.append({"dataset": "d", "mechanism": "m", "parameters": "{}",
                                 "seed": s, "fold": f + folds * _, "participant": f"p{i}",
                                 "member": member,
                                 "score": typical[i] + noise[i] + leak * member})
    return pl.DataFrame(rows)


def _pool(table, **kw):
    return pooled_membership(table, rng=np.random.default_rng(1), n_bootstrap=400,
                             **kw).row(0, named=True)


def test_a_null_release_with_many_people_is_certified():
    r = _pool(_games(300))
    assert r["auc"] == pytest.approx(0.5, abs=0.03) and r["auc_low"] < 0.5 < r["auc_high"]
    assert r["auc_high"] < 0.55 and r["advantage_high"] < 0.1
    assert r["auc_verdict"] == r["advantage_verdict"] == "certified" and not r["beats_chance"]
    assert r["verdict"] == NO_COPY  # both targets met; no raw copy in the run to check them
    assert r["n_participants"] == 300 and r["n_seeds"] == 5 and r["n_games"] == 15


def test_a_leaking_release_is_refuted_and_beats_chance():
    r = _pool(_games(30, leak=2.0))
    assert r["auc"] > 0.8 and r["auc_low"] > 0.6 and r["advantage_low"] > 0.1
    assert r["verdict"] == "refuted" and r["beats_chance"]


def test_few_people_cannot_certify():
    r = _pool(_games(10))
    assert r["verdict"] == "not certified"
    assert r["auc_high"] - r["auc_low"] > 0.05


def test_repeated_games_buy_no_certainty():
    # every game written 4 times: a bootstrap over scores would narrow by 2, over people not
    once, four = _pool(_games(20, leak=0.5)), _pool(_games(20, leak=0.5, repeat=4))
    assert four["auc"] == pytest.approx(once["auc"])
    assert four["n_scores"] == 4 * once["n_scores"]
    width = once["auc_high"] - once["auc_low"]
    assert four["auc_high"] - four["auc_low"] == pytest.approx(width, rel=0.25)


def test_person_typicality_is_not_membership():
    # scores dominated by who the person is: every person is member and non-member in the same
    # shares, so the pooled AUC stays at chance and its interval stays narrow
    r = _pool(_games(30, person_sd=10.0))
    assert abs(r["auc"] - 0.5) < 0.03 and r["auc_high"] < 0.56


def test_one_seed_gives_no_advantage_verdict():
    r = _pool(_games(300, seeds=1))
    assert np.isnan(r["advantage"]) and r["advantage_verdict"] == "not certified"
    assert r["auc_verdict"] == "certified" and r["verdict"] == "not certified"


def test_no_certificate_where_the_attacker_misses_the_raw_copy():
    null = _games(300)
    missed = _games(300, seed=2).with_columns(pl.lit("none").alias("mechanism"))
    caught = _games(300, leak=2.0, seed=2).with_columns(pl.lit("none").alias("mechanism"))
    rng = np.random.default_rng(1)
    rows = {r["mechanism"]: r for r in pooled_membership(
        pl.concat([null, missed]), rng=rng, n_bootstrap=300).iter_rows(named=True)}
    assert rows["none"]["copy_caught"] is False and rows["m"]["copy_caught"] is False
    assert rows["m"]["auc_verdict"] == "certified" and rows["m"]["verdict"] == UNCHECKED
    rows = {r["mechanism"]: r for r in pooled_membership(
        pl.concat([null, caught]), rng=rng, n_bootstrap=300).iter_rows(named=True)}
    assert rows["m"]["copy_caught"] is True and rows["m"]["verdict"] == "certified"
    assert rows["none"]["verdict"] == "refuted"


def test_no_plain_certificate_without_a_raw_copy_and_copy_rows_do_not_duplicate():
    null = _games(300)
    rng = np.random.default_rng(1)
    alone = pooled_membership(null, rng=rng, n_bootstrap=300).row(0, named=True)
    assert alone["auc_verdict"] == "certified" and alone["copy_caught"] is None
    assert alone["verdict"] == NO_COPY
    # two copy rows (say two parameter sets), one caught: the attacker is checked, once
    missed = _games(300, seed=2).with_columns(pl.lit("none").alias("mechanism"))
    caught = _games(300, leak=2.0, seed=3).with_columns(pl.lit("none").alias("mechanism"),
                                                        pl.lit('{"x": 1}').alias("parameters"))
    out = pooled_membership(pl.concat([null, missed, caught]), rng=rng, n_bootstrap=300)
    assert out.height == 3
    row = out.filter(pl.col("mechanism") == "m").row(0, named=True)
    assert row["copy_caught"] is True and row["verdict"] == "certified"


def test_membership_power_script_null_needs_many_people():
    """scripts/membership_power.py (the limits page's table): a release that carries nothing
    certifies AUC <= 0.6 at 60 people but not TPR - FPR <= 0.1 at 8 (its interval is too wide),
    and a leak of 1.5 sd is refuted at 17 (fixed seeds; one run each)."""
    mod = load_script("membership_power.py")

    def run(n, shift, seed):
        rng = np.random.default_rng(seed)
        scores = mod.null_scores(n, seeds=5, folds=3, shift=shift, typicality=0.5, rng=rng)
        assert scores.height == 5 * 3 * n
        assert scores.group_by("seed", "participant").agg(
            (~pl.col("member")).sum())["member"].to_list() == [1] * (5 * n)
        return pooled_membership(scores, rng=rng, n_bootstrap=400).row(0, named=True)

    wide = run(8, 0.0, 0)
    assert wide["advantage_high"] > 0.1 and wide["advantage_verdict"] != "certified"
    many = run(60, 0.0, 0)
    assert many["auc_high"] <= 0.6 and many["auc_verdict"] == "certified"
    leak = run(17, 1.5, 0)
    assert leak["auc_low"] > 0.6 and leak["verdict"] == "refuted"


def test_a_release_s_interval_does_not_depend_on_the_other_releases_in_the_table():
    # the runner pools every release of a run at once: a release listed before this one (here
    # another mechanism, sorted first) must not shift this release's bootstrap resamples
    table = _games(30)
    before = _games(20, seed=4).with_columns(pl.lit("a-first").alias("mechanism"))
    alone = pooled_membership(table, rng=np.random.default_rng(1), n_bootstrap=200)
    both = pooled_membership(pl.concat([before, table]), rng=np.random.default_rng(1),
                             n_bootstrap=200).filter(pl.col("mechanism") == "m")
    assert both.drop("copy_caught", "verdict").equals(alone.drop("copy_caught", "verdict"))
