# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The attacker's classifiers, by name, each inside the same pre-processing pipeline.

Every pipeline imputes missing feature values with the training median, standardises with the
training mean and variance (seeds 002 and 004: "standardise on train, apply to test") and ends in
a classifier with ``predict_proba``:

* ``rbfn`` -- :class:`~gazeprivacy.attacks.rbfn.RBFNClassifier` (George & Routray; seeds 000, 001)
* ``svm`` -- RBF-kernel SVC, ``C = 1``, ``gamma = "scale"`` (seed 004), Platt-scaled
  probabilities (3-fold sigmoid calibration)
* ``rf`` -- random forest, 100 trees
* ``knn`` -- k nearest neighbours, ``k = 11`` (seed 002), fewer when the training set is smaller
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from sklearn.calibration import CalibratedClassifierCV
from sklearn.ensemble import RandomForestClassifier
from sklearn.impute import SimpleImputer
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from gazeprivacy._registry import Registry
from gazeprivacy.attacks.rbfn import RBFNClassifier
from gazeprivacy.rng import seed_for_sklearn

__all__ = ["CLASSIFIERS", "make_classifier"]


def _rbfn(seed: int, n_train: int) -> object:
    return RBFNClassifier(n_centres=16, random_state=seed)


def _svm(seed: int, n_train: int) -> object:
    # Platt scaling through CalibratedClassifierCV (SVC(probability=True) is deprecated in
    # scikit-learn 1.9); ensemble=False keeps one SVC fitted on all training data.
    return CalibratedClassifierCV(SVC(kernel="rbf", C=1.0, gamma="scale", random_state=seed),
                                  method="sigmoid", cv=3, ensemble=False)


def _rf(seed: int, n_train: int) -> object:
    return RandomForestClassifier(n_estimators=100, random_state=seed, n_jobs=1)


def _knn(seed: int, n_train: int) -> object:
    return KNeighborsClassifier(n_neighbors=max(1, min(11, n_train)))


CLASSIFIERS: Registry[Callable[[int, int], object]] = Registry("classifier", {
    "rbfn": _rbfn,
    "svm": _svm,
    "rf": _rf,
    "knn": _knn,
})


def make_classifier(name: str, *, rng: np.random.Generator, n_train: int) -> Pipeline:
    """A fresh pipeline (median imputation, standardisation, classifier) for ``name``.

    >>> pipe = make_classifier("knn", rng=np.random.default_rng(0), n_train=5)
    >>> pipe.steps[-1][1].n_neighbors
    5
    """
    factory = CLASSIFIERS[name]
    return make_pipeline(SimpleImputer(strategy="median", keep_empty_features=True),
                         StandardScaler(), factory(seed_for_sklearn(rng), n_train))
