# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The report's first screen: each mechanism in plain words, for a privacy officer and a
researcher alike.

Per mechanism (one table row per parameter setting) :func:`first_screen` says

* **what was released** (the mechanism's one-line summary from its registry entry, and the
  released columns when the guarantee record lists them);
* **the guarantee as odds**: for epsilon-DP kinds, "an observer's odds of telling two
  neighbouring inputs apart change by at most a factor e^epsilon", per the mechanism's unit;
  k-anonymity and plausible deniability are named as *not* differential privacy;
* **the per-participant bound**, called *vacuous* in those words when
  :attr:`Guarantee.participant_bound_vacuous` says it promises nothing;
* **what is NOT protected**: every guarantee-breaking flag, every column declared public and the
  public structure (recordings per participant, rows, mask) with what it identified;
* **the strongest attack against chance** over *every* privacy evaluation that reports a
  chance level (:func:`gazeprivacy.report.verdict.strongest_attacks`: the papers' attacks, the
  mechanism-aware one, a deep one, whatever the run holds);
* **utility against the data-free baselines**: which metrics beat the best ``baseline-*``
  release by 2 standard errors (:func:`gazeprivacy.report.verdict.baseline_comparison`), and
  which do not.

A reference line first gives the raw data's and the data-free baselines' strongest attack,
so a reader sees what chance, no protection and "no participant data at all" look like.
Each setting's full :meth:`Guarantee.explain` (Markdown) is one click away.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl
from markdown_it import MarkdownIt

from gazeprivacy._text import reader_text
from gazeprivacy.guarantees import Guarantee, Kind, Status
from gazeprivacy.report.verdict import BASELINE_PREFIX, baseline_comparison, strongest_attacks
from gazeprivacy.report.words import (
    baseline_words,
    evaluation_words,
    metric_value,
    metric_words,
)

__all__ = ["Setting", "first_screen", "release_settings"]

#: units of metrics, for plain sentences and axis labels
METRIC_UNITS: Mapping[str, str] = {"rmse": "deg", "rss_distance": "deg", "error_deg": "deg",
                                   "density_error": "JS divergence, bits",
                                   "suppressed_fraction": "share of samples"}
_MD = MarkdownIt("commonmark", {"html": False})


def canonical_parameters(parameters: str | Mapping[str, Any]) -> str:
    """The parameters as sorted JSON, so the results' and the records' spellings match."""
    d = json.loads(parameters) if isinstance(parameters, str) else dict(parameters)
    return json.dumps(d, sort_keys=True)


@dataclass
class Setting:
    """One release (dataset, mechanism, parameter setting) and what the first screen says."""

    dataset: str
    mechanism: str
    parameters: str
    guarantee: Guarantee | None = None
    attack: dict[str, Any] | None = None
    wins: list[dict[str, Any]] = field(default_factory=list)
    losses: list[dict[str, Any]] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    baseline_ratio: float | None = None  # the data-free baselines' strongest rate / chance
    ties: list[dict[str, Any]] = field(default_factory=list)
    #: evaluation -> chance level of its accuracy (macro F1: 1 / classes), for the words
    chance: dict[str, float] = field(default_factory=dict)


