# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The frontier table of one or more runs of the frontier protocol (docs/results/frontier.md).

Per dataset, one row per release (mechanism and parameters) with the means over seeds and their
standard errors (std / sqrt(seeds)): the per-participant epsilon its record states, density
error on 60 x 60 and 16 x 16 (held-out participants), train-on-release / test-on-raw task
accuracy (and its balanced accuracy, when the run's rows carry ``balanced_accuracy``), W1 of
fixation durations and saccade amplitudes, discriminator AUC, membership AUC and advantage,
attribute inference on the main split against the majority share among its members and
against answers independent of the person (runs from 2026-11-30 on; earlier runs show the
majority share only; the pooled attribute table below reads the verdict).
``*`` marks a utility value better than the best data-free baseline by more than 2 SE
(``beats_baselines``, unpaired). A release its mechanism refused
(:data:`gazeprivacy.report.verdict.REFUSED`) keeps its row: "refused" where it has no value, and
the seeds it was refused on beside its name. Then, per bounded release, its
paired difference in density error to each data-free baseline (mean +- SE over seeds of the
per-seed differences, :func:`gazeprivacy.report.verdict.paired_differences`), the same for
task balanced accuracy (:func:`paired_task_table`: release and baseline scored on the same
held-out people each seed), and the verdict line
(:func:`gazeprivacy.report.verdict.frontier_line`, by the paired test). When the run measured
membership folds (``[frontier] membership_folds``), the pooled membership table
(:func:`gazeprivacy.report.membership.pooled_membership`: AUC and TPR - FPR pooled over folds
and seeds, 95 % bootstrap intervals over participants, the verdict against AUC <= 0.6 and
TPR - FPR <= 0.1), the raw copy's row first: the check that the attacker catches a copy. When
the run also played an attribute attack on those folds, the pooled attribute table
(:func:`gazeprivacy.report.attribute.pooled_attribute`: the members' accuracy against the
majority share and against independent answers, pooled over folds and seeds, the excesses in
bootstrap SE over participants and their 95 % intervals, the verdict against "at most 2 SE
above chance": refuted or not detected),
the raw copy's row first. Both pooled tables are recomputed from the run's
``membership/*.parquet`` and ``attribute/*.parquet`` (not read from its ``membership.json`` /
``attribute.json``), so a run made before a change of the verdicts renders with the new ones.

``--seeds A-B`` keeps seeds A to B only (every table, the pooled ones included): one run's halves
side by side say whether a verdict holds over new splits and draws.

Run:  PYTHONPATH=src python scripts/frontier_table.py runs/frontier-doves [runs/frontier-vr ...]
      PYTHONPATH=src python scripts/frontier_table.py --seeds 5-9 runs/frontier-doves
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import polars as pl

from gazeprivacy.report.attribute import NOT_DETECTED, pooled_attribute, read_attribute_guesses
from gazeprivacy.report.membership import pooled_membership, read_membership_scores
from gazeprivacy.report.verdict import (
    flag_results,
    frontier,
    frontier_line,
    frontier_record,
    is_refused,
    paired_differences,
    refused_releases,
)

__all__ = ["attribute_table", "main", "membership_table", "paired_table", "paired_task_table",
           "read_run", "table"]

_COLS = [  # (header, evaluation suffix or name, metric)
    ("density 60", "frontier:density", "density_error"),
    ("density 16", "frontier:density-coarse", "density_error"),
    ("task acc", ":tstr-frontier", "accuracy"),
    ("task bal acc", ":tstr-frontier", "balanced_accuracy"),  # shown when the rows carry it
    ("W1 fix (s)", "realism:events", "fixation_duration_w1_s"),
    ("W1 sacc (deg)", "realism:events", "saccade_amplitude_w1_deg"),
    ("disc AUC", "realism:discriminator", "discriminator_auc"),
    ("MIA AUC", "membership:relative-distance", "auc"),
    ("MIA adv", "membership:relative-distance", "advantage"),
    ("attr acc / majority share / independent", ":release-attribute", "accuracy"),
]


def _match(ev: str, key: str) -> bool:
    return ev.endswith(key) if key.startswith(":") else ev == key


def _cell(sub: pl.DataFrame, key: str, metric: str) -> str:
    rows = sub.filter(pl.col("evaluation").map_elements(lambda e: _match(e, key),
                                                          return_dtype=pl.Boolean)
                      & (pl.col("metric") == metric))
    # "refused" only for a release refused on every seed (else the metric is n/a for another reason)
    missing = ("refused" if sub.filter(is_refused()).height and not sub.filter(~is_refused()).height
               else "n/a")
    if rows.height == 0:
        return missing
    v = rows["value"].drop_nans().drop_nulls()
    if v.len() == 0:
        return missing
    mean = float(v.mean())
    se = float(v.std() / v.len() ** 0.5) if v.len() > 1 else float("nan")
    star = "*" if rows["beats_baselines"].fill_null(False).any() and bool(
        rows["beats_baselines"].fill_null(False).all()) else ""
    text = f"{mean:.3f}" + (f" +- {se:.3f}" if se == se else "") + star
    if metric == "accuracy" and key == ":release-attribute":
        for chance in ("chance", "independent"):
            ch = sub.filter(pl.col("evaluation").str.ends_with(key)
                            & (pl.col("metric") == chance))
            text += f" / {float(ch['value'].mean()):.2f}" if ch.height else " / -"
    return text


def table(results: pl.DataFrame, dataset: str) -> list[str]:
    """Markdown lines of one dataset's frontier table."""
    r = results.filter(pl.col("dataset") == dataset)
    eps = (r.filter(pl.col("metric") == "participant_epsilon")
           .group_by("mechanism", "parameters").agg(pl.col("value").max().alias("eps")))
    groups = r.select("mechanism", "parameters").unique().join(eps, on=["mechanism", "parameters"],
                                                               how="left")
    refused = {(g["mechanism"], g["parameters"]): g["seeds"]
               for g in refused_releases(r).iter_rows(named=True)}
    groups = groups.with_columns(
        pl.when(pl.col("mechanism") == "none").then(0)
        .when(pl.col("mechanism").str.starts_with("baseline-")).then(2).otherwise(1)
        .alias("_o")).sort("_o", "mechanism", "eps", "parameters")
    seeds = r["seed"].n_unique()
    has = set(r["metric"].unique().to_list())
    cols = [c for c in _COLS if c[2] != "balanced_accuracy" or "balanced_accuracy" in has]
    head = ["release", "parameters", "epsilon / participant"] + [c[0] for c in cols]
    lines = [f"**{dataset}** ({seeds} seeds; mean +- SE over seeds)", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for g in groups.iter_rows(named=True):
        sub = r.filter((pl.col("mechanism") == g["mechanism"])
                       & (pl.col("parameters") == g["parameters"]))
        name = "raw (copy of the input)" if g["mechanism"] == "none" else g["mechanism"]
        if (g["mechanism"], g["parameters"]) in refused:
            name += (" (refused on seed(s) "
                     + ", ".join(map(str, refused[(g["mechanism"], g["parameters"])])) + ")")
        e = "n/a" if g["eps"] is None else f"{g['eps']:.3g}"
        params = json.loads(g["parameters"])
        shown = {k: v for k, v in params.items()
                 if k in ("epsilon", "k", "epsilon_per_participant")}
        lines.append("| " + " | ".join([name, f"`{json.dumps(shown)}`", e] + [
            _cell(sub, key, m) for _, key, m in cols]) + " |")
    return lines


def paired_table(results: pl.DataFrame, dataset: str) -> list[str]:
    """Markdown lines: per bounded release, its paired difference in density error (release -
    baseline, mean +- SE over seeds of the per-seed differences) to each data-free baseline,
    and the paired test's outcome."""
    rows = []
    for rec in frontier_record(results.filter(pl.col("dataset") == dataset)):
        for rel in rec["releases"]:
            shown = {k: v for k, v in json.loads(rel["parameters"]).items()
                     if k in ("epsilon", "k", "epsilon_per_participant")}
            for v in rel["versus"]:
                diff = ("n/a" if v["difference"] is None else
                        f"{v['difference']:+.3f}" + ("" if v["difference_se"] is None else
                                                     f" +- {v['difference_se']:.3f}"))
                left = "; ".join(
                    f"{who} only: {', '.join(map(str, seeds))}" for who, seeds in
                    (("release", v["release_only_seeds"]), ("baseline", v["baseline_only_seeds"]))
                    if seeds) or "none"
                rows.append(f"| {rel['mechanism']} | `{json.dumps(shown)}` | "
                            f"{rel['participant_epsilon']:.3g} | {v['baseline']} | "
                            f"{diff} | {v['n_seeds']} | {left} | {v['outcome']} |")
    if not rows:
        return []
    return ["Paired density-error difference to each data-free baseline (negative: the release "
            "is closer to the held-out people; better / worse by more than 2 SE of the "
            "per-seed differences; a difference equal on every seed is a tie; no verdict with "
            "fewer than 2 paired seeds; seeds one side lacks are named):", "",
            "| release | parameters | epsilon / participant | baseline | difference | seeds | "
            "unpaired seeds | paired test |", "|---|---|---|---|---|---|---|---|", *rows]


def paired_task_table(results: pl.DataFrame, dataset: str) -> list[str]:
    """Markdown lines: per release (the raw copy included: the gap to recover), its paired
    difference in task balanced accuracy (accuracy when the rows lack it) to each data-free
    baseline, per public label's ``<label>:tstr-frontier`` evaluation: each seed's release and
    baseline are scored on the same held-out people, so the per-seed differences drop the
    split's spread that the unpaired ``*`` of :func:`table` carries
    (:func:`gazeprivacy.report.verdict.paired_differences`: better / worse by more than 2 SE
    of the per-seed differences, positive = the release is more accurate), and the share of
    the raw copy's gap to that baseline the release recovers (its mean difference over the raw
    copy's; "n/a" where the raw copy does not beat the baseline itself: no gap to recover)."""
    sub = results.filter(pl.col("dataset") == dataset)
    rows = []
    for ev in sorted(e for e in sub["evaluation"].unique().to_list()
                     if e.endswith(":tstr-frontier")):
        has = sub.filter((pl.col("evaluation") == ev) & (pl.col("metric") == "balanced_accuracy"))
        metric = "balanced_accuracy" if has.height else "accuracy"
        paired = _ordered(paired_differences(sub, evaluation=ev, metric=metric), results,
                          dataset, last=("baseline",))
        gap = {r["baseline"]: r["difference"] for r in paired.iter_rows(named=True)
               if r["mechanism"] == "none" and r["outcome"] == "better"}
        for r in paired.iter_rows(named=True):
            name = "raw (copy of the input)" if r["mechanism"] == "none" else r["mechanism"]
            diff = ("n/a" if r["difference"] is None else f"{r['difference']:+.3f}" + (
                "" if r["difference_se"] is None else f" +- {r['difference_se']:.3f}"))
            share = ("n/a" if r["difference"] is None or r["baseline"] not in gap
                     else f"{r['difference'] / gap[r['baseline']]:.2f}")
            rows.append(f"| {ev.removesuffix(':tstr-frontier')} | {name} | "
                        f"`{_shown(r['parameters'])}` | {r['baseline']} | {diff} | {share} | "
                        f"{r['n_seeds']} | {r['outcome']} |")
    if not rows:
        return []
    return ["Paired task difference (balanced accuracy, release - baseline; trained on the "
            "release, tested on the held-out people's raw recordings, the same people for both "
            "on each seed; better / worse by more than 2 SE of the per-seed differences; share "
            "of gap: the difference over the raw copy's against the same baseline, n/a where "
            "the raw copy does not beat that baseline):", "",
            "| label | release | parameters | baseline | difference | share of gap | seeds | "
            "paired test |",
            "|---|---|---|---|---|---|---|---|", *rows]


def _shown(parameters: str) -> str:
    return json.dumps({k: v for k, v in json.loads(parameters).items()
                       if k in ("epsilon", "k", "epsilon_per_participant")})


def _ordered(pooled: pl.DataFrame, results: pl.DataFrame, dataset: str,
             first: tuple[str, ...] = (), last: tuple[str, ...] = ()) -> pl.DataFrame:
    """A pooled table with each release's epsilon per participant (``eps``, null when
    unbounded), the raw copy first, then the releases by epsilon, then the baselines (sorted
    by the columns ``first`` before that order and ``last`` within it)."""
    eps = (results.filter((pl.col("dataset") == dataset)
                          & (pl.col("metric") == "participant_epsilon"))
           .group_by("mechanism", "parameters").agg(pl.col("value").max().alias("eps")))
    return pooled.join(eps, on=["mechanism", "parameters"], how="left").with_columns(
        pl.when(pl.col("mechanism") == "none").then(0)
        .when(pl.col("mechanism").str.starts_with("baseline-")).then(2).otherwise(1)
        .alias("_o")).sort(*first, "_o", "mechanism", "eps", "parameters", *last)


def membership_table(scores: pl.DataFrame, results: pl.DataFrame, dataset: str) -> list[str]:
    """Markdown lines: per release, the pooled membership AUC and advantage with their 95 %
    bootstrap intervals over participants and the verdicts (the bootstrap's seed fixed: 0)."""
    mine = scores.filter(pl.col("dataset") == dataset)
    if mine.height == 0:
        return []
    pooled = _ordered(pooled_membership(mine, rng=np.random.default_rng(0)), results, dataset)
    top = pooled.row(0, named=True)
    lines = [f"Pooled membership inference ({top['n_participants']} participants, "
             f"{top['n_seeds']} seeds x {top['n_games'] // max(top['n_seeds'], 1)} folds = "
             f"{top['n_games']} games, the release regenerated for each; every participant a "
             "non-member once and a member in the other folds of a seed; 95 % intervals "
             "from 2000 bootstrap resamples of participants; targets AUC <= 0.6 and "
             "TPR - FPR <= 0.1, certified when the interval's upper end is below):", "",
             "| release | parameters | epsilon / participant | AUC [95 %] | TPR - FPR, "
             "threshold from the other seeds [95 %] | TPR - FPR, best in hindsight | "
             "AUC <= 0.6 | TPR - FPR <= 0.1 | verdict |", "|---|---|---|---|---|---|---|---|---|"]
    for r in pooled.iter_rows(named=True):
        name = "raw (copy of the input)" if r["mechanism"] == "none" else r["mechanism"]
        e = "n/a" if r["eps"] is None else f"{r['eps']:.3g}"
        check = (" (beats chance)" if r["beats_chance"] else " (not above chance)"
                 ) if r["mechanism"] == "none" else ""
        lines.append(
            f"| {name} | `{_shown(r['parameters'])}` | {e} | {r['auc']:.3f} "
            f"[{r['auc_low']:.3f}, {r['auc_high']:.3f}]{check} | {r['advantage']:+.3f} "
            f"[{r['advantage_low']:+.3f}, {r['advantage_high']:+.3f}] | "
            f"{r['advantage_best']:.3f} | {r['auc_verdict']} | {r['advantage_verdict']} | "
            f"{r['verdict']} |")
    if top["mechanism"] == "none" and not top["beats_chance"]:
        lines += ["", "The attacker does not catch the raw copy on this data set (its AUC "
                  "interval reaches 0.5): a release that meets the targets here is not "
                  "certified by it."]
    return lines


def attribute_table(guesses: pl.DataFrame, results: pl.DataFrame, dataset: str) -> list[str]:
    """Markdown lines: per release and attribute, the members' accuracy pooled over the
    membership folds against the two chance levels, the excesses in bootstrap SE over
    participants with their 95 % intervals, and the verdict (the bootstrap's seed fixed: 0)."""
    mine = guesses.filter(pl.col("dataset") == dataset)
    if mine.height == 0:
        return []
    pooled = _ordered(pooled_attribute(mine, rng=np.random.default_rng(0)), results, dataset,
                      first=("attribute",))
    top = pooled.row(0, named=True)
    lines = [f"Pooled attribute inference ({top['n_participants']} participants, "
             f"{top['n_games']} games: the membership folds' releases; the forest trained on "
             "each release's labels of an attribute not declared public answers every member "
             "from its probes; two chance levels: each game's majority share among its members "
             "(the best answer that ignores the person) and independent answers (each game's "
             "sum over values of the attacker's share of that answer times the members' share "
             "of that value: what answers with the attacker's own shares get when they carry "
             "nothing about the person; a forest that learned nothing reads under the majority "
             "share); SE and 95 % interval of accuracy - chance from 2000 bootstrap resamples "
             "of participants; target: at most 2 SE above chance, refuted when above either "
             "chance or when an interval lies above 0, else not detected -- not a proof of "
             "absence: the intervals' upper ends bound the excess, and the SE is that of the "
             "participants):", "",
             "| release | parameters | epsilon / participant | attribute | accuracy | majority "
             "share | accuracy - majority [95 %] | SE above | independent | accuracy - "
             "independent [95 %] | SE above | non-members | carried | verdict |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]

    def z(v: float) -> str:
        return "n/a" if v != v else f"{v:+.1f}"

    for r in pooled.iter_rows(named=True):
        name = "raw (copy of the input)" if r["mechanism"] == "none" else r["mechanism"]
        e = "n/a" if r["eps"] is None else f"{r['eps']:.3g}"
        verdict = (f"{r['verdict']} (at most {r['excess_high']:+.3f} / {r['info_high']:+.3f})"
                   if r["verdict"] == NOT_DETECTED else r["verdict"])
        lines.append(
            f"| {name} | `{_shown(r['parameters'])}` | {e} | {r['attribute']} | "
            f"{r['accuracy']:.3f} | {r['chance']:.3f} | {r['excess']:+.3f} "
            f"[{r['excess_low']:+.3f}, {r['excess_high']:+.3f}] | {z(r['excess_z'])} | "
            f"{r['independent']:.3f} | {r['info_excess']:+.3f} "
            f"[{r['info_low']:+.3f}, {r['info_high']:+.3f}] | {z(r['info_z'])} | "
            f"{r['nonmember_accuracy']:.3f} | {r['carried']:.0%} | {verdict} |")
    return lines


def read_run(run: str | Path) -> pl.DataFrame:
    """A run's results; for an interrupted run (or cells newer than its results), every finished
    cell in its folder (flagged the same way)."""
    run = Path(run)
    cells = sorted((run / "cells").glob("*.parquet"))
    res = run / "results.parquet"
    if res.is_file() and all(c.stat().st_mtime <= res.stat().st_mtime for c in cells):
        return pl.read_parquet(res)
    parts = [pl.read_parquet(p).drop("beats_baselines", strict=False) for p in cells]
    return flag_results(pl.concat(parts, how="vertical"))


def _seeds(argv: list[str]) -> tuple[list[str], list[int] | None]:
    """The runs and the seeds ``--seeds A-B`` keeps (None: all)."""
    if "--seeds" not in argv:
        return argv, None
    i = argv.index("--seeds")
    try:
        lo, hi = (int(v) for v in argv[i + 1].split("-"))
    except (IndexError, ValueError):
        raise SystemExit("--seeds takes a range A-B, e.g. --seeds 0-4") from None
    return argv[:i] + argv[i + 2:], list(range(lo, hi + 1))


def _only(frame: pl.DataFrame, seeds: list[int] | None) -> pl.DataFrame:
    return frame if seeds is None or frame.is_empty() else frame.filter(
        pl.col("seed").is_in(seeds))


def main(argv: list[str] | None = None) -> None:
    runs, seeds = _seeds(list(argv if argv is not None else sys.argv[1:]))
    for run in runs:
        results = _only(read_run(run), seeds)
        for ds in sorted(results["dataset"].unique().to_list()):
            print("\n".join(table(results, ds)))
            for paired in (paired_table(results, ds), paired_task_table(results, ds)):
                if paired:
                    print("\n" + "\n".join(paired))
            for row in frontier(results.filter(pl.col("dataset") == ds)).to_dicts():
                print("\nVerdict: " + frontier_line(row) + "\n")
            member = membership_table(_only(read_membership_scores(run), seeds), results, ds)
            if member:
                print("\n".join(member) + "\n")
            attr = attribute_table(_only(read_attribute_guesses(run), seeds), results, ds)
            if attr:
                print("\n".join(attr) + "\n")


if __name__ == "__main__":
    main()
