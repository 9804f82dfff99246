# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Attribute inference from a release on a label the release did not declare public.

The attack of Stadler, Oprisanu & Troncoso (USENIX Security 2022, section 4.3) transposed to
gaze: the attacker trains a classifier on the *release* (records -> their value of a private
attribute, e.g. gender) and applies it to a target's own recordings (its probes: recordings
that were not in the mechanism's input), answering the majority vote over them. It can train
only on what the release carries: a release that writes the attribute on its records (a copy of
the input, or a mechanism that keeps undeclared labels) teaches it; a release that writes only
declared labels gives it nothing to train on, and its best answer is the most frequent value
(chance). Features are the recording profiles of :mod:`gazeprivacy.attacks.membership`.

Reported: ``accuracy`` over the members (targets whose other recordings were in the input),
``nonmember_accuracy`` over the non-members (what the release says about people in general,
not a leak about its members), ``chance`` (the majority share among the members),
``accuracy_se`` = sqrt(chance (1 - chance) / n) (the binomial standard error of a chance-level
attacker, which is also the standard error of ``accuracy - chance``), ``excess_z`` = (accuracy -
chance) / accuracy_se (the excess in standard errors, a z-score: the target "at most 2 SE above
chance" reads ``excess_z <= 2``) and ``label_in_release`` (1 when the release carried the
attribute). A second chance level, as in the pooled measurement
(:mod:`gazeprivacy.report.attribute`): ``independent``, the accuracy of answers drawn
independently of the person with the attacker's own answer shares over the members
(``sum_c P(answer c) P(value c)``). An attacker that learns nothing and answers in proportion
to its training labels scores about that, below the majority share, so answers that follow the
person can read under ``chance`` and still be above ``independent``; ``info_excess_z`` =
(accuracy - independent) / sqrt(independent (1 - independent) / n), the excess in binomial
standard errors of an attacker at that chance.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from sklearn.ensemble import RandomForestClassifier

from gazeprivacy.attacks.membership import profile_geometry, recording_profiles, standardise
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.rng import seed_for_sklearn

__all__ = ["AttributeGuesses", "ReleaseAttributeResult", "independent_chance",
           "release_attribute_attack", "release_attribute_guesses"]


@dataclass(frozen=True)
class ReleaseAttributeResult:
    """Accuracy of the release-trained attribute attacker on members and non-members."""

    attribute: str
    accuracy: float
    nonmember_accuracy: float
    chance: float
    n_members: int
    label_in_release: bool
    #: accuracy of answers independent of the person with the attacker's own answer shares
    independent: float = float("nan")

    @property
    def accuracy_se(self) -> float:
        c = self.chance
        return float(np.sqrt(c * (1 - c) / self.n_members)) if self.n_members else float("nan")

    @property
    def info_excess_z(self) -> float:
        """(accuracy - independent) in binomial standard errors at ``independent``."""
        c, n = self.independent, self.n_members
        se = math.sqrt(c * (1 - c) / n) if n and 0 < c < 1 else 0.0
        if se > 0:
            return (self.accuracy - c) / se
        return 0.0 if self.accuracy == c else float("nan")

    def metrics(self) -> dict[str, float]:
        se = self.accuracy_se
        return {"accuracy": self.accuracy, "accuracy_se": se, "chance": self.chance,
                "nonmember_accuracy": self.nonmember_accuracy,
                "excess_z": (self.accuracy - self.chance) / se if se > 0 else float("nan"),
                "independent": self.independent, "info_excess_z": self.info_excess_z,
                "n_members": float(self.n_members),
                "label_in_release": float(self.label_in_release)}


def _vote(pred: np.ndarray, who: list[str], rng: np.random.Generator) -> dict[str, str]:
    out: dict[str, str] = {}
    for p in sorted(set(who)):
        counts = Counter(str(v) for v, o in zip(pred, who, strict=True) if o == p)
        top = max(counts.values())
        best = sorted(k for k, v in counts.items() if v == top)
        out[p] = best[0] if len(best) == 1 else str(rng.choice(best))
    return out


@dataclass(frozen=True)
class AttributeGuesses:
    """The attacker's answer per target: ``guess[participant]`` for every member and
    non-member, ``chance`` the majority share among the members, ``carried`` whether the
    release carried the attribute (it trained a forest)."""

    members: tuple[str, ...]
    nonmembers: tuple[str, ...]
    guess: Mapping[str, str]
    chance: float
    carried: bool


