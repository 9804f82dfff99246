# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Identification audit: which of k candidate participants is in the release?

The game (a k-way membership / identification game). ``k`` candidate datasets ``D_1 .. D_k``
differ only in the data of one participant slot (the *target*; everything else, the background
and every public-shape item such as row counts, rates, geometry and labels, is the same). The
challenger draws ``J`` uniformly from ``1..k`` and releases ``M(D_J)``; the attacker knows all
``k`` candidates, sees the release and guesses ``J``.

The bound. Under epsilon-DP with respect to *replacing* one participant's data (the neighbouring
notion of DPGazeSynth's ``unit="participant"`` record: two versions of one participant's data
with the same public shape), every two candidates ``D_i, D_j`` are neighbours, so the output
densities satisfy ``p_j(o) <= e^eps_ij p_i(o)``. The attacker's best guess is the posterior's
mode, and for every output ``o`` and every ``j``

    P(J = j | o) = p_j / sum_i p_i <= 1 / (1 + sum_{i != j} e^{-eps_ij}),

so ``P(correct) <= max_j 1 / (1 + sum_{i != j} e^{-eps_ij})``, which for one epsilon for all
pairs is ``e^eps / (e^eps + k - 1)`` (:func:`identification_bound`; at eps = 1, k = 20: 0.1252,
slightly below the looser ``e^eps / k`` = 0.1359). Under *add/remove* neighbours two candidates
are two steps apart and the bound is the same formula with ``2 eps``; this module uses
replace-one, which is what the record states. Inverting the bound turns an observed success rate
``p`` into an epsilon lower bound ``ln(p (k - 1) / (1 - p))`` (:func:`identification_epsilon`),
applied to the one-sided Clopper-Pearson lower bound of ``p``.

:func:`identification_audit` plays the game with a shadow-trained attacker: per candidate it
releases ``n_shadow`` times, turns each release into count features, fits a multinomial naive
Bayes (scikit-learn's ``MultinomialNB``: a likelihood attacker on the counts), then plays
``n_trials`` fresh games. For DPGazeSynth, :func:`released_window_counts` counts the released
windows' start cells, runs per window and move directions (the reported grid cells and the
transition model are all a participant-level release depends on the data through), and
:func:`dpgazesynth_pair_epsilon` gives the record's per-pair epsilon for candidates whose start
points are further apart than ``r`` (the record is metric in the start points: the headline
epsilon holds for start points within ``r`` window by window).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gazeprivacy._validation import check_int, check_range
from gazeprivacy.audit.auditor import clopper_pearson_lower, clopper_pearson_upper
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError

__all__ = [
    "IdentificationResult",
    "dpgazesynth_pair_epsilon",
    "dpgazesynth_pairwise_epsilon",
    "identification_audit",
    "identification_bound",
    "identification_epsilon",
    "released_window_counts",
]

Releaser = Callable[[Dataset, np.random.Generator], Dataset]
Features = Callable[[Dataset], np.ndarray]


def identification_bound(epsilon: Any, k: int | None = None) -> float:
    """The most an attacker can win the k-way identification game under replace-one DP.

    ``epsilon`` is one number (every pair of candidates at that epsilon; ``k`` required) or a
    ``k x k`` matrix of per-pair epsilons (diagonal ignored).

    >>> round(identification_bound(1.0, 20), 4), round(identification_bound(1.0, 2), 4)
    (0.1252, 0.7311)
    >>> identification_bound([[0, 0], [0, 0]])
    0.5
    """
    eps = np.asarray(epsilon, dtype=np.float64)
    if eps.ndim == 0:
        if k is None:
            raise InvalidParameterError("identification_bound: a scalar epsilon needs k")
        check_int(k=k, minimum=2)
        e = float(eps)
        return 1.0 / (1.0 + (k - 1) * math.exp(-e))
    if eps.ndim != 2 or eps.shape[0] != eps.shape[1] or eps.shape[0] < 2:
        raise InvalidParameterError(f"epsilon must be a number or a k x k matrix, got shape "
                                    f"{eps.shape}")
    if np.any(eps < 0) or np.any(np.isnan(eps)):
        raise InvalidParameterError("per-pair epsilons must be >= 0")
    off = np.exp(-eps)
    np.fill_diagonal(off, 0.0)
    return float(np.max(1.0 / (1.0 + off.sum(axis=0))))


