# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Demographic linkage: k-anonymous generalisation and the attack's three success rates."""

from __future__ import annotations

import numpy as np
import pytest

from gazeprivacy.attacks.linkage import generalise_k_anonymous, linkage_attack
from gazeprivacy.data import Dataset, Recording
from gazeprivacy.exceptions import InvalidDataError


def test_generalisation_suppresses_until_classes_reach_k():
    qi = {"a": {"g": "f", "age": "20-29"}, "b": {"g": "f", "age": "30-39"},
          "c": {"g": "m", "age": "20-29"}, "d": {"g": "m", "age": "20-29"}}
    released, gone = generalise_k_anonymous(qi, ["age", "g"], k=2)
    assert gone == ("age",)
    assert released["a"] == ("*", "f") and released["c"] == ("*", "m")
    released, gone = generalise_k_anonymous(qi, ["age", "g"], k=3)
    assert gone == ("age", "g") and set(released.values()) == {("*", "*")}


def test_generalisation_errors_are_named():
    with pytest.raises(InvalidDataError, match="needs at least k=3 participants"):
        generalise_k_anonymous({"a": {"g": "f"}}, ["g"], k=3)
    with pytest.raises(InvalidDataError, match="lacks quasi-identifier"):
        generalise_k_anonymous({"a": {}, "b": {"g": "m"}}, ["g"], k=1)


def _people(rng, n, session):
    recs = []
    t = np.arange(0, 60, 0.02)
    for p in range(n):
        amp = 1 + p  # a strong, stable per-person trait: saccade size
        steps = np.repeat(rng.normal(0, amp, (t.size // 15 + 1, 2)), 15, axis=0)[:t.size]
        xy = np.cumsum(steps * 0.05, axis=0) % 20
        recs.append(Recording.from_arrays(
            recording=f"p{p}-{session}", participant=f"p{p}", t=t,
            x=xy[:, 0] + rng.normal(0, 0.02, t.size), y=xy[:, 1] + rng.normal(0, 0.02, t.size)))
    return Dataset(tuple(recs))


def test_gaze_beats_the_quasi_identifier_bound_and_qi_helps():
    rng = np.random.default_rng(0)
    gallery, probes = _people(rng, 8, "a"), _people(rng, 8, "b")
    quasi = {f"p{p}": {"gender": "f" if p % 2 else "m"} for p in range(8)}
    res = linkage_attack(gallery, probes, quasi, ["gender"], k=4, rng=np.random.default_rng(1))
    assert res.mean_class_size == 4 and res.quasi_only == pytest.approx(0.25)
    assert res.quasi_and_gaze >= res.gaze_only
    assert res.quasi_and_gaze > 2 * res.quasi_only
