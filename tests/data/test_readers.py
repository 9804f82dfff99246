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

from export_helpers import asc_file, asc_trials_file, pupil_core_recording, tobii_file
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
    path = pupil_core_recording(tmp_path, folder="P07")
    assert detect_format(path) == "pupil-core"
    with pytest.warns(DataPolicyWarning) as caught:
        ds = read_pupil_core(path)
    text = " | ".join(str(w.message) for w in caught)
    assert "'P07', from the file or folder name" in text  # the recording folder, not "000"
    assert "1 samples below confidence 0.6 made missing" in text
    r = ds[0]
    assert (r.participant, r.recording, r.n_samples) == ("P07", "P07", 60)
    assert r.sampling_rate_hz == 120.0 and ds.reading["gaze"] == "3-D"
    np.testing.assert_allclose(r.x[[0, -1]], [-10.0, 10.0], atol=1e-9)
    assert np.isnan(r.x[7]) and np.isnan(r.y[7])  # low confidence: missing, not removed
    assert r.extras["world_index"].dtype == pl.Int64
    with pytest.warns(DataPolicyWarning, match="confidence"):
        assert read_pupil_core(path, participant="anna")[0].participant == "anna"


@pytest.mark.parametrize("three_d", ["empty", "none"])
def test_pupil_core_2d_pipeline_falls_back_to_norm_pos(tmp_path, three_d):
    path = pupil_core_recording(tmp_path, three_d=three_d)
    why = "3-D gaze columns are empty" if three_d == "empty" else "no 3-D gaze points"
    with pytest.raises(InvalidParameterError, match=f"{why}.*world camera's field of view"):
        read_pupil_core(path, participant="anna")
    fov = Geometry(x_min_deg=-45, x_max_deg=45, y_min_deg=-30, y_max_deg=30,
                   kind="scene-camera")
    with pytest.warns(DataPolicyWarning, match="1 samples below confidence"):
        ds = read_pupil_core(path, participant="anna", geometry=fov)
    r = ds[0]
    assert r.y[0] == pytest.approx(0.0)  # norm_pos_y 0.5: the middle (origin bottom-left)
    assert r.missing.sum() == 1 and ds.reading["gaze"] == "2-D"  # not 100 % missing


def test_pupil_core_participant_is_never_the_export_number(tmp_path):
    path = pupil_core_recording(tmp_path, folder="000")
    with pytest.raises(InvalidParameterError, match="recording folder '000' is a number.*"
                                                    "pass participant="):
        read_pupil_core(path)
    (path.parents[2] / "user_info.csv").write_text("key,value\nsubject,S-19\n")
    with pytest.warns(DataPolicyWarning, match="confidence"):
        r = read_pupil_core(path)[0]
    assert (r.participant, r.recording) == ("S-19", "2026_11_25/000")
    other = pupil_core_recording(tmp_path / "b", info={"recording_name": "anna_session1"})
    ds, text = warned(read_pupil_core, other)
    assert ds[0].participant == "anna_session1"
    assert "'anna_session1', from the file or folder" in text


def warned(fn, *args, **kwargs):
    """``fn(...)`` and the text of its DataPolicyWarnings, joined by " | "."""
    with pytest.warns(DataPolicyWarning) as caught:
        out = fn(*args, **kwargs)
    return out, " | ".join(str(w.message) for w in caught)


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
    with pytest.warns(DataPolicyWarning, match="2 samples not worn made missing"):
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


# ------------------------------------------------------------ the nominal rate, never the drift


def test_a_120_hz_tobii_export_with_a_millisecond_clock_reads_as_120_hz(tmp_path):
    path = tobii_file(tmp_path, n=600)  # 5 s; intervals 8, 8, 9 ms (median: 125 Hz)
    ds = read_tobii(path, px_per_deg=40.0)
    assert {r.sampling_rate_hz for r in ds} == {120.0}
    assert ds.reading["rate_source"] == "clock, snapped to a standard rate"
    assert ds[0].duration_s == pytest.approx(5.0, abs=1e-3)  # not 4.8 s (at 125 Hz)
    ds = read_tobii(tobii_file(tmp_path, rate_column="Sampling rate"), px_per_deg=40.0)
    assert ds.reading["rate_source"] == "export (column 'Sampling rate')"
    ds = read_input(path, px_per_deg=40.0, sampling_rate_hz=120)
    assert ds.reading["rate_source"] == "declared" and ds[0].sampling_rate_hz == 120


