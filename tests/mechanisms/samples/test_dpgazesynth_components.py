# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth's client, one budget share at a time: each share's noise against its analytic
scale and variance (fixed seeds, 4 standard errors or a KS test at p > 1e-3), the composed
client release, and windows that cannot see each other (``missing="fill"``).

The expected scales are written out from the parameters here (not read from the module's own
``*_noise_scale`` helpers), so a halved noise scale fails these tests.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from gazeprivacy.data import Geometry, Recording
from gazeprivacy.mechanisms.samples import dpgazesynth as dg
from gazeprivacy.mechanisms.samples.dpgazesynth import DPGazeSynthParams, grid

BIG = Geometry(x_min_deg=0.0, x_max_deg=300.0, y_min_deg=0.0, y_max_deg=300.0)
RATE = 200.0


def rec(x: np.ndarray, y: np.ndarray, geometry: Geometry = BIG) -> Recording:
    return Recording.from_arrays(recording="r", participant="p", x=x, y=y,
                                 sampling_rate_hz=RATE, geometry=geometry)


def within_sd(value: float, expected: float, se: float, k: float = 4.0) -> bool:
    return abs(value - expected) <= k * se


# --- eps1: start points ----------------------------------------------------------------------


def test_start_radius_is_gamma_2_r_over_eps1():
    eps, r = 1.0, 1.0
    b = r / (0.6 * eps)  # r / eps1, written out
    p = DPGazeSynthParams(epsilon=eps, grid_size=10, radius_deg=r, window_s=2 / RATE)
    assert dg.start_noise_scale(p, BIG) == pytest.approx(b)
    assert dg.start_radius_variance(p, BIG) == pytest.approx(2 * b * b)
    n_win = 20_000
    win = dg.client_windows(rec(np.full(2 * n_win, 150.0), np.full(2 * n_win, 150.0)), p)
    nx, ny = dg.noisy_start_points(win, p, np.random.default_rng(11))
    radius = np.hypot(nx - 150.0, ny - 150.0)
    var = 2 * b * b
    assert within_sd(radius.mean(), 2 * b, math.sqrt(var / n_win))
    # Gamma(2): excess kurtosis 3, so the sample variance has SE var sqrt(5 / n)
    assert within_sd(radius.var(), var, var * math.sqrt(5 / n_win))
    assert stats.kstest(radius, stats.gamma(2, scale=b).cdf).pvalue > 1e-3
    angle = np.mod(np.arctan2(ny - 150.0, nx - 150.0), 2 * np.pi)
    assert stats.kstest(angle, stats.uniform(0, 2 * np.pi).cdf).pvalue > 1e-3


def test_start_cells_are_the_clamped_discretised_noisy_points():
    geo = Geometry(x_min_deg=0.0, x_max_deg=10.0, y_min_deg=0.0, y_max_deg=10.0)
    p = DPGazeSynthParams(epsilon=1.0, grid_size=10, window_s=10 / RATE)
    x = np.random.default_rng(0).uniform(0, 10, 2000)
    win = dg.client_windows(rec(x, x[::-1].copy(), geo), p)
    nx, ny = dg.noisy_start_points(win, p, np.random.default_rng(4))
    cells = dg.release_start_cells(win, p, np.random.default_rng(4))
    col = np.clip(np.floor(nx), 0, 9)
    row = np.clip(np.floor(ny), 0, 9)
    np.testing.assert_array_equal(cells, row * 10 + col)
    assert (nx < 0).any() or (nx > 10).any()  # some clamped: the case is exercised


