# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
import warnings

import numpy as np
import pytest

from gazeprivacy.data.partitioned import split_dataset
from gazeprivacy.data.recording import Dataset
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.engines.plan import (
    PartitionPlan,
    combine_guarantees,
    partition_streams,
    plan_for,
)
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.guarantees import Guarantee, Kind, Unit
from gazeprivacy.mechanisms import protect
from gazeprivacy.mechanisms.noise.oue import oue_q, oue_variance
from gazeprivacy.mechanisms.samples import dpgazesynth as dgs
from gazeprivacy.mechanisms.samples.dpgazesynth import DPGazeSynthParams
from gazeprivacy.mechanisms.samples.kaleido import KaleidoParams, kaleido
from gazeprivacy.rng import spawn


@pytest.fixture(scope="module")
def ds():
    # 3 participants x 2 tasks = 6 recordings; a participant's recordings are consecutive, so
    # partitions of 3 recordings make participant 2 span partitions 0 and 1
    return simulate_dataset(n_participants=3, tasks=("reading", "free-viewing"), duration_s=3.0,
                            sampling_rate_hz=100, rng=np.random.default_rng(5))


def run(plan, parts, seed, order=None):
    """Both phases over in-memory partitions, client phases in ``order``; state recomputed."""
    streams = partition_streams(seed, len(parts))
    order = list(range(len(parts))) if order is None else order
    msgs = {i: plan.client(parts[i], streams.client(i))[1] for i in order}
    model = plan.curate([msgs[i] for i in range(len(parts))], streams.curator())
    out = {}
    for i in order:
        state, _ = plan.client(parts[i], streams.client(i))  # recomputed, as engine "local"
        out[i] = plan.release(parts[i], state, model, streams.release(i))
    return [out[i] for i in range(len(parts))], model


PARAMS = DPGazeSynthParams(epsilon=4.0, grid_size=6)


def test_plans_satisfy_the_protocol():
    assert isinstance(plan_for("dpgazesynth", PARAMS), PartitionPlan)
    assert isinstance(plan_for("kaleido", epsilon=1.0, radius_deg=1.0, window_samples=10),
                      PartitionPlan)
    assert isinstance(plan_for("k-same-synth", k=2), PartitionPlan)


@pytest.mark.parametrize("mechanism, kwargs, match", [
    ("event-synth-pd", {"k": 2, "gamma": 2.0, "mode": "paper"}, "C-VAE"),
    ("series-fpa", None, "series"),
    ("heatmap-gaussian", None, "heatmap"),
])
def test_unsupported_mechanisms_name_why_and_the_way_out(mechanism, kwargs, match):
    from gazeprivacy.mechanisms import MECHANISMS

    if kwargs is None:  # any valid params: the refusal comes before they matter
        p = object.__new__(MECHANISMS[mechanism].params_type)
    else:
        p = MECHANISMS[mechanism].params_type(**kwargs)
    with pytest.raises(InvalidParameterError, match=f"cannot run partition-wise.*{match}"
                       ".*single file"):
        plan_for(mechanism, p)


def test_streams_are_deterministic_distinct_and_carry_os_entropy():
    s = partition_streams(11, 3)
    draws = {(kind, i): float(getattr(s, kind)(i).random())
             for kind in ("client", "release") for i in range(3)}
    assert len(set(draws.values())) == 6
    assert float(s.curator().random()) not in draws.values()
    again = partition_streams(np.random.SeedSequence(11), 3)
    assert float(again.release(2).random()) == draws[("release", 2)]
    free = partition_streams(None, 2)
    assert float(free.client(0).random()) == float(free.client(0).random())
    with pytest.raises(IndexError):
        s.client(3)
    with pytest.raises(InvalidParameterError, match="n_partitions"):
        partition_streams(1, 0)


def test_dpgazesynth_partitionwise_keeps_recordings_rows_and_missing_mask(ds):
    parts = split_dataset(ds, 3)
    rels, model = run(plan_for("dpgazesynth", PARAMS), parts, seed=1)
    out = [r for rel in rels for r in rel.output]
    assert [r.recording for r in out] == [r.recording for r in ds]
    for a, b in zip(out, ds, strict=True):
        assert a.n_samples == b.n_samples
        np.testing.assert_array_equal(a.t, b.t)
        np.testing.assert_array_equal(np.isnan(a.x), np.isnan(b.x))  # missing="keep"
        assert not np.array_equal(a.x[~np.isnan(a.x)], b.x[~np.isnan(b.x)])
    assert model.probs.shape == (36, 8)
    np.testing.assert_allclose(model.probs.sum(axis=1), 1.0)


