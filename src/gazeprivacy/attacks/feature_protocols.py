# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Classifier protocols on window-feature series (seeds 002 and 004; SPEC section 5).

Classifiers (scikit-learn): SVM (RBF, C = 1, gamma "scale"), decision tree, random forest (10
trees) and kNN (k = 11, ties broken at random), each behind a ``StandardScaler`` fitted on the
training windows only. Protocols:

* :func:`leave_one_person_out` — document type and gender: for each participant, train on every
  other participant's windows and test on hers.
* :func:`first_half_second_half` — person identification: the first half of every recording's
  windows trains, the second half tests.

Windows are subsampled (one random window per block of ``subsample`` windows: 10 for document /
gender and 5 for person id in seed 002). Accuracy is reported per window (without majority
voting) and per (participant, recording) after a majority vote. The two threat models of seed
004 are the choice of training data: ``train`` clean and ``test`` noisy (clean-train /
noisy-test), or both noisy (noisy-train / noisy-test). Every fit asserts that no test
participant (LOPO) or test window (halves) is in its training set.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.ensemble import RandomForestClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier

from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.features.window_features import FeatureSeries
from gazeprivacy.rng import seed_for_sklearn

__all__ = [
    "CLASSIFIERS",
    "KNNRandomTies",
    "WindowSet",
    "first_half_second_half",
    "leave_one_person_out",
    "make_classifier",
    "window_set",
]

CLASSIFIERS = ("knn", "svm", "dt", "rf")


class KNNRandomTies(ClassifierMixin, BaseEstimator):
    """k-nearest neighbours whose vote ties are broken at random (seed 002's kNN).

    Parameters
    ----------
    n_neighbors : int
    random_state : int
    """

    def __init__(self, n_neighbors: int = 11, random_state: int = 0) -> None:
        self.n_neighbors = n_neighbors
        self.random_state = random_state

    def fit(self, X: np.ndarray, y: np.ndarray) -> KNNRandomTies:
        self.knn_ = KNeighborsClassifier(n_neighbors=self.n_neighbors).fit(X, y)
        self.classes_ = self.knn_.classes_
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        proba = self.knn_.predict_proba(X)
        rng = np.random.default_rng(self.random_state)
        top = proba == proba.max(axis=1, keepdims=True)
        pick = np.argmax(top * rng.random(proba.shape), axis=1)
        return self.classes_[pick]


def make_classifier(name: str, *, rng: np.random.Generator) -> Pipeline:
    """A fresh scaler + classifier pipeline (scaler statistics come from ``fit``'s data only)."""
    if name not in CLASSIFIERS:
        raise InvalidParameterError(f"classifier must be one of {', '.join(CLASSIFIERS)}, "
                                    f"got {name!r}")
    seed = seed_for_sklearn(rng)
    clf = {"svm": lambda: SVC(kernel="rbf", C=1.0, gamma="scale"),
           "dt": lambda: DecisionTreeClassifier(random_state=seed),
           "rf": lambda: RandomForestClassifier(n_estimators=10, random_state=seed),
           "knn": lambda: KNNRandomTies(n_neighbors=11, random_state=seed)}[name]()
    return make_pipeline(StandardScaler(), clf)


@dataclass(frozen=True)
class WindowSet:
    """Windows stacked across recordings: features, labels and where each window came from."""

    X: np.ndarray
    participant: np.ndarray
    recording: np.ndarray
    position: np.ndarray  # window index within its recording
    n_in_recording: np.ndarray
    labels: dict[str, np.ndarray]


def window_set(series: Sequence[FeatureSeries], *, subsample: int, rng: np.random.Generator
               ) -> WindowSet:
    """Stack series, keeping one random window per block of ``subsample`` windows."""
    if subsample < 1:
        raise InvalidParameterError(f"subsample must be >= 1, got {subsample}")
    Xs, ps, rs, pos, tot = [], [], [], [], []
    label_names = sorted(set().union(*(s.labels for s in series)))
    labs: dict[str, list[np.ndarray]] = {k: [] for k in label_names}
    for s in series:
        n = s.n_windows
        starts = np.arange(0, n, subsample)
        sizes = np.minimum(subsample, n - starts)
        idx = starts + np.floor(rng.random(starts.size) * sizes).astype(np.int64)
        Xs.append(s.values[idx])
        ps.append(np.full(idx.size, s.participant, dtype=object))
        rs.append(np.full(idx.size, s.recording, dtype=object))
        pos.append(idx)
        tot.append(np.full(idx.size, n))
        for k in label_names:
            labs[k].append(np.full(idx.size, s.labels.get(k, ""), dtype=object))
    return WindowSet(np.concatenate(Xs), np.concatenate(ps), np.concatenate(rs),
                     np.concatenate(pos), np.concatenate(tot),
                     {k: np.concatenate(v) for k, v in labs.items()})


