# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's event window: events from each recording's first T seconds only."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import gamma, norm

from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.mechanisms.contract import sample_shape
from gazeprivacy.mechanisms.samples._participant_synth_events import (
    event_sample_count,
    event_window,
)
from gazeprivacy.mechanisms.samples._participant_synth_model import PublicBins, priors
from gazeprivacy.mechanisms.samples.participant_synth import (
    ParticipantSynthParams,
    guarantee,
    plan,
)

_EVENT_PARTS = ("fixation_cell", "transition", "fixation_duration", "saccade_amplitude",
                "saccade_direction", "event_rate")


def _params(**kw) -> ParticipantSynthParams:
    return ParticipantSynthParams(**{"epsilon_per_participant": 3.0, "delta": 1e-6,
                                     "output_length_s": 2.0, **kw})


@pytest.fixture(scope="module")
def long_recording() -> Recording:
    """One participant, one 24-s recording at 100 Hz with a gap of missing samples at 3 s."""
    r = simulate_dataset(n_participants=1, tasks=("free-viewing",), duration_s=24.0,
                         sampling_rate_hz=100, rng=np.random.default_rng(5))[0]
    x, y = r.x.copy(), r.y.copy()
    x[300:340] = y[300:340] = np.nan
    return r.with_gaze(x, y)


def _head(r: Recording, n: int) -> Recording:
    """The same recording built from its first ``n`` samples only."""
    return Recording(recording=r.recording, participant=r.participant, t=r.t[:n], x=r.x[:n],
                     y=r.y[:n], sampling_rate_hz=r.sampling_rate_hz, labels=r.labels,
                     geometry=r.geometry)


def _parts(p: ParticipantSynthParams, r: Recording) -> dict[str, np.ndarray]:
    (parts,) = plan(p).client(Dataset((r,)), None)[1].parts.values()
    return parts[()]


@pytest.mark.parametrize("detector", ["remodnav", "adaptive"])
def test_a_long_recording_contributes_the_events_of_its_first_t_seconds(long_recording,
                                                                        detector):
    """Event parts of a 24-s recording at T = 8 s equal those of its first 8 s as a recording of
    its own (counts, so exactly); the density and the moments still count every sample."""
    p = _params(event_seconds_per_recording=8.0, detector=detector)
    long, head = _parts(p, long_recording), _parts(p, _head(long_recording, 800))
    for m in _EVENT_PARTS:
        np.testing.assert_array_equal(long[m], head[m], err_msg=m)
    assert long["fixation_duration"].sum() > 0 and long["event_rate"].sum() == 1
    assert long["density"].sum() == np.isfinite(long_recording.x).sum() > 2000
    assert head["density"].sum() == np.isfinite(long_recording.x[:800]).sum() < 800
    every = _parts(_params(event_seconds_per_recording=None, detector=detector), long_recording)
    assert every["fixation_duration"].sum() > 2 * long["fixation_duration"].sum()
    np.testing.assert_array_equal(every["density"], long["density"])


def test_the_event_window_is_the_first_t_times_rate_samples(long_recording):
    w = event_window(long_recording, 8.0)
    assert w.n_samples == event_sample_count(long_recording, 8.0) == 800
    np.testing.assert_array_equal(w.x, long_recording.x[:800])
    np.testing.assert_array_equal(w.t, long_recording.t[:800])
    assert (w.recording, w.participant, w.geometry) == (long_recording.recording,
                                                        long_recording.participant,
                                                        long_recording.geometry)
    assert event_window(long_recording, 60.0) is long_recording
    assert event_window(long_recording, None) is long_recording
    assert event_sample_count(long_recording, 1e-6) == 1


def test_the_window_is_a_recorded_public_parameter(long_recording):
    assert _params().event_seconds_per_recording == 60.0
    g = guarantee(_params(event_seconds_per_recording=8.0),
                  sample_shape(Dataset((long_recording,))))
    assert g.parameters["event_seconds_per_recording"] == 8.0
    assert guarantee(_params(), sample_shape(Dataset((long_recording,)))
                     ).parameters["event_seconds_per_recording"] == 60.0
    for bad in (0.0, -1.0, math.inf, "60"):
        with pytest.raises(InvalidParameterError, match="event_seconds_per_recording must be"):
            _params(event_seconds_per_recording=bad)


