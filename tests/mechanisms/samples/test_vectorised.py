# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The vectorised fast paths agree with simple reference implementations on small inputs.

References are written here the plain way (a loop per event, per candidate, per sample) from the
definitions, so a change in a fast path that changes a result fails here.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy.special import log_ndtr

from gazeprivacy.data import Dataset, Geometry, Recording
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.events import detect_events_dataset
from gazeprivacy.events.models import (
    BOX_HALF_WIDTH_DEG,
    MIN_SIGMA_DEG,
    fit_fixation,
    fixation_log_prob,
    fixation_log_prob_approx,
    integrate_profile,
    log_box_mass_1d,
    resample_profile,
    velocity_profile_deg_s,
)
from gazeprivacy.mechanisms.samples._event_synth_pd_privacy import (
    _axis_bound,
    _axis_radius,
    _Draw,
    _fixation_round,
    _ModelGrid,
    _passes,
    _passes_batch,
    _Population,
    _prescreen,
)
from gazeprivacy.mechanisms.samples._event_synthesis import (
    FittedEvents,
    _interpolate_rest,
    fit_events,
    group_events,
    public_centre,
    render,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.grid import _round_keep_sum
from gazeprivacy.mechanisms.samples.event_synth_pd import EventSynthPDParams
from gazeprivacy.mechanisms.samples.kaleido import (
    KaleidoParams,
    KaleidoStream,
    _tested_with_missing,
    kaleido_arrays,
)

GEO = Geometry(x_min_deg=-20.0, x_max_deg=20.0, y_min_deg=-15.0, y_max_deg=15.0)


@pytest.fixture(scope="module")
def sim() -> tuple[Dataset, pl.DataFrame]:
    ds = simulate_dataset(n_participants=4, tasks=("reading", "free-viewing"), duration_s=20,
                          sampling_rate_hz=100, rng=np.random.default_rng(11))
    return ds, detect_events_dataset(ds, method="ivt", max_saccade_share=None)


# --------------------------------------------------------------------------------------------
# event fitting and rendering
# --------------------------------------------------------------------------------------------


def fit_events_reference(rec: Recording, events: pl.DataFrame) -> FittedEvents:
    names, on, off, fix, prof, amp, dur, land = [], [], [], [], [], [], [], []
    for name, a, b in events.sort("onset").select("name", "onset", "offset").iter_rows():
        xs, ys = rec.x[a:b], rec.y[a:b]
        ok = ~np.isnan(xs)
        if name == "fixation":
            if not ok.any():
                continue
            fix.append(fit_fixation(xs, ys).as_array())
        elif name == "saccade":
            if ok.sum() < 2 or not (ok[0] and ok[-1]):
                continue
            prof.append(resample_profile(velocity_profile_deg_s(xs[ok], ys[ok],
                                                                rec.sampling_rate_hz)))
            amp.append(float(np.hypot(xs[-1] - xs[0], ys[-1] - ys[0])))
            dur.append((b - a) / rec.sampling_rate_hz)
            land.append((xs[-1], ys[-1]))
        else:
            continue
        names.append(name)
        on.append(a)
        off.append(b)
    return FittedEvents(np.array(names, dtype=object), np.array(on), np.array(off),
                        np.array(fix).reshape(-1, 4), np.array(prof).reshape(-1, 30),
                        np.array(amp), np.array(dur), np.array(land).reshape(-1, 2))


def render_reference(rec: Recording, fitted: FittedEvents, fix_params: np.ndarray,
                     profiles: np.ndarray, suppressed: np.ndarray,
                     samples: dict[int, tuple[np.ndarray, np.ndarray]]
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Event by event, every fixation given as samples; the random directions of saccades that
    no fixation follows are drawn as render draws them from ``default_rng(0)`` (after one
    normal draw per rendered fixation row)."""
    n = rec.n_samples
    is_fix = fitted.names == "fixation"
    keep = ~np.asarray(suppressed, bool)
    g = np.random.default_rng(0)
    g.standard_normal((2, int((fitted.offset - fitted.onset)[is_fix & keep].sum())))
    free = ~is_fix & keep & (np.cumsum(is_fix) >= fitted.n_fixations)
    angles = iter(g.uniform(0.0, 2 * np.pi, int(free.sum())).tolist())
    ox, oy = np.full(n, np.nan), np.full(n, np.nan)
    done, blank = np.zeros(n, bool), np.zeros(n, bool)
    fi = si = 0
    order = np.cumsum(fitted.names == "fixation")
    for e, (name, a, b) in enumerate(zip(fitted.names, fitted.onset, fitted.offset,
                                         strict=True)):
        gone = bool(suppressed[e])
        blank[a:b] |= gone
        if name == "fixation":
            if not gone:
                ox[a:b], oy[a:b] = samples[fi]
                done[a:b] = True
            fi += 1
            continue
        if not gone:
            nxt = order[e]
            target = fix_params[nxt, :2] if nxt < fitted.n_fixations else \
                public_centre(rec)
            prev = np.flatnonzero(done[:a])
            start = np.array([ox[prev[-1]], oy[prev[-1]]]) if prev.size else target
            if nxt >= fitted.n_fixations:  # no fixation follows: a random direction
                a_ = next(angles)
                target = start + np.array([math.cos(a_), math.sin(a_)])
            ox[a:b], oy[a:b] = integrate_profile(profiles[si], b - a, start, target,
                                                 step_s=1.0 / rec.sampling_rate_hz)
            done[a:b] = True
        si += 1
    _interpolate_rest(rec.t, ox, oy, done)
    ox, oy = (rec.geometry.clamp(ox, oy) if rec.geometry is not None else
              (np.clip(ox, -180, 180), np.clip(oy, -90, 90)))
    miss = rec.missing | blank
    ox[miss] = np.nan
    oy[miss] = np.nan
    return ox, oy


def test_group_events_equals_a_filter_per_recording(sim):
    ds, events = sim
    groups = group_events(events, [r.recording for r in ds] + ["absent"])
    for r in ds:
        assert groups[r.recording].equals(events.filter(pl.col("recording") == r.recording))
    assert groups["absent"].height == 0


def test_fit_events_equals_the_per_event_fit(sim):
    ds, events = sim
    groups = group_events(events, [r.recording for r in ds])
    n_checked = 0
    for r in ds:
        # knock out samples so that the missing-sample rules are exercised
        x = r.x.copy()
        x[np.random.default_rng(1).random(x.size) < 0.03] = np.nan
        rec = r.with_gaze(x, np.where(np.isnan(x), np.nan, r.y))
        fast = fit_events(rec, groups[r.recording])
        ref = fit_events_reference(rec, groups[r.recording])
        assert fast.names.tolist() == ref.names.tolist()
        for f in ("onset", "offset", "fixation_params", "saccade_profiles",
                  "saccade_amplitude_deg", "saccade_duration_s", "saccade_landing"):
            np.testing.assert_allclose(getattr(fast, f), getattr(ref, f), rtol=1e-9,
                                       atol=1e-9, err_msg=f)
        n_checked += fast.n_saccades
    assert n_checked > 20


def test_render_equals_the_event_by_event_reference(sim):
    ds, events = sim
    groups = group_events(events, [r.recording for r in ds])
    g = np.random.default_rng(5)
    for r in ds:
        fit = fit_events(r, groups[r.recording])
        fp = fit.fixation_params + g.normal(0, 0.5, fit.fixation_params.shape) * [1, 1, 0, 0]
        prof = fit.saccade_profiles * g.uniform(0.5, 1.5, fit.saccade_profiles.shape)
        fix_events = np.flatnonzero(fit.names == "fixation")
        samples = {i: (g.normal(fp[i, 0], 0.1, fit.offset[e] - fit.onset[e]),
                       g.normal(fp[i, 1], 0.1, fit.offset[e] - fit.onset[e]))
                   for i, e in enumerate(fix_events)}
        # suppression makes runs of several saccades whose starts depend on each other
        for sup in (np.zeros(len(fit.names), bool), g.random(len(fit.names)) < 0.4):
            fx, fy = render(r, fit, fp, prof, rng=np.random.default_rng(0), suppressed=sup,
                            fixation_samples=samples)
            rx, ry = render_reference(r, fit, fp, prof, sup, samples)
            np.testing.assert_allclose(fx, rx, rtol=1e-9, atol=1e-9)
            np.testing.assert_allclose(fy, ry, rtol=1e-9, atol=1e-9)


def test_rendered_fixations_follow_their_normal():
    rec = Recording.from_arrays(recording="r", participant="p", x=np.zeros(20000),
                                y=np.zeros(20000), sampling_rate_hz=100.0)
    fit = FittedEvents(np.array(["fixation"], dtype=object), np.array([0]), np.array([20000]),
                       np.array([[1.0, -2.0, 0.5, 0.25]]), np.zeros((0, 30)), np.zeros(0),
                       np.zeros(0), np.zeros((0, 2)))
    x, y = render(rec, fit, fit.fixation_params, fit.saccade_profiles,
                  rng=np.random.default_rng(3))
    se = 4 / math.sqrt(20000)  # four standard errors, in units of sigma
    assert abs(x.mean() - 1.0) < 0.5 * se and abs(y.mean() + 2.0) < 0.25 * se
    assert abs(x.std() / 0.5 - 1) < 4 / math.sqrt(2 * 20000)
    assert abs(y.std() / 0.25 - 1) < 4 / math.sqrt(2 * 20000)


# --------------------------------------------------------------------------------------------
# box masses and the event-synth-PD test
# --------------------------------------------------------------------------------------------


def log_box_mass_reference(v, mu, sigma, h):
    a = (v - h - mu) / sigma
    b = (v + h - mu) / sigma
    upper = a > 0
    lo, hi = np.where(upper, -b, a), np.where(upper, -a, b)
    lhi = log_ndtr(hi)
    return lhi + np.log1p(-np.exp(log_ndtr(lo) - lhi))


def test_log_box_mass_equals_the_log_ndtr_form_including_deep_tails():
    g = np.random.default_rng(0)
    n = 50_000
    v = g.normal(size=n) * np.exp(g.uniform(-3, 4, n))
    mu = g.normal(size=n)
    sd = np.exp(g.uniform(math.log(MIN_SIGMA_DEG), 2, n))
    fast = log_box_mass_1d(v, mu, sd, BOX_HALF_WIDTH_DEG)
    ref = log_box_mass_reference(v, mu, sd, BOX_HALF_WIDTH_DEG)
    assert (np.abs((v - mu) / sd) > 40).sum() > 100  # the tail branch is exercised
    assert np.isfinite(fast).all()
    np.testing.assert_allclose(fast, ref, rtol=1e-11, atol=1e-11)
    assert float(log_box_mass_1d(100.0, 0.0, 1.0, 0.01)) == pytest.approx(
        float(log_box_mass_reference(100.0, 0.0, 1.0, 0.01)), rel=1e-12)


@pytest.mark.parametrize("mode", ["paper", "sound"])
def test_batch_privacy_test_equals_the_scalar_test(mode):
    kw = {"epsilon0": 0.7} if mode == "sound" else {}
    params = EventSynthPDParams(k=3, gamma=1.5, mode=mode, **kw)
    g = np.random.default_rng(2)
    c, per = 300, 12
    lps = -10.0 + g.normal(0, 0.6, (c, per))
    owners = g.integers(0, 5, (c, per))
    seed_lp = -10.0 + g.normal(0, 0.2, c)
    seed_owner = g.integers(0, 5, c)
    lps[::17, 0] = -np.inf
    ref = [_passes(lps[i], owners[i], float(seed_lp[i]), int(seed_owner[i]), params,
                   np.random.default_rng([7, i])) for i in range(c)]
    # the batch draws its thresholds from one generator, in candidate order
    rng = np.random.default_rng(7)
    thresholds = rng.laplace(0.0, 1.0 / 0.7, c) if mode == "sound" else None
    group = np.repeat(np.arange(c), per)
    fast = _passes_batch(lps.ravel(), owners.ravel(), group, seed_lp, seed_owner, params,
                         np.random.default_rng(7))
    if mode == "paper":
        assert fast.tolist() == ref
    else:  # same rule with the same thresholds
        ln_g = math.log(1.5)
        for i in range(c):
            same = np.isfinite(lps[i]) & (np.floor(-lps[i] / ln_g)
                                          == math.floor(-seed_lp[i] / ln_g))
            assert fast[i] == (int(same.sum()) >= max(3, 3 + thresholds[i]))
        assert 0.2 < fast.mean() < 0.8


def test_axis_bound_bounds_the_prefilter_and_the_radius_inverts_it():
    g = np.random.default_rng(4)
    for _ in range(200):
        n = int(g.integers(1, 60))
        v = g.normal(g.uniform(-10, 10), g.uniform(0.01, 2.0), n)
        var = v.var()
        mu = g.uniform(-12, 12)
        sd = np.exp(g.uniform(math.log(MIN_SIGMA_DEG), 1.5, 30))
        # one axis of fixation_log_prob_approx: use a zero-variance y with the model's y mean
        params = np.column_stack([np.full(30, mu), np.zeros(30), sd, np.full(30, 1.0)])
        approx = fixation_log_prob_approx(v, np.zeros(n), params)
        # (both axes of this one are the same N(0, 1) term)
        y_term = fixation_log_prob_approx(np.zeros(n), np.zeros(n),
                                          np.array([0.0, 0.0, 1.0, 1.0])) / 2
        x_term = approx - y_term
        bound = _axis_bound(np.float64(n), np.float64(var + (v.mean() - mu) ** 2))
        assert (x_term <= bound + 1e-9 * abs(bound)).all()
        target = bound - g.uniform(0, 50)
        d = _axis_radius(np.array([float(n)]), np.array([var]), np.array([target]))[0]
        if d > 0:
            assert _axis_bound(float(n), var + d * d) == pytest.approx(target, rel=1e-9,
                                                                       abs=1e-7)


def test_model_grid_returns_what_a_kd_tree_returns():
    from scipy.spatial import cKDTree

    g = np.random.default_rng(12)
    xy = np.column_stack([g.uniform(-20, 20, 3000), g.uniform(-15, 15, 3000)])
    xy[:50] = xy[50:100]  # duplicates
    grid, tree = _ModelGrid(xy), cKDTree(xy)
    qx, qy = g.uniform(-22, 22, 500), g.uniform(-17, 17, 500)
    radius = np.exp(g.uniform(np.log(0.01), np.log(3.0), 500))
    q, m = grid.pairs(qx, qy, radius)
    got = sorted(zip(q.tolist(), m.tolist(), strict=True))
    want = sorted((i, j) for i, hits in enumerate(tree.query_ball_point(
        np.column_stack([qx, qy]), r=radius, p=np.inf)) for j in hits)
    assert got == want and len(want) > 500


def test_fixation_test_equals_exact_scoring_of_every_model():
    """The spatial index and the prefilter never change a decision: score every model
    exactly."""
    g = np.random.default_rng(9)
    m = 240  # crowded models of 8 participants, so that both outcomes occur
    p = np.column_stack([g.uniform(0, 3, m), g.uniform(0, 2, m),
                         g.uniform(MIN_SIGMA_DEG, 0.6, m), g.uniform(MIN_SIGMA_DEG, 0.6, m)])
    pop = _Population(p, g.integers(0, 8, m), np.zeros((8, 30, 50)),
                      tuple(f"p{i}" for i in range(8)))
    for gamma, k in ((1.5, 2), (3.0, 3), (8.0, 4)):
        params = EventSynthPDParams(k=k, gamma=gamma, mode="paper")
        n = g.integers(1, 30, m)
        seg = np.repeat(np.arange(m), n)
        cx = p[seg, 0] + p[seg, 2] * g.standard_normal(seg.size)
        cy = p[seg, 1] + p[seg, 3] * g.standard_normal(seg.size)
        fast = _fixation_round(cx, cy, seg, n, p, pop.fix_owner, pop, _ModelGrid(p[:, :2]),
                               params, np.random.default_rng(0))
        start = np.cumsum(n) - n
        ref = []
        for i in range(m):
            xs, ys = cx[start[i]:start[i] + n[i]], cy[start[i]:start[i] + n[i]]
            lps = fixation_log_prob(xs, ys, p)
            ref.append(_passes(lps, pop.fix_owner, float(lps[i]), int(pop.fix_owner[i]),
                               params, np.random.default_rng(0)))
        assert fast.tolist() == ref
        assert 0.05 * m < fast.sum() < 0.95 * m  # both outcomes occur


def _crowded_population(g: np.random.Generator, m: int = 240) -> tuple[np.ndarray, _Population]:
    p = np.column_stack([g.uniform(0, 3, m), g.uniform(0, 2, m),
                         g.uniform(MIN_SIGMA_DEG, 0.6, m), g.uniform(MIN_SIGMA_DEG, 0.6, m)])
    return p, _Population(p, g.integers(0, 8, m), np.zeros((8, 30, 50)),
                          tuple(f"p{i}" for i in range(8)))


@pytest.mark.parametrize("mode", ["paper", "sound"])
def test_prescreen_keeps_every_candidate_that_passes(mode):
    """The sufficient-statistics prescreen drops only candidates the exact test fails (its
    brackets of the exact log-probabilities hold), and drops most of them."""
    g = np.random.default_rng(19)
    p, pop = _crowded_population(g)
    m = p.shape[0]
    kept = dropped = 0
    for gamma, k in ((1.5, 2), (3.0, 3), (8.0, 4), (1.05, 2)):
        kw = {"epsilon0": 2.0} if mode == "sound" else {}
        params = EventSynthPDParams(k=k, gamma=gamma, mode=mode, **kw)
        n = g.integers(1, 60, m)
        seg = np.repeat(np.arange(m), n)
        cx = p[seg, 0] + p[seg, 2] * g.standard_normal(seg.size) * g.choice([1.0, 3.0])
        cy = p[seg, 1] + p[seg, 3] * g.standard_normal(seg.size)
        nf = n.astype(np.float64)
        mean = np.column_stack([np.bincount(seg, cx) / nf, np.bincount(seg, cy) / nf])
        ss = np.column_stack([np.bincount(seg, (cx - mean[seg, 0]) ** 2),
                              np.bincount(seg, (cy - mean[seg, 1]) ** 2)])
        keep = _prescreen(_Draw(n, mean, ss), p, pop.fix_owner, pop, _ModelGrid(p[:, :2]),
                          params)
        # the exact test with the most lenient threshold (paper mode has none)
        passed = _fixation_round(cx, cy, seg, n, p, pop.fix_owner, pop, _ModelGrid(p[:, :2]),
                                 params, np.random.default_rng(0))
        if mode == "sound":  # count >= k is necessary whatever the noise: use the floor only
            start = np.cumsum(n) - n
            passed = np.zeros(m, dtype=bool)
            ln_g = math.log(gamma)
            for i in range(m):
                xs, ys = cx[start[i]:start[i] + n[i]], cy[start[i]:start[i] + n[i]]
                lps = fixation_log_prob(xs, ys, p)
                same = np.floor(-lps / ln_g) == math.floor(-lps[i] / ln_g)
                passed[i] = same.sum() >= k
        assert not (passed & ~keep).any()
        kept += int(keep.sum())
        dropped += int((~keep).sum())
    assert dropped > 0.3 * (kept + dropped)


def test_exact_log_probability_lies_in_the_prescreen_bracket():
    """Per sample and axis: -e^2 z^2 / 6 <= log box mass - approximation <= e^2 / 6, far into
    the tails and at the smallest sigma."""
    z = np.concatenate([np.linspace(-40, 40, 4001), [0.0, 1e-3, 60.0]])
    for sd in (MIN_SIGMA_DEG, 0.07, 0.3, 2.0):
        e = BOX_HALF_WIDTH_DEG / sd
        exact = log_box_mass_1d(z * sd, 0.0, sd, BOX_HALF_WIDTH_DEG)
        approx = (math.log(2 * e) - 0.5 * math.log(2 * math.pi) - (0.5 - e * e / 6) * z * z
                  - e * e / 6)
        diff = exact - approx
        assert (diff <= e * e / 6 + 1e-9).all()
        assert (diff >= -e * e * z * z / 6 - 1e-9 * (1 + np.abs(approx))).all()


def test_candidates_drawn_from_sufficient_statistics_are_iid_normal():
    """Mean and sum of squares first, then the samples given them: the samples have exactly
    those statistics and are i.i.d. draws from the seed's normal (KS, fixed seed)."""
    from scipy.stats import kstest

    g = np.random.default_rng(5)
    c = 4000
    p = np.column_stack([g.uniform(-5, 5, c), g.uniform(-5, 5, c), g.uniform(0.05, 1.0, c),
                         g.uniform(0.05, 1.0, c)])
    n = g.integers(1, 40, c)
    draw = _Draw.from_seeds(p, n, g)
    x, y, seg = draw.samples(g)
    nf = n.astype(np.float64)
    assert np.allclose(np.bincount(seg, x) / nf, draw.mean[:, 0], atol=1e-12)
    assert np.allclose(np.bincount(seg, (y - draw.mean[seg, 1]) ** 2), draw.ss[:, 1],
                       rtol=1e-9, atol=1e-12)
    # the first sample of each candidate (any one is marginally normal), and all of them
    first = np.cumsum(n) - n
    zx = (x - p[seg, 0]) / p[seg, 2]
    zy = (y - p[seg, 1]) / p[seg, 3]
    assert kstest(zx[first], "norm").pvalue > 1e-3
    assert kstest(zy, "norm").pvalue > 1e-3
    # within-candidate independence: lag-one correlation of the standardised samples
    same = seg[1:] == seg[:-1]
    r = np.corrcoef(zx[1:][same], zx[:-1][same])[0, 1]
    assert abs(r) < 4 / math.sqrt(same.sum())


# --------------------------------------------------------------------------------------------
# Kaleido
# --------------------------------------------------------------------------------------------


def kaleido_reference(x, y, p: KaleidoParams, rng: np.random.Generator):
    """Sample by sample, as SPEC section 3 reads (one noise value per tested sample)."""
    r_test, r_rad, r_ang = rng.spawn(3)
    w = p.window_samples
    scale = p.test_scale(w)
    cap = p.epsilon - p.epsilon / p.h
    last, last_test, pubs = None, None, []
    ox, oy, spent = np.full(x.size, np.nan), np.full(x.size, np.nan), np.zeros(x.size)
    for i in range(x.size):
        if np.isnan(x[i]):
            if p.missing == "hold" and last is not None:
                ox[i], oy[i] = last
            continue
        if last_test is not None and i - last_test < p.t_skip_samples:
            ox[i], oy[i] = last
            continue
        last_test = i
        eta = r_test.laplace(0.0, 1.0) * scale
        radius = r_rad.gamma(2.0, 1.0) * p.radius_deg
        angle = r_ang.random() * 2 * math.pi
        publish = last is None
        if not publish:
            spent[i] = p.epsilon_test(w)
            publish = math.hypot(x[i] - last[0], y[i] - last[1]) > p.l_thresh_deg + eta
        if publish:
            pubs = [(j, e) for j, e in pubs if j > i - w]
            eps_pub = (cap - sum(e for _, e in pubs)) / 2
            if eps_pub > 0:
                px = min(max(x[i] + radius / eps_pub * math.cos(angle), GEO.x_min_deg),
                         GEO.x_max_deg)
                py = min(max(y[i] + radius / eps_pub * math.sin(angle), GEO.y_min_deg),
                         GEO.y_max_deg)
                last = (px, py)
                pubs.append((i, eps_pub))
                spent[i] += eps_pub
        ox[i], oy[i] = last
    return ox, oy, spent


@pytest.mark.parametrize("missing", ["keep", "hold"])
def test_kaleido_stream_equals_the_sample_by_sample_reference(missing):
    g = np.random.default_rng(3)
    n = 3000
    xy = np.clip(np.cumsum(g.normal(0, 0.4, (n, 2)), axis=0), -25, 25)
    xy[g.random(n) < 0.05] = np.nan
    p = KaleidoParams(epsilon=1.5, radius_deg=2.0, window_samples=40, t_skip_samples=3,
                      missing=missing)
    ref = kaleido_reference(xy[:, 0], xy[:, 1], p, np.random.default_rng(8))
    fast = kaleido_arrays(xy[:, 0], xy[:, 1], p, rng=np.random.default_rng(8), geometry=GEO)
    for a, b in zip(fast, ref, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)
    # and in chunks of one sample (the buffered noise is drawn in blocks)
    s = KaleidoStream(p, rng=np.random.default_rng(8), geometry=GEO)
    one = np.concatenate([s.push(xy[i:i + 1, 0], xy[i:i + 1, 1])[0] for i in range(n)])
    np.testing.assert_array_equal(one, fast[0])


def test_tested_positions_with_gaps_equal_the_sample_loop():
    def reference(ok, j0, skip):
        out, j = [], j0
        while j < ok.size:
            while j < ok.size and not ok[j]:
                j += 1
            if j < ok.size:
                out.append(j)
                j += skip
        return out

    g = np.random.default_rng(0)
    for _ in range(2000):
        n = int(g.integers(0, 80))
        ok = g.random(n) < g.uniform(0.2, 1.0)
        j0, skip = int(g.integers(0, 10)), int(g.integers(1, 7))
        assert _tested_with_missing(ok, j0, skip).tolist() == reference(ok, j0, skip)


def test_largest_remainder_rounding_equals_the_lexsort_form():
    def reference(values, group, totals):
        v = np.clip(values, 0.0, None)
        ng = totals.shape[0]
        s = np.bincount(group, weights=v, minlength=ng)
        starts = np.searchsorted(group, np.arange(ng))
        empty = (s <= 0) & (totals > 0)
        v = v.copy()
        v[starts[empty]] = 1.0
        s[empty] = 1.0
        scaled = v * (totals[group] / np.where(s > 0, s, 1.0)[group])
        fl = np.floor(scaled)
        rem = scaled - fl
        deficit = totals - np.bincount(group, weights=fl, minlength=ng)
        order = np.lexsort((-rem, group))
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size) - starts[group[order]]
        return (fl + (rank < np.rint(deficit)[group])).astype(np.int64)

    g = np.random.default_rng(6)
    for _ in range(50):
        ng = int(g.integers(1, 40))
        sizes = g.integers(1, 12, ng)
        group = np.repeat(np.arange(ng), sizes)
        values = g.normal(1.0, 3.0, group.size)
        values[g.random(group.size) < 0.2] = 2.0  # ties
        totals = np.array([int(g.integers(0, 3 * s + 1)) for s in sizes])
        out = _round_keep_sum(values, group, totals)
        assert out.tolist() == reference(values, group, totals).tolist()
        assert _round_keep_sum(values, group, totals, block=3).tolist() == out.tolist()
        assert np.bincount(group, weights=out, minlength=ng).tolist() == totals.tolist()


def test_oue_reports_do_not_depend_on_the_block_size():
    from gazeprivacy.mechanisms.noise.oue import oue_encode

    items = np.random.default_rng(0).integers(0, 300, 200)
    a = oue_encode(items, domain_size=300, epsilon=1.0, rng=np.random.default_rng(1), chunk=7)
    b = oue_encode(items, domain_size=300, epsilon=1.0, rng=np.random.default_rng(1))
    assert np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
