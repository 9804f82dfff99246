# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Classifier protocols: no test participant or test window ever reaches training."""

from __future__ import annotations

import typing

import numpy as np
import pytest

import gazeprivacy.attacks.feature_protocols as fp
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.features.window_features import FeatureSeries


def _series(n_people: int = 6, n: int = 40):
    out = []
    for p in range(n_people):
        for d in range(2):
            # feature 0 encodes the participant, feature 1 the window index: a spy can see both
            v = np.column_stack([np.full(n, p), np.arange(n), np.full(n, d)]).astype(float)
            out.append(FeatureSeries(recording=f"P{p}_R{d}", participant=f"P{p}",
                                     t_start=np.arange(n) * 0.5, values=v,
                                     labels={"document": f"doc{d}", "gender": "fm"[p % 2]},
                                     feature_names=("pid", "pos", "doc")))
    return out


class _Spy:
    calls: typing.ClassVar[list] = []

    def fit(self, X, y):
        self.train = X.copy()
        _Spy.calls.append(self)
        return self

    def predict(self, X):
        self.test = X.copy()
        return np.full(X.shape[0], "doc0", dtype=object)


@pytest.fixture
def spy(monkeypatch):
    _Spy.calls = []
    monkeypatch.setattr(fp, "make_classifier", lambda name, rng: _Spy())
    return _Spy


def test_lopo_never_trains_on_the_test_participant(spy) -> None:
    S = _series()
    fp.leave_one_person_out(S, S, label="document", classifiers=("svm",), subsample=3,
                            rng=np.random.default_rng(0))
    assert len(spy.calls) == 6
    for call in spy.calls:
        tested = set(call.test[:, 0])
        assert len(tested) == 1 and tested.isdisjoint(call.train[:, 0])
        assert set(call.train[:, 0]) | tested == set(range(6))


def test_halves_never_train_on_test_windows(spy) -> None:
    S = _series()
    fp.first_half_second_half(S, S, classifiers=("svm",), subsample=1,
                              rng=np.random.default_rng(0))
    (call,) = spy.calls
    assert call.train[:, 1].max() < 20 <= call.test[:, 1].min()
    assert set(call.train[:, 0]) == set(call.test[:, 0]) == set(range(6))


def test_real_classifiers_learn_an_easy_task() -> None:
    S = _series()
    tab = fp.leave_one_person_out(S, S, label="document", subsample=2,
                                  rng=np.random.default_rng(1))
    assert tab["classifier"].to_list() == list(fp.CLASSIFIERS)
    assert (tab["accuracy_vote"] == 1.0).all()  # feature "doc" gives the label away
    ids = fp.first_half_second_half(S, S, subsample=2, rng=np.random.default_rng(1))
    assert ids.filter(ids["classifier"] == "dt")["accuracy"][0] == 1.0


def test_knn_breaks_ties_at_random() -> None:
    X = np.array([[0.0], [0.0]])
    y = np.array(["a", "b"])
    preds = {fp.KNNRandomTies(n_neighbors=2, random_state=s).fit(X, y).predict(X[:1])[0]
             for s in range(20)}
    assert preds == {"a", "b"}


def test_misaligned_or_bad_inputs_are_refused() -> None:
    S = _series()
    with pytest.raises(InvalidDataError, match="same recordings"):
        fp.leave_one_person_out(S, S[::-1], label="document", rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameterError, match="label 'age' not in the series"):
        fp.leave_one_person_out(S, S, label="age", rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameterError, match="classifier must be one of"):
        fp.make_classifier("mlp", rng=np.random.default_rng(0))
