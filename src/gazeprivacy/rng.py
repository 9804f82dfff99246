# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Randomness policy: one ``numpy.random.Generator`` enters at the entry points.

Release runs seed from OS entropy (``make_rng(None)``); research runs pass a fixed seed, which the
guarantee record then notes. Parallel work spawns independent child streams, so serial and
parallel runs give the same output for the same seed.
"""

from __future__ import annotations

import numpy as np

from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["make_rng", "seed_for_sklearn", "spawn"]


def make_rng(seed: int | np.random.Generator | None) -> np.random.Generator:
    """Return a Generator: from OS entropy when ``seed`` is None, else seeded (PCG64).

    Examples
    --------
    >>> a = make_rng(3).normal(); b = make_rng(3).normal()
    >>> a == b
    True
    >>> make_rng(-1)
    Traceback (most recent call last):
    ...
    gazeprivacy.exceptions.InvalidParameterError: seed must be an integer >= 0, got -1
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or (isinstance(seed, int | np.integer) and seed < 0):
        raise InvalidParameterError(f"seed must be an integer >= 0, got {seed!r}")
    return np.random.default_rng(seed)


def spawn(rng: np.random.Generator, n: int) -> list[np.random.Generator]:
    """``n`` independent child generators (SeedSequence spawning), one per recording or task."""
    return list(rng.spawn(n))


def seed_for_sklearn(rng: np.random.Generator) -> int:
    """An integer seed for scikit-learn's ``random_state`` drawn from ``rng``."""
    return int(rng.integers(0, 2**31 - 1))
