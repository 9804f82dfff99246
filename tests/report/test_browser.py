# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The report as a reader gets it: loaded in headless Chromium at 1280 x 800, it opens with the
verdict and the plain-language summary, and nothing needs a horizontal scroll.

CI installs Chromium (``.ci/run``). Without a browser these tests are skipped, with a message
that says how to install one.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser

import pytest

from evaluate_helpers import fake_featurizer, fake_registry, tiny_dataset
from gazeprivacy.experiments.config import parse_config
from gazeprivacy.experiments.engine import run_experiment
from gazeprivacy.report.html import build_report

_BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def _browser() -> str:
    found = next((p for b in _BROWSERS if (p := shutil.which(b))), None)
    if found:
        return found
    pytest.skip("the report's browser tests need Chromium on PATH (tried "
                f"{', '.join(_BROWSERS)}); install it with `apt-get install -y chromium` "
                "(as .ci/run does) to run them")


def _dump_dom(browser: str, url: str) -> str:
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={profile}", "--window-size=1280,800",
             "--virtual-time-budget=5000", "--dump-dom", url],
            capture_output=True, text=True, timeout=180, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


class _SectionText(HTMLParser):
    """The visible text of the first ``<section id="summary">`` and the order of headings."""

    def __init__(self) -> None:
        super().__init__()
        self.depth, self.text, self.headings, self._in_h = 0, [], [], False

    def handle_starttag(self, tag, attrs):
        if tag == "section" and (self.depth or ("id", "summary") in attrs):
            self.depth += 1
        self._in_h = tag in ("h1", "h2")

    def handle_endtag(self, tag):
        if tag == "section" and self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if self._in_h:
            self.headings.append(data.strip())
            self._in_h = False
        if self.depth:
            self.text.append(data)


def test_chromium_shows_the_verdict_and_the_plain_language_summary_first(tmp_path):
    browser = _browser()
    cfg = parse_config({
        "name": "browser-test", "seeds": [0],
        "datasets": [{"name": "tiny", "source": "injected"}],
        "mechanisms": [{"name": "fake-noise", "grid": {"epsilon": [1.0]}}],
        "attacks": [{"kind": "reidentification", "classifier": "knn", "n_splits": 2}],
        "fidelity": ["rmse"], "baselines": ["baseline-centre"]})
    run_experiment(cfg, tmp_path, registry=fake_registry(),
                   datasets={"tiny": tiny_dataset(n_participants=3, n_stimuli=2,
                                                  n_samples=150)},
                   featurizer=fake_featurizer, workers=1)
    page = build_report(tmp_path)
    dom = _dump_dom(browser, page.resolve().as_uri())
    parsed = _SectionText()
    parsed.feed(dom)
    assert parsed.headings[:3] == ["gazeprivacy report: browser-test", "Verdict",
                                   "In plain words"]
    text = " ".join(" ".join(parsed.text).split())
    for phrase in ("fake-noise", "Released:", "odds change at most 2.72x per", "per participant",
                   "NOT protected:", "strongest attack vs chance", "% identified vs chance 33.3 %",
                   "utility vs the best data-free baseline", "gaze positions off by"):
        assert phrase in text, phrase


def test_a_missing_browser_skips_with_the_way_out(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(pytest.skip.Exception, match="apt-get install -y chromium"):
        _browser()


#: appended to a copy of the report: after load, open every <details> and write the page's
#: scroll width, the viewport and every box that scrolls sideways into <pre id="measure">
_MEASURE = """<script>window.addEventListener("load", () => {
  document.querySelectorAll("details").forEach(d => { d.open = true; });
  const over = [];
  for (const e of document.querySelectorAll("*")) {
    if (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1
        && getComputedStyle(e).overflowX !== "visible") over.push(e.tagName + "." + e.className);
  }
  const p = document.createElement("pre"); p.id = "measure";
  p.textContent = JSON.stringify({page: document.documentElement.scrollWidth,
                                  viewport: document.documentElement.clientWidth, over});
  document.body.appendChild(p);
});</script>"""


def test_nothing_scrolls_sideways_at_1280_by_800(tmp_path):
    browser = _browser()
    cfg = parse_config({
        "name": "width-test", "seeds": [0, 1],
        "datasets": [{"name": "tiny", "source": "injected"}],
        "mechanisms": [{"name": "fake-noise", "grid": {"epsilon": [0.5, 1.0, 2.0, 5.0]}}],
        "attacks": [{"kind": "reidentification", "classifier": "knn", "n_splits": 2},
                    {"kind": "reidentification", "classifier": "rf", "n_splits": 2},
                    {"kind": "aware-rf", "n_splits": 2}],
        "fidelity": ["rmse", "rss_distance", "density_error", "suppressed_fraction"],
        "baselines": True})
    run_experiment(cfg, tmp_path, registry=fake_registry(),
                   datasets={"tiny": tiny_dataset(n_participants=3, n_stimuli=2,
                                                  n_samples=150)},
                   featurizer=fake_featurizer, workers=1)
    page = build_report(tmp_path)
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text().replace("</body>", _MEASURE + "</body>"))
    dom = _dump_dom(browser, probe.resolve().as_uri())
    found = re.search(r'<pre id="measure">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    got = json.loads(html.unescape(found.group(1)))
    assert got["page"] <= got["viewport"], got
    assert got["over"] == [], got