def identification_epsilon(success: float, k: int) -> float:
    """The smallest epsilon whose bound :func:`identification_bound` allows success ``success``
    in a k-way game: ``ln(p (k - 1) / (1 - p))``, 0 at or below chance, inf at 1.

    >>> round(identification_epsilon(identification_bound(1.5, 7), 7), 6)
    1.5
    >>> identification_epsilon(0.05, 20)
    0.0
    """
    check_int(k=k, minimum=2)
    p = float(success)
    if p >= 1.0:
        return math.inf
    if p <= 1.0 / k:
        return 0.0
    return math.log(p * (k - 1) / (1.0 - p))


@dataclass(frozen=True)
class IdentificationResult:
    """One identification audit.

    ``passed``: the Clopper-Pearson lower bound of the success rate (one-sided, ``confidence``)
    is at most the DP bound, i.e. ``epsilon_lower_bound <= claimed`` (for a matrix claim: the
    success lower bound against the matrix bound). ``within_4se``: the point estimate is at most
    the bound plus 4 binomial standard errors (the looser check the tests also state). For a
    matrix claim ``claimed_epsilon`` is the one epsilon whose k-way bound equals the matrix's
    (``inf`` when that bound is 1 in floating point).
    """

    k: int
    n_trials: int
    n_correct: int
    bound: float
    claimed_epsilon: float
    confidence: float
    attacker: str

    @property
    def success(self) -> float:
        return self.n_correct / self.n_trials

    @property
    def standard_error(self) -> float:
        p = self.success
        return math.sqrt(max(p * (1.0 - p), 1.0 / self.n_trials) / self.n_trials)

    @property
    def success_lower(self) -> float:
        return float(clopper_pearson_lower(self.n_correct, self.n_trials, 1 - self.confidence))

    @property
    def success_upper(self) -> float:
        return float(clopper_pearson_upper(self.n_correct, self.n_trials, 1 - self.confidence))

    @property
    def epsilon_lower_bound(self) -> float:
        """``identification_epsilon`` of the success lower bound (uniform-epsilon reading)."""
        return identification_epsilon(self.success_lower, self.k)

    @property
    def passed(self) -> bool:
        return self.success_lower <= self.bound

    @property
    def within_4se(self) -> bool:
        return self.success <= self.bound + 4.0 * self.standard_error

    def row(self) -> dict[str, Any]:
        return {"k": self.k, "trials": self.n_trials, "success": round(self.success, 4),
                "se": round(self.standard_error, 4),
                "success_lower": round(self.success_lower, 4), "bound": round(self.bound, 4),
                "chance": round(1.0 / self.k, 4),
                "epsilon_lower_bound": round(self.epsilon_lower_bound, 4),
                "claimed_epsilon": round(self.claimed_epsilon, 4), "passed": self.passed,
                "attacker": self.attacker}


