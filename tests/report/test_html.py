# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
from __future__ import annotations

import base64
import re

import pytest

from evaluate_helpers import fake_featurizer, fake_registry, tiny_dataset
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.experiments.config import parse_config
from gazeprivacy.experiments.engine import run_experiment
from gazeprivacy.guarantees import Flag, FlagCode, Guarantee, Kind, Unit
from gazeprivacy.report.html import build_report

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    cfg = parse_config({
        "name": "report-test", "seeds": [0],
        "datasets": [{"name": "tiny", "source": "injected"}],
        "mechanisms": [{"name": "fake-noise", "grid": {"epsilon": [0.5, 5.0]}}],
        "attacks": [{"kind": "reidentification", "classifier": "knn", "n_splits": 2}]})
    run_experiment(cfg, out, registry=fake_registry(),
                   datasets={"tiny": tiny_dataset(n_participants=3, n_stimuli=3,
                                                  n_samples=200)},
                   featurizer=fake_featurizer, workers=1)
    return out


def test_report_is_self_contained_with_figures_and_tables(run_dir):
    path = build_report(run_dir)
    text = path.read_text()
    imgs = re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', text)
    # curves (identification rate, f1) + 2 overlays/density pairs for 2 protected + 1 raw
    assert len(imgs) >= 2 + 3 + 3
    assert all(base64.b64decode(i)[:8] == PNG_MAGIC for i in imgs)
    assert "<h2>Guarantees</h2>" in text and "<h2>Privacy-utility curves</h2>" in text
    assert "<h2>Results: mechanism x metric</h2>" in text and "<h2>Data</h2>" in text
    assert "<table class='pivot'>" in text and text.count("<table") >= 4
    # the long table stays, collapsed; the counts opener is gone
    assert "<details><summary>All " in text and "result rows;" not in text
    assert "identification_rate" in text and "fake-noise" in text
    # nothing is loaded from elsewhere
    assert not re.search(r'src="(?!data:)', text) and "<link" not in text
    pngs = sorted(p.name for p in (run_dir / "figures").glob("*.png"))
    assert any(p.startswith("curve_") for p in pngs)
    assert any(p.startswith("path_") for p in pngs) and any(p.startswith("density_")
                                                               for p in pngs)


def test_not_formally_private_rows_are_red(run_dir, tmp_path):
    import json
    import shutil

    work = tmp_path / "copy"
    shutil.copytree(run_dir, work)
    g = Guarantee(mechanism="paperish", kind=Kind.PURE_DP, unit=Unit.CHUNK, epsilon=1.0,
                  mode="paper").with_flags(
        Flag(FlagCode.DATA_DEPENDENT_SENSITIVITY, "sensitivity read from the data"))
    g = g.compose({"p0": 3, "p1": 5})
    recs = json.loads((work / "guarantees.json").read_text())
    recs.append({"key": "x", "dataset": "tiny", "mechanism": "paperish",
                 "parameters": {"epsilon": 1.0}, "seed": 0, "guarantee": g.to_dict()})
    (work / "guarantees.json").write_text(json.dumps(recs))
    text = build_report(work).read_text()
    row = re.search(r'<tr class="notprivate">(.*?)</tr>', text, re.S)
    assert row is not None
    assert "paperish" in row.group(1) and "data-dependent-sensitivity" in row.group(1)
    assert "NOT FORMALLY PRIVATE" in row.group(1)
    assert "3 &ndash; 5" in row.group(1)  # per-participant epsilon range


def test_report_without_results_is_a_named_error(tmp_path):
    with pytest.raises(InvalidDataError, match="no results.parquet"):
        build_report(tmp_path)


def test_first_screen_states_strongest_attack_and_baselines_per_mechanism(tmp_path):
    cfg = parse_config({
        "name": "verdict-test", "seeds": [0],
        "datasets": [{"name": "tiny", "source": "injected"}],
        "mechanisms": [{"name": "fake-noise", "grid": {"epsilon": [50.0]}}],
        "attacks": [{"kind": "reidentification", "classifier": "knn", "n_splits": 2},
                    {"kind": "aware-rf", "n_splits": 2}],
        "fidelity": ["rmse"], "baselines": ["baseline-centre", "baseline-uniform"]})
    run_experiment(cfg, tmp_path, registry=fake_registry(),
                   datasets={"tiny": tiny_dataset(n_participants=3, n_stimuli=3,
                                                  n_samples=200)},
                   featurizer=fake_featurizer, workers=1)
    text = build_report(tmp_path).read_text()
    start = text.index("<section id='summary'>")
    # the first screen comes straight after the title, before every table of numbers
    assert text.index("<h1>") < start < text.index("<h2>Results: mechanism x metric</h2>")
    first = text[start:text.index("</section>", text.index("<section class='mech'>"))]
    assert "raw data" in first and "without any participant data" in first
    card = first[first.index("<section class='mech'>"):]
    assert "<h3>fake-noise" in card and "re-identification by " in card
    assert re.search(r"% identified vs chance 33\.3 % = <b[^>]*>\d+\.\dx chance</b>", card)
    # rmse in words, against the best (centre) baseline
    assert "gaze positions off by" in card and "the screen centre" in card
    assert "than data-free:</span>" in card or "about the same:</span>" in card
    curve = [p.name for p in (tmp_path / "figures").glob("curve_*rmse*.png")]
    assert curve  # baselines are drawn as reference lines on the fidelity curve


def test_plain_language_card_per_mechanism(run_dir, tmp_path):
    import json
    import shutil

    work = tmp_path / "copy"
    shutil.copytree(run_dir, work)
    g = Guarantee(mechanism="leaky", kind=Kind.PURE_DP, unit=Unit.WINDOW, epsilon=1.0,
                  mode="paper").with_flags(
        Flag(FlagCode.PROOF_GAP, "the lemma does not hold")).compose({"p0": 40, "p1": 2})
    recs = json.loads((work / "guarantees.json").read_text())
    recs.append({"key": "x", "dataset": "tiny", "mechanism": "leaky",
                 "parameters": {"epsilon": 1.0}, "seed": 0, "guarantee": g.to_dict()})
    (work / "guarantees.json").write_text(json.dumps(recs))
    text = build_report(work).read_text()
    start = text.index("<section id='summary'>")
    assert start < text.index("<h2>Guarantees</h2>")
    cards = re.findall(r"<section class='mech'>(.*?)</section>", text[start:], re.S)
    assert len(cards) == 2  # fake-noise (two settings in one card) and leaky
    fake = next(c for c in cards if "<h3>fake-noise" in c)
    assert fake.count("<tr><td>epsilon = ") == 2  # a row per setting
    leaky = next(c for c in cards if "<h3>leaky" in c)
    assert "odds change at most <b>2.72x</b> per window" in leaky
    assert "epsilon up to 40 over 2-40 windows: <b class='flag'>vacuous</b>" in leaky
    assert "NOT protected:</b> proof-gap: the lemma does not hold" in leaky
    assert "a participant as a whole" in leaky
    # Guarantee.explain() as Markdown, rendered, behind a click
    assert "<details class='explain'>" in leaky and "<h5>What is NOT protected</h5>" in leaky
    assert "no attack with a chance level was run" in leaky  # no results for this record
    # the guarantee table no longer shows a bare green "yes" beside a vacuous bound
    assert "per unit only: the per-participant bound is <b>vacuous</b>" in text