def release_settings(results: pl.DataFrame, guarantees: Sequence[Mapping[str, Any]]
                     ) -> list[Setting]:
    """Every (dataset, mechanism, parameters) of the run, raw and baselines included, with its
    record, strongest attack and baseline comparison; in the results' order."""
    if results.height:
        results = results.with_columns(pl.col("parameters").map_elements(
            canonical_parameters, return_dtype=pl.String))
    keys = [tuple(r) for r in results.select("dataset", "mechanism", "parameters")
            .unique(maintain_order=True).rows()]
    records = {(r["dataset"], r["mechanism"], canonical_parameters(r["parameters"])):
               Guarantee.from_dict(r["guarantee"]) for r in guarantees}
    keys += [k for k in records if k not in keys]
    out = {k: Setting(*k, guarantee=records.get(k)) for k in keys}
    if results.height == 0:
        return list(out.values())
    for r in strongest_attacks(results).iter_rows(named=True):
        out[(r["dataset"], r["mechanism"], r["parameters"])].attack = r
    chance = _chance_levels(results)
    compared = set()
    for r in baseline_comparison(results).iter_rows(named=True):
        s = out[(r["dataset"], r["mechanism"], r["parameters"])]
        {"better": s.wins, "tie": s.ties}.get(r["outcome"], s.losses).append(r)
        compared.add((r["dataset"], r["mechanism"], r["parameters"], r["metric"]))
    for s in out.values():
        s.chance = chance.get(s.dataset, {})
    for ds in {k[0] for k in keys}:
        ratios = [s.attack["ratio"] for s in out.values() if s.dataset == ds and s.attack
                  and s.mechanism.startswith(BASELINE_PREFIX)]
        for s in out.values():
            s.baseline_ratio = max(ratios) if ratios and s.dataset == ds else s.baseline_ratio
    for r in _discriminator_rows(results).iter_rows(named=True):
        if (r["dataset"], r["mechanism"], r["parameters"], "discriminator_auc") in compared:
            continue  # said among the measures compared with the baselines
        out[(r["dataset"], r["mechanism"], r["parameters"])].extra.append(
            f"a discriminator tells it from real gaze with AUC {r['value']:.2f} "
            "(0.5: indistinguishable, 1: always told apart)")
    return list(out.values())


def _chance_levels(results: pl.DataFrame) -> dict[str, dict[str, float]]:
    """dataset -> evaluation -> the chance level of its accuracy (``chance``) and, keyed
    ``EVALUATION/f1``, of its macro F1 (``uniform_chance``), from the raw cells when there."""
    out: dict[str, dict[str, float]] = {}
    refs = results.filter(pl.col("metric").is_in(["chance", "uniform_chance"])
                          & (pl.col("kind") != "privacy"))
    for (ds, ev, metric), g in refs.group_by("dataset", "evaluation", "metric"):
        raw = g.filter(pl.col("mechanism") == "none")
        level = float((raw if raw.height else g)["value"].mean())
        out.setdefault(str(ds), {})[str(ev) + ("/f1" if metric == "uniform_chance" else "")] = (
            level)
    return out


def _discriminator_rows(results: pl.DataFrame) -> pl.DataFrame:
    """Mean of every non-privacy metric whose name says AUC (realism discriminators)."""
    return (results.filter((pl.col("kind") != "privacy")
                           & pl.col("metric").str.to_lowercase().str.contains("auc")
                           & ~pl.col("metric").str.ends_with("_se"))
            .group_by("dataset", "mechanism", "parameters", maintain_order=True)
            .agg(pl.col("value").mean()))


def _pct(v: float) -> str:
    return f"{100 * v:.1f} %" if v < 0.995 or v == 1 else f"{100 * v:.2f} %"


def attack_words(attack: Mapping[str, Any] | None, baseline_ratio: float | None = None) -> str:
    """"re-identification (aware-rf): 42.5 % identified vs chance 8.3 % = 5.1x chance", and
    whether that is more than the data-free baselines' ``baseline_ratio``."""
    if attack is None:
        return "no attack with a chance level was run"
    name = evaluation_words(str(attack["evaluation"]))
    verb = "identified" if attack["metric"] == "identification_rate" else "correct"
    ratio = attack["ratio"]
    rtext = f"{ratio:.1f}x chance"
    text = (f"{html.escape(name)}: "
            f"{_pct(attack['value'])} {verb} vs chance {_pct(attack['chance'])} = "
            + (f"<b class='flag'>{rtext}</b>" if ratio >= 2 else f"<b>{rtext}</b>"))
    # the baselines' level is of re-identification, which a membership attack is not
    if (baseline_ratio is not None and ratio > 1 and ratio <= baseline_ratio
            and not str(attack["evaluation"]).startswith("membership:")):
        text += (f" <span class='note'>(no more than releases without any gaze: up to "
                 f"{baseline_ratio:.1f}x)</span>")
    return text