def test_combined_record_composes_a_spanning_participant_over_both_partitions(ds):
    parts = split_dataset(ds, 3)
    spanning = ds.recordings[2].participant
    assert spanning in parts[0].participants and spanning in parts[1].participants
    rels, _ = run(plan_for("dpgazesynth", PARAMS), parts, seed=2)
    combined = combine_guarantees([r.guarantee for r in rels])
    whole = protect(ds, mechanism="dpgazesynth", params=PARAMS, seed=2).guarantee
    assert combined.per_participant.keys() == whole.per_participant.keys()
    for pid, b in whole.per_participant.items():
        assert combined.per_participant[pid].units == b.units
        assert combined.per_participant[pid].epsilon == pytest.approx(b.epsilon)
    w = 50  # 0.5 s at 100 Hz; 300 samples per recording -> 6 windows, 2 recordings
    assert combined.per_participant[spanning].units == 12
    assert combined.per_participant[spanning].epsilon == pytest.approx(12 * 4.0)
    assert rels[0].guarantee.per_participant[spanning].units == 300 // w
    assert combined.epsilon == whole.epsilon and combined.unit is Unit.WINDOW


def test_combine_guarantees_explicit_units_and_mismatch():
    g = Guarantee(mechanism="m", kind=Kind.LOCAL_DP, unit=Unit.WINDOW, epsilon=0.5)
    assert combine_guarantees([g, g], {"a": 4}).per_participant["a"].epsilon == 2.0
    with pytest.raises(InvalidParameterError, match="no per-participant"):
        combine_guarantees([g])
    other = Guarantee(mechanism="m", kind=Kind.LOCAL_DP, unit=Unit.WINDOW, epsilon=1.0)
    with pytest.raises(InvalidParameterError, match="disagree on epsilon"):
        combine_guarantees([g.compose({"a": 1}), other.compose({"a": 1})])
    with pytest.raises(InvalidParameterError):
        combine_guarantees([])


def test_output_does_not_depend_on_the_order_partitions_are_processed_in(ds):
    parts = split_dataset(ds, 2)
    plan = plan_for("dpgazesynth", PARAMS)
    a, ma = run(plan, parts, seed=3)
    b, mb = run(plan, parts, seed=3, order=[2, 0, 1])
    np.testing.assert_array_equal(ma.probs, mb.probs)
    for ra, rb in zip(a, b, strict=True):
        for x, y in zip(ra.output, rb.output, strict=True):
            np.testing.assert_array_equal(x.x, y.x)
            np.testing.assert_array_equal(x.y, y.y)
    # the curator's reduction is order-free too (integer-valued column sums)
    streams = partition_streams(3, 3)
    msgs = [plan.client(p, streams.client(i))[1] for i, p in enumerate(parts)]
    np.testing.assert_array_equal(plan.curate(msgs, streams.curator()).probs,
                                  plan.curate(msgs[::-1], streams.curator()).probs)


def test_client_messages_are_small_and_the_report_values_are_those_of_one_pass(ds):
    parts = split_dataset(ds, 2)
    plan = plan_for("dpgazesynth", PARAMS)
    d = 8 * PARAMS.grid_size ** 2
    whole = dgs.client_release(ds.recordings, PARAMS, np.random.default_rng(0))
    counts = {e: np.bincount(v, minlength=d + 1) for e, v in whole.reports.items()}
    summed = {e: np.zeros(d + 1, dtype=np.int64) for e in counts}
    for i, p in enumerate(parts):
        state, msg = plan.client(p, np.random.default_rng(i))
        for e, (sums, n) in msg.items():
            assert sums.shape == (d + 1,)  # O(model size), not O(samples)
            assert n == state.reports[e].size
            summed[e] += np.bincount(state.reports[e], minlength=d + 1)
    for e in counts:
        np.testing.assert_array_equal(summed[e], counts[e])


