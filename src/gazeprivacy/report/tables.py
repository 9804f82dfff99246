# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""HTML tables of the report: the mechanism x metric pivot, the guarantee table and the long
results table (kept behind a click; ``results.parquet`` holds the same rows).

The pivot has one row per release (raw data first, then the data-free baselines, then the
mechanisms) and one column per (evaluation, metric) of *any* metric in the results, so metrics
that new evaluations add appear without a change here. A cell shows the mean over seeds and,
in small print, its spread: the standard deviation over seeds when there are two or more, else
the evaluation's own standard error (``<metric>_se``). Cells that beat the best data-free
baseline by 2 standard errors are green, cells that do not are red
(:func:`gazeprivacy.report.verdict.baseline_comparison`); the strongest attack of a release is
bold. A release its mechanism refused (:data:`gazeprivacy.report.verdict.REFUSED`) keeps its
row: the seeds it was refused on under its name and, refused on every seed, "refused" in every
cell (refused on some seeds only, a cell without a value lacks it for another reason: empty).
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy._text import reader_text
from gazeprivacy.guarantees import Guarantee
from gazeprivacy.report.summary import METRIC_UNITS, canonical_parameters
from gazeprivacy.report.verdict import (
    BASELINE_PREFIX,
    baseline_comparison,
    is_refused,
    refused_releases,
    strongest_attacks,
)
from gazeprivacy.report.words import evaluation_words

__all__ = ["fmt", "guarantee_table", "html_table", "pivot_tables", "results_table"]

_KEYS = ["dataset", "mechanism", "parameters"]
_COLS = ["kind", "evaluation", "metric"]
_KIND_ORDER = {"privacy": 0, "utility": 1, "fidelity": 2, "realism": 3}


def fmt(v: Any) -> str:
    """A table cell: 4 significant digits for floats, an en dash for None."""
    if v is None:
        return "&ndash;"
    if isinstance(v, float):
        return html.escape(str(v)) if not np.isfinite(v) else f"{v:.4g}"
    return html.escape(str(v))


