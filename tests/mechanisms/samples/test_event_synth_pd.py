# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""event-synth-PD: nothing raw is released, tests pass and fail as defined, honest records."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gazeprivacy.exceptions import InvalidParameterError, ReleaseRefusedError
from gazeprivacy.guarantees import Kind
from gazeprivacy.mechanisms.samples._event_synth_pd_privacy import _passes
from gazeprivacy.mechanisms.samples._event_synthesis import HOLDER_REPORT_KEY, fit_events
from gazeprivacy.mechanisms.samples.event_synth_pd import (
    PRIOR_SIGMA_DEG,
    EventSynthPDParams,
    event_synth_pd,
    guarantee,
)

pytest.importorskip("torch")


@pytest.fixture(scope="module", params=["paper", "sound"])
def released(make_event_dataset, request):
    ds, events = make_event_dataset(4, 2, rng=np.random.default_rng(3))
    kw = {"epsilon0": 1.0} if request.param == "sound" else {}
    params = EventSynthPDParams(k=2, gamma=3.0, cvae_epochs=20, mode=request.param, **kw)
    rel = event_synth_pd(ds, params, rng=np.random.default_rng(4), events=events)
    return ds, events, rel, params


def test_rows_order_and_labels_are_kept(released):
    ds, _, rel, _ = released
    assert [r.recording for r in rel.output] == [r.recording for r in ds]
    assert [r.n_samples for r in rel.output] == [r.n_samples for r in ds]
    assert [r.labels for r in rel.output] == [r.labels for r in ds]


def test_no_released_sample_equals_a_raw_sample(released):
    ds, _, rel, _ = released
    for raw, out in zip(ds, rel.output, strict=True):
        same = np.isclose(raw.x, out.x, rtol=0, atol=1e-12) & np.isclose(
            raw.y, out.y, rtol=0, atol=1e-12)
        assert not same.any()


def test_every_event_is_accounted_for(released):
    _, events, rel, _ = released
    stats = rel.output.info[HOLDER_REPORT_KEY]["event-synth-pd"]
    assert stats["events"] == events.height
    assert stats["released"] + stats["failed"] == stats["events"]
    assert stats["tries"] >= stats["events"]


def test_failed_events_are_suppressed_not_raw(make_event_dataset):
    ds, events = make_event_dataset(3, 1, rng=np.random.default_rng(8))
    # gamma = 1 only passes exact probability ties: every event fails and is suppressed.
    params = EventSynthPDParams(mode="paper", k=3, gamma=1.0, max_tries=2, cvae_epochs=2)
    rel = event_synth_pd(ds, params, rng=np.random.default_rng(0), events=events)
    stats = rel.output.info[HOLDER_REPORT_KEY]["event-synth-pd"]
    assert stats["failed"] == stats["events"] and stats["released"] == 0
    assert all(np.isnan(r.x).all() for r in rel.output)


def test_population_fallback_is_the_public_prior_not_the_data_mean(make_event_dataset):
    ds, events = make_event_dataset(3, 1, rng=np.random.default_rng(8))
    params = EventSynthPDParams(mode="paper", k=3, gamma=1.0, max_tries=1, cvae_epochs=2,
                                on_failure="population")
    rel = event_synth_pd(ds, params, rng=np.random.default_rng(0), events=events)
    assert rel.output.info[HOLDER_REPORT_KEY]["event-synth-pd"]["released"] == 0
    data_mean = np.vstack([fit_events(r, events.filter(events["recording"] == r.recording))
                           .fixation_params for r in ds]).mean(axis=0)[:2]
    assert np.hypot(*data_mean) > 3  # the toy data lie away from the prior's centre (0, 0)
    xs, ys = [], []
    for raw, out in zip(ds, rel.output, strict=True):
        fitted = fit_events(raw, events.filter(events["recording"] == raw.recording))
        for a, b in zip(fitted.onset[fitted.names == "fixation"],
                        fitted.offset[fitted.names == "fixation"], strict=True):
            xs.append(out.x[a:b])
            ys.append(out.y[a:b])
    x, y = np.concatenate(xs), np.concatenate(ys)
    # every failed fixation is drawn from N((0, 0), PRIOR_SIGMA^2): mean within 4 standard errors
    se = PRIOR_SIGMA_DEG / math.sqrt(x.size)
    assert abs(x.mean()) < 4 * se and abs(y.mean()) < 4 * se
    assert abs(x.std() / PRIOR_SIGMA_DEG - 1) < 4 / math.sqrt(2 * x.size)


