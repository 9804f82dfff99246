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
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.experiments.baselines import BASELINES
from gazeprivacy.report.attribute import UNCHECKED, pooled_attribute

GEO = Geometry(x_min_deg=0, x_max_deg=40, y_min_deg=0, y_max_deg=30)
SEEDS, FOLDS = 3, 3


def _people(n: int, seed: int = 0) -> Dataset:
    """Each participant looks around a centre of their own with their own spread and pace; the
    attribute ``group`` ("a" left half of the screen, "b" right half) follows the centre, and
    one person in three is "a" (chance 2/3, not 1/2)."""
    rng = np.random.default_rng(seed)
    out = []
    for p in range(n):
        group = "a" if p % 3 == 0 else "b"
        cx = rng.uniform(5, 18) if group == "a" else rng.uniform(22, 35)
        cy, spread, step = rng.uniform(5, 25), rng.uniform(0.3, 3.0), rng.uniform(0.02, 0.6)
        for r in range(2):
            z = np.zeros((240, 2))
            for i in range(1, 240):
                z[i] = (1 - step) * z[i - 1] + np.sqrt(1 - (1 - step) ** 2) * rng.normal(0, 1, 2)
            out.append(Recording.from_arrays(
                recording=f"p{p}-r{r}", participant=f"p{p}",
                x=np.clip(cx + spread * z[:, 0], 0, 40), y=np.clip(cy + spread * z[:, 1], 0, 30),
                sampling_rate_hz=60, geometry=GEO, labels={"group": group}))
    return Dataset(tuple(out), name="people")


@pytest.fixture(scope="module")
def people():
    return _people(18)


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
    assert r["excess_se"] > 2.5 and r["excess_low"] > 0 and r["verdict"] == "refuted"
    assert r["carried"] == 1.0 and r["copy_caught"]


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
    # above chance, as the target says, the excess within 0.15 of 0, the interval reaching 0
    assert r["verdict"] == "met" and r["excess"] <= 2 * r["excess_sd"]
    assert abs(r["excess"]) < 0.15 and r["excess_low"] <= 0.0
    assert r["copy_caught"]  # the copy on the same games is refuted: the pass means something
    if kind == "no attribute":
        assert r["excess"] == 0.0 and r["carried"] == 0.0


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
