# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's label contrast: bounded contribution, public share rule, noise scale,
and that the keys' released models follow their contrasts."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from gazeprivacy.accounting.zcdp import epsilon_to_rho
from gazeprivacy.data.recording import Dataset
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.mechanisms.contract import sample_shape
from gazeprivacy.mechanisms.samples import _participant_synth_labels as lab
from gazeprivacy.mechanisms.samples._participant_synth_centre import centre_share
from gazeprivacy.mechanisms.samples._participant_synth_model import moments_gaussian
from gazeprivacy.mechanisms.samples.participant_synth import (
    ParticipantSynthParams,
    ParticipantSynthSplit,
    guarantee,
    measure,
    noise_sigma,
    plan,
    population_sums,
    public_setup,
)

__all__: list[str] = []


def _parts(rng: np.random.Generator, extreme: bool) -> dict:
    """Random raw parts of one key: recording sums and direction counts (``extreme``: a
    participant that stares at one point, or spreads over the whole box, with one direction)."""
    n = float(rng.integers(10, 1000))
    if extreme:
        q = rng.choice([0.0, 0.25 * n])
        dirs = np.zeros(12)
        dirs[rng.integers(12)] = rng.integers(1, 50)
    else:
        q = rng.uniform(0.0, 0.25) * n
        dirs = rng.integers(0, 20, 12).astype(float)
    return {"recording_sums": np.array([[n, 0.5 * n, 0.5 * n, q, rng.uniform(0, 0.25) * n]]),
            "saccade_direction": dirs}


@pytest.mark.parametrize("extreme", [False, True])
def test_a_participants_contrast_has_l2_norm_at_most_one_over_sqrt2(extreme):
    rng = np.random.default_rng(3)
    norms = []
    for _ in range(300):
        n_keys = int(rng.integers(1, 6))
        parts = {(str(k),): _parts(rng, extreme) for k in range(n_keys)}
        u = np.concatenate(list(lab.participant_contrast(parts).values()))
        norms.append(float(np.linalg.norm(u)))
        if n_keys == 1:
            assert np.all(u == 0)  # one key: no contrast
    assert max(norms) <= 1 / math.sqrt(2) + 1e-12
    assert max(norms) > 0.3  # the bound is not trivially met


def test_the_share_rule_reads_public_values_only_and_spends_where_it_can_move_a_key():
    rho10, rho3 = epsilon_to_rho(10.0, 1e-6), epsilon_to_rho(3.0, 1e-6)
    first = {(e, L): min(n for n in range(1, 200) if lab.contrast_share(n, r, L) > 0)
             for e, r in ((10, rho10), (3, rho3)) for L in (2, 3, 6)}
    assert first == {(10, 2): 6, (10, 3): 8, (10, 6): 16, (3, 2): 15, (3, 3): 23, (3, 6): 45}
    assert lab.contrast_share(10_000, rho10, 1) == 0.0  # one key: nothing to contrast


def test_resolved_split_scales_the_other_shares_and_keeps_a_user_share():
    split = ParticipantSynthSplit()
    res = lab.resolve_split(split, 14, epsilon_to_rho(10.0, 1e-6), 3)
    assert res.label_contrast == lab.SHARE
    assert res.spread_x == pytest.approx(split.spread_x * (1 - lab.SHARE))
    assert math.fsum(res.shares().values()) <= 1.0 + 1e-12
    assert lab.resolve_split(res, 14, 1.0, 3) is res  # idempotent
    user = ParticipantSynthSplit(spread_x=0.03, label_contrast=0.15)
    assert lab.resolve_split(user, 14, 1.0, 3) is user
    with pytest.raises(InvalidParameterError, match="must sum to at most 1"):
        ParticipantSynthSplit(label_contrast=0.2)
    with pytest.raises(InvalidParameterError, match=r"split.label_contrast must be in \[0, 1\]"):
        ParticipantSynthSplit(spread_x=0.0, label_contrast=-0.1)


@pytest.fixture(scope="module")
def wide_and_narrow() -> Dataset:
    """12 participants, two tasks; under ``reading`` each participant's y is spread 1.6 x about
    its own mean (on top of reading's own narrow y)."""
    ds = simulate_dataset(n_participants=12, tasks=("free-viewing", "reading"),
                          recordings_per_task=1, duration_s=2.0, sampling_rate_hz=60,
                          rng=np.random.default_rng(4))
    out = []
    for r in ds:
        if r.labels["task"] == "reading":
            my = float(np.nanmean(r.y))
            r = r.with_gaze(r.x, my + 1.6 * (r.y - my))
        out.append(r)
    return Dataset(tuple(out), name="wide-narrow")


