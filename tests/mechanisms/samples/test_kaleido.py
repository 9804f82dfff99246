# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Kaleido: budget per w samples, stream == batch, test-noise scale, policies, records."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from gazeprivacy.data import Dataset, Geometry, Recording
from gazeprivacy.exceptions import InvalidParameterError, NotFormallyPrivateWarning
from gazeprivacy.guarantees import FlagCode, Guarantee
from gazeprivacy.mechanisms.samples.kaleido import (
    KaleidoParams,
    KaleidoStream,
    guarantee,
    kaleido,
    kaleido_arrays,
    kaleido_dataset,
)

GEO = Geometry(x_min_deg=-20.0, x_max_deg=20.0, y_min_deg=-15.0, y_max_deg=15.0)


def stream(n: int, seed: int, nan_every: int = 0) -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng(seed)
    jumps = (g.random((n, 1)) < 0.02) * g.normal(0, 5, (n, 2))
    xy = np.clip(np.cumsum(g.normal(0, 0.1, (n, 2)) + jumps, 0), -25, 25)
    if nan_every:
        xy[g.random(n) < 1 / nan_every] = np.nan
    return xy[:, 0], xy[:, 1]


def max_window_sum(spent: np.ndarray, w: int) -> float:
    c = np.concatenate([[0.0], np.cumsum(spent)])
    return float((c[w:] - c[:-w]).max())


@pytest.mark.parametrize(("eps", "w", "t_skip", "h", "mode", "r"), [
    (1.0, 50, 5, 2.0, "sound", 2.0),
    (3.0, 100, 1, 2.0, "sound", 0.6),
    (0.5, 37, 4, 3.0, "sound", 10.0),
    (2.0, 50, 5, 2.0, "paper", 0.5),
], ids=["seed001", "t_skip_1", "odd_w", "paper_r_below_1"])
def test_no_w_consecutive_samples_spend_more_than_epsilon(eps, w, t_skip, h, mode, r):
    p = KaleidoParams(epsilon=eps, radius_deg=r, window_samples=w, t_skip_samples=t_skip, h=h,
                      mode=mode)
    for seed in range(3):
        x, y = stream(20000, seed, nan_every=50 if seed == 2 else 0)
        _, _, spent = kaleido_arrays(x, y, p, rng=np.random.default_rng(seed), geometry=GEO)
        assert max_window_sum(spent, w) <= eps * (1 + 1e-12)
        # the budget is really used: windows come close to eps - eps / h at least
        assert max_window_sum(spent, w) > 0.5 * (eps - eps / h)


def test_testing_spends_at_most_epsilon_over_h_per_window():
    p = KaleidoParams(epsilon=1.0, radius_deg=2.0, window_samples=50)
    x, y = stream(5000, 1)
    s = KaleidoStream(p, rng=np.random.default_rng(0))
    s.push(x, y)
    spent = s.epsilon_spent
    test_only = np.where(np.isclose(spent, p.epsilon_test(50)), spent, 0.0)
    assert max_window_sum(test_only, 50) <= 0.5 + 1e-12


def test_stream_in_random_chunks_equals_batch(rng):
    p = KaleidoParams(epsilon=2.0, radius_deg=2.0, window_samples=40, missing="hold")
    x, y = stream(6000, 4, nan_every=30)
    bx, by, bs = kaleido_arrays(x, y, p, rng=np.random.default_rng(9), geometry=GEO)
    s = KaleidoStream(p, rng=np.random.default_rng(9), geometry=GEO)
    cuts = np.sort(rng.choice(np.arange(1, 6000), 80, replace=False))
    parts, spent = [], []
    for a, b in zip(np.split(x, cuts), np.split(y, cuts), strict=True):
        parts.append(s.push(a, b))
        spent.append(s.epsilon_spent)  # per push: the stream keeps no history
    np.testing.assert_array_equal(np.concatenate([a for a, _ in parts]), bx)
    np.testing.assert_array_equal(np.concatenate([b for _, b in parts]), by)
    np.testing.assert_array_equal(np.concatenate(spent), bs)


def test_first_sample_is_published_and_skips_repeat_the_last_point():
    p = KaleidoParams(epsilon=1.0, radius_deg=1.0, window_samples=20, t_skip_samples=5)
    x, y = stream(200, 2)
    ox, oy, spent = kaleido_arrays(x, y, p, rng=np.random.default_rng(0), geometry=GEO)
    assert spent[0] == pytest.approx((1.0 - 0.5) / 2)
    tested = np.arange(0, 200, 5)
    assert np.all(spent[np.setdiff1d(np.arange(200), tested)] == 0)
    # between tests the output is constant
    for k in range(0, 195, 5):
        assert np.all(ox[k:k + 5] == ox[k]) and np.all(oy[k:k + 5] == oy[k])


