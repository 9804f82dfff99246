# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""VR office / supermarket loader on the real data."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from gazeprivacy.data import direction_to_angles_deg
from gazeprivacy.data.loaders.vr_selfcalib import (
    VR_GEOMETRY,
    describe_vr_selfcalib,
    load_vr_selfcalib,
)
from gazeprivacy.exceptions import InvalidParameterError

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def vr(data_dir):
    return load_vr_selfcalib(data_dir)


def test_counts_and_labels(vr):
    assert len(vr) == 30 and len(vr.participants) == 17
    envs = [r.labels["environment"] for r in vr]
    assert envs.count("office") == 16 and envs.count("supermarket") == 14
    both = {r.participant for r in vr if r.labels["environment"] == "office"} & {
        r.participant for r in vr if r.labels["environment"] == "supermarket"}
    assert both == {f"user{u}" for u in range(10, 23)}
    assert vr.sampling_rate_hz == 50.0
    r = vr["user10_office"]
    assert r.geometry == VR_GEOMETRY and r.geometry.kind == "vr"
    assert {"head_x_m", "head_y_m", "head_z_m", "head_yaw_deg", "head_pitch_deg",
            "openness_left", "openness_right"} <= set(r.channels)


def test_angles_blinks_and_gaps_match_source(data_dir, vr):
    folder = data_dir / "vr_selfcalib_office_supermarket" / "office_data"
    path = folder / "gaze_user10_office.csv.gz"
    header = pl.read_csv(path, n_rows=0).columns
    raw = pl.read_csv(path, schema=dict.fromkeys(header, pl.Float64))
    r = vr["user10_office"]
    assert r.n_samples == raw.height  # rows never dropped
    h, v = direction_to_angles_deg(raw.select("ray_x", "ray_y", "ray_z").to_numpy())
    blink = ((raw["opennessl"] < 0.5) & (raw["opennessr"] < 0.5)).to_numpy()
    assert np.array_equal(np.isnan(r.x), blink)
    np.testing.assert_allclose(r.x[~blink], h[~blink])
    np.testing.assert_allclose(r.y[~blink], v[~blink])
    info = vr.info["per_recording"]["user10_office"]
    assert info["n_blink"] == int(blink.sum()) == 77
    dt = np.diff(raw["time"].to_numpy())
    assert info["n_long_intervals"] == int((dt > 0.03).sum()) > 0
    np.testing.assert_allclose(r.t, raw["time"].to_numpy() - raw["time"][0])
    np.testing.assert_allclose(r.channels["head_x_m"], raw["ctw_03"].to_numpy())


def test_gaze_within_declared_field(vr):
    x = np.concatenate([r.x for r in vr])
    y = np.concatenate([r.y for r in vr])
    ok = ~np.isnan(x)
    assert VR_GEOMETRY.contains(x[ok], y[ok]).mean() > 0.999
    assert vr.info["n_blink"] == sum(int(np.isnan(r.x).sum()) for r in vr)


def test_head_pitch_is_plausible(vr):
    pitch = np.concatenate([r.channels["head_pitch_deg"] for r in vr])
    assert pitch.min() >= -90 and pitch.max() <= 90
    assert abs(np.median(pitch)) < 30  # people mostly look roughly ahead while walking


def test_filters_and_keep_policy(data_dir):
    ds = load_vr_selfcalib(data_dir, participants=["user10", 11], environments="supermarket",
                           blinks="keep")
    assert [r.recording for r in ds] == ["user10_supermarket", "user11_supermarket"]
    assert not any(np.isnan(r.x).any() for r in ds)
    assert ds.info["n_blink"] > 0  # counted even when kept


@pytest.mark.parametrize("kwargs, match", [
    pytest.param({"environments": ["park"]}, "environments", id="unknown_environment"),
    pytest.param({"participants": [4], "environments": "supermarket"}, "user\\(s\\) \\[4\\]",
                 id="user_without_supermarket"),
    pytest.param({"blinks": "drop"}, "blinks", id="unknown_blink_policy"),
])
def test_bad_options(data_dir, kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        load_vr_selfcalib(data_dir, **kwargs)


def test_describe(data_dir):
    d = describe_vr_selfcalib(data_dir)
    assert (d.participants, d.recordings, d.sampling_rate_hz) == (17, 30, 50.0)
    assert d.samples == 217_706


def test_ray_frame_points_at_the_world_hit_point(data_dir):
    # Documented convention: the head pose maps (ray_x, ray_y, -ray_z) to the world direction
    # from the head to the logged cyclopean hit point; a wrong frame gives errors of ~10-60 deg.
    path = (data_dir / "vr_selfcalib_office_supermarket" / "office_data"
            / "gaze_user10_office.csv.gz")
    header = pl.read_csv(path, n_rows=0).columns
    d = pl.read_csv(path, schema=dict.fromkeys(header, pl.Float64)).drop_nulls()
    d = d.filter((pl.col("opennessl") > 0.5) & (pl.col("opennessr") > 0.5))
    rot = np.stack([[d[f"ctw_{r}{c}"].to_numpy() for c in range(3)] for r in range(3)])
    head = np.stack([d[f"ctw_{r}3"].to_numpy() for r in range(3)], axis=1)
    ray = d.select("ray_x", "ray_y", "ray_z").to_numpy() * [1, 1, -1]
    world = np.einsum("ijn,nj->ni", rot, ray)
    to_hit = d.select("xc", "yc", "zc").to_numpy() - head
    cos = (world * to_hit).sum(1) / np.linalg.norm(world, axis=1) / np.linalg.norm(to_hit, axis=1)
    assert np.median(np.degrees(np.arccos(np.clip(cos, -1, 1)))) < 1.0
