# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Round trips between gazeprivacy and pymovements.Gaze."""

from __future__ import annotations

import numpy as np
import polars as pl
import pymovements as pm
import pytest

from gazeprivacy.data import Dataset, Geometry, Recording
from gazeprivacy.data.pymovements_bridge import from_pymovements, to_pymovements
from gazeprivacy.exceptions import DataPolicyWarning, InvalidDataError, InvalidParameterError


def make_dataset(rng) -> Dataset:
    geo = Geometry.screen_px(width_px=1024, height_px=768, px_per_deg=60.0)
    recs = []
    for k, (pid, rate) in enumerate([("p1", 200.0), ("p1", 200.0), ("p2", 200.0)]):
        n = 300 + 50 * k
        x = rng.uniform(0, 17, n)
        y = rng.uniform(0, 12, n)
        x[10:15] = np.nan
        y[10:15] = np.nan
        recs.append(Recording.from_arrays(
            recording=f"{pid}-r{k}", participant=pid, x=x, y=y, sampling_rate_hz=rate,
            labels={"stimulus": f"img{k}", "task": "free"}, geometry=geo,
            pupil=rng.uniform(2, 5, n), channels={"head_yaw": rng.normal(size=n)}))
    return Dataset(tuple(recs), name="toy", info={"source": "test"})