def test_test_noise_scale_sound_and_paper():
    s = KaleidoParams(epsilon=1.0, radius_deg=4.0, window_samples=50)
    assert s.epsilon_test(50) == pytest.approx(1.0 / (2 * 10))
    assert s.test_scale(50) == pytest.approx(4.0 * 20)
    p = KaleidoParams.paper(epsilon=1.0, radius_deg=4.0, mode="paper")
    assert p.test_scale(50) == pytest.approx(20)
    g = guarantee(p, sampling_rate_hz=100.0)
    assert [f.code for f in g.flags] == [FlagCode.PROOF_GAP] and not g.formally_private
    assert guarantee(s, sampling_rate_hz=100.0).formally_private


def test_outputs_are_clamped_to_the_geometry_and_nan_policy():
    x, y = stream(3000, 3, nan_every=20)
    rec = Recording.from_arrays(recording="r", participant="p", x=x, y=y, sampling_rate_hz=100,
                                geometry=GEO)
    p = KaleidoParams(epsilon=0.5, radius_deg=10.0, window_samples=50)
    out = kaleido(rec, p, rng=np.random.default_rng(0)).output
    ok = ~np.isnan(out.x)
    np.testing.assert_array_equal(ok, ~np.isnan(x))
    assert GEO.contains(out.x[ok], out.y[ok]).all()
    held = kaleido(rec, KaleidoParams(epsilon=0.5, radius_deg=10.0, window_samples=50,
                                      missing="hold"), rng=np.random.default_rng(0)).output
    assert np.isnan(held.x).sum() == 0


def test_without_clamping_points_leave_the_screen_but_stay_in_range():
    x, y = stream(3000, 3)
    rec = Recording.from_arrays(recording="r", participant="p", x=x, y=y, sampling_rate_hz=100,
                                geometry=GEO)
    p = KaleidoParams(epsilon=0.5, radius_deg=10.0, window_samples=50, clamp=False)
    out = kaleido(rec, p, rng=np.random.default_rng(0))
    assert not GEO.contains(out.output.x, out.output.y).all()
    assert np.abs(out.output.x).max() <= 360
    assert out.guarantee.parameters["clamp"] is False


def test_high_epsilon_output_is_close_to_input():
    x, y = stream(2000, 5)
    p = KaleidoParams(epsilon=1e5, radius_deg=1.0, window_samples=50, l_thresh_deg=0.0)
    ox, oy, _ = kaleido_arrays(x, y, p, rng=np.random.default_rng(0), geometry=GEO)
    tested = np.arange(0, 2000, 5)
    inside = GEO.contains(x[tested], y[tested])
    assert np.nanmax(np.hypot(ox[tested] - x[tested], oy[tested] - y[tested])[inside]) < 0.1


def test_dataset_record_composes_over_windows_per_participant():
    recs = []
    for i, n in enumerate([120, 250, 99]):
        x, y = stream(n, i)
        recs.append(Recording.from_arrays(recording=f"r{i}", participant=f"p{i % 2}", x=x, y=y,
                                          sampling_rate_hz=100, geometry=GEO))
    ds = Dataset(tuple(recs))
    rel = kaleido_dataset(ds, KaleidoParams(epsilon=2.0, radius_deg=2.0, window_s=0.5),
                          rng=np.random.default_rng(0))
    g = rel.guarantee
    assert g.per_participant["p0"].epsilon == pytest.approx(2.0 * (3 + 2))
    assert g.per_participant["p1"].epsilon == pytest.approx(2.0 * 5)
    assert Guarantee.from_json(g.to_json()) == g
    assert [r.n_samples for r in rel.output] == [120, 250, 99]


def test_paper_mode_dataset_warns():
    x, y = stream(100, 0)
    rec = Recording.from_arrays(recording="r", participant="p", x=x, y=y, sampling_rate_hz=100,
                                geometry=GEO)
    with pytest.warns(NotFormallyPrivateWarning):
        kaleido_dataset(Dataset((rec,)),
                        KaleidoParams.paper(epsilon=1.0, radius_deg=2.0, mode="paper"),
                        rng=np.random.default_rng(0))


@pytest.mark.parametrize(("kw", "match"), [
    ({"epsilon": -1.0, "radius_deg": 1.0, "window_samples": 5}, "epsilon must be > 0"),
    ({"epsilon": 1.0, "radius_deg": 0.0, "window_samples": 5}, "radius_deg must be > 0"),
    ({"epsilon": 1.0, "radius_deg": 1.0}, "exactly one of window_samples and window_s"),
    ({"epsilon": 1.0, "radius_deg": 1.0, "window_samples": 5, "h": 1.0}, "h must be > 1"),
    # integers that reach the compiled loop are capped far below its overflow
    ({"epsilon": 1.0, "radius_deg": 1.0, "window_samples": 5, "t_skip_samples": 2**63 - 1},
     r"t_skip_samples must be <= 2147483647"),
    ({"epsilon": 1.0, "radius_deg": 1.0, "window_samples": 5, "t_skip_samples": 2**64},
     r"t_skip_samples must be <= 2147483647"),
    ({"epsilon": 1.0, "radius_deg": 1.0, "window_samples": 2**31}, r"window_samples must be <="),
], ids=["negative_epsilon", "zero_radius", "no_window", "h_one", "t_skip_2_63", "t_skip_2_64",
        "window_2_31"])
