# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The documentation: the site builds with ``mkdocs build --strict``, the commands and snippets
of Getting started and Concepts run, the example notebooks execute, and the project files
(LICENSE, CITATION.cff, CHANGELOG.md, py.typed) agree with pyproject.toml."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from datetime import date
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
NOTEBOOKS = sorted((DOCS / "examples").glob("*.ipynb"))


def _env() -> dict[str, str]:
    src = str(ROOT / "src")
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "OMP_NUM_THREADS": "1", "NO_MKDOCS_2_WARNING": "1",
            "JUPYTER_PLATFORM_DIRS": "1",
            "PYTHONPATH": src + (os.pathsep + path if path else "")}


def _blocks(page: Path, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", page.read_text(), re.S | re.M)


@pytest.mark.slow
def test_site_builds_strict(tmp_path):
    site = tmp_path / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
         str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env=_env())
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    api = (site / "api" / "guarantees" / "index.html").read_text()
    assert 'id="gazeprivacy.guarantees.Guarantee.explain"' in api  # mkdocstrings rendered it
    assert ":class:<code>" not in api  # the hook strips Sphinx roles
    facade = (site / "api" / "index.html").read_text()
    assert 'id="gazeprivacy.mechanisms.protect.protect"' in facade
    assert 'id="gazeprivacy.write_release"' in facade
    for page in ("getting-started", "concepts", "choosing", "streaming", "changelog"):
        assert (site / page / "index.html").is_file(), page
    assert "Keep a Changelog" in (site / "changelog" / "index.html").read_text()
    # the notebooks are pages of the site (mkdocs-jupyter), each with its .ipynb beside it
    assert {p.name for p in (site / "examples").rglob("*.ipynb")} == {p.name for p in NOTEBOOKS}
    for nb in NOTEBOOKS:
        assert "jupyter-wrapper" in (site / "examples" / nb.stem / "index.html").read_text()
    guide = (site / "release-a-study" / "index.html").read_text()
    assert "Art. 4(5)" in guide and "not legal advice" in guide


def test_every_docs_page_is_in_the_nav():
    """Pages left out of the nav are only reachable by search; the new ones must be listed."""
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())

    def paths(node):
        if isinstance(node, str):
            yield node
        elif isinstance(node, list):
            for item in node:
                yield from paths(item)
        elif isinstance(node, dict):
            for value in node.values():
                yield from paths(value)

    nav = set(paths(config["nav"]))
    pages = {p.relative_to(DOCS).as_posix() for p in (*DOCS.rglob("*.md"), *NOTEBOOKS)}
    assert not nav - pages, f"nav entries without a page: {sorted(nav - pages)}"
    assert not pages - nav, f"pages missing from the nav in mkdocs.yml: {sorted(pages - nav)}"


@pytest.mark.slow
def test_getting_started_commands_run(tmp_path, monkeypatch):
    """Every ``gazeprivacy`` line of the page's bash blocks, in order, then its Python blocks."""
    page = DOCS / "getting-started.md"
    (tmp_path / "docs" / "examples").mkdir(parents=True)
    shutil.copy(DOCS / "examples" / "sample-quick.toml", tmp_path / "docs" / "examples")
    commands = [line for block in _blocks(page, "bash") for line in block.splitlines()
                if line.startswith("gazeprivacy ")]
    assert len(commands) >= 6
    for line in commands:
        proc = subprocess.run([sys.executable, "-m", "gazeprivacy", *shlex.split(line)[1:]],
                              cwd=tmp_path, capture_output=True, text=True, timeout=600,
                              env=_env())
        assert proc.returncode == 0, f"{line}\n{proc.stdout[-1500:]}\n{proc.stderr[-3000:]}"
        assert "Traceback" not in proc.stderr
    info = subprocess.run([sys.executable, "-m", "gazeprivacy", "info", "protected.parquet"],
                          cwd=tmp_path, capture_output=True, text=True, env=_env())
    assert "per participant epsilon <= 132" in info.stdout  # the numbers the page quotes
    assert "vacuous" in info.stdout
    assert (tmp_path / "quick-report" / "report.html").is_file()
    _check_quick_report_claims(tmp_path / "quick-report" / "results.parquet")
    monkeypatch.chdir(tmp_path)
    blocks = _blocks(page, "python")
    assert len(blocks) == 2
    for block in blocks:
        exec(compile(block, str(page), "exec"), {})
    assert (tmp_path / "kaleido.parquet.guarantee.json").is_file()


def _check_quick_report_claims(results: Path) -> None:
    """What the page says of the quick run: Kaleido (r = 2 deg) keeps the aware attacker within
    a few times chance (2.3x measured; at most 3x here), yet its RMSE is worse than the
    screen-centre baseline's."""
    import polars as pl

    r = pl.read_parquet(results)

    def values(mechanism: str, metric: str) -> list[float]:
        return r.filter((pl.col("mechanism") == mechanism) & (pl.col("metric") == metric))[
            "value"].to_list()

    chance = values("kaleido", "chance")[0]
    assert max(values("kaleido", "identification_rate")) <= 3 * chance
    assert min(values("kaleido", "rmse")) > values("baseline-centre", "rmse")[0]


