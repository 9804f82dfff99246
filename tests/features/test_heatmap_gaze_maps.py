# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Gaze maps: counts, caps, aggregate, policies, point-spread heatmap."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy.ndimage import gaussian_filter

from gazeprivacy.data import Geometry, Recording
from gazeprivacy.data.fixations import Fixations
from gazeprivacy.exceptions import DataPolicyWarning, InvalidDataError
from gazeprivacy.features.gaze_maps import (
    GazeMaps,
    MapGrid,
    gaze_maps_from_fixations,
    gaze_maps_from_recordings,
    point_spread_heatmap,
)


def _fixations(xs, ys, parts, stim="s", w=8, h=4):
    n = len(xs)
    tab = pl.DataFrame({"participant": parts, "stimulus": [stim] * n, "fixation": list(range(n)),
                        "x_px": [float(v) for v in xs], "y_px": [float(v) for v in ys],
                        "duration_ms": [200.0] * n})
    return Fixations(tab, width_px=w, height_px=h, name="toy")


def test_counts_cap_and_aggregate():
    fx = _fixations([1.2, 1.7, 1.1, 7.9, 3.0], [0.5, 0.5, 0.9, 3.99, 2.0],
                    ["a", "a", "a", "b", "b"])
    maps = gaze_maps_from_fixations(fx, "s")
    assert maps.observers == ("a", "b")
    assert maps.counts[0, 0, 1] == 3 and maps.counts.sum() == 5
    assert maps.counts[1, 3, 7] == 1 and maps.counts[1, 2, 3] == 1
    assert maps.g_max == 3
    agg = maps.aggregate(2)
    assert agg[0, 1] == pytest.approx(1.0)  # min(3, 2) / 2
    assert maps.aggregate(None)[0, 1] == pytest.approx(1.5)
    assert agg.sum() == pytest.approx((2 + 1 + 1) / 2)


def test_cells_coarser_grid():
    fx = _fixations([0.5, 3.5, 7.5], [0.5, 3.5, 0.5], ["a", "a", "a"])
    maps = gaze_maps_from_fixations(fx, "s", cell_px=4)
    assert maps.grid.shape == (1, 2)
    assert maps.counts[0].tolist() == [[2, 1]]


@pytest.mark.parametrize("policy,total", [("clamp", 2), ("exclude", 1)],
                         ids=["clamp_to_border", "exclude_counts_less"])
def test_off_image_policies(policy, total):
    fx = _fixations([1.0, 9.5], [1.0, 1.0], ["a", "a"])
    with pytest.raises(InvalidDataError, match="1 point\\(s\\) lie outside"):
        gaze_maps_from_fixations(fx, "s")
    said = "moved to the nearest border cell" if policy == "clamp" else "left out"
    with pytest.warns(DataPolicyWarning, match=f"1 point\\(s\\) outside .* {said}"):
        maps = gaze_maps_from_fixations(fx, "s", off_image=policy)
    assert maps.counts.sum() == total
    assert maps.info["off_image"] == 1
    # an infinite coordinate stands for no border cell: refused under every policy
    with pytest.raises(InvalidDataError, match="1 point\\(s\\) have an infinite coordinate"):
        gaze_maps_from_fixations(_fixations([1.0, -np.inf], [1.0, 1.0], ["a", "a"]), "s",
                                 off_image=policy)


def test_unknown_stimulus_raises():
    with pytest.raises(InvalidDataError, match="no stimulus 'zz'"):
        gaze_maps_from_fixations(_fixations([1.0], [1.0], ["a"]), "zz")


def test_sample_maps_sum_recordings_of_one_participant_and_skip_nan():
    geo = Geometry.screen_px(width_px=4, height_px=2, px_per_deg=2.0)  # 2 x 1 deg
    r1 = Recording.from_arrays(recording="r1", participant="p", x=[0.1, np.nan, 1.9],
                               y=[0.1, np.nan, 0.9], sampling_rate_hz=100, geometry=geo)
    r2 = Recording.from_arrays(recording="r2", participant="p", x=[0.1], y=[0.1],
                               sampling_rate_hz=100, geometry=geo)
    r3 = Recording.from_arrays(recording="r3", participant="q", x=[1.0], y=[0.5],
                               sampling_rate_hz=100, geometry=geo)
    maps = gaze_maps_from_recordings([r1, r2, r3], stimulus="s")
    assert maps.observers == ("p", "q")
    assert maps.counts[0, 0, 0] == 2 and maps.counts[0, 1, 3] == 1
    assert maps.counts[1, 1, 2] == 1
    assert maps.info["missing_samples"] == 1


def test_sample_maps_need_pixel_grid():
    r = Recording.from_arrays(recording="r", participant="p", x=[0.0], y=[0.0],
                              sampling_rate_hz=100)
    with pytest.raises(InvalidDataError, match="no pixel grid"):
        gaze_maps_from_recordings([r], stimulus="s")


def test_maps_are_read_only_and_validated():
    maps = GazeMaps(counts=np.zeros((1, 1, 2), dtype=int), observers=("a",), stimulus="s",
                    grid=MapGrid(width_px=2, height_px=1))
    with pytest.raises(ValueError):
        maps.counts[0, 0, 0] = 5
    with pytest.raises(InvalidDataError, match="non-negative integers"):
        GazeMaps(counts=-np.ones((1, 1, 2), dtype=int), observers=("a",), stimulus="s",
                 grid=MapGrid(width_px=2, height_px=1))


def test_point_spread_equals_scipy_gaussian_filter(rng):
    z = rng.normal(size=(2, 30, 50))
    got = point_spread_heatmap(z, sigma_px=6.0, cell_px=2)
    want = gaussian_filter(z, sigma=(0, 3.0, 3.0), mode="constant")
    np.testing.assert_allclose(got, want, atol=1e-12)
