# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth ``unit="participant"`` (issue 15 item 4): m windows per participant at
epsilon / m, synthesis from the population's reports, the record's per-participant epsilon.

Statistical tests use fixed seeds and 4 standard errors (plus a stated quantisation margin).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from gazeprivacy.cli.app import app
from gazeprivacy.data import Dataset, Geometry, Recording, write_dataset
from gazeprivacy.engines.plan import plan_for
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError, ReleaseRefusedError
from gazeprivacy.guarantees import Guarantee, Unit
from gazeprivacy.mechanisms import MECHANISMS
from gazeprivacy.mechanisms.base import example_dataset
from gazeprivacy.mechanisms.contract import Mode, sample_shape
from gazeprivacy.mechanisms.samples import dpgazesynth as dpg
from gazeprivacy.mechanisms.samples.dpgazesynth import (
    DPGazeSynthParams,
    client_release,
    curate,
    dpgazesynth,
    participant_windows,
    perturb_reports,
    shape_guarantee,
    start_noise_scale,
    synthesise,
)

GEO = Geometry(x_min_deg=0.0, x_max_deg=100.0, y_min_deg=0.0, y_max_deg=100.0)
RATE = 20.0  # window_s 0.5 -> W = 10


def params(budget: float = 2.0, m: int = 2, **kw) -> DPGazeSynthParams:
    kw.setdefault("grid_size", 10)
    return DPGazeSynthParams(epsilon=budget, unit="participant", windows_per_participant=m, **kw)


def walk(n: int, seed: int, participant: str, recording: str) -> Recording:
    g = np.random.default_rng(seed)
    x = np.clip(50 + np.cumsum(g.normal(0, 2.0, n)), 0, 100)
    y = np.clip(50 + np.cumsum(g.normal(0, 2.0, n)), 0, 100)
    return Recording.from_arrays(recording=recording, participant=participant, x=x, y=y,
                                 sampling_rate_hz=RATE, geometry=GEO)


def people(windows: dict[str, list[int]]) -> Dataset:
    """Participants with recordings of the given numbers of windows (W = 10 samples)."""
    recs = [walk(10 * k, 7 * i + j, p, f"{p}-r{j}")
            for i, (p, ks) in enumerate(windows.items()) for j, k in enumerate(ks)]
    return Dataset(tuple(recs), name="people")


# --------------------------------------------------------------------------------------------
# parameters and the record


def test_both_the_budget_and_m_are_required_and_m_only_with_participant_unit():
    with pytest.raises(InvalidParameterError, match="needs windows_per_participant"):
        DPGazeSynthParams(epsilon=1.0, unit="participant")
    with pytest.raises(InvalidParameterError, match="applies to unit='participant' only"):
        DPGazeSynthParams(epsilon=1.0, windows_per_participant=3)
    with pytest.raises(InvalidParameterError, match="windows_per_participant"):
        params(m=0)
    with pytest.raises(InvalidParameterError, match="unit must be one of 'window', "
                                                    "'participant'"):
        DPGazeSynthParams(epsilon=1.0, unit="recording")
    assert params().unit == "participant" and type(params().unit) is not str


@pytest.mark.parametrize(("budget", "m"), [(1.0, 4), (3.0, 3), (10.0, 10)])
def test_record_per_participant_epsilon_is_the_budget_and_per_window_is_budget_over_m(budget, m):
    ds = people({"a": [6, 5], "b": [12], "c": [10, 1]})
    p = params(budget, m)
    rel = dpgazesynth(ds, p, rng=np.random.default_rng(0))
    g = rel.guarantee
    assert g.unit is Unit.PARTICIPANT and g.epsilon == pytest.approx(budget)
    assert g.max_participant_epsilon == pytest.approx(budget)
    assert set(g.per_participant) == {"a", "b", "c"}
    for b in g.per_participant.values():
        assert b.epsilon == pytest.approx(budget) and b.units == m
    assert g.parameters["epsilon_per_window"] == pytest.approx(budget / m)
    assert g.parameters["windows_per_participant"] == m
    assert g.formally_private
    assert g == shape_guarantee(p, sample_shape(ds))  # the privacy map of the public shape
    assert Guarantee.from_json(g.to_json()).per_participant == g.per_participant
    # a smaller split is spent and recorded as such
    half = dpgazesynth(ds, replace(p, split=dpg.BudgetSplit(start=0.3, times=0.1,
                                                               transitions=0.1)),
                       rng=np.random.default_rng(0)).guarantee
    assert half.max_participant_epsilon == pytest.approx(budget / 2)


