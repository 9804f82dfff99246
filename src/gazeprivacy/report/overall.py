# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The report's opening verdict: per dataset, the release to use, or "none".

A release qualifies when it is both

* **bounded per participant**: formally private differential privacy whose bound over all of a
  participant's data is at most :data:`~gazeprivacy.guarantees.VACUOUS_EPSILON` (a per-window
  guarantee alone says little about a person who gave hundreds of windows), and
* **better than every data-free baseline**: better than the best of them (by two standard
  errors) on at least one utility measure and worse on none; a tie is no failure.

Of the qualifying releases the verdict names the one with the smallest per-participant epsilon.
The block reads only :func:`gazeprivacy.report.verdict.release_verdicts`' table (mechanism,
parameters, per-participant bound, better / tie / worse counts), so whatever computes that
table from a run (the report, the frontier page) gives the same verdict.
"""

from __future__ import annotations

import html
import json
import math
from typing import Any

import polars as pl

from gazeprivacy.guarantees import VACUOUS_EPSILON
from gazeprivacy.report.verdict import best_releases

__all__ = ["verdict_section"]


def _setting(parameters: str) -> str:
    d = json.loads(parameters)
    return ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}"
                     for k, v in d.items())


def _release(r: dict[str, Any]) -> str:
    setting = _setting(r["parameters"])
    return f"<b>{html.escape(r['mechanism'])}</b>" + (
        f" ({html.escape(setting)})" if setting else "")


def _odds(eps: float) -> str:
    return f"{math.exp(eps):.3g}x"


def _why_none(rows: pl.DataFrame) -> str:
    """Why no release of one dataset qualifies, in counts and the nearest misses."""
    if rows.height == 0:
        return "no protected release was evaluated."
    bounded = rows.filter(pl.col("bounded"))
    useful = rows.filter(pl.col("beats_every_baseline"))
    n = rows.height

    def count(k: int, first: bool) -> str:
        if n == 1:
            return ("the protected release is" if first else "it is") + ("" if k else " not")
        if k == 0:
            return f"none of the {n} protected releases is" if first else "none is"
        return (f"{k} of the {n} protected releases" if first else str(k)) + (
            " is" if k == 1 else " are")

    parts = [f"{count(bounded.height, True)} bounded per participant",
             f"{count(useful.height, False)} better than every data-free baseline"]
    if useful.height:
        parts.append("better than data-free but not bounded per participant: "
                     + ", ".join(_release(r) for r in useful.head(3).iter_rows(named=True)))
    if bounded.height:
        parts.append("bounded but not better than data-free: "
                     + ", ".join(_release(r) for r in bounded.head(3).iter_rows(named=True)))
    text = "; ".join(parts) + "."
    return text[0].upper() + text[1:]


def verdict_section(verdicts: pl.DataFrame) -> str:
    """``<section id="verdict">``: one line per dataset from a
    :func:`~gazeprivacy.report.verdict.release_verdicts` table."""
    items = []
    for ds, best in best_releases(verdicts).items():
        rows = verdicts.filter(pl.col("dataset") == ds)
        if best is None:
            items.append(f"<li><b>{html.escape(ds)}</b>: <b class='flag'>none</b>. "
                         f"{_why_none(rows)}</li>")
            continue
        eps = best["participant_epsilon"]
        counts = (f"better than data-free on {best['n_better']} measure(s)"
                  + (f", about the same on {best['n_tie']}" if best["n_tie"] else "")
                  + ", worse on none")
        items.append(f"<li><b>{html.escape(ds)}</b>: <span class='ok'>&#10003;</span> "
                     f"{_release(best)}: epsilon {eps:g} per participant (an observer's odds "
                     f"about any one participant change at most {_odds(eps)}); {counts}.</li>")
    if not items:
        items.append("<li>No protected release was evaluated.</li>")
    return ("<section id='verdict'><h2>Verdict</h2><p class='lead'>Per data set, the most "
            "private release that is both <b>bounded per participant</b> (differential privacy "
            f"with epsilon at most {VACUOUS_EPSILON:g} over all of a participant's data) and "
            "<b>better than every data-free baseline</b> (releases made without any "
            "participant's gaze; better than the best of them on at least one utility measure "
            "and worse on none), or <b>none</b>:</p><ul class='verdict'>" + "".join(items)
            + "</ul></section>")
