# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Data-free baselines and the mechanism-aware attack in the runner."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from evaluate_helpers import fake_featurizer, fake_registry, tiny_dataset
from gazeprivacy.experiments.baselines import BASELINES, DEFAULT_BASELINES
from gazeprivacy.experiments.config import ConfigError, parse_config
from gazeprivacy.experiments.engine import run_experiment


@pytest.fixture(scope="module")
def tiny():
    return tiny_dataset(n_participants=4, n_stimuli=4, n_samples=300)


def test_baselines_read_no_participant_data(tiny):
    # a copy with other gaze, a missing-sample mask and a pupil channel gives the same release
    def alter(r):
        gap = np.arange(r.n_samples) % 7 == 0
        return r.with_gaze(np.where(gap, np.nan, r.x[::-1]), np.where(gap, np.nan, r.y[::-1]),
                           pupil=np.ones(r.n_samples))

    other = tiny.map(alter)
    for b in BASELINES.values():
        if "missing-sample mask" in b.keeps:  # baseline-centre-mask: tested below
            continue
        a = b.release(tiny, rng=np.random.default_rng(5))
        c = b.release(other, rng=np.random.default_rng(5))
        for ra, rc, raw in zip(a, c, tiny, strict=True):
            np.testing.assert_array_equal(ra.x, rc.x)
            assert ra.recording == raw.recording and ra.n_samples == raw.n_samples
            np.testing.assert_array_equal(ra.t, raw.t)
            assert ra.pupil is None and not ra.channels
    geo = tiny.recordings[0].geometry
    centre = BASELINES["baseline-centre"].release(tiny, rng=np.random.default_rng(0))
    assert np.all(centre.recordings[0].x == 15.0) and np.all(centre.recordings[0].y == 10.0)
    uni = BASELINES["baseline-uniform"].release(tiny, rng=np.random.default_rng(0))
    xs = np.concatenate([r.x for r in uni])
    assert geo.contains(xs, np.concatenate([r.y for r in uni])).all()
    assert abs(xs.mean() - 15.0) < 4 * 30 / np.sqrt(12 * xs.size)  # uniform mean, 4 SE


def test_structure_baselines(tiny):
    # baseline-centre-mask: the centre, NaN exactly where the input is missing (and says so)
    def holes(r):
        gone = np.arange(r.n_samples) % 9 == 0
        return r.with_gaze(np.where(gone, np.nan, r.x), np.where(gone, np.nan, r.y))

    gap = tiny.map(holes)
    b = BASELINES["baseline-centre-mask"]
    assert "missing-sample mask" in b.keeps
    assert all("missing-sample mask" not in o.keeps for n, o in BASELINES.items() if o is not b)
    out = b.release(gap, rng=np.random.default_rng(0))
    for r, raw in zip(out, gap, strict=True):
        np.testing.assert_array_equal(r.missing, raw.missing)
        assert np.all(r.x[~r.missing] == 15.0)
    # baseline-prior-chunks: fresh traits every 5 s, so two chunks of one recording differ in
    # their traits; the release keeps the length and stays on / near the screen
    long = tiny_dataset(n_participants=1, n_stimuli=1, n_samples=2000)  # 20 s at 100 Hz
    pc = BASELINES["baseline-prior-chunks"].release(long, rng=np.random.default_rng(3))
    r = pc.recordings[0]
    assert r.n_samples == 2000 and np.isfinite(r.x).mean() > 0.5
    one = BASELINES["baseline-prior"].release(long, rng=np.random.default_rng(3)).recordings[0]
    assert not np.array_equal(np.nan_to_num(one.x), np.nan_to_num(r.x))


def test_baseline_config_keys():
    base = {"name": "t", "seeds": [0], "datasets": [{"name": "d", "source": "injected"}]}
    assert parse_config({**base, "baselines": True}).baselines == DEFAULT_BASELINES
    with pytest.raises(ConfigError, match="not a data-free baseline"):
        parse_config({**base, "baselines": ["baseline-mean"]})
    with pytest.raises(ConfigError, match="reserved"):
        parse_config({**base, "mechanisms": [{"name": "x", "label": "baseline-x",
                                              "grid": {"epsilon": [1]}}]})
    a = parse_config({**base, "attacks": [{"kind": "aware-rf"}]}).attacks[0]
    assert (a.threat, a.classifier, a.id) == ("seed004", "rf", "reid:aware-rf:seed004")


