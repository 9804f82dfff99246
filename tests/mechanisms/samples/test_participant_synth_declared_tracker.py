# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth with a declared tracker: read as a participant's, released as declared,
nothing of the input's tracker measured, its budget spent on the other marginals."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.mechanisms.contract import sample_shape
from gazeprivacy.mechanisms.samples._participant_synth_quality import (
    QUALITY,
    DeclaredTracker,
    quality_parts,
    tracker_values,
)
from gazeprivacy.mechanisms.samples.participant_synth import (
    ParticipantSynthParams,
    ParticipantSynthSplit,
    guarantee,
    noise_sigma,
    participant_synth,
    plan,
)

__all__: list[str] = []

PILOT = DeclaredTracker(median_step_deg=0.4, step_correlation=0.3, missing_share=0.1,
                        shoulder=1.8, source="experimenter pilot")


def _rec(x: np.ndarray, y: np.ndarray, rid: str = "r") -> Recording:
    return Recording.from_arrays(recording=rid, participant="pilot", x=x, y=y,
                                 sampling_rate_hz=100)


def _params(**kw) -> ParticipantSynthParams:
    return ParticipantSynthParams(**{"epsilon_per_participant": 3.0, "delta": 1e-6,
                                     "output_length_s": 4.0, **kw})


@pytest.fixture(scope="module")
def population() -> Dataset:
    return simulate_dataset(n_participants=5, tasks=("free-viewing",), duration_s=4.0,
                            sampling_rate_hz=100, rng=np.random.default_rng(3))


def test_a_pilot_is_read_as_a_participant_is():
    """White noise of sd 0.1 per axis with 5 % of the samples missing: median 2-D step
    sqrt(2 ln 2) x sqrt(2) x 0.1 = 0.1665 deg, step correlation -0.5, shoulder (Rayleigh)
    sqrt(ln 4 / ln 2) = 1.414, within the fine histogram's 0.02 decade (5 %) and sampling
    error at 20,000 samples; the values are those a participant's one-hot histograms read."""
    rng = np.random.default_rng(1)
    x, y = 0.1 * rng.standard_normal(20000), 0.1 * rng.standard_normal(20000)
    gone = rng.random(20000) < 0.05
    x[gone], y[gone] = np.nan, np.nan
    recs = [_rec(x, y)]
    t = DeclaredTracker.from_recordings(recs, source="pilot")
    assert t.median_step_deg == pytest.approx(0.1665, rel=0.05)
    assert t.step_correlation == pytest.approx(-0.5, abs=0.05)
    assert t.shoulder == pytest.approx(math.sqrt(2.0), rel=0.06)
    assert t.missing_share == pytest.approx(0.05, abs=0.005)
    values = tracker_values(quality_parts(recs))
    assert {m: float(c[0]) for m, c in t.centres().items()} == pytest.approx(values)


def test_a_pilot_without_valid_samples_is_refused():
    gone = np.full(50, np.nan)
    with pytest.raises(InvalidDataError, match="no three consecutive valid samples"):
        DeclaredTracker.from_recordings([_rec(gone, gone)], source="pilot")


@pytest.mark.parametrize(("field", "value", "message"), [
    ("median_step_deg", -0.1, "median_step_deg must be finite and > 0"),
    ("median_step_deg", math.inf, "median_step_deg must be finite and > 0"),
    ("step_correlation", 1.0, r"step_correlation must be in \[-1, 1\)"),
    ("missing_share", 1.0, r"missing_share must be in \[0, 1\)"),
    ("shoulder", 0.9, "shoulder must be finite and >= 1"),
    ("source", " ", "needs its source"),
])
def test_bad_declared_values_are_refused(field, value, message):
    with pytest.raises(InvalidParameterError, match=message):
        replace(PILOT, **{field: value})


