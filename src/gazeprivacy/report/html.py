# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The self-contained HTML report of a run: one file, images embedded, no server needed.

:func:`build_report` reads what the runner wrote (``results.parquet``, ``guarantees.json``,
``cells/*.json`` and ``cells/*.npz``), writes the figures as PNG into ``OUT/figures/`` and
``OUT/report.html`` with the same figures embedded as base64 data URIs. Sections: the verdict
(first screen: per release, the strongest attack's rate against chance, and which utility /
fidelity metrics beat the best data-free baseline by 2 standard errors --
:mod:`gazeprivacy.report.verdict`), the guarantee
table (per unit and per participant, not-formally-private rows flagged in red), privacy-utility
curves (attack success and utility vs epsilon with raw and chance lines), gaze-path overlays and
density maps of original vs protected data, and the results table (mean and std over seeds);
optionally a "Paper comparison" section (a reproduction's tables beside the paper's numbers).
"""

from __future__ import annotations

import base64
import html
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.guarantees import Guarantee, Kind, Status
from gazeprivacy.report.plots import (
    CURVE_METRICS,
    density_maps,
    path_overlay,
    privacy_utility_curve,
)
from gazeprivacy.report.verdict import baseline_comparison, strongest_attacks

__all__ = ["build_report"]

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em auto;max-width:1150px;
color:#222;line-height:1.4}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f2f2f2}tr.notprivate td{background:#fde8e8}
.flag{color:#b00020;font-weight:600}.ok{color:#1b5e20}
.figs{display:flex;flex-wrap:wrap;gap:.8em}.figs figure{margin:0}
figcaption{font-size:.8em;color:#555}.note{color:#555;font-size:.9em}
.plain{max-width:60em}
"""


def _img(path: Path, caption: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (f'<figure><img src="data:image/png;base64,{data}" alt="{html.escape(caption)}" '
            f'width="560"><figcaption>{html.escape(caption)}</figcaption></figure>')


def _fmt(v: Any) -> str:
    if v is None:
        return "&ndash;"
    if isinstance(v, float):
        if not np.isfinite(v):
            return html.escape(str(v))
        return f"{v:.4g}"
    return html.escape(str(v))


def _table(header: list[str], rows: list[list[str]], classes: list[str] | None = None) -> str:
    out = ["<table><thead><tr>", *(f"<th>{html.escape(h)}</th>" for h in header),
           "</tr></thead><tbody>"]
    for i, r in enumerate(rows):
        cls = f' class="{classes[i]}"' if classes and classes[i] else ""
        out.append(f"<tr{cls}>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _guarantee_table(records: list[dict[str, Any]]) -> str:
    if not records:
        return '<p class="note">No protected release in this run (raw data only).</p>'
    seen: dict[tuple[str, str, str], dict[str, Any]] = {}
    for rec in records:
        key = (rec["dataset"], rec["mechanism"], json.dumps(rec["parameters"], sort_keys=True))
        seen.setdefault(key, rec)
    rows, classes = [], []
    for (dataset, mech, params), rec in seen.items():
        g = rec["guarantee"]
        pp = g.get("per_participant") or {}
        eps_pp = [b.get("epsilon") for b in pp.values() if b.get("epsilon") is not None]
        units = [b.get("units") for b in pp.values()]
        if eps_pp:
            lo, hi = min(eps_pp), max(eps_pp)
            per_part = _fmt(hi) if lo == hi else f"{_fmt(lo)} &ndash; {_fmt(hi)}"
        else:
            rule = next(iter(pp.values()), {}).get("rule") if pp else None
            per_part = html.escape(rule) if rule else "&ndash;"
        units_txt = (f"{min(units)}&ndash;{max(units)}" if units and min(units) != max(units)
                     else (str(units[0]) if units else "&ndash;"))
        breaking = [f for f in g.get("flags", []) if f.get("breaks_guarantee")]
        info = [f for f in g.get("flags", []) if not f.get("breaks_guarantee")]
        flags = "".join(f'<div class="flag">{html.escape(f["code"])}: '
                        f'{html.escape(f["message"])}</div>' for f in breaking)
        flags += "".join(f'<div class="note">{html.escape(f["code"])}</div>' for f in info)
        private = g.get("formally_private", False)
        status = ('<span class="ok">yes</span>' if private
                  else '<span class="flag">NOT FORMALLY PRIVATE</span>')
        rows.append([_fmt(dataset), _fmt(mech), f"<code>{html.escape(params)}</code>",
                     _fmt(g.get("mode")), _fmt(g.get("kind")), _fmt(g.get("unit")),
                     _fmt(g.get("epsilon")), _fmt(g.get("delta")),
                     _fmt(g.get("k")), units_txt, per_part, status, flags or "&ndash;"])
        classes.append("" if private else "notprivate")
    return _table(["dataset", "mechanism", "parameters", "mode", "kind", "unit",
                   "epsilon per unit", "delta", "k", "units per participant",
                   "epsilon per participant", "formally private", "flags"], rows, classes)


def _results_table(results: pl.DataFrame) -> str:
    if results.height == 0:
        return '<p class="note">No results.</p>'
    agg = (results.group_by("dataset", "mechanism", "mode", "parameters", "kind", "evaluation",
                            "metric", maintain_order=True)
           .agg(pl.col("value").mean().alias("mean"), pl.col("value").std().alias("std"),
                pl.len().alias("n")))
    rows = [[_fmt(r["dataset"]), _fmt(r["mechanism"]), _fmt(r["mode"]),
             f"<code>{html.escape(r['parameters'])}</code>", _fmt(r["kind"]),
             _fmt(r["evaluation"]), _fmt(r["metric"]), _fmt(r["mean"]), _fmt(r["std"]),
             str(r["n"])] for r in agg.iter_rows(named=True)]
    return _table(["dataset", "mechanism", "mode", "parameters", "kind", "evaluation", "metric",
                   "mean", "std", "seeds"], rows)


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
    if not (out / "results.parquet").is_file():
        raise InvalidDataError(f"{str(out)!r} has no results.parquet; run "
                               "`gazeprivacy evaluate CONFIG --out DIR` first")
    results = pl.read_parquet(out / "results.parquet")
    guarantees = json.loads((out / "guarantees.json").read_text()) \
        if (out / "guarantees.json").is_file() else []
    run = json.loads((out / "run.json").read_text()) if (out / "run.json").is_file() else {}
    figs = out / "figures"
    figs.mkdir(exist_ok=True)
    title = title or f"gazeprivacy report: {run.get('name', out.name)}"
    curve_html = _curve_figures(results, figs)
    overlay_html, density_html = _preview_figures(out, run.get("cells", []), figs)
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        _verdict(results),
        _plain_language(guarantees),
        _overview(results, guarantees),
        _data_table(out),
        *(["<h2>Paper comparison</h2>", paper_comparison] if paper_comparison else []),
        "<h2>Guarantees</h2>",
        "<p class='note'>Per unit as the mechanism states it; per participant under basic "
        "sequential composition over the participant's units. Rows in red are not formally "
        "private (a flag breaks the headline guarantee).</p>",
        _guarantee_table(guarantees),
        "<h2>Privacy-utility curves</h2>",
        "<div class='figs'>" + ("".join(curve_html) or
                                "<p class='note'>No protected cell with an epsilon.</p>")
        + "</div>",
        "<h2>Gaze paths: original vs protected</h2>",
        "<div class='figs'>" + "".join(overlay_html) + "</div>",
        "<h2>Density maps</h2>",
        "<div class='figs'>" + "".join(density_html) + "</div>",
        "<h2>Results (mean and std over seeds)</h2>",
        _results_table(results),
    ]
    notes = run.get("notes", [])
    if notes:
        parts += ["<h2>Notes</h2><ul>",
                  *(f"<li>{html.escape(n)}</li>" for n in notes), "</ul>"]
    parts.append("</body></html>")
    target = out / "report.html"
    target.write_text("\n".join(parts), encoding="utf-8")
    return target


def _verdict(results: pl.DataFrame) -> str:
    """The first screen: per release, the strongest attack against chance and the utility /
    fidelity metrics that beat (or fail to beat) the best data-free baseline."""
    if results.height == 0:
        return ""
    attacks = {tuple(r[:3]): r for r in strongest_attacks(results).iter_rows()}
    comp = baseline_comparison(results)
    wins: dict[tuple[str, str, str], list[str]] = {}
    losses: dict[tuple[str, str, str], list[str]] = {}
    unknown_se = False
    for r in comp.iter_rows(named=True):
        key = (r["dataset"], r["mechanism"], r["parameters"])
        text = (f"{html.escape(r['metric'])} {_fmt(r['mean'])} vs "
                f"{html.escape(r['best_baseline'])} {_fmt(r['baseline_mean'])}")
        (wins if r["beats_baselines"] else losses).setdefault(key, []).append(text)
        unknown_se |= not r["se_known"]
    keys = list(dict.fromkeys([*attacks, *wins, *losses]))
    rows = []
    for key in sorted(keys, key=lambda k: (k[0], k[1] != "none", k[1], k[2])):
        a = attacks.get(key)
        attack = ([html.escape(f"{a[3]} ({a[4]})"), _fmt(a[5]), _fmt(a[6]),
                   f"<b>{a[7]:.2f}x</b>" if a[7] >= 2 else f"{a[7]:.2f}x"]
                  if a else ["&ndash;"] * 4)
        rows.append([_fmt(key[0]), _fmt(key[1]), f"<code>{html.escape(key[2])}</code>",
                     *attack,
                     "<br>".join(f'<span class="ok">{w}</span>' for w in wins.get(key, []))
                     or "&ndash;",
                     "<br>".join(f'<span class="flag">{w}</span>' for w in losses.get(key, []))
                     or "&ndash;"])
    note = ("<p class='note'>Privacy: the strongest of all attacks run on each release "
            "(identification rate, else accuracy, divided by chance), never an average. "
            "Utility: a metric beats the data-free baselines (screen centre, uniform points, the "
            "simulator prior; rows named <code>baseline-*</code>) when the release's mean is "
            "better than the best baseline's by more than 2 standard errors of the difference "
            "(over seeds, else over the evaluation's splits or recordings). Attacks on the "
            "<code>baseline-*</code> rows measure what the public shape a release keeps "
            "(recording lengths, timestamps) gives away without any gaze; RMSE and RSS distance "
            "skip samples a release suppresses, so read them beside "
            "<code>suppressed_fraction</code>.")
    if unknown_se:
        note += (" Some metrics have one seed and no splits: their standard error is unknown "
                 "and they are compared by their means only.")
    return ("<h2>Verdict</h2>" + note + "</p>" + _table(
        ["dataset", "release", "parameters", "strongest attack", "rate", "chance",
         "rate / chance", "beats the data-free baselines", "not better than the baselines"],
        rows))


def _plain_sentence(g: Guarantee) -> str:
    """One release in plain words: the guarantee, the per-participant bound (said to be
    vacuous when :meth:`Guarantee.summary` says so) and what is NOT protected."""
    if g.epsilon is not None and g.kind is not Kind.NONE and g.kind not in (
            Kind.K_ANONYMITY, Kind.PLAUSIBLE_DENIABILITY):
        text = (f"{g.kind.value} per {g.unit.value}: an observer's odds of telling two "
                f"neighbouring inputs apart change by at most a factor {math.exp(g.epsilon):.3g}"
                + (f", except with probability {g.delta:g}" if g.delta else "") + ". ")
    elif g.k is not None:
        text = f"{g.kind.value} with k = {g.k} per {g.unit.value} (not differential privacy). "
    else:
        text = "No formal privacy guarantee. "
    eps = g.max_participant_epsilon
    if eps is not None:
        text += f"Per participant: epsilon up to {eps:g}"
        text += (" &mdash; <b>vacuous</b>: it promises nothing about any single participant. "
                 if g.participant_bound_vacuous else ". ")
    missing = [f"{f.code.value} ({f.message})" for f in g.flags if f.breaks_guarantee]
    missing += [f"column {c.name} (declared public)" for c in g.columns
                if c.status is Status.PUBLIC_DECLARED]
    if missing:
        return text + "<b>NOT protected:</b> " + html.escape("; ".join(missing)) + "."
    return text + "No flag breaks the stated guarantee."


def _plain_language(records: list[dict[str, Any]]) -> str:
    """Under the verdict: a paragraph per release in plain words (from its guarantee record)."""
    seen: dict[tuple[str, str, str], Guarantee] = {}
    for rec in records:
        key = (rec["dataset"], rec["mechanism"], json.dumps(rec["parameters"], sort_keys=True))
        seen.setdefault(key, Guarantee.from_dict(rec["guarantee"]))
    if not seen:
        return ""
    paras = [f"<p class='plain'><b>{html.escape(mech)}</b> on {html.escape(dataset)} "
             f"(<code>{html.escape(params)}</code>): {_plain_sentence(g)}</p>"
             for (dataset, mech, params), g in seen.items()]
    return "<h2>In plain words</h2><div id='plain-language'>" + "".join(paras) + "</div>"


def _overview(results: pl.DataFrame, guarantees: list[dict[str, Any]]) -> str:
    """The opening paragraph: counts and how to read the chance lines."""
    return (
        f"<p class='note'>{results.height} result rows; "
        f"{results.select('dataset', 'mechanism', 'parameters', 'seed').n_unique()} cells; "
        f"{len(guarantees)} protected releases. Raw-data rows have mechanism <code>none</code>. "
        "Chance levels: 1 / participants for re-identification, the majority class share for "
        "classification tasks; gaze prediction is drawn against the constant-position baseline "
        "and the linkage attack against the 1 / k bound (grey lines).</p>")


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
                curve_html.append(_img(p, f"{dataset} - {evaluation}: {metric} vs epsilon"))
    return curve_html


def _preview_figures(out: Path, cell_keys: list[str], figs: Path) -> tuple[list[str], list[str]]:
    """Path overlays and density maps of the first seed's cells (the raw data once per
    dataset), from the previews the runner saved."""
    overlay_html, density_html = [], []
    metas = []
    for key in cell_keys:
        mpath = out / "cells" / f"{key}.json"
        if mpath.is_file():
            metas.append(json.loads(mpath.read_text()))
    first_seed = min((m["cell"]["seed"] for m in metas), default=None)
    raw_shown: set[str] = set()
    for m in metas:
        c = m["cell"]
        if c["seed"] != first_seed:
            continue
        npz = out / "cells" / f"{m['key']}.npz"
        if not npz.is_file():
            continue
        with np.load(npz) as f:
            preview = {k: f[k] for k in f.files}
        if c["mechanism"] == "none":
            if c["dataset"] in raw_shown:
                continue
            raw_shown.add(c["dataset"])
        label = f"{c['dataset']} / {c['label']} {json.dumps(c['parameters'], sort_keys=True)}"
        stem = f"{m['key']}"
        overlay_html.append(_img(path_overlay(preview, title=label,
                                              path=figs / f"path_{stem}.png"), label))
        density_html.append(_img(density_maps(preview, title=label,
                                              path=figs / f"density_{stem}.png"), label))
    return overlay_html, density_html


def _data_table(out: Path) -> str:
    """The "Data" section from ``data_summary.json`` (empty when the run wrote none)."""
    if not (out / "data_summary.json").is_file():
        return ""
    summ = json.loads((out / "data_summary.json").read_text())
    return "<h2>Data</h2>" + _table(
        ["dataset", "recordings", "participants", "samples", "sampling rate [Hz]",
         "total duration [s]", "missing samples", "labels"],
        [[_fmt(name), str(d["recordings"]), str(d["participants"]), str(d["samples"]),
          ", ".join(f"{r:g}" for r in d["sampling_rate_hz"]), _fmt(d["duration_s_total"]),
          f"{100 * d['missing_fraction']:.1f} %",
          "; ".join(f"{html.escape(k)}: {html.escape(', '.join(map(str, v)))}"
                    for k, v in d["labels"].items())]
         for name, d in summ.items()])
