# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Membership and release-attribute inference: a release that copies its input is caught, a
data-free one is not (fixed seeds, stated tolerances)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from gazeprivacy.attacks.membership import hanley_mcneil_se, membership_attack
from gazeprivacy.attacks.release_attribute import independent_chance, release_attribute_attack
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.experiments.baselines import BASELINES
from gazeprivacy.experiments.frontier import frontier_split

GEO = Geometry(x_min_deg=0, x_max_deg=40, y_min_deg=0, y_max_deg=30)


def _people(n: int = 40, recs: int = 4, seed: int = 0) -> Dataset:
    """Each participant looks around a centre of their own, with their own jitter and pace;
    the attribute ``group`` ("a" left half, "b" right half) follows the centre."""
    rng = np.random.default_rng(seed)
    out = []
    for p in range(n):
        group = "a" if p % 2 else "b"
        cx = rng.uniform(5, 18) if group == "a" else rng.uniform(22, 35)
        cy, spread, step = rng.uniform(5, 25), rng.uniform(0.3, 3.0), rng.uniform(0.02, 0.6)
        for r in range(recs):
            # a mean-reverting walk: every recording covers its person's own region and pace
            z = np.zeros((300, 2))
            for i in range(1, 300):
                z[i] = (1 - step) * z[i - 1] + np.sqrt(1 - (1 - step) ** 2) * rng.normal(0, 1, 2)
            x = np.clip(cx + spread * z[:, 0], 0, 40)
            y = np.clip(cy + spread * z[:, 1], 0, 30)
            out.append(Recording.from_arrays(
                recording=f"p{p}-r{r}", participant=f"p{p}", x=x, y=y, sampling_rate_hz=60,
                geometry=GEO, labels={"group": group}))
    return Dataset(tuple(out), name="people")


@pytest.fixture(scope="module")
def split():
    return frontier_split(_people(), rng=np.random.default_rng(1), holdout_fraction=0.5,
                          probe_fraction=0.25)


def test_split_holds_people_out_and_keeps_probes_back(split):
    fit_people = set(split.fit.participants)
    assert fit_people.isdisjoint(split.held.participants)
    assert set(split.member_probes.participants) == fit_people
    assert not {r.recording for r in split.fit} & {r.recording for r in split.member_probes}
    assert len(split.held.participants) == 20


def test_copy_is_caught(split):
    res = membership_attack(split.fit, split.member_probes, split.nonmember_probes)
    assert res.auc > 0.9 and res.advantage > 0.6, res  # a copy: near-certain membership
    assert res.n_members == res.n_nonmembers == 20


@pytest.mark.parametrize("views", [("profile",), ("signature",)])
def test_each_view_alone_catches_a_copy(split, views):
    # these people differ in where they look and in how they move: each view tells them apart
    res = membership_attack(split.fit, split.member_probes, split.nonmember_probes, views=views)
    assert res.auc > 0.85, res


def test_views_are_checked(split):
    with pytest.raises(InvalidDataError, match="membership views must be some of"):
        membership_attack(split.fit, split.member_probes, split.nonmember_probes,
                          views=("spatial",))


def test_data_free_release_is_near_chance(split):
    base = BASELINES["baseline-centre-gaussian"].release(split.fit, rng=np.random.default_rng(2))
    res = membership_attack(base, split.member_probes, split.nonmember_probes)
    # 20 vs 20 candidates: the null AUC's standard error is about 0.09; allow 2.2 SE
    assert abs(res.auc - 0.5) < 0.2, res
    assert res.metrics()["chance"] == 0.5


def test_hanley_mcneil_matches_the_null_variance():
    # under the null the AUC variance is (n1 + n0 + 1) / (12 n1 n0) (Mann-Whitney)
    assert hanley_mcneil_se(0.5, 20, 20) == pytest.approx(np.sqrt(41 / (12 * 400)), rel=0.05)


def test_membership_needs_both_sides(split):
    with pytest.raises(InvalidDataError, match="members and non-members"):
        membership_attack(split.fit, split.member_probes, Dataset(()))


def _groups(ds: Dataset) -> dict[str, str]:
    return {r.participant: r.labels["group"] for r in ds}


