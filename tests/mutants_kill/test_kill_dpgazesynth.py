# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth noise scales, measured on the released output (mutation gate, issue 14).

The start-point and run-length noise halved (or cut 4x) survived every other test: these tests
read only the public API and the released gaze, so they hold through refactors of the client
code. Statistical, fixed seeds, tolerance 4 standard errors (plus a stated quantisation margin).
"""

from __future__ import annotations

import numpy as np

from gazeprivacy.data import Geometry, Recording
from gazeprivacy.mechanisms.samples.dpgazesynth import DPGazeSynthParams, dpgazesynth_recording

RATE = 20.0       # Hz; window_s 0.5 -> W = 10 samples
W = 10
GEO = Geometry(x_min_deg=0.0, x_max_deg=100.0, y_min_deg=0.0, y_max_deg=100.0)


def _constant_windows(n_windows: int) -> Recording:
    """Gaze fixed at the screen centre: one run of W samples in every window."""
    n = n_windows * W
    return Recording.from_arrays(recording="r", participant="p", x=np.full(n, 50.0),
                                 y=np.full(n, 50.0), sampling_rate_hz=RATE, geometry=GEO)


def test_start_point_noise_has_the_scale_r_over_eps1():
    """The released first sample of a window lies in the noisy start cell: its distance from the
    true start is Gamma(2, r / eps1) (mean 2 r / eps1) plus a uniform offset within a 1-degree
    cell (margin 0.15 deg on the mean)."""
    n_windows = 2000
    p = DPGazeSynthParams(epsilon=1.0, grid_size=100, radius_deg=3.0)  # eps1 = 0.6
    out = dpgazesynth_recording(_constant_windows(n_windows), p,
                                rng=np.random.default_rng(101)).output
    first = np.hypot(out.x[::W] - 50.0, out.y[::W] - 50.0)
    scale = 3.0 / (1.0 * 0.6)  # r / eps1 = 5 deg; P(radius > 50 deg, clamped) ~ 5e-4
    se = first.std() / np.sqrt(n_windows)
    assert abs(first.mean() - 2.0 * scale) < 4.0 * se + 0.15, (first.mean(), 2.0 * scale, se)


def _reference_first_run(b: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """The documented post-processing of sound mode on one run of W samples: [W, 0, ..., 0] +
    Lap(b), clip at 0, scale to sum W, round by largest remainder (ties in index order), drop
    zeros; the length of the first released run."""
    v = np.zeros((n, W))
    v[:, 0] = W
    v = np.clip(v + rng.laplace(0.0, b, (n, W)), 0.0, None)
    s = v.sum(axis=1)
    empty = s <= 0
    v[empty, 0], s[empty] = 1.0, 1.0
    scaled = v * (W / s)[:, None]
    fl = np.floor(scaled)
    deficit = np.rint(W - fl.sum(axis=1))
    order = np.argsort(-(scaled - fl), axis=1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.broadcast_to(np.arange(W), (n, W)).copy(), axis=1)
    out = fl + (rank < deficit[:, None])
    return out[np.arange(n), np.argmax(out > 0, axis=1)]


def _leading_run(x: np.ndarray) -> np.ndarray:
    """Per window, how many leading samples equal the first (a run shares one point and the
    next run is in a neighbouring cell)."""
    win = x.reshape(-1, W)
    same = win == win[:, :1]
    return np.where(same.all(axis=1), W, np.argmin(same, axis=1))


def test_run_length_noise_has_the_scale_2w_minus_2_over_eps2():
    """Sound mode: eps2 = 0.2 eps = 1.8 and sensitivity 2W - 2 = 18 give Laplace scale b = 10.
    The mean length of the first released run is compared with the documented post-processing
    of [W, 0, ..., 0] + Lap(b) (200 000 reference draws); b = 5 (noise halved) moves it by
    0.7 samples, about 17 standard errors."""
    n_windows = 2000
    p = DPGazeSynthParams(epsilon=9.0, grid_size=10)
    out = dpgazesynth_recording(_constant_windows(n_windows), p,
                                rng=np.random.default_rng(202)).output
    got = _leading_run(out.x)
    ref = _reference_first_run(18.0 / 1.8, 200_000, np.random.default_rng(203))
    se = np.hypot(got.std() / np.sqrt(got.size), ref.std() / np.sqrt(ref.size))
    assert abs(got.mean() - ref.mean()) < 4.0 * se, (got.mean(), ref.mean(), se)
