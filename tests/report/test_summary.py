# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The first screen and the pivot table are generic over attacks and metrics: an evaluation or
metric that a new engine adds (a deep attack, a realism discriminator) appears without a change
in the report."""

from __future__ import annotations

import json
import re

import polars as pl

from gazeprivacy.experiments.engine import RESULT_SCHEMA
from gazeprivacy.guarantees import Guarantee, Kind, Unit
from gazeprivacy.report.html import build_report
from gazeprivacy.report.summary import first_screen
from gazeprivacy.report.tables import pivot_tables

_PARAMS = '{"epsilon": 2.0}'


def _rows(mech, kind, evaluation, metric, values, params="{}"):
    return [{"dataset": "d", "mechanism": mech, "mode": "x", "parameters": params,
             "epsilon": json.loads(params).get("epsilon"), "seed": s, "kind": kind,
             "evaluation": evaluation, "metric": metric, "value": v, "beats_baselines": None}
            for s, v in enumerate(values)]


def _results() -> pl.DataFrame:
    parts = []
    for mech, params, rbfn, deep in (("none", "{}", 0.9, 0.95), ("baseline-centre", "{}", 0.1, 0.1),
                                     ("m", _PARAMS, 0.1, 0.6)):
        for ev, rate in (("reid:rbfn:seed000", rbfn), ("reid:deep:aware", deep)):
            parts += [_rows(mech, "privacy", ev, "identification_rate", [rate, rate], params),
                      _rows(mech, "privacy", ev, "chance", [0.1, 0.1], params)]
    parts += [_rows("baseline-centre", "fidelity", "fidelity", "rmse", [3.6, 3.7, 3.8]),
              _rows("m", "fidelity", "fidelity", "rmse", [1.0, 1.1, 1.2], _PARAMS),
              _rows("m", "realism", "discriminator:rf", "discriminator_auc", [0.9, 0.92],
                    _PARAMS),
              _rows("m", "realism", "discriminator:rf", "discriminator_auc_se", [0.01], _PARAMS)]
    return pl.DataFrame([r for p in parts for r in p], schema=RESULT_SCHEMA)


def _record() -> dict:
    g = Guarantee(mechanism="m", kind=Kind.PURE_DP, unit=Unit.WINDOW, epsilon=2.0).compose(
        {"p0": 3, "p1": 3})
    return {"key": "k", "dataset": "d", "mechanism": "m", "parameters": {"epsilon": 2.0},
            "seed": 0, "guarantee": g.to_dict()}


def test_first_screen_uses_the_strongest_of_any_attack_and_names_new_metrics():
    page = first_screen(_results(), [_record()])
    card = re.search(r"<section class='mech'>(.*?)</section>", page, re.S).group(1)
    # the deep attack (0.6 = 6x chance) beats the paper's RBFN (0.1): it is the headline
    assert "re-identification by a deep network (aware)" in card and "60.0 % identified" in card
    assert "6.0x chance" in card
    assert "odds change at most <b>7.39x</b> per window" in card
    assert "epsilon up to 6 over 3 windows (odds up to 403x)" in card  # not vacuous
    assert "vacuous" not in card
    assert ("better than data-free:</span> gaze positions off by 1.1&deg; <span class='note'>"
            "(data-free: 3.7&deg;, the screen centre)</span>") in card
    assert "discriminator tells it from real gaze with AUC 0.91" in card
    # the reference line: raw data and the data-free baselines
    assert "9.5x chance" in page and "up to 1.0x chance" in page


def test_pivot_has_a_column_for_every_metric_and_marks_the_cells():
    page = pivot_tables(_results())
    # one table per kind of measure (so each fits the screen): every header together
    header = "".join(re.findall(r"<thead>.*?</thead>", page, re.S))
    assert page.count("<table class='pivot'>") == 3  # privacy, fidelity, realism
    for name in ("re-identification by a deep network (aware)",
                 "re-identification by an RBF network (trained on raw gaze, tested on the "
                 "release)", "discriminator:rf",
                 "discriminator auc", "identification rate", "rmse"):
        assert name in header, name
    assert "[deg]" in header  # units on the fidelity metric
    assert "_se" not in header  # standard errors are shown inside the cells
    row = "".join(re.findall(r"<tr><th>m</th>(.*?)</tr>", page, re.S))  # m's row per table
    assert "<td class='win'>1.1" in row  # rmse beats the centre baseline
    assert "<td class='strongest'>0.6" in row
    assert "&plusmn;0.01414" in row  # std over the two seeds of the AUC
    assert page.index("<th>none</th>") < page.index("<th>baseline-centre</th>") < page.index(
        "<th>m</th>")  # references first


def test_build_report_runs_on_results_with_unknown_metrics(tmp_path):
    _results().write_parquet(tmp_path / "results.parquet")
    (tmp_path / "guarantees.json").write_text(json.dumps([_record()]))
    text = build_report(tmp_path).read_text()
    assert "discriminator_auc" in text and "re-identification by a deep network" in text
    assert any(p.name.endswith("identification_rate.png") and "deep" in p.name
               for p in (tmp_path / "figures").iterdir())


def test_an_attack_no_stronger_than_on_data_free_releases_is_said_so():
    ev = "reid:aware-rf:seed004"
    t = pl.DataFrame([r for p in (
        _rows("baseline-centre", "privacy", ev, "identification_rate", [0.3]),
        _rows("baseline-centre", "privacy", ev, "chance", [0.1]),
        _rows("m", "privacy", ev, "identification_rate", [0.2], _PARAMS),
        _rows("m", "privacy", ev, "chance", [0.1], _PARAMS),
        _rows("strong", "privacy", ev, "identification_rate", [0.5], _PARAMS),
        _rows("strong", "privacy", ev, "chance", [0.1], _PARAMS)) for r in p],
        schema=RESULT_SCHEMA)
    cards = dict(re.findall(r"<section class='mech'><h3>(\w+) .*?</h3>(.*?)</section>",
                            first_screen(t, []), re.S))
    assert "2.0x chance" in cards["m"]
    assert "no more than releases without any gaze: up to 3.0x" in cards["m"]
    assert "5.0x chance" in cards["strong"] and "without any gaze" not in cards["strong"]


def test_first_screen_carries_the_clamping_note_of_the_plotted_recording():
    note = "92 % of the plotted recording's released samples clamped to the screen border"
    page = first_screen(_results(), [_record()], notes={("d", "m", _PARAMS): [note]})
    card = re.search(r"<section class='mech'>(.*?)</section>", page, re.S).group(1)
    assert f"<span class='warn'>{note}</span>" in card.replace("&#x27;", "'")


def test_a_tie_with_the_baselines_is_said_as_such_not_as_a_failure():
    t = pl.concat([_results(), pl.DataFrame(
        _rows("m", "fidelity", "fidelity", "density_error", [0.50, 0.52], _PARAMS)
        + _rows("baseline-centre", "fidelity", "fidelity", "density_error", [0.51, 0.50])
        + _rows("m", "realism", "realism:events", "fixation_duration_w1_s", [0.12, 0.13],
                _PARAMS)
        + _rows("baseline-centre", "realism", "realism:events", "fixation_duration_w1_s",
                [0.05, 0.05]), schema=RESULT_SCHEMA)])
    card = re.search(r"<section class='mech'>(.*?)</section>", first_screen(t, [_record()]),
                     re.S).group(1)
    tie = card[card.index("about the same:</span>"):]
    assert tie.startswith("about the same:</span> heatmaps apart by 0.51 bits")
    worse = card[card.index("worse than data-free:</span>"):]
    assert "fixation durations off by 125 ms" in worse and "(data-free: 50 ms" in worse
    assert "heatmaps" not in worse


def test_the_report_opens_with_the_verdict_and_has_no_internal_ids(tmp_path):
    _results().write_parquet(tmp_path / "results.parquet")
    (tmp_path / "guarantees.json").write_text(json.dumps([_record()]))
    (tmp_path / "run.json").write_text(json.dumps({"name": "r", "notes": [
        "the seed004 threat model was used (issue 15)"]}))
    text = build_report(tmp_path).read_text()
    verdict = text[text.index("<section id='verdict'>"):text.index("</section>")]
    assert text.index("<h1>") < text.index("<section id='verdict'>") < text.index(
        "<section id='summary'>")
    # m: epsilon 6 per participant (bounded) and better than the centre on rmse
    assert "<b>m</b> (epsilon = 2): epsilon 6 per participant" in verdict
    visible = re.sub(r"<[^>]+>|data:image/png;base64,[A-Za-z0-9+/=]+", " ", text)
    for internal in ("seed00", "SPEC", "issue 1", ":mod:", ":func:"):
        assert internal not in visible, internal


def test_the_verdict_says_none_and_why():
    from gazeprivacy.report.overall import verdict_section
    from gazeprivacy.report.verdict import release_verdicts
    rec = _record()
    g = Guarantee.from_dict(rec["guarantee"])
    rec["guarantee"] = g.compose({"p0": 30}).to_dict()  # 60 per participant: vacuous
    html_ = verdict_section(release_verdicts(_results(), [rec]))
    assert "<b>d</b>: <b class='flag'>none</b>" in html_
    assert "better than data-free but not bounded per participant: <b>m</b>" in html_
