# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The self-contained HTML report of a run: one file, images embedded, no server needed.

:func:`build_report` reads what the runner wrote (``results.parquet``, ``guarantees.json``,
``cells/*.json`` and ``cells/*.npz``), writes the figures as PNG into ``OUT/figures/`` and
``OUT/report.html`` with the same figures embedded as base64 data URIs.

It is written for two readers. It opens with the verdict (:mod:`gazeprivacy.report.overall`:
per dataset the most private release that is bounded per participant and better than every
data-free baseline, or none). The first screen (:mod:`gazeprivacy.report.summary`) then says per
mechanism, in plain words, what was released, the guarantee as odds, the per-participant bound
("vacuous" when it is), what is NOT protected, the strongest attack against chance and the
utility in eye-tracking terms against the best data-free baseline
(:mod:`gazeprivacy.report.words`). Then: the mechanism x metric tables
(:mod:`gazeprivacy.report.tables`; every metric of the run), privacy-utility curves with
chance, raw and baseline lines above the data, gaze paths and density maps with captions for
clamping and suppression, the data, an optional "Paper comparison" section (a reproduction's
tables beside the paper's numbers), the guarantee table, and the long results table behind a
click.
"""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy._text import reader_text
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.report.overall import verdict_section
from gazeprivacy.report.plots import (
    AXIS_LABELS,
    CURVE_METRICS,
    density_maps,
    path_overlay,
    preview_notes,
    privacy_utility_curve,
)
from gazeprivacy.report.summary import canonical_parameters, first_screen
from gazeprivacy.report.tables import fmt, guarantee_table, html_table, pivot_tables, results_table
from gazeprivacy.report.verdict import is_refused, release_verdicts
from gazeprivacy.report.words import evaluation_words

__all__ = ["build_report"]

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:1.5em auto;max-width:1180px;
color:#222;line-height:1.4;padding:0 1em}
h1{font-size:1.5em;margin-bottom:.2em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;
margin-top:1.6em}h3{margin:.2em 0 .3em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top;
overflow-wrap:anywhere}
img{max-width:100%;height:auto}ul.verdict li{margin:.3em 0}
th{background:#f2f2f2}tr.notprivate td{background:#fde8e8}
.flag{color:#b00020;font-weight:600}.ok{color:#1b5e20}.warn{color:#8a4b00;font-weight:600}
.figs{display:flex;flex-wrap:wrap;gap:.8em}.figs figure{margin:0;max-width:570px}
figcaption{font-size:.8em;color:#555}.note{color:#555;font-size:.9em}
figcaption .warn{font-weight:500}
.lead{max-width:75em}ul.reference{margin:.3em 0 .8em}
section.mech{border:1px solid #ddd;border-left:5px solid #3b5b92;border-radius:4px;
padding:.5em .9em;margin:.8em 0;background:#fafbfd}
section.mech p{margin:.3em 0}table.first{width:100%;background:#fff}
table.first{table-layout:fixed}
details.explain{margin:.3em 0}details.explain h4{font-size:1.05em;margin:.8em 0 .2em}
details.explain h5{font-size:.95em;margin:.6em 0 .2em}
.scroll{overflow-x:auto}table.pivot td{text-align:right;white-space:nowrap}
table.pivot tbody th{text-align:left;font-weight:normal;max-width:16em}
table.pivot td{overflow-wrap:normal}table.pivot thead th{min-width:5em}
table.pivot tbody th:first-child{font-weight:600}
table.pivot tr.ref td,table.pivot tr.ref th{color:#555;font-style:italic}
td.win{background:#e6f4ea}td.loss{background:#fde8e8}
td.strongest{font-weight:700}.spread{color:#777;font-size:.85em}
"""


def _img(path: Path, caption: str, notes: list[str] | None = None) -> str:
    """A figure with its PNG embedded, at its own size up to 570 px wide (two per row)."""
    raw = path.read_bytes()
    width = min(int.from_bytes(raw[16:20], "big"), 570)  # the PNG header's IHDR width
    data = base64.b64encode(raw).decode("ascii")
    extra = "".join(f"<br><span class='warn'>{html.escape(n)}.</span>" for n in notes or [])
    return (f'<figure><img src="data:image/png;base64,{data}" alt="{html.escape(caption)}" '
            f'width="{width}"><figcaption>{html.escape(caption)}{extra}</figcaption></figure>')


def _read_run(out: Path) -> tuple[pl.DataFrame, list[dict[str, Any]], dict[str, Any]]:
    if not (out / "results.parquet").is_file():
        raise InvalidDataError(f"{str(out)!r} has no results.parquet; run "
                               "`gazeprivacy evaluate CONFIG --out DIR` first")
    results = pl.read_parquet(out / "results.parquet")
    guarantees = json.loads((out / "guarantees.json").read_text()) \
        if (out / "guarantees.json").is_file() else []
    run = json.loads((out / "run.json").read_text()) if (out / "run.json").is_file() else {}
    return results, guarantees, run


_PIVOT_NOTE = (
    "<p class='note'>Mean over seeds; in small print the standard deviation over seeds, or "
    "with one seed the evaluation's own standard error. <span class='ok'>Green</span>: better "
    "than the best data-free baseline by more than 2 standard errors; "
    "<span class='flag'>red</span>: not. Bold: the release's strongest attack (rate / chance). "
    "Grey rows are references: <code>none</code> is the raw data, <code>baseline-*</code> "
    "releases use no participant data (screen centre, uniform points, the simulator prior). "
    "Chance: 1 / participants for re-identification, the majority share for classification "
    "accuracy, 1 / classes for macro F1; gaze prediction is drawn against the "
    "constant-position baseline and the linkage attack against the 1 / k bound. Pairwise "
    "fidelity metrics skip suppressed samples: read them beside "
    "<code>suppressed fraction</code>.</p>")


def build_report(out_dir: str | Path, *, title: str | None = None,
                 paper_comparison: str | None = None) -> Path:
    """Write ``OUT/report.html`` (self-contained) and ``OUT/figures/*.png`` from a run's files.

    Parameters
    ----------
    out_dir : path
        A folder written by :func:`gazeprivacy.experiments.engine.run_experiment`.
    title : str, optional
        Report title (default: the run's name).
    paper_comparison : str, optional
        An HTML fragment (tables, embedded figures) shown as a "Paper comparison" section after
        the data summary; ``gazeprivacy reproduce`` puts the paper's printed numbers there.

    Returns
    -------
    Path
        The HTML file.

    Raises
    ------
    InvalidDataError
        ``out_dir`` holds no ``results.parquet``.
    """
    out = Path(out_dir)
    results, guarantees, run = _read_run(out)
    figs = out / "figures"
    figs.mkdir(exist_ok=True)
    title = title or f"gazeprivacy report: {run.get('name', out.name)}"
    every, results = results, results.filter(~is_refused())  # refused: their own section
    curve_html = _curve_figures(results, figs)
    previews = _load_previews(out, run.get("cells", []))
    overlay_html, density_html = _preview_figures(previews, figs)
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        verdict_section(release_verdicts(results, guarantees)),
        first_screen(results, guarantees, notes=_first_screen_notes(previews)),
        _refusals_section(out), _failures_section(out),
        "<h2>Results: mechanism x metric</h2>", _PIVOT_NOTE, pivot_tables(every),
        "<h2>Privacy-utility curves</h2>",
        "<div class='figs'>" + ("".join(curve_html) or
                                "<p class='note'>No protected cell with an epsilon.</p>")
        + "</div>",
        "<h2>Gaze paths: original vs protected</h2>",
        "<div class='figs'>" + "".join(overlay_html) + "</div>",
        "<h2>Density maps</h2>",
        "<div class='figs'>" + "".join(density_html) + "</div>",
        _data_table(out),
        *(["<h2>Paper comparison</h2>", paper_comparison] if paper_comparison else []),
        "<h2>Guarantees</h2>",
        "<p class='note'>Per unit as the mechanism states it; per participant under basic "
        "sequential composition over the participant's units. Rows in red are not formally "
        "private (a flag breaks the headline guarantee); \"per unit only\" marks a "
        "per-participant bound that promises nothing.</p>",
        guarantee_table(guarantees), results_table(results),
    ]
    if notes := run.get("notes", []):
        parts += ["<h2>Notes</h2><ul>", *(f"<li>{html.escape(reader_text(n))}</li>"
                                          for n in notes), "</ul>"]
    parts.append("</body></html>")
    target = out / "report.html"
    target.write_text("\n".join(parts), encoding="utf-8")
    return target


def _failures_section(out: Path) -> str:
    """The cells that failed (``failures.json``; empty when none): left out of every table."""
    return _cells_section(
        out / "failures.json", "error", "<h2 class='warn'>Failed cells</h2><p class='note'>These "
        "cells raised an error (a fault of the mechanism or of an evaluation, not of the data, "
        "which passed its checks when loaded). They are missing from every table and figure "
        "below; the tracebacks are in <code>cells/&lt;key&gt;.failed.json</code>, and rerunning "
        "the same command computes them again.</p>")


def _refusals_section(out: Path) -> str:
    """The releases their mechanism refused (``refusals.json``; empty when none): dataset,
    mechanism, parameters, seed and the mechanism's one-line reason."""
    return _cells_section(
        out / "refusals.json", "reason", "<h2>Refused releases</h2><p class='note'>The mechanism "
        "refused to release these inputs by a documented rule about the data (e.g. implausible "
        "detected events, fewer participants than k); the run went on without them, and the "
        "tables show \"refused\" where they have no value.</p>")


def _cells_section(path: Path, why: str, heading: str) -> str:
    """``heading`` and a table of the cells listed in ``path`` (a run's JSON list of dataset,
    mechanism, parameters, seed and ``why``); empty when the file is missing or empty."""
    cells = json.loads(path.read_text()) if path.is_file() else []
    if not cells:
        return ""
    rows = [[fmt(c["dataset"]), fmt(c["mechanism"]),
             f"<code>{html.escape(json.dumps(c['parameters'], sort_keys=True))}</code>",
             str(c["seed"]), html.escape(c[why])] for c in cells]
    return heading + html_table(["dataset", "mechanism", "parameters", "seed", why], rows)


def _curve_figures(results: pl.DataFrame, figs: Path) -> list[str]:
    """One privacy-utility curve per (dataset, evaluation, curve metric); fidelity last."""
    curve_html = []
    combos = (results.filter(pl.col("kind") != "fidelity")
              .select("dataset", "kind", "evaluation").unique(maintain_order=True).rows())
    combos += (results.filter(pl.col("kind") == "fidelity")
               .select("dataset", "kind", "evaluation").unique(maintain_order=True).rows())
    for dataset, kind, evaluation in combos:
        for k, metric in CURVE_METRICS:
            if k != kind:
                continue
            name = f"curve_{dataset}_{evaluation}_{metric}".replace(":", "-").replace("/", "-")
            p = privacy_utility_curve(results, dataset=dataset, kind=kind, evaluation=evaluation,
                                      metric=metric, path=figs / f"{name}.png")
            if p is not None:
                what = AXIS_LABELS.get(metric, metric.replace("_", " "))
                curve_html.append(_img(p, f"{dataset} - {evaluation_words(evaluation)}: "
                                          f"{what} vs epsilon",
                                       _curve_notes(metric)))
    return curve_html


def _curve_notes(metric: str) -> list[str]:
    if metric in ("rmse", "rss_distance", "density_error"):
        return ["Lower is better; a mechanism is useful only where it lies below the best "
                "data-free (olive) line"]
    return []


def _load_previews(out: Path, cell_keys: list[str]) -> list[tuple[dict[str, Any], dict]]:
    """(cell, preview arrays) of the first seed's cells, the raw data once per dataset."""
    metas = [json.loads(p.read_text()) for key in cell_keys
             if (p := out / "cells" / f"{key}.json").is_file()]
    first_seed = min((m["cell"]["seed"] for m in metas), default=None)
    raw_shown: set[str] = set()
    previews = []
    for m in metas:
        c, npz = m["cell"], out / "cells" / f"{m['key']}.npz"
        if c["seed"] != first_seed or not npz.is_file():
            continue
        if c["mechanism"] == "none":
            if c["dataset"] in raw_shown:
                continue
            raw_shown.add(c["dataset"])
        with np.load(npz) as f:
            if f.files:  # a refused release has no preview
                previews.append(({**c, "key": m["key"]}, {k: f[k] for k in f.files}))
    return previews


def _first_screen_notes(previews: list[tuple[dict[str, Any], dict]]
                        ) -> dict[tuple[str, str, str], list[str]]:
    """(dataset, mechanism, parameters) -> the short clamping / suppression notes."""
    return {(c["dataset"], c["mechanism"], canonical_parameters(c["parameters"])):
            preview_notes(p, short=True) for c, p in previews}


def _preview_figures(previews: list[tuple[dict[str, Any], dict]], figs: Path
                     ) -> tuple[list[str], list[str]]:
    """Path overlays (captioned with the share of clamped and suppressed samples) and density
    maps of the first seed's cells, from the previews the runner saved."""
    overlay_html, density_html = [], []
    for c, preview in previews:
        setting = ", ".join(f"{k}={v}" for k, v in sorted(c["parameters"].items()))
        label = f"{c['dataset']} / {c['label']}" + (f" ({setting})" if setting else "")
        overlay_html.append(_img(path_overlay(preview, title=label,
                                              path=figs / f"path_{c['key']}.png"), label,
                                 preview_notes(preview)))
        density_html.append(_img(density_maps(preview, title=label,
                                              path=figs / f"density_{c['key']}.png"), label))
    return overlay_html, density_html


def _data_table(out: Path) -> str:
    """The "Data" section from ``data_summary.json`` (empty when the run wrote none)."""
    if not (out / "data_summary.json").is_file():
        return ""
    summ = json.loads((out / "data_summary.json").read_text())
    return "<h2>Data</h2>" + html_table(
        ["dataset", "recordings", "participants", "samples", "sampling rate [Hz]",
         "total duration [s]", "missing samples", "labels"],
        [[fmt(name), str(d["recordings"]), str(d["participants"]), str(d["samples"]),
          ", ".join(f"{r:g}" for r in d["sampling_rate_hz"]), fmt(d["duration_s_total"]),
          f"{100 * d['missing_fraction']:.1f} %",
          "; ".join(f"{html.escape(k)}: {html.escape(', '.join(map(str, v)))}"
                    for k, v in d["labels"].items())]
         for name, d in summ.items()])
