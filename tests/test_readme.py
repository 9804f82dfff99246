# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The README's Python example runs as printed, and its two set-up commands exist."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_five_line_example_runs(tmp_path, monkeypatch):
    text = README.read_text()
    block = re.search(r"## Five lines of Python\n\n```python\n(.*?)```", text, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(block, "README.md", "exec"), namespace)
    release = namespace["release"]
    assert release.guarantee.mechanism == "dpgazesynth"
    assert (tmp_path / "protected.parquet").is_file()


def test_setup_commands_are_make_targets():
    text = README.read_text()
    assert "make demo" in text and "make test" in text
    makefile = (README.parent / "Makefile").read_text()
    assert re.search(r"^demo:", makefile, re.M) and re.search(r"^test:", makefile, re.M)
    assert "make test" in (README.parent / ".ci" / "run").read_text()
