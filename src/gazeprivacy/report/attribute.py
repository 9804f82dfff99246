# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The frontier's pooled attribute verdict: is the attacker detectably above chance?

Input: the candidates' answers of every fold and seed of a run
(:func:`gazeprivacy.experiments.frontier_membership.fold_attribute_guesses`; columns
``dataset, mechanism, parameters, seed, fold, attribute, participant, member, value, guess,
carried``): the attribute attack of :mod:`gazeprivacy.attacks.release_attribute` (a forest
trained on the release's labels of an attribute not declared public, applied to each target's
probes) played on the same fold releases as the pooled membership game. Per release and
attribute over all its (seed, fold) games, :func:`pooled_attribute` reports

* ``accuracy``: the share of the members' answers that are right, pooled over the games (a
  member is the fold's training participant; its probes were not in the release's input);
* ``chance``: the share each game's **majority value among its own members** would get right,
  pooled the same way (the best answer that ignores the person: the excess counts only what
  is inferred per person, not a base rate the release reveals, so the verdict leans towards
  not detected); ``excess`` = accuracy - chance, the mean over the members' answers of
  (answer right) - (the game's majority value right);
* ``independent``: the accuracy of answers drawn **independently of the person** with the
  attacker's own answer shares, each game's ``sum_c P(answer c) P(value c)`` among its
  members, pooled the same way; ``info_excess`` = accuracy - independent (with ``info_se``,
  ``info_low``, ``info_high``, ``info_z`` as below). The majority share is the most a constant
  answer gets, but an attacker that learns nothing and answers in proportion to the labels it
  was trained on (a forest on data-free gaze) scores ``sum_c p_c^2``, below it (MPIIDPEye's
  gender: 0.51 against 0.58): an attacker whose answers follow the person could then still read
  below the majority share. ``info_excess`` is 0 in expectation when the answers do not
  depend on the person (every member of a game has the same answer shares: then
  ``E[accuracy] = sum_c q_c p_c`` = the expected independent chance, whatever ``q``) and above
  0 for answers that follow the person;
* ``excess_se``: the standard error of ``excess``, the standard deviation over
  ``n_bootstrap`` resamples of **participants** (a participant is a member in K - 1 folds of
  every seed, so its answers are not independent; a resample weighs every answer of a drawn
  participant by how often it was drawn; accuracy and chance move together on the same
  resampled answers; each game's majority value is kept fixed, that of the unresampled
  members); ``excess_low`` / ``excess_high`` the ``level`` (0.95) percentile interval;
  ``excess_z`` = excess / excess_se, the excess in standard errors;
* ``verdict`` against the target "at most ``max_se`` (2) SE above chance": ``refuted`` when
  the excess over either chance (the majority share or independent answers) is more than
  ``max_se`` SE or its interval's lower end is above 0 (the attacker is measurably above
  chance), else ``not detected`` -- **not** "met": the run failed to detect a leak, which
  fewer participants make easier; ``excess_high`` and ``info_high`` bound the two excesses at
  the ``level``. ``nonmember_accuracy`` for reference (what the release says about people in
  general, not a leak about its members); ``carried``: the share of games whose release
  carried the attribute.