def test_bad_parameters_raise_named_errors(kw, match):
    with pytest.raises(InvalidParameterError, match=match):
        KaleidoParams(**kw)


def test_missing_geometry_raises():
    rec = Recording.from_arrays(recording="r", participant="p", x=[1.0] * 10, y=[1.0] * 10,
                                sampling_rate_hz=100)
    with pytest.raises(InvalidParameterError, match="pass geometry=Geometry"):
        kaleido(rec, KaleidoParams(epsilon=1.0, radius_deg=1.0, window_samples=5),
                rng=np.random.default_rng(0))


def test_great_circle_distance_is_used_for_vr_geometry():
    vr = Geometry(x_min_deg=-90, x_max_deg=90, y_min_deg=-80, y_max_deg=80, kind="vr")
    s = KaleidoStream(KaleidoParams(epsilon=1.0, radius_deg=1.0, window_samples=5),
                      rng=np.random.default_rng(0), geometry=vr)
    assert s.test_distance == "great-circle"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s.push(np.linspace(0, 10, 50), np.full(50, 70.0))
    assert math.isfinite(s.epsilon_spent.sum())


def test_a_window_in_seconds_too_long_in_samples_is_refused():
    p = KaleidoParams(epsilon=1.0, radius_deg=1.0, window_s=1e9)
    too_long = r"window_s = 1000000000.0 s .* must be <= 2147483647"
    with pytest.raises(InvalidParameterError, match=too_long):
        KaleidoStream(p, rng=np.random.default_rng(0), sampling_rate_hz=100.0)
    assert KaleidoStream(p, rng=np.random.default_rng(0), sampling_rate_hz=2.0).w == 2 * 10**9


def test_the_largest_t_skip_tests_once_with_missing_samples():
    """t_skip at its maximum after a leading missing sample: one test (the first valid
    sample), the rest re-published (the compiled count() once overflowed here)."""
    p = KaleidoParams(epsilon=1.0, radius_deg=1.0, window_samples=5,
                      t_skip_samples=2**31 - 1)
    x = np.r_[np.nan, np.zeros(99)]
    ox, oy, spent = kaleido_arrays(x, x.copy(), p, rng=np.random.default_rng(0))
    assert np.isnan(ox[0]) and np.all(ox[1:] == ox[1]) and np.all(oy[1:] == oy[1])
    assert np.count_nonzero(spent) == 1 and spent[1] > 0


@pytest.mark.parametrize(("a", "b", "expected"), [
    ((0.0, 100.0), (180.0, 80.0), 0.0),     # the same place, a rounds to -6.9e-18
    ((10.0, 130.0), (190.0, 50.0), 0.0),    # the same place, a rounds to -1.1e-16
    ((0.0, 91.0), (180.0, 89.0), 0.0),
    ((10.0, 30.0), (190.0, -30.0), 180.0),  # antipodal: a rounds to 1
    ((0.0, 0.0), (0.0, 0.0), 0.0),
])
def test_great_circle_distance_past_the_poles_is_defined(a, b, expected):
    """Past +-90 deg latitude (VR input, or great-circle without clamping) rounding puts the
    haversine term just outside [0, 1]; it is clamped, not a ValueError from math.sqrt."""
    from gazeprivacy.mechanisms.samples.kaleido import _haversine_deg

    assert _haversine_deg(*a, *b) == pytest.approx(expected, abs=1e-6)
    assert _haversine_deg(*b, *a) == pytest.approx(expected, abs=1e-6)


def test_a_great_circle_stream_past_the_pole_republishes_the_same_place():
    """Last point (180, 100), then (0, 80): the same place, distance 0 <= threshold, so the
    point is re-published (before: ValueError in Python, NaN -> publish in C)."""
    p = KaleidoParams(epsilon=1.0, radius_deg=1e-20, window_samples=10, t_skip_samples=1,
                      l_thresh_deg=1.0, test_distance="great-circle", clamp=False)
    x, y = np.array([180.0, 0.0] * 20), np.array([100.0, 80.0] * 20)
    ox, oy, spent = kaleido_arrays(x, y, p, rng=np.random.default_rng(1))
    assert np.all(ox == 180.0) and np.all(oy == 100.0)  # noise of scale 1e-20 rounds away
    np.testing.assert_array_equal(spent[1:], p.epsilon_test(10))


