# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The verdicts the report leads with, computed from a run's tidy results table.

* **Privacy: the strongest attack** (:func:`strongest_attacks`). Per (dataset, mechanism,
  parameters), every privacy evaluation that reports a ``chance`` level is scored by its
  headline rate (``identification_rate``, else ``accuracy``) divided by chance; the verdict is
  the evaluation with the largest ratio. An attack that fails proves little when another,
  equally available one succeeds, so the report never averages attacks or picks the papers'.
* **Utility: the data-free baselines** (:func:`baseline_comparison`, :func:`flag_results`).
  Per utility / fidelity metric with a known direction (:data:`LOWER_IS_BETTER`,
  :data:`HIGHER_IS_BETTER`), a cell group (dataset, mechanism, parameters) *beats the
  baselines* when its mean is better than the best data-free baseline's mean
  (:mod:`gazeprivacy.experiments.baselines`) by more than twice the standard error of the
  difference. The standard error of a mean is over seeds (std / sqrt(n)) when there are two or
  more; with one seed it is the split-level standard error the evaluation reports as
  ``<metric>_se`` (e.g. ``accuracy_se`` of the task classifier) when there is one, and 0
  otherwise (``se_known`` is then false: with one seed and no splits the comparison is of
  means only, and the report says so). ``suppressed_fraction`` is bookkeeping (baselines
  suppress nothing by construction) and is not compared.
* **The frontier** (:func:`frontier`, :func:`frontier_line`). For a run of the frontier
  protocol (:mod:`gazeprivacy.experiments.frontier`), per dataset: the release, if any, that is
  both bounded per participant (its record's per-participant epsilon at most
  ``max_participant_epsilon``) and better than every data-free baseline on the held-out density
  error (by more than 2 standard errors, as above); the runner writes it to ``frontier.json``
  and the report can lead with :func:`frontier_line`.