def html_table(header: Sequence[str], rows: Sequence[Sequence[str]],
               classes: Sequence[str] | None = None) -> str:
    """A table of already-escaped cells; ``classes`` gives a CSS class per row."""
    out = ["<table><thead><tr>", *(f"<th>{html.escape(h)}</th>" for h in header),
           "</tr></thead><tbody>"]
    for i, r in enumerate(rows):
        cls = f' class="{classes[i]}"' if classes and classes[i] else ""
        out.append(f"<tr{cls}>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _release_order(key: tuple[str, str, str]) -> tuple[Any, ...]:
    ds, mech, params = key
    group = 0 if mech == "none" else 1 if mech.startswith(BASELINE_PREFIX) else 2
    return (ds, group, mech, json.loads(params).get("epsilon") or 0.0, params)


def _cell_stats(results: pl.DataFrame) -> dict[tuple[str, ...], tuple[float, float | None]]:
    """(dataset, mechanism, parameters, kind, evaluation, metric) -> (mean, spread)."""
    main = results.filter(~pl.col("metric").str.ends_with("_se"))
    stats = main.group_by(*_KEYS, *_COLS).agg(
        pl.col("value").mean().alias("mean"), pl.col("value").std().alias("std"),
        pl.len().alias("n"))
    se = (results.filter(pl.col("metric").str.ends_with("_se"))
          .with_columns(pl.col("metric").str.strip_suffix("_se"))
          .group_by(*_KEYS, *_COLS).agg(pl.col("value").mean().alias("se")))
    stats = stats.join(se, on=[*_KEYS, *_COLS], how="left")
    out = {}
    for r in stats.iter_rows(named=True):
        spread = r["std"] if r["n"] >= 2 else r["se"]
        out[tuple(r[k] for k in (*_KEYS, *_COLS))] = (r["mean"], spread)
    return out


def _marks(results: pl.DataFrame) -> dict[tuple[str, ...], str]:
    """CSS class per pivot cell: win / loss against the baselines, strongest attack."""
    marks = {}
    for r in baseline_comparison(results).iter_rows(named=True):
        key = tuple(r[k] for k in (*_KEYS, *_COLS))
        marks[key] = "win" if r["beats_baselines"] else "loss"
    for r in strongest_attacks(results).iter_rows(named=True):
        marks[(*(r[k] for k in _KEYS), "privacy", r["evaluation"], r["metric"])] = "strongest"
    return marks


_FOLDED = ("chance", "uniform_chance", "bound")


def _fold_constants(sel: pl.DataFrame, columns: Sequence[tuple[str, str, str]]
                    ) -> tuple[list[tuple[str, str, str]], dict[tuple[str, str], str]]:
    """Reference levels (:data:`_FOLDED`) that are the same for every release of the table
    move from a column to their evaluation's header."""
    kept, folded = [], {}
    for kind, ev, metric in columns:
        vals = sel.filter((pl.col("kind") == kind) & (pl.col("evaluation") == ev)
                          & (pl.col("metric") == metric))["value"].round(6).unique()
        if metric in _FOLDED and vals.len() == 1:
            text = f"{metric.replace('_', ' ')} {fmt(float(vals[0]))}"
            folded[(kind, ev)] = ", ".join(filter(None, [folded.get((kind, ev)), text]))
        else:
            kept.append((kind, ev, metric))
    return kept, folded


def _header(columns: Sequence[tuple[str, str, str]], folded: Mapping[tuple[str, str], str]
            ) -> str:
    evals: dict[tuple[str, str], int] = {}
    for kind, ev, _ in columns:
        evals[(kind, ev)] = evals.get((kind, ev), 0) + 1
    top = "".join(f"<th colspan='{n}'>{html.escape(evaluation_words(ev))}<br><span class='note'>"
                  f"{html.escape(kind)}" + (f"; {folded[(kind, ev)]}" if (kind, ev) in folded
                                           else "") + "</span></th>"
                  for (kind, ev), n in evals.items())
    sub = "".join(f"<th>{html.escape(m.replace('_', ' '))}"
                  + (f"<br><span class='note'>[{html.escape(METRIC_UNITS[m])}]</span>"
                     if m in METRIC_UNITS else "") + "</th>" for _, _, m in columns)
    return (f"<thead><tr><th rowspan='2'>release</th><th rowspan='2'>setting</th>{top}</tr>"
            f"<tr>{sub}</tr></thead>")


def _pivot_one(keys: Sequence[tuple[str, str, str]], columns: Sequence[tuple[str, str, str]],
               stats: Mapping[tuple[str, ...], tuple[float, float | None]],
               marks: Mapping[tuple[str, ...], str], header: str,
               refused: Mapping[tuple[str, ...], list[int]],
               released: set[tuple[str, ...]]) -> str:
    body = []
    for key in keys:
        cells = []
        for col in columns:
            mean, spread = stats.get((*key, *col), (None, None))
            cls = marks.get((*key, *col), "")
            text = fmt(mean) + (f"<span class='spread'> &plusmn;{fmt(spread)}</span>"
                                if spread is not None and mean is not None else "")
            if mean is None and key in refused and key not in released:
                text, cls = "refused", "flag"
            cells.append(f"<td class='{cls}'>{text}</td>" if cls else f"<td>{text}</td>")
        params = ", ".join(f"{k}={v}" for k, v in json.loads(key[2]).items())
        row_cls = " class='ref'" if key[1] == "none" or key[1].startswith(BASELINE_PREFIX) else ""
        note = ("" if key not in refused else "<br><span class='note'>refused on seed(s) "
                + ", ".join(map(str, refused[key])) + "</span>")
        body.append(f"<tr{row_cls}><th>{html.escape(key[1])}{note}</th>"
                    f"<th>{html.escape(params) or '&ndash;'}</th>{''.join(cells)}</tr>")
    return (f"<div class='scroll'><table class='pivot'>{header}<tbody>"
            + "".join(body) + "</tbody></table></div>")


def pivot_tables(results: pl.DataFrame) -> str:
    """One mechanism x metric table per dataset (see the module docstring)."""
    if results.height == 0:
        return "<p class='note'>No results.</p>"
    results = results.with_columns(pl.col("parameters").map_elements(
        canonical_parameters, return_dtype=pl.String))
    refused = {(r["dataset"], r["mechanism"], r["parameters"]): r["seeds"]
               for r in refused_releases(results).iter_rows(named=True)}
    every = results
    results = results.filter(~is_refused())
    stats, marks = _cell_stats(results), _marks(results)
    released = {tuple(r) for r in results.select(_KEYS).unique().rows()}  # on some seed
    out = []
    for ds in every["dataset"].unique(maintain_order=True).to_list():
        keys = sorted({tuple(r) for r in every.filter(pl.col("dataset") == ds)
                       .select(_KEYS).rows()}, key=_release_order)
        sel = results.filter((pl.col("dataset") == ds) & ~pl.col("metric").str.ends_with("_se"))
        columns = sorted({tuple(r) for r in sel.select(_COLS).unique(maintain_order=True).rows()},
                         key=lambda c: (_KIND_ORDER.get(c[0], 3), c[0], c[1], c[2]))
        columns, folded = _fold_constants(sel, columns)
        out.append(f"<h3>{html.escape(ds)}</h3>" + "".join(
            _pivot_one(keys, part, stats, marks, _header(part, folded), refused, released)
            for part in _chunks(columns)))
    return "".join(out)


#: at most this many metric columns per table, so that a table fits a 1280 px screen
MAX_COLUMNS = 7


def _chunks(columns: Sequence[tuple[str, str, str]]) -> list[list[tuple[str, str, str]]]:
    """The columns in tables of at most :data:`MAX_COLUMNS`, one kind per table, an
    evaluation's columns kept together where they fit."""
    groups: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
    for col in columns:
        groups.setdefault(col[:2], []).append(col)
    out: list[list[tuple[str, str, str]]] = []
    for (kind, _), cols in groups.items():
        for i in range(0, len(cols), MAX_COLUMNS):
            part = cols[i:i + MAX_COLUMNS]
            last = out[-1] if out else None
            if last and last[0][0] == kind and len(last) + len(part) <= MAX_COLUMNS:
                last.extend(part)
            else:
                out.append(list(part))
    return out


def results_table(results: pl.DataFrame) -> str:
    """The long table (mean, std and seeds per row), inside a collapsed ``<details>``."""
    if results.height == 0:
        return ""
    agg = (results.group_by("dataset", "mechanism", "mode", "parameters", "kind", "evaluation",
                            "metric", maintain_order=True)
           .agg(pl.col("value").mean().alias("mean"), pl.col("value").std().alias("std"),
                pl.len().alias("n")))
    rows = [[fmt(r["dataset"]), fmt(r["mechanism"]), fmt(r["mode"]),
             f"<code>{html.escape(r['parameters'])}</code>", fmt(r["kind"]),
             fmt(evaluation_words(r["evaluation"])), fmt(r["metric"]), fmt(r["mean"]),
             fmt(r["std"]),
             str(r["n"])] for r in agg.iter_rows(named=True)]
    return (f"<details><summary>All {agg.height} result rows (mean and std over seeds; the "
            "same numbers per seed are in <code>results.parquet</code>)</summary>"
            + html_table(["dataset", "mechanism", "mode", "parameters", "kind", "evaluation",
                          "metric", "mean", "std", "seeds"], rows) + "</details>")


def _per_participant_cell(g: Mapping[str, Any]) -> tuple[str, str]:
    """(units per participant, epsilon per participant) cells of a record dict."""
    pp = g.get("per_participant") or {}
    eps_pp = [b.get("epsilon") for b in pp.values() if b.get("epsilon") is not None]
    units = [b.get("units") for b in pp.values()]
    if eps_pp:
        lo, hi = min(eps_pp), max(eps_pp)
        per_part = fmt(hi) if lo == hi else f"{fmt(lo)} &ndash; {fmt(hi)}"
    else:
        rule = next(iter(pp.values()), {}).get("rule") if pp else None
        per_part = html.escape(rule) if rule else "&ndash;"
    units_txt = (f"{min(units)}&ndash;{max(units)}" if units and min(units) != max(units)
                 else (str(units[0]) if units else "&ndash;"))
    return units_txt, per_part


def _status_cell(private: bool, vacuous: bool) -> str:
    if not private:
        return '<span class="flag">NOT FORMALLY PRIVATE</span>'
    if vacuous:
        return ('<span class="warn">per unit only: the per-participant bound is '
                '<b>vacuous</b></span>')
    return '<span class="ok">yes</span>'


def guarantee_table(records: Sequence[Mapping[str, Any]]) -> str:
    """One row per release record (dataset, mechanism, parameters); rows that are not
    formally private are red and list the breaking flags."""
    if not records:
        return '<p class="note">No protected release in this run (raw data only).</p>'
    seen: dict[tuple[str, str, str], Mapping[str, Any]] = {}
    for rec in records:
        seen.setdefault((rec["dataset"], rec["mechanism"],
                         canonical_parameters(rec["parameters"])), rec)
    rows, classes = [], []
    for (dataset, mech, params), rec in seen.items():
        g = rec["guarantee"]
        units_txt, per_part = _per_participant_cell(g)
        flags = "".join(f'<div class="flag">{html.escape(f["code"])}: '
                        f'{html.escape(reader_text(f["message"]))}</div>'
                        for f in g.get("flags", []) if f.get("breaks_guarantee"))
        flags += "".join(f'<div class="note">{html.escape(f["code"])}</div>'
                         for f in g.get("flags", []) if not f.get("breaks_guarantee"))
        private = g.get("formally_private", False)
        status = _status_cell(private, Guarantee.from_dict(g).participant_bound_vacuous)
        rows.append([fmt(dataset), fmt(mech), f"<code>{html.escape(params)}</code>",
                     fmt(g.get("mode")), fmt(g.get("kind")), fmt(g.get("unit")),
                     fmt(g.get("epsilon")), fmt(g.get("delta")), fmt(g.get("k")), units_txt,
                     per_part, status, flags or "&ndash;"])
        classes.append("" if private else "notprivate")
    return html_table(["dataset", "mechanism", "parameters", "mode", "kind", "unit",
                       "epsilon per unit", "delta", "k", "units per participant",
                       "epsilon per participant", "formally private per unit", "flags"],
                      rows, classes)