def test_concepts_snippet_runs(tmp_path, monkeypatch):
    page = DOCS / "concepts.md"
    monkeypatch.chdir(tmp_path)
    blocks = _blocks(page, "python")
    assert blocks
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(page), "exec"), namespace)
    g = namespace["g"]
    # the page says: about 12 recordings x 11 windows x epsilon 2
    assert g.unit.value == "window" and g.max_participant_epsilon == pytest.approx(264)


def test_streaming_snippet_runs():
    """docs/streaming.md's Python block, with the chunk it leaves to the reader."""
    import numpy as np

    blocks = _blocks(DOCS / "streaming.md", "python")
    assert len(blocks) == 1
    namespace: dict = {"x_chunk": np.linspace(-5.0, 5.0, 60), "y_chunk": np.zeros(60)}
    exec(compile(blocks[0], str(DOCS / "streaming.md"), "exec"), namespace)
    assert len(namespace["xs"]) == 60 and np.isfinite(namespace["x_out"])
    assert namespace["record"].kind.value == "(epsilon,w,r)-DP"


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(notebook, tmp_path, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    for key, value in _env().items():
        monkeypatch.setenv(key, value)
    nb = nbformat.read(notebook, as_version=4)
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), \
        "commit notebooks without outputs"
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert not errors


def test_two_example_notebooks():
    assert len(NOTEBOOKS) >= 2


def test_licence_matches_pyproject():
    licence = PYPROJECT["project"]["license"]
    assert licence == "MIT"
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Permission is hereby granted" in text
    assert "NOTICE_DOVES.md" in text  # the sample keeps its own terms
    assert (ROOT / "src" / "gazeprivacy" / "data" / "sample" / "NOTICE_DOVES.md").is_file()


# CFF 1.2.0's top-level keys (https://citation-file-format.github.io, schema 1.2.0)
_CFF_KEYS = {"abstract", "authors", "cff-version", "commit", "contact", "date-released", "doi",
             "identifiers", "keywords", "license", "license-url", "message", "preferred-citation",
             "references", "repository", "repository-artifact", "repository-code", "title",
             "type", "url", "version"}


def test_citation_cff():
    """Structure of CITATION.cff (CFF 1.2.0): required keys, known keys only, and the version
    and licence of pyproject.toml. (Checked once with cffconvert 2.0.0 --validate, which pins
    jsonschema < 4 and so is not a test dependency.)"""
    import yaml

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0"
    assert not set(cff) - _CFF_KEYS, f"unknown keys {set(cff) - _CFF_KEYS}"
    for key in ("message", "title", "authors"):
        assert cff.get(key), key
    assert all(isinstance(a, dict) and (a.get("name") or a.get("family-names"))
               for a in cff["authors"])
    assert cff["type"] in {"software", "dataset"}
    assert str(cff["version"]) == PYPROJECT["project"]["version"]
    assert cff["license"] == PYPROJECT["project"]["license"]
    date.fromisoformat(str(cff["date-released"]))
    for ref in cff.get("references", []):
        assert ref["type"] and ref["title"] and ref["authors"]


def test_changelog_keeps_a_changelog():
    text = (ROOT / "CHANGELOG.md").read_text()
    assert text.startswith("# Changelog")
    assert "## [Unreleased]" in text
    version = PYPROJECT["project"]["version"]
    m = re.search(rf"^## \[{re.escape(version)}\] - (\d{{4}}-\d{{2}}-\d{{2}})$", text, re.M)
    assert m, f"no '## [{version}] - YYYY-MM-DD' section"
    date.fromisoformat(m.group(1))
    sections = re.findall(r"^### (\w+)$", text, re.M)
    assert set(sections) <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def test_py_typed_is_package_data():
    assert (ROOT / "src" / "gazeprivacy" / "py.typed").is_file()
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    assert "py.typed" in data["gazeprivacy"]


def test_docs_extra_is_installed_by_make_test():
    extras = PYPROJECT["project"]["optional-dependencies"]
    names = {re.split(r"[\[<>=]", d)[0] for d in extras["docs"]}
    assert {"mkdocs", "mkdocs-material", "mkdocstrings"} <= names
    assert {"nbclient", "ipykernel"} <= {re.split(r"[\[<>=]", d)[0] for d in extras["test"]}
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r'pip install -q -c \$\(CONSTRAINTS\) -e "\.\[\$\(EXTRAS\)\]"', makefile)
    installed = re.search(r"^EXTRAS := (.+)$", makefile, re.M).group(1).split(",")
    assert "docs" in installed and "test" in installed
