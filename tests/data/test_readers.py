# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Readers for eye-tracker exports (issue 16, "Inputs people have"), on small files written here
with the headers the vendors' exports use (Tobii Pro Lab, Pupil Core, Pupil Labs Neon, EyeLink)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import polars as pl
import pytest

from export_helpers import asc_file, tobii_file
from gazeprivacy.data import Geometry
from gazeprivacy.data.readers import (
    detect_format,
    read_eyelink,
    read_input,
    read_neon,
    read_pupil_core,
    read_tobii,
)
from gazeprivacy.exceptions import DataPolicyWarning, InvalidDataError, InvalidParameterError


@pytest.mark.parametrize("comma", [False, True])
def test_tobii_pro_lab_export(tmp_path, comma):
    path = tobii_file(tmp_path, comma=comma)
    assert detect_format(path) == "tobii"
    ds = read_tobii(path, px_per_deg=40.0)
    assert [(r.participant, r.recording, r.n_samples) for r in ds] == \
        [("P01", "Recording1", 40), ("P02", "Recording2", 40)]  # event rows are not samples
    r = ds[0]
    assert r.sampling_rate_hz == pytest.approx(120, rel=0.05)
    assert r.x[0] == pytest.approx(960 / 40) and r.y[1] == pytest.approx(538 / 40)
    assert np.isnan(r.x[10]) and not np.isnan(r.x[11])
    assert r.pupil[0] == pytest.approx(3.2)
    assert r.labels["stimulus"] == "img1"
    assert r.geometry == Geometry.screen_px(width_px=1920, height_px=1080, px_per_deg=40.0)
    assert r.extras["Eyetracker timestamp"].to_list()[:2] == [1_732_600_000_000_000,
                                                             1_732_600_000_008_333]
    with pytest.raises(InvalidParameterError, match="pass px_per_deg"):
        read_tobii(path)


