# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The 52 window features: event detection, vectorised aggregation, tables, MPIIDPEye."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from gazeprivacy.data.recording import Recording
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.features.ranges import default_ranges, ranges_array
from gazeprivacy.features.window_features import (
    FEATURE_NAMES,
    FeatureSeries,
    WindowFeatureParams,
    _saccade_letters,
    detect_events,
    feature_table,
    load_mpiidpeye_features,
    recording_features,
    series_from_table,
    window_features,
)

P = WindowFeatureParams.mpiidpeye(velocity_threshold=0.15, large_saccade_amplitude=0.03)


def _reading(rng: np.random.Generator, seconds: float = 70.0, hz: float = 30.0):
    """Synthetic reading-like pupil trace: fixations with jitter, jumps, invalid runs."""
    n = int(seconds * hz)
    t = np.arange(n) / hz
    x = np.empty(n)
    y = np.empty(n)
    px, py, i = 0.4, 0.4, 0
    while i < n:
        dur = int(rng.integers(4, 12))
        x[i:i + dur] = px + rng.normal(0, 0.0005, min(dur, n - i))
        y[i:i + dur] = py + rng.normal(0, 0.0005, min(dur, n - i))
        i += dur
        px = float(np.clip(px + rng.choice([-1, 1]) * rng.uniform(0.01, 0.06), 0.1, 0.9))
        py = float(np.clip(py + rng.normal(0, 0.01), 0.1, 0.9))
    valid = np.ones(n, bool)
    for s in rng.integers(0, n - 20, 12):
        valid[s:s + int(rng.integers(2, 15))] = False
    pupil = 70 + rng.normal(0, 1, n)
    return t, x, y, valid, pupil


def test_step_gives_one_saccade_two_fixations() -> None:
    t = np.arange(60) / 30.0
    x = np.where(t < 1.0, 0.30, 0.40)
    ev = detect_events(t, x, np.zeros(60), np.ones(60, bool), None, P)
    assert ev["sac_amplitude"].tolist() == pytest.approx([0.1])
    assert ev["sac_dx"][0] > 0
    assert ev["fix_duration"].tolist() == pytest.approx([1.0, 1.0])


def test_blinks_are_invalid_runs_of_blink_duration() -> None:
    t = np.arange(300) / 30.0
    valid = np.ones(300, bool)
    valid[30:36] = False     # 0.2 s: a blink
    valid[100:160] = False   # 2 s: tracking loss, not a blink
    valid[200:201] = False   # one sample: below blink_min_s
    ev = detect_events(t, np.full(300, 0.5), np.full(300, 0.5), valid, None, P)
    assert ev["blink_duration"].tolist() == pytest.approx([0.2])
    assert ev["blink_onset"].tolist() == pytest.approx([1.0])


def test_vectorised_windows_equal_brute_force() -> None:
    rng = np.random.default_rng(3)
    t, x, y, valid, pupil = _reading(rng)
    p = replace(P, window_s=10.0, step_s=2.5)
    starts, values = window_features(t, x, y, valid, pupil, p)
    ev = detect_events(t, x, y, valid, pupil, p)
    n_expected = int(np.floor((t[-1] + 1 / 30 - t[0] - 10.0) / 2.5 + 1e-9)) + 1
    assert values.shape == (n_expected, 52)
    letters = _saccade_letters(ev["sac_dx"], ev["sac_dy"], ev["sac_amplitude"] > 0.03)
    for j in (0, 3, n_expected - 1):
        lo, hi = starts[j], starts[j] + 10.0
        fs = (ev["fix_onset"] >= lo) & (ev["fix_onset"] < hi)
        ss = (ev["sac_onset"] >= lo) & (ev["sac_onset"] < hi)
        row = dict(zip(FEATURE_NAMES, values[j], strict=True))
        assert row["rate_fixations"] == pytest.approx(fs.sum() / 10.0)
        assert row["rate_saccades"] == pytest.approx(ss.sum() / 10.0)
        assert row["mean_fixation_duration"] == pytest.approx(ev["fix_duration"][fs].mean())
        assert row["var_fixation_duration"] == pytest.approx(ev["fix_duration"][fs].var(),
                                                             abs=1e-12)
        assert row["max_saccade_amplitude"] == pytest.approx(ev["sac_amplitude"][ss].max())
        assert row["mean_var_x"] == pytest.approx(ev["fix_var_x"][fs].mean(), abs=1e-15)
        assert row["var_mean_diameter_fix"] == pytest.approx(ev["fix_mean_d"][fs].var(),
                                                             rel=1e-6, abs=1e-9)
        lw = letters[ss]
        for n in (1, 2):
            words = [tuple(lw[i:i + n]) for i in range(len(lw) - n + 1)]
            _, counts = np.unique(np.array(words), axis=0, return_counts=True)
            vocab = 16**n
            full = np.concatenate([counts, np.zeros(vocab - counts.size)])
            assert row[f"nonzero_wb{n}"] == counts.size
            assert row[f"max_wb{n}"] == counts.max()
            assert row[f"mean_wb{n}"] == pytest.approx(full.mean())
            assert row[f"var_wb{n}"] == pytest.approx(full.var())


