# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The frontier's pooled membership verdict: can the run certify AUC <= 0.6 and TPR - FPR <= 0.1?

Input: the candidates' scores of every fold and seed of a run
(:mod:`gazeprivacy.experiments.frontier_membership`; columns ``dataset, mechanism, parameters,
seed, fold, participant, member, score``). Per release (dataset, mechanism, parameters) over
all its (seed, fold) games, :func:`pooled_membership` reports

* ``auc``: the pooled AUC, the share of (member, non-member) pairs *of the same game* in which
  the member scores higher (ties count half): each game's Mann-Whitney count summed over games,
  so a release whose scores shift as a whole from one game to the next is not penalised;
* ``advantage``: TPR - FPR of the attacker that answers "member" at or above one threshold on
  the score, the threshold **learned on the other seeds** (leave one seed out: each seed's games
  are judged at the threshold that is best on the other seeds' pooled scores, as an attacker
  calibrating on shadow experiments would), counted over all games; ``advantage_best`` the
  best over all thresholds in hindsight on the pooled scores (optimistic: it fits the noise,
  and its bootstrap interval, ``advantage_best_high``, is biased upward by the maximum, so it
  is shown, not judged);
* their ``level`` (0.95) percentile intervals from a **bootstrap over participants**
  (``n_bootstrap`` resamples): a participant is a candidate in every game of every seed, so its
  scores are not independent; a resample draws participants with replacement and weighs every
  score of a drawn participant (as member and as non-member) by how often it was drawn;
* ``auc_verdict`` and ``advantage_verdict``: ``certified`` when the interval's upper end is at
  most the target (``max_auc`` 0.6, ``max_advantage`` 0.1), ``refuted`` when its lower end is
  above it, else ``not certified`` (the interval straddles the target: more candidates or
  seeds needed; the advantage needs 2 seeds or more); ``verdict``: ``certified`` when both are,
  ``refuted`` when either is; ``beats_chance``: the AUC's lower end above 0.5.

