# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Property tests: NaN runs, off-screen points and tiny recordings never break the contract."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gazeprivacy.data import Dataset, Geometry, Recording
from gazeprivacy.mechanisms.samples.dpgazesynth import DPGazeSynthParams, dpgazesynth
from gazeprivacy.mechanisms.samples.kaleido import KaleidoParams, kaleido

GEO = Geometry(x_min_deg=0.0, x_max_deg=10.0, y_min_deg=0.0, y_max_deg=8.0)

gaze = st.lists(st.one_of(st.none(), st.tuples(st.floats(-30, 40), st.floats(-30, 40))),
                min_size=1, max_size=120)


def recording(points) -> Recording:
    x = np.array([np.nan if p is None else p[0] for p in points])
    y = np.array([np.nan if p is None else p[1] for p in points])
    return Recording.from_arrays(recording="r", participant="p", x=x, y=y,
                                 sampling_rate_hz=20.0, geometry=GEO)


@settings(max_examples=40, deadline=None)
@given(points=gaze, seed=st.integers(0, 2**32 - 1),
       mode=st.sampled_from(["sound", "paper"]),
       transitions=st.sampled_from(["all", "one-per-window"]))
def test_dpgazesynth_keeps_rows_and_mask_and_stays_on_screen(points, seed, mode, transitions):
    rec = recording(points)
    p = DPGazeSynthParams(epsilon=1.0, grid_size=5, window_s=0.25, mode=mode,
                          transitions=transitions)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = dpgazesynth(Dataset((rec,)), p, rng=np.random.default_rng(seed)).output[0]
    assert out.n_samples == rec.n_samples
    np.testing.assert_array_equal(np.isnan(out.x), np.isnan(rec.x))
    ok = ~np.isnan(out.x)
    assert GEO.contains(out.x[ok], out.y[ok]).all()


@settings(max_examples=40, deadline=None)
@given(points=gaze, seed=st.integers(0, 2**32 - 1), missing=st.sampled_from(["keep", "hold"]))
def test_kaleido_keeps_rows_and_stays_in_the_geometry(points, seed, missing):
    rec = recording(points)
    p = KaleidoParams(epsilon=1.0, radius_deg=1.0, window_samples=7, t_skip_samples=2,
                      missing=missing)
    out = kaleido(rec, p, rng=np.random.default_rng(seed)).output
    assert out.n_samples == rec.n_samples
    if missing == "keep":
        np.testing.assert_array_equal(np.isnan(out.x), np.isnan(rec.x))
    else:  # NaN only before the first valid sample
        first = np.argmax(~np.isnan(rec.x)) if (~np.isnan(rec.x)).any() else rec.n_samples
        assert np.isnan(out.x[:first]).all() and not np.isnan(out.x[first:]).any()
    ok = ~np.isnan(out.x)
    assert GEO.contains(out.x[ok], out.y[ok]).all()
