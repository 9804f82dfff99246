# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Search for a worst-case neighbouring pair: hand-picked extremes plus random search.

An audit is only as strong as its pair. A :class:`NeighbourStrategy` lists hand-picked extreme
pairs (the inputs a proof's sensitivity argument names: the largest allowed move, a one-run
window against a many-run window, ...) and, optionally, a generator of random neighbouring pairs.
:func:`search_worst_pair` audits each candidate on a small *exploration* budget, keeps the pair
with the largest epsilon lower bound, and audits that pair again on *fresh* draws with the full
budget. Only the confirmation run is reported as the audit's verdict, so the choice of pair does
not spend the confidence of the final bound (the exploration runs are listed for the record).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gazeprivacy._validation import check_int
from gazeprivacy.audit.auditor import AuditResult
from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["NeighbourPair", "NeighbourStrategy", "PairSearchResult", "search_worst_pair"]


@dataclass(frozen=True)
class NeighbourPair:
    """Two neighbouring inputs (any objects the adapter understands) and a description."""

    a: Any
    b: Any
    description: str


@dataclass(frozen=True)
class NeighbourStrategy:
    """Hand-picked extreme pairs plus ``n_random`` pairs drawn by ``random_pair(rng)``."""

    extremes: tuple[NeighbourPair, ...]
    random_pair: Callable[[np.random.Generator], NeighbourPair] | None = None
    n_random: int = 0

    def __post_init__(self) -> None:
        if not self.extremes and (self.random_pair is None or self.n_random == 0):
            raise InvalidParameterError("a NeighbourStrategy needs at least one extreme pair or "
                                        "random_pair with n_random >= 1")
        if self.n_random and self.random_pair is None:
            raise InvalidParameterError(f"n_random={self.n_random} needs random_pair")

    def candidates(self, rng: np.random.Generator) -> list[NeighbourPair]:
        out = list(self.extremes)
        if self.random_pair is not None:
            out += [self.random_pair(rng) for _ in range(self.n_random)]
        return out


@dataclass(frozen=True)
class PairSearchResult:
    """The explored pairs (with their exploration audits) and the confirmation audit."""

    explored: tuple[tuple[NeighbourPair, AuditResult], ...]
    worst: NeighbourPair
    confirmation: AuditResult

    @property
    def passed(self) -> bool:
        return self.confirmation.passed


def search_worst_pair(
    strategy: NeighbourStrategy,
    run: Callable[[NeighbourPair, int, np.random.Generator], AuditResult],
    *,
    exploration_trials: int,
    confirmation_trials: int,
    rng: np.random.Generator,
) -> PairSearchResult:
    """Explore candidate pairs cheaply, then confirm the worst one on fresh draws.

    Parameters
    ----------
    strategy : NeighbourStrategy
        Where the candidate pairs come from.
    run : callable ``(pair, n_trials, rng) -> AuditResult``
        One audit of one pair (usually :func:`gazeprivacy.audit.auditor.audit` with the
        adapter's samplers).
    exploration_trials, confirmation_trials : int
        Draws per input for each exploration audit and for the confirmation audit.
    rng : numpy.random.Generator
        Independent child streams are spawned for the candidates, each exploration and the
        confirmation.

    Examples
    --------
    >>> import numpy as np
    >>> from gazeprivacy.audit.auditor import audit
    >>> lap = lambda mu: (lambda n, rng: rng.laplace(mu, 1.0, size=n))
    >>> pairs = tuple(NeighbourPair(0.0, d, f"shift {d}") for d in (0.1, 1.0))
    >>> res = search_worst_pair(NeighbourStrategy(pairs),
    ...     lambda p, n, r: audit(lap(p.a), lap(p.b), n_trials=n, claimed_epsilon=1.0, rng=r),
    ...     exploration_trials=4000, confirmation_trials=20000, rng=np.random.default_rng(1))
    >>> res.worst.description, res.passed
    ('shift 1.0', True)
    """
    check_int(exploration_trials=exploration_trials, minimum=20)
    check_int(confirmation_trials=confirmation_trials, minimum=20)
    r_cand, r_explore, r_confirm = rng.spawn(3)
    cands = strategy.candidates(r_cand)
    explored: list[tuple[NeighbourPair, AuditResult]] = []
    if len(cands) == 1:
        worst = cands[0]
    else:
        for pair, child in zip(cands, r_explore.spawn(len(cands)), strict=True):
            explored.append((pair, run(pair, exploration_trials, child)))
        worst = max(explored, key=lambda pr: (pr[1].epsilon_lower_bound,
                                              pr[1].epsilon_estimate))[0]
    confirmation = run(worst, confirmation_trials, r_confirm)
    return PairSearchResult(tuple(explored), worst, confirmation)
