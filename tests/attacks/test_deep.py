# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The EKYT-style deep re-identification attacker (gazeprivacy.attacks.deep)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

pytest.importorskip("torch")

from gazeprivacy.attacks.deep import (
    _channel_stats,
    _embed,
    deep_reidentification,
    velocity_channels,
)
from gazeprivacy.attacks.splits import recording_index
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError

N_PEOPLE = 6
BUDGET = {"window_s": 2.0, "epochs": 8, "n_splits": 2}


@pytest.fixture(scope="module")
def sim():
    # 6 people x 6 free-viewing sessions of 8 s at 100 Hz (fixed seed): 42 windows per person
    return simulate_dataset(n_participants=N_PEOPLE, tasks=("free-viewing",),
                            recordings_per_task=6, duration_s=8.0, sampling_rate_hz=100,
                            rng=np.random.default_rng(0))


@pytest.fixture(scope="module")
def raw_result(sim):
    idx = recording_index(sim, group_label=None)
    return deep_reidentification(sim, sim, idx, rng=np.random.default_rng(1), **BUDGET)


def _noise(ds, seed):
    """A data-free release: every sample uniform on the screen, independent of the person."""
    rng = np.random.default_rng(seed)

    def one(r):
        g = r.geometry
        return r.with_gaze(rng.uniform(g.x_min_deg, g.x_max_deg, r.n_samples),
                           rng.uniform(g.y_min_deg, g.y_max_deg, r.n_samples))

    return ds.map(one)


def test_velocity_is_clipped_and_keeps_gaps(sim):
    r = sim.recordings[0]
    x = r.x.copy()
    x[100:110] = np.nan
    x[300:] += 100.0  # a 100 deg step: about 2100 deg/s after the 7-sample filter
    v = velocity_channels(r.with_gaze(x, np.where(np.isnan(x), np.nan, r.y)))
    assert v.shape == (2, r.n_samples)
    assert np.isnan(v[:, 100:110]).all() and np.isfinite(v[:, :100]).all()
    assert np.nanmax(np.abs(v)) == pytest.approx(1000.0)


def test_velocity_of_a_still_channel_is_exactly_zero_on_every_machine(sim):
    """A constant channel has velocity 0.0 (not +-1e-15, not -0.0): the weights are exact, not
    a least-squares solve whose last bits depend on the CPU's BLAS kernel (on some machines
    that made a still release's spread 1e-16 deg/s and its z-scores 1e23)."""
    r = sim.recordings[0]
    v = velocity_channels(r.with_gaze(np.full(r.n_samples, -7.3), np.full(r.n_samples, 4.1)))
    assert (v == 0.0).all() and not np.signbit(v).any()


def test_rounding_level_spread_is_no_scale():
    x = np.zeros((4, 2, 10))
    x[:, 0] = np.linspace(0, 1e-14, 10)  # rounding, not movement
    x[:, 1] = np.linspace(0, 5.0, 10)
    _, std = _channel_stats(x)
    assert std[0] == 1.0 and std[1] == pytest.approx(np.std(np.linspace(0, 5.0, 10)))


def test_huge_embeddings_normalise_without_overflow():
    """A float32 embedding of 1e22 (whose square overflows float32) or inf is still a unit
    vector, with no overflow warning (pytest turns warnings into errors)."""
    big = np.array([[3e22, 4e22], [np.inf, 0.0], [0.0, 0.0]], dtype=np.float32)
    e = _embed(lambda t: t, big)
    assert np.allclose(e[0], [0.6, 0.8]) and np.allclose(e[1], [1.0, 0.0])
    assert (e[2] == 0).all()


def test_deep_attacker_reidentifies_raw_data_well_above_chance(raw_result):
    """Raw simulated data, same people on both sides (sessions split): unit accuracy more than
    4 binomial standard errors above chance over all probes (observed 0.58 on 24 probes,
    chance 1/6, bound 0.47; per participant 0.83)."""
    p = raw_result.chance
    assert p == pytest.approx(1 / N_PEOPLE)
    assert raw_result.unit == "recording"
    assert raw_result.unit_accuracy > p + 4 * np.sqrt(p * (1 - p) / raw_result.n_probes)
    assert raw_result.identification_rate > raw_result.unit_accuracy - 0.1
    assert raw_result.epochs_run == BUDGET["epochs"] and not raw_result.stopped_by_time
    assert set(raw_result.metrics()) >= {"identification_rate", "unit_accuracy", "chance"}


def test_same_seed_same_result(sim, raw_result):
    idx = recording_index(sim, group_label=None)
    again = deep_reidentification(sim, sim, idx, rng=np.random.default_rng(1), **BUDGET)
    assert again == raw_result  # every score and count, bit for bit


def test_data_free_release_is_near_chance(sim):
    """Trained and probed on uniform noise (the aware mode on a release with no participant
    data): unit accuracy within 4 binomial standard errors of chance, over all probes."""
    noise = _noise(sim, seed=2)
    idx = recording_index(sim, group_label=None)
    res = deep_reidentification(noise, noise, idx, rng=np.random.default_rng(3), **BUDGET)
    p = res.chance
    se = np.sqrt(p * (1 - p) / res.n_probes)
    assert abs(res.unit_accuracy - p) <= 4 * se, (res.unit_accuracy, p, res.n_probes)


