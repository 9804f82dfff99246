# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""k-same-synth: groups share parameters, rows and labels are kept, errors are named."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.guarantees import Kind
from gazeprivacy.mechanisms.samples._event_synthesis import HOLDER_REPORT_KEY, fit_events
from gazeprivacy.mechanisms.samples.k_same_synth import (
    KSameSynthParams,
    _group_members,
    guarantee,
    k_same_synth,
    min_group_size,
    synthetic_parameters,
)


def _fitted_means(ds, events):
    out = {}
    for rec in ds:
        f = fit_events(rec, events.filter(events["recording"] == rec.recording))
        out[rec.recording] = f.fixation_params[:, :2]
    return out


def test_groups_release_identical_fixation_centres(rng, make_event_dataset):
    ds, events = make_event_dataset(6, 2, rng=rng)
    rel = k_same_synth(ds, KSameSynthParams(k=3), rng=np.random.default_rng(1), events=events)
    assert [r.recording for r in rel.output] == [r.recording for r in ds]
    assert [r.n_samples for r in rel.output] == [r.n_samples for r in ds]
    # Fixation centres of the released data: each equals the centre of >= 2 other recordings.
    centres = _fitted_means(rel.output, events)
    for s in ("s0", "s1"):
        ids = [r.recording for r in ds if r.labels["stimulus"] == s]
        first = np.array([centres[i][0] for i in ids])
        # three recordings per group: pairwise distances show two clusters of three
        d = np.linalg.norm(first[:, None] - first[None], axis=-1)
        close = (d < 0.15).sum(axis=1)  # sampling noise of 25 draws with sigma ~0.1
        assert (close >= 3).all(), d.round(2)


def test_released_samples_are_not_the_raw_ones(rng, make_event_dataset):
    ds, events = make_event_dataset(4, 1, rng=rng)
    rel = k_same_synth(ds, KSameSynthParams(k=2), rng=np.random.default_rng(2), events=events)
    for a, b in zip(ds, rel.output, strict=True):
        assert not np.any(np.isclose(a.x, b.x))


def test_same_seed_same_output(rng, make_event_dataset):
    ds, events = make_event_dataset(4, 1, rng=rng)
    p = KSameSynthParams(k=2)
    a = k_same_synth(ds, p, rng=np.random.default_rng(5), events=events).output
    b = k_same_synth(ds, p, rng=np.random.default_rng(5), events=events).output
    assert all(np.array_equal(r.x, s.x, equal_nan=True) for r, s in zip(a, b, strict=True))


def test_guarantee_is_k_anonymity_with_timing_flag(rng, make_event_dataset):
    ds, events = make_event_dataset(4, 2, rng=rng)
    g = k_same_synth(ds, KSameSynthParams(k=2), rng=rng, events=events).guarantee
    assert g.kind is Kind.K_ANONYMITY and g.k == 2
    assert not g.formally_private
    assert "timing" in g.flags[0].message
    assert json.loads(g.to_json())["per_participant"]["p0"]["units"] == 2


def test_too_few_participants_for_k_is_named(rng, make_event_dataset):
    ds, events = make_event_dataset(3, 1, rng=rng)
    with pytest.raises(InvalidDataError, match="stimulus='s0' has 3 participants, fewer than k=4"):
        k_same_synth(ds, KSameSynthParams(k=4), rng=rng, events=events)


def test_k_below_two_is_refused():
    with pytest.raises(InvalidParameterError, match="k must be an integer >= 2"):
        KSameSynthParams(k=1)


def test_nan_rows_stay_missing(rng, make_event_dataset):
    ds, events = make_event_dataset(2, 1, rng=rng)
    rec = ds[0]
    x = rec.x.copy()
    y = rec.y.copy()
    x[3:6] = np.nan
    y[3:6] = np.nan
    ds2 = ds.map(lambda r: r.with_gaze(x, y) if r.recording == rec.recording else r)
    out = k_same_synth(ds2, KSameSynthParams(k=2), rng=rng, events=events).output
    assert np.isnan(out[0].x[3:6]).all() and not np.isnan(out[0].x[6:]).any()


def test_overshooting_saccades_are_clamped_to_the_geometry(rng, make_event_dataset):
    from gazeprivacy.data import Geometry

    ds, events = make_event_dataset(2, 1, rng=rng)
    tight = Geometry(x_min_deg=2.0, x_max_deg=6.0, y_min_deg=2.0, y_max_deg=6.0)
    ds = ds.map(lambda r: r.with_gaze(r.x, r.y, geometry=tight))
    out = k_same_synth(ds, KSameSynthParams(k=2), rng=rng, events=events).output
    for r in out:
        ok = ~np.isnan(r.x)
        assert tight.contains(r.x[ok], r.y[ok]).all()


# --- k holds for every event type; k in the record is the smallest group (issue 14, item 5) --