def republish_rate(p: KaleidoParams, offset: float, n: int, seed: int) -> float:
    """Share of fresh streams that re-publish a second (tested) sample placed at distance
    ``l_thresh + offset`` from the first published point."""
    hits = 0
    for g in np.random.default_rng(seed).spawn(n):
        s = KaleidoStream(p, rng=g)
        ox, oy = s.push(np.zeros(1), np.zeros(1))
        x2 = ox[0] + p.l_thresh_deg + offset
        nx, ny = s.push(np.array([x2]), oy.copy())
        hits += int(nx[0] == ox[0] and ny[0] == oy[0])
    return hits / n


@pytest.mark.parametrize("mode", ["sound", "paper"])
def test_republish_decision_follows_the_laplace_test_noise(mode):
    """P(re-publish | d = l_thresh + a) = P(eta >= a) = exp(-a / b) / 2 with b = r / eps_test
    (sound) or 1 / eps_test (paper): 1/2 at the threshold (no test noise would make it 0 or 1),
    1 / (2e) one scale above it (a halved or unscaled test noise moves it to 0.07 or below),
    1 - 1 / (2e) one scale below it."""
    eps, r, w, h = 1.0, 4.0, 10, 2.0
    eps_test = eps / (h * w)  # written out: h ceil(w / t_skip) tests per window
    b = (r if mode == "sound" else 1.0) / eps_test
    p = KaleidoParams(epsilon=eps, radius_deg=r, window_samples=w, t_skip_samples=1, h=h,
                      mode=mode, l_thresh_deg=2 * b)
    n = 1000
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotFormallyPrivateWarning)
        for offset, expected in ((0.0, 0.5), (b, 0.5 / math.e), (-b, 1 - 0.5 / math.e)):
            rate = republish_rate(p, offset, n, seed=round(offset) % 97)
            assert abs(rate - expected) <= 4 * math.sqrt(expected * (1 - expected) / n)


def test_hold_record_says_the_mask_is_public_and_hold_shows_where_gaps_are():
    for missing in ("keep", "hold"):
        g = guarantee(KaleidoParams(epsilon=1.0, radius_deg=2.0, window_samples=50,
                                    missing=missing), sampling_rate_hz=100.0)
        assert "same missing-sample mask" in g.neighbouring
        assert g.parameters["missing_mask"] == "public"
        assert any("mask is public" in n for n in g.notes)
    # why: hold mode publishes (spends) only at valid samples, so changes of the released point
    # fall on valid samples only -- the mask is visible in an output without NaN
    p = KaleidoParams(epsilon=2.0, radius_deg=2.0, window_samples=40, t_skip_samples=1,
                      l_thresh_deg=0.0, missing="hold")
    x, y = stream(3000, 6, nan_every=4)
    ox, oy, spent = kaleido_arrays(x, y, p, rng=np.random.default_rng(0), geometry=GEO)
    missing = np.isnan(x)
    assert not np.isnan(ox).any() and missing.sum() > 500
    changed = np.r_[False, (ox[1:] != ox[:-1]) | (oy[1:] != oy[:-1])]
    assert changed.sum() > 500 and not (changed & missing).any()
    assert (spent[missing] == 0).all()
    # and with the same mask (the declared relation) hold spends exactly as keep
    _, _, spent_keep = kaleido_arrays(x, y, KaleidoParams(
        epsilon=2.0, radius_deg=2.0, window_samples=40, t_skip_samples=1, l_thresh_deg=0.0),
        rng=np.random.default_rng(0), geometry=GEO)
    np.testing.assert_array_equal(spent, spent_keep)


def test_published_points_are_planar_laplace_at_eps_pub_over_r():
    """With w = 1 every publication has eps_pub = (eps - eps / h) / 2; samples 600 deg apart are
    always published, so the displacements are planar Laplace of scale r / eps_pub."""
    eps, r, h = 1.0, 1.0, 2.0
    p = KaleidoParams(epsilon=eps, radius_deg=r, window_samples=1, t_skip_samples=1, h=h,
                      l_thresh_deg=0.0)
    n = 20_000
    x = np.where(np.arange(n) % 2 == 0, -300.0, 300.0)
    ox, oy, spent = kaleido_arrays(x, np.zeros(n), p, rng=np.random.default_rng(3))
    eps_pub = (eps - eps / h) / 2  # written out
    np.testing.assert_allclose(spent[1:], eps / h + eps_pub)  # a test and a publication each
    radius = np.hypot(ox - x, oy)
    b = r / eps_pub
    assert abs(radius.mean() - 2 * b) <= 4 * math.sqrt(2 * b * b / n)
    assert stats.kstest(radius, stats.gamma(2, scale=b).cdf).pvalue > 1e-3