def test_too_short_recordings_raise_a_named_error():
    short = simulate_dataset(n_participants=3, tasks=("free-viewing",), recordings_per_task=3,
                             duration_s=1.0, sampling_rate_hz=60, rng=np.random.default_rng(4))
    idx = recording_index(short, group_label=None)
    with pytest.raises(InvalidDataError, match="not enough windows.*shorter window_s"):
        deep_reidentification(short, short, idx, rng=np.random.default_rng(0), window_s=2.0,
                              epochs=1, n_splits=1)
    with pytest.raises(InvalidParameterError, match="epochs must be an integer >= 1"):
        deep_reidentification(short, short, idx, rng=np.random.default_rng(0), epochs=0)


def test_runner_reports_the_deep_attack_and_the_verdict_can_pick_it(tmp_path):
    from evaluate_helpers import fake_featurizer, tiny_dataset
    from gazeprivacy.experiments.config import parse_config
    from gazeprivacy.experiments.engine import run_experiment
    from gazeprivacy.report.verdict import strongest_attacks

    tiny = tiny_dataset(n_participants=4, n_stimuli=4, n_samples=400)
    cfg = parse_config({
        "name": "t", "seeds": [0], "datasets": [{"name": "tiny", "source": "injected"}],
        "mechanisms": [], "attacks": [{"kind": "deep", "n_splits": 1, "epochs": 2,
                                       "window_s": 1.0, "max_windows": 64}]})
    assert cfg.attacks[0].id == "reid:deep:seed004"
    res = run_experiment(cfg, tmp_path, registry={}, datasets={"tiny": tiny},
                         featurizer=fake_featurizer, workers=1)
    deep = res.results.filter(pl.col("evaluation") == "reid:deep:seed004")
    vals = dict(zip(deep["metric"], deep["value"], strict=True))
    assert vals["chance"] == pytest.approx(0.25) and 0.0 <= vals["identification_rate"] <= 1.0
    # the verdict ranks every privacy evaluation with a chance level: a deep attack that is the
    # strongest is the one reported
    weak = deep.with_columns(pl.lit("reid:weak:seed000").alias("evaluation"),
                             pl.when(pl.col("metric") == "chance").then(pl.col("value"))
                             .otherwise(0.0).alias("value"))
    strong = deep.with_columns(pl.when(pl.col("metric") == "chance").then(pl.col("value"))
                               .when(pl.col("metric").str.ends_with("_se")).then(0.0)
                               .otherwise(1.0).alias("value"))
    top = strongest_attacks(pl.concat([weak, strong]))
    assert top["evaluation"].to_list() == ["reid:deep:seed004"]


def test_time_budget_stops_training_after_the_first_epoch():
    from evaluate_helpers import tiny_dataset

    tiny = tiny_dataset(n_participants=3, n_stimuli=4, n_samples=300)
    idx = recording_index(tiny, group_label="stimulus")
    res = deep_reidentification(tiny, tiny, idx, rng=np.random.default_rng(0), n_splits=1,
                                window_s=1.0, epochs=5, time_budget_s=1e-6)
    assert res.epochs_run == 1 and res.stopped_by_time


def test_config_defaults_and_checks_of_the_deep_attack():
    from gazeprivacy.experiments.config import ConfigError, parse_config

    base = {"name": "t", "seeds": [0], "datasets": [{"name": "d", "source": "injected"}]}
    deep, link = parse_config({**base, "attacks": [
        {"kind": "deep", "threat": "seed000", "segment_s": 5},
        {"kind": "linkage", "k": 2, "quasi_identifiers": ["gender"]}]}).attacks
    assert (deep.id, deep.window_s, deep.epochs) == ("reid:deep:seg5s:seed000", 2.0, 30)
    assert link.window_s == 10.0  # the linkage default is unchanged
    with pytest.raises(ConfigError, match="epochs must be an integer >= 1, got 0"):
        parse_config({**base, "attacks": [{"kind": "deep", "epochs": 0}]})
    with pytest.raises(ConfigError, match="max_windows must be an integer >= 2"):
        parse_config({**base, "attacks": [{"kind": "deep", "max_windows": 1}]})


def test_a_release_that_is_all_missing_or_constant_is_at_chance_without_warnings(sim):
    import warnings

    def blank(r):
        return r.with_gaze(np.full(r.n_samples, np.nan), np.full(r.n_samples, np.nan))

    idx = recording_index(sim, group_label=None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = deep_reidentification(sim.map(blank), sim.map(blank), idx,
                                    rng=np.random.default_rng(0), window_s=2.0, epochs=1,
                                    n_splits=1)
    # every window is the same (all zero after normalisation): one class wins every probe
    assert res.unit_accuracy == pytest.approx(res.chance, abs=0.1)
