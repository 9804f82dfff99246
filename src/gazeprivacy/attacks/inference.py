# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Attribute inference without prior knowledge (Steil et al., ETRA 2019, sections 4.1 and 6.2).

The attacker wants a private attribute (e.g. gender) of a person it has never seen: it trains on
*other* participants' recordings with their attribute labels and predicts the target's attribute
from the target's recordings. Evaluation is leave-participants-out: in each fold the held-out
participants' recordings are the only test data, their labels are never given to the classifier
(they are read only to score the fold), the training participants are subsampled to an equal
number per attribute value, and a participant's prediction is the majority vote over
its recordings (ties broken at random). Features are per-recording aggregates of event features
(:func:`gazeprivacy.features.aggregate.recording_features`). The threat model says which side is
protected: seed 004's "trained on DP data" is ``ThreatModel.seed004()``, "trained on clean data"
is ``ThreatModel.seed004_clean()``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import polars as pl
from sklearn.metrics import f1_score

from gazeprivacy._validation import check_int
from gazeprivacy.attacks.classifiers import CLASSIFIERS, make_classifier
from gazeprivacy.attacks.threat import ThreatModel
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["InferenceResult", "infer_attribute"]


@dataclass(frozen=True)
class InferenceResult:
    """Per-participant attribute predictions and their accuracy against the chance levels.

    ``chance`` is the accuracy of always answering the most frequent value among participants;
    ``uniform_chance`` is ``1 / n_values``.
    """

    attribute: str
    classifier: str
    threat: str
    accuracy: float
    f1_macro: float
    chance: float
    uniform_chance: float
    predictions: Mapping[str, str] = field(repr=False, default_factory=dict)

    def metrics(self) -> dict[str, float]:
        return {"accuracy": self.accuracy, "f1_macro": self.f1_macro, "chance": self.chance}


def _vote(labels: list[str], rng: np.random.Generator) -> str:
    counts = Counter(labels)
    top = max(counts.values())
    best = sorted(k for k, v in counts.items() if v == top)
    return best[0] if len(best) == 1 else str(rng.choice(best))


def _balanced_training(participants: list[str], held: set[str], attribute_of: Mapping[str, str],
                       n_values: int, rng: np.random.Generator) -> list[str]:
    """The training participants of a fold, subsampled to an equal number per value.

    Seed 004: "an equal distribution of samples for each of the respective classes"; without
    it, holding out one participant of a balanced set tips a signal-free classifier towards the
    other class and the leave-one-out accuracy falls far below chance.
    """
    pool: dict[str, list[str]] = {}
    for p in participants:
        if p not in held:
            pool.setdefault(attribute_of[p], []).append(p)
    n_min = min(len(v) for v in pool.values()) if len(pool) == n_values else 0
    if n_min:
        return [str(p) for v in pool.values() for p in rng.permutation(v)[:n_min]]
    return [p for v in pool.values() for p in v]  # a value has no training participant left


def _fold_predictions(tr: pl.DataFrame, te: pl.DataFrame, feats: list[str],
                      held_out: list[str], attribute_of: Mapping[str, str], *,
                      classifier: str, rng: np.random.Generator) -> dict[str, str]:
    """Each held-out participant's predicted value: the majority vote over its recordings."""
    # the attacker's labels: the training participants' only
    y_tr = np.array([attribute_of[p] for p in tr["participant"].to_list()])
    if y_tr.size == 0:
        return {}
    if len(set(y_tr.tolist())) < 2:
        # one class left in training: the attacker can only answer that value
        return {p: str(y_tr[0]) for p in held_out}
    X_tr = tr.select(feats).cast(pl.Float64).fill_nan(None).to_numpy()
    X_te = te.select(feats).cast(pl.Float64).fill_nan(None).to_numpy()
    clf = make_classifier(classifier, rng=rng, n_train=X_tr.shape[0])
    clf.fit(np.where(np.isfinite(X_tr), X_tr, np.nan), y_tr)
    pred = clf.predict(np.where(np.isfinite(X_te), X_te, np.nan))
    owners = te["participant"].to_list()
    out: dict[str, str] = {}
    for p in held_out:
        mine = [str(v) for v, o in zip(pred, owners, strict=True) if o == p]
        if mine:
            out[p] = _vote(mine, rng)
    return out