def test_short_recording_is_refused_with_a_way_out() -> None:
    t = np.arange(30) / 30.0
    with pytest.raises(InvalidDataError, match="shorter than one window"):
        window_features(t, t, t, np.ones(30, bool), None, P)


def test_params_validate() -> None:
    with pytest.raises(InvalidParameterError, match="velocity_threshold must be > 0"):
        WindowFeatureParams(velocity_threshold=0.0, large_saccade_amplitude=1.0)
    with pytest.raises(InvalidParameterError, match="blink_min_s must be < blink_max_s"):
        WindowFeatureParams.degrees(blink_min_s=1.0, blink_max_s=0.5)


def test_recording_features_and_table_round_trip() -> None:
    rng = np.random.default_rng(4)
    t, x, y, valid, pupil = _reading(rng, seconds=40.0)
    x = np.where(valid, x * 20, np.nan)  # "degrees"
    y = np.where(valid, y * 20, np.nan)
    rec = Recording.from_arrays(recording="r1", participant="p1", t=t, x=x, y=y, pupil=pupil,
                                labels={"document": "comic"})
    fs = recording_features(rec, WindowFeatureParams.degrees())
    assert fs.n_windows == 21 and fs.labels == {"document": "comic"}
    back = series_from_table(feature_table([fs, fs.with_values(fs.values)]).with_columns())
    assert len(back) == 1  # same recording id twice -> grouped into one (ids must be unique)
    back = series_from_table(feature_table([fs]))[0]
    np.testing.assert_array_equal(back.values, fs.values)
    assert back.feature_names == FEATURE_NAMES and back.labels == fs.labels


def test_feature_series_rejects_bad_shape() -> None:
    with pytest.raises(InvalidDataError, match="values must be"):
        FeatureSeries(recording="r", participant="p", t_start=np.arange(3.0),
                      values=np.zeros((3, 5)))


def test_default_ranges_cover_all_features() -> None:
    r = default_ranges(P)
    lo, hi = ranges_array(r, FEATURE_NAMES)
    assert np.all(hi > lo) and lo.shape == (52,)
    with pytest.raises(InvalidParameterError, match="no declared range for feature"):
        ranges_array(r, ["nope"])


@pytest.mark.realdata
@pytest.mark.slow
def test_mpiidpeye_features(data_dir, tmp_path) -> None:
    series = load_mpiidpeye_features(data_dir / "mpiidpeye", cache_dir=tmp_path)
    assert len(series) == 60 and len({s.participant for s in series}) == 20
    assert {s.labels["document"] for s in series} == {"comic", "newspaper", "textbook"}
    total = sum(s.n_windows for s in series)
    assert 60_000 < total < 100_000
    allv = np.concatenate([s.values for s in series])
    assert np.isfinite(allv).all()
    # fixation rates of reading at 30 Hz: between 1 and 5 per second on average
    assert 1.0 < allv[:, 0].mean() < 5.0
    again = load_mpiidpeye_features(data_dir / "mpiidpeye", cache_dir=tmp_path)  # from cache
    np.testing.assert_array_equal(again[7].values, series[7].values)