def test_two_phase_oue_sums_are_unbiased_and_distributed_as_one_pass(ds):
    """Sum over partitions of per-partition OUE column sums vs the one-pass aggregate: both
    have mean c/2 + (n - c) q and variance c/4 + (n - c) q (1 - q) per index (sums of
    independent binomials), and the estimate has mean c. 4 standard errors, fixed seed."""
    parts = split_dataset(ds, 2)
    plan = plan_for("dpgazesynth", PARAMS)
    d = 8 * PARAMS.grid_size ** 2
    rng = np.random.default_rng(20261126)
    states = [plan.client(p, np.random.default_rng(i))[0] for i, p in enumerate(parts)]
    whole = dgs.client_release(ds.recordings, PARAMS, np.random.default_rng(0))
    (eps,) = whole.reports  # one sampling rate -> one report budget
    c = np.bincount(whole.reports[eps], minlength=d + 1).astype(float)
    n = int(c.sum())
    q = oue_q(epsilon=eps)
    reps = 400
    two = np.empty((reps, d + 1))
    one = np.empty((reps, d + 1))
    est = np.zeros(d + 1)
    for k in range(reps):
        msgs = [dgs.perturb_reports(s, PARAMS, g) for s, g in zip(states, spawn(rng, len(states)),
                                                           strict=True)]
        two[k] = sum(m[eps][0] for m in msgs)
        assert sum(m[eps][1] for m in msgs) == n
        one[k] = dgs.perturb_reports(whole, PARAMS, rng)[eps][0]
        est += (two[k] - n * q) / (0.5 - q)
    mean = c / 2 + (n - c) * q
    var = c / 4 + (n - c) * q * (1 - q)
    for sample in (two, one):
        z = (sample.mean(axis=0) - mean) / np.sqrt(var / reps)
        assert np.abs(z).max() < 4.0
    # variance of the busiest index: sample variance within 4 SE (sqrt(2 / (R - 1)) var)
    j = int(np.argmax(c))
    for sample in (two, one):
        assert abs(sample[:, j].var(ddof=1) - var[j]) < 4 * var[j] * np.sqrt(2 / (reps - 1))
    # the estimate is unbiased for the true counts
    se = np.sqrt(np.array([oue_variance(n=n, epsilon=eps, true_count=x) for x in c]) / reps)
    assert np.abs((est / reps - c) / se).max() < 4.0
    # and the transition model the curator builds from them is the one-pass post-processing
    msgs = [dgs.perturb_reports(s, PARAMS, np.random.default_rng(9)) for s in states]
    tot = sum(m[eps][0] for m in msgs)
    ref = dgs.transition_model_from_estimates(((tot - n * q) / (0.5 - q))[:d],
                                              PARAMS.grid_size, n)
    np.testing.assert_allclose(plan.curate(msgs, np.random.default_rng(0)).probs, ref.probs)


def test_client_reports_path_runs_partitionwise(ds):
    p = DPGazeSynthParams(epsilon=4.0, grid_size=4, oue_path="client-reports")
    rels, model = run(dgs.DPGazeSynthPhases(params=p), split_dataset(ds, 4), seed=4)
    assert sum(len(r.output) for r in rels) == len(ds)
    assert model.n_reports > 0


def test_kaleido_partitionwise_equals_per_recording_kaleido(ds):
    params = KaleidoParams(epsilon=1.0, radius_deg=2.0, window_samples=20)
    parts = split_dataset(ds, 4)
    rels, _ = run(plan_for("kaleido", params), parts, seed=5)
    streams = partition_streams(5, len(parts))
    for i, (part, rel) in enumerate(zip(parts, rels, strict=True)):
        for rec, out, g in zip(part, rel.output, spawn(streams.release(i), len(part)),
                               strict=True):
            ref = kaleido(rec, params, rng=g).output
            np.testing.assert_array_equal(out.x, ref.x)
            np.testing.assert_array_equal(out.y, ref.y)
    combined = combine_guarantees([r.guarantee for r in rels])
    whole = protect(ds, mechanism="kaleido", params=params, seed=5).guarantee
    assert {k: b.epsilon for k, b in combined.per_participant.items()} == pytest.approx(
        {k: b.epsilon for k, b in whole.per_participant.items()})


def test_k_same_synth_groups_across_partitions():
    ds = simulate_dataset(n_participants=4, tasks=("reading",), duration_s=3.0,
                          sampling_rate_hz=100, rng=np.random.default_rng(8))
    ds = Dataset(tuple(r for r in ds), name="k")
    parts = split_dataset(ds, 1)  # every group spans partitions
    plan = plan_for("k-same-synth", k=2, group_by="task")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rels, model = run(plan, parts, seed=6)
    assert set(model.synthetic) == {r.recording for r in ds} and model.k == 2
    # k-anonymity: members of a group release prefixes of one parameter sequence
    fix = [model.synthetic[r.recording].fixation_params for r in ds]
    shared = 0
    for i in range(len(fix)):
        for j in range(len(fix)):
            m = min(len(fix[i]), len(fix[j]))
            if i != j and m and np.array_equal(fix[i][:m], fix[j][:m]):
                shared += 1
    assert shared >= len(fix)  # every recording has at least one partner
    out = [r for rel in rels for r in rel.output]
    assert [r.n_samples for r in out] == [r.n_samples for r in ds]
    combined = combine_guarantees([r.guarantee for r in rels])
    assert combined.kind is Kind.K_ANONYMITY and combined.k == 2
    assert set(combined.per_participant) == set(ds.participants)


def test_merged_messages_give_the_same_model_in_any_grouping(ds):
    parts = split_dataset(ds, 1)
    plan = plan_for("dpgazesynth", PARAMS)
    streams = partition_streams(12, len(parts))
    msgs = [plan.client(p, streams.client(i))[1] for i, p in enumerate(parts)]
    ref = plan.curate(msgs, streams.curator())
    folded = [msgs[0]]
    for m in msgs[1:]:
        folded = [plan.merge([*folded, m])]
    tree = plan.merge([plan.merge(msgs[:3]), plan.merge(msgs[3:])])
    for got in (plan.curate(folded, streams.curator()), plan.curate([tree], streams.curator())):
        np.testing.assert_array_equal(got.probs, ref.probs)
        assert got.n_reports == ref.n_reports
