# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from evaluate_helpers import synthetic_events, synthetic_index
from gazeprivacy.attacks.reidentification import (
    fuse_scores,
    reidentification_attack,
    reidentify_split,
)
from gazeprivacy.attacks.splits import Split, split_recordings
from gazeprivacy.attacks.threat import THREAT_MODELS, ThreatModel
from gazeprivacy.exceptions import InvalidParameterError


def test_fusion_weights_are_04_fixation_06_saccade():
    s = {"fixation": np.array([[0.9, 0.1]]), "saccade": np.array([[0.2, 0.8]])}
    both = {"fixation": np.array([True]), "saccade": np.array([True])}
    np.testing.assert_allclose(fuse_scores(s, both), [[0.4 * 0.9 + 0.6 * 0.2,
                                                       0.4 * 0.1 + 0.6 * 0.8]])
    # the saccade network wins a disagreement of equal confidence
    s2 = {"fixation": np.array([[1.0, 0.0]]), "saccade": np.array([[0.0, 1.0]])}
    assert fuse_scores(s2, both).argmax() == 1


def test_fusion_renormalises_and_falls_back_to_uniform():
    s = {"fixation": np.array([[0.7, 0.3], [0.5, 0.5]]),
         "saccade": np.array([[0.0, 1.0], [0.0, 1.0]])}
    present = {"fixation": np.array([True, False]), "saccade": np.array([False, False])}
    out = fuse_scores(s, present)
    np.testing.assert_allclose(out, [[0.7, 0.3], [0.5, 0.5]])


@pytest.mark.parametrize("classifier", ["rbfn", "knn", "svm", "rf"])
def test_separable_participants_are_identified(classifier):
    t = synthetic_events(n_participants=4, n_stimuli=4, n_events=8, separation=6.0)
    res = reidentification_attack(t, None, synthetic_index(t), threat=ThreatModel.raw(),
                                  rng=np.random.default_rng(1), classifier=classifier,
                                  n_splits=2, test_fraction=0.25)
    assert res.identification_rate == 1.0
    assert res.f1_macro == 1.0
    assert res.chance == pytest.approx(0.25)


def test_indistinguishable_participants_stay_near_chance():
    # 4 data sets x 10 splits of 6 participants
    rates = []
    for seed in range(4):
        t = synthetic_events(n_participants=6, n_stimuli=4, n_events=6, separation=0.0,
                             seed=seed)
        res = reidentification_attack(t, None, synthetic_index(t), threat=ThreatModel.raw(),
                                      rng=np.random.default_rng(seed), classifier="knn",
                                      n_splits=10, test_fraction=0.25)
        rates.append(res.identification_rate)
    # chance 1/6. The splits of one data set share its events, so count only the 24
    # independent participants (4 data sets x 6) as the effective sample: 4 standard errors
    assert abs(np.mean(rates) - 1 / 6) < 4 * np.sqrt((1 / 6) * (5 / 6) / 24)


def test_threat_model_picks_the_protected_side():
    raw = synthetic_events(n_participants=4, n_stimuli=4, n_events=8, separation=6.0)
    # "protected": identities scrambled beyond recognition
    rng = np.random.default_rng(0)
    cols = [c for c in raw.columns if c.startswith("f")]
    prot = raw.with_columns([pl.Series(c, rng.normal(0, 50, raw.height)) for c in cols])
    idx = synthetic_index(raw)
    kw = dict(rng=np.random.default_rng(3), classifier="knn", n_splits=3)
    clean = reidentification_attack(raw, prot, idx, threat=ThreatModel.raw(), **kw)
    seed000 = reidentification_attack(raw, prot, idx, threat=ThreatModel.seed000(), **kw)
    seed001 = reidentification_attack(raw, prot, idx, threat=ThreatModel.seed001(), **kw)
    assert clean.identification_rate == 1.0
    assert seed000.identification_rate < 0.75
    assert seed001.identification_rate < 0.75
    assert seed000.threat == "seed000" and seed001.threat == "seed001"


def test_protected_threat_without_protected_data_raises():
    t = synthetic_events(n_participants=3, n_stimuli=3, n_events=4)
    with pytest.raises(InvalidParameterError, match="uses protected data"):
        reidentification_attack(t, None, synthetic_index(t), threat=ThreatModel.seed000(),
                                 rng=np.random.default_rng(0), n_splits=1)


def test_unknown_classifier_lists_the_valid_ones():
    t = synthetic_events(n_participants=3, n_stimuli=3, n_events=4)
    with pytest.raises(InvalidParameterError, match="choose one of: knn, rbfn, rf, svm"):
        reidentification_attack(t, None, synthetic_index(t), threat=ThreatModel.raw(),
                                rng=np.random.default_rng(0), classifier="cnn")


def test_test_recordings_never_train(monkeypatch):
    """The classifier never sees a test recording's events: mark them and spy on fit."""
    t = synthetic_events(n_participants=4, n_stimuli=4, n_events=5)
    split = split_recordings(synthetic_index(t), test_fraction=0.25, rng=np.random.default_rng(0))
    seen: list[np.ndarray] = []
    from gazeprivacy.attacks import reidentification as mod

    real = mod.make_classifier

    def spy(name, *, rng, n_train):
        pipe = real(name, rng=rng, n_train=n_train)
        fit = pipe.fit

        def fit_spy(X, y):
            seen.append(np.asarray(X)[:, 0].copy())
            return fit(X, y)

        pipe.fit = fit_spy
        return pipe

    monkeypatch.setattr(mod, "make_classifier", spy)
    marked = t.with_columns(
        pl.when(pl.col("recording").is_in(list(split.test))).then(1e6)
        .otherwise(pl.col("f0")).alias("f0"))
    reidentify_split(marked, marked, split, classifier="knn", rng=np.random.default_rng(0))
    assert seen and all(np.all(x < 1e5) for x in seen)


def test_threat_presets():
    assert (THREAT_MODELS["seed000"].train, THREAT_MODELS["seed000"].test) == ("raw", "protected")
    assert (THREAT_MODELS["seed001"].train, THREAT_MODELS["seed001"].test) == ("protected", "raw")
    assert (THREAT_MODELS["seed004"].train, THREAT_MODELS["seed004"].test) == ("protected",
                                                                               "protected")
    assert not THREAT_MODELS["raw"].uses_protected
    with pytest.raises(InvalidParameterError, match="train must be one of"):
        ThreatModel(train="clean", test="raw")


def test_split_object_refuses_overlap():
    with pytest.raises(AssertionError, match="both sides"):
        Split(("a", "b"), ("b",))
