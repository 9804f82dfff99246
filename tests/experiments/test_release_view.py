# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The runner's release view: attacks see the release as written, at a public length."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from evaluate_helpers import tiny_dataset
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.experiments.baselines import BASELINES
from gazeprivacy.experiments.config import ConfigError, parse_config
from gazeprivacy.experiments.engine import run_experiment
from gazeprivacy.experiments.release_view import (
    ReleaseView,
    attack_side,
    mask_rows_released,
    view_release,
)


def _uneven(n_participants: int = 4, n_stimuli: int = 4) -> Dataset:
    """tiny_dataset with participant i's recordings 300 + 40 i samples long (lengths identify)."""
    tiny = tiny_dataset(n_participants=n_participants, n_stimuli=n_stimuli, n_samples=440)
    recs = []
    for r in tiny.recordings:
        n = 300 + 40 * int(r.participant[1:])
        recs.append(Recording.from_arrays(
            recording=r.recording, participant=r.participant, x=r.x[:n], y=r.y[:n],
            t=r.t[:n] + 0.0004 * np.sin(np.arange(n)),  # a jittered raw clock
            sampling_rate_hz=r.sampling_rate_hz, labels=r.labels, geometry=r.geometry,
            pupil=np.ones(n)))
    return Dataset(tuple(recs), name="uneven")


def test_view_seals_and_fixes_lengths():
    ds = _uneven()
    seen = view_release(ds, ReleaseView(length_s=3.5))
    for r, v in zip(ds.recordings, seen.recordings, strict=True):
        assert v.n_samples == 350 and v.recording == r.recording
        np.testing.assert_allclose(v.t, np.arange(350) / r.sampling_rate_hz)  # public grid
        assert v.labels == {} and v.pupil is None and not v.channels
        # cut, or continued by repeating the release's own samples from its start
        np.testing.assert_array_equal(v.x, np.resize(r.x, 350))
    same = view_release(ds, ReleaseView())  # sealed, lengths kept
    assert [r.n_samples for r in same] == [r.n_samples for r in ds]
    assert all(np.array_equal(v.x, r.x) for v, r in zip(same, ds, strict=True))
    kept = view_release(ds, ReleaseView(sealed=False, length_s=3.5))
    assert kept.recordings[0].labels == ds.recordings[0].labels
    assert kept.recordings[0].pupil.shape == (350,)


def test_mask_rows_are_counted_and_noted():
    ds = _uneven(2, 2)
    gap = ds.map(lambda r: r.with_gaze(np.where(np.arange(r.n_samples) < 5, np.nan, r.x),
                                       np.where(np.arange(r.n_samples) < 5, np.nan, r.y)))
    mask = BASELINES["baseline-centre-mask"].release(gap, rng=np.random.default_rng(0))
    assert mask_rows_released(mask, gap) == 5 * len(gap)
    centre = BASELINES["baseline-centre"].release(gap, rng=np.random.default_rng(0))
    assert mask_rows_released(centre, gap) == 0
    notes: list[str] = []
    seen, events = attack_side(ReleaseView(), gap, mask, None, lambda d: pl.DataFrame(), notes,
                               needs_events=False)
    assert events is None and len(seen) == len(mask)
    assert len(notes) == 1 and "public=['mask']" in notes[0]
    same = attack_side(None, gap, mask, None, lambda d: pl.DataFrame(), notes,
                       needs_events=True)
    assert same[0] is mask and len(notes) == 1  # no view: unchanged, no note


def test_config_key_and_errors():
    base = {"name": "t", "seeds": [0], "datasets": [{"name": "d", "source": "injected"}]}
    assert parse_config(base).release_view is None
    cfg = parse_config({**base, "release_view": {"length_s": 5}})
    assert cfg.release_view == ReleaseView(sealed=True, length_s=5)
    for bad in ({"length_s": 0}, {"length_s": "5"}, {"sealed": "yes"}, {"colour": 1}):
        with pytest.raises(ConfigError):
            parse_config({**base, "release_view": bad})


def _length_featurizer(dataset: Dataset) -> pl.DataFrame:
    """One 'fixation' per recording, as long as the recording (what I-VT gives a constant
    path) and its mean step (0 for a constant path)."""
    return pl.DataFrame([{"recording": r.recording, "participant": r.participant,
                          "name": "fixation", "onset": 0, "duration_s": r.n_samples
                          / r.sampling_rate_hz} for r in dataset.recordings])


