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
without majority voting. Paper-specific outputs in ``out_dir``: ``seed002_tables.md`` (the
shape of the paper's Tables 1-3 and 6-8, paper values beside ours), ``seed002_utility.png``
(Figs 7-9) and ``seed002_correlation.png`` (Figs 3-4).

**Two sensitivity variants.** Paper mode computes the data-driven sensitivity (eq. 7) per
document type (``sensitivity="per-document"``), so the noise *scale* of a released series
differs by document, and a classifier reads the document type from the noise level itself:
that, not majority voting, is why our CFPA and DCFPA keep document accuracy near the clean
value at eps = 0.48. The paper states per-document runs for its utility results only, not for
its classification experiments. ``sensitivity="uniform"`` computes one sensitivity over all
recordings (the same paper-mode mechanism otherwise); the run reports both, in the column
``sensitivity``.

Outputs (the format of every reproduction): ``results.parquet`` in the runner's long schema
(``mechanism`` = method, ``mode`` = "paper", ``parameters`` JSON with the sensitivity variant,
``seed`` = repetition, ``kind`` privacy / utility / guarantee, ``evaluation`` =
``task:classifier:vote|window``; plus the paper's keys ``method, task, classifier,
majority_vote, repetition, sensitivity``) and ``report.html`` (the project's report with the
tables beside the paper's as its "Paper comparison"); the paper-specific tables and figures
above stay.
"""

from __future__ import annotations

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
from gazeprivacy.data.loaders.mpiidpeye import load_mpiidpeye
from gazeprivacy.exceptions import InvalidParameterError, NotFormallyPrivateWarning
from gazeprivacy.experiments.reproduce._paper002 import EPSILONS, PAPER_TABLES
from gazeprivacy.experiments.reproduce._runs import (
    conform,
    embed_png,
    markdown_html,
    with_chance_rows,
    write_outputs,
)
from gazeprivacy.features.window_features import (
    FEATURE_NAMES,
    WORDBOOK_MIN_FEATURES,
    FeatureSeries,
    WindowFeatureParams,
    load_mpiidpeye_features,
    recording_features,
)
from gazeprivacy.guarantees import Release
from gazeprivacy.mechanisms.series import cfpa, dcfpa, fpa, lpa
from gazeprivacy.metrics.series import lag_correlation, series_utility

__all__ = ["METHODS", "SENSITIVITIES", "load_series", "release_method", "reproduce_seed002",
           "tables_markdown"]

METHODS = ("FPA", "CFPA-32", "CFPA-64", "CFPA-128", "DCFPA-32", "DCFPA-64", "DCFPA-128")
#: sensitivity variants: eq. 7 per document type (the paper states per-document runs for its
#: utility results only; our reading for the classifiers), and one over all recordings
SENSITIVITIES = {"per-document": "document", "uniform": None}
_PRIVATE_TASKS = ("gender", "person")


def release_method(series: Sequence[FeatureSeries], method: str, epsilon: float, *,
                   rng: np.random.Generator, sensitivity: str = "per-document",
                   ) -> Release[list[FeatureSeries]]:
    """Seed 002's paper-mode release of ``method`` ("FPA", "CFPA-64", "DCFPA-32", "LPA").

    ``sensitivity`` (:data:`SENSITIVITIES`): "per-document" is the data-driven sensitivity
    per document type (stated by the paper for its utility results only); "uniform" computes
    one over all recordings."""
    if sensitivity not in SENSITIVITIES:
        raise InvalidParameterError(f"sensitivity must be one of {sorted(SENSITIVITIES)}, got "
                                    f"{sensitivity!r}")
    kw = {"mode": "paper", "sensitivity_group": SENSITIVITIES[sensitivity]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotFormallyPrivateWarning)  # flagged in the record
        if method == "FPA":
            return fpa.fpa(series, fpa.FPAParams.paper(epsilon=epsilon, **kw), rng=rng)
        if method == "LPA":
            return lpa.lpa(series, lpa.LPAParams.paper(epsilon=epsilon, **kw), rng=rng)
        name, size = method.split("-")
        if name == "CFPA":
            return cfpa.cfpa(series, cfpa.CFPAParams.paper(
                epsilon=epsilon, chunk_size=int(size), **kw), rng=rng)
        return dcfpa.dcfpa(series, dcfpa.DCFPAParams.paper(
            epsilon=epsilon, chunk_size=int(size), **kw), rng=rng)


def load_series(data_dir: str | Path, *, cache_dir: Path,
                participants: Sequence[int] | None = None) -> list[FeatureSeries]:
    """MPIIDPEye's window-feature series (all participants, cached; or a few, for tests)."""
    if participants is None:
        return load_mpiidpeye_features(data_dir, cache_dir=cache_dir)
    root = Path(data_dir)
    ds = load_mpiidpeye(root.parent if root.name == "mpiidpeye" else root,
                        participants=participants)
    params = WindowFeatureParams.mpiidpeye()
    return [recording_features(rec, params) for rec in ds]


def _classification_rows(released: Sequence[FeatureSeries], method: str, eps: float | None,
                         rep: int, r: np.random.Generator, *, classifiers: Sequence[str],
                         subsample_lopo: int, subsample_person: int,
                         sensitivity: str | None = None) -> list[dict]:
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
             "sensitivity": sensitivity, "task": row["task"], "classifier": row["classifier"],
             "majority_vote": vote, "metric": "accuracy",
             "value": row["accuracy_vote" if vote else "accuracy"]}
            for t in tabs for row in t.iter_rows(named=True) for vote in (False, True)]