The raw copy of the input (mechanism ``none``), scored on the same games, must beat chance
clearly: an attacker that does not catch a copy proves nothing about a private release.
``copy_caught`` is the raw copy's ``beats_chance`` on the release's dataset (null when the run
has no raw row), and a release that meets both targets where the copy is *not* caught gets the
verdict :data:`UNCHECKED`, not ``certified``, and one in a run without the raw copy
:data:`NO_COPY` (``scripts/frontier_table.py`` shows the copy's row first).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

__all__ = ["NO_COPY", "POOLED_COLUMNS", "UNCHECKED", "pooled_membership",
           "read_membership_scores"]

_CELL = ["dataset", "mechanism", "parameters"]

#: the verdict of a release whose targets are met on a dataset where the same attacker does
#: not catch the raw copy (its AUC interval reaches 0.5): the certificate would mean nothing
UNCHECKED = "not certified (the attacker does not catch the raw copy here)"
#: the verdict of a release whose targets are met in a run without the raw copy: nothing
#: shows that the attacker could catch a release that leaks
NO_COPY = "not certified (no raw copy to check the attacker)"

POOLED_COLUMNS = {
    "dataset": pl.String, "mechanism": pl.String, "parameters": pl.String,
    "n_participants": pl.Int64, "n_seeds": pl.Int64, "n_games": pl.Int64, "n_scores": pl.Int64,
    "auc": pl.Float64, "auc_low": pl.Float64, "auc_high": pl.Float64,
    "advantage": pl.Float64, "advantage_low": pl.Float64, "advantage_high": pl.Float64,
    "advantage_best": pl.Float64, "advantage_best_high": pl.Float64,
    "max_auc": pl.Float64, "max_advantage": pl.Float64, "level": pl.Float64,
    "beats_chance": pl.Boolean, "auc_verdict": pl.String, "advantage_verdict": pl.String,
    "copy_caught": pl.Boolean, "verdict": pl.String,
}


def read_membership_scores(run: str | Path, keys: Sequence[str] | None = None) -> pl.DataFrame:
    """The fold scores of a run folder's cells (``keys``: of those cells only; None: every
    cell's), empty when the run measured no folds."""
    folder = Path(run) / "membership"
    files = (sorted(folder.glob("*.parquet")) if keys is None else
             [f for k in keys if (f := folder / f"{k}.parquet").is_file()])
    if not files:
        return pl.DataFrame(schema={"dataset": pl.String, "mechanism": pl.String,
                                    "parameters": pl.String, "seed": pl.Int64,
                                    "fold": pl.Int64, "participant": pl.String,
                                    "member": pl.Boolean, "score": pl.Float64})
    return pl.concat([pl.read_parquet(f) for f in files], how="diagonal_relaxed")


def _pair_matrices(person: np.ndarray, member: np.ndarray, score: np.ndarray,
                   game: np.ndarray, n_people: int) -> tuple[np.ndarray, np.ndarray]:
    """(wins, pairs): per (member person, non-member person), the Mann-Whitney count and the
    number of pairs, summed over games (pairs only within a game)."""
    wins = np.zeros((n_people, n_people))
    pairs = np.zeros((n_people, n_people))
    for g in np.unique(game):
        m = (game == g) & member
        n = (game == g) & ~member
        if not m.any() or not n.any():
            continue
        diff = score[m][:, None] - score[n][None, :]
        w = (diff > 0) + 0.5 * (diff == 0)
        np.add.at(wins, (person[m][:, None], person[n][None, :]), w)
        np.add.at(pairs, (person[m][:, None], person[n][None, :]), 1.0)
    return wins, pairs


def _gaps(weights: np.ndarray, person: np.ndarray, member: np.ndarray, score: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray]:
    """TPR - FPR of "member when score >= t" at every distinct score t (descending), per row
    of ``weights`` (one weight per person): (gaps (rows, thresholds), thresholds)."""
    order = np.argsort(-score, kind="stable")
    s, p, y = score[order], person[order], member[order]
    w = weights[:, p]  # (rows, scores)
    pos = np.cumsum(np.where(y, w, 0.0), axis=1)
    neg = np.cumsum(np.where(y, 0.0, w), axis=1)
    last = np.r_[s[1:] != s[:-1], True]  # thresholds only between distinct scores
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = pos[:, last] / pos[:, -1:] - neg[:, last] / neg[:, -1:]
    return gap, s[last]


def _advantage(weights: np.ndarray, person: np.ndarray, member: np.ndarray,
               score: np.ndarray) -> np.ndarray:
    """Best TPR - FPR over thresholds in hindsight, per row of ``weights``."""
    gap, _ = _gaps(weights, person, member, score)
    return np.maximum(np.nanmax(np.nan_to_num(gap, nan=-np.inf), axis=1, initial=0.0), 0.0)


def _advantage_cv(weights: np.ndarray, person: np.ndarray, member: np.ndarray,
                  score: np.ndarray, seed: np.ndarray) -> np.ndarray:
    """TPR - FPR when each seed's games are judged at the threshold that is best on the
    *other* seeds' games (leave one seed out), counted over all games, per row of
    ``weights``; NaN with fewer than 2 seeds."""
    seeds = np.unique(seed)
    if seeds.size < 2:
        return np.full(weights.shape[0], np.nan)
    tp = np.zeros(weights.shape[0])
    fp = np.zeros(weights.shape[0])
    for s in seeds:
        train, test = seed != s, seed == s
        gap, thr = _gaps(weights, person[train], member[train], score[train])
        gap = np.nan_to_num(gap, nan=-np.inf)
        best = np.argmax(gap, axis=1)
        cut = np.where(gap[np.arange(gap.shape[0]), best] > 0, thr[best], np.inf)
        above = score[test][None, :] >= cut[:, None]
        w = weights[:, person[test]]
        tp += (w * (above & member[test])).sum(axis=1)
        fp += (w * (above & ~member[test])).sum(axis=1)
    w = weights[:, person]
    with np.errstate(invalid="ignore", divide="ignore"):
        return tp / (w * member).sum(axis=1) - fp / (w * ~member).sum(axis=1)


def _one_release(rows: pl.DataFrame, rng: np.random.Generator, n_bootstrap: int,
                 level: float) -> dict[str, float]:
    people = sorted(set(rows["participant"].to_list()))
    index = {p: i for i, p in enumerate(people)}
    person = np.array([index[p] for p in rows["participant"].to_list()])
    member = rows["member"].to_numpy().astype(bool)
    score = rows["score"].to_numpy().astype(float)
    game = (rows["seed"].cast(pl.String) + ":" + rows["fold"].cast(pl.String)).to_numpy()
    wins, pairs = _pair_matrices(person, member, score, game, len(people))
    ones = np.ones((1, len(people)))
    draws = rng.multinomial(len(people), np.full(len(people), 1.0 / len(people)),
                            size=n_bootstrap).astype(float)
    weights = np.vstack([ones, draws])
    with np.errstate(invalid="ignore", divide="ignore"):
        aucs = (np.einsum("bi,ij,bj->b", weights, wins, weights)
                / np.einsum("bi,ij,bj->b", weights, pairs, weights))
    advs = _advantage_cv(weights, person, member, score, rows["seed"].to_numpy())
    best = _advantage(weights, person, member, score)
    lo, hi = (1.0 - level) / 2.0, 1.0 - (1.0 - level) / 2.0

    def q(v: np.ndarray, at: float) -> float:
        return float(np.nanquantile(v[1:], at)) if np.isfinite(v[1:]).any() else float("nan")

    return {"n_participants": len(people), "n_seeds": rows["seed"].n_unique(),
            "n_games": int(np.unique(game).size), "n_scores": rows.height,
            "auc": float(aucs[0]), "auc_low": q(aucs, lo), "auc_high": q(aucs, hi),
            "advantage": float(advs[0]), "advantage_low": q(advs, lo),
            "advantage_high": q(advs, hi), "advantage_best": float(best[0]),
            "advantage_best_high": q(best, hi)}


def pooled_membership(scores: pl.DataFrame, *, rng: np.random.Generator,
                      max_auc: float = 0.6, max_advantage: float = 0.1,
                      n_bootstrap: int = 2000, level: float = 0.95) -> pl.DataFrame:
    """Per release, the pooled AUC and advantage with their bootstrap intervals and the
    verdict against ``max_auc`` / ``max_advantage`` (module docstring; :data:`POOLED_COLUMNS`).
    Each release draws its resamples from its own copy of ``rng``, so its interval does not
    depend on which other releases ``scores`` holds.

    >>> rows = [{"dataset": "d", "mechanism": "copy", "parameters": "{}", "seed": s,
    ...          "fold": f, "participant": f"p{i}", "member": i % 3 != f,
    ...          "score": float(i % 3 != f) + 0.01 * i} for s in range(2) for f in range(3)
    ...         for i in range(12)]
    >>> out = pooled_membership(pl.DataFrame(rows), rng=np.random.default_rng(0),
    ...                         n_bootstrap=200)
    >>> out.select("auc", "advantage", "beats_chance", "verdict").row(0)
    (1.0, 1.0, True, 'refuted')
    """
    out = []
    for key, rows in scores.group_by(_CELL, maintain_order=True):
        # a copy of rng per release: the same resamples whatever other releases the table holds
        r = _one_release(rows, copy.deepcopy(rng), n_bootstrap, level)
        auc_v = _verdict(r["auc_low"], r["auc_high"], max_auc)
        adv_v = _verdict(r["advantage_low"], r["advantage_high"], max_advantage)
        both = {auc_v, adv_v}
        out.append({**dict(zip(_CELL, key, strict=True)), **r, "max_auc": max_auc,
                    "max_advantage": max_advantage, "level": level,
                    "beats_chance": r["auc_low"] > 0.5, "auc_verdict": auc_v,
                    "advantage_verdict": adv_v, "copy_caught": None,
                    "verdict": ("refuted" if "refuted" in both else "certified"
                                if both == {"certified"} else "not certified")})
    table = pl.DataFrame(out, schema=POOLED_COLUMNS)
    caught = (table.filter(pl.col("mechanism") == "none")  # several copy rows: caught by any
              .group_by("dataset").agg(pl.col("beats_chance").any().alias("copy_caught")))
    table = table.drop("copy_caught").join(caught, on="dataset", how="left")
    certified = pl.col("verdict") == "certified"
    table = table.with_columns(
        pl.when(certified & pl.col("copy_caught").is_null()).then(pl.lit(NO_COPY))
        .when(certified & ~pl.col("copy_caught")).then(pl.lit(UNCHECKED))
        .otherwise(pl.col("verdict")).alias("verdict"))
    return table.select(list(POOLED_COLUMNS)).sort(_CELL)


def _verdict(low: float, high: float, target: float) -> str:
    """``certified`` (upper end at most the target), ``refuted`` (lower end above it) or
    ``not certified`` (straddles it, or no interval)."""
    if high <= target:
        return "certified"
    return "refuted" if low > target else "not certified"
