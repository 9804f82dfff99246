# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Kaleido's test and publishing noise, measured on the released stream (mutation gate, issue 14).

A constant stream at the origin with ``w = 1`` and ``t_skip = 1``: every sample is tested
against the last published point ``P`` (distance ``d = |P|``, read off the output) and either
re-publishes ``P`` or publishes a fresh planar-Laplace point at ``eps_pub = (eps - eps / h) / 2``.
The expected scales are written from the documented formulas (not read from the parameters), so
a wrong scale in the parameters is caught too. Fixed seeds; tolerance 4 standard errors.
"""

from __future__ import annotations

import numpy as np

from gazeprivacy.mechanisms.samples.kaleido import KaleidoParams, kaleido_arrays

EPS, H, R, L_THRESH = 8.0, 2.0, 2.0, 1.0
EPS_TEST = EPS / (H * 1)             # eps / (h ceil(w / t_skip)) with w = t_skip = 1
TEST_SCALE = R / EPS_TEST            # sound mode: r / eps_test = 0.5 deg
EPS_PUB = (EPS - EPS / H) / 2.0      # nothing else published within w = 1 sample


def _released(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    p = KaleidoParams(epsilon=EPS, radius_deg=R, window_samples=1, t_skip_samples=1, h=H,
                      l_thresh_deg=L_THRESH)
    ox, oy, _ = kaleido_arrays(np.zeros(n), np.zeros(n), p, rng=np.random.default_rng(seed))
    return ox, oy


def test_threshold_test_noise_has_the_recorded_scale():
    """Sample i re-publishes iff ``d_i <= l_thresh + Lap(r / eps_test)``: given ``d_i`` (known
    before the draw) the chance is ``P(eta >= d_i - l)``. Observed minus expected
    re-publications, in four bins of ``(d - l) / scale``, each within 4 standard errors
    (martingale differences); without test noise, or at scale 1 / eps_test, some bin is off by
    more than 10."""
    ox, oy = _released(60_000, 11)
    d = np.hypot(ox[:-1], oy[:-1])
    again = (ox[1:] == ox[:-1]) & (oy[1:] == oy[:-1])
    u = (d - L_THRESH) / TEST_SCALE
    p = np.where(u < 0, 1.0 - 0.5 * np.exp(u), 0.5 * np.exp(-u))  # P(Lap(1) >= u)
    for lo, hi in ((-np.inf, -1.0), (-1.0, 0.0), (0.0, 1.0), (1.0, 3.0)):
        sel = (u >= lo) & (u < hi)
        assert sel.sum() > 500, (lo, hi, sel.sum())
        z = (again[sel].sum() - p[sel].sum()) / np.sqrt((p[sel] * (1 - p[sel])).sum())
        assert abs(z) < 4.0, (lo, hi, z)


def test_published_noise_has_the_planar_laplace_scale():
    """A freshly published point is the true point (the origin) plus planar Laplace noise at
    ``eps_pub / r``: its distance is Gamma(2, r / eps_pub), mean ``2 r / eps_pub`` (the choice
    to publish depends on earlier noise only)."""
    ox, oy = _released(60_000, 12)
    new = np.r_[True, (ox[1:] != ox[:-1]) | (oy[1:] != oy[:-1])]
    dist = np.hypot(ox[new], oy[new])
    assert dist.size > 2000
    se = dist.std() / np.sqrt(dist.size)
    assert abs(dist.mean() - 2.0 * R / EPS_PUB) < 4.0 * se, (dist.mean(), 2.0 * R / EPS_PUB, se)