def _label(ws: WindowSet, label: str) -> np.ndarray:
    if label == "participant":
        return ws.participant
    if label not in ws.labels:
        raise InvalidParameterError(f"label {label!r} not in the series; labels: "
                                    f"participant, {', '.join(ws.labels)}")
    return ws.labels[label]


def _scores(pred: np.ndarray, truth: np.ndarray, groups: np.ndarray) -> tuple[float, float]:
    """(window accuracy, majority-vote accuracy per group); vote ties go to the first label."""
    acc = float(np.mean(pred == truth))
    hits = []
    for g in np.unique(groups):
        sel = groups == g
        vals, counts = np.unique(pred[sel], return_counts=True)
        hits.append(vals[np.argmax(counts)] == truth[sel][0])
    return acc, float(np.mean(hits))


def _check_aligned(train: Sequence[FeatureSeries], test: Sequence[FeatureSeries]) -> None:
    if [s.recording for s in train] != [s.recording for s in test]:
        raise InvalidDataError("train and test series must list the same recordings in the same "
                               "order (the same data, clean or released)")


def leave_one_person_out(train: Sequence[FeatureSeries], test: Sequence[FeatureSeries], *,
                         label: str, classifiers: Sequence[str] = CLASSIFIERS,
                         subsample: int = 10, rng: np.random.Generator) -> pl.DataFrame:
    """Leave-one-person-out accuracy of predicting ``label`` (e.g. "document", "gender").

    ``train`` and ``test`` hold the same recordings (clean or released versions: the threat
    model). Returns one row per classifier with ``accuracy`` (per window) and
    ``accuracy_vote`` (majority per participant and recording), averaged over folds.
    """
    _check_aligned(train, test)
    r_sub, r_clf = rng.spawn(2)
    sub_seed = r_sub.integers(2**32)
    tr = window_set(train, subsample=subsample, rng=np.random.default_rng(sub_seed))
    te = window_set(test, subsample=subsample, rng=np.random.default_rng(sub_seed))
    y_tr, y_te = _label(tr, label), _label(te, label)
    rows = []
    for name in classifiers:
        accs, votes = [], []
        for p in np.unique(te.participant):
            fit_sel = tr.participant != p
            assert p not in set(tr.participant[fit_sel]), "test participant leaked into training"
            if np.unique(y_tr[fit_sel]).size < 2:
                raise InvalidDataError(f"fold without participant {p!r} has one class only")
            model = make_classifier(name, rng=r_clf).fit(tr.X[fit_sel], y_tr[fit_sel])
            sel = te.participant == p
            a, v = _scores(model.predict(te.X[sel]), y_te[sel], te.recording[sel])
            accs.append(a)
            votes.append(v)
        rows.append({"task": label, "protocol": "leave-one-person-out", "classifier": name,
                     "accuracy": float(np.mean(accs)), "accuracy_vote": float(np.mean(votes))})
    return pl.DataFrame(rows)


def first_half_second_half(train: Sequence[FeatureSeries], test: Sequence[FeatureSeries], *,
                           classifiers: Sequence[str] = CLASSIFIERS, subsample: int = 5,
                           rng: np.random.Generator) -> pl.DataFrame:
    """Person identification: first half of each recording trains, second half tests."""
    _check_aligned(train, test)
    r_sub, r_clf = rng.spawn(2)
    sub_seed = r_sub.integers(2**32)
    tr = window_set(train, subsample=subsample, rng=np.random.default_rng(sub_seed))
    te = window_set(test, subsample=subsample, rng=np.random.default_rng(sub_seed))
    fit_sel = tr.position < tr.n_in_recording // 2
    test_sel = te.position >= te.n_in_recording // 2
    train_keys = set(zip(tr.recording[fit_sel], tr.position[fit_sel], strict=True))
    test_keys = set(zip(te.recording[test_sel], te.position[test_sel], strict=True))
    assert not train_keys & test_keys, "a test window leaked into training"
    rows = []
    for name in classifiers:
        model = make_classifier(name, rng=r_clf).fit(tr.X[fit_sel], tr.participant[fit_sel])
        a, v = _scores(model.predict(te.X[test_sel]), te.participant[test_sel],
                       te.recording[test_sel])
        rows.append({"task": "person", "protocol": "first-half/second-half", "classifier": name,
                     "accuracy": a, "accuracy_vote": v})
    return pl.DataFrame(rows)
