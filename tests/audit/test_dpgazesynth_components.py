# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth audited per component on the real client path, and the mutants it must kill.

Each mutant is applied with ``monkeypatch`` to the name the mechanism module looks up (the module
itself is not edited): the run-length Laplace noise cut 4x or halved, the start-point noise
halved, the OUE ``q`` computed at twice the budget, Kaleido's test noise removed. The audits run
with fixed seeds and a few thousand draws (a few seconds each); every verdict is at 99 %
confidence, so a sound run fails with probability at most 1 % per audit and a mutant must fail
at p < 0.01.
"""

from __future__ import annotations

import numpy as np
import pytest

from gazeprivacy.audit import dpgazesynth as dpgs
from gazeprivacy.audit.adapters import audit_mechanism
from gazeprivacy.audit.cases import mechanism_module
from gazeprivacy.mechanisms.noise import oue

SEED = 20261126


def run(name: str, trials: int, seed: int = SEED):
    return audit_mechanism(name, n_trials=trials, rng=np.random.default_rng(seed),
                           explore=False)


@pytest.fixture
def dpgs_module():
    return mechanism_module("dpgazesynth")


@pytest.fixture
def dpgs_client():
    # the client's module, where the client steps look up their noise primitives
    from gazeprivacy.mechanisms.samples.dpgazesynth import client

    return client


def test_each_component_is_audited_against_its_own_share_of_the_record():
    record = run("dpgazesynth-start", 200).case.guarantee
    split, eps = record.parameters["split"], record.parameters["epsilon"]
    assert run("dpgazesynth-start", 200).case.claimed_epsilon == pytest.approx(split["start"] * eps)
    runs = run("dpgazesynth-runs", 200).case
    assert runs.claimed_epsilon == pytest.approx(
        runs.guarantee.parameters["split"]["times"] * runs.guarantee.parameters["epsilon"])
    one = run("dpgazesynth-transitions", 200).case
    assert one.claimed_epsilon == pytest.approx(one.guarantee.parameters["epsilon_per_report"])
    combined = run("dpgazesynth-combined", 200).case
    assert combined.claimed_epsilon == combined.guarantee.epsilon == dpgs.EPS_COMBINED


# the sound verdict of every component (and of window-boundary, xfail until H2's fix) is checked
# by test_audit_verdict_matches_what_the_mechanism_claims in test_audit_mechanisms.py


def test_client_view_sees_the_laplace_output_before_rounding():
    comp = dpgs.COMPONENTS["runs"]
    params = dpgs._params(epsilon=dpgs.EPS_RUNS)
    view = dpgs.client_view(comp.a, params, 500, np.random.default_rng(1))
    assert view.noisy_lengths.shape == (500, dpgs.W)
    # Laplace noise at scale (2W - 2) / eps2 around (1, W-1, 0, ...): mean absolute deviation
    scale = (2 * dpgs.W - 2) / params.epsilon_times
    dev = np.abs(view.noisy_lengths - np.r_[1, dpgs.W - 1, np.zeros(dpgs.W - 2)]).mean()
    assert abs(dev - scale) < 4 * scale / np.sqrt(500 * dpgs.W)
    assert (view.n_runs.sum(axis=1) >= 1).all()  # the rounded release is still produced


def test_run_length_noise_cut_4x_fails_the_runs_audit(monkeypatch, dpgs_client):
    real = dpgs_client.laplace_noise
    monkeypatch.setattr(dpgs_client, "laplace_noise", lambda **kw: 0.25 * real(**kw))
    res = run("dpgazesynth-runs", 4000)
    assert not res.passed and res.result.p_value < 0.01, res.row()


def test_run_length_noise_halved_fails_the_runs_audit(monkeypatch, dpgs_client):
    real = dpgs_client.laplace_noise
    monkeypatch.setattr(dpgs_client, "laplace_noise", lambda **kw: 0.5 * real(**kw))
    res = run("dpgazesynth-runs", 6000)
    assert not res.passed and res.result.p_value < 0.01, res.row()


def test_start_point_noise_halved_fails_the_start_audit(monkeypatch, dpgs_client):
    real = dpgs_client.planar_laplace

    def half(*a, **kw):
        dx, dy = real(*a, **kw)
        return 0.5 * dx, 0.5 * dy

    monkeypatch.setattr(dpgs_client, "planar_laplace", half)
    res = run("dpgazesynth-start", 4000)
    assert not res.passed and res.result.p_value < 0.01, res.row()


def test_oue_q_at_twice_the_budget_fails_the_transition_audit(monkeypatch):
    real = oue.oue_q
    monkeypatch.setattr(oue, "oue_q", lambda *, epsilon: real(epsilon=2 * epsilon))
    res = run("dpgazesynth-transitions", 6000)
    assert not res.passed and res.result.p_value < 0.01, res.row()


def test_a_change_in_window_j_does_not_move_window_j_plus_1_under_fill():
    res = run("dpgazesynth-window-boundary", 4000)
    assert res.passed, res.row()


def test_window_boundary_under_keep_passes():
    # the same pair with missing="keep": window j+1 starts at its own first valid sample
    case = dpgs.component_case("window-boundary")
    assert "missing = fill" in case.notes
    comp = dpgs.COMPONENTS["window-boundary"]
    params = dpgs._params(missing="keep")
    va = dpgs.client_view(comp.a, params, 2000, np.random.default_rng(2)).start_cell[:, 1]
    vb = dpgs.client_view(comp.b, params, 2000, np.random.default_rng(3)).start_cell[:, 1]
    # same distribution: the mean column differs by less than 4 standard errors
    se = np.sqrt((np.var(va % dpgs.G) + np.var(vb % dpgs.G)) / 2000)
    assert abs(np.mean(va % dpgs.G) - np.mean(vb % dpgs.G)) < 4 * se


def test_the_window_adapter_uses_the_mechanisms_own_oue_step(monkeypatch, dpgs_module):
    # the OUE reports reach the audit only through the module's perturb_reports (no copy)
    calls = []
    real = dpgs_module.perturb_reports
    monkeypatch.setattr(dpgs_module, "perturb_reports",
                        lambda *a, **kw: calls.append(1) or real(*a, **kw))
    run("dpgazesynth", 100)
    assert len(calls) >= 100


# --------------------------------------------------------------------------------------------
# Kaleido and the OUE primitive: mutants that only an audit catches


def test_kaleido_without_test_noise_fails_the_audit(monkeypatch):
    mod = mechanism_module("kaleido")
    monkeypatch.setattr(mod.KaleidoParams, "test_scale", lambda self, w: 0.0)
    res = run("kaleido", 300)
    assert not res.passed and res.result.p_value < 0.01, res.row()


@pytest.mark.parametrize("wrong_q", [
    pytest.param(lambda real: (lambda *, epsilon: real(epsilon=2 * epsilon)), id="q_at_2eps"),
    pytest.param(lambda real: (lambda *, epsilon: float(np.exp(-epsilon))), id="q_without_plus_1"),
])
def test_oue_with_a_wrong_q_fails_the_audit(monkeypatch, wrong_q):
    monkeypatch.setattr(oue, "oue_q", wrong_q(oue.oue_q))
    res = run("oue", 20000)
    assert not res.passed and res.result.p_value < 0.01, res.row()
