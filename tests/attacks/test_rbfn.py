# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from gazeprivacy.attacks.rbfn import RBFNClassifier
from gazeprivacy.exceptions import InvalidParameterError


def _blobs(rng, n_classes=4, n_per=40, dim=3, spread=0.3, gap=10.0):
    centres = rng.normal(0, gap, size=(n_classes, dim))
    X = np.vstack([c + rng.normal(0, spread, size=(n_per, dim)) for c in centres])
    y = np.repeat([f"c{i}" for i in range(n_classes)], n_per)
    return X, y


def test_perfectly_separable_clusters_give_accuracy_one(rng):
    X, y = _blobs(rng)
    clf = RBFNClassifier(n_centres=8, random_state=0).fit(X, y)
    assert clf.score(X, y) == 1.0
    # held-out points of the same clusters (every other point trains)
    clf2 = RBFNClassifier(n_centres=2, random_state=0).fit(X[::2], y[::2])
    assert clf2.score(X[1::2], y[1::2]) == 1.0


def test_learned_attributes_shapes_and_probabilities(rng):
    X, y = _blobs(rng, n_classes=3, n_per=20)
    clf = RBFNClassifier(n_centres=5, random_state=1).fit(X, y)
    assert clf.centres_.shape == (15, 3)
    assert clf.betas_.shape == (15,) and np.all(np.isfinite(clf.betas_)) and np.all(clf.betas_ > 0)
    assert clf.weights_.shape == (16, 3)
    p = clf.predict_proba(X)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert np.all(clf.classes_[p.argmax(axis=1)] == clf.predict(X))


def test_beta_is_one_over_two_sigma_squared_of_member_distances():
    # one class, one centre: sigma = mean distance of the members to their mean
    X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [2.0, 2.0]])
    y = np.array(["a"] * 4)
    Xb = X + 100.0
    clf = RBFNClassifier(n_centres=1, random_state=0).fit(np.vstack([X, Xb]), ["a"] * 4 + ["b"] * 4)
    sigma = np.sqrt(2.0)  # every corner is sqrt(2) from the centre (1, 1)
    np.testing.assert_allclose(clf.betas_, 1.0 / (2.0 * sigma**2))
    assert y.size == 4


def test_coincident_points_do_not_give_infinite_width():
    X = np.array([[0.0, 0.0]] * 5 + [[3.0, 3.0]] * 5)
    y = ["a"] * 5 + ["b"] * 5
    clf = RBFNClassifier(n_centres=4, random_state=0).fit(X, y)
    assert np.all(np.isfinite(clf.betas_))
    assert clf.predict([[0.1, 0.0], [2.9, 3.0]]).tolist() == ["a", "b"]


def test_fit_does_not_change_parameters_and_clone_works(rng):
    X, y = _blobs(rng, n_classes=2, n_per=10)
    clf = RBFNClassifier(n_centres=3, random_state=0)
    params = clf.get_params()
    clf.fit(X, y)
    assert clf.get_params() == params
    assert clone(clf).get_params() == params


@pytest.mark.parametrize("kwargs, match", [
    pytest.param({"n_centres": 0}, "n_centres must be an integer >= 1", id="zero_centres"),
    pytest.param({"sigma_floor": 0.0}, "sigma_floor must be > 0", id="zero_sigma_floor"),
])
def test_bad_parameters_raise_named_errors(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        RBFNClassifier(**kwargs).fit(np.zeros((4, 2)) + np.arange(4)[:, None], list("aabb"))


def test_same_seed_same_model(rng):
    X, y = _blobs(rng, n_classes=3, n_per=30, spread=3.0)
    a = RBFNClassifier(n_centres=6, random_state=3).fit(X, y)
    b = RBFNClassifier(n_centres=6, random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.centres_, b.centres_)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