"""

from __future__ import annotations

import polars as pl

__all__ = ["HIGHER_IS_BETTER", "LOWER_IS_BETTER", "baseline_comparison", "flag_results",
           "frontier", "frontier_line", "strongest_attacks"]

#: utility / fidelity metrics where smaller is better
LOWER_IS_BETTER = frozenset({"rmse", "rss_distance", "density_error", "error_deg",
                             # realism (gazeprivacy.metrics.realism.METRIC_INFO)
                             "discriminator_auc", "rmse_to_raw_fit_deg_s",
                             "fixation_duration_w1_s", "saccade_amplitude_w1_deg"})
#: utility metrics where larger is better
HIGHER_IS_BETTER = frozenset({"accuracy", "f1_macro"})
_HEADLINE = ("identification_rate", "accuracy")
#: names of the data-free baselines start with this (the same constant as
#: ``gazeprivacy.experiments.baselines.BASELINE_PREFIX``; not imported: the runner imports
#: this module)
BASELINE_PREFIX = "baseline-"
_CELL = ["dataset", "mechanism", "parameters"]
_EVAL = ["dataset", "kind", "evaluation", "metric"]


def strongest_attacks(results: pl.DataFrame) -> pl.DataFrame:
    """Per (dataset, mechanism, parameters): the privacy evaluation with the largest
    headline rate / chance, with ``value`` and ``chance`` (means over seeds) and ``ratio``.

    >>> r = pl.DataFrame({"dataset": ["d"] * 4, "mechanism": ["m"] * 4, "parameters": ["{}"] * 4,
    ...                   "kind": ["privacy"] * 4, "evaluation": ["a", "a", "b", "b"],
    ...                   "metric": ["identification_rate", "chance"] * 2,
    ...                   "value": [0.1, 0.1, 0.4, 0.1]})
    >>> strongest_attacks(r).select("evaluation", "ratio").row(0)
    ('b', 4.0)
    """
    priv = results.filter(pl.col("kind") == "privacy")
    means = priv.group_by(*_CELL, "evaluation", "metric").agg(pl.col("value").mean())
    chance = (means.filter(pl.col("metric") == "chance")
              .select(*_CELL, "evaluation", pl.col("value").alias("chance")))
    head = (means.filter(pl.col("metric").is_in(list(_HEADLINE)))
            .join(chance, on=[*_CELL, "evaluation"])
            .with_columns(pl.col("metric").replace_strict(
                {m: i for i, m in enumerate(_HEADLINE)}).alias("_rank"))
            .sort("_rank").unique([*_CELL, "evaluation"], keep="first"))
    head = head.filter(pl.col("chance") > 0).with_columns(
        (pl.col("value") / pl.col("chance")).alias("ratio"))
    return (head.sort("ratio", descending=True).unique(_CELL, keep="first")
            .select(*_CELL, "evaluation", "metric", "value", "chance", "ratio")
            .sort(_CELL))


def _group_stats(results: pl.DataFrame) -> pl.DataFrame:
    """Mean, n and standard error per (cell group, evaluation, metric) of the compared
    metrics (see the module docstring for the standard error)."""
    keys = [*_CELL, "kind", "evaluation"]
    rows = results.filter(pl.col("kind").is_in(["utility", "fidelity", "realism"]))
    split_se = (rows.filter(pl.col("metric").str.ends_with("_se"))
                .with_columns(pl.col("metric").str.strip_suffix("_se"))
                .group_by(*keys, "metric")
                .agg(((pl.col("value") ** 2).mean() / pl.len()).sqrt().alias("split_se")))
    compared = rows.filter(pl.col("metric").is_in(list(LOWER_IS_BETTER | HIGHER_IS_BETTER)))
    stats = compared.group_by(*keys, "metric").agg(
        pl.col("value").mean().alias("mean"), pl.len().alias("n"),
        (pl.col("value").std() / pl.len().sqrt()).alias("seed_se"))
    stats = stats.join(split_se, on=[*keys, "metric"], how="left")
    return stats.with_columns(
        pl.when(pl.col("n") >= 2).then(pl.col("seed_se"))
        .otherwise(pl.col("split_se").fill_null(0.0)).fill_null(0.0).alias("se"),
        ((pl.col("n") >= 2) | pl.col("split_se").is_not_null()).alias("se_known"))


def baseline_comparison(results: pl.DataFrame) -> pl.DataFrame:
    """Every non-baseline cell group's compared metrics beside the best data-free baseline.

    Columns: ``dataset, mechanism, parameters, kind, evaluation, metric, mean, se, n,
    se_known, best_baseline, baseline_mean, baseline_se, beats_baselines``. Empty when the run
    has no baseline.
    """
    stats = _group_stats(results)
    is_base = pl.col("mechanism").str.starts_with(BASELINE_PREFIX)
    base = stats.filter(is_base)
    if base.height == 0:
        return stats.head(0).with_columns(
            pl.lit(None, dtype=pl.String).alias("best_baseline"),
            pl.lit(None, dtype=pl.Float64).alias("baseline_mean"),
            pl.lit(None, dtype=pl.Float64).alias("baseline_se"),
            pl.lit(None, dtype=pl.Boolean).alias("beats_baselines"))
    lower = pl.col("metric").is_in(list(LOWER_IS_BETTER))
    best = (base.with_columns(pl.when(lower).then(pl.col("mean")).otherwise(-pl.col("mean"))
                              .alias("_score"))
            .sort("_score").unique(_EVAL, keep="first")
            .select(*_EVAL, pl.col("mechanism").alias("best_baseline"),
                    pl.col("mean").alias("baseline_mean"), pl.col("se").alias("baseline_se")))
    out = stats.filter(~is_base).join(best, on=_EVAL, how="inner")
    margin = 2.0 * (pl.col("se") ** 2 + pl.col("baseline_se") ** 2).sqrt()
    gain = pl.when(lower).then(pl.col("baseline_mean") - pl.col("mean")).otherwise(
        pl.col("mean") - pl.col("baseline_mean"))
    out = out.with_columns((gain > margin).alias("beats_baselines"))
    return out.select(*_CELL, "kind", "evaluation", "metric", "mean", "se", "n", "se_known",
                      "best_baseline", "baseline_mean", "baseline_se", "beats_baselines"
                      ).sort(*_CELL, "kind", "evaluation", "metric")


def flag_results(results: pl.DataFrame) -> pl.DataFrame:
    """``results`` with the ``beats_baselines`` column set (see :func:`baseline_comparison`;
    null for rows that are not compared: privacy, baselines, raw-only runs, reference metrics).
    """
    flags = baseline_comparison(results).select(*_CELL, "kind", "evaluation", "metric",
                                                "beats_baselines")
    cols = [c for c in results.columns if c != "beats_baselines"]
    out = results.drop("beats_baselines", strict=False).with_row_index("_row")
    out = out.join(flags, on=[*_CELL, "kind", "evaluation", "metric"], how="left").sort("_row")
    return out.select(*cols, "beats_baselines")


_FRONTIER_COLUMNS = {
    "dataset": pl.String, "verdict": pl.String, "parameters": pl.String,
    "participant_epsilon": pl.Float64, "density_error": pl.Float64,
    "density_error_se": pl.Float64, "best_baseline": pl.String,
    "baseline_density_error": pl.Float64,
    "baseline_se": pl.Float64, "beaten_on": pl.String, "n_candidates": pl.Int64,
    "max_participant_epsilon": pl.Float64,
}


def _bounds(results: pl.DataFrame) -> pl.DataFrame:
    """Per cell group: the largest per-participant epsilon its records state (frontier runs
    write it as the privacy row ``guarantee / participant_epsilon``)."""
    return (results.filter((pl.col("kind") == "privacy") & (pl.col("evaluation") == "guarantee")
                           & (pl.col("metric") == "participant_epsilon"))
            .group_by(*_CELL).agg(pl.col("value").max().alias("participant_epsilon")))


def frontier(results: pl.DataFrame, *, max_participant_epsilon: float = 10.0,
             evaluation: str = "frontier:density", metric: str = "density_error"
             ) -> pl.DataFrame:
    """Per dataset, the frontier verdict: the release bounded per participant (epsilon at most
    ``max_participant_epsilon``) that beats every data-free baseline on ``evaluation`` /
    ``metric`` by more than 2 standard errors (the smallest epsilon among them, then the
    smallest error), or ``verdict = "none"``.

    Columns: ``dataset, verdict, parameters, participant_epsilon, density_error,
    density_error_se`` (of the verdict's release, or of the best bounded candidate when none
    wins), ``best_baseline, baseline_density_error, baseline_se, beaten_on`` (every evaluation
    on which the verdict's release beats the baselines), ``n_candidates`` (bounded releases
    compared) and ``max_participant_epsilon``.
    """
    cmp = baseline_comparison(results)
    head = cmp.filter((pl.col("evaluation") == evaluation) & (pl.col("metric") == metric))
    cand = head.join(_bounds(results), on=_CELL, how="inner").filter(
        pl.col("participant_epsilon") <= max_participant_epsilon)
    beaten = (cmp.filter(pl.col("beats_baselines"))
              .group_by(*_CELL).agg(pl.col("evaluation").unique().sort().str.join(", ")
                                    .alias("beaten_on")))
    rows = []
    for ds in sorted(set(results["dataset"].to_list())):
        mine = cand.filter(pl.col("dataset") == ds)
        wins = mine.filter(pl.col("beats_baselines")).sort("participant_epsilon", "mean")
        pick = wins if wins.height else mine.sort("mean")
        base = head.filter(pl.col("dataset") == ds)
        row = {"dataset": ds, "verdict": "none", "parameters": None,
               "participant_epsilon": None, "density_error": None, "density_error_se": None,
               "best_baseline": base["best_baseline"][0] if base.height else None,
               "baseline_density_error": base["baseline_mean"][0] if base.height else None,
               "baseline_se": base["baseline_se"][0] if base.height else None,
               "beaten_on": "", "n_candidates": mine.height,
               "max_participant_epsilon": float(max_participant_epsilon)}
        if pick.height:
            top = pick.row(0, named=True)
            row.update(parameters=top["parameters"],
                       participant_epsilon=top["participant_epsilon"],
                       density_error=top["mean"], density_error_se=top["se"])
            if wins.height:
                row["verdict"] = top["mechanism"]
                b = beaten.filter((pl.col("dataset") == ds)
                                  & (pl.col("mechanism") == top["mechanism"])
                                  & (pl.col("parameters") == top["parameters"]))
                row["beaten_on"] = b["beaten_on"][0] if b.height else ""
        rows.append(row)
    return pl.DataFrame(rows, schema=_FRONTIER_COLUMNS)


def frontier_line(row: dict) -> str:
    """One sentence of a :func:`frontier` row, for the first line of a report.

    >>> frontier_line({"dataset": "d", "verdict": "none", "max_participant_epsilon": 10.0,
    ...                "best_baseline": "baseline-centre-gaussian",
    ...                "baseline_density_error": 0.05, "density_error": 0.2,
    ...                "participant_epsilon": 3.0})  # doctest: +NORMALIZE_WHITESPACE
    'd: no release is both bounded per participant (epsilon <= 10) and better than every
    data-free baseline (best: baseline-centre-gaussian, density error 0.05; best bounded
    release 0.2 at epsilon 3)'
    """
    cap = f"epsilon <= {row['max_participant_epsilon']:g}"
    if row["verdict"] == "none":
        best = ("" if row.get("density_error") is None else
                f"; best bounded release {row['density_error']:.3g} at epsilon "
                f"{row['participant_epsilon']:g}")
        base = ("" if row.get("best_baseline") is None else
                f" (best: {row['best_baseline']}, density error "
                f"{row['baseline_density_error']:.3g}{best})")
        return (f"{row['dataset']}: no release is both bounded per participant ({cap}) and "
                f"better than every data-free baseline{base}")
    return (f"{row['dataset']}: {row['verdict']} at epsilon {row['participant_epsilon']:g} per "
            f"participant beats every data-free baseline on density error "
            f"({row['density_error']:.3g} against {row['best_baseline']} "
            f"{row['baseline_density_error']:.3g})")