def guarantee_words(g: Guarantee | None) -> str:
    """The guarantee per unit, as odds; names kinds that are not differential privacy."""
    if g is None:
        return "no guarantee record"
    unit = html.escape(g.unit.value)
    if g.kind is Kind.K_ANONYMITY:
        return (f"k-anonymity, k = {g.k}, per {unit}: <b>not differential privacy</b>, no "
                "bound on what an attacker with background knowledge learns")
    if g.kind is Kind.PLAUSIBLE_DENIABILITY:
        return (f"plausible deniability (k = {g.k}, gamma = {g.gamma:g}) per {unit}: <b>not "
                "differential privacy</b>")
    if g.kind is Kind.NONE or g.epsilon is None:
        return "<b>no formal privacy guarantee</b>"
    text = f"odds change at most <b>{_odds(g.epsilon)}x</b> per {unit}"
    return text + (f", except with probability {g.delta:g}" if g.delta else "")


def _odds(eps: float) -> str:
    return f"{math.exp(eps):.3g}" if eps < 700 else "an astronomically large factor"


def _meaningful_bound(g: Guarantee | None) -> float | None:
    """The per-participant epsilon when it is a bound that means something, else None."""
    if (g is None or g.kind not in (Kind.PURE_DP, Kind.LOCAL_DP, Kind.W_EVENT_DP, Kind.APPROX_DP)
            or not g.formally_private or g.participant_bound_vacuous):
        return None
    if g.per_participant:
        return g.max_participant_epsilon
    return g.epsilon if g.unit.value == "participant" else None


def participant_words(g: Guarantee | None) -> str:
    """The per-participant bound, with "vacuous" said plainly when it is."""
    if g is None or not g.per_participant:
        return "not composed per participant"
    eps = g.max_participant_epsilon
    budgets = list(g.per_participant.values())
    units = [b.units for b in budgets]
    span = f"{min(units)}" if min(units) == max(units) else f"{min(units)}-{max(units)}"
    if eps is None:
        return f"no per-participant bound ({html.escape(budgets[0].rule)})"
    what = "windows" if g.unit.value == "participant" else f"{html.escape(g.unit.value)}s"
    text = f"epsilon up to {eps:g} over {span} {what}"
    if g.unit.value == "participant" and max(units) == 1:  # one unit: all of their data
        text = f"epsilon up to {eps:g} over all of a participant's recordings"
    if g.participant_bound_vacuous:
        return text + ": <b class='flag'>vacuous</b>, it promises nothing about a participant"
    return text + f" (odds up to {_odds(eps)}x)"


def not_protected(g: Guarantee | None) -> list[str]:
    """What the record says is NOT protected: breaking flags, columns declared public and the
    public structure (recordings per participant, rows, mask)."""
    if g is None:
        return []
    out = [f"{f.code.value}: {reader_text(f.message)}" for f in g.flags if f.breaks_guarantee]
    out += [f"column {c.name} (declared public, copied as is)" for c in g.columns
            if c.status is Status.PUBLIC_DECLARED and c.name != "mask"]
    out += _structure_words(g)
    if g.kind is Kind.NONE:
        out.append("everything: the record is of kind 'none'")
    if g.participant_bound_vacuous:
        out.append(f"a participant as a whole: the bound over all of a participant's "
                   f"{g.unit.value}s is vacuous (see 'per participant')")
    elif g.kind in (Kind.K_ANONYMITY, Kind.PLAUSIBLE_DENIABILITY):
        out.append(f"a participant as a whole: {g.kind.value} holds per {g.unit.value} and "
                   "does not compose across a participant's units")
    return out


def _structure_words(g: Guarantee) -> list[str]:
    """The public structure in words: the input's (:meth:`Guarantee.public_structure`), or what
    a synthetic population sets by its parameters, its participant count and public labels."""
    from gazeprivacy.mechanisms.release.structure import synthetic_population, synthetic_structure

    if not synthetic_population(g):
        return [f"structure, {line}" for line in g.public_structure()]
    p = g.parameters
    out = [f"structure, {c.name}: {c.note}" for c in synthetic_structure(g)]
    if p.get("n_participants_input") is not None and p.get("n_participants") == p.get(
            "n_participants_input"):
        out.append(f"the number of participants ({p['n_participants']}, the input's: public by "
                   "design)")
    if p.get("public_labels"):
        out.append(f"label(s) {', '.join(p['public_labels'])} (declared public: the synthetic "
                   "recordings carry their values)")
    return out