def test_attribute_from_a_copy_is_caught(split):
    truth = {**_groups(split.member_probes), **_groups(split.nonmember_probes)}
    res = release_attribute_attack(split.fit, split.member_probes, split.nonmember_probes, truth,
                                   attribute="group", rng=np.random.default_rng(3))
    assert res.label_in_release and res.accuracy >= 0.9, res
    m = res.metrics()
    assert "excess_se" not in m  # a z-score is not named as a standard error
    assert m["excess_z"] == pytest.approx((m["accuracy"] - m["chance"]) / m["accuracy_se"])
    assert m["excess_z"] > 2
    # the second chance level: answers independent of the person with the attacker's shares
    assert 0 < m["independent"] <= 1 and m["info_excess_z"] > 2


def test_attribute_from_a_data_free_release_is_chance(split):
    truth = {**_groups(split.member_probes), **_groups(split.nonmember_probes)}
    base = BASELINES["baseline-centre-gaussian"].release(split.fit, rng=np.random.default_rng(4))
    res = release_attribute_attack(base, split.member_probes, split.nonmember_probes, truth,
                                   attribute="group", rng=np.random.default_rng(5))
    # labels kept, gaze data-free: at most 2 binomial SE above chance (0.5, n = 20: SE 0.11)
    assert res.accuracy <= res.chance + 2 * res.accuracy_se, res
    assert res.info_excess_z <= 2, res  # and above answers independent of the person


def test_attribute_missing_from_the_release_gives_the_majority_guess(split):
    truth = {**_groups(split.member_probes), **_groups(split.nonmember_probes)}
    bare = Dataset(tuple(replace(r, labels={}) for r in split.fit))
    res = release_attribute_attack(bare, split.member_probes, split.nonmember_probes, truth,
                                   attribute="group", rng=np.random.default_rng(6))
    assert not res.label_in_release and res.accuracy == res.chance
    # a constant answer is independent of the person: both chance levels are its accuracy
    assert res.independent == res.chance and res.metrics()["info_excess_z"] == 0.0


def test_independent_chance_is_the_accuracy_of_answers_that_ignore_the_person():
    # answers drawn independently of the person with shares q score sum_c q_c p_c on average
    values = ["a"] * 14 + ["b"] * 6  # p = (0.7, 0.3); the majority share 0.7
    rng = np.random.default_rng(11)
    acc, ind = [], []
    for _ in range(4000):
        answers = list(rng.choice(["a", "b"], size=20, p=[0.5, 0.5]))
        acc.append(np.mean([a == v for a, v in zip(answers, values, strict=True)]))
        ind.append(independent_chance(answers, values))
    # E[accuracy] = 0.5 (under the majority share 0.7); the per-game chance matches it
    # to within 4 SE of the mean difference (its sd about 0.1 per game: SE 0.0016)
    assert np.mean(acc) == pytest.approx(0.5, abs=0.01)
    assert abs(np.mean(acc) - np.mean(ind)) < 4 * np.std(np.subtract(acc, ind)) / np.sqrt(4000)
    # answers that follow the person, read below the majority share, are above this chance
    follow = ["a"] * 9 + ["b"] * 5 + ["b"] * 4 + ["a"] * 2  # 13 of 20 right: 0.65 < 0.7
    right = np.mean([a == v for a, v in zip(follow, values, strict=True)])
    assert right < 0.7 and right > independent_chance(follow, values) + 0.1
    with pytest.raises(InvalidDataError, match="one answer per value"):
        independent_chance(["a"], ["a", "b"])


def test_segment_probes_are_the_end_of_every_recording():
    ds = _people(n=6, recs=2)
    s = frontier_split(ds, rng=np.random.default_rng(0), holdout_fraction=0.34,
                       probe_fraction=0.25, probes="segments")
    assert len(s.fit) == 8 and len(s.member_probes) == 8  # every recording of 4 members, cut
    assert {r.n_samples for r in s.member_probes} == {75}
    assert {r.n_samples for r in s.fit} == {225}
    res = membership_attack(s.fit, s.member_probes, s.nonmember_probes)
    assert res.n_members == 4 and res.n_nonmembers == 2