def infer_attribute(
    raw_features: pl.DataFrame,
    protected_features: pl.DataFrame | None,
    attribute_of: Mapping[str, str],
    *,
    threat: ThreatModel,
    rng: np.random.Generator,
    attribute: str = "gender",
    classifier: str = "svm",
    participants_per_fold: int = 1,
) -> InferenceResult:
    """Leave-participants-out attribute inference.

    Parameters
    ----------
    raw_features, protected_features : polars.DataFrame
        Per-recording feature tables (``recording``, ``participant`` and numeric columns, e.g. from
        :func:`~gazeprivacy.features.aggregate.recording_features`) of the raw and the protected
        dataset.
    attribute_of : mapping participant -> value
        The attribute of every participant (e.g. ``{"p1": "f"}``).
    threat : ThreatModel
        Which side (train / test) is protected.
    rng : numpy.random.Generator
        Fold assignment, classifier seeds and tie-breaks.
    attribute : str
        Name used in tables.
    classifier : {"svm", "rf", "knn", "rbfn"}
    participants_per_fold : int
        Participants held out together (1: leave-one-participant-out, as in seed 004).

    Returns
    -------
    InferenceResult
    """
    CLASSIFIERS[classifier]
    check_int(participants_per_fold=participants_per_fold, minimum=1)
    if threat.uses_protected and protected_features is None:
        raise InvalidParameterError(
            f"threat model {threat.name!r} uses protected data, but protected_features is None")
    side = {"raw": raw_features, "protected": protected_features}
    train_tab, test_tab = side[threat.train], side[threat.test]
    feats = [c for c, dt in train_tab.schema.items()
             if dt.is_numeric() and c in set(test_tab.columns)]
    participants = sorted(set(train_tab["participant"].to_list()))
    missing = [p for p in participants if p not in attribute_of]
    if missing:
        raise InvalidDataError(f"attribute {attribute!r} unknown for participants {missing[:5]}")
    values = sorted({attribute_of[p] for p in participants})
    if len(values) < 2:
        raise InvalidDataError(
            f"attribute {attribute!r} has one value ({values}) among the participants; nothing "
            "to infer")
    order = [participants[i] for i in rng.permutation(len(participants))]
    folds = [order[i:i + participants_per_fold]
             for i in range(0, len(order), participants_per_fold)]
    predictions: dict[str, str] = {}
    # one stream per fold: a fold's draws never depend on what other folds consumed
    for held_out, fold_rng in zip(folds, rng.spawn(len(folds)), strict=True):
        held = set(held_out)
        keep = _balanced_training(participants, held, attribute_of, len(values), fold_rng)
        tr = train_tab.filter(pl.col("participant").is_in(keep))
        te = test_tab.filter(pl.col("participant").is_in(list(held)))
        if te.height == 0:
            continue
        predictions.update(_fold_predictions(tr, te, feats, held_out, attribute_of,
                                             classifier=classifier, rng=fold_rng))
    scored = sorted(predictions)
    truth = [attribute_of[p] for p in scored]
    guess = [predictions[p] for p in scored]
    counts = Counter(attribute_of[p] for p in participants)
    return InferenceResult(
        attribute=attribute, classifier=classifier, threat=threat.name,
        accuracy=float(np.mean([a == b for a, b in zip(truth, guess, strict=True)])),
        f1_macro=float(f1_score(truth, guess, labels=values, average="macro", zero_division=0)),
        chance=max(counts.values()) / len(participants), uniform_chance=1.0 / len(values),
        predictions=predictions)