def identification_audit(candidates: Sequence[Dataset], release: Releaser, features: Features,
                         *, claimed_epsilon: Any, n_shadow: int, n_trials: int,
                         rng: np.random.Generator, confidence: float = 0.95
                         ) -> IdentificationResult:
    """Play the k-way identification game ``n_trials`` times against a shadow-trained attacker.

    Parameters
    ----------
    candidates : sequence of Dataset
        ``D_1 .. D_k`` (k >= 2): the same background, one target slot filled by each candidate
        (same public shape; the caller builds them).
    release : callable ``(dataset, rng) -> Dataset``
        The mechanism's release (e.g. ``dpgazesynth(ds, params, rng=rng).output``).
    features : callable ``Dataset -> 1-D array of counts >= 0``
        What the attacker reads of a release (e.g. :func:`released_window_counts`).
    claimed_epsilon : float or k x k array
        The record's epsilon between every two candidates, or per pair
        (:func:`dpgazesynth_pairwise_epsilon`).
    n_shadow : int
        Releases per candidate that train the attacker (independent of the games).
    n_trials : int
        Games; ``J`` uniform each time.
    rng : numpy.random.Generator
        Spawned into the shadow releases, the secret draws and the game releases.
    confidence : float
        Of the one-sided Clopper-Pearson bound on the success rate.
    """
    from sklearn.naive_bayes import MultinomialNB

    k = len(candidates)
    if k < 2:
        raise InvalidParameterError(f"the identification game needs k >= 2 candidates, got {k}")
    check_int(n_shadow=n_shadow, minimum=1)
    check_int(n_trials=n_trials, minimum=1)
    check_range(confidence=confidence, lo=0.5, hi=1.0)
    rng_shadow, rng_secret, rng_game = rng.spawn(3)
    shadow_rngs = rng_shadow.spawn(k * n_shadow)
    x = np.stack([features(release(candidates[j], shadow_rngs[j * n_shadow + i]))
                  for j in range(k) for i in range(n_shadow)])
    if np.any(x < 0):
        raise InvalidDataError("identification features must be counts >= 0")
    attacker = MultinomialNB(alpha=0.5).fit(x, np.repeat(np.arange(k), n_shadow))
    secret = rng_secret.integers(k, size=n_trials)
    game_rngs = rng_game.spawn(n_trials)
    guesses = np.array([int(attacker.predict(features(release(candidates[j], g))[None])[0])
                        for j, g in zip(secret.tolist(), game_rngs, strict=True)])
    eps = np.asarray(claimed_epsilon, dtype=np.float64)
    bound = identification_bound(eps, k)
    return IdentificationResult(
        k=k, n_trials=n_trials, n_correct=int((guesses == secret).sum()), bound=bound,
        claimed_epsilon=float(eps) if eps.ndim == 0 else identification_epsilon(bound, k),
        confidence=confidence,
        attacker=f"multinomial naive Bayes on release counts, {n_shadow} shadow releases per "
                 "candidate")


# --------------------------------------------------------------------------------------------
# DPGazeSynth: the attacker's features and the record's per-pair epsilon


def released_window_counts(release: Dataset, params: Any, *, distinct: bool = True
                           ) -> np.ndarray:
    """Counts over the released windows of a DPGazeSynth release: start cells by column and by
    row (``2 G``; the marginals, which a few hundred shadow releases estimate far better than
    ``G^2`` cells), runs per window (``1 .. W``), then the moves' directions over all windows
    (8; as frequencies scaled to the number of windows counted).

    The synthetic paths live on the grid (one cell per run, a neighbour cell per move), so the
    cells of the released samples are exactly the synthesised cells. Under ``unit=
    "participant"`` every released window copies the start cell and run lengths of a report drawn
    with replacement; ``distinct=True`` counts each (W, start cell, run lengths) once, which
    recovers the reports (up to rare collisions) instead of weighting them by how often they
    were drawn."""
    from gazeprivacy.mechanisms.samples.dpgazesynth import window_samples

    g = params.grid_size
    seen: set[tuple[int, ...]] = set()
    starts = np.zeros(2 * g)
    dirs = np.zeros(8)
    n_runs: list[int] = []
    for w, col, row, win in _released_cells(release, params):
        first = np.ones(col.size, dtype=bool)
        first[1:] = win[1:] != win[:-1]
        move = ~first & ((col != np.roll(col, 1)) | (row != np.roll(row, 1)))
        dc, dr = (col - np.roll(col, 1))[move], (row - np.roll(row, 1))[move]
        dirs += np.bincount(np.mod(np.rint(np.arctan2(dr, dc) / (np.pi / 4)), 8)
                            .astype(np.int64), minlength=8)
        bounds = np.flatnonzero(first | move)          # the first sample of every run
        lengths = np.diff(np.append(bounds, col.size))
        cuts = np.flatnonzero(first[bounds]).tolist()  # runs of each window: cuts[i]..
        for lo, hi in zip(cuts, [*cuts[1:], bounds.size], strict=True):
            at = int(bounds[lo])
            key = (w, int(row[at]) * g + int(col[at]), *lengths[lo:hi].tolist())
            if distinct and key in seen:
                continue
            seen.add(key)
            starts[[int(col[at]), g + int(row[at])]] += 1
            n_runs.append(min(hi - lo, w))
    # the public shape fixes the length, so every release of the game has the same features
    w_max = max([2, *(window_samples(params, r.sampling_rate_hz) for r in release)])
    run_hist = np.bincount(np.asarray(n_runs, dtype=np.int64) - 1, minlength=w_max)[:w_max]
    # every move is a draw from one transition model: weigh them as one move per report, not
    # as independent evidence (hundreds of moves would drown the few start cells)
    dirs = dirs / max(dirs.sum(), 1.0) * len(n_runs)
    return np.concatenate([starts, run_hist.astype(np.float64), dirs])


