# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The heatmap utility forecast (issue 15): expected CC from public parameters and a prior."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from gazeprivacy.exceptions import LowExpectedUtilityWarning
from gazeprivacy.experiments import heatmap_release as hr
from gazeprivacy.features.gaze_maps import GazeMaps, MapGrid, point_spread_heatmap
from gazeprivacy.mechanisms import MECHANISMS
from gazeprivacy.metrics.heatmap import correlation_coefficient


def _observers(rng, grid, n, prior):
    p = prior.ravel() / prior.sum()
    counts = np.stack([rng.multinomial(10, p).reshape(grid.shape) for _ in range(n)])
    return GazeMaps(counts=counts, observers=tuple(f"o{i}" for i in range(n)), stimulus="s",
                    grid=grid)


@pytest.mark.parametrize(("n", "cell_px", "epsilon"), [(15, 32, 1.0), (60, 16, 3.0),
                                                        (400, 32, 3.0)])
def test_the_forecast_matches_releases_of_data_drawn_from_the_prior(n, cell_px, epsilon):
    """Observers drawn from the prior; 30 releases. Tolerance: 4 standard errors of the mean
    CC plus 0.06 for the model (the forecast ignores capping and the observers' scatter)."""
    rng = np.random.default_rng(7)
    grid = MapGrid(width_px=320, height_px=240, cell_px=cell_px)
    prior = hr.centre_bias_prior(grid, fixations_per_observer=10.0)
    params = hr._params("gaussian", epsilon=epsilon, delta=n ** -1.5, cap=2, mode="sound")
    ccs = []
    for _ in range(30):
        maps = _observers(rng, grid, n, prior)
        rel = MECHANISMS["heatmap-gaussian"].protect(maps, params, rng=rng)
        true = point_spread_heatmap(np.minimum(maps.counts, 2).mean(0), sigma_px=24,
                                    cell_px=cell_px)
        ccs.append(correlation_coefficient(
            point_spread_heatmap(rel.output.values, sigma_px=24, cell_px=cell_px), true))
    predicted = hr.expected_cc(prior, noise_std=hr._noise_std("gaussian", params, maps),
                               sigma_px=24, cell_px=cell_px)
    se = np.std(ccs, ddof=1) / np.sqrt(len(ccs))
    assert abs(predicted - np.mean(ccs)) < 4 * se + 0.06, (predicted, np.mean(ccs), se)


def test_a_low_forecast_warns_before_the_release_and_a_high_one_does_not():
    rng = np.random.default_rng(0)
    grid = MapGrid(width_px=320, height_px=240, cell_px=8)
    prior = hr.centre_bias_prior(grid, fixations_per_observer=10.0)
    few = _observers(rng, grid, 15, prior)
    with pytest.warns(LowExpectedUtilityWarning, match="predicted correlation"):
        hr._warn_low_cc(few, 5.0, sigma_px=24, cell_px=8, fixations_per_observer=10.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LowExpectedUtilityWarning)
        hr._warn_low_cc(few, 1e-4, sigma_px=24, cell_px=8, fixations_per_observer=10.0)


def test_noise_free_forecast_is_one_and_pure_noise_is_zero():
    grid = MapGrid(width_px=64, height_px=48, cell_px=4)
    prior = hr.centre_bias_prior(grid, fixations_per_observer=10.0)
    assert hr.expected_cc(prior, noise_std=0.0, sigma_px=8, cell_px=4) == pytest.approx(1.0)
    assert hr.expected_cc(prior, noise_std=1e6, sigma_px=8, cell_px=4) < 1e-3


def test_the_planned_record_charges_every_observer_and_flags_auto_cap():
    rng = np.random.default_rng(0)
    grid = MapGrid(width_px=64, height_px=48, cell_px=8)
    maps = _observers(rng, grid, 5, hr.centre_bias_prior(grid, fixations_per_observer=10.0))
    g = hr.planned_guarantee(maps, mechanism="laplace", epsilon=2.0, delta=None, cap=1)
    assert set(g.per_participant) == set(maps.observers)
    assert {b.epsilon for b in g.per_participant.values()} == {2.0}
    assert g.formally_private
    auto = hr.planned_guarantee(maps, mechanism="laplace", epsilon=2.0, delta=None, cap="auto")
    assert not auto.formally_private
