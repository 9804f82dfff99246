# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's declared tracker rendered: noise, shoulder, gaps, the counted median."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import logit

from gazeprivacy.data.recording import Recording
from gazeprivacy.mechanisms.samples._participant_synth_quality import (
    quality_parts,
    quality_statistics,
)
from gazeprivacy.mechanisms.samples._participant_synth_track import _median_step, _Steps, track

__all__: list[str] = []


def test_a_share_below_the_floor_writes_no_gap():
    """A released centre of 0.1 % missing (a tracker losing next to nothing): the drawn shares
    (spread 0.6 on the logit scale, 2.7 sd below the 0.5 % floor) stay under it, so at most 5
    recordings of 200 have a gap (expected 0.7; with gaps for every share above 0.1 %, about
    half of them); at 10 % every recording has gaps."""
    rng = np.random.default_rng(3)
    for centre, most in ((0.001, 5), (0.1, 200)):
        marg = {"tracker_step": np.array([-1.0]), "tracker_smooth": np.array([-0.5]),
                "tracker_missing": np.array([logit(centre)]),
                "tracker_tail": np.array([0.0])}
        n = sum(bool(np.isnan(track(np.zeros(3000), np.zeros(3000), marg, 50.0, rng)[0]).any())
                for _ in range(200))
        assert n <= most and (most < 200 or n == 200)


@pytest.mark.parametrize("rho", [-0.5, 0.3, 0.7])
def test_track_renders_the_released_step_correlation_and_missing_share(rho):
    """A still eye: the rendered median step within 5 % of the target (the centre, spreads
    aside: averaged over 40 recordings), the step correlation within 0.1, the missing share
    within a third of the target."""
    marg = {"tracker_step": np.array([-1.0]), "tracker_smooth": np.array([rho]),
            "tracker_missing": np.array([logit(0.1)]),
            "tracker_tail": np.array([0.0])}
    rng = np.random.default_rng(2)
    steps, rhos, miss = [], [], []
    for _ in range(40):
        x, y = track(np.zeros(3000), np.zeros(3000), marg, 100.0, rng)
        rec = Recording.from_arrays(recording="r", participant="p", x=x, y=y,
                                    sampling_rate_hz=100)
        st = quality_statistics(quality_parts([rec]))
        d = np.hypot(np.diff(x), np.diff(y))
        steps.append(np.log10(np.nanmedian(d)))
        rhos.append(np.argmax(st["tracker_smooth"]))
        miss.append(np.isnan(x).mean())
    assert abs(np.mean(steps) + 1.0) < 0.05
    assert np.median(rhos) == np.searchsorted(np.linspace(-1, 1, 9), rho + 1e-9) - 1 or \
        abs(np.median(rhos) - (rho + 1) / 0.25) <= 1
    assert 0.067 < np.mean(miss) < 0.133


def test_track_shrinks_the_fixational_motion_to_a_released_step_far_below_the_simulators():
    """A released median step of 0.004 deg, 0.6 decade below the simulator's own at 250 Hz
    (drift and tremor): with the event codes the rendered median step is within 0.1 decade of
    the target (mean of log10 over 20 recordings; the public spread 0.15 is drawn around it),
    saccade samples keep their simulated positions; without the codes (the
    former renderer) the step stays at the simulator's."""
    from gazeprivacy.data.simulate import EVENT_CODES, draw_traits, simulate_recording

    marg = {"tracker_step": np.array([np.log10(0.004)]), "tracker_smooth": np.array([-0.5]),
            "tracker_missing": np.array([logit(0.001)]),
            "tracker_tail": np.array([0.0])}
    rng = np.random.default_rng(4)
    shrunk, own, plain = [], [], []
    for traits in draw_traits(20, rng=rng, blink_rate_hz=0.0):
        sim = simulate_recording(traits=traits, task="free-viewing", duration_s=4.0,
                                 sampling_rate_hz=250, rng=rng, measurement_noise_deg=0.0,
                                 ground_truth=True)
        code, seed = sim.channels["event_code"], len(own)
        x, y = track(sim.x, sim.y, marg, 250.0, np.random.default_rng(seed), code=code)
        x0, y0 = track(sim.x, sim.y, marg, 250.0, np.random.default_rng(seed))
        shrunk.append(np.log10(np.nanmedian(np.hypot(np.diff(x), np.diff(y)))))
        plain.append(np.log10(np.nanmedian(np.hypot(np.diff(x0), np.diff(y0)))))
        own.append(np.log10(np.median(np.hypot(np.diff(sim.x), np.diff(sim.y)))))
        keep = (code == EVENT_CODES["saccade"]) & np.isfinite(x)
        np.testing.assert_array_equal(x[keep], sim.x[keep])
        np.testing.assert_array_equal(np.isnan(x0), np.isnan(x))
    assert np.mean(own) > np.log10(0.004) + 0.5  # the simulator's own step: far above
    assert np.mean(plain) > np.log10(0.004) + 0.5
    assert abs(np.mean(shrunk) - np.log10(0.004)) < 0.1


