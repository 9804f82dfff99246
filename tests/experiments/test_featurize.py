# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
from __future__ import annotations

import numpy as np

from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.events import EVENT_NAMES
from gazeprivacy.experiments.featurize import event_features_of
from gazeprivacy.features.aggregate import feature_columns, recording_features


def test_default_featurizer_gives_fixations_and_saccades_per_recording():
    ds = simulate_dataset(n_participants=2, tasks=("reading", "free-viewing"), duration_s=4.0,
                          sampling_rate_hz=100.0, rng=np.random.default_rng(0))
    ev = event_features_of(ds)
    assert {"recording", "participant", "name"} <= set(ev.columns)
    assert {"fixation", "saccade"} <= set(ev["name"].unique()) <= set(EVENT_NAMES)
    assert "duration_s" in feature_columns(ev) and "onset" not in feature_columns(ev)
    agg = recording_features(ev, recordings=[r.recording for r in ds])
    assert agg.height == len(ds)
    assert (agg["fixation_count"] > 0).all()


def test_featurizers_name_their_detector():
    # the runner's default is REMoDNaV (sound mode); the reproductions pass the papers' I-VT
    # featurizer; the adaptive one is separate; each gives its own events on the same data
    from gazeprivacy.events import detect_events_dataset
    from gazeprivacy.experiments.featurize import (
        adaptive_event_features_of,
        ivt_event_features_of,
    )

    ds = simulate_dataset(n_participants=2, tasks=("reading",), duration_s=4.0,
                          sampling_rate_hz=200.0, rng=np.random.default_rng(0))
    for featurize, method in ((event_features_of, "remodnav"), (ivt_event_features_of, "ivt"),
                              (adaptive_event_features_of, "adaptive")):
        det = detect_events_dataset(ds, method=method, max_saccade_share=None)
        ev = featurize(ds)
        assert ev.height == det.filter(det["n_samples"] >= 4).height, method
    assert not event_features_of(ds)["duration_s"].equals(ivt_event_features_of(ds)["duration_s"])


def test_grouped_featurization_equals_one_pass(monkeypatch):
    # the featurizers work on groups of recordings (bounded temporaries); events and features
    # are per recording, so the table equals the one-pass table: exactly, but for the medians,
    # which event_features reads back from a key (event number + scaled value) exact to ~1e-10
    # of the event's range -- the event numbers restart in every group
    from gazeprivacy.events import detect_events_dataset
    from gazeprivacy.experiments import featurize
    from gazeprivacy.features import event_features_dataset

    ds = simulate_dataset(n_participants=3, tasks=("reading", "free-viewing"), duration_s=4.0,
                          sampling_rate_hz=100.0, rng=np.random.default_rng(1))
    monkeypatch.setattr(featurize, "_GROUP_SAMPLES", 900)  # 400-sample recordings: 3 groups
    assert [len(g) for g in featurize._groups(ds)] == [2, 2, 2]
    one = event_features_dataset(ds, detect_events_dataset(ds, max_saccade_share=None),
                                 min_samples=4)
    grouped = featurize.event_features_of(ds)
    assert grouped.height > 0 and grouped.schema == one.schema
    medians = [c for c in one.columns if c.endswith("_median")]
    assert medians and grouped.drop(medians).equals(one.drop(medians))
    for c in medians:
        span = (one[c.replace("_median", "_max")] - one[c.replace("_median", "_min")]).to_numpy()
        err = np.abs(grouped[c].to_numpy() - one[c].to_numpy())
        assert (err <= 1e-9 * span).all(), c


def test_featurize_modules_do_not_import_the_runner():
    # the partition-wise featurize path imports neither scikit-learn nor matplotlib (memory)
    import subprocess
    import sys

    code = ("import sys, gazeprivacy.experiments.featurize, gazeprivacy.experiments.streaming; "
            "print(sorted(m for m in ('sklearn', 'matplotlib', 'torch', "
            "'gazeprivacy.experiments.engine') if m in sys.modules))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert res.stdout.strip() == "[]"
