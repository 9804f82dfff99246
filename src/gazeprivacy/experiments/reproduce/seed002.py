# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Reproduce seed 002 (Bozkir, Günlü et al., PLOS ONE 2021) on MPIIDPEye.

Pipeline: the 52 window features recomputed from the raw samples (30 s windows, 0.5 s step;
cached as Parquet in ``out_dir``), the four always-zero wordbook minima dropped (48 features, as
in the paper), FPA / CFPA-{32,64,128} / DCFPA-{32,64,128} (and LPA for the utility plot) in
paper mode (data-driven sensitivities per document type, ``k`` tuned per block) for
eps in {0.48, 2.4, 4.8, 24, 48}; the released series train and test every classifier
(noisy-train / noisy-test, as in the paper): document type and gender by leave-one-person-out
(one window in 10), person identification by first half / second half (one window in 5), with and
without majority voting. Outputs in ``out_dir``: ``seed002_results.parquet`` / ``.csv`` (one
row per method x epsilon x repetition x task x classifier x voting), ``seed002_tables.md`` (the
shape of the paper's Tables 1-3 and 6-8, paper values beside ours), ``seed002_utility.png``
(Figs 7-9), ``seed002_correlation.png`` (Figs 3-4) and the guarantee records
(``seed002_guarantees.json``).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from gazeprivacy.attacks.feature_protocols import (
    CLASSIFIERS,
    first_half_second_half,
    leave_one_person_out,
)
from gazeprivacy.exceptions import NotFormallyPrivateWarning
from gazeprivacy.experiments.reproduce._paper002 import EPSILONS, PAPER_TABLES
from gazeprivacy.features.window_features import (
    FEATURE_NAMES,
    WORDBOOK_MIN_FEATURES,
    FeatureSeries,
    load_mpiidpeye_features,
)
from gazeprivacy.guarantees import Release
from gazeprivacy.mechanisms.series import cfpa, dcfpa, fpa, lpa
from gazeprivacy.metrics.series import lag_correlation, series_utility

__all__ = ["METHODS", "release_method", "reproduce_seed002", "tables_markdown"]

METHODS = ("FPA", "CFPA-32", "CFPA-64", "CFPA-128", "DCFPA-32", "DCFPA-64", "DCFPA-128")


def release_method(series: Sequence[FeatureSeries], method: str, epsilon: float, *,
                   rng: np.random.Generator) -> Release[list[FeatureSeries]]:
    """Seed 002's paper-mode release of ``method`` ("FPA", "CFPA-64", "DCFPA-32", "LPA")."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotFormallyPrivateWarning)  # flagged in the record
        if method == "FPA":
            return fpa.fpa(series, fpa.FPAParams.paper(epsilon=epsilon, mode="paper"), rng=rng)
        if method == "LPA":
            return lpa.lpa(series, lpa.LPAParams.paper(epsilon=epsilon, mode="paper"), rng=rng)
        name, size = method.split("-")
        if name == "CFPA":
            return cfpa.cfpa(series, cfpa.CFPAParams.paper(
            epsilon=epsilon, chunk_size=int(size), mode="paper"), rng=rng)
        return dcfpa.dcfpa(series, dcfpa.DCFPAParams.paper(
            epsilon=epsilon, chunk_size=int(size), mode="paper"), rng=rng)


def _classification_rows(released: Sequence[FeatureSeries], method: str, eps: float | None,
                         rep: int, r: np.random.Generator, *, classifiers: Sequence[str],
                         subsample_lopo: int, subsample_person: int) -> list[dict]:
    """Accuracy rows (with and without majority vote) of the document, gender and person
    tasks, trained and tested on ``released``."""
    r1, r2, r3 = r.spawn(3)
    tabs = [leave_one_person_out(released, released, label="document",
                                 classifiers=classifiers, subsample=subsample_lopo, rng=r1),
            leave_one_person_out(released, released, label="gender",
                                 classifiers=classifiers, subsample=subsample_lopo, rng=r2),
            first_half_second_half(released, released, classifiers=classifiers,
                                   subsample=subsample_person, rng=r3)]
    return [{"dataset": "MPIIDPEye", "method": method, "epsilon": eps, "repetition": rep,
             "task": row["task"], "classifier": row["classifier"], "majority_vote": vote,
             "metric": "accuracy", "value": row["accuracy_vote" if vote else "accuracy"]}
            for t in tabs for row in t.iter_rows(named=True) for vote in (False, True)]


def _utility_rows(series: Sequence[FeatureSeries], rel: Release, method: str, eps: float,
                  rep: int) -> list[dict]:
    """Utility (mean and median 1/|NMSE|) and per-participant epsilon of one release."""
    u = series_utility(series, rel.output)
    values = {"utility_mean": float(np.nanmean(np.nanmean(u, axis=0))),
              "utility_median": float(np.nanmedian(u)),
              "per_participant_epsilon": rel.guarantee.max_participant_epsilon}
    return [{"dataset": "MPIIDPEye", "method": method, "epsilon": eps, "repetition": rep,
             "task": "guarantee" if metric == "per_participant_epsilon" else "utility",
             "classifier": None, "majority_vote": None, "metric": metric, "value": value}
            for metric, value in values.items()]


def reproduce_seed002(out_dir: str | Path, *, data_dir: str | Path, rng: np.random.Generator,
                      epsilons: Sequence[float] = EPSILONS, methods: Sequence[str] = METHODS,
                      repetitions: int = 1, classifiers: Sequence[str] = CLASSIFIERS,
                      subsample_lopo: int = 10, subsample_person: int = 5,
                      utility_methods: Sequence[str] = ("LPA", *METHODS),
                      include_clean: bool = True) -> pl.DataFrame:
    """Run seed 002's MPIIDPEye experiments; write results, tables and plots to ``out_dir``.

    Parameters
    ----------
    out_dir : path
        Output folder (created); also holds the feature cache.
    data_dir : path
        ``<shared data>/mpiidpeye`` (or its parent).
    rng : numpy.random.Generator
        The one source of randomness.
    epsilons, methods, repetitions, classifiers
        The grid (the paper: its 5 epsilons, 7 methods, 100 noisy runs, 4 classifiers).
    subsample_lopo, subsample_person
        One window per this many (paper: 10 and 5).
    utility_methods
        Methods whose utility (1/|NMSE|) is computed for the utility plot.
    include_clean
        Also evaluate the clean features (method "clean").

    Returns
    -------
    polars.DataFrame
        The tidy results table.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    full = load_mpiidpeye_features(data_dir, cache_dir=out)
    keep = [n for n in FEATURE_NAMES if n not in WORDBOOK_MIN_FEATURES]
    series = [s.select(keep) for s in full]
    _correlation_plot(series, out / "seed002_correlation.png")
    rows: list[dict] = []
    guarantees: dict[str, dict] = {}

    def evaluate(released: Sequence[FeatureSeries], method: str, eps: float | None,
                 rep: int, r: np.random.Generator) -> None:
        rows.extend(_classification_rows(released, method, eps, rep, r, classifiers=classifiers,
                                         subsample_lopo=subsample_lopo,
                                         subsample_person=subsample_person))

    if include_clean:
        evaluate(series, "clean", None, 0, rng.spawn(1)[0])
    for method in dict.fromkeys([*methods, *utility_methods]):
        for eps in epsilons:
            for rep in range(repetitions):
                r_rel, r_eval = rng.spawn(2)
                rel = release_method(series, method, eps, rng=r_rel)
                guarantees[f"{method} eps={eps:g}"] = rel.guarantee.to_dict()
                rows.extend(_utility_rows(series, rel, method, eps, rep))
                if method in methods:
                    evaluate(rel.output, method, eps, rep, r_eval)
                pl.DataFrame(rows, infer_schema_length=None).write_parquet(
                    out / "seed002_results.parquet")
    table = pl.DataFrame(rows, infer_schema_length=None)
    table.write_parquet(out / "seed002_results.parquet")
    table.write_csv(out / "seed002_results.csv")
    (out / "seed002_guarantees.json").write_text(json.dumps(guarantees, indent=1,
                                                            default=str))
    (out / "seed002_tables.md").write_text(tables_markdown(table, methods=methods,
                                                           epsilons=epsilons))
    _utility_plot(table, out / "seed002_utility.png")
    return table


def tables_markdown(table: pl.DataFrame, *, methods: Sequence[str] = METHODS,
                    epsilons: Sequence[float] = EPSILONS) -> str:
    """Tables in the shape of seed 002's Tables 1-3 (vote) and 6-8 (no vote): ours / paper."""
    acc = (table.filter(pl.col("metric") == "accuracy")
           .group_by(["method", "epsilon", "task", "classifier", "majority_vote"])
           .agg(pl.col("value").mean()))
    look = {(r["method"], r["epsilon"], r["task"], r["classifier"], r["majority_vote"]): r["value"]
            for r in acc.iter_rows(named=True)}
    lines = ["Cells: ours / paper, classifiers kNN SVM DT RF; '-' = not printed / not run.", ""]
    names = {"document": "Document type", "gender": "Gender", "person": "Person identification"}
    for vote in (True, False):
        for i, task in enumerate(("document", "gender", "person")):
            table_no = i + 1 if vote else i + 6
            lines.append(f"### {names[task]} accuracy, {'with' if vote else 'without'} "
                         f"majority voting (paper Table {table_no})")
            lines.append("")
            lines.append("| method | " + " | ".join(f"eps={e:g}" for e in epsilons) + " |")
            lines.append("|---|" + "---|" * len(epsilons))
            clean = [look.get(("clean", None, task, c, vote)) for c in CLASSIFIERS]
            if any(v is not None for v in clean):
                lines.append("| clean (no noise) | " + " | ".join(
                    [" ".join("-" if v is None else f"{v:.2f}" for v in clean)]
                    * len(epsilons)) + " |")
            paper = PAPER_TABLES[(task, vote)]
            for m in methods:
                cells = []
                for e in epsilons:
                    ours = " ".join("-" if (v := look.get((m, e, task, c, vote))) is None
                                    else f"{v:.2f}" for c in CLASSIFIERS)
                    prow = paper.get(m)
                    pe = [k for k, pe_ in enumerate(EPSILONS) if abs(pe_ - e) < 1e-9]
                    theirs = ("-" if prow is None or not pe else
                              " ".join(f"{v:.2f}" for v in prow[pe[0]]))
                    cells.append(f"{ours} / {theirs}")
                lines.append(f"| {m} | " + " | ".join(cells) + " |")
            lines.append("")
    util = (table.filter(pl.col("metric") == "utility_mean").group_by(["method", "epsilon"])
            .agg(pl.col("value").mean()).sort(["method", "epsilon"]))
    if util.height:
        lines.append("### Utility 1/|NMSE| (mean over features of the mean over recordings)")
        lines.append("")
        lines.append("| method | " + " | ".join(f"eps={e:g}" for e in epsilons) + " |")
        lines.append("|---|" + "---|" * len(epsilons))
        for m in util["method"].unique(maintain_order=True):
            vals = {r["epsilon"]: r["value"] for r in util.filter(pl.col("method") == m)
                    .iter_rows(named=True)}
            lines.append(f"| {m} | " + " | ".join(
                "-" if (v := vals.get(e)) is None else f"{v:.3g}" for e in epsilons) + " |")
        lines.append("")
    return "\n".join(lines)


def _utility_plot(table: pl.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    util = (table.filter(pl.col("metric") == "utility_mean").group_by(["method", "epsilon"])
            .agg(pl.col("value").mean()).sort(["method", "epsilon"]))
    if not util.height:
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    for m in util["method"].unique(maintain_order=True):
        part = util.filter(pl.col("method") == m)
        ax.plot(part["epsilon"], part["value"], marker="o", label=m)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("epsilon (per block and feature, paper's unit)")
    ax.set_ylabel("utility 1/|NMSE|")
    ax.set_title("MPIIDPEye, paper mode (seed 002 Figs 7-9)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _correlation_plot(series: Sequence[FeatureSeries], path: Path,
                      feature: str = "ratio_large_saccades", max_lag: int = 200) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.5), sharey=True)
    docs = sorted({s.labels["document"] for s in series})
    for ax, diff in zip(axes, (False, True), strict=True):
        for d in docs:
            sub = [s for s in series if s.labels["document"] == d]
            c = lag_correlation(sub, feature, ref_index=5, max_lag=max_lag, difference=diff)
            ax.plot(np.arange(c.size), c, label=d)
        ax.set_title(f"{feature}: {'difference' if diff else 'raw'} signals")
        ax.set_xlabel("time difference (steps of 0.5 s)")
        ax.axhline(0, color="grey", lw=0.5)
    axes[0].set_ylabel("correlation with the 5th window")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