# --- eps2: run lengths -----------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sound", "paper"])
def test_run_length_noise_is_laplace_2w_minus_2_over_eps2(mode):
    eps, w = 1.0, 10
    b = (2 * w - 2) / (0.2 * eps)  # sensitivity 2W - 2 over eps2, written out
    p = DPGazeSynthParams(epsilon=eps, grid_size=10, window_s=w / RATE, mode=mode)
    assert dg.run_length_noise_scale(p, w) == pytest.approx(b)
    assert dg.run_length_noise_variance(p, w) == pytest.approx(2 * b * b)
    g = np.random.default_rng(1)
    x = np.repeat(g.uniform(0, 300, 20_000), g.integers(1, 6, 20_000))[:50_000]
    win = dg.client_windows(rec(x, np.full(x.size, 150.0)), p)
    grp, true, noisy = dg.noisy_run_lengths(win, p, np.random.default_rng(12))
    full = win.n_valid[grp] == w
    noise = (noisy - true)[full]
    n = noise.size
    assert n > 10_000
    var = 2 * b * b
    assert within_sd(noise.mean(), 0.0, math.sqrt(var / n))
    # Laplace: excess kurtosis 3, so the sample variance has SE var sqrt(5 / n)
    assert within_sd(noise.var(), var, var * math.sqrt(5 / n))
    assert stats.kstest(noise, stats.laplace(scale=b).cdf).pvalue > 1e-3
    if mode == "sound":  # padded to W entries per window, whatever the number of runs
        assert np.array_equal(np.bincount(grp), win.n_valid)


def test_released_run_lengths_keep_each_window_total():
    p = DPGazeSynthParams(epsilon=1.0, grid_size=10, window_s=10 / RATE)
    x = np.repeat(np.arange(0.0, 300.0, 1.0), 3)[:895]
    win = dg.client_windows(rec(x, np.full(x.size, 150.0)), p)
    rw, rl = dg.release_run_lengths(win, p, np.random.default_rng(0))
    assert (rl > 0).all()
    np.testing.assert_array_equal(np.bincount(rw, weights=rl, minlength=win.n_windows),
                                  win.n_valid)


# --- eps3: transitions (OUE) -----------------------------------------------------------------


@pytest.mark.parametrize(("oue_path", "reps"), [("curator-view", 300), ("client-reports", 40)])
def test_transition_estimates_have_the_oue_variance(oue_path, reps):
    eps, w, g = 1.0, 10, 4
    eps_report = 0.2 * eps / (w - 1)  # eps3 / (W - 1), written out
    q = 1.0 / (math.exp(eps_report) + 1.0)
    geo = Geometry(x_min_deg=0.0, x_max_deg=4.0, y_min_deg=0.0, y_max_deg=4.0)
    p = DPGazeSynthParams(epsilon=eps, grid_size=g, window_s=w / RATE, oue_path=oue_path,
                          geometry=geo)
    assert dg.transition_oue_q(p, w) == pytest.approx(q)
    assert dg.TRANSITION_OUE_P == 0.5
    x = np.random.default_rng(2).uniform(0, 4, 1000)
    report = dg.client_release(rec(x, x[::-1].copy(), geo), p, np.random.default_rng(0))
    assert list(report.reports) == [pytest.approx(eps_report)]
    values = report.reports[next(iter(report.reports))]
    d = 8 * g * g + 1
    counts = np.bincount(values, minlength=d)
    n = values.size
    var = (counts * 0.25 + (n - counts) * q * (1 - q)) / (0.5 - q) ** 2
    np.testing.assert_allclose(
        [dg.transition_estimate_variance(p, w, n=n, true_count=c) for c in counts[:5]], var[:5])
    z2 = []
    for seed in range(reps):
        (sums, n_rep), = dg.perturb_reports(report, p, np.random.default_rng(100 + seed)).values()
        assert n_rep == n
        est = (sums - n * q) / (0.5 - q)  # the unbiased estimator, written out
        z2.append((est - counts) ** 2 / var)
    z2 = np.concatenate(z2)
    # E[z^2] = 1; z is a standardised sum of Bernoullis (close to normal): Var(z^2) ~ 2
    assert within_sd(z2.mean(), 1.0, math.sqrt(2.0 / z2.size))


# --- the composition and the window boundaries -----------------------------------------------


