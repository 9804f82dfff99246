# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Every benchmark and script under ``benchmarks/`` and ``scripts/`` imports.

They run outside the test suite (``make bench``, the development loop, the docs' reproduce
lines), so a module moved inside the package can break one unseen: ``benchmarks/run.py`` and
``benchmarks/event_synth_pd_quality.py`` imported a helper that had moved and failed at import
for several rounds. Importing each one (without running its ``main``) catches that.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOLS = sorted([*(ROOT / "benchmarks").glob("*.py"), *(ROOT / "scripts").glob("*.py")])


def test_the_tool_folders_are_found():
    names = {p.name for p in TOOLS}
    assert {"run.py", "protect_process.py", "frontier_quick.py", "mutants.py"} <= names


@pytest.mark.parametrize("path", TOOLS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_tool_imports(path, monkeypatch):
    # a tool imports its siblings (benchmarks/_workload.py) by plain name, as when it is run
    monkeypatch.syspath_prepend(str(path.parent))
    name = f"_tool_{path.parent.name}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    spec.loader.exec_module(module)
    assert module.__name__ == name
