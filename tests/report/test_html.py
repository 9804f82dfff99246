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
    assert "<h2>Results (mean and std over seeds)</h2>" in text and "<h2>Data</h2>" in text
    assert text.count("<table>") >= 3
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


def test_verdict_leads_the_report_with_strongest_attack_and_baselines(tmp_path):
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
    verdict = text.index("<h2>Verdict</h2>")
    assert verdict < text.index("<h2>Guarantees</h2>")
    first = text[verdict:text.index("</table>", verdict)]
    assert "rate / chance" in first and "fake-noise" in first and "baseline-uniform" in first
    assert "rmse" in first  # the fidelity metric against the best baseline
    # one seed, but rmse reports its standard error over recordings
    assert "one seed and no splits" not in first
    curve = [p.name for p in (tmp_path / "figures").glob("curve_*rmse*.png")]
    assert curve  # baselines are drawn as reference lines on the fidelity curve


def test_plain_language_paragraph_per_mechanism_under_the_verdict(run_dir, tmp_path):
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
    start = text.index("<h2>In plain words</h2>")
    assert text.index("<h2>Verdict</h2>") < start < text.index("<h2>Guarantees</h2>")
    block = text[start:text.index("</div>", start)]
    paras = re.findall(r"<p class='plain'>(.*?)</p>", block, re.S)
    assert len(paras) == 1 + len({json.dumps(r["parameters"], sort_keys=True)
                                  for r in recs if r["mechanism"] == "fake-noise"})
    leaky = next(p for p in paras if "<b>leaky</b>" in p)
    assert "change by at most a factor 2.72" in leaky
    assert "epsilon up to 40" in leaky and "<b>vacuous</b>" in leaky
    assert "<b>NOT protected:</b> proof-gap (the lemma does not hold)" in leaky
    others = [p for p in paras if "<b>leaky</b>" not in p]
    assert others and all("<b>vacuous</b>" not in p or "epsilon up to" in p for p in others)