The raw copy of the input (mechanism ``none``), scored on the same games, must be refuted: an
attacker that does not catch a copy proves nothing about a private release. ``copy_caught`` is
whether a copy's row of the release's dataset and attribute is refuted (null when the run has
no raw row), and a release not detected where the copy is *not* caught gets the verdict
:data:`UNCHECKED`, where the run has no raw copy :data:`NO_COPY`
(``scripts/frontier_table.py`` shows the copy's row first).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

__all__ = ["NOT_DETECTED", "NO_COPY", "POOLED_ATTRIBUTE_COLUMNS", "UNCHECKED",
           "attribute_verdict", "pooled_attribute", "read_attribute_guesses"]

_CELL = ["dataset", "mechanism", "parameters", "attribute"]

#: the verdict of a release whose excess the run does not detect: a failure to refute, not a
#: proof of absence (``excess_high`` bounds the excess)
NOT_DETECTED = "not detected"

#: the verdict of a release not detected on a dataset where the same attacker is not refuted
#: on the raw copy: not detecting would mean nothing
UNCHECKED = "unchecked (the attacker does not catch the raw copy here)"

#: the verdict of a release not detected in a run with no raw copy to check the attacker
NO_COPY = "unchecked (no raw copy to check the attacker)"

POOLED_ATTRIBUTE_COLUMNS = {
    "dataset": pl.String, "mechanism": pl.String, "parameters": pl.String,
    "attribute": pl.String, "n_participants": pl.Int64, "n_seeds": pl.Int64,
    "n_games": pl.Int64, "n_scores": pl.Int64, "accuracy": pl.Float64, "chance": pl.Float64,
    "excess": pl.Float64, "excess_se": pl.Float64, "excess_low": pl.Float64,
    "excess_high": pl.Float64, "excess_z": pl.Float64, "independent": pl.Float64,
    "info_excess": pl.Float64, "info_se": pl.Float64, "info_low": pl.Float64,
    "info_high": pl.Float64, "info_z": pl.Float64, "nonmember_accuracy": pl.Float64,
    "carried": pl.Float64, "max_se": pl.Float64, "level": pl.Float64,
    "copy_caught": pl.Boolean, "verdict": pl.String,
}

_GUESS_SCHEMA = {"dataset": pl.String, "mechanism": pl.String, "parameters": pl.String,
                 "seed": pl.Int64, "fold": pl.Int64, "attribute": pl.String,
                 "participant": pl.String, "member": pl.Boolean, "value": pl.String,
                 "guess": pl.String, "carried": pl.Boolean}


def read_attribute_guesses(run: str | Path, keys: Sequence[str] | None = None) -> pl.DataFrame:
    """The fold answers of a run folder's cells (``keys``: of those cells only; None: every
    cell's), empty when the run measured no attribute folds."""
    folder = Path(run) / "attribute"
    files = (sorted(folder.glob("*.parquet")) if keys is None else
             [f for k in keys if (f := folder / f"{k}.parquet").is_file()])
    if not files:
        return pl.DataFrame(schema=_GUESS_SCHEMA)
    return pl.concat([pl.read_parquet(f) for f in files], how="diagonal_relaxed")


def _one_hot(index: np.ndarray, size: int) -> np.ndarray:
    out = np.zeros((index.size, size))
    out[np.arange(index.size), index] = 1.0
    return out


def _excess(rows: pl.DataFrame, weights: np.ndarray, person: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray]:
    """``(accuracy - majority chance, accuracy - independent chance)`` over the members'
    answers, per row of ``weights`` (one weight per person). The majority chance: the share of
    answers the game's majority value (among all its members, ties to the first value in
    order) would get right, on the same weighted answers. The independent chance: per game,
    ``sum_c P(answer c) P(value c)`` with both shares weighted, i.e. the weighted mean over the
    answers of the game's share of answers equal to the answer's own value."""
    counts = rows.group_by("seed", "fold", "value").len().sort(
        "seed", "fold", pl.col("len"), "value", descending=[False, False, True, False])
    majority = counts.group_by("seed", "fold", maintain_order=True).first()
    major = rows.join(majority.select("seed", "fold", pl.col("value").alias("_major")),
                      on=["seed", "fold"], how="left", maintain_order="left")
    right = (rows["value"] == rows["guess"]).cast(pl.Float64).to_numpy()
    gain = right - (major["value"] == major["_major"]).cast(pl.Float64).to_numpy()
    w = weights[:, person]  # (rows of weights, answers)
    total = w.sum(axis=1)
    game = rows.select(pl.struct("seed", "fold").rank("dense") - 1).to_series().to_numpy()
    classes = {c: i for i, c in enumerate(sorted(set(rows["value"]) | set(rows["guess"])))}
    n_c, n_g = len(classes), int(game.max()) + 1 if game.size else 0

    def cell_of(col: str) -> np.ndarray:  # (game, class) of each answer's ``col``
        return game * n_c + np.array([classes[c] for c in rows[col]], dtype=np.int64)

    # per resample: the weighted share of each game's answers equal to each class
    answers = (w @ _one_hot(cell_of("guess"), n_g * n_c)).reshape(-1, n_g, n_c)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = (answers / answers.sum(axis=2, keepdims=True)).reshape(-1, n_g * n_c)
        independent = (w * np.nan_to_num(share[:, cell_of("value")])).sum(axis=1) / total
        return (w @ gain) / total, (w @ right) / total - independent


def _interval(ex: np.ndarray, level: float) -> dict[str, float]:
    """The unresampled value ``ex[0]``, the SE (sd of the resamples ``ex[1:]``), the
    percentile interval and the value in SE (no spread: 0, or +-inf)."""
    boot = ex[1:][np.isfinite(ex[1:])]
    sd = float(boot.std(ddof=1)) if boot.size > 1 else float("nan")
    lo, hi = (1.0 - level) / 2.0, 1.0 - (1.0 - level) / 2.0
    return {"value": float(ex[0]), "se": sd,
            "low": float(np.quantile(boot, lo)) if boot.size else float("nan"),
            "high": float(np.quantile(boot, hi)) if boot.size else float("nan"),
            "z": (float(ex[0]) / sd if sd > 0 else
                  float(np.sign(ex[0]) * np.inf) if ex[0] else 0.0)}


def _one_release(rows: pl.DataFrame, rng: np.random.Generator, n_bootstrap: int,
                 level: float) -> dict[str, float]:
    members = rows.filter(pl.col("member"))
    others = rows.filter(~pl.col("member"))
    people = sorted(set(members["participant"].to_list()))
    index = {p: i for i, p in enumerate(people)}
    person = np.array([index[p] for p in members["participant"].to_list()], dtype=np.int64)
    draws = rng.multinomial(len(people), np.full(len(people), 1.0 / len(people)),
                            size=n_bootstrap).astype(float)
    major, info = _excess(members, np.vstack([np.ones((1, len(people))), draws]), person)
    m, i = _interval(major, level), _interval(info, level)
    acc = float((members["value"] == members["guess"]).mean())
    return {"n_participants": len(people), "n_seeds": rows["seed"].n_unique(),
            "n_games": members.select("seed", "fold").n_unique(), "n_scores": members.height,
            "accuracy": acc, "chance": acc - m["value"], "excess": m["value"],
            "excess_se": m["se"], "excess_low": m["low"], "excess_high": m["high"],
            "excess_z": m["z"], "independent": acc - i["value"], "info_excess": i["value"],
            "info_se": i["se"], "info_low": i["low"], "info_high": i["high"],
            "info_z": i["z"],
            "nonmember_accuracy": (float((others["value"] == others["guess"]).mean())
                                   if others.height else float("nan")),
            "carried": float(rows.group_by("seed", "fold").agg(pl.col("carried").all())
                             ["carried"].mean())}


def pooled_attribute(guesses: pl.DataFrame, *, rng: np.random.Generator, max_se: float = 2.0,
                     n_bootstrap: int = 2000, level: float = 0.95) -> pl.DataFrame:
    """Per release and attribute, the pooled accuracy over members against chance, its
    bootstrap interval over participants and the verdict against "at most ``max_se`` SE above
    chance" (module docstring; :data:`POOLED_ATTRIBUTE_COLUMNS`). Each release draws its
    resamples from its own copy of ``rng``, so its interval does not depend on which other
    releases ``guesses`` holds.

    >>> rows = [{"dataset": "d", "mechanism": "copy", "parameters": "{}", "seed": s,
    ...          "fold": f, "attribute": "g", "participant": f"p{i}", "member": i % 3 != f,
    ...          "value": "ab"[i % 2], "guess": "ab"[i % 2], "carried": True}
    ...         for s in range(2) for f in range(3) for i in range(12)]
    >>> out = pooled_attribute(pl.DataFrame(rows), rng=np.random.default_rng(0),
    ...                        n_bootstrap=200)
    >>> out.select("accuracy", "chance", "independent", "n_games", "verdict").row(0)
    (1.0, 0.5, 0.5, 6, 'refuted')
    >>> pooled_attribute(pl.DataFrame(rows).with_columns(pl.lit("b").alias("guess")),
    ...                  rng=np.random.default_rng(0), n_bootstrap=200)["verdict"].item()
    'unchecked (no raw copy to check the attacker)'
    """
    out = []
    for key, rows in guesses.group_by(_CELL, maintain_order=True):
        # a copy of rng per release: the same resamples whatever other releases the table holds
        r = _one_release(rows, copy.deepcopy(rng), n_bootstrap, level)
        out.append({**dict(zip(_CELL, key, strict=True)), **r, "max_se": max_se,
                    "level": level, "copy_caught": None,
                    "verdict": _either(r, max_se)})
    table = pl.DataFrame(out, schema=POOLED_ATTRIBUTE_COLUMNS)
    caught = (table.filter(pl.col("mechanism") == "none")  # several copy rows: caught by any
              .group_by("dataset", "attribute")
              .agg((pl.col("verdict") == "refuted").any().alias("copy_caught")))
    table = table.drop("copy_caught").join(caught, on=["dataset", "attribute"], how="left")
    table = table.with_columns(
        pl.when(pl.col("verdict") != NOT_DETECTED).then(pl.col("verdict"))
        .when(pl.col("copy_caught").is_null()).then(pl.lit(NO_COPY))
        .when(~pl.col("copy_caught")).then(pl.lit(UNCHECKED))
        .otherwise(pl.col("verdict")).alias("verdict"))
    return table.select(list(POOLED_ATTRIBUTE_COLUMNS)).sort(_CELL)


def _either(r: dict[str, float], max_se: float) -> str:
    """``refuted`` when the excess over either chance (majority share, independent answers)
    is refuted by :func:`attribute_verdict`, else :data:`NOT_DETECTED`."""
    over_majority = attribute_verdict(r["excess"], r["excess_se"], r["excess_low"], max_se)
    over_independent = attribute_verdict(r["info_excess"], r["info_se"], r["info_low"], max_se)
    return "refuted" if "refuted" in (over_majority, over_independent) else NOT_DETECTED


def attribute_verdict(excess: float, se: float, low: float, max_se: float = 2.0) -> str:
    """``refuted`` when the excess over chance is more than ``max_se`` standard errors (the
    target) or its interval's lower end ``low`` is above 0, else :data:`NOT_DETECTED`; without
    a standard error (NaN: one participant), refuted when the excess is above 0.

    >>> attribute_verdict(0.3, 0.1, 0.05), attribute_verdict(0.1, 0.1, -0.1)
    ('refuted', 'not detected')
    """
    above = excess > max_se * se if se == se else excess > 0
    return "refuted" if above or low > 0 else NOT_DETECTED