def assert_same_recording(a: Recording, b: Recording) -> None:
    assert (a.recording, a.participant, a.sampling_rate_hz) == (b.recording, b.participant,
                                                                b.sampling_rate_hz)
    np.testing.assert_allclose(a.t, b.t, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(a.x, b.x)
    np.testing.assert_array_equal(a.y, b.y)
    np.testing.assert_array_equal(a.pupil, b.pupil)
    assert dict(a.labels) == dict(b.labels)
    assert a.geometry == b.geometry
    assert set(a.channels) == set(b.channels)
    for k in a.channels:
        np.testing.assert_array_equal(a.channels[k], b.channels[k])


def test_dataset_round_trip(rng):
    ds = make_dataset(rng)
    gaze = to_pymovements(ds)
    assert isinstance(gaze, pm.Gaze)
    assert gaze.trial_columns == ["participant", "recording"]
    assert gaze.experiment.sampling_rate == 200.0
    assert gaze.samples.height == ds.n_samples
    assert gaze.samples["position"].list.get(0).null_count() == 15  # NaN -> null, kept
    back = from_pymovements(gaze)
    assert isinstance(back, Dataset)
    assert back.name == "toy" and dict(back.info) == {"source": "test"}
    assert [r.recording for r in back] == [r.recording for r in ds]
    for a, b in zip(ds, back, strict=True):
        assert_same_recording(a, b)


def test_recording_round_trip_and_mixed_rates(rng):
    ds = make_dataset(rng)
    r = ds[0]
    back = from_pymovements(to_pymovements(r))
    assert isinstance(back, Recording)
    assert_same_recording(r, back)
    slow = Recording.from_arrays(recording="slow", participant="p3", x=np.zeros(50),
                                 y=np.zeros(50), sampling_rate_hz=50.0)
    mixed = Dataset((r, slow))
    gaze = to_pymovements(mixed)
    assert gaze.experiment is None  # no single rate for pymovements' experiment
    out = from_pymovements(gaze)
    assert [x.sampling_rate_hz for x in out] == [200.0, 50.0]
    with pytest.raises(InvalidDataError, match="has no recordings"):
        to_pymovements(Dataset(()))


def test_pymovements_can_process_the_gaze(rng):
    x = np.r_[np.zeros(100), np.linspace(1, 10, 5), np.full(100, 10.0)]
    r = Recording.from_arrays(recording="r", participant="p", x=x, y=np.zeros_like(x),
                              sampling_rate_hz=200)
    gaze = to_pymovements(r)
    gaze.pos2vel(method="preceding")
    gaze.detect("ivt", velocity_threshold=30.0, minimum_duration=195)
    fix = gaze.events.frame.filter(pl.col("name") == "fixation")
    # ms, inclusive offsets; pymovements' first "preceding" velocity is null, so it starts at 5
    assert fix.select("onset", "offset").rows() == [(5, 495), (525, 1020)]


def test_events_travel_in_pymovements_convention():
    x = np.r_[np.zeros(100), np.linspace(1, 10, 5), np.full(100, 10.0)]
    r = Recording.from_arrays(recording="r", participant="p", x=x, y=np.zeros_like(x),
                              sampling_rate_hz=200)
    ev = pl.DataFrame({"recording": ["r", "r", "r"], "name": ["fixation", "saccade", "fixation"],
                       "onset": [0, 100, 105], "offset": [100, 105, 205]})
    gaze = to_pymovements(r, events=ev)
    frame = gaze.events.frame
    assert frame.select("name", "onset", "offset").rows() == [
        ("fixation", 0, 495), ("saccade", 500, 520), ("fixation", 525, 1020)]
    gaze.pos2vel(method="preceding")
    gaze.compute_event_properties(["amplitude", "dispersion"])
    sac = gaze.events.frame.row(1, named=True)
    assert sac["amplitude"] == pytest.approx(9.0) and sac["dispersion"] == pytest.approx(9.0)
    bad = ev.with_columns(pl.lit(500).alias("offset"))
    with pytest.raises(InvalidDataError, match="is not inside a recording"):
        to_pymovements(r, events=bad)


def test_foreign_gaze_monocular_and_binocular():
    t = np.arange(6) * 4.0  # ms, 250 Hz
    pos = np.vstack([np.arange(6.0), np.ones(6)])
    gaze = pm.gaze.from_numpy(time=t, position=pos, experiment=pm.Experiment(sampling_rate=250))
    ds = from_pymovements(gaze, participant="p9", recording="trial1")
    assert isinstance(ds, Dataset) and len(ds) == 1
    r = ds[0]
    assert (r.recording, r.participant, r.sampling_rate_hz) == ("trial1", "p9", 250.0)
    np.testing.assert_allclose(r.t, t / 1000)
    np.testing.assert_array_equal(r.x, np.arange(6.0))

    bino = np.vstack([np.zeros(6), np.zeros(6), np.ones(6), np.full(6, 2.0)])
    gaze = pm.gaze.from_numpy(time=t, position=bino)
    right = from_pymovements(gaze, participant="p", eye="auto")[0]
    left = from_pymovements(gaze, participant="p", eye="left")[0]
    assert right.x[0] == 1.0 and right.y[0] == 2.0 and left.x[0] == 0.0
    assert right.sampling_rate_hz == 250.0  # inferred from the timestamps
    with pytest.raises(InvalidParameterError, match="eye='cyclopean' needs 6"):
        from_pymovements(gaze, participant="p", eye="cyclopean")
    with pytest.raises(InvalidParameterError, match="eye must be one of"):
        from_pymovements(gaze, participant="p", eye="both")


def test_foreign_gaze_pixels_are_converted():
    exp = pm.Experiment(1024, 768, 38.0, 30.0, 60.0, "upper left", sampling_rate=100)
    pix = np.vstack([np.full(5, 512.0), np.full(5, 384.0)])
    gaze = pm.gaze.from_numpy(time=np.arange(5) * 10.0, pixel=pix, experiment=exp)
    r = from_pymovements(gaze, participant="p")[0]
    ref = gaze.clone()
    ref.pix2deg()
    np.testing.assert_allclose(r.x, ref.samples["position"].list.get(0).to_numpy())
    no_pos = pm.gaze.from_numpy(time=np.arange(5) * 10.0, pixel=pix)
    with pytest.raises(InvalidDataError, match="no 'position' column"):
        from_pymovements(no_pos, participant="p")


def _subject_trial_gaze(participant_name: str = "subject_id", experiment=None):
    """Two subjects x two trials, the trial columns as a pymovements user writes them."""
    frames = []
    for subj in (1, 2):
        for trial in (1, 2):
            n = 50
            frames.append(pl.DataFrame({
                participant_name: [subj] * n, "trial": [trial] * n,
                "time": np.arange(n) * 2.0, "x": np.linspace(-2, 2, n),
                "y": np.linspace(1, -1, n)}))
    return pm.Gaze(samples=pl.concat(frames), experiment=experiment,
                   trial_columns=[participant_name, "trial"], time_column="time",
                   time_unit="ms", position_columns=["x", "y"])


@pytest.mark.parametrize("name", ["subject_id", "participant", "Subject", "participant_id"])
def test_a_subject_column_names_the_participant_never_the_trial(name):
    ds = from_pymovements(_subject_trial_gaze(name))
    assert len(ds) == 4
    assert [r.participant for r in ds] == ["1", "1", "2", "2"]  # not one per trial
    assert ds[1].labels["trial"] == "2"
    shape = {p: n for p, n in ds.units_per_participant(lambda r: 1).items()}
    assert shape == {"1": 2, "2": 2}


def test_participant_column_given_and_a_warning_when_there_is_none():
    gaze = _subject_trial_gaze("who")
    with pytest.warns(DataPolicyWarning, match="no participant column"):
        ds = from_pymovements(gaze)
    assert len({r.participant for r in ds}) == 4
    ds = from_pymovements(gaze, participant_column="who")
    assert [r.participant for r in ds] == ["1", "1", "2", "2"]
    with pytest.raises(InvalidParameterError, match="participant_column 'nope'"):
        from_pymovements(gaze, participant_column="nope")


def test_geometry_comes_from_the_experiment_screen():
    exp = pm.Experiment(screen_width_px=1280, screen_height_px=1024, screen_width_cm=38.0,
                        screen_height_cm=30.0, distance_cm=68.0, origin="upper left",
                        sampling_rate=500)
    ds = from_pymovements(_subject_trial_gaze(experiment=exp))
    geo = ds[0].geometry
    assert geo is not None and (geo.width_px, geo.height_px) == (1280, 1024)
    assert geo.x_min_deg == pytest.approx(exp.screen.x_min_dva)
    assert geo.y_max_deg == pytest.approx(exp.screen.y_max_dva)
    assert ds[0].sampling_rate_hz == 500
