# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Pieces the reproductions share: running per-dataset configs as one run, the one output format
(``results.parquet`` in the runner's long schema + ``report.html``), markdown tables."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl

from gazeprivacy.data.recording import Dataset
from gazeprivacy.experiments.config import parse_config
from gazeprivacy.experiments.engine import RESULT_SCHEMA, run_experiment
from gazeprivacy.experiments.featurize import ivt_event_features_of
from gazeprivacy.report.html import build_report

__all__ = ["conform", "embed_png", "html_table", "markdown_html", "markdown_table", "run_roles",
           "strongest_attacks", "with_chance_rows", "write_outputs"]


def run_roles(configs: Mapping[str, dict[str, Any]], datasets: Mapping[str, Dataset],
              out: Path, *, name: str, progress: bool) -> pl.DataFrame:
    """Run ``configs[role]`` on ``datasets[role]`` for every role, sharing ``out`` (its cell
    cache), then write the merged ``results.parquet``, ``guarantees.json``, ``refusals.json``
    (the releases any role's mechanism refused), ``run.json`` and ``data_summary.json`` of all
    roles; return the merged results.

    The event features are the papers' I-VT ones, passed explicitly
    (:func:`~gazeprivacy.experiments.featurize.ivt_event_features_of`), so the reproductions do not
    follow a change of the runner's default featurizer."""
    parts, guarantees, refusals, cells, notes, summaries = [], [], [], [], [], {}
    for role, raw in configs.items():
        ds = datasets[role]
        res = run_experiment(parse_config(raw), out, datasets={ds.name: ds}, progress=progress,
                             featurizer=ivt_event_features_of)
        res.raise_failures()
        parts.append(res.results)
        guarantees += res.guarantees
        refusals += res.refusals  # each role's run rewrites refusals.json with its own
        notes += res.notes
        cells += json.loads((out / "run.json").read_text())["cells"]
        summaries.update(json.loads((out / "data_summary.json").read_text()))
    results = pl.concat(parts, how="vertical")
    results.write_parquet(out / "results.parquet")
    (out / "guarantees.json").write_text(json.dumps(guarantees, indent=2, default=str))
    (out / "refusals.json").write_text(json.dumps(refusals, indent=2, default=str))
    (out / "run.json").write_text(json.dumps({"name": name, "cells": cells, "notes": notes},
                                             indent=2))
    (out / "data_summary.json").write_text(json.dumps(summaries, indent=2))
    return results


def markdown_table(title: str, note: str, header: list[str], rows: list[list[str]]) -> str:
    """A ``### title`` section: the note, then a markdown table."""
    lines = [f"### {title}", "", note, "", "| " + " | ".join(header) + " |",
             "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def conform(table: pl.DataFrame) -> pl.DataFrame:
    """``table`` in the runner's long results schema
    (:data:`~gazeprivacy.experiments.engine.RESULT_SCHEMA`: ``dataset, mechanism, mode,
    parameters, epsilon, seed, kind, evaluation, metric, value, beats_baselines``) first, in that
    order and with those dtypes (absent columns are null), then the table's other columns (a
    paper's own keys, e.g. ``task``, ``classifier``) unchanged."""
    cols = []
    for name, dtype in RESULT_SCHEMA.items():
        cols.append(pl.col(name).cast(dtype) if name in table.columns
                    else pl.lit(None, dtype=dtype).alias(name))
    extra = [c for c in table.columns if c not in RESULT_SCHEMA]
    return table.select(*cols, *extra)


def write_outputs(out: Path, results: pl.DataFrame, *, name: str, title: str,
                  paper_comparison: str, guarantees: list[dict[str, Any]] | None = None,
                  notes: list[str] | None = None) -> Path:
    """Write every reproduction's common outputs into ``out``: ``results.parquet`` (see
    :func:`conform`), ``guarantees.json`` (runner layout: ``dataset, mechanism, parameters,
    guarantee`` per release), ``run.json`` and ``report.html`` (the project's report with the
    paper comparison ``paper_comparison``, an HTML fragment); return the report's path."""
    conform(results).write_parquet(out / "results.parquet")
    if guarantees is not None:
        (out / "guarantees.json").write_text(json.dumps(guarantees, indent=1, default=str))
    if notes is not None or not (out / "run.json").is_file():
        (out / "run.json").write_text(json.dumps({"name": name, "cells": [],
                                                  "notes": notes or []}, indent=2))
    return build_report(out, title=title, paper_comparison=paper_comparison)


def html_table(title: str, note: str, header: list[str], rows: list[list[str]]) -> str:
    """The HTML version of :func:`markdown_table` (for the report's paper comparison)."""
    import html

    e = html.escape
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in rows)
    return (f"<h3>{e(title)}</h3><p class='note'>{e(note)}</p><table><tr>"
            + "".join(f"<th>{e(h)}</th>" for h in header) + f"</tr>{body}</table>")


def markdown_html(text: str) -> str:
    """A reproduction's markdown tables (``### title``, notes, ``| a | b |`` rows) as HTML, for
    the report's paper comparison; other lines become paragraphs."""
    import html

    parts: list[str] = []
    rows: list[list[str]] = []

    def flush() -> None:
        if rows:
            head, *body = rows
            parts.append("<table><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in head)
                         + "</tr>" + "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>"
                                                              for c in r) + "</tr>"
                                             for r in body) + "</table>")
            rows.clear()

    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(set(c) <= set("-: ") for c in cells):
                rows.append(cells)
            continue
        flush()
        if line.startswith("#"):
            parts.append(f"<h3>{html.escape(line.lstrip('#').strip())}</h3>")
        elif line.strip():
            parts.append(f"<p class='note'>{html.escape(line)}</p>")
    flush()
    return "".join(parts)


def embed_png(path: Path, caption: str) -> str:
    """A figure as an embedded ``<figure>`` (the report is one self-contained file)."""
    import base64
    import html

    if not path.is_file():
        return ""
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (f'<figure><img src="data:image/png;base64,{data}" alt="{html.escape(caption)}" '
            f'width="700"><figcaption>{html.escape(caption)}</figcaption></figure>')


def strongest_attacks(*, quick: bool, n_splits: int) -> list[dict[str, Any]]:
    """Besides the paper's own attack (issue 15): the mechanism-aware random forest trained on
    the release, and the deep (EKYT-style) attacker raw-trained and aware; a small deep budget
    in quick runs."""
    deep = ({"n_splits": 1, "epochs": 5, "max_windows": 192} if quick
            else {"n_splits": 2, "epochs": 30})
    return [{"kind": "aware-rf", "n_splits": n_splits},
            {"kind": "deep", "threat": "seed000", **deep},
            {"kind": "deep", "threat": "seed004", **deep}]


def with_chance_rows(table: pl.DataFrame, *, n_participants: int) -> pl.DataFrame:
    """``table`` plus a ``chance`` row (1 / classes) beside each ``accuracy`` row of the
    document, gender and person classifications of the MPIIDPEye reproductions."""
    acc = table.filter(pl.col("metric") == "accuracy")
    n_classes = {"document": 3, "gender": 2, "person": n_participants}
    chance = acc.with_columns(pl.lit("chance").alias("metric"),
                              pl.col("task").replace_strict(n_classes, default=None)
                              .cast(pl.Float64).pow(-1).alias("value"))
    return pl.concat([table, chance], how="diagonal_relaxed")
