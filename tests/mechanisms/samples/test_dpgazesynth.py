# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth: contract, policies, guarantee records, encoding and the two OUE paths."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from gazeprivacy.data import Dataset, Geometry, Recording
from gazeprivacy.exceptions import InvalidParameterError, NotFormallyPrivateWarning
from gazeprivacy.guarantees import FlagCode, Guarantee
from gazeprivacy.mechanisms.samples import dpgazesynth as dg
from gazeprivacy.mechanisms.samples.dpgazesynth import (
    BudgetSplit,
    DPGazeSynthParams,
    dpgazesynth,
    grid,
    guarantee,
)

GEO = Geometry(x_min_deg=0.0, x_max_deg=16.0, y_min_deg=0.0, y_max_deg=12.0)


def walk(n: int, seed: int, nan: slice | None = None) -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng(seed)
    steps = g.normal(0, 0.05, (n, 2)) + (g.random((n, 1)) < 0.03) * g.normal(0, 3, (n, 2))
    xy = np.clip(np.cumsum(steps, 0) + np.array([8.0, 6.0]), -2, 18)
    if nan is not None:
        xy[nan] = np.nan
    return xy[:, 0], xy[:, 1]


def dataset(n_rec: int = 6, n: int = 430, nan: bool = True) -> Dataset:
    recs = []
    for i in range(n_rec):
        x, y = walk(n + 13 * i, i, slice(50, 70) if nan else None)
        recs.append(Recording.from_arrays(recording=f"r{i}", participant=f"p{i % 3}", x=x, y=y,
                                          sampling_rate_hz=200, geometry=GEO,
                                          labels={"task": "t"}))
    return Dataset(tuple(recs), name="walk")


@pytest.fixture(scope="module")
def ds() -> Dataset:
    return dataset()


@pytest.mark.parametrize("mode", ["sound", "paper"])
@pytest.mark.parametrize("transitions", ["all", "one-per-window"])
def test_keeps_rows_order_labels_and_nan_rows(ds, mode, transitions):
    p = DPGazeSynthParams(epsilon=2.0, grid_size=20, mode=mode, transitions=transitions)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotFormallyPrivateWarning)
        out = dpgazesynth(ds, p, rng=np.random.default_rng(1)).output
    for a, b in zip(ds, out, strict=True):
        assert (a.recording, a.n_samples, a.labels) == (b.recording, b.n_samples, b.labels)
        np.testing.assert_array_equal(a.t, b.t)
        np.testing.assert_array_equal(np.isnan(a.x), np.isnan(b.x))
        assert GEO.contains(b.x[~np.isnan(b.x)], b.y[~np.isnan(b.y)]).all()


def test_same_seed_same_output_and_different_seeds_differ(ds):
    p = DPGazeSynthParams(epsilon=1.0, grid_size=20)
    a = dpgazesynth(ds, p, rng=np.random.default_rng(5)).output
    b = dpgazesynth(ds, p, rng=np.random.default_rng(5)).output
    c = dpgazesynth(ds, p, rng=np.random.default_rng(6)).output
    np.testing.assert_array_equal(a[0].x, b[0].x)
    assert not np.array_equal(a[0].x, c[0].x, equal_nan=True)


def test_blocks_of_recordings_cover_the_dataset_in_order(ds, monkeypatch):
    monkeypatch.setattr(dg, "_BLOCK_SAMPLES", 850)  # 6 recordings of 430-495 samples
    blocks = dg._blocks(ds.recordings)
    assert [len(b) for b in blocks] == [2, 2, 2]
    assert sum(blocks, ()) == ds.recordings
    monkeypatch.setattr(dg, "_BLOCK_SAMPLES", 10)  # at least one recording per block
    assert [len(b) for b in dg._blocks(ds.recordings)] == [1] * 6


def test_several_blocks_share_one_curator_and_the_record(ds, monkeypatch):
    p = DPGazeSynthParams(epsilon=2.0, grid_size=16)
    one = dpgazesynth(ds, p, rng=np.random.default_rng(3))
    calls = []
    real = dg.curate
    monkeypatch.setattr(dg, "_BLOCK_SAMPLES", 850)
    monkeypatch.setattr(dg, "curate", lambda msgs, params: calls.append(len(msgs))
                        or real(msgs, params))
    three = dpgazesynth(ds, p, rng=np.random.default_rng(3))
    assert calls == [3]  # every block's OUE sums reach the one curator
    assert one.guarantee == three.guarantee
    for a, b in zip(one.output, three.output, strict=True):
        assert (a.recording, a.n_samples) == (b.recording, b.n_samples)
        np.testing.assert_array_equal(np.isnan(a.x), np.isnan(b.x))


def test_missing_fill_synthesises_every_row(ds):
    out = dpgazesynth(ds, DPGazeSynthParams(epsilon=1.0, missing="fill"),
                      rng=np.random.default_rng(0)).output
    assert not np.isnan(out[0].x).any()


