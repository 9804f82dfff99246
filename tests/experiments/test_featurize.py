# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
from __future__ import annotations

import numpy as np

from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.experiments.featurize import event_features_of
from gazeprivacy.features.aggregate import feature_columns, recording_features


def test_default_featurizer_gives_fixations_and_saccades_per_recording():
    ds = simulate_dataset(n_participants=2, tasks=("reading", "free-viewing"), duration_s=4.0,
                          sampling_rate_hz=100.0, rng=np.random.default_rng(0))
    ev = event_features_of(ds)
    assert {"recording", "participant", "name"} <= set(ev.columns)
    assert set(ev["name"].unique()) == {"fixation", "saccade"}
    assert "duration_s" in feature_columns(ev) and "onset" not in feature_columns(ev)
    agg = recording_features(ev, recordings=[r.recording for r in ds])
    assert agg.height == len(ds)
    assert (agg["fixation_count"] > 0).all()


def test_featurizers_name_their_detector():
    # the runner's default (and the reproductions') stays the papers' I-VT; the adaptive one
    # is separate and gives other events on the same data
    from gazeprivacy.events import detect_events_dataset
    from gazeprivacy.experiments.featurize import adaptive_event_features_of

    ds = simulate_dataset(n_participants=2, tasks=("reading",), duration_s=4.0,
                          sampling_rate_hz=200.0, rng=np.random.default_rng(0))
    ivt = detect_events_dataset(ds, method="ivt", max_saccade_share=None)
    ev = event_features_of(ds)
    assert ev.height == ivt.filter(ivt["n_samples"] >= 4).height
    ad = adaptive_event_features_of(ds)
    assert ad.height > 0 and not ad["duration_s"].equals(ev["duration_s"])