def test_runner_runs_baselines_and_flags_mechanisms(tmp_path, tiny):
    cfg = parse_config({
        "name": "t", "seeds": [0, 1], "datasets": [{"name": "tiny", "source": "injected"}],
        "mechanisms": [{"name": "fake-noise", "grid": {"epsilon": [0.05, 50.0]}}],
        "attacks": [{"kind": "aware-rf", "n_splits": 3}],
        "fidelity": ["rmse", "density_error"], "baselines": True})
    res = run_experiment(cfg, tmp_path, registry=fake_registry(), datasets={"tiny": tiny},
                         featurizer=fake_featurizer, workers=1)
    t = res.results
    assert set(DEFAULT_BASELINES) <= set(t["mechanism"].unique())
    assert set(t.filter(pl.col("mechanism").str.starts_with("baseline-"))["mode"]) == {
        "baseline"}
    assert {g["mechanism"] for g in res.guarantees} == {"fake-noise"}  # no record for baselines
    aware = t.filter(pl.col("evaluation") == "reid:aware-rf:seed004")
    assert set(aware["mechanism"]) == {"none", "fake-noise", *DEFAULT_BASELINES}
    rmse = t.filter((pl.col("metric") == "rmse") & (pl.col("mechanism") == "fake-noise"))
    flag = {r["epsilon"]: r["beats_baselines"] for r in rmse.iter_rows(named=True)}
    assert flag[50.0] is True  # tiny noise: far closer than any data-free release
    assert t.filter(pl.col("mechanism").str.starts_with("baseline-"))[
        "beats_baselines"].is_null().all()
    assert t.filter(pl.col("kind") == "privacy")["beats_baselines"].is_null().all()
    # the raw data's own re-identification is far above every data-free baseline's
    ident = (t.filter(pl.col("metric") == "identification_rate")
             .group_by("mechanism").agg(pl.col("value").mean()))
    by = dict(ident.iter_rows())
    assert by["none"] > max(by[b] for b in DEFAULT_BASELINES)


@pytest.mark.slow
def test_aware_attack_on_a_dpgazesynth_release_is_reported(tmp_path):
    """The aware attacker against DPGazeSynth at a small epsilon (0.5) is a row of the table,
    beside the raw-trained RBFN and chance; both are finite and the aware attack is reported
    for the baselines too."""
    from gazeprivacy.data.simulate import simulate_dataset

    ds = simulate_dataset(n_participants=6, tasks=("free-viewing",), recordings_per_task=4,
                          duration_s=6.0, sampling_rate_hz=60, rng=np.random.default_rng(0),
                          name="sim")
    cfg = parse_config({
        "name": "t", "seeds": [0], "workers": 1,
        "datasets": [{"name": "sim", "source": "injected", "group_label": ""}],
        "mechanisms": [{"name": "dpgazesynth", "preset": "params",
                        "grid": {"epsilon": [0.5]}, "fixed": {"grid_size": 30}}],
        "attacks": [{"kind": "reidentification", "classifier": "rbfn", "n_splits": 3},
                    {"kind": "aware-rf", "n_splits": 5}],
        "fidelity": ["rmse"], "baselines": ["baseline-centre"]})
    res = run_experiment(cfg, tmp_path, datasets={"sim": ds}, workers=1)
    t = res.results.filter(pl.col("mechanism") == "dpgazesynth")
    vals = {(r["evaluation"], r["metric"]): r["value"] for r in t.iter_rows(named=True)}
    aware = vals[("reid:aware-rf:seed004", "identification_rate")]
    assert 0.0 <= aware <= 1.0
    assert vals[("reid:aware-rf:seed004", "chance")] == pytest.approx(1 / 6)
    assert np.isfinite(vals[("reid:rbfn:seed000", "identification_rate")])
    print(f"DPGazeSynth eps 0.5: aware {aware:.3f}, "
          f"raw-trained RBFN {vals[('reid:rbfn:seed000', 'identification_rate')]:.3f}, "
          f"chance {1 / 6:.3f}")


def test_centre_gaussian_is_the_saliency_centre_prior(tiny):
    # N(centre, (W/6, H/6)) clipped to the screen: mean at the centre and sd W/6, H/6 within
    # 4 standard errors (clipping at 3 sd shrinks the sd by under 1 %), every point on screen
    out = BASELINES["baseline-centre-gaussian"].release(tiny, rng=np.random.default_rng(2))
    geo = tiny.recordings[0].geometry
    xs = np.concatenate([r.x for r in out])
    ys = np.concatenate([r.y for r in out])
    assert geo.contains(xs, ys).all()
    sx, sy = geo.width_deg / 6, geo.height_deg / 6
    assert abs(xs.mean() - 15.0) < 4 * sx / np.sqrt(xs.size)
    assert abs(ys.mean() - 10.0) < 4 * sy / np.sqrt(ys.size)
    # sd of a sample sd ~ sd / sqrt(2 n); clipping removes < 1 %
    assert abs(xs.std() / sx - 1) < 0.01 + 4 / np.sqrt(2 * xs.size)
    assert abs(ys.std() / sy - 1) < 0.01 + 4 / np.sqrt(2 * ys.size)
    assert "baseline-centre-gaussian" in DEFAULT_BASELINES