def test_a_declared_tracker_frees_its_shares_for_the_other_marginals():
    """Nothing of the tracker is measured; every other marginal gets its share times
    1 / (1 - 0.23) (the default split's tracker total), the total unchanged, and a second
    resolution (``replace``) changes nothing."""
    plain, declared = _params(), _params(tracker=PILOT)
    a, b = plain.split.shares(), declared.split.shares()
    assert all(b[m] == 0.0 and noise_sigma(declared, m) is None for m in QUALITY)
    scale = 1.0 / (1.0 - sum(a[m] for m in QUALITY))
    for m in a:
        if m not in QUALITY and a[m] > 0:
            assert b[m] == pytest.approx(a[m] * scale, rel=1e-12), m
            assert noise_sigma(declared, m) < noise_sigma(plain, m)
    assert math.fsum(b.values()) == pytest.approx(math.fsum(a.values()), abs=1e-12)
    assert replace(declared, output_length_s=2.0).split == declared.split
    assert ParticipantSynthSplit(tracker_step=1.0, mean_x=0.0, mean_y=0.0, spread_x=0.0,
                                 spread_y=0.0, density=0.0, fixation_duration=0.0,
                                 saccade_amplitude=0.0, saccade_direction=0.0,
                                 event_rate=0.0, tracker_smooth=0.0, tracker_missing=0.0,
                                 tracker_tail=0.0, label_weight=0.0).without_tracker(
                                 ).tracker_step == 0.0  # nothing else to give it to


def test_the_record_says_the_tracker_is_declared_and_where_it_came_from(population):
    g = guarantee(_params(tracker=PILOT), sample_shape(population))
    assert g.parameters["declared_tracker"] == PILOT.to_dict()
    assert all(g.parameters["split"][m] == 0.0 for m in QUALITY)
    assert any("declared public by the user, from 'experimenter pilot'" in n for n in g.notes)
    assert "declared tracker's missing share" in g.columns[0].note
    assert guarantee(_params(), sample_shape(population)).parameters["declared_tracker"] is None


def test_the_released_tracker_is_the_declared_one_whatever_the_input(population):
    """Two inputs whose trackers differ by a factor of 20 in noise: with a declared tracker
    both release exactly the declared centres (sd 0), and the curator draws no noise for the
    tracker (its generator's state after the tracker-free measurements is the same)."""
    noisy = Dataset(tuple(r.with_gaze(r.x + np.random.default_rng(0).normal(0, 2.0, r.x.size),
                                      r.y) for r in population))
    phases = plan(_params(tracker=PILOT))
    for ds in (population, noisy):
        _, msg = phases.client(ds, None)
        model = phases.curate([msg], np.random.default_rng(7))
        (key_model,) = model.models.values()
        for m, centre in PILOT.centres().items():
            assert np.array_equal(key_model.marginals[m], centre), m


def test_the_rendered_release_has_the_declared_tracker(population):
    """Rendered at the declared median step 0.4 deg (far above the simulator's eye signal)
    and 10 % missing: every recording's median step within 25 % of it (each recording's values
    drawn around the centre with the public spreads: 0.15 decade on the step), the pooled
    missing share between 5 and 15 %."""
    rel = participant_synth(population, _params(tracker=PILOT, recordings_per_participant=4),
                            rng=np.random.default_rng(2))
    steps = [np.nanmedian(np.hypot(np.diff(r.x), np.diff(r.y))) for r in rel.output]
    assert np.median(steps) == pytest.approx(0.4, rel=0.25)
    missing = np.mean(np.concatenate([np.isnan(r.x) for r in rel.output]))
    assert 0.05 < missing < 0.15


# -- a declared population of trackers (pilots on several people) --------------------------

QUIET = DeclaredTracker(median_step_deg=0.02, step_correlation=-0.5, missing_share=0.0,
                        shoulder=1.45, source="pilot on a chin rest")
LOUD = DeclaredTracker(median_step_deg=1.0, step_correlation=-0.5, missing_share=0.0,
                       shoulder=1.45, source="pilot in a headset")


def test_a_population_is_kept_as_a_tuple_and_refused_empty_or_mixed():
    p = _params(tracker=[QUIET, LOUD])
    assert p.tracker == (QUIET, LOUD) and p.declared_trackers == (QUIET, LOUD)
    assert _params(tracker=PILOT).declared_trackers == (PILOT,)
    assert _params().declared_trackers == ()
    assert all(p.split.shares()[m] == 0.0 for m in QUALITY)
    with pytest.raises(InvalidParameterError, match="empty population"):
        _params(tracker=[])
    with pytest.raises(InvalidParameterError, match="DeclaredTracker or a sequence"):
        _params(tracker=[QUIET, {"median_step_deg": 1.0}])


def test_the_record_lists_every_declared_tracker(population):
    g = guarantee(_params(tracker=(QUIET, LOUD)), sample_shape(population))
    assert g.parameters["declared_tracker"] == [QUIET.to_dict(), LOUD.to_dict()]
    note = next(n for n in g.notes if "declared public by the user" in n)
    assert "population of 2" in note and "'pilot in a headset'" in note
    assert "takes one of them at random" in note


