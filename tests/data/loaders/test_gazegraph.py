# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""GazeGraph DesktopActivity loader on the real data."""

from __future__ import annotations

import numpy as np
import pytest

from gazeprivacy.data.loaders.gazegraph import (
    GAZEGRAPH_ACTIVITIES,
    GAZEGRAPH_GEOMETRY,
    describe_gazegraph,
    load_gazegraph,
)

pytestmark = pytest.mark.realdata


def test_counts_labels_units(data_dir):
    ds = load_gazegraph(data_dir)
    assert len(ds) == 48 and len(ds.participants) == 8
    assert ds.sampling_rate_hz == 30.0
    assert {r.labels["activity"] for r in ds} == set(GAZEGRAPH_ACTIVITIES)
    lengths = {r.recording: r.n_samples for r in ds}
    assert lengths.pop("P1_watch") == 8998
    assert set(lengths.values()) == {9000}
    r = ds["P1_read"]
    np.testing.assert_allclose(np.diff(r.t), 1 / 30)
    # First row of P1_READ: 0.29863, 0.41749 (normalised) -> degrees of a 99 x 53 deg camera.
    assert r.x[0] == pytest.approx((0.29863 - 0.5) * 99)
    assert r.y[0] == pytest.approx((0.41749 - 0.5) * 53)
    assert r.geometry == GAZEGRAPH_GEOMETRY and r.geometry.kind == "scene-camera"
    x = np.concatenate([r.x for r in ds])
    assert not np.isnan(x).any()
    assert GAZEGRAPH_GEOMETRY.contains(x, np.concatenate([r.y for r in ds])).mean() > 0.9


def test_describe(data_dir):
    d = describe_gazegraph(data_dir)
    assert (d.participants, d.recordings, d.samples, d.sampling_rate_hz) == (8, 48, 431_998, 30)