def test_clock_rates_snap_to_standard_rates_and_odd_ones_are_named(tmp_path):
    from gazeprivacy.data.rates import clock_rate_hz, nominal_rate

    g = np.random.default_rng(1)
    drift = np.cumsum(g.normal(1 / 100.095, 1e-6, 500))  # a drifting 100 Hz clock
    assert nominal_rate(clock_rate_hz(drift)) == (100.0, "whole")
    assert nominal_rate(clock_rate_hz(np.arange(300) / 59.5)) == (60.0, "standard")
    gap = np.concatenate([np.arange(100), 300 + np.arange(100)]) / 250.0  # a 0.8 s gap
    assert clock_rate_hz(gap) == pytest.approx(250.0)
    tab = pl.DataFrame({"participant": "p", "recording": ["a"] * 50 + ["b"] * 50,
                        "t": np.tile(np.arange(50) / 87.3, 2), "x": 5.0, "y": 5.0})
    ds, text = warned(read_input, tab)
    assert [r.sampling_rate_hz for r in ds] == [87.0, 87.0]
    assert "2 recording(s) fit no standard eye-tracker rate" in text
    assert "sampling_rate_hz=..." in text  # the way to declare it (--rate on the CLI)
    assert ds.reading["rate_source"] == "clock, no standard rate"


# ------------------------------------------------------------------------------- Tobii


def test_tobii_rows_dropped_or_made_missing_are_counted(tmp_path):
    ds, text = warned(read_tobii, tobii_file(tmp_path, malformed=True), px_per_deg=40.0)
    assert "1 values of 'Gaze point X' that are no number made missing" in text
    assert "1 rows without a timestamp dropped" in text
    assert [r.n_samples for r in ds] == [39, 40]
    assert ds.reading["rows"] == {
        "values of 'Gaze point X' that are no number made missing": 1,
        "rows without a timestamp dropped": 1,
        "event rows (no gaze sample) dropped": 2}  # for info; not samples, so no warning
    assert "event rows" not in text


def test_tobii_eyes_and_no_raw_eye_is_kept(tmp_path):
    path = tobii_file(tmp_path)
    combined = read_tobii(path, px_per_deg=40.0)[0]
    left = read_tobii(path, px_per_deg=40.0, eye="left")[0]
    right = read_tobii(path, px_per_deg=40.0, eye="right")[0]
    mean = read_tobii(path, px_per_deg=40.0, eye="mean")[0]
    assert left.x[0] == pytest.approx((960 - 3) / 40) and right.x[0] == pytest.approx(963 / 40)
    assert mean.x[0] == pytest.approx(combined.x[0])
    assert (left.pupil[0], right.pupil[0], mean.pupil[0]) == pytest.approx((3.1, 3.3, 3.2))
    assert not np.isnan(left.x[10])  # the combined point is missing there, the eyes are not
    both = read_tobii(path, px_per_deg=40.0, eye="both")
    assert [(r.recording, r.labels["eye"]) for r in both] == [
        ("Recording1 left", "left"), ("Recording1 right", "right"),
        ("Recording2 left", "left"), ("Recording2 right", "right")]
    for ds in (both, read_tobii(path, px_per_deg=40.0)):
        kept = {*ds[0].channels, *ds[0].extras, *ds[0].labels}
        assert not [c for c in kept if c.lower().startswith("gaze point")], kept
    with pytest.raises(InvalidParameterError, match="eye must be one of"):
        read_input(path, px_per_deg=40.0, eye="cyclops")


# ----------------------------------------------------------------------------- EyeLink