def test_smoothed_track_noise_has_no_wider_ends():
    """Smoothed noise (step correlation 0.95: a kernel of about 4 samples) is stationary to
    the ends of a recording: over 300 recordings of 10 s at 30 Hz the first and last samples
    spread within 1.6 times the middle ones (scipy's "nearest" end mode gave 2.9 to 3.4, a
    swing in every recording's first and last window)."""
    marg = {"tracker_step": np.array([-1.0]), "tracker_smooth": np.array([0.95]),
            "tracker_missing": np.array([logit(0.001)]),
            "tracker_tail": np.array([0.0])}
    rng = np.random.default_rng(4)
    xs = np.array([track(np.zeros(300), np.zeros(300), marg, 30.0, rng)[0] for _ in range(300)])
    middle = np.nanstd(xs[:, 100:200])
    assert np.nanstd(xs[:, 0]) < 1.6 * middle
    assert np.nanstd(xs[:, -1]) < 1.6 * middle


def test_gaps_start_at_saccade_onsets_and_keep_the_drawn_share():
    """Real trackers lose the eye around saccades: given the simulator's event codes, about
    ``_GAP_AT_SACCADE`` (0.6) of the gaps start on a saccade onset (measured over 20 recordings
    of 10 s at 250 Hz: at least 0.45 of them; without the codes, at random, at most 0.1), and
    the missing share stays the drawn one (centre 10 %, drawn with the public spread: a mean
    about 11.5 %; measured 13.4 % with the codes, 12.6 % without: within 15 % of each other
    and within [8 %, 15 %])."""
    from gazeprivacy.data.simulate import EVENT_CODES, draw_traits, simulate_recording

    marg = {"tracker_step": np.array([-1.0]), "tracker_smooth": np.array([-0.5]),
            "tracker_missing": np.array([logit(0.1)]),
            "tracker_tail": np.array([0.0])}
    rng = np.random.default_rng(5)
    at, miss = {True: [], False: []}, {True: [], False: []}
    for traits in draw_traits(20, rng=rng, blink_rate_hz=0.0):
        sim = simulate_recording(traits=traits, task="free-viewing", duration_s=10.0,
                                 sampling_rate_hz=250, rng=rng, measurement_noise_deg=0.0,
                                 ground_truth=True)
        sac = np.r_[False, sim.channels["event_code"] == EVENT_CODES["saccade"]]
        onset = sac[1:] & ~sac[:-1]
        for given in (True, False):
            code = sim.channels["event_code"] if given else None
            x, _ = track(sim.x, sim.y, marg, 250.0, np.random.default_rng(len(at[given])),
                         code=code)
            gap = np.isnan(x)
            starts = gap & ~np.r_[False, gap[:-1]]
            at[given].extend(onset[starts])
            miss[given].append(gap.mean())
    assert np.mean(at[True]) >= 0.45 and np.mean(at[False]) <= 0.1
    assert abs(np.mean(miss[True]) / np.mean(miss[False]) - 1.0) < 0.15
    assert all(0.08 < np.mean(m) < 0.15 for m in miss.values())


