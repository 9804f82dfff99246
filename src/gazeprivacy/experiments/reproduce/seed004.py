# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Reproduce seed 004 (Steil, Hagestedt, Huang, Bulling, ETRA 2019) on MPIIDPEye.

Pipeline: the 52 window features recomputed from the raw samples (cached as Parquet), seed 004's
mechanism in paper mode (subsampling w = 10, ``delta_i = max_i - min_i`` over all data, eqs.
4-8) and, beside it, the sound alternative (LPA on the subsampled series with declared ranges),
for a grid of per-feature epsilons ``eps_i``. SVM (RBF, C = 1) accuracies for the paper's three
figures:

* Fig. 6, without prior knowledge, trained on DP data: gender and document type,
  leave-one-person-out, noisy-train / noisy-test;
* Fig. 7, without prior knowledge, trained on clean data: the same, clean-train / noisy-test;
* Fig. 8, with prior knowledge: person re-identification, first half (clean) trains, second half
  (noisy) tests, and document type (clean-train / noisy-test) for utility.

The clean training data are subsampled in the same way (one random window per 10). The paper's
figure axes are read as ``eps_i`` per feature (its total is ``52 eps_i``); the text gives a few
points, which ``PAPER_POINTS`` holds and the table shows beside ours. Outputs in ``out_dir``:
``seed004_results.parquet`` / ``.csv``, ``seed004_tables.md``, ``seed004_fig6.png``,
``seed004_fig7.png``, ``seed004_fig8.png`` and ``seed004_guarantees.json``.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from gazeprivacy.attacks.feature_protocols import first_half_second_half, leave_one_person_out
from gazeprivacy.exceptions import NotFormallyPrivateWarning
from gazeprivacy.features.ranges import default_ranges
from gazeprivacy.features.window_features import (
    FeatureSeries,
    WindowFeatureParams,
    load_mpiidpeye_features,
)
from gazeprivacy.mechanisms.series.steil_exponential import (
    SteilParams,
    steil_exponential,
    subsample,
)

__all__ = ["EPSILONS", "PAPER_POINTS", "reproduce_seed004"]

EPSILONS = (1.0, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0)

PAPER_POINTS: dict[tuple[str, str, float], float] = {
    # (figure, task, eps_i) -> accuracy stated in seed 004's text (section 6)
    ("fig6", "gender", 15.0): 0.54,   # "almost drops to the chance level of 54%"
    ("fig6", "document", 15.0): 0.55,  # "accuracy of about 55% for document type"
    ("fig7", "document", 20.0): 0.70,  # "document type classification is still around 70%"
    ("fig7", "gender", 20.0): 0.54,   # "dropped below chance level" (upper bound 0.54)
    ("fig8", "person", 40.0): 0.50,   # "for eps = 40, the attacker's accuracy dropped to 50%"
    ("fig8", "person", 15.0): 0.064,  # "dropped down almost to chance level (6.4%)"
    ("fig8", "document", 15.0): 0.70,  # "the utility preserved an accuracy of about 70%"
}


def _clean_subsampled(series: Sequence[FeatureSeries], w: int, rng: np.random.Generator
                      ) -> list[FeatureSeries]:
    out = []
    for s, r in zip(series, rng.spawn(len(series)), strict=True):
        v, starts = subsample(s.values, w, r)
        out.append(s.with_values(v, t_start=s.t_start[starts]))
    return out


def _accuracy_rows(tab: pl.DataFrame, fig: str, mode: str, eps: float | None, rep: int,
                   threat: str) -> list[dict]:
    """Result rows (with and without majority vote) of one classifier-protocol table."""
    return [{"dataset": "MPIIDPEye", "method": f"steil-{mode}", "figure": fig,
             "threat_model": threat, "epsilon": eps, "repetition": rep,
             "task": row["task"], "classifier": row["classifier"],
             "majority_vote": vote, "metric": "accuracy",
             "value": row["accuracy_vote" if vote else "accuracy"]}
            for row in tab.iter_rows(named=True) for vote in (False, True)]