def test_pupil_core_gaze_positions(tmp_path):
    folder = tmp_path / "000"
    folder.mkdir()
    n = 60
    angle = np.radians(np.linspace(-10, 10, n))
    tab = pl.DataFrame({
        "gaze_timestamp": 5321.25 + np.arange(n) / 120.0,
        "world_index": pl.Series(np.arange(n) // 4, dtype=pl.Int64),
        "confidence": [0.3 if i == 7 else 0.95 for i in range(n)],
        "norm_pos_x": 0.5 + angle / 3, "norm_pos_y": np.full(n, 0.5),
        "base_data": [f"{5321.2 + i / 120:.4f}-0 {5321.2 + i / 120:.4f}-1" for i in range(n)],
        "gaze_point_3d_x": np.tan(angle) * 500, "gaze_point_3d_y": np.full(n, 0.0),
        "gaze_point_3d_z": np.full(n, 500.0),
    })
    path = folder / "gaze_positions.csv"
    tab.write_csv(path)
    assert detect_format(path) == "pupil-core"
    with pytest.warns(DataPolicyWarning, match="'000', from the file or folder name, is taken"):
        ds = read_pupil_core(path)
    r = ds[0]
    assert r.participant == "000" and r.n_samples == n
    np.testing.assert_allclose(r.x[[0, -1]], [-10.0, 10.0], atol=1e-9)
    assert np.isnan(r.x[7]) and np.isnan(r.y[7])  # low confidence: missing, not removed
    assert r.extras["world_index"].dtype == pl.Int64
    ds = read_pupil_core(path.with_name("gaze_positions.csv"), participant="anna")
    assert ds[0].participant == "anna"
    tab.drop("gaze_point_3d_x", "gaze_point_3d_y", "gaze_point_3d_z").write_csv(path)
    with pytest.raises(InvalidParameterError, match="world camera's field of view"):
        read_pupil_core(path, participant="anna")
    fov = Geometry(x_min_deg=-45, x_max_deg=45, y_min_deg=-30, y_max_deg=30,
                   kind="scene-camera")
    r = read_pupil_core(path, participant="anna", geometry=fov)[0]
    assert r.y[0] == pytest.approx(0.0)  # norm_pos_y 0.5: the middle (origin bottom-left)


def test_neon_gaze_csv_with_info_json(tmp_path):
    n = 50
    t0 = 1_732_600_000_123_456_789
    tab = pl.DataFrame({
        "section id": ["9b1c"] * n, "recording id": ["a7f3-rec"] * n,
        "timestamp [ns]": pl.Series([t0 + 5_000_000 * i for i in range(n)], dtype=pl.Int64),
        "gaze x [px]": np.linspace(700, 900, n), "gaze y [px]": np.linspace(500, 600, n),
        "worn": [0.0 if i < 2 else 1.0 for i in range(n)],
        "fixation id": [None if i % 10 == 0 else i // 10 + 1 for i in range(n)],
        "blink id": [None] * n,
        "azimuth [deg]": np.linspace(-5, 5, n), "elevation [deg]": np.linspace(3, -3, n),
    })
    path = tmp_path / "gaze.csv"
    tab.write_csv(path)
    (tmp_path / "info.json").write_text(json.dumps({"wearer_id": "w-123", "recording_id": "x"}))
    assert detect_format(path) == "neon"
    r = read_neon(path)[0]
    assert (r.participant, r.recording, r.sampling_rate_hz) == ("w-123", "a7f3-rec", 200.0)
    assert np.isnan(r.x[:2]).all() and r.x[2] == pytest.approx(-5 + 10 * 2 / (n - 1))
    assert r.y[-1] == pytest.approx(3.0)  # minus the elevation: downwards
    assert r.extras["timestamp [ns]"].to_list() == tab["timestamp [ns]"].to_list()  # exact
    assert r.geometry.width_deg == 103.0


def test_eyelink_asc_through_pymovements(tmp_path):
    import pymovements as pm

    path = asc_file(tmp_path)
    assert detect_format(path) == "eyelink"
    with pytest.warns(DataPolicyWarning, match="'sub07'"):
        ds = read_eyelink(path, px_per_deg=40.0)
    r = ds[0]
    assert (r.participant, r.n_samples, r.sampling_rate_hz) == ("sub07", 30, 1000.0)
    assert r.x[0] == pytest.approx(16.0) and np.isnan(r.x[5])
    assert r.pupil[1] == pytest.approx(1001.0)
    exp = pm.Experiment(screen_width_px=1280, screen_height_px=1024, screen_width_cm=38.0,
                        screen_height_cm=30.0, distance_cm=68.0, origin="upper left",
                        sampling_rate=1000)
    r = read_eyelink(path, experiment=exp, participant="s7")[0]
    assert abs(r.x[0]) < 0.1  # pix2deg: the screen centre is 0 degrees
    assert r.geometry.x_min_deg == pytest.approx(exp.screen.x_min_dva)
    with pytest.raises(InvalidParameterError, match="pass px_per_deg"):
        read_eyelink(path, participant="s7")


def test_read_input_dispatches_and_refuses_what_does_not_apply(tmp_path):
    path = tobii_file(tmp_path)
    assert len(read_input(path, px_per_deg=40.0)) == 2
    with pytest.raises(InvalidParameterError, match="apply to the long format"):
        read_input(path, px_per_deg=40.0, time_unit="ms")
    odd = tmp_path / "odd.csv"
    odd.write_text("a,b\n1,2\n")
    with pytest.raises(InvalidDataError, match="cannot tell the format.*input_format"):
        read_input(odd)
    with pytest.raises(InvalidParameterError, match="input_format must be one of"):
        read_input(odd, input_format="smi")
    # participant=... names the wearer of an export without ids, never overrides a column
    with pytest.raises(InvalidParameterError, match="names its participants"):
        read_input(path, px_per_deg=40.0, participant="P9")
    with pytest.raises(InvalidParameterError, match="long-format table names them"):
        read_input(odd, input_format="long", participant="P9")
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataPolicyWarning)  # no file-name fallback
        ds = read_input(asc_file(tmp_path), px_per_deg=40.0, participant="P9")
    assert [r.participant for r in ds] == ["P9"]