@pytest.mark.parametrize("view", [None, {"length_s": 3.0}])
def test_runner_view_removes_the_length_leak_of_the_centre(tmp_path, view):
    # the gaze-free centre baseline: its recording lengths identify every participant on the
    # in-memory release; with a public length every unit looks the same, so the forest gives
    # one answer for every probe: exactly 1 / participants
    ds = _uneven()
    cfg = {"name": "t", "seeds": [0], "datasets": [{"name": "u", "source": "injected",
                                                     "group_label": "stimulus"}],
           "attacks": [{"kind": "aware-rf", "n_splits": 3}],
           "baselines": ["baseline-centre"], "include_raw": False}
    if view is not None:
        cfg["release_view"] = view
    res = run_experiment(parse_config(cfg), tmp_path, datasets={"u": ds},
                         featurizer=_length_featurizer, workers=1, registry={})
    rate = res.results.filter(pl.col("metric") == "identification_rate")["value"].item()
    assert rate == (1.0 if view is None else 0.25)


def test_runner_on_a_release_written_at_its_own_length(tmp_path):
    # participant-level DPGazeSynth with output_length_s writes every recording at 3 s (300 rows
    # at 100 Hz) while the input's are 300-440 rows: the view at the same length leaves that
    # release as written (and cuts / repeats the baseline's); RMSE and suppressed_fraction need
    # equal lengths and are skipped with a note, density error (pooled densities) is computed
    ds = _uneven()
    cfg = {"name": "t", "seeds": [0], "include_raw": False,
           "datasets": [{"name": "u", "source": "injected", "group_label": "stimulus"}],
           "mechanisms": [{"name": "dpgazesynth", "preset": "params", "grid": {"epsilon": [3.0]},
                           "fixed": {"grid_size": 10, "unit": "participant",
                                     "windows_per_participant": 2, "missing": "fill",
                                     "output_length_s": 3.0}}],
           "attacks": [{"kind": "aware-rf", "n_splits": 2}],
           "fidelity": ["rmse", "density_error", "suppressed_fraction"],
           "baselines": ["baseline-centre"], "release_view": {"length_s": 3.0}}
    res = run_experiment(parse_config(cfg), tmp_path, datasets={"u": ds},
                         featurizer=_length_featurizer, workers=1)
    fid = res.results.filter(pl.col("kind") == "fidelity")
    dpg = fid.filter(pl.col("mechanism") == "dpgazesynth")
    assert set(dpg["metric"]) == {"density_error", "density_error_se"}
    assert 0.0 < dpg.filter(pl.col("metric") == "density_error")["value"].item() < 1.0
    base = fid.filter(pl.col("mechanism") == "baseline-centre")
    assert {"rmse", "density_error", "suppressed_fraction"} <= set(base["metric"])
    assert any("fidelity rmse skipped" in n and "rows" in n for n in res.notes)
    # the centre is cut / repeated to the public length: its length leak is gone (1 / 4)
    rates = res.results.filter(pl.col("metric") == "identification_rate")
    assert rates.filter(pl.col("mechanism") == "baseline-centre")["value"].item() == 0.25
    assert 0.0 <= rates.filter(pl.col("mechanism") == "dpgazesynth")["value"].item() <= 1.0


def test_view_at_the_written_length_is_a_no_op_on_the_gaze():
    # a release already written at round(L x rate) rows (output_length_s = L) is shown to the
    # attacks as written: only the clock becomes the public grid
    ds = tiny_dataset(n_participants=2, n_stimuli=2, n_samples=300)  # 3 s at 100 Hz
    seen = view_release(ds, ReleaseView(length_s=3.0))
    for r, v in zip(ds.recordings, seen.recordings, strict=True):
        assert v.n_samples == r.n_samples == 300
        np.testing.assert_array_equal(v.x, r.x)
        np.testing.assert_array_equal(v.y, r.y)


def test_preview_of_a_release_at_its_own_length():
    # the report's path preview pairs raw and release sample by sample: with a release shorter
    # than its input (output_length_s) both are cut to the common prefix, so they broadcast
    from gazeprivacy.experiments.engine import _preview

    raw = tiny_dataset(n_participants=2, n_stimuli=1, n_samples=440)
    short = raw.map(lambda r: Recording.from_arrays(
        recording=r.recording, participant=r.participant, x=r.x[:300] + 1.0, y=r.y[:300],
        sampling_rate_hz=r.sampling_rate_hz, geometry=r.geometry))
    out = _preview(raw, short)
    assert out["x"].shape == out["px"].shape == (300,)
    np.testing.assert_allclose(out["px"] - out["x"], 1.0)
    assert _preview(raw, raw)["x"].shape == (440,)