def test_client_release_composes_the_three_shares_in_stream_order():
    geo = Geometry(x_min_deg=0.0, x_max_deg=10.0, y_min_deg=0.0, y_max_deg=10.0)
    p = DPGazeSynthParams(epsilon=2.0, grid_size=10, transitions="one-per-window")
    x = np.random.default_rng(3).uniform(0, 10, 730)
    r = rec(x, x[::-1].copy(), geo)
    report = dg.client_release(r, p, np.random.default_rng(9))
    win = dg.client_windows(r, p)
    r_start, r_times, r_trans = np.random.default_rng(9).spawn(3)
    np.testing.assert_array_equal(report.start_cell, dg.release_start_cells(win, p, r_start))
    rw, rl = dg.release_run_lengths(win, p, r_times)
    np.testing.assert_array_equal(report.run_window, rw)
    np.testing.assert_array_equal(report.run_length, rl)
    values, value_win = dg.transition_values(win, p, r_trans)
    np.testing.assert_array_equal(report.all_reports, values)
    np.testing.assert_array_equal(np.concatenate(list(report.report_windows.values())),
                                  value_win)


def test_fill_stays_within_each_window():
    geo = Geometry(x_min_deg=0.0, x_max_deg=16.0, y_min_deg=0.0, y_max_deg=12.0)
    nan = np.nan
    x = np.array([nan, 1.0, nan, nan, nan, 5.0, 3.0, nan, nan, 2.0, nan])
    fx, fy = grid._fill_missing(x, x + 1.0, 3, geo)
    assert fx.tolist() == [1.0, 1.0, 1.0, 5.0, 5.0, 5.0, 3.0, 3.0, 3.0, 2.0, 2.0]
    np.testing.assert_array_equal(fy, fx + 1.0)
    x[6] = nan  # a window without valid samples: the screen centre (public)
    fx, fy = grid._fill_missing(x, x.copy(), 3, geo)
    assert fx[6:9].tolist() == [8.0] * 3 and fy[6:9].tolist() == [6.0] * 3
    assert fx[9:].tolist() == [2.0, 2.0]


@pytest.mark.parametrize("transitions", ["all", "one-per-window"])
def test_changing_window_j_cannot_change_the_release_of_window_j_plus_1(transitions):
    """missing='fill': window j's samples and mask do not reach window j + 1 (issue 14.3)."""
    geo = Geometry(x_min_deg=0.0, x_max_deg=16.0, y_min_deg=0.0, y_max_deg=12.0)
    p = DPGazeSynthParams(epsilon=2.0, grid_size=16, missing="fill", transitions=transitions)
    w = 100  # 0.5 s at 200 Hz
    g = np.random.default_rng(5)
    xa = np.clip(np.cumsum(g.normal(0, 0.3, 3 * w)) + 8.0, 0, 16)
    ya = np.clip(np.cumsum(g.normal(0, 0.3, 3 * w)) + 6.0, 0, 12)
    xa[2 * w:2 * w + 15] = np.nan  # window 2 starts missing
    ya[2 * w:2 * w + 15] = np.nan
    xb, yb = xa.copy(), ya.copy()
    xa[w:2 * w], ya[w:2 * w] = 1.0, 1.0  # window 1: far apart in the two versions,
    xb[w:2 * w], yb[w:2 * w] = 15.0, 11.0
    xb[2 * w - 30:2 * w] = np.nan  # and with a different mask
    yb[2 * w - 30:2 * w] = np.nan
    ra = dg.client_release(rec(xa, ya, geo), p, np.random.default_rng(7))
    rb = dg.client_release(rec(xb, yb, geo), p, np.random.default_rng(7))

    def window(report: dg.ClientReport, j: int) -> tuple:
        runs = report.run_window == j
        reps = [(e, v[report.report_windows[e] == j].tolist())
                for e, v in report.reports.items()]
        return (int(report.start_cell[j]), report.run_length[runs].tolist(), reps)

    assert window(ra, 2) == window(rb, 2)
    assert window(ra, 1) != window(rb, 1)  # the change itself is seen where it happens
    assert window(ra, 0) == window(rb, 0)


def test_fill_record_says_the_mask_may_differ_and_gaps_fill_within_windows():
    g = dg.guarantee(DPGazeSynthParams(epsilon=1.0, missing="fill"), sampling_rate_hz=RATE)
    assert "same missing-sample mask" not in g.neighbouring
    assert any("its own window" in n for n in g.notes)
    keep = dg.guarantee(DPGazeSynthParams(epsilon=1.0), sampling_rate_hz=RATE)
    assert "same missing-sample mask" in keep.neighbouring