def _measure(s: Setting, r: Mapping[str, Any], *, baseline: bool = True) -> str:
    """One compared measure in words, the best data-free baseline's value beside it."""
    ev, metric = str(r["evaluation"]), str(r["metric"])
    key = f"{ev}/f1" if metric == "f1_macro" else ev
    text = metric_words(metric, ev, float(r["mean"]), s.chance.get(key))
    if baseline:
        text += (f" <span class='note'>(data-free: {metric_value(metric, r['baseline_mean'])}, "
                 f"{html.escape(baseline_words(str(r['best_baseline'])))})</span>")
    return text


def utility_words(s: Setting) -> str:
    """How useful the release is, in eye-tracking terms with units: the measures where it is
    better than the best data-free baseline, about the same (within 2 standard errors: not a
    failure) and worse."""
    extra = "".join(f"<br><span class='warn'>{html.escape(e)}</span>" for e in s.extra)
    if not s.wins and not s.losses and not s.ties:
        return "no utility measure compared with a data-free baseline" + extra
    parts = []
    if s.wins:
        parts.append("<span class='ok'>&#10003; better than data-free:</span> "
                     + "; ".join(_measure(s, r) for r in s.wins))
    if s.ties:
        parts.append("<span class='note'>&asymp; about the same:</span> "
                     + "; ".join(_measure(s, r) for r in s.ties))
    if s.losses:
        parts.append("<span class='flag'>&#10007; worse than data-free:</span> "
                     + "; ".join(_measure(s, r) for r in s.losses))
    return "<br>".join(parts) + extra


def released_words(mechanism: str, g: Guarantee | None) -> str:
    """What was released: the mechanism's summary and, when the record lists them, the columns
    grouped by status."""
    from gazeprivacy.mechanisms import MECHANISMS

    # a labelled run (e.g. dpgazesynth-participant) is its record's registered mechanism
    name = mechanism if mechanism in MECHANISMS or g is None else g.mechanism
    spec = MECHANISMS[name] if name in MECHANISMS else None  # noqa: SIM401 (no .get)
    text = html.escape(reader_text(spec.summary)) + "." if spec is not None else ""
    if spec is not None and g is not None and "windows_per_participant" in g.parameters:
        text += (f" Per participant: {g.parameters['windows_per_participant']} "
                 "windows drawn at random report, at an equal share of the budget each; the "
                 "paths are synthesised from the population model.")
    if spec is not None and getattr(spec, "synthetic_population", False):
        return text + (" A synthetic population: new participants and recordings (counts and "
                       "lengths set by its parameters), only time, gaze and the declared "
                       "public labels; no input id, recording or length is in it, so the "
                       "attacks here ask membership (was a person in the input?), not "
                       "re-identification.")
    if g is not None and g.columns:
        groups: dict[str, list[str]] = {}
        for c in g.columns:
            groups.setdefault(c.status.value.replace("_", " "), []).append(c.name)
        return text + " Columns: " + "; ".join(
            f"{html.escape(k)}: {html.escape(', '.join(v))}" for k, v in groups.items()) + "."
    return text + (" In this evaluation the attacks saw the released gaze with the input's "
                   "recording structure (recordings per participant, lengths, timestamps).")


def _demote(markdown: str) -> str:
    """Headings three levels down (# -> h4), so the record nests under its card."""
    return re.sub(r"^(#+) ", lambda m: "###" + m.group(1) + " ", markdown, flags=re.M)


def _explain_html(settings: Sequence[Setting]) -> str:
    blocks = [f"<h4>{html.escape(_setting_label(s.parameters))}</h4>"
              + _MD.render(_demote(s.guarantee.explain()))
              for s in settings if s.guarantee is not None]
    if not blocks:
        return ""
    return ("<details class='explain'><summary>The full guarantee record in words "
            "(<code>Guarantee.explain()</code>)</summary>" + "".join(blocks) + "</details>")


def _setting_label(parameters: str) -> str:
    d = json.loads(parameters)
    return ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}"
                     for k, v in d.items()) or "default setting"