def _params(eps: float, **kw) -> ParticipantSynthParams:
    return ParticipantSynthParams(epsilon_per_participant=eps, delta=1e-6, output_length_s=1.0,
                                  public_labels=("task",), **kw)


def test_the_record_states_the_resolved_split_and_the_contrast_noise(wide_and_narrow):
    p = _params(10.0)
    g = guarantee(p, sample_shape(wide_and_narrow))
    assert g.parameters["split"]["label_contrast"] == lab.SHARE
    assert g.parameters["split"]["spread_y"] == pytest.approx(  # after the centre share's rule
        ParticipantSynthSplit().spread_y * (1 - centre_share(12, p.rho)) * (1 - lab.SHARE))
    rp = lab.resolve_params(p, 12, 2)
    assert g.parameters["noise_sd"][lab.CONTRAST] == pytest.approx(
        math.sqrt(2) / math.sqrt(2 * p.rho * lab.SHARE))
    assert g.parameters["noise_sd"]["density"] == pytest.approx(noise_sigma(rp, "density"))


def test_the_contrast_noise_has_the_stated_spread(wide_and_narrow):
    p = _params(10.0)
    setup = public_setup(p, sample_shape(wide_and_narrow))
    sums = population_sums(plan(p).client(wide_and_narrow, None)[1].parts)
    sigma = noise_sigma(lab.resolve_params(p, setup.n_input, len(setup.keys)), lab.CONTRAST)
    raw = np.stack([sums[k][lab.CONTRAST] for k in setup.keys])
    draws = [measure(p, setup, sums, np.random.default_rng(s))[lab.CONTRAST] - raw
             for s in range(300)]
    assert float(np.std(draws)) == pytest.approx(sigma, rel=0.05)


def test_keys_released_spreads_follow_their_contrast(wide_and_narrow):
    """At a large epsilon the keys' released sds differ by their measured (clipped) log-sd
    contrasts; with the contrast's share set to 0 the keys' spatial models are equal."""
    p = _params(1e4)
    msg = plan(p).client(wide_and_narrow, None)[1]
    sums = population_sums(msg.parts)
    true = {k[0]: v[lab.CONTRAST] / 6 * math.sqrt(3) * lab.CONTRAST_CLIP  # n / L = 6
            for k, v in sums.items()}
    assert abs(true["reading"][1] - true["free-viewing"][1]) > 0.2  # the keys differ
    model = plan(p).curate([msg], np.random.default_rng(0))
    sd = {k[0]: moments_gaussian(m.marginals)[1] for k, m in model.models.items()}
    for axis in (0, 1):
        ratio = math.log(sd["reading"][axis] / sd["free-viewing"][axis])
        assert ratio == pytest.approx(true["reading"][axis] - true["free-viewing"][axis],
                                      abs=0.01)
    off = replace(p, split=ParticipantSynthSplit(spread_x=0.0, label_contrast=0.0))
    model = plan(off).curate([plan(off).client(wide_and_narrow, None)[1]],
                             np.random.default_rng(0))
    a, b = model.models.values()
    for m in ("spread_y", "density", "saccade_direction"):
        np.testing.assert_array_equal(a.marginals[m], b.marginals[m])


def test_partition_wise_model_with_the_contrast_spent_equals_one_process(wide_and_narrow):
    """Partitions that cut participants apart (recordings sorted by task: every participant
    spans both partitions) give the one-process model bit for bit, with the contrast spent."""
    p = _params(10.0)
    recs = sorted(wide_and_narrow.recordings, key=lambda r: r.labels["task"])
    parts = [Dataset(tuple(recs[:9])), Dataset(tuple(recs[9:]))]
    phases = plan(p)
    whole = phases.curate([phases.client(wide_and_narrow, None)[1]], np.random.default_rng(0))
    split = phases.curate([phases.client(q, None)[1] for q in parts], np.random.default_rng(0))
    a, b = whole.models.values()
    assert not np.array_equal(a.marginals["saccade_direction"], b.marginals["saccade_direction"])
    for k in whole.models:
        for m, v in whole.models[k].marginals.items():
            np.testing.assert_array_equal(v, split.models[k].marginals[m])
