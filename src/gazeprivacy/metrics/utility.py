# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Utility task: classify a recording's task / activity from its event features (seed 000, 5.3).

Ren, Fan et al. train a random forest on I-VT event features of the *original* data and test it
on the protected data (the reverse is an option here). Features are per-recording aggregates of
event features (:func:`gazeprivacy.features.aggregate.recording_features`). The recordings are
split at random (stratified by label, ``test_fraction`` on the test side); a recording is never
on both sides, so a protected copy of a training recording is never a test case. With
``group_by="participant"`` whole participants are held out instead. Reported against the chance
level (the most frequent label's share of the test side, and ``1 / n_labels``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import polars as pl
from sklearn.ensemble import RandomForestClassifier
from sklearn.impute import SimpleImputer
from sklearn.metrics import f1_score
from sklearn.pipeline import make_pipeline

from gazeprivacy._validation import check_in, check_int, check_range
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.rng import seed_for_sklearn

__all__ = ["UtilityResult", "task_classification"]


@dataclass(frozen=True)
class UtilityResult:
    """Accuracy and macro F1 of the task classifier, averaged over splits, with chance levels."""

    task: str
    direction: str
    accuracy: float
    accuracy_std: float
    f1_macro: float
    chance: float
    uniform_chance: float
    n_splits: int

    def metrics(self) -> dict[str, float]:
        return {"accuracy": self.accuracy, "f1_macro": self.f1_macro, "chance": self.chance}


def _test_units(units: np.ndarray, labels: np.ndarray, classes: list[str], *,
                test_fraction: float, stratify: bool, rng: np.random.Generator) -> set[str]:
    """The split units drawn for the test side: ``test_fraction`` of them, per label when
    ``stratify`` (recordings), else of all units (participants); at least one, never all."""
    if stratify:
        test_units: set[str] = set()
        for c in classes:
            members = sorted(set(units[labels == c].tolist()))
            k = int(np.clip(round(test_fraction * len(members)), 1, max(1, len(members) - 1)))
            test_units.update(rng.permutation(members)[:k].tolist())
        return test_units
    uniq = sorted(set(units.tolist()))
    k = int(np.clip(round(test_fraction * len(uniq)), 1, len(uniq) - 1))
    return set(rng.permutation(uniq)[:k].tolist())


def _forest_predict(X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray, *,
                    n_trees: int, rng: np.random.Generator) -> np.ndarray:
    """Fit a median-imputing random forest and predict the test rows (non-finite = missing)."""
    clf = make_pipeline(
        SimpleImputer(strategy="median", keep_empty_features=True),
        RandomForestClassifier(n_estimators=n_trees, random_state=seed_for_sklearn(rng),
                               n_jobs=1))
    clf.fit(np.where(np.isfinite(X_train), X_train, np.nan), y_train)
    return clf.predict(np.where(np.isfinite(X_test), X_test, np.nan))


def task_classification(
    original: pl.DataFrame,
    protected: pl.DataFrame | None,
    label_of: Mapping[str, str],
    *,
    rng: np.random.Generator,
    task: str = "task",
    direction: str = "train-original",
    test_fraction: float = 0.3,
    n_splits: int = 5,
    n_trees: int = 100,
    group_by: str = "recording",
) -> UtilityResult:
    """Random-forest task classification across the original / protected divide.

    Parameters
    ----------
    original, protected : polars.DataFrame
        Per-recording feature tables (``recording``, ``participant`` + numeric columns) of the
        original and the protected dataset. ``protected=None`` classifies original data on both
        sides (the utility ceiling).
    label_of : mapping recording -> label
        The task / activity label of every recording.
    rng : numpy.random.Generator
    task : str
        Label name, for tables.
    direction : {"train-original", "train-protected"}
        Seed 000 trains on the original and tests on the protected data.
    test_fraction : float in (0, 1)
    n_splits : int
    n_trees : int
        Random-forest size.
    group_by : {"recording", "participant"}
        Split unit.

    Returns
    -------
    UtilityResult
    """
    check_in(direction=direction, options=("train-original", "train-protected"))
    check_in(group_by=group_by, options=("recording", "participant"))
    check_range(test_fraction=test_fraction, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    check_int(n_splits=n_splits, minimum=1)
    check_int(n_trees=n_trees, minimum=1)
    prot = original if protected is None else protected
    train_tab, test_tab = ((original, prot) if direction == "train-original"
                           else (prot, original))
    feats = [c for c, dt in train_tab.schema.items()
             if dt.is_numeric() and c in set(test_tab.columns)]
    recs = train_tab["recording"].to_list()
    missing = [r for r in recs if r not in label_of]
    if missing:
        raise InvalidDataError(f"label {task!r} unknown for recordings {missing[:5]}")
    labels = np.array([label_of[r] for r in recs])
    classes = sorted(set(labels.tolist()))
    if len(classes) < 2:
        raise InvalidDataError(f"label {task!r} has one value {classes}; nothing to classify")
    units = (np.array(recs) if group_by == "recording"
             else np.array(train_tab["participant"].to_list()))
    test_pos = {r: i for i, r in enumerate(test_tab["recording"].to_list())}
    X_train_all = train_tab.select(feats).cast(pl.Float64).fill_nan(None).to_numpy()
    X_test_all = test_tab.select(feats).cast(pl.Float64).fill_nan(None).to_numpy()
    accs, f1s, chances = [], [], []
    for child in rng.spawn(n_splits):
        test_units = _test_units(units, labels, classes, test_fraction=test_fraction,
                                 stratify=group_by == "recording", rng=child)
        is_test = np.array([u in test_units for u in units.tolist()])
        tr_idx = np.flatnonzero(~is_test)
        te_recs = [recs[i] for i in np.flatnonzero(is_test) if recs[i] in test_pos]
        if not te_recs or tr_idx.size == 0:
            raise InvalidDataError("a task-classification split left one side empty; use more "
                                   "recordings or a larger test_fraction")
        assert not set(te_recs) & {recs[i] for i in tr_idx}, "recording on both sides"
        pred = _forest_predict(X_train_all[tr_idx], labels[tr_idx],
                               X_test_all[[test_pos[r] for r in te_recs]], n_trees=n_trees,
                               rng=child)
        truth = np.array([label_of[r] for r in te_recs])
        accs.append(float(np.mean(pred == truth)))
        f1s.append(float(f1_score(truth, pred, labels=classes, average="macro",
                                  zero_division=0)))
        _, counts = np.unique(truth, return_counts=True)
        chances.append(float(counts.max() / truth.size))
    return UtilityResult(task=task, direction=direction, accuracy=float(np.mean(accs)),
                         accuracy_std=float(np.std(accs)), f1_macro=float(np.mean(f1s)),
                         chance=float(np.mean(chances)), uniform_chance=1.0 / len(classes),
                         n_splits=n_splits)