def _clean_rows(clean: Sequence[FeatureSeries], r: Sequence[np.random.Generator], rep: int, *,
                classifiers: Sequence[str], protocol_subsample: int) -> list[dict]:
    """The clean-train / clean-test reference: gender, document and person, with streams
    ``r[0]``, ``r[1]``, ``r[2]``."""
    rows: list[dict] = []
    for task, rr in (("gender", r[0]), ("document", r[1])):
        rows += _accuracy_rows(leave_one_person_out(clean, clean, label=task,
                                                    classifiers=classifiers,
                                                    subsample=protocol_subsample, rng=rr),
                               "clean", "none", None, rep, "clean-train/clean-test")
    rows += _accuracy_rows(first_half_second_half(clean, clean, classifiers=classifiers,
                                                  subsample=protocol_subsample, rng=r[2]),
                           "clean", "none", None, rep, "clean-train/clean-test")
    return rows


def reproduce_seed004(out_dir: str | Path, *, data_dir: str | Path, rng: np.random.Generator,
                      epsilons: Sequence[float] = EPSILONS, repetitions: int = 1,
                      modes: Sequence[str] = ("paper", "sound"), protocol_subsample: int = 1,
                      classifiers: Sequence[str] = ("svm",)) -> pl.DataFrame:
    """Run seed 004's MPIIDPEye experiments; write results, tables and plots to ``out_dir``.

    Parameters
    ----------
    out_dir, data_dir, rng
        As in :func:`~gazeprivacy.experiments.reproduce.seed002.reproduce_seed002`.
    epsilons : sequence of float
        Per-feature ``eps_i`` values.
    repetitions : int
        Noisy runs per setting (the paper: 5).
    modes : sequence of {"paper", "sound"}
        Paper mode (eqs. 4-8, data-driven ranges) and/or the sound alternative.
    protocol_subsample : int
        Further window subsampling inside the classifier protocols (1 = none: the mechanism's
        w = 10 subsampling already applies).
    classifiers : sequence of str
        The paper uses the SVM only.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    series = load_mpiidpeye_features(data_dir, cache_dir=out)
    ranges = default_ranges(WindowFeatureParams.mpiidpeye())
    rows: list[dict] = []
    guarantees: dict[str, dict] = {}
    w = 10

    def add(tab: pl.DataFrame, fig: str, mode: str, eps: float | None, rep: int,
            threat: str) -> None:
        rows.extend(_accuracy_rows(tab, fig, mode, eps, rep, threat))

    for rep in range(repetitions):
        clean = _clean_subsampled(series, w, rng.spawn(1)[0])
        rows.extend(_clean_rows(clean, rng.spawn(3), rep, classifiers=classifiers,
                                protocol_subsample=protocol_subsample))
        for mode in modes:
            for eps in epsilons:
                r_rel, r6g, r6d, r7g, r7d, r8p = rng.spawn(6)
                params = (SteilParams.paper(epsilon=eps, mode="paper") if mode == "paper"
                          else SteilParams(epsilon=eps, subsample_w=w, ranges=ranges))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", NotFormallyPrivateWarning)
                    rel = steil_exponential(series, params, rng=r_rel)
                guarantees[f"{mode} eps={eps:g}"] = rel.guarantee.to_dict()
                noisy = rel.output
                kw = {"classifiers": classifiers, "subsample": protocol_subsample}
                add(leave_one_person_out(noisy, noisy, label="gender", rng=r6g, **kw),
                    "fig6", mode, eps, rep, "noisy-train/noisy-test")
                add(leave_one_person_out(noisy, noisy, label="document", rng=r6d, **kw),
                    "fig6", mode, eps, rep, "noisy-train/noisy-test")
                add(leave_one_person_out(clean, noisy, label="gender", rng=r7g, **kw),
                    "fig7", mode, eps, rep, "clean-train/noisy-test")
                doc7 = leave_one_person_out(clean, noisy, label="document", rng=r7d, **kw)
                add(doc7, "fig7", mode, eps, rep, "clean-train/noisy-test")
                add(doc7, "fig8", mode, eps, rep, "clean-train/noisy-test")
                add(first_half_second_half(clean, noisy, rng=r8p, **kw),
                    "fig8", mode, eps, rep, "clean-train/noisy-test")
                rows.append({"dataset": "MPIIDPEye", "method": f"steil-{mode}", "figure": "-",
                             "threat_model": "-", "epsilon": eps, "repetition": rep,
                             "task": "guarantee", "classifier": None, "majority_vote": None,
                             "metric": "per_participant_epsilon",
                             "value": rel.guarantee.max_participant_epsilon})
                pl.DataFrame(rows, infer_schema_length=None).write_parquet(
                    out / "seed004_results.parquet")
    table = pl.DataFrame(rows, infer_schema_length=None)
    table.write_parquet(out / "seed004_results.parquet")
    table.write_csv(out / "seed004_results.csv")
    (out / "seed004_guarantees.json").write_text(json.dumps(guarantees, indent=1, default=str))
    (out / "seed004_tables.md").write_text(tables_markdown(table, epsilons=epsilons))
    for fig in ("fig6", "fig7", "fig8"):
        _plot(table, fig, out / f"seed004_{fig}.png")
    return table


def tables_markdown(table: pl.DataFrame, *, epsilons: Sequence[float] = EPSILONS) -> str:
    """Accuracy vs eps_i per figure and task (SVM, majority vote / per window), paper points."""
    acc = (table.filter((pl.col("metric") == "accuracy") & (pl.col("classifier") == "svm"))
           .group_by(["method", "figure", "epsilon", "task", "majority_vote"])
           .agg(pl.col("value").mean()))
    look = {(r["method"], r["figure"], r["epsilon"], r["task"], r["majority_vote"]): r["value"]
            for r in acc.iter_rows(named=True)}
    lines = ["SVM accuracy, cells: majority vote / per window; 'paper' = value stated in the "
             "text of seed 004 (its figures are not tabulated).", ""]
    for task in ("gender", "document", "person"):
        cv = look.get(("steil-none", "clean", None, task, True))
        cw = look.get(("steil-none", "clean", None, task, False))
        if cv is not None:
            lines.append(f"Clean (no noise) {task}: {cv:.2f} / {cw:.2f}")
    lines.append("")
    titles = {"fig6": "Fig. 6: without prior knowledge, trained on DP data (noisy/noisy)",
              "fig7": "Fig. 7: without prior knowledge, trained on clean data (clean/noisy)",
              "fig8": "Fig. 8: with prior knowledge, trained on clean data (clean/noisy)"}
    methods = [m for m in table["method"].unique(maintain_order=True) if m != "steil-none"]
    for fig, title in titles.items():
        lines.append(f"### {title}")
        lines.append("")
        lines.append("| task | method | " + " | ".join(f"eps_i={e:g}" for e in epsilons) + " |")
        lines.append("|---|---|" + "---|" * len(epsilons))
        tasks = ("gender", "document") if fig != "fig8" else ("person", "document")
        for task in tasks:
            for m in methods:
                cells = []
                for e in epsilons:
                    v, u = look.get((m, fig, e, task, True)), look.get((m, fig, e, task, False))
                    cells.append("-" if v is None else f"{v:.2f} / {u:.2f}")
                lines.append(f"| {task} | {m} | " + " | ".join(cells) + " |")
            paper = [PAPER_POINTS.get((fig, task, float(e))) for e in epsilons]
            lines.append(f"| {task} | paper (text) | " + " | ".join(
                "" if p is None else f"{p:.2f}" for p in paper) + " |")
        lines.append("")
    return "\n".join(lines)


def _plot(table: pl.DataFrame, fig_name: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    acc = (table.filter((pl.col("metric") == "accuracy") & (pl.col("figure") == fig_name)
                        & (pl.col("classifier") == "svm") & pl.col("majority_vote"))
           .group_by(["method", "task", "epsilon"]).agg(pl.col("value").mean())
           .sort(["method", "task", "epsilon"]))
    if not acc.height:
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    for (m, task), part in acc.group_by(["method", "task"], maintain_order=True):
        ax.plot(part["epsilon"], part["value"], marker="o", label=f"{task} ({m})")
    for (f, _task, e), v in PAPER_POINTS.items():
        if f == fig_name:
            ax.scatter([e], [v], marker="x", color="black", zorder=5)
    ax.set_xlabel("epsilon per feature (eps_i)")
    ax.set_ylabel("SVM accuracy (majority vote)")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"MPIIDPEye, seed 004 {fig_name} (x: paper's stated points)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