def _utility_rows(series: Sequence[FeatureSeries], rel: Release, method: str, eps: float,
                  rep: int, sensitivity: str) -> list[dict]:
    """Utility (mean and median 1/|NMSE|) and per-participant epsilon of one release."""
    u = series_utility(series, rel.output)
    values = {"utility_mean": float(np.nanmean(np.nanmean(u, axis=0))),
              "utility_median": float(np.nanmedian(u)),
              "per_participant_epsilon": rel.guarantee.max_participant_epsilon}
    return [{"dataset": "MPIIDPEye", "method": method, "epsilon": eps, "repetition": rep,
             "sensitivity": sensitivity,
             "task": "guarantee" if metric == "per_participant_epsilon" else "utility",
             "classifier": None, "majority_vote": None, "metric": metric, "value": value}
            for metric, value in values.items()]


def reproduce_seed002(out_dir: str | Path, *, data_dir: str | Path, rng: np.random.Generator,
                      epsilons: Sequence[float] = EPSILONS, methods: Sequence[str] = METHODS,
                      repetitions: int = 1, classifiers: Sequence[str] = CLASSIFIERS,
                      subsample_lopo: int = 10, subsample_person: int = 5,
                      utility_methods: Sequence[str] = ("LPA", *METHODS),
                      include_clean: bool = True,
                      sensitivities: Sequence[str] = ("per-document", "uniform"),
                      participants: Sequence[int] | None = None) -> pl.DataFrame:
    """Run seed 002's MPIIDPEye experiments; write results, tables, plots and report.

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
    sensitivities : sequence of {"per-document", "uniform"}
        Sensitivity variants (module docstring); the paper's is "per-document".
    participants : sequence of int, optional
        A subset of MPIIDPEye's participants 1-20 (small runs; not cached).

    Returns
    -------
    polars.DataFrame
        The results table (as written to ``results.parquet``).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    unknown = sorted((set(methods) | set(utility_methods)) - {*METHODS, "LPA"})
    if unknown:
        raise InvalidParameterError(f"unknown method(s) {unknown}; choose from "
                                    f"{', '.join(METHODS)} (and LPA for the utility plot)")
    for v in sensitivities:
        if v not in SENSITIVITIES:
            raise InvalidParameterError(f"sensitivity must be one of {sorted(SENSITIVITIES)}, "
                                        f"got {v!r}")
    keep = [n for n in FEATURE_NAMES if n not in WORDBOOK_MIN_FEATURES]
    series = [s.select(keep) for s in load_series(data_dir, cache_dir=out,
                                                  participants=participants)]
    _correlation_plot(series, out / "seed002_correlation.png")
    rows: list[dict] = []
    guarantees: list[dict] = []
    kw = {"classifiers": classifiers, "subsample_lopo": subsample_lopo,
          "subsample_person": subsample_person}
    if include_clean:
        rows.extend(_classification_rows(series, "clean", None, 0, rng.spawn(1)[0], **kw))
    for sens in sensitivities:
        for method in dict.fromkeys([*methods, *utility_methods]):
            for eps in epsilons:
                for rep in range(repetitions):
                    r_rel, r_eval = rng.spawn(2)
                    rel = release_method(series, method, eps, rng=r_rel, sensitivity=sens)
                    guarantees.append({"dataset": "MPIIDPEye", "mechanism": method,
                                       "parameters": {"epsilon": eps, "sensitivity": sens},
                                       "seed": rep, "guarantee": rel.guarantee.to_dict()})
                    rows.extend(_utility_rows(series, rel, method, eps, rep, sens))
                    if method in methods:
                        rows.extend(_classification_rows(rel.output, method, eps, rep, r_eval,
                                                         sensitivity=sens, **kw))
    table = long_results(pl.DataFrame(rows, infer_schema_length=None),
                         n_participants=len({s.participant for s in series}))
    md = tables_markdown(table.filter(pl.col("sensitivity").is_null()
                                      | (pl.col("sensitivity") == "per-document")),
                         methods=methods, epsilons=epsilons)
    md += "\n" + sensitivity_markdown(table, methods=methods, epsilons=epsilons)
    (out / "seed002_tables.md").write_text(md)
    _utility_plot(table, out / "seed002_utility.png")
    fragment = ("<p class='note'>Bozkir et al. (PLOS ONE 2021) on MPIIDPEye, paper mode; "
                "cells: ours / paper.</p>" + markdown_html(md)
                + embed_png(out / "seed002_utility.png", "utility 1/|NMSE| vs epsilon")
                + embed_png(out / "seed002_correlation.png", "temporal correlations"))
    write_outputs(out, table, name="bozkir-2021", guarantees=guarantees,
                  title="gazeprivacy: Bozkir et al. 2021 (seed 002) reproduced",
                  paper_comparison=fragment)
    return table


def long_results(table: pl.DataFrame, *, n_participants: int) -> pl.DataFrame:
    """Seed 002's rows in the common long schema (module docstring), with ``chance`` rows
    (1 / classes) for each classification so the report can set attacks against chance."""
    both = with_chance_rows(table, n_participants=n_participants)
    vote = pl.when(pl.col("majority_vote")).then(pl.lit("vote")).otherwise(pl.lit("window"))
    return conform(both.with_columns(
        pl.when(pl.col("method") == "clean").then(pl.lit("none")).otherwise(pl.col("method"))
        .alias("mechanism"),
        pl.lit("paper").alias("mode"),
        pl.struct(epsilon=pl.col("epsilon"), sensitivity=pl.col("sensitivity"))
        .struct.json_encode().alias("parameters"),
        pl.col("repetition").alias("seed"),
        pl.when(pl.col("task").is_in(_PRIVATE_TASKS)).then(pl.lit("privacy"))
        .when(pl.col("task") == "guarantee").then(pl.lit("guarantee"))
        .otherwise(pl.lit("utility")).alias("kind"),
        pl.when(pl.col("classifier").is_null()).then(pl.col("task"))
        .otherwise(pl.concat_str(pl.col("task"), pl.col("classifier"), vote, separator=":"))
        .alias("evaluation")))


def sensitivity_markdown(table: pl.DataFrame, *, methods: Sequence[str] = METHODS,
                         epsilons: Sequence[float] = EPSILONS) -> str:
    """Per task: SVM accuracy with majority vote, per-document (paper) vs uniform sensitivity."""
    acc = (table.filter((pl.col("metric") == "accuracy") & (pl.col("classifier") == "svm")
                        & pl.col("majority_vote") & pl.col("sensitivity").is_not_null())
           .group_by(["method", "epsilon", "task", "sensitivity"]).agg(pl.col("value").mean()))
    if not acc.height:
        return ""
    look = {(r["method"], r["epsilon"], r["task"], r["sensitivity"]): r["value"]
            for r in acc.iter_rows(named=True)}
    lines = ["### Sensitivity per document type (paper) vs one sensitivity for all recordings",
             "", "SVM accuracy with majority vote; cells: per-document / uniform / paper.", "",
             "| task | method | " + " | ".join(f"eps={e:g}" for e in epsilons) + " |",
             "|---|---|" + "---|" * len(epsilons)]
    for task in ("document", "gender", "person"):
        paper = PAPER_TABLES[(task, True)]
        for m in methods:
            cells = []
            for e in epsilons:
                a, b = look.get((m, e, task, "per-document")), look.get((m, e, task, "uniform"))
                prow = paper.get(m)
                pe = [k for k, v in enumerate(EPSILONS) if abs(v - e) < 1e-9]
                p = "-" if prow is None or not pe else f"{prow[pe[0]][1]:.2f}"
                cells.append(" / ".join("-" if v is None else f"{v:.2f}" for v in (a, b))
                             + f" / {p}")
            lines.append(f"| {task} | {m} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


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