def _released_cells(release: Dataset, params: Any) -> Any:
    """Per released recording with valid rows: (W, column, row, window) of its valid samples."""
    from gazeprivacy.mechanisms.samples.dpgazesynth import window_samples

    g = params.grid_size
    for rec in release:
        ok = np.flatnonzero(~np.isnan(rec.x))
        if ok.size == 0:
            continue
        w = window_samples(params, rec.sampling_rate_hz)
        geo = params.geometry or rec.geometry
        col = np.clip(np.floor((rec.x[ok] - geo.x_min_deg) / (geo.x_max_deg - geo.x_min_deg)
                               * g), 0, g - 1).astype(np.int64)
        row = np.clip(np.floor((rec.y[ok] - geo.y_min_deg) / (geo.y_max_deg - geo.y_min_deg)
                               * g), 0, g - 1).astype(np.int64)
        yield w, col, row, ok // w


def dpgazesynth_pair_epsilon(a: Dataset, b: Dataset, params: Any) -> float:
    """The record's epsilon between two datasets that differ in one participant's gaze only
    (``unit="participant"``): ``E (times + transitions) + (E / m) start sum_top-m d_w / r`` over
    that participant's windows ``w`` (``d_w``: the distance of the two versions' first valid
    samples), the largest sum any draw of ``m`` windows can give. Start points within ``r``
    window by window give at most the headline ``E x split.total``.

    Returns ``inf`` when (``missing="keep"``) the two versions' missing-sample masks differ:
    the mask is public under ``keep``, so they are no neighbours and nothing is promised.

    Raises
    ------
    InvalidDataError
        The datasets differ in public shape or in more than one participant: no neighbours
        under replace-one.
    """
    from gazeprivacy.mechanisms.samples.dpgazesynth import client_windows

    if params.unit != "participant":
        raise InvalidParameterError("dpgazesynth_pair_epsilon is for unit='participant'")
    shape = [(r.participant, r.recording, r.n_samples, r.sampling_rate_hz) for r in a]
    if shape != [(r.participant, r.recording, r.n_samples, r.sampling_rate_hz) for r in b]:
        raise InvalidDataError("the candidates differ in public shape: not neighbours")
    differ = {ra.participant for ra, rb in zip(a, b, strict=True)
              if not (np.array_equal(ra.x, rb.x, equal_nan=True)
                      and np.array_equal(ra.y, rb.y, equal_nan=True))}
    if not differ:
        return 0.0
    if len(differ) > 1:
        raise InvalidDataError(f"the candidates differ in {len(differ)} participants: not "
                               "neighbours under replace-one")
    who = differ.pop()
    ra = [r for r in a if r.participant == who]
    rb = [r for r in b if r.participant == who]
    if params.missing == "keep" and any(
            not np.array_equal(np.isnan(u.x), np.isnan(v.x)) for u, v in zip(ra, rb,
                                                                            strict=True)):
        return math.inf
    wa, wb = client_windows(ra, params), client_windows(rb, params)
    d = np.hypot(wa.start_x - wb.start_x, wa.start_y - wb.start_y) / wa.radius
    m = int(params.windows_per_participant)
    top = np.sort(d)[::-1][:m].sum()
    e, s = params.epsilon, params.split
    return float(e * (s.times + s.transitions) + e / m * s.start * top)


def dpgazesynth_pairwise_epsilon(candidates: Sequence[Dataset], params: Any) -> np.ndarray:
    """:func:`dpgazesynth_pair_epsilon` for every pair of candidates (a ``k x k`` matrix)."""
    k = len(candidates)
    out = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            out[i, j] = out[j, i] = dpgazesynth_pair_epsilon(candidates[i], candidates[j],
                                                             params)
    return out