def test_paper_test_counts_participants_once():
    params = EventSynthPDParams(mode="paper", k=3, gamma=2.0)
    lps = np.array([-10.0, -10.1, -10.2, -30.0])
    # two matching records of participant 1 and one of the seed's own participant 0
    owners = np.array([0, 1, 1, 2])
    assert not _passes(lps, owners, -10.0, 0, params, np.random.default_rng(0))
    owners = np.array([0, 1, 2, 2])
    lps = np.array([-10.0, -10.1, -10.2, -10.3])
    assert _passes(lps, owners, -10.0, 0, params, np.random.default_rng(0))


def test_ratio_bound_is_gamma():
    params = EventSynthPDParams(mode="paper", k=2, gamma=2.0)
    owners = np.array([0, 1])
    inside = np.array([-10.0, -10.0 - math.log(2.0) + 1e-9])
    outside = np.array([-10.0, -10.0 - math.log(2.0) - 1e-6])
    rng = np.random.default_rng(0)
    assert _passes(inside, owners, -10.0, 0, params, rng)
    assert not _passes(outside, owners, -10.0, 0, params, rng)


def test_sound_test_is_randomised_around_k():
    params = EventSynthPDParams(k=5, gamma=2.0, mode="sound", epsilon0=1.0)
    lps = np.full(5, -10.2)  # five records in the same gamma-interval as the seed
    rng = np.random.default_rng(1)
    rate = np.mean([_passes(lps, np.arange(5), -10.2, 0, params, rng) for _ in range(4000)])
    # P(5 >= 5 + Lap(1)) = 1/2; 4000 draws: standard error 0.008
    assert abs(rate - 0.5) < 4 * math.sqrt(0.25 / 4000)


def test_sound_test_never_passes_below_k():
    # the noisy threshold k + Lap(1/epsilon0) is floored at k: four records never pass k = 5
    params = EventSynthPDParams(k=5, gamma=2.0, mode="sound", epsilon0=0.1)
    lps = np.full(4, -10.2)
    rng = np.random.default_rng(2)
    assert not any(_passes(lps, np.arange(4), -10.2, 0, params, rng) for _ in range(2000))


@pytest.mark.parametrize("mode", ["paper", "sound"])
def test_guarantee_claims_plausible_deniability_only(mode):
    kw = {"epsilon0": 1.0} if mode == "sound" else {}
    g = guarantee(EventSynthPDParams(k=4, gamma=2.0, mode=mode, **kw))
    assert g.kind is Kind.PLAUSIBLE_DENIABILITY and g.k == 4 and g.gamma == 2.0
    assert g.epsilon is None and g.delta is None  # no (epsilon, delta) claim (issue 14, item 4)
    assert not g.formally_private
    assert any(f.code.value == "proof-gap" for f in g.flags)
    notes = " ".join(g.notes)
    for gap in ("own seed", "retried", "replaced by the public prior", "whole dataset",
                "fitted on the same data"):
        assert gap in notes, gap
    summary = g.summary()
    assert "epsilon" not in summary and "NOT FORMALLY PRIVATE" in summary
    assert all(b.epsilon is None and b.delta is None
               for b in g.compose({"p0": 10}).per_participant.values())


@pytest.mark.parametrize(("kwargs", "match"), [
    pytest.param({"k": 2, "gamma": 0.5}, r"gamma must be in \[1.0, inf\)", id="gamma_below_one"),
    pytest.param({"k": 2, "gamma": float("inf"), "epsilon0": 1.0}, r"got inf",
                 id="gamma_infinite"),
    pytest.param({"k": 2, "gamma": 2.0, "mode": "sound"}, "needs epsilon0", id="sound_no_eps0"),
    pytest.param({"k": 2, "gamma": 2.0, "mode": "paper", "epsilon0": 1.0},
                 "belongs to mode='sound'", id="eps0_in_paper_mode"),
    pytest.param({"k": 2, "gamma": 2.0}, "needs epsilon0", id="sound_is_the_default"),
    pytest.param({"k": 2, "gamma": 2.0, "mode": "exact"}, "mode must be one of", id="unknown_mode"),
])
def test_bad_parameters_are_named(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        EventSynthPDParams(**kwargs)


def test_fewer_participants_than_k(make_event_dataset):
    ds, events = make_event_dataset(2, 1, rng=np.random.default_rng(0))
    with pytest.raises(ReleaseRefusedError, match="needs at least k=3 participants"):
        event_synth_pd(ds, EventSynthPDParams(k=3, gamma=2.0, mode="paper"),
                       rng=np.random.default_rng(0),
                       events=events)