def test_eyelink_trials_become_recordings_with_their_labels(tmp_path):
    path = asc_trials_file(tmp_path)
    ds, text = warned(read_eyelink, path, px_per_deg=40.0, participant="s12")
    assert "15 samples outside every trial dropped" in text
    assert [r.recording for r in ds] == ["s12 trial 1", "s12 trial 2", "s12 trial 3"]
    assert [dict(r.labels) for r in ds] == [
        {"trial": str(k), "stimulus": f"images/scene{k}.png",
         "condition": "hard" if k % 2 else "easy", "block_no": str((k - 1) // 2 + 1)}
        for k in (1, 2, 3)]
    r = ds[0]
    assert (r.n_samples, r.sampling_rate_hz) == (50, 500.0)
    assert ds.reading["rate_source"] == "export (EyeLink RATE)"
    assert r.x[0] == pytest.approx(900 / 40) and np.isnan(r.x[7])  # the left eye (default)
    assert r.geometry.width_px == 1920 and r.geometry.height_px == 1080
    # a pattern of the lab's own: one trial per "!V IMGLOAD" message
    ds, _ = warned(read_eyelink, path, px_per_deg=40.0, participant="s12",
                   trial_message=r"IMGLOAD FILL images/(\w+)")
    assert [r.labels["trial"] for r in ds] == ["scene1", "scene2", "scene3"]


def test_eyelink_eyes(tmp_path):
    path = asc_trials_file(tmp_path, n_trials=1)
    right = warned(read_eyelink, path, px_per_deg=40.0, participant="s", eye="right")[0][0]
    mean = warned(read_eyelink, path, px_per_deg=40.0, participant="s", eye="mean")[0][0]
    assert right.x[0] == pytest.approx(920 / 40) and right.pupil[0] == 1100.0
    assert mean.x[0] == pytest.approx(910 / 40)
    assert mean.x[7] == pytest.approx(927 / 40)  # the left eye lost: the right one
    both = warned(read_eyelink, path, px_per_deg=40.0, participant="s", eye="both")[0]
    assert [(r.recording, r.labels["eye"]) for r in both] == [
        ("s12 trial 1 left", "left"), ("s12 trial 1 right", "right")]
    with pytest.raises(InvalidParameterError, match="recorded the left eye only"):
        read_eyelink(asc_file(tmp_path), px_per_deg=40.0, participant="s", eye="right")


def test_eyelink_malformed_lines_and_a_missing_rate_are_said_not_crashed_on(tmp_path):
    ds, text = warned(read_eyelink, asc_trials_file(tmp_path, malformed=2), px_per_deg=40.0,
                      participant="s")
    assert "2 malformed sample lines skipped (first: line " in text and "oops" in text
    assert ds[0].n_samples == 48
    ds, text = warned(read_eyelink, asc_trials_file(tmp_path, rate=False, name="n.asc"),
                      px_per_deg=40.0, participant="s")
    assert "has no RATE" in text and "sampling_rate_hz=..." in text
    assert ds[0].sampling_rate_hz == 500.0  # the clock's, snapped
    assert ds.reading["rate_source"] == "clock, snapped to a standard rate"
    tobii = tobii_file(tmp_path)
    with pytest.raises(InvalidDataError, match="not an EyeLink ASC file.*looks like a tobii "
                                               "export: pass input_format=tobii"):
        read_input(tobii, input_format="eyelink", px_per_deg=40.0)
    empty = tmp_path / "e.asc"
    empty.write_text("** CONVERTED FROM x.edf\nMSG\t1 hello\n")
    with pytest.raises(InvalidDataError, match="no gaze samples"):
        read_input(empty, px_per_deg=40.0, participant="s")


# ---------------------------------------------------------------- columns, screen, InputFile


def test_a_user_table_is_told_to_map_its_columns_and_then_read(tmp_path):
    tab = pl.DataFrame({"subject": ["s1"] * 60, "trial": ["t1"] * 30 + ["t2"] * 30,
                        "timestamp": np.tile(np.arange(30) / 60.0, 2),
                        "gaze_x": np.linspace(1, 9, 60), "gaze_y": np.full(60, 5.0)})
    path = tmp_path / "study.csv"
    tab.write_csv(path)
    with pytest.raises(InvalidDataError, match="not the long format's.*map your columns with "
                                               "columns=participant="):
        read_input(path)
    cols = {"participant": "subject", "recording": "trial", "t": "timestamp", "x": "gaze_x",
            "y": "gaze_y"}
    ds = read_input(path, columns=cols)
    assert [(r.participant, r.recording, r.sampling_rate_hz) for r in ds] == \
        [("s1", "t1", 60.0), ("s1", "t2", 60.0)]
    assert len(read_input(tab, columns=cols)) == 2  # a table, as a file
    with pytest.raises(InvalidDataError, match="columns names 'time', not in the table"):
        read_input(path, columns={**cols, "t": "time"})
    with pytest.raises(InvalidParameterError, match="columns maps subject"):
        read_input(path, columns={"subject": "participant"})


def test_the_screen_in_physical_units_converts_pixels_by_atan(tmp_path):
    from gazeprivacy.data.geometry import ScreenSetup

    screen = ScreenSetup(width_cm=38.0, height_cm=30.0, distance_cm=68.0)
    ds = warned(read_eyelink, asc_file(tmp_path), screen=screen)[0]  # DISPLAY_COORDS: pixels
    g = ds[0].geometry
    assert (g.width_px, g.height_px) == (1280, 1024)
    assert g.x_max_deg == pytest.approx(np.degrees(np.arctan(19 / 68)), abs=0.05)
    assert abs(ds[0].x[0]) < 0.1  # the screen centre is 0 degrees
    tab = pl.DataFrame({"participant": "p", "recording": "r", "t": np.arange(20) / 500,
                        "x": np.full(20, 1280.0), "y": np.full(20, 512.0)})
    with pytest.raises(InvalidParameterError, match="size in pixels is unknown"):
        read_input(tab, screen=screen)
    ds = read_input(tab, screen=ScreenSetup(width_cm=38.0, height_cm=30.0, distance_cm=68.0,
                                            width_px=1280, height_px=1024))
    assert ds[0].x[0] == pytest.approx(ds[0].geometry.x_max_deg, abs=0.02)
    with pytest.raises(InvalidParameterError, match="without geometry and px_per_deg"):
        read_input(tab, screen=screen, px_per_deg=40.0)


def test_an_input_file_carries_its_reader_options(tmp_path):
    from gazeprivacy.data.readers import InputFile

    src = InputFile(asc_trials_file(tmp_path), eye="both", sampling_rate_hz=500)
    ds = warned(read_input, src, px_per_deg=40.0, participant="s")[0]
    assert len(ds) == 6 and ds.reading["rate_source"] == "declared"
    with pytest.raises(InvalidParameterError, match="eye is given twice"):
        read_input(src, px_per_deg=40.0, participant="s", eye="left")
