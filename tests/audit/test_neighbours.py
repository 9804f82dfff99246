# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Worst-case neighbour search: extremes plus random pairs, then a fresh confirmation."""

from __future__ import annotations

import numpy as np
import pytest

from gazeprivacy.audit.auditor import audit
from gazeprivacy.audit.neighbours import NeighbourPair, NeighbourStrategy, search_worst_pair
from gazeprivacy.exceptions import InvalidParameterError


def clipped_laplace(value: float, epsilon_claimed: float):
    """Laplace on values clipped to [0, 1] -- but with a bug: values above 0.9 are not clipped,
    so only inputs beyond the declared range reveal the leak."""
    v = value if value > 0.9 else min(max(value, 0.0), 1.0)
    return lambda n, rng: rng.laplace(v, 1 / epsilon_claimed, size=n)


def run(pair, n, rng):
    return audit(clipped_laplace(pair.a, 1.0), clipped_laplace(pair.b, 1.0), n_trials=n,
                 claimed_epsilon=1.0, rng=rng, label=pair.description)


def test_random_search_finds_the_pair_that_breaks_the_claim_and_confirms_it():
    strategy = NeighbourStrategy(
        extremes=(NeighbourPair(0.0, 1.0, "range ends"),),
        random_pair=lambda rng: (lambda a: NeighbourPair(a, a + 2.0, f"{a:.2f} vs {a + 2:.2f}"))(
            float(rng.uniform(-1, 3))),
        n_random=12,
    )
    res = search_worst_pair(strategy, run, exploration_trials=4000, confirmation_trials=20_000,
                            rng=np.random.default_rng(0))
    assert len(res.explored) == 13
    assert res.worst.b > 0.9 and res.worst.description != "range ends"
    assert not res.passed and res.confirmation.p_value < 0.01
    # the confirmation ran on fresh draws, not on an exploration run's
    assert all(res.confirmation != r for _, r in res.explored)


def test_extremes_only_strategy_passes_a_sound_mechanism():
    def sound_run(pair, n, rng):
        return audit(clipped_laplace(min(pair.a, 0.9), 1.0), clipped_laplace(min(pair.b, 0.9), 1.0),
                     n_trials=n, claimed_epsilon=1.0, rng=rng)

    res = search_worst_pair(NeighbourStrategy((NeighbourPair(0.0, 0.9, "ends"),
                                               NeighbourPair(0.3, 0.4, "close"))),
                            sound_run, exploration_trials=2000, confirmation_trials=10_000,
                            rng=np.random.default_rng(1))
    assert res.worst.description == "ends" and res.passed


def test_a_strategy_without_candidates_is_refused():
    with pytest.raises(InvalidParameterError, match="at least one extreme pair"):
        NeighbourStrategy(extremes=())
    with pytest.raises(InvalidParameterError, match="needs random_pair"):
        NeighbourStrategy(extremes=(NeighbourPair(0, 1, "x"),), n_random=3)
