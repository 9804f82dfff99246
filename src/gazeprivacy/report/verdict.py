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
* **The frontier** (:func:`frontier`, :func:`frontier_line`, :func:`frontier_record`). For a
  run of the frontier protocol (:mod:`gazeprivacy.experiments.frontier`), per dataset: the
  release, if any, that is both bounded per participant (its record's per-participant epsilon
  at most ``max_participant_epsilon``) and better than every data-free baseline on the held-out
  density error by the **paired test** (:func:`paired_differences`): each seed is its own split,
  and a release and a baseline of one seed are scored on the same held-out people, so the
  difference is taken per seed and the release beats a baseline when the mean of the
  differences is better by more than 2 standard errors *of the differences* (std / sqrt(seeds));
  the split-to-split variation that both share cancels. With fewer than 2 seeds both sides
  have there is no spread of differences and no verdict (``not enough seeds``); a difference
  identical on every seed (standard error 0) is a ``tie``, never a win; seeds that one side
  lacks are left out and named (``release_only_seeds``, ``baseline_only_seeds``,
  ``unpaired_seeds``), never dropped in silence. The runner writes :func:`frontier_record` to
  ``frontier.json`` (the verdict and, per bounded release, its paired difference to each
  baseline) and the report can lead with :func:`frontier_line`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from gazeprivacy.guarantees import VACUOUS_EPSILON, Guarantee, Kind

__all__ = ["HIGHER_IS_BETTER", "LOWER_IS_BETTER", "NOT_ENOUGH_SEEDS", "REFUSED",
           "baseline_comparison", "best_releases", "flag_results", "frontier", "frontier_line",
           "frontier_record", "is_refused", "paired_differences", "refused_releases",
           "release_verdicts", "strongest_attacks", "unpaired_seeds"]

#: utility / fidelity metrics where smaller is better
LOWER_IS_BETTER = frozenset({"rmse", "rss_distance", "density_error", "error_deg",
                             # realism (gazeprivacy.metrics.realism.METRIC_INFO)
                             "discriminator_auc", "rmse_to_raw_fit_deg_s",
                             "fixation_duration_w1_s", "saccade_amplitude_w1_deg"})
#: utility metrics where larger is better
HIGHER_IS_BETTER = frozenset({"accuracy", "balanced_accuracy", "f1_macro"})
_HEADLINE = ("identification_rate", "accuracy")
#: names of the data-free baselines start with this (the same constant as
#: ``gazeprivacy.experiments.baselines.BASELINE_PREFIX``; not imported: the runner imports
#: this module)
BASELINE_PREFIX = "baseline-"
_CELL = ["dataset", "mechanism", "parameters"]
_EVAL = ["dataset", "kind", "evaluation", "metric"]
#: (kind, evaluation, metric) of the one result row of a release its mechanism refused
#: (:class:`~gazeprivacy.exceptions.ReleaseRefusedError`; value 1): the runner writes it, the
#: reason goes to the run's ``refusals.json``
REFUSED = ("status", "release", "refused")


def is_refused() -> pl.Expr:
    """Whether a result row is the :data:`REFUSED` row of a refused release."""
    kind, evaluation, metric = REFUSED
    return ((pl.col("kind") == kind) & (pl.col("evaluation") == evaluation)
            & (pl.col("metric") == metric))


def refused_releases(results: pl.DataFrame) -> pl.DataFrame:
    """Per (dataset, mechanism, parameters) refused on at least one seed: ``seeds`` (sorted)
    and ``epsilon`` (the parameters' epsilon, null when none).

    >>> r = pl.DataFrame({"dataset": ["d"] * 2, "mechanism": ["m"] * 2, "parameters": ["{}"] * 2,
    ...                   "epsilon": [None, None], "seed": [1, 0], "kind": ["status"] * 2,
    ...                   "evaluation": ["release"] * 2, "metric": ["refused"] * 2,
    ...                   "value": [1.0, 1.0]}, schema_overrides={"epsilon": pl.Float64})
    >>> refused_releases(r).select("mechanism", "seeds").row(0)
    ('m', [0, 1])
    """
    schema = {**{k: pl.String for k in _CELL}, "epsilon": pl.Float64,
              "seeds": pl.List(pl.Int64)}
    if not {*_CELL, "kind", "evaluation", "metric", "seed"} <= set(results.columns):
        return pl.DataFrame(schema=schema)
    eps = pl.col("epsilon") if "epsilon" in results.columns else pl.lit(None)
    return (results.filter(is_refused()).group_by(*_CELL)
            .agg(eps.first().cast(pl.Float64).alias("epsilon"),
                 pl.col("seed").unique().sort().cast(pl.Int64).alias("seeds"))
            .sort(*_CELL).select(list(schema)))


