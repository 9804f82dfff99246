# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Demographic linkage attack (seed 001, section 3 and Fig. 1).

An attacker holds a target's quasi-identifiers (e.g. gender, age range) and a gallery of labelled
gaze recordings. The released quasi-identifiers are made k-anonymous by generalisation (full-domain
suppression of whole attributes, in the order given, until every equivalence class has at least
``k`` participants), so the attacker can narrow the candidates to the target's class — never
fewer than ``k`` people, hence the bound ``1/|class| <= 1/k`` for a guess. The gaze biometric
then re-identifies *within* the class: a random forest on window summary features trained on the
gallery, its scores averaged over the probe's windows and restricted to the candidates.

Reported: success with quasi-identifiers only (the mean of ``1/|class|``), with gaze only (argmax
over everybody), and with both, for raw and for protected probes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from sklearn.ensemble import RandomForestClassifier

from gazeprivacy._validation import check_int
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.features.summary import window_summary_features
from gazeprivacy.rng import seed_for_sklearn

__all__ = ["LinkageResult", "generalise_k_anonymous", "linkage_attack"]

SUPPRESSED = "*"


def generalise_k_anonymous(quasi: Mapping[str, Mapping[str, str]], attributes: Sequence[str], *,
                           k: int) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    """k-anonymous quasi-identifiers by suppressing attributes in the order given.

    Returns ``(released QI tuple per participant, suppressed attributes)``. Raises when even full
    suppression leaves fewer than ``k`` participants.

    >>> qi = {"a": {"g": "f"}, "b": {"g": "f"}, "c": {"g": "m"}}
    >>> generalise_k_anonymous(qi, ["g"], k=2)[1]
    ('g',)
    """
    check_int(k=k, minimum=1)
    if len(quasi) < k:
        raise InvalidDataError(f"k-anonymity needs at least k={k} participants, got {len(quasi)}")
    for p, values in quasi.items():
        missing = [a for a in attributes if a not in values]
        if missing:
            raise InvalidDataError(f"participant {p!r} lacks quasi-identifier(s) {missing}")
    for n_suppressed in range(len(attributes) + 1):
        gone = tuple(attributes[:n_suppressed])
        released = {p: tuple(SUPPRESSED if a in gone else str(v[a]) for a in attributes)
                    for p, v in quasi.items()}
        sizes: dict[tuple[str, ...], int] = {}
        for key in released.values():
            sizes[key] = sizes.get(key, 0) + 1
        if min(sizes.values()) >= k:
            return released, gone
    raise AssertionError("unreachable: full suppression yields one class of all participants")


@dataclass(frozen=True)
class LinkageResult:
    """Success rates of the three attackers over the probe recordings."""

    quasi_only: float  # expected success of a uniform guess within the class: mean 1/|class|
    gaze_only: float
    quasi_and_gaze: float
    k: int
    mean_class_size: float
    suppressed: tuple[str, ...]
    n_probes: int


def linkage_attack(gallery: Dataset, probes: Dataset,
                   quasi: Mapping[str, Mapping[str, str]], attributes: Sequence[str], *, k: int,
                   rng: np.random.Generator, window_s: float = 10.0) -> LinkageResult:
    """Run the linkage attack: the gallery trains the biometric, each probe is re-identified.

    ``gallery`` and ``probes`` share participants (e.g. different documents of one study);
    every probe participant must be in the gallery and in ``quasi``.
    """
    released, gone = generalise_k_anonymous(quasi, attributes, k=k)
    xg, yg, _ = window_summary_features(gallery, window_s=window_s)
    xp, yp, rp = window_summary_features(probes, window_s=window_s)
    if xg.shape[0] == 0 or xp.shape[0] == 0:
        raise InvalidDataError(f"linkage attack: no full {window_s} s windows in gallery or probes")
    unknown = sorted(set(yp) - set(yg))
    if unknown:
        raise InvalidDataError(f"linkage attack: probe participants {unknown[:5]} are not in the "
                               "gallery")
    clf = RandomForestClassifier(n_estimators=200, random_state=seed_for_sklearn(rng))
    clf.fit(xg, yg.astype(str))
    classes = clf.classes_
    proba = clf.predict_proba(xp)
    q_only, g_only, both, sizes = [], [], [], []
    for rid in dict.fromkeys(rp):
        rows = rp == rid
        truth = str(yp[rows][0])
        score = proba[rows].mean(axis=0)
        key = released[truth]
        candidates = np.array([released.get(c) == key for c in classes])
        sizes.append(int(sum(1 for v in released.values() if v == key)))
        q_only.append(1.0 / sizes[-1])
        g_only.append(classes[int(np.argmax(score))] == truth)
        both.append(classes[int(np.argmax(np.where(candidates, score, -1.0)))] == truth)
    return LinkageResult(quasi_only=float(np.mean(q_only)), gaze_only=float(np.mean(g_only)),
                         quasi_and_gaze=float(np.mean(both)), k=k,
                         mean_class_size=float(np.mean(sizes)), suppressed=gone,
                         n_probes=len(q_only))
