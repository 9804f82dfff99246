# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Algorithm 1 (cap choice): expected MSE, minimiser, flag."""

from __future__ import annotations

import numpy as np
import pytest

from gazeprivacy.exceptions import NotFormallyPrivateWarning
from gazeprivacy.features.gaze_maps import GazeMaps, MapGrid
from gazeprivacy.guarantees import FlagCode, Release
from gazeprivacy.mechanisms.heatmaps import gaussian as gauss
from gazeprivacy.mechanisms.heatmaps.cap import choose_cap, expected_mse


def _maps(c) -> GazeMaps:
    c = np.asarray(c)
    return GazeMaps(counts=c, observers=tuple(map(str, range(c.shape[0]))), stimulus="s",
                    grid=MapGrid(width_px=c.shape[2], height_px=c.shape[1]))


def test_constructed_case_picks_the_minimum():
    # one observer, one cell, count 5: E[MSE(m)] = m^2 sigma*^2 + (5 - m)^2, with
    # sigma*^2 = 0.5 the continuous optimum is 5 / 1.5 = 3.33 -> m = 3 (8.5 < 9 at m = 4).
    maps = _maps([[[5]]])
    with pytest.warns(NotFormallyPrivateWarning, match="reads the private gaze maps"):
        choice = choose_cap(maps, sigma_star=np.sqrt(0.5))
    assert choice.cap == 3
    np.testing.assert_allclose(choice.expected_mse, [0.5 + 16, 2 + 9, 4.5 + 4, 8 + 1, 12.5])
    assert choice.flag.code is FlagCode.TUNED_ON_PRIVATE_DATA


def test_matches_brute_force_theorem_4_1(rng):
    counts = rng.poisson(1.5, size=(7, 5, 6)) * rng.integers(0, 3, size=(7, 5, 6))
    maps = _maps(counts)
    sigma_star = 0.3
    full = maps.aggregate(None)
    want = [m * m * sigma_star ** 2 + np.mean((maps.aggregate(m) - full) ** 2)
            for m in range(1, maps.g_max + 1)]
    np.testing.assert_allclose(expected_mse(maps, sigma_star=sigma_star), want, rtol=1e-12)
    with pytest.warns(NotFormallyPrivateWarning):
        assert choose_cap(maps, sigma_star=sigma_star).cap == int(np.argmin(want)) + 1


def test_expected_mse_matches_simulation(rng):
    """Theorem 4.1 against simulated Gaussian releases (4 standard errors)."""
    maps = _maps(rng.poisson(2.0, size=(5, 20, 20)))
    params = gauss.GaussianParams(epsilon=1.0, delta=1e-2, cap=2)
    sigma = gauss.noise_std(params, n_observers=5, n_cells=400)
    want = expected_mse(maps, sigma_star=sigma / 2)[1]
    full = maps.aggregate(None)
    errs = np.array([np.mean((gauss.gaussian(maps, params, rng=rng).output.values - full) ** 2)
                     for _ in range(300)])
    assert abs(errs.mean() - want) < 4 * errs.std(ddof=1) / np.sqrt(errs.size)


def test_flag_is_carried_to_the_release(rng):
    maps = _maps(rng.poisson(1.0, size=(4, 3, 3)))
    with pytest.warns(NotFormallyPrivateWarning):
        choice = choose_cap(maps, sigma_star=0.1)
    rel = gauss.gaussian(maps, gauss.GaussianParams(epsilon=1.0, delta=1e-2, cap=choice.cap),
                         rng=rng)
    flagged = choice.flag_release(rel)
    assert isinstance(flagged, Release)
    assert not flagged.guarantee.formally_private
    assert rel.guarantee.formally_private