def _refused_candidates(results: pl.DataFrame, cap: float) -> pl.DataFrame:
    """The :func:`refused_releases` that would be frontier candidates (:func:`frontier`'s
    ``refused``): not baselines; a per-participant bound of their released seeds at most
    ``cap``, or, refused on every seed, an epsilon parameter at most ``cap``."""
    refused = refused_releases(results).filter(
        ~pl.col("mechanism").str.starts_with(BASELINE_PREFIX))
    released = results.filter(~is_refused()).select(*_CELL).unique().with_columns(
        pl.lit(True).alias("released"))
    joined = (refused.join(_bounds(results), on=_CELL, how="left")
              .join(released, on=_CELL, how="left"))
    keep = (pl.col("participant_epsilon") <= cap) | (
        pl.col("released").is_null() & (pl.col("epsilon") <= cap))
    return joined.filter(keep.fill_null(False)).select(refused.columns)


def _refused_text(refused: pl.DataFrame) -> str:
    """The refused releases of one dataset in a phrase ("" when none)."""
    return "; ".join(f"{r['mechanism']} {r['parameters']} (seed(s) {_seeds_text(r['seeds'])})"
                     for r in refused.iter_rows(named=True))


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
    se_known, best_baseline, baseline_mean, baseline_se, beats_baselines, outcome``;
    ``outcome`` is ``better`` (``beats_baselines``), ``worse`` (worse by more than the same
    margin) or ``tie`` (within it: not a failure, not a win). Empty when the run has no
    baseline.
    """
    stats = _group_stats(results)
    is_base = pl.col("mechanism").str.starts_with(BASELINE_PREFIX)
    base = stats.filter(is_base)
    if base.height == 0:
        return stats.head(0).with_columns(
            pl.lit(None, dtype=pl.String).alias("best_baseline"),
            pl.lit(None, dtype=pl.Float64).alias("baseline_mean"),
            pl.lit(None, dtype=pl.Float64).alias("baseline_se"),
            pl.lit(None, dtype=pl.Boolean).alias("beats_baselines"),
            pl.lit(None, dtype=pl.String).alias("outcome"))
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
    out = out.with_columns((gain > margin).alias("beats_baselines"),
                           pl.when(gain > margin).then(pl.lit("better"))
                           .when(gain < -margin).then(pl.lit("worse"))
                           .otherwise(pl.lit("tie")).alias("outcome"))
    return out.select(*_CELL, "kind", "evaluation", "metric", "mean", "se", "n", "se_known",
                      "best_baseline", "baseline_mean", "baseline_se", "beats_baselines",
                      "outcome").sort(*_CELL, "kind", "evaluation", "metric")


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
    "max_participant_epsilon": pl.Float64, "test": pl.String, "n_seeds": pl.Int64,
    "paired_baseline": pl.String, "paired_baseline_density_error": pl.Float64,
    "paired_difference": pl.Float64, "paired_difference_se": pl.Float64,
    "unpaired_seeds": pl.String, "refused": pl.String,
}

_PAIRED_COLUMNS = {
    "dataset": pl.String, "mechanism": pl.String, "parameters": pl.String,
    "baseline": pl.String, "n_seeds": pl.Int64, "difference": pl.Float64,
    "difference_se": pl.Float64, "test": pl.String, "outcome": pl.String,
    "release_only_seeds": pl.List(pl.Int64), "baseline_only_seeds": pl.List(pl.Int64),
}

#: a standard error of the differences at most this (relative to 1 + |difference|) is 0: the
#: per-seed differences are equal up to rounding
_ZERO_SE = 1e-9
#: the paired test's ``test`` and ``outcome`` with fewer than 2 paired seeds: no verdict
NOT_ENOUGH_SEEDS = "not enough seeds (fewer than 2 paired)"


def _seed_values(results: pl.DataFrame, evaluation: str, metric: str) -> pl.DataFrame:
    """(dataset, mechanism, parameters, seed) -> value (a NaN value is a missing seed)."""
    rows = results.filter((pl.col("evaluation") == evaluation) & (pl.col("metric") == metric)
                          & pl.col("value").is_not_nan())
    return rows.group_by(*_CELL, "seed").agg(pl.col("value").mean())


def paired_differences(results: pl.DataFrame, *, evaluation: str = "frontier:density",
                       metric: str = "density_error") -> pl.DataFrame:
    """Every non-baseline release against every data-free baseline of its dataset on
    ``evaluation`` / ``metric``, paired on the seed (see the module docstring).

    Columns: ``dataset, mechanism, parameters, baseline, n_seeds`` (seeds both have),
    ``difference`` (mean over those seeds of release - baseline), ``difference_se`` (std /
    sqrt(n) of the per-seed differences; null with fewer than 2 paired seeds), ``test``
    (``paired``, or :data:`NOT_ENOUGH_SEEDS` with fewer than 2 paired seeds: no verdict),
    ``outcome``: ``better`` when the difference is in the metric's better direction by more
    than 2 ``difference_se``, ``worse`` when the other way, ``tie`` within it *and* whenever
    ``difference_se`` is 0 (identical differences on every seed: no spread to test against),
    :data:`NOT_ENOUGH_SEEDS` with fewer than 2 paired seeds; ``release_only_seeds`` and
    ``baseline_only_seeds``: the seeds one side has and the other lacks (left out of the test,
    named so that a missing cell is never silently dropped).

    >>> r = pl.DataFrame({"dataset": ["d"] * 6, "mechanism": ["m"] * 3 + ["baseline-u"] * 3,
    ...                   "parameters": ["{}"] * 6, "seed": [0, 1, 2] * 2,
    ...                   "evaluation": ["e"] * 6, "metric": ["density_error"] * 6,
    ...                   "value": [0.30, 0.50, 0.40, 0.32, 0.53, 0.41]})
    >>> paired_differences(r, evaluation="e").select("n_seeds", "outcome").row(0)
    (3, 'better')
    """
    vals = _seed_values(results, evaluation, metric)
    is_base = pl.col("mechanism").str.starts_with(BASELINE_PREFIX)
    base = vals.filter(is_base).select("dataset", "seed", pl.col("mechanism").alias("baseline"),
                                       pl.col("value").alias("b_value"))
    rel = vals.filter(~is_base)
    # every release against every baseline of its dataset, whatever seeds either has
    grid = (rel.group_by(*_CELL).agg(pl.col("seed").unique().alias("_r_seeds"))
            .join(base.group_by("dataset", "baseline")
                  .agg(pl.col("seed").unique().alias("_b_seeds")), on="dataset", how="inner"))
    pairs = (rel.join(base, on=["dataset", "seed"], how="inner")
             .with_columns((pl.col("value") - pl.col("b_value")).alias("d")))
    stats = pairs.group_by(*_CELL, "baseline").agg(
        pl.len().alias("n_seeds"), pl.col("d").mean().alias("difference"),
        (pl.col("d").std() / pl.len().sqrt()).alias("difference_se"))
    out = grid.join(stats, on=[*_CELL, "baseline"], how="left").with_columns(
        pl.col("n_seeds").fill_null(0),
        pl.col("_r_seeds").list.set_difference("_b_seeds").list.sort()
        .alias("release_only_seeds"),
        pl.col("_b_seeds").list.set_difference("_r_seeds").list.sort()
        .alias("baseline_only_seeds"))
    enough = pl.col("n_seeds") >= 2
    gain = (-pl.col("difference") if metric in LOWER_IS_BETTER else pl.col("difference"))
    margin = 2.0 * pl.col("difference_se")
    out = out.with_columns(
        pl.when(enough).then(pl.col("difference_se")).otherwise(None).alias("difference_se"),
        pl.when(enough).then(pl.lit("paired")).otherwise(pl.lit(NOT_ENOUGH_SEEDS)).alias("test"),
        pl.when(~enough).then(pl.lit(NOT_ENOUGH_SEEDS))
        # no spread (to rounding): nothing to test against
        .when(pl.col("difference_se") <= _ZERO_SE * (1.0 + pl.col("difference").abs()))
        .then(pl.lit("tie"))
        .when(gain > margin).then(pl.lit("better"))
        .when(gain < -margin).then(pl.lit("worse"))
        .otherwise(pl.lit("tie")).alias("outcome"))
    return out.select(list(_PAIRED_COLUMNS)).cast(_PAIRED_COLUMNS).sort(*_CELL, "baseline")


def _bounds(results: pl.DataFrame) -> pl.DataFrame:
    """Per cell group: the largest per-participant epsilon its records state (frontier runs
    write it as the privacy row ``guarantee / participant_epsilon``)."""
    return (results.filter((pl.col("kind") == "privacy") & (pl.col("evaluation") == "guarantee")
                           & (pl.col("metric") == "participant_epsilon"))
            .group_by(*_CELL).agg(pl.col("value").max().alias("participant_epsilon")))


def _seeds_text(seeds: Sequence[int] | None) -> str:
    return ", ".join(str(s) for s in seeds or [])


def unpaired_seeds(paired: pl.DataFrame) -> pl.DataFrame:
    """Per release of :func:`paired_differences`: ``unpaired_seeds``, a sentence naming every
    seed left out of a comparison because one side lacks it ("" when none)."""
    rows = []
    for r in paired.iter_rows(named=True):
        parts = []
        if r["release_only_seeds"]:
            parts.append(f"{r['baseline']} lacks seed(s) {_seeds_text(r['release_only_seeds'])}")
        if r["baseline_only_seeds"]:
            parts.append(f"the release lacks seed(s) {_seeds_text(r['baseline_only_seeds'])} "
                         f"of {r['baseline']}")
        rows.append({**{k: r[k] for k in _CELL}, "unpaired_seeds": "; ".join(parts)})
    schema = {**{k: pl.String for k in _CELL}, "unpaired_seeds": pl.String}
    return (pl.DataFrame(rows, schema=schema).group_by(*_CELL, maintain_order=True)
            .agg(pl.col("unpaired_seeds").filter(pl.col("unpaired_seeds") != "")
                 .str.join("; ")))


def _paired_wins(paired: pl.DataFrame, metric: str) -> pl.DataFrame:
    """Per release of :func:`paired_differences`: whether it is better than every baseline
    (``wins``), the fewest paired seeds and the test (``paired`` only when every comparison
    had 2 or more), the seeds left out (:func:`unpaired_seeds`) and its comparison with the
    baseline it is least ahead of (``paired_*``: the smallest gain in standard errors of the
    difference; a comparison without a standard error ranks first)."""
    wins = paired.group_by(*_CELL).agg(
        (pl.col("outcome") == "better").all().alias("wins"),
        pl.col("n_seeds").min().alias("n_seeds"),
        pl.when((pl.col("test") == "paired").all()).then(pl.lit("paired"))
        .otherwise(pl.lit(NOT_ENOUGH_SEEDS)).alias("test"))
    gain = -pl.col("difference") if metric in LOWER_IS_BETTER else pl.col("difference")
    worst = (paired.with_columns(pl.when(pl.col("difference_se") > 0)
                                 .then(gain / pl.col("difference_se"))
                                 .otherwise(float("-inf")).fill_null(float("-inf"))
                                 .alias("_z"))
             .sort("_z").unique(_CELL, keep="first")
             .select(*_CELL, pl.col("baseline").alias("paired_baseline"),
                     pl.col("difference").alias("paired_difference"),
                     pl.col("difference_se").alias("paired_difference_se")))
    return wins.join(worst, on=_CELL, how="left").join(unpaired_seeds(paired), on=_CELL,
                                                        how="left")


def frontier(results: pl.DataFrame, *, max_participant_epsilon: float = 10.0,
             evaluation: str = "frontier:density", metric: str = "density_error"
             ) -> pl.DataFrame:
    """Per dataset, the frontier verdict: the release bounded per participant (epsilon at most
    ``max_participant_epsilon``) that beats every data-free baseline on ``evaluation`` /
    ``metric`` by the paired test (:func:`paired_differences`; the smallest epsilon among them,
    then the smallest error), or ``verdict = "none"``.

    Columns: ``dataset, verdict, parameters, participant_epsilon, density_error,
    density_error_se`` (mean +- SE over seeds of the verdict's release, or of the best bounded
    candidate when none wins), ``best_baseline, baseline_density_error, baseline_se`` (the best
    baseline by mean, unpaired), ``beaten_on`` (every evaluation on which the verdict's release
    beats the baselines, unpaired rule), ``n_candidates`` (bounded releases compared),
    ``max_participant_epsilon``, ``test`` (``paired``, or :data:`NOT_ENOUGH_SEEDS` when a
    comparison had fewer than 2 paired seeds), ``n_seeds`` (the fewest paired), ``unpaired_seeds``,
    and the shown release's paired comparison with the *binding* baseline, the one it is least
    ahead of (the paired test is hardest against it; not always the best by mean):
    ``paired_baseline``, ``paired_baseline_density_error`` (its mean over its seeds),
    ``paired_difference`` (release - baseline, mean over seeds), ``paired_difference_se``;
    ``refused``: the candidates their mechanism refused on some seed (:func:`refused_releases`;
    not compared on those seeds, "" when none): a refused release whose other seeds state a
    per-participant bound within ``max_participant_epsilon``, or, refused on every seed, whose
    parameters' epsilon is within it (releases with no such bound are never candidates).
    """
    refused = _refused_candidates(results, max_participant_epsilon)
    cmp = baseline_comparison(results)
    head = cmp.filter((pl.col("evaluation") == evaluation) & (pl.col("metric") == metric))
    base_mean = {(r["dataset"], r["mechanism"]): r["mean"] for r in _group_stats(results).filter(
        (pl.col("evaluation") == evaluation) & (pl.col("metric") == metric)
        & pl.col("mechanism").str.starts_with(BASELINE_PREFIX)).iter_rows(named=True)}
    paired = _paired_wins(paired_differences(results, evaluation=evaluation,
                                              metric=metric), metric)
    cand = (head.join(_bounds(results), on=_CELL, how="inner")
            .filter(pl.col("participant_epsilon") <= max_participant_epsilon)
            .join(paired, on=_CELL, how="left")
            .with_columns(pl.col("wins").fill_null(False)))
    beaten = (cmp.filter(pl.col("beats_baselines"))
              .group_by(*_CELL).agg(pl.col("evaluation").unique().sort().str.join(", ")
                                    .alias("beaten_on")))
    rows = []
    for ds in sorted(set(results["dataset"].to_list())):
        mine = cand.filter(pl.col("dataset") == ds)
        wins = mine.filter(pl.col("wins")).sort("participant_epsilon", "mean")
        pick = wins if wins.height else mine.sort("mean")
        base = head.filter(pl.col("dataset") == ds)
        row = {k: None for k in _FRONTIER_COLUMNS}
        row.update(dataset=ds, verdict="none",
                   best_baseline=base["best_baseline"][0] if base.height else None,
                   baseline_density_error=base["baseline_mean"][0] if base.height else None,
                   baseline_se=base["baseline_se"][0] if base.height else None,
                   beaten_on="", n_candidates=mine.height,
                   max_participant_epsilon=float(max_participant_epsilon),
                   refused=_refused_text(refused.filter(pl.col("dataset") == ds)))
        if pick.height:
            top = pick.row(0, named=True)
            row.update(parameters=top["parameters"],
                       participant_epsilon=top["participant_epsilon"],
                       density_error=top["mean"], density_error_se=top["se"],
                       **{k: top[k] for k in ("test", "n_seeds", "paired_baseline",
                                              "paired_difference", "paired_difference_se",
                                              "unpaired_seeds")},
                       paired_baseline_density_error=base_mean.get((ds, top["paired_baseline"])))
            if wins.height:
                row["verdict"] = top["mechanism"]
                b = beaten.filter((pl.col("dataset") == ds)
                                  & (pl.col("mechanism") == top["mechanism"])
                                  & (pl.col("parameters") == top["parameters"]))
                row["beaten_on"] = b["beaten_on"][0] if b.height else ""
        rows.append(row)
    return pl.DataFrame(rows, schema=_FRONTIER_COLUMNS)


def frontier_record(results: pl.DataFrame, *, max_participant_epsilon: float = 10.0,
                    evaluation: str = "frontier:density", metric: str = "density_error"
                    ) -> list[dict[str, Any]]:
    """What ``frontier.json`` holds: per dataset the :func:`frontier` row, with ``releases``:
    every bounded release (``mechanism, parameters, participant_epsilon``), whether it beats
    every data-free baseline by the paired test (``beats_every_baseline``) and ``versus``:
    its :func:`paired_differences` row against each baseline (``baseline, n_seeds,
    difference, difference_se, test, outcome``); ``refused_releases``: every release its
    mechanism refused on some seed (``mechanism, parameters, epsilon, seeds``)."""
    paired = paired_differences(results, evaluation=evaluation, metric=metric)
    refused = refused_releases(results)
    bounds = _bounds(results).filter(pl.col("participant_epsilon") <= max_participant_epsilon)
    out = []
    for row in frontier(results, max_participant_epsilon=max_participant_epsilon,
                        evaluation=evaluation, metric=metric).to_dicts():
        releases = []
        for b in bounds.filter(pl.col("dataset") == row["dataset"]).sort(
                "participant_epsilon", "mechanism", "parameters").iter_rows(named=True):
            versus = (paired.filter((pl.col("dataset") == b["dataset"])
                                    & (pl.col("mechanism") == b["mechanism"])
                                    & (pl.col("parameters") == b["parameters"]))
                      .drop(_CELL).to_dicts())
            releases.append({"mechanism": b["mechanism"], "parameters": b["parameters"],
                             "participant_epsilon": b["participant_epsilon"],
                             "beats_every_baseline": bool(versus) and all(
                                 v["outcome"] == "better" for v in versus),
                             "versus": versus})
        out.append({**row, "evaluation": evaluation, "metric": metric, "releases": releases,
                    "refused_releases": refused.filter(pl.col("dataset") == row["dataset"])
                    .drop("dataset").to_dicts()})
    return out


def frontier_line(row: dict) -> str:
    """One sentence of a :func:`frontier` row, for the first line of a report.

    A winner is compared with one baseline throughout, the binding one (``paired_baseline``:
    the one it is least ahead of by the paired test), and the sentence says so; with no winner,
    the best baseline by mean is named as ``best``.

    >>> frontier_line({"dataset": "d", "verdict": "none", "max_participant_epsilon": 10.0,
    ...                "best_baseline": "baseline-centre-gaussian",
    ...                "baseline_density_error": 0.05, "density_error": 0.2,
    ...                "participant_epsilon": 3.0})  # doctest: +NORMALIZE_WHITESPACE
    'd: no release is both bounded per participant (epsilon <= 10) and better than every
    data-free baseline (best: baseline-centre-gaussian, density error 0.05; best bounded
    release 0.2 at epsilon 3)'
    """
    cap = f"epsilon <= {row['max_participant_epsilon']:g}"
    missing = (f"; seeds left out of the pairing: {row['unpaired_seeds']}"
               if row.get("unpaired_seeds") else "")
    missing += (f"; refused by their mechanism (not compared there): {row['refused']}"
                if row.get("refused") else "")
    if row["verdict"] == "none":
        best = ("" if row.get("density_error") is None else
                f"; best bounded release {row['density_error']:.3g} at epsilon "
                f"{row['participant_epsilon']:g}")
        base = ("" if row.get("best_baseline") is None else
                f" (best: {row['best_baseline']}, density error "
                f"{row['baseline_density_error']:.3g}{best})")
        few = ("; no paired verdict for it: fewer than 2 paired seeds"
               if row.get("test") == NOT_ENOUGH_SEEDS else "")
        return (f"{row['dataset']}: no release is both bounded per participant ({cap}) and "
                f"better than every data-free baseline{base}{few}{missing}")
    # one baseline named throughout: the binding one (the paired test is hardest against it)
    base_err = row.get("paired_baseline_density_error")
    against = (f"{row['density_error']:.3g} against {row['paired_baseline']}"
               + ("" if base_err is None else f" {base_err:.3g}")
               + ", the baseline it is least ahead of by the paired test")
    if row.get("paired_difference") is not None:  # a row built by hand may lack the pairing
        se = row.get("paired_difference_se")
        against += (f"; {row.get('test', 'paired')} difference {row['paired_difference']:+.3g}"
                    + ("" if se is None else f" +- {se:.2g}")
                    + f" over {row.get('n_seeds')} seed(s)")
    return (f"{row['dataset']}: {row['verdict']} at epsilon {row['participant_epsilon']:g} per "
            f"participant beats every data-free baseline on density error "
            f"({against}){missing}")


_DP_KINDS = (Kind.PURE_DP, Kind.LOCAL_DP, Kind.W_EVENT_DP, Kind.APPROX_DP)


def _bound(g: Guarantee | None) -> tuple[float | None, bool]:
    """(epsilon over all of a participant's data, whether that bound means something)."""
    if g is None or g.kind not in _DP_KINDS or not g.formally_private:
        return None, False
    eps = g.max_participant_epsilon if g.per_participant else (
        g.epsilon if g.unit.value == "participant" else None)
    return eps, eps is not None and eps <= VACUOUS_EPSILON and not g.participant_bound_vacuous


def release_verdicts(results: pl.DataFrame, guarantees: Sequence[Mapping[str, Any]]
                     ) -> pl.DataFrame:
    """One row per protected release (dataset, mechanism, parameters; canonical JSON), the data
    of the report's overall verdict: ``participant_epsilon`` (the record's bound over all of a
    participant's data, null when none), ``bounded`` (formally private differential privacy
    with that bound at most :data:`~gazeprivacy.guarantees.VACUOUS_EPSILON`), ``n_better``,
    ``n_tie``, ``n_worse`` (compared metrics against the best data-free baseline,
    :func:`baseline_comparison`) and ``beats_every_baseline`` (better on at least one, worse
    on none: better than the best baseline is better than each of them).

    >>> from gazeprivacy.guarantees import Unit
    >>> g = Guarantee(mechanism="m", kind=Kind.PURE_DP, unit=Unit.WINDOW, epsilon=1.0)
    >>> rows = [{"dataset": "d", "mechanism": m, "parameters": "{}", "kind": "fidelity",
    ...          "evaluation": "fidelity", "metric": "rmse", "value": v}
    ...         for m, v in (("m", 1.0), ("baseline-centre", 3.0))]
    >>> recs = [{"dataset": "d", "mechanism": "m", "parameters": {},
    ...          "guarantee": g.compose({"p": 3}).to_dict()}]
    >>> release_verdicts(pl.DataFrame(rows), recs).select(
    ...     "participant_epsilon", "bounded", "beats_every_baseline").row(0)
    (3.0, True, True)
    """
    import json

    def canon(p: Any) -> str:
        return json.dumps(json.loads(p) if isinstance(p, str) else dict(p), sort_keys=True)

    records = {(r["dataset"], r["mechanism"], canon(r["parameters"])):
               Guarantee.from_dict(r["guarantee"]) for r in guarantees}
    if results.height:
        results = results.with_columns(pl.col("parameters").map_elements(
            canon, return_dtype=pl.String))
    keys = [k for k in results.select(_CELL).unique(maintain_order=True).rows()
            if k[1] != "none" and not k[1].startswith(BASELINE_PREFIX)]
    keys += [k for k in records if k not in keys]
    counts: dict[tuple[str, ...], dict[str, int]] = {}
    for r in baseline_comparison(results).iter_rows(named=True):
        c = counts.setdefault((r["dataset"], r["mechanism"], r["parameters"]), {})
        c[r["outcome"]] = c.get(r["outcome"], 0) + 1
    rows = []
    for key in keys:
        eps, bounded = _bound(records.get(key))
        c = counts.get(key, {})
        rows.append({"dataset": key[0], "mechanism": key[1], "parameters": key[2],
                     "participant_epsilon": eps, "bounded": bounded,
                     "n_better": c.get("better", 0), "n_tie": c.get("tie", 0),
                     "n_worse": c.get("worse", 0),
                     "beats_every_baseline": c.get("better", 0) > 0 and not c.get("worse")})
    return pl.DataFrame(rows, schema={
        "dataset": pl.String, "mechanism": pl.String, "parameters": pl.String,
        "participant_epsilon": pl.Float64, "bounded": pl.Boolean, "n_better": pl.Int64,
        "n_tie": pl.Int64, "n_worse": pl.Int64, "beats_every_baseline": pl.Boolean})


def best_releases(verdicts: pl.DataFrame) -> dict[str, dict[str, Any] | None]:
    """Per dataset of :func:`release_verdicts`' table: the release that is both bounded per
    participant and better than every data-free baseline with the smallest per-participant
    epsilon (then the most metrics better), or None when there is none."""
    out: dict[str, dict[str, Any] | None] = {}
    for ds in verdicts["dataset"].unique(maintain_order=True).to_list():
        ok = verdicts.filter((pl.col("dataset") == ds) & pl.col("bounded")
                             & pl.col("beats_every_baseline"))
        out[ds] = (ok.sort(["participant_epsilon", "n_better"], descending=[False, True])
                   .row(0, named=True) if ok.height else None)
    return out
