# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Property tests: random gaze with NaN runs and timestamp gaps keeps the event invariants."""

from __future__ import annotations

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from gazeprivacy.data import Dataset, Recording
from gazeprivacy.events import detect_events_dataset, smoothed_speed_deg_s
from gazeprivacy.features import EVENT_FEATURE_COLUMNS, event_features_dataset


@st.composite
def recordings(draw) -> Recording:
    n = draw(st.integers(1, 400))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    scale = draw(st.sampled_from([0.0, 0.01, 0.1, 1.0]))
    x = np.cumsum(rng.normal(0, scale, n)) + np.repeat(rng.normal(0, 3, n // 50 + 1), 50)[:n]
    y = np.cumsum(rng.normal(0, scale, n))
    for _ in range(draw(st.integers(0, 4))):  # NaN runs (blinks)
        a = draw(st.integers(0, n - 1))
        x[a:a + draw(st.integers(1, 30))] = np.nan
    y[np.isnan(x)] = np.nan
    dt = np.full(n, 1 / 200)
    for _ in range(draw(st.integers(0, 2))):  # timestamp gaps
        dt[draw(st.integers(0, n - 1))] = draw(st.floats(0.006, 0.5))
    return Recording(recording="r", participant="p", t=np.cumsum(dt), x=x, y=y,
                     sampling_rate_hz=200.0)


@settings(max_examples=60, deadline=None)
@given(rec=recordings(), method=st.sampled_from(["ivt", "idt", "adaptive"]),
       short_runs=st.sampled_from(["saccade", "unclassified"]))
def test_event_invariants(rec, method, short_runs):
    ds = Dataset((rec,))
    # random walks are not gaze: the plausibility warning is tested in test_adaptive.py
    ev = detect_events_dataset(ds, method=method, short_runs=short_runs, max_saccade_share=None)
    n = rec.n_samples
    cover = np.zeros(n, dtype=int)
    for on, off in ev.select("onset", "offset").rows():
        assert 0 <= on < off <= n
        assert not np.isnan(rec.x[on:off]).any()               # never across a NaN
        assert (np.diff(rec.t[on:off]) <= 2.5 / 200 + 1e-9).all()  # never across a time gap
        cover[on:off] += 1
    assert cover.max(initial=0) <= 1                            # no overlap
    assert (ev["onset"].diff().drop_nulls() > 0).all()          # ordered
    fix = ev.filter(pl.col("name") == "fixation")
    min_fix = 0.04 if method == "adaptive" else 0.2  # the adaptive default: 40 ms
    assert (fix["duration_s"] >= min_fix - 1e-9).all()
    if method == "idt":
        disp = [np.ptp(rec.x[a:b]) + np.ptp(rec.y[a:b]) for a, b in
                fix.select("onset", "offset").rows()]
        assert all(d <= 1.0 for d in disp)
    if short_runs == "saccade" or method == "idt":
        valid = ~np.isnan(rec.x)
        linked = valid[:-1] & valid[1:] & (np.diff(rec.t) <= 2.5 / 200 + 1e-9)
        in_pair = np.zeros(n, dtype=bool)
        in_pair[:-1] |= linked
        in_pair[1:] |= linked
        if method == "adaptive":  # samples faster than 1000 deg/s are noise: in no event
            in_pair &= ~(smoothed_speed_deg_s(rec, window_s=0.01) > 1000.0)
        assert (cover == in_pair).all()                         # complete coverage
    f = event_features_dataset(ds, ev, fill_undefined=0.0)
    assert f.height == ev.filter(pl.col("n_samples") >= 4).height
    assert np.isfinite(f.select(EVENT_FEATURE_COLUMNS).to_numpy()).all()