def test_a_type_few_members_have_comes_from_the_population_never_from_one_member():
    g = np.random.default_rng(0)
    fix = [g.normal(size=(3, 4)) for _ in range(4)]
    a, b, c = (g.normal(size=(n, 30)) for n in (2, 3, 1))
    sac = [a, np.zeros((0, 30)), b, c]  # member 1 has no saccades
    synth, report = synthetic_parameters(["s"] * 4, [[0, 1], [2, 3]], fix, sac, 2)
    # group [0, 1]: one member with saccades (< k): member 0 gets the padded mean over every
    # recording of the key with saccades, not its own profiles
    pad = [np.vstack([s, np.repeat(s[-1:], 3 - s.shape[0], axis=0)]) for s in (a, b, c)]
    np.testing.assert_allclose(synth[0].saccade_profiles, np.mean(pad, axis=0)[:2])
    assert not np.allclose(synth[0].saccade_profiles, a)
    # group [2, 3]: both have saccades: their own padded mean
    np.testing.assert_allclose(synth[2].saccade_profiles, np.mean(pad[1:], axis=0))
    np.testing.assert_allclose(synth[3].saccade_profiles, np.mean(pad[1:], axis=0)[:1])
    assert synth[1].saccade_profiles.shape == (0, 30) and not synth[1].drop_saccades
    assert report["recordings_on_population_mean"] == 1
    assert report["recordings_suppressed_type"] == 0
    # fixations: every member has them, each group shares its mean
    np.testing.assert_allclose(synth[0].fixation_params, (fix[0] + fix[1]) / 2)


def test_a_type_fewer_than_k_of_the_key_have_is_suppressed(rng, make_event_dataset):
    ds, events = make_event_dataset(2, 1, rng=rng)
    # p1 loses its saccades: p0 is the only recording of s0 with saccades (< k = 2)
    events = events.filter(~((events["recording"] == "p1-s0") & (events["name"] == "saccade")))
    rel = k_same_synth(ds, KSameSynthParams(k=2), rng=np.random.default_rng(3), events=events)
    fit = fit_events(ds[0], events.filter(events["recording"] == "p0-s0"))
    for a, b in zip(fit.onset[fit.names == "saccade"], fit.offset[fit.names == "saccade"],
                    strict=True):
        assert np.isnan(rel.output[0].x[a:b]).all()
    report = rel.output.info[HOLDER_REPORT_KEY]["k-same-synth"]
    assert report["recordings_suppressed_type"] == 1
    assert not np.isnan(rel.output[1].x).all()  # p1's fixations are released


@pytest.mark.parametrize(("n", "k"), [(2, 2), (3, 2), (5, 2), (7, 3), (8, 4), (11, 4)])
def test_groups_are_never_smaller_than_k_and_the_record_says_the_smallest(n, k,
                                                                         make_event_dataset):
    ds, events = make_event_dataset(n, 1, rng=np.random.default_rng(n), n_fixations=2)
    keys = [r.label("stimulus") for r in ds]
    groups = _group_members(keys, [r.participant for r in ds], KSameSynthParams(k=k),
                            np.random.default_rng(0))
    sizes = sorted(len(m) for m in groups)
    assert min_group_size(keys, KSameSynthParams(k=k)) == sizes[0]
    assert sorted(i for m in groups for i in m) == list(range(n))
    assert sizes[0] >= k and sizes[-1] < 2 * k
    g = k_same_synth(ds, KSameSynthParams(k=k), rng=np.random.default_rng(0),
                     events=events).guarantee
    assert g.k == min(sizes) and g.parameters["min_group_size"] == min(sizes)


def test_a_record_cannot_claim_more_than_its_smallest_group():
    with pytest.raises(InvalidDataError, match="smaller than k=3"):
        guarantee(KSameSynthParams(k=3), min_group_size=2)


def test_counts_go_to_the_holder_report_not_the_release_metadata(rng, make_event_dataset):
    ds, events = make_event_dataset(4, 1, rng=rng)
    out = k_same_synth(ds, KSameSynthParams(k=2), rng=rng, events=events).output
    assert set(out.info) == set(ds.info) | {HOLDER_REPORT_KEY}
    assert set(out.info[HOLDER_REPORT_KEY]) == {"k-same-synth"}


def test_the_record_k_is_what_every_sequence_averages(rng, make_event_dataset):
    # three participants, k = 2: one group of three, so the record says k = 3; two of them have
    # saccades (< 3), so those saccades are suppressed rather than averaged over two
    ds, events = make_event_dataset(3, 1, rng=rng)
    events = events.filter(~((events["recording"] == "p2-s0") & (events["name"] == "saccade")))
    rel = k_same_synth(ds, KSameSynthParams(k=2), rng=np.random.default_rng(1), events=events)
    assert rel.guarantee.k == 3
    assert rel.output.info[HOLDER_REPORT_KEY]["k-same-synth"]["recordings_suppressed_type"] == 2
    for raw, out in zip(ds, rel.output, strict=True):
        fit = fit_events(raw, events.filter(events["recording"] == raw.recording))
        for a, b in zip(fit.onset[fit.names == "saccade"], fit.offset[fit.names == "saccade"],
                        strict=True):
            assert np.isnan(out.x[a:b]).all()