def test_each_share_runs_at_budget_over_m():
    p = params(6.0, 3, radius_deg=3.0)
    assert p.epsilon_window == pytest.approx(2.0)
    assert p.epsilon_start == pytest.approx(1.2)
    assert p.epsilon_times == pytest.approx(0.4)
    assert start_noise_scale(p, GEO) == pytest.approx(3.0 / 1.2)
    assert p.epsilon_per_report(10) == pytest.approx(0.4 / 9)


# --------------------------------------------------------------------------------------------
# the windows drawn


def test_exactly_m_windows_per_participant_are_drawn_across_all_its_recordings():
    ds = people({"a": [6, 5], "b": [12], "c": [3, 3, 3]})
    p = params(2.0, 4)
    owner = np.repeat([r.participant for r in ds], [r.n_samples // 10 for r in ds])
    seen_recordings = set()
    for seed in range(30):
        sel = participant_windows(ds.recordings, p, np.random.default_rng(seed))
        assert np.unique(sel).size == sel.size == 4 * 3
        for who in "abc":
            assert (owner[sel] == who).sum() == 4
        rec_of = np.repeat(np.arange(len(ds)), [r.n_samples // 10 for r in ds])
        seen_recordings |= set(rec_of[sel].tolist())
    assert seen_recordings == set(range(len(ds)))  # every recording can be drawn


def test_the_clients_send_reports_of_m_windows_per_participant_only():
    ds = people({"a": [6, 5], "b": [12], "c": [10, 1]})
    p = params(2.0, 3, transitions="one-per-window")
    rep = client_release(ds.recordings, p, np.random.default_rng(4))
    assert rep.start_cell.size == 3 * 3 and (rep.start_cell >= 0).all()
    assert rep.all_reports.size == 3 * 3  # one OUE report per reporting window
    assert int(rep.run_length.sum()) == 3 * 3 * 10
    # unit='window': every window reports
    everything = client_release(ds.recordings, replace(p, unit="window", epsilon=1.0,
                                                       windows_per_participant=None),
                                np.random.default_rng(4))
    assert everything.start_cell.size == sum(r.n_samples // 10 for r in ds)


def test_m_above_the_windows_a_participant_has_is_refused_before_any_work():
    ds = people({"a": [6, 5], "b": [4]})
    p = params(2.0, 5)
    with pytest.raises(ReleaseRefusedError, match=r"windows_per_participant=5 exceeds .*'b': 4"):
        dpgazesynth(ds, p, rng=np.random.default_rng(0))
    with pytest.raises(InvalidDataError, match="choose m <= 4"):
        shape_guarantee(p, sample_shape(ds))
    assert dpgazesynth(ds, params(2.0, 4), rng=np.random.default_rng(0)).output


def test_same_seed_same_release_and_another_seed_another():
    ds = people({"a": [6, 5], "b": [12]})
    p = params(3.0, 4)
    a, b, c = (dpgazesynth(ds, p, rng=np.random.default_rng(s)).output for s in (1, 1, 2))
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u.x, v.x)
        np.testing.assert_array_equal(u.y, v.y)
    assert any(not np.array_equal(u.x, w.x) for u, w in zip(a, c, strict=True))
    assert [r.n_samples for r in a] == [r.n_samples for r in ds]


# --------------------------------------------------------------------------------------------
# the release depends on the data through the reports only


def test_synthesis_reads_no_gaze_and_undrawn_windows_change_nothing():
    ds = people({"a": [6, 5], "b": [12]})
    p = params(3.0, 4)
    rng_select, _ = np.random.default_rng(9).spawn(2)  # the client's own derivation
    drawn = participant_windows(ds.recordings, p, rng_select)
    # change every sample of every window that is not drawn
    offsets = np.cumsum([0] + [r.n_samples // 10 for r in ds])
    recs = []
    for i, r in enumerate(ds):
        mine = drawn[(drawn >= offsets[i]) & (drawn < offsets[i + 1])] - offsets[i]
        moved = np.ones(r.n_samples, bool)
        for w in mine:
            moved[10 * w:10 * w + 10] = False
        recs.append(r.with_gaze(np.where(moved, 100 - r.x, r.x), np.where(moved, 3.0, r.y)))
    other = Dataset(tuple(recs), name="other")
    ra = client_release(ds.recordings, p, np.random.default_rng(9))
    rb = client_release(other.recordings, p, np.random.default_rng(9))
    for name in ("start_cell", "run_window", "run_length", "all_reports"):
        np.testing.assert_array_equal(getattr(ra, name), getattr(rb, name))
    model = curate([perturb_reports(ra, p, np.random.default_rng(1))], p)
    out_a = synthesise(ds.recordings, ra, model, p, np.random.default_rng(2))
    out_b = synthesise(other.recordings, ra, model, p, np.random.default_rng(2))
    for u, v in zip(out_a, out_b, strict=True):
        np.testing.assert_array_equal(u.x, v.x)


def test_released_start_points_carry_the_start_noise_at_budget_over_m():
    """Every released window starts in the noisy start cell of a reporting window; the true
    start is the screen centre, so the first sample's distance from it is Gamma(2, r / eps1)
    with eps1 = 0.6 budget / m (resampled from the m reports; margin 0.15 deg for the
    1-degree cells)."""
    m, budget = 500, 500.0  # 1.0 per window: scale r / 0.6 = 5 deg
    n_windows = 1000
    rec = Recording.from_arrays(recording="r", participant="p", x=np.full(10 * n_windows, 50.0),
                                y=np.full(10 * n_windows, 50.0), sampling_rate_hz=RATE,
                                geometry=GEO)
    p = params(budget, m, grid_size=100, radius_deg=3.0)
    out = dpgazesynth(Dataset((rec,)), p, rng=np.random.default_rng(101)).output[0]
    first = np.hypot(out.x[::10] - 50.0, out.y[::10] - 50.0)
    scale = 3.0 / (0.6 * budget / m)
    se = first.std() * np.sqrt(1.0 / m + 1.0 / n_windows)  # the pool, then the resampling
    assert abs(first.mean() - 2.0 * scale) < 4.0 * se + 0.15, (first.mean(), 2 * scale, se)


# --------------------------------------------------------------------------------------------
# the contract, the audit, engines and the CLI


def _common_checks():
    path = Path(__file__).resolve().parents[2] / "test_common.py"
    spec = importlib.util.spec_from_file_location("_common_for_participant", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod.CHECKS


def _participant_example(mode: Mode):
    if mode is Mode.BASELINE:
        return None
    # missing="fill": the example has blinks, and the sealed writer refuses to write a
    # missing-sample mask that the record does not cover
    return example_dataset(), DPGazeSynthParams(epsilon=2.0, grid_size=10, mode=mode,
                                                missing="fill", unit="participant",
                                                windows_per_participant=2)


@pytest.fixture
def participant_entry(monkeypatch):
    """DPGazeSynth's own entry with the participant-level example (a registry view of the
    same mechanism: run, guarantee and params type are DPGazeSynth's)."""
    entry = replace(MECHANISMS["dpgazesynth"], name="dpgazesynth-unit-participant",
                    example=_participant_example, plan=None,
                    partition_refusal=dpg.PARTICIPANT_REFUSAL)
    monkeypatch.setitem(MECHANISMS._entries, "dpgazesynth-unit-participant", entry)
    return "dpgazesynth-unit-participant"


def test_the_common_contract_holds_in_participant_mode(participant_entry):
    for check in _common_checks():
        check(participant_entry)


def test_whole_release_audit_passes_and_its_lower_bound_stays_below_the_claim(
        participant_entry):
    from gazeprivacy.audit.adapters import audit_mechanism
    from gazeprivacy.audit.release import RELEASE_SCENARIOS

    scn = RELEASE_SCENARIOS[participant_entry]()
    assert scn.unit == "participant" and scn.rows.size == scn.a.recordings[0].n_samples
    res = audit_mechanism(f"{participant_entry}-release", n_trials=200,
                          rng=np.random.default_rng(19))
    assert res.claimed_epsilon == pytest.approx(2.0)
    assert res.passed, res.column_rows()
    row = res.row()
    assert row["epsilon_lower_bound"] < row["claimed_epsilon"]
    assert {"x", "y"} <= {c.column for c in res.columns if c.result is not None}


def test_participant_mode_has_the_participant_grouped_plan_not_the_per_partition_one():
    from gazeprivacy.mechanisms.samples.dpgazesynth.participant_plan import ParticipantPhases

    assert isinstance(plan_for("dpgazesynth", params()), ParticipantPhases)
    with pytest.raises(InvalidParameterError, match="drawn across all of its recordings"):
        dpg.DPGazeSynthPhases(params=params())
    assert isinstance(plan_for("dpgazesynth", DPGazeSynthParams(epsilon=1.0, grid_size=10)),
                      dpg.DPGazeSynthPhases)


def test_cli_protect_participant_level(tmp_path):
    from gazeprivacy.mechanisms.release import guarantee_path

    src = write_dataset(people({"a": [6, 5], "b": [12]}), tmp_path / "in.parquet")
    out = tmp_path / "out.parquet"
    runner = CliRunner()
    res = runner.invoke(app, ["protect", str(src), str(out), "--mechanism", "dpgazesynth",
                              "--per-participant-epsilon", "3", "--windows-per-participant",
                              "4", "--grid-size", "10", "--seed", "1"])
    assert res.exit_code == 0, res.output + repr(res.exception)
    record = json.loads(guarantee_path(out).read_text())
    assert record["unit"] == "participant" and record["epsilon"] == pytest.approx(3.0)
    assert record["parameters"]["epsilon_per_window"] == pytest.approx(0.75)
    assert [b["epsilon"] for b in record["per_participant"].values()] == [3.0, 3.0]
    for extra, match in ((["--per-participant-epsilon", "3"], "go together"),
                         (["--per-participant-epsilon", "3", "--windows-per-participant", "4",
                           "--epsilon", "1"], "not both")):
        res = runner.invoke(app, ["protect", str(src), str(tmp_path / "x.parquet"),
                                  "--mechanism", "dpgazesynth", *extra])
        assert res.exit_code != 0 and match in res.output + str(res.exception)


def test_the_hand_written_participant_release_audit_passes_below_the_claim():
    from gazeprivacy.audit.adapters import ADAPTERS, audit_mechanism

    assert ADAPTERS["dpgazesynth-participant-release"].available
    res = audit_mechanism("dpgazesynth-participant-release", n_trials=200,
                          rng=np.random.default_rng(23))
    assert res.guarantee.unit is Unit.PARTICIPANT and res.claimed_epsilon == pytest.approx(1.0)
    assert res.passed, res.column_rows()
    row = res.row()
    assert row["mechanism"] == "dpgazesynth-participant-release"
    assert row["epsilon_lower_bound"] < row["claimed_epsilon"]
    scn = res.scenario
    a, b = scn.a.recordings[0], scn.b.recordings[0]
    moved = np.flatnonzero(a.x != b.x)
    assert moved.size and not np.any(moved % 50 == 0)  # every window's first sample kept


def test_the_device_protocol_announces_the_participant_budget_with_m_and_needs_the_plan():
    # (the plan, the devices and the curator: tests/cli/test_client_curator_participant.py)
    from gazeprivacy.mechanisms.samples.dpgazesynth.protocol_phases import (
        Announcement,
        client_message,
    )
    from gazeprivacy.mechanisms.samples.dpgazesynth.protocol_plan import ParticipantPlan

    a = Announcement.of(params(), sampling_rate_hz=RATE, geometry=GEO)
    assert (a.unit, a.windows_per_participant, a.epsilon) == ("participant", 2, 2.0)
    assert a.params().epsilon_window == pytest.approx(1.0)  # not the budget per window
    recs = people({"a": [6]}).recordings
    with pytest.raises(InvalidParameterError, match="the curator's plan: pass plan="):
        client_message(recs, params(), rng=np.random.default_rng(0))
    plan = ParticipantPlan.draw(a, [(r.recording, r.participant, r.n_samples) for r in recs],
                                rng=np.random.default_rng(1))
    msg = client_message(recs, a, rng=np.random.default_rng(0), plan=plan)
    assert int((msg.runs_per_window > 0).sum()) == 2 and msg.n_windows == 6