@pytest.mark.parametrize("tail", [0.3, 0.45])
def test_track_renders_the_released_shoulder_and_keeps_the_median_step(tail):
    """A still eye, the released shoulder above white noise's: the rendered log10(q75 / q50)
    of the steps within 0.05 of the centre (mean over 40 recordings; the public spread 0.05 is
    drawn around it), the median step still within 0.06 decade of its target (spread 0.15); a
    shoulder of 0 renders plain Gaussian noise (Rayleigh 0.15)."""
    rng = np.random.default_rng(7)
    for centre, want in ((tail, tail), (0.0, 0.15)):
        marg = {"tracker_step": np.array([-1.0]), "tracker_smooth": np.array([-0.5]),
                "tracker_missing": np.array([logit(0.001)]),
                "tracker_tail": np.array([centre])}
        shoulders, steps = [], []
        for _ in range(40):
            x, y = track(np.zeros(3000), np.zeros(3000), marg, 100.0, rng)
            d = np.hypot(np.diff(x), np.diff(y))
            q50, q75 = np.nanquantile(d, [0.5, 0.75])
            shoulders.append(np.log10(q75 / q50))
            steps.append(np.log10(q50))
        assert abs(np.mean(shoulders) - want) < 0.05, (centre, np.mean(shoulders))
        assert abs(np.mean(steps) + 1.0) < 0.06


@pytest.mark.parametrize("n", [1, 2, 7, 8, 401, 1000])
def test_the_counted_median_comparison_is_numpys_bit_for_bit(n):
    """The bisections' test (a count of squared lengths) answers as ``np.median`` compared with
    the target would, also at the targets where it is decided by a hair: each length itself,
    the two middle lengths' mean (even counts), the next floats either side, with ties, NaN
    and infinite steps."""
    rng = np.random.default_rng(n)
    de = np.round(rng.normal(0.0, 0.05, (n, 2)), 2)  # rounded: tied lengths
    du = rng.normal(0.0, 1.0, (n, 2))
    for a in (0.0, 0.01, 0.3):
        s = np.sort(np.hypot(*(de + a * du).T))
        mids = [s[n // 2], 0.5 * (s[n // 2 - 1] + s[n // 2]) if n > 1 else s[0]]
        targets = [*s[:: max(n // 25, 1)], *mids, 1e-120]
        targets += [np.nextafter(t, d) for t in mids for d in (0.0, 1.0)]
        steps, m = _Steps(de, du), _median_step(de, du, a)
        for t in targets:
            assert steps.beyond(a, float(t)) == (m < t)
            assert steps.beyond(a, float(t), above=True) == (m > t)
    bad = de.copy()
    bad[0, 0] = np.nan if n % 2 else np.inf
    steps, m = _Steps(bad, du), _median_step(bad, du, 0.1)
    for t in (0.001, 0.05, 1.0):
        assert steps.beyond(0.1, t) == (m < t)
        assert steps.beyond(0.1, t, above=True) == (m > t)


def test_a_short_recording_stays_near_its_eye_signal_whatever_the_smoothing():
    """12 samples, the smoothest tracker (step correlation 0.99: a 20-sample kernel) and a
    0.1 deg median step: the kernel is capped at an eighth of the recording, so the noise stays
    within a few degrees (the 20-sample kernel over 12 samples smoothed the noise to a near
    constant, scaled up to the drawn step: hundreds of degrees and more)."""
    marg = {"tracker_step": np.array([-1.0]), "tracker_smooth": np.array([0.99]),
            "tracker_missing": np.array([logit(0.001)]), "tracker_tail": np.array([0.0])}
    rng = np.random.default_rng(2)
    worst = max(np.nanmax(np.abs(np.r_[x, y]))
                for x, y in (track(np.zeros(12), np.zeros(12), marg, 60.0, rng)
                             for _ in range(200)))
    assert worst < 5.0
