# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Bad-input policies of the data model (SPEC section 1, issue 2 point 9)."""

from __future__ import annotations

import numpy as np
import pytest

from gazeprivacy.data import Dataset, Geometry, Recording, direction_to_angles_deg
from gazeprivacy.exceptions import DataPolicyWarning, InvalidDataError, InvalidParameterError


def rec(**kw):
    base = dict(recording="r1", participant="p1", x=[1.0, 2.0, 3.0], y=[0.0, 0.5, 1.0],
                t=[0.0, 0.01, 0.02])
    base.update(kw)
    return Recording.from_arrays(**base)


def test_sampling_rate_inferred_and_arrays_read_only():
    r = rec()
    assert r.sampling_rate_hz == pytest.approx(100.0)
    with pytest.raises(ValueError):
        r.x[0] = 5.0


def test_nan_rows_are_kept_as_missing_samples():
    r = rec(x=[1.0, np.nan, 3.0], y=[0.0, np.nan, 1.0])
    assert r.n_samples == 3
    assert r.missing.tolist() == [False, True, False]


def test_half_missing_row_becomes_fully_missing_with_warning():
    with pytest.warns(DataPolicyWarning, match="1 rows had only one of x/y missing"):
        r = rec(x=[1.0, np.nan, 3.0], y=[0.0, 0.5, 1.0])
    assert np.isnan(r.y[1]) and r.n_samples == 3


@pytest.mark.parametrize(("t", "match"), [
    pytest.param([0.0, 0.01, 0.01], r"row 2 \(t=0.01\) duplicates row 1", id="duplicate"),
    pytest.param([0.0, 0.02, 0.01], r"row 2 \(t=0.01\) goes back from row 1", id="non_monotonic"),
    pytest.param([0.0, np.nan, 0.02], r"timestamp at row 1 is nan", id="nan_timestamp"),
])
def test_bad_timestamps_name_recording_and_row(t, match):
    with pytest.raises(InvalidDataError, match=match) as info:
        rec(t=t)
    assert "recording 'r1'" in str(info.value)


def test_empty_recording_is_refused():
    with pytest.raises(InvalidDataError, match="recording 'r1' has no samples"):
        rec(x=[], y=[], t=[])


def test_one_sample_recording_needs_a_rate():
    with pytest.raises(InvalidDataError, match="has one sample: its sampling_rate_hz"):
        rec(x=[1.0], y=[1.0], t=[0.0])
    r = rec(x=[1.0], y=[1.0], t=[0.0], sampling_rate_hz=60.0)
    assert r.n_samples == 1 and r.duration_s == pytest.approx(1 / 60)


def test_milliseconds_passed_as_seconds_is_refused_and_ms_unit_converts():
    with pytest.raises(InvalidDataError, match="probably in milliseconds: pass time_unit='ms'"):
        rec(t=[0.0, 5.0, 10.0])
    assert rec(t=[0.0, 5.0, 10.0], time_unit="ms").sampling_rate_hz == pytest.approx(200.0)


def test_a_unit_too_fine_is_refused_too():
    """Seconds read as milliseconds make a 200 Hz recording 200 kHz: faster than any eye
    tracker (MAX_RATE_HZ), refused with the coarser unit named, not released with every
    duration 1000 times too short."""
    with pytest.raises(InvalidDataError, match="faster than any eye tracker .*probably in "
                                               "seconds: pass time_unit='s'"):
        rec(t=[0.0, 0.005, 0.010], time_unit="ms")
    with pytest.raises(InvalidDataError, match="probably in milliseconds: pass time_unit='ms'"):
        rec(t=[0.0, 5.0, 10.0], time_unit="ns")
    assert rec(t=[0.0, 1e-4, 2e-4]).sampling_rate_hz == pytest.approx(10_000.0)  # the limit


def test_declared_rate_must_match_timestamps():
    with pytest.raises(InvalidDataError, match="sampling_rate_hz=250 but the timestamps say 100"):
        rec(sampling_rate_hz=250)


def test_pixels_passed_as_degrees_is_refused():
    with pytest.raises(InvalidDataError, match="x at row 1 is 1024, beyond 360 degrees"):
        rec(x=[10.0, 1024.0, 5.0])


def test_infinite_gaze_is_refused():
    with pytest.raises(InvalidDataError, match="y at row 0 is infinite"):
        rec(y=[np.inf, 0.0, 0.0])


def test_mismatched_lengths_are_refused():
    with pytest.raises(InvalidDataError, match="column 'y' has 2 rows, t has 3"):
        rec(y=[0.0, 1.0])


def test_off_screen_points_are_kept_and_clampable():
    g = Geometry.screen_px(width_px=600, height_px=600, px_per_deg=60)
    r = rec(x=[-1.0, 5.0, 12.0], geometry=g)
    assert r.x.tolist() == [-1.0, 5.0, 12.0]
    assert g.contains(r.x, r.y).tolist() == [False, True, False]
    cx, _ = g.clamp(r.x, r.y)
    assert cx.tolist() == [0.0, 5.0, 10.0]


def test_unknown_label_lists_the_labels():
    r = rec(labels={"task": "reading"})
    with pytest.raises(InvalidParameterError, match="has no label 'gender'; it has: task"):
        r.label("gender")


def test_mixed_sampling_rates_are_legal_until_one_rate_is_needed():
    a = rec()
    b = rec(recording="r2", t=[0.0, 0.005, 0.01])
    ds = Dataset((a, b), name="mixed")
    assert len(ds) == 2
    with pytest.raises(InvalidDataError, match=r"mixes sampling rates \[100.0, 200.0\]"):
        _ = ds.sampling_rate_hz


def test_duplicate_recording_ids_are_refused():
    with pytest.raises(InvalidDataError, match="recording id 'r1' appears twice"):
        Dataset((rec(), rec()))


def test_with_gaze_keeps_rows_and_refuses_other_lengths():
    r = rec(labels={"task": "x"})
    r2 = r.with_gaze(r.x + 1, r.y)
    assert r2.labels == r.labels and np.array_equal(r2.t, r.t)
    with pytest.raises(InvalidDataError, match="new gaze has 2 rows, expected 3"):
        r.with_gaze(r.x[:2], r.y[:2])


def test_units_per_participant_sums_over_recordings():
    ds = Dataset((rec(), rec(recording="r2"), rec(recording="r3", participant="p2")))
    assert ds.units_per_participant(lambda r: r.n_samples) == {"p1": 6, "p2": 3}


def test_vr_direction_vectors_to_angles():
    v = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 1.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    h, vert = direction_to_angles_deg(v)
    np.testing.assert_allclose(h[:3], [0.0, 0.0, -90.0])
    np.testing.assert_allclose(vert[:3], [0.0, 45.0, 0.0])
    assert np.isnan(h[3]) and np.isnan(vert[3])


def test_geometry_refuses_empty_region():
    with pytest.raises(InvalidParameterError, match="x_max_deg > x_min_deg"):
        Geometry(x_min_deg=1, x_max_deg=1, y_min_deg=0, y_max_deg=1)