def test_each_synthetic_participant_takes_one_declared_tracker(population):
    """Median steps of 0.02 and 1.0 deg, a factor of 50 apart: every recording's median step
    is within a factor of 4 of one of them (each recording's values are drawn around its
    participant's with the public spread, 0.15 decade: a factor of 4 is 4 sd; the
    simulator's own eye signal steps about 0.01-0.03 deg at 100 Hz, so the quiet tracker's
    recordings step at most that), all recordings of a synthetic participant near the same
    one, and both trackers in use among 12 synthetic participants (at this seed; each takes
    one at random)."""
    rel = participant_synth(population, _params(tracker=(QUIET, LOUD), n_participants=12,
                                                recordings_per_participant=3),
                            rng=np.random.default_rng(4))
    which: dict[str, set[str]] = {}
    for r in rel.output:
        step = float(np.nanmedian(np.hypot(np.diff(r.x), np.diff(r.y))))
        kind = "loud" if step > 0.15 else "quiet"
        assert (0.25 < step < 4.0) if kind == "loud" else (step < 0.08), (r.recording, step)
        which.setdefault(r.participant, set()).add(kind)
    assert len(which) == 12 and all(len(k) == 1 for k in which.values())
    assert {k for ks in which.values() for k in ks} == {"quiet", "loud"}


def test_one_tracker_in_a_list_releases_what_the_tracker_itself_does(population):
    a = participant_synth(population, _params(tracker=PILOT), rng=np.random.default_rng(5))
    b = participant_synth(population, _params(tracker=[PILOT]), rng=np.random.default_rng(5))
    assert all(np.array_equal(p.x, q.x, equal_nan=True) and np.array_equal(p.y, q.y,
               equal_nan=True) for p, q in zip(a.output, b.output, strict=True))
    assert a.guarantee == b.guarantee


def test_a_population_renders_the_same_bits_partition_wise(population):
    """Each synthetic participant draws its tracker from its own stream: the engines'
    partition-wise release equals the one-process release."""
    p = _params(tracker=(QUIET, LOUD), n_participants=6)
    one = participant_synth(population, p, rng=np.random.default_rng(6))
    parts = [Dataset(population.recordings[:2]), Dataset(population.recordings[2:])]
    phases = plan(p)
    root = np.random.default_rng(6)
    bound = phases.assign([phases.shape(q) for q in parts], root)
    msgs = [bound.client(i, q, None) for i, q in enumerate(parts)]
    model, pieces = bound.curate(msgs, None)
    outs = [bound.release(i, q, model, pieces[i], None) for i, q in enumerate(parts)]
    got = [r for o in outs for r in o.output]
    assert [r.recording for r in got] == [r.recording for r in one.output]
    assert all(np.array_equal(p.x, q.x, equal_nan=True) for p, q in zip(got, one.output,
                                                                        strict=True))


def test_a_tracker_read_from_a_participant_of_the_input_is_refused_on_every_path(population):
    """Its values would be written without noise: the client phase refuses the input, so the
    in-process release and every partition of a partition-wise run do (a pilot of its own, the
    same values under another id, is accepted; the ids stay out of the record)."""
    first = sorted(population.participants)[0]
    theirs = DeclaredTracker.from_recordings(
        [r for r in population if r.participant == first], source="their file")
    assert theirs.participants == frozenset({first}) and "participants" not in theirs.to_dict()
    params = _params(tracker=theirs)
    with pytest.raises(InvalidDataError, match=f"read from participant '{first}', who is in"):
        participant_synth(population, params, rng=np.random.default_rng(0))
    # one tracker of a population is enough; each partition is checked on its own
    phases = plan(_params(tracker=(PILOT, theirs)))
    mine = population.select(lambda r: r.participant == first)
    with pytest.raises(InvalidDataError, match="must come from no participant of the input"):
        phases.client(mine, None)
    others = population.select(lambda r: r.participant != first)
    phases.client(others, None)  # a partition without them passes
    # the same values declared by hand (no ids) or read under the pilot's own id: accepted
    own = replace(theirs, participants=frozenset({"pilot"}))
    rel = participant_synth(population, _params(tracker=own), rng=np.random.default_rng(0))
    assert "participants" not in rel.guarantee.parameters["declared_tracker"]