def release_attribute_guesses(release: Dataset, member_probes: Dataset,
                              nonmember_probes: Dataset, attribute_of: Mapping[str, str], *,
                              attribute: str, rng: np.random.Generator, n_trees: int = 100,
                              window_s: float = 1.0) -> AttributeGuesses:
    """Every target's answer (the attack of :func:`release_attribute_attack`, before scoring;
    the pooled measurement of :mod:`gazeprivacy.experiments.frontier_membership` scores the
    answers of many games together). Same parameters and errors."""
    members = sorted(set(member_probes.participants))
    others = sorted(set(nonmember_probes.participants))
    missing = [p for p in members + others if p not in attribute_of]
    if missing:
        raise InvalidDataError(f"attribute {attribute!r} unknown for participants {missing[:5]}")
    counts = Counter(attribute_of[p] for p in members)
    if len(counts) < 2:
        raise InvalidDataError(f"attribute {attribute!r} has {len(counts)} value(s) among the "
                               "members; nothing to infer")
    majority = sorted(counts, key=lambda v: (-counts[v], v))[0]
    chance = counts[majority] / len(members)
    labelled = [r for r in release.recordings if attribute in r.labels]
    if len(labelled) < len(release) or len({r.labels[attribute] for r in labelled}) < 2:
        # the release does not carry the attribute: the attacker can only answer one value
        return AttributeGuesses(tuple(members), tuple(others),
                                {p: majority for p in members + others}, chance, False)
    geo = profile_geometry(member_probes, nonmember_probes, release)
    x_rel, _, _ = recording_profiles(release, geometry=geo, window_s=window_s)
    x_m, _, who_m = recording_profiles(member_probes, geometry=geo, window_s=window_s)
    x_n, _, who_n = recording_profiles(nonmember_probes, geometry=geo, window_s=window_s)
    x_rel, x_m, x_n = standardise(x_rel, x_m, x_n)
    y_rel = np.array([r.labels[attribute] for r in release.recordings])
    clf = RandomForestClassifier(n_estimators=n_trees, min_samples_leaf=2, n_jobs=1,
                                 random_state=seed_for_sklearn(rng)).fit(x_rel, y_rel)
    guess = _vote(clf.predict(x_m), who_m, rng)
    guess.update(_vote(clf.predict(x_n), who_n, rng))
    return AttributeGuesses(tuple(members), tuple(others), guess, chance, True)


def release_attribute_attack(release: Dataset, member_probes: Dataset,
                             nonmember_probes: Dataset, attribute_of: Mapping[str, str], *,
                             attribute: str, rng: np.random.Generator, n_trees: int = 100,
                             window_s: float = 1.0) -> ReleaseAttributeResult:
    """Train on the release's ``attribute`` labels, predict the targets' (see the module
    docstring).

    Parameters
    ----------
    release : Dataset
        The release; its recordings' ``labels[attribute]`` (when present) are the training
        labels.
    member_probes, nonmember_probes : Dataset
        Recordings of the targets that were not in the input.
    attribute_of : mapping participant -> value
        The targets' true values (read only to score).
    attribute : str
    rng : numpy.random.Generator
        Forest seed and vote tie-breaks.

    Raises
    ------
    InvalidDataError
        A target has no value, or the members hold fewer than 2 values.
    """
    g = release_attribute_guesses(release, member_probes, nonmember_probes, attribute_of,
                                  attribute=attribute, rng=rng, n_trees=n_trees,
                                  window_s=window_s)
    acc_m = float(np.mean([g.guess[p] == attribute_of[p] for p in g.members]))
    acc_n = (float(np.mean([g.guess[p] == attribute_of[p] for p in g.nonmembers]))
             if g.nonmembers else float("nan"))
    return ReleaseAttributeResult(attribute=attribute, accuracy=acc_m, nonmember_accuracy=acc_n,
                                  chance=g.chance, n_members=len(g.members),
                                  label_in_release=g.carried,
                                  independent=independent_chance(
                                      [g.guess[p] for p in g.members],
                                      [attribute_of[p] for p in g.members]))


def independent_chance(answers: list[str], values: list[str]) -> float:
    """The accuracy of answers drawn independently of the person with these answers' shares:
    ``sum_c P(answer c) P(value c)`` over one game's members.

    >>> independent_chance(["a", "a", "b", "b"], ["a", "b", "b", "b"])
    0.5
    >>> independent_chance(["a"] * 4, ["a", "b", "b", "b"])  # a constant answer: its share
    0.25
    """
    if len(answers) != len(values) or not answers:
        raise InvalidDataError("independent_chance needs one answer per value, at least one")
    q, p = Counter(answers), Counter(values)
    return float(sum(q[c] * p[c] for c in q) / len(answers) ** 2)