def test_paper_mode_warns_and_flags_that_it_releases_the_number_of_runs(ds):
    with pytest.warns(NotFormallyPrivateWarning, match="number of runs"):
        rel = dpgazesynth(ds, DPGazeSynthParams.paper(epsilon=1.0, mode="paper"),
                          rng=np.random.default_rng(0))
    codes = [f.code for f in rel.guarantee.flags]
    assert FlagCode.PARTIAL_COVERAGE in codes and not rel.guarantee.formally_private
    assert rel.guarantee.mode == "paper"


def test_record_per_window_and_per_participant_composition(ds):
    rel = dpgazesynth(ds, DPGazeSynthParams(epsilon=3.0), rng=np.random.default_rng(0))
    g = rel.guarantee
    assert g.epsilon == 3.0 and g.unit.value == "window" and g.formally_private
    w = 100
    for pid in ds.participants:
        windows = sum(-(-r.n_samples // w) for r in ds if r.participant == pid)
        assert g.per_participant[pid].epsilon == pytest.approx(3.0 * windows)
        assert g.per_participant[pid].units == windows
    assert Guarantee.from_json(g.to_json()) == g
    assert json.loads(g.to_json())["parameters"]["window_samples"] == w


def test_record_depends_on_public_shape_only():
    p = DPGazeSynthParams(epsilon=1.0, grid_size=30)
    a = dpgazesynth(dataset(3, nan=False), p, rng=np.random.default_rng(0)).guarantee
    other = dataset(3, nan=False).map(lambda r: r.with_gaze(r.x[::-1], r.y[::-1] * 0 + 1))
    b = dpgazesynth(other, p, rng=np.random.default_rng(0)).guarantee
    assert a == b


def test_default_radius_is_three_cells():
    p = DPGazeSynthParams(epsilon=1.0, grid_size=60)
    assert p.radius_for(GEO) == pytest.approx(3 * 12.0 / 60)  # 5 % of the smaller side
    assert DPGazeSynthParams(epsilon=1.0, radius_deg=0.7).radius_for(GEO) == 0.7
    g = guarantee(p, sampling_rate_hz=200.0, geometry=GEO)
    assert g.parameters["radius_deg"] == pytest.approx(0.6)


def test_budget_split_default_and_validation():
    p = DPGazeSynthParams(epsilon=2.0)
    assert (p.epsilon_start, p.epsilon_times, p.epsilon_transitions) == pytest.approx(
        (1.2, 0.4, 0.4))
    q = DPGazeSynthParams(epsilon=2.0, split=BudgetSplit(start=0.5, times=0.25, transitions=0.25))
    assert q.epsilon_transitions == 0.5
    with pytest.raises(InvalidParameterError, match="split.times must be > 0"):
        BudgetSplit(times=0.0)
    # a split below 1 spends (and records) less
    r = DPGazeSynthParams(epsilon=2.0, split=BudgetSplit(start=0.3, times=0.1, transitions=0.1))
    assert guarantee(r, sampling_rate_hz=200.0).epsilon == pytest.approx(1.0)


@pytest.mark.parametrize(("kw", "match"), [
    ({"epsilon": 0.0}, "epsilon must be > 0"),
    ({"epsilon": 1.0, "mode": "exact"}, "mode must be one of 'sound', 'paper'"),
    ({"epsilon": 1.0, "grid_size": 1}, "grid_size must be an integer >= 2"),
    ({"epsilon": 1.0, "transitions": "some"}, "transitions must be one of"),
], ids=["epsilon_zero", "bad_mode", "grid_one", "bad_transitions"])
def test_bad_parameters_raise_named_errors(kw, match):
    with pytest.raises(InvalidParameterError, match=match):
        DPGazeSynthParams(**kw)


def test_short_window_and_missing_geometry_raise():
    with pytest.raises(InvalidParameterError, match="W >= 2"):
        guarantee(DPGazeSynthParams(epsilon=1.0, window_s=0.001), sampling_rate_hz=200.0)
    rec = Recording.from_arrays(recording="r", participant="p", x=[1.0] * 10, y=[1.0] * 10,
                                sampling_rate_hz=100)
    with pytest.raises(InvalidParameterError, match="pass geometry=Geometry"):
        dpgazesynth(Dataset((rec,)), DPGazeSynthParams(epsilon=1.0), rng=np.random.default_rng(0))


def test_off_screen_points_go_to_the_nearest_cell():
    # a fixation right of the screen, huge epsilon: all output in the rightmost column
    rec = Recording.from_arrays(recording="r", participant="p", x=np.full(400, 30.0),
                                y=np.full(400, 6.1), sampling_rate_hz=200, geometry=GEO)
    out = dpgazesynth(Dataset((rec,)), DPGazeSynthParams(epsilon=1e6, grid_size=16),
                      rng=np.random.default_rng(0)).output[0]
    assert out.x.min() >= 15.0 and out.x.max() <= 16.0
    assert (np.floor(out.y / 0.75) == np.floor(6.1 / 0.75)).all()


def test_high_epsilon_reproduces_cells_of_a_stepped_path():
    # 4 windows of 100 samples: two fixations each, in adjacent cells
    x = np.where(np.arange(400) % 100 < 60, 4.5, 5.5)
    rec = Recording.from_arrays(recording="r", participant="p", x=x, y=np.full(400, 6.2),
                                sampling_rate_hz=200, geometry=GEO)
    with pytest.warns(NotFormallyPrivateWarning):
        out = dpgazesynth(Dataset((rec,)), DPGazeSynthParams(epsilon=1e7, grid_size=16,
                                                             mode="paper"),
                          rng=np.random.default_rng(3))
    o = out.output[0]
    np.testing.assert_array_equal(np.floor(o.x), np.floor(x))


def test_round_keep_sum_keeps_totals_and_nonnegativity(rng):
    group = np.sort(rng.integers(0, 30, 500))
    totals = np.bincount(group, minlength=30) * 3
    vals = rng.laplace(0, 5, 500)
    out = grid._round_keep_sum(vals, group, totals)
    assert (out >= 0).all()
    np.testing.assert_array_equal(np.bincount(group, weights=out, minlength=30), totals)
    # all clipped to zero: the whole total goes to the first entry of the group
    out = grid._round_keep_sum(np.full(3, -1.0), np.zeros(3, int), np.array([7]))
    assert out.tolist() == [7, 0, 0]


def test_transition_encoding_maps_jumps_to_the_adjacent_cell_in_their_direction():
    g = 10
    geo = Geometry(x_min_deg=0, x_max_deg=10, y_min_deg=0, y_max_deg=10)
    # cells (col, row): (2,2) -> (3,2) E -> (8,4) E (jump, 21.8 deg) -> (9,5) SE(+1,+1)
    # -> (8,4) NW -> (8,9) S(+y)
    path = [(2, 2), (3, 2), (8, 4), (9, 5), (8, 4), (8, 9)]
    x = np.repeat([c + 0.5 for c, _ in path], 3)
    y = np.repeat([r + 0.5 for _, r in path], 3)
    rec = Recording.from_arrays(recording="r", participant="p", x=x, y=y,
                                sampling_rate_hz=36, geometry=geo)
    p = DPGazeSynthParams(epsilon=1.0, grid_size=g, mode="paper", window_s=0.5)
    c = dg.client_release(rec, p, np.random.default_rng(0))
    src = [r * g + col for col, r in path[:-1]]
    assert c.all_reports.tolist() == [s * 8 + d for s, d in zip(src, [0, 0, 1, 5, 2], strict=True)]


def test_sound_mode_sends_w_minus_1_reports_per_window_whatever_the_data():
    p = DPGazeSynthParams(epsilon=1.0, grid_size=16)
    still = Recording.from_arrays(recording="a", participant="p", x=np.full(300, 5.0),
                                  y=np.full(300, 5.0), sampling_rate_hz=200, geometry=GEO)
    x, y = walk(300, 0)
    busy = Recording.from_arrays(recording="b", participant="p", x=x, y=y,
                                 sampling_rate_hz=200, geometry=GEO)
    n_still = dg.client_release(still, p, np.random.default_rng(0)).all_reports.size
    n_busy = dg.client_release(busy, p, np.random.default_rng(0)).all_reports.size
    assert n_still == n_busy == 99 + 99 + 99
    one = DPGazeSynthParams(epsilon=1.0, grid_size=16, transitions="one-per-window")
    assert dg.client_release(busy, one, np.random.default_rng(0)).all_reports.size == 3
    still_one = dg.client_release(still, one, np.random.default_rng(0))
    assert still_one.all_reports.tolist() == [8 * 256] * 3


def test_transition_model_is_a_distribution_over_on_grid_neighbours(ds):
    g = 6
    est = np.random.default_rng(0).normal(0, 5, 8 * g * g)
    m = dg.transition_model_from_estimates(est, g, 10)
    np.testing.assert_allclose(m.probs.sum(1), 1.0)
    assert m.probs[0, [3, 4, 5, 6, 7]].sum() == 0  # corner (0, 0): no W, N, NW, NE, SW
    assert (m.probs >= 0).all()


def test_client_reports_path_runs_and_is_one_distribution_with_the_curator_view():
    # the path-level distributional test lives in tests/mechanisms/noise/test_oue.py; here the
    # client path must run end to end and give a valid dataset
    small = dataset(2, 200, nan=False)
    p = DPGazeSynthParams(epsilon=2.0, grid_size=4, oue_path="client-reports")
    out = dpgazesynth(small, p, rng=np.random.default_rng(0)).output
    assert out[0].n_samples == small[0].n_samples and not np.isnan(out[0].x).any()


def test_one_transition_variant_has_its_own_record():
    p = DPGazeSynthParams(epsilon=1.0, transitions="one-per-window")
    g = guarantee(p, sampling_rate_hz=200.0)
    assert g.parameters["transitions"] == "one-per-window"
    assert g.parameters["epsilon_per_report"] == pytest.approx(0.2)
    assert guarantee(DPGazeSynthParams(epsilon=1.0), sampling_rate_hz=200.0
                     ).parameters["epsilon_per_report"] == pytest.approx(0.2 / 99)