def mechanism_card(settings: Sequence[Setting]) -> str:
    """One mechanism on one dataset: what was released, a row per setting, what is NOT
    protected, and the full records behind a click."""
    s0 = settings[0]
    rows = "".join(
        f"<tr><td>{html.escape(_setting_label(s.parameters))}</td>"
        f"<td>{guarantee_words(s.guarantee)}</td><td>{participant_words(s.guarantee)}</td>"
        f"<td>{attack_words(s.attack, s.baseline_ratio)}</td><td>{utility_words(s)}</td></tr>"
        for s in settings)
    gaps = list(dict.fromkeys(x for s in settings for x in not_protected(s.guarantee)))
    gap_html = ("<p><b class='flag'>NOT protected:</b> " + "; ".join(map(html.escape, gaps))
                + ".</p>" if gaps else
                "<p><b>NOT protected:</b> nothing that the record flags.</p>")
    return (f"<section class='mech'><h3>{html.escape(s0.mechanism)} "
            f"<span class='note'>on {html.escape(s0.dataset)}</span></h3>"
            f"<p><b>Released:</b> {released_words(s0.mechanism, s0.guarantee)}</p>"
            "<table class='first'><colgroup><col style='width:13%'><col style='width:15%'>"
            "<col style='width:20%'><col style='width:21%'><col style='width:31%'></colgroup>"
            "<thead><tr><th>setting</th><th>guarantee per unit</th>"
            "<th>per participant</th><th>strongest attack vs chance</th>"
            "<th>utility vs the best data-free baseline</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>{gap_html}{_explain_html(settings)}</section>")


def reference_words(settings: Sequence[Setting]) -> str:
    """The raw data's and the data-free baselines' strongest attack, per dataset."""
    out = []
    for ds in dict.fromkeys(s.dataset for s in settings):
        raw = [s for s in settings if s.dataset == ds and s.mechanism == "none" and s.attack]
        base = [s for s in settings if s.dataset == ds and s.attack
                and s.mechanism.startswith(BASELINE_PREFIX)]
        text = []
        if raw:
            text.append(f"on the <b>raw data</b> the strongest attack gets "
                        f"{attack_words(raw[0].attack)}")
        if base:
            top = max(base, key=lambda s: s.attack["ratio"])
            text.append(
                "on <b>releases made without any participant data</b> (the data-free "
                f"baselines) up to {top.attack['ratio']:.1f}x chance "
                f"({html.escape(baseline_words(top.mechanism))}, "
                f"{html.escape(evaluation_words(str(top.attack['evaluation'])))})"
                ": that much comes from what every release here keeps (recordings per "
                "participant, lengths, timestamps), not from gaze")
        if text:
            out.append(f"<li><b>{html.escape(ds)}</b>: " + "; ".join(text) + ".</li>")
    return "<ul class='reference'>" + "".join(out) + "</ul>" if out else ""


def first_screen(results: pl.DataFrame, guarantees: Sequence[Mapping[str, Any]], *,
                 notes: Mapping[tuple[str, str, str], Sequence[str]] | None = None) -> str:
    """The report's opening section (``<section id="summary">``): a card per mechanism and
    dataset in plain words, after the raw and data-free reference levels. ``notes``: more
    words per (dataset, mechanism, canonical parameters), e.g. the share of clamped samples."""
    settings = release_settings(results, guarantees)
    for s in settings:
        s.extra += list((notes or {}).get((s.dataset, s.mechanism, s.parameters), ()))
    mechs: dict[tuple[str, str], list[Setting]] = {}
    for s in settings:
        if s.mechanism != "none" and not s.mechanism.startswith(BASELINE_PREFIX):
            mechs.setdefault((s.dataset, s.mechanism), []).append(s)
    for group in mechs.values():
        group.sort(key=lambda s: json.loads(s.parameters).get("epsilon") or 0.0)
    # cards with a meaningful per-participant bound first, the smallest bound first
    order = sorted(mechs.values(), key=lambda g: min(
        (b for s in g if (b := _meaningful_bound(s.guarantee)) is not None), default=math.inf))
    cards = "".join(mechanism_card(g) for g in order) or (
        "<p>No protected release in this run (raw data and baselines only).</p>")
    return ("<section id='summary'><h2>In plain words</h2>"
            "<p class='lead'>Per mechanism: what was released; the guarantee as odds (an "
            "observer's odds of telling two neighbouring inputs apart change at most by this "
            "factor); the bound for a participant as a whole; what is <b>not</b> protected; the "
            "strongest attack run here against guessing; and whether the released data are "
            "more useful than data made without any participant (the data-free baselines: "
            "screen centre, uniform points, a simulator). For reference:</p>"
            + reference_words(settings) + cards + "</section>")
