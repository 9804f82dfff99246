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
points, which ``PAPER_POINTS`` holds and the table shows beside ours.

**Balanced classes** (section 6.1: "We randomly sampled training and test sets with an equal
distribution of samples for each of the respective classes, i.e. for the three document
classes, two gender classes and 20 classes for user identification"): with ``balanced=True``
(default) each task's windows are subsampled at random so that every class of its label
(document, gender, participant) has as many windows as the smallest; clean and released series
keep the same windows. Leave-one-person-out then leaves the training side slightly imbalanced,
as the paper notes for gender (its chance level of 54 %).

Outputs in ``out_dir`` (the format of every reproduction): ``results.parquet`` in the runner's
long schema (``mechanism`` = "steil-paper" / "steil-sound" / "none", ``seed`` = repetition,
``kind`` privacy (gender, person) / utility (document) / guarantee, ``evaluation`` =
``figure:task:classifier:vote|window``, plus the paper's keys ``method, figure,
threat_model, task, classifier, majority_vote, repetition, balanced``), ``report.html``,
``guarantees.json``, and the paper-specific ``seed004_tables.md``, ``seed004_fig6.png``,
``seed004_fig7.png``, ``seed004_fig8.png``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from gazeprivacy.attacks.feature_protocols import first_half_second_half, leave_one_person_out
from gazeprivacy.exceptions import NotFormallyPrivateWarning
from gazeprivacy.experiments.reproduce._runs import (
    conform,
    embed_png,
    markdown_html,
    with_chance_rows,
    write_outputs,
)
from gazeprivacy.experiments.reproduce.seed002 import load_series
from gazeprivacy.features.ranges import default_ranges
from gazeprivacy.features.window_features import FeatureSeries, WindowFeatureParams
from gazeprivacy.mechanisms.series.steil_exponential import (
    SteilParams,
    steil_exponential,
    subsample,
)

__all__ = ["EPSILONS", "PAPER_POINTS", "balance_classes", "reproduce_seed004"]

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


def balance_classes(sides: Sequence[Sequence[FeatureSeries]], label: str,
                    rng: np.random.Generator) -> list[list[FeatureSeries]]:
    """Each aligned list of ``sides`` (the same recordings, e.g. clean and released) with windows
    kept at random so every class of ``label`` ("participant" or a series label) has as many
    windows as the smallest class; every side keeps the same windows (module docstring).

    >>> mk = lambda r, p, d, n: FeatureSeries(recording=r, participant=p,
    ...     t_start=np.arange(n, dtype=float), values=np.zeros((n, 1)), labels={"document": d},
    ...     feature_names=("f",))
    >>> out, = balance_classes([[mk("a", "p", "x", 10), mk("b", "q", "y", 4)]], "document",
    ...                        np.random.default_rng(0))
    >>> [s.n_windows for s in out]
    [4, 4]
    """
    base = sides[0]
    n = [min(side[i].n_windows for side in sides) for i in range(len(base))]
    cls = [s.participant if label == "participant" else s.labels[label] for s in base]
    pools: dict[str, list[tuple[int, int]]] = {}
    for i, (c, k) in enumerate(zip(cls, n, strict=True)):
        pools.setdefault(c, []).extend((i, j) for j in range(k))
    target = min(len(v) for v in pools.values())
    keep: list[list[int]] = [[] for _ in base]
    for c in sorted(pools):
        pool = pools[c]
        for t in rng.choice(len(pool), size=target, replace=False):
            i, j = pool[int(t)]
            keep[i].append(j)
    idx = [np.sort(np.asarray(k, dtype=np.int64)) for k in keep]
    return [[s.with_values(s.values[ix], t_start=s.t_start[ix]) for s, ix in
             zip(side, idx, strict=True)] for side in sides]


def _accuracy_rows(tab: pl.DataFrame, fig: str, mode: str, eps: float | None, rep: int,
                   threat: str, balanced: bool) -> list[dict]:
    """Result rows (with and without majority vote) of one classifier-protocol table."""
    return [{"dataset": "MPIIDPEye", "method": f"steil-{mode}", "figure": fig,
             "threat_model": threat, "epsilon": eps, "repetition": rep, "balanced": balanced,
             "task": row["task"], "classifier": row["classifier"],
             "majority_vote": vote, "metric": "accuracy",
             "value": row["accuracy_vote" if vote else "accuracy"]}
            for row in tab.iter_rows(named=True) for vote in (False, True)]


class _Protocols:
    """The paper's three classifier protocols on (train, test) sides, balanced or not."""

    def __init__(self, *, classifiers: Sequence[str], subsample: int, balanced: bool) -> None:
        self.kw = {"classifiers": classifiers, "subsample": subsample}
        self.balanced = balanced

    def _sides(self, train: Sequence[FeatureSeries], test: Sequence[FeatureSeries], label: str,
               rng: np.random.Generator) -> tuple[Sequence[FeatureSeries],
                                                  Sequence[FeatureSeries]]:
        if not self.balanced:
            return train, test
        if train is test:
            (bal,) = balance_classes([train], label, rng)
            return bal, bal
        tr, te = balance_classes([train, test], label, rng)
        return tr, te

    def lopo(self, train: Sequence[FeatureSeries], test: Sequence[FeatureSeries], *,
             label: str, rng: np.random.Generator) -> pl.DataFrame:
        r_bal, r_clf = rng.spawn(2)
        tr, te = self._sides(train, test, label, r_bal)
        return leave_one_person_out(tr, te, label=label, rng=r_clf, **self.kw)

    def halves(self, train: Sequence[FeatureSeries], test: Sequence[FeatureSeries], *,
               rng: np.random.Generator) -> pl.DataFrame:
        r_bal, r_clf = rng.spawn(2)
        tr, te = self._sides(train, test, "participant", r_bal)
        return first_half_second_half(tr, te, rng=r_clf, **self.kw)


def _clean_rows(clean: Sequence[FeatureSeries], r: Sequence[np.random.Generator], rep: int, *,
                proto: _Protocols) -> list[dict]:
    """The clean-train / clean-test reference: gender, document and person, with streams
    ``r[0]``, ``r[1]``, ``r[2]``."""
    rows: list[dict] = []
    for task, rr in (("gender", r[0]), ("document", r[1])):
        rows += _accuracy_rows(proto.lopo(clean, clean, label=task, rng=rr), "clean", "none",
                               None, rep, "clean-train/clean-test", proto.balanced)
    rows += _accuracy_rows(proto.halves(clean, clean, rng=r[2]), "clean", "none", None, rep,
                           "clean-train/clean-test", proto.balanced)
    return rows


def _noisy_rows(clean: Sequence[FeatureSeries], noisy: Sequence[FeatureSeries], mode: str,
                eps: float, rep: int, rs: Sequence[np.random.Generator],
                proto: _Protocols) -> list[dict]:
    """Figs 6-8 rows of one release (streams ``rs``: 5)."""
    b = proto.balanced
    doc7 = proto.lopo(clean, noisy, label="document", rng=rs[3])
    nn, cn = "noisy-train/noisy-test", "clean-train/noisy-test"
    return [*_accuracy_rows(proto.lopo(noisy, noisy, label="gender", rng=rs[0]), "fig6", mode,
                            eps, rep, nn, b),
            *_accuracy_rows(proto.lopo(noisy, noisy, label="document", rng=rs[1]), "fig6", mode,
                            eps, rep, nn, b),
            *_accuracy_rows(proto.lopo(clean, noisy, label="gender", rng=rs[2]), "fig7", mode,
                            eps, rep, cn, b),
            *_accuracy_rows(doc7, "fig7", mode, eps, rep, cn, b),
            *_accuracy_rows(doc7, "fig8", mode, eps, rep, cn, b),
            *_accuracy_rows(proto.halves(clean, noisy, rng=rs[4]), "fig8", mode, eps, rep, cn,
                            b)]


def reproduce_seed004(out_dir: str | Path, *, data_dir: str | Path, rng: np.random.Generator,
                      epsilons: Sequence[float] = EPSILONS, repetitions: int = 1,
                      modes: Sequence[str] = ("paper", "sound"), protocol_subsample: int = 1,
                      classifiers: Sequence[str] = ("svm",), balanced: bool = True,
                      participants: Sequence[int] | None = None) -> pl.DataFrame:
    """Run seed 004's MPIIDPEye experiments; write results, tables, plots and report.

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
    balanced : bool
        Equal windows per class in every task, as the paper sampled them (module docstring).
    participants : sequence of int, optional
        A subset of MPIIDPEye's participants 1-20 (small runs; not cached).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    series = load_series(data_dir, cache_dir=out, participants=participants)
    ranges = default_ranges(WindowFeatureParams.mpiidpeye())
    rows: list[dict] = []
    guarantees: list[dict] = []
    w = 10
    proto = _Protocols(classifiers=classifiers, subsample=protocol_subsample, balanced=balanced)
    for rep in range(repetitions):
        clean = _clean_subsampled(series, w, rng.spawn(1)[0])
        rows.extend(_clean_rows(clean, rng.spawn(3), rep, proto=proto))
        for mode in modes:
            for eps in epsilons:
                r_rel, *rs = rng.spawn(6)
                params = (SteilParams.paper(epsilon=eps, mode="paper") if mode == "paper"
                          else SteilParams(epsilon=eps, subsample_w=w, ranges=ranges))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", NotFormallyPrivateWarning)
                    rel = steil_exponential(series, params, rng=r_rel)
                guarantees.append({"dataset": "MPIIDPEye", "mechanism": f"steil-{mode}",
                                   "parameters": {"epsilon": eps}, "seed": rep,
                                   "guarantee": rel.guarantee.to_dict()})
                rows.extend(_noisy_rows(clean, rel.output, mode, eps, rep, rs, proto))
                rows.append({"dataset": "MPIIDPEye", "method": f"steil-{mode}", "figure": "-",
                             "threat_model": "-", "epsilon": eps, "repetition": rep,
                             "balanced": balanced, "task": "guarantee", "classifier": None,
                             "majority_vote": None, "metric": "per_participant_epsilon",
                             "value": rel.guarantee.max_participant_epsilon})
    table = long_results(pl.DataFrame(rows, infer_schema_length=None),
                         n_participants=len({s.participant for s in series}))
    md = tables_markdown(table, epsilons=epsilons)
    (out / "seed004_tables.md").write_text(md)
    figs = ""
    for fig in ("fig6", "fig7", "fig8"):
        _plot(table, fig, out / f"seed004_{fig}.png")
        figs += embed_png(out / f"seed004_{fig}.png", f"seed 004 {fig}: SVM accuracy vs eps_i")
    fragment = (f"<p class='note'>Steil et al. (ETRA 2019) on MPIIDPEye; classes "
                f"{'balanced as in the paper' if balanced else 'not balanced'}.</p>"
                + markdown_html(md) + figs)
    write_outputs(out, table, name="steil-2019", guarantees=guarantees,
                  title="gazeprivacy: Steil et al. 2019 (seed 004) reproduced",
                  paper_comparison=fragment)
    return table


def long_results(table: pl.DataFrame, *, n_participants: int) -> pl.DataFrame:
    """Seed 004's rows in the common long schema (module docstring), with ``chance`` rows
    (1 / classes; balanced classes make it the uniform rate)."""
    both = with_chance_rows(table, n_participants=n_participants)
    vote = pl.when(pl.col("majority_vote")).then(pl.lit("vote")).otherwise(pl.lit("window"))
    return conform(both.with_columns(
        pl.when(pl.col("method") == "steil-none").then(pl.lit("none"))
        .otherwise(pl.col("method")).alias("mechanism"),
        pl.col("method").str.strip_prefix("steil-").alias("mode"),
        pl.struct(epsilon_i=pl.col("epsilon"), balanced=pl.col("balanced"))
        .struct.json_encode().alias("parameters"),
        pl.col("repetition").alias("seed"),
        pl.when(pl.col("task").is_in(["gender", "person"])).then(pl.lit("privacy"))
        .when(pl.col("task") == "guarantee").then(pl.lit("guarantee"))
        .otherwise(pl.lit("utility")).alias("kind"),
        pl.when(pl.col("classifier").is_null()).then(pl.col("task"))
        .otherwise(pl.concat_str(pl.col("figure"), pl.col("task"), pl.col("classifier"), vote,
                                 separator=":")).alias("evaluation")))


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