def test_event_priors_equal_scipy_stats_distributions(long_recording):
    """The priors use scipy.special (scipy.stats' own kernels) and equal its distributions."""
    bins = PublicBins(long_recording.geometry, (16, 12), (4, 3))
    pr = priors(bins, 1)

    def binned(cdf):  # tails folded into the end bins
        m = np.diff(cdf)
        m[0] += cdf[0]
        m[-1] += 1.0 - cdf[-1]
        return m / m.sum()

    k, med = 4.5, 0.235 * 1.15
    np.testing.assert_array_equal(pr["fixation_duration"], binned(gamma.cdf(
        bins.duration_edges, k, scale=med / gamma.ppf(0.5, k))))
    np.testing.assert_array_equal(pr["saccade_amplitude"], binned(gamma.cdf(
        bins.amplitude_edges, 2.5, scale=8.0 / 2.5)))
    np.testing.assert_array_equal(pr["event_rate"], binned(norm.cdf(
        np.log(bins.rate_edges), math.log(1.0 / (0.235 * 1.15 + 0.035)), 0.3)))


@pytest.mark.parametrize("size", [None, 1, 128])
def test_the_renderers_choice_draws_as_numpys(size):
    """The renderer's draws from a probability vector equal ``Generator.choice`` (same
    uniforms, same indices), with zero-probability bins and one sure bin."""
    from gazeprivacy.mechanisms.samples._participant_synth_render import choice, choice_cdf

    rng = np.random.default_rng(9)
    for n in (1, 2, 12, 128):
        for _ in range(30):
            p = rng.random(n) * (rng.random(n) < 0.7)
            p = p / p.sum() if p.sum() > 0 else np.eye(n)[0]
            a, b = np.random.default_rng(n), np.random.default_rng(n)
            for _ in range(5):
                want, got = a.choice(n, size, p=p), choice(b, choice_cdf(p), size)
                assert np.array_equal(got, want) and np.shape(got) == np.shape(want)


def test_one_sample_saccades_give_their_true_shift_not_zero():
    """At 30 Hz a saccade is often one sample (its start is its end): its amplitude and direction
    are the shift from the sample before it to the one after (10 deg right, then 10 deg left),
    not 0 and 0 rad; one after a missing sample starts at its own first (3 deg up), one at the
    recording's end ends at its own last (3 deg up)."""
    import polars as pl

    from gazeprivacy.data.geometry import Geometry
    from gazeprivacy.mechanisms.samples._participant_synth_model import participant_parts

    geo = Geometry(x_min_deg=-20, x_max_deg=20, y_min_deg=-15, y_max_deg=15)
    x = np.array([-5.0] * 15 + [0.0] + [5.0] * 14 + [0.0] + [-5.0] * 19)
    y = np.array([0.0] * 45 + [3.0] + [6.0] * 2 + [6.0, 9.0])
    x[44] = y[44] = np.nan
    r = Recording.from_arrays(recording="r", participant="p", x=x, y=y, sampling_rate_hz=30,
                              geometry=geo)
    on, off = [0, 15, 16, 30, 31, 45, 46, 48], [15, 16, 30, 31, 45, 46, 48, 50]
    names = ["fixation", "saccade"] * 3 + ["fixation", "saccade"]
    ev = pl.DataFrame({"recording": ["r"] * 8, "name": names, "onset": on, "offset": off,
                       "duration_s": [(b - a) / 30 for a, b in zip(on, off, strict=True)],
                       "start_x": x[on], "start_y": y[on], "end_x": x[np.array(off) - 1],
                       "end_y": y[np.array(off) - 1], "centroid_x": x[on],
                       "centroid_y": y[on]})
    bins = PublicBins(geo, (4, 3), (2, 2))
    (parts,) = participant_parts([r], ev, [()], bins).values()
    amp, ang = bins.amplitude_edges, bins.direction_edges
    want_amp = np.histogram([10.0, 10.0, 3.0, 3.0], amp)[0]
    want_dir = np.histogram([0.0, math.pi, math.pi / 2, math.pi / 2], ang)[0]
    np.testing.assert_array_equal(parts["saccade_amplitude"], want_amp)
    np.testing.assert_array_equal(parts["saccade_direction"], want_dir)


def test_a_saccade_before_a_missing_sample_ends_at_its_own_last_sample():
    """The sample after a saccade is missing: the shift ends at the saccade's own last sample
    (4 deg), never at the missing one (NaN, which the histogram would drop)."""
    import polars as pl

    from gazeprivacy.mechanisms.samples._participant_synth_events import saccade_shifts

    x = np.array([0.0, 0.0, 0.0, 4.0, np.nan, 8.0, 8.0])
    y = np.where(np.isnan(x), np.nan, 0.0)
    r = Recording.from_arrays(recording="r", participant="p", x=x, y=y, sampling_rate_hz=30)
    ev = pl.DataFrame({"recording": ["r"], "name": ["saccade"], "onset": [3], "offset": [4]})
    dx, dy = saccade_shifts([r], ev, None)
    np.testing.assert_array_equal(dx, [4.0])
    np.testing.assert_array_equal(dy, [0.0])
