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


def _study_csv(folder: Path) -> None:
    """A study's own table, with its own column names (the README's "your own data")."""
    import numpy as np
    import polars as pl

    n = 300
    pl.DataFrame({"subject": ["s1"] * n + ["s2"] * n, "trial": ["a"] * n + ["b"] * n,
                  "timestamp": np.tile(np.arange(n) / 60.0, 2),
                  "gaze_x": np.tile(17 + 8 * np.sin(np.arange(n) / 25), 2),
                  "gaze_y": np.full(2 * n, 9.5)}).write_csv(folder / "study.csv")


def test_the_example_runs_on_a_user_table(tmp_path, monkeypatch):
    """The "your own data" block, then the five lines after their loading line."""
    text = README.read_text()
    five = re.search(r"## Five lines of Python\n\n```python\n(.*?)```", text, re.S).group(1)
    own = re.search(r"On your own data.*?```python\n(.*?)```", text, re.S).group(1)
    _study_csv(tmp_path)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    code = "\n".join([own, *[ln for ln in five.splitlines() if "load_sample" not in ln]])
    exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["release"].output[0].sampling_rate_hz == 60.0
    assert (tmp_path / "protected.parquet").is_file()


def test_setup_commands_are_make_targets():
    text = README.read_text()
    assert "make demo" in text and "make test" in text
    makefile = (README.parent / "Makefile").read_text()
    assert re.search(r"^demo:", makefile, re.M) and re.search(r"^test:", makefile, re.M)
    assert "make test" in (README.parent / ".ci" / "run").read_text()


def _visible_commands() -> list[str]:
    """Every visible command line of the CLI: top-level commands and group subcommands."""
    import click
    import typer.main

    from gazeprivacy.cli.app import app

    group = typer.main.get_command(app)
    names = []
    for name in group.list_commands(click.Context(group)):
        cmd = group.get_command(click.Context(group), name)
        if cmd is None or cmd.hidden:
            continue
        subs = getattr(cmd, "commands", {})
        names += [f"{name} {s}" for s, c in subs.items() if not c.hidden] or [name]
    return names


def test_command_table_names_every_command():
    text = README.read_text()
    table = re.search(r"## Command line\n(.*?)\n## ", text, re.S).group(1)
    rows = [line for line in table.splitlines() if line.startswith("| `gazeprivacy ")]
    commands = _visible_commands()
    assert len(commands) >= 18
    missing = [c for c in commands if not any(f"`gazeprivacy {c} " in r or f"`gazeprivacy {c}`"
                                              in r for r in rows)]
    assert not missing, f"README's command table lacks {missing}"
    assert "reproduce seed0" not in text  # deprecated aliases are not advertised


def _code_blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", text, re.S | re.M)


def test_every_python_snippet_runs(tmp_path, monkeypatch):
    """Each Python block of the README runs (the five-line example above is one of them)."""
    text = README.read_text()
    five = re.search(r"## Five lines of Python\n\n```python\n(.*?)```", text, re.S).group(1)
    others = [b for b in _code_blocks(text, "python") if b != five]
    assert len(others) + 1 == len(_code_blocks(text, "python"))
    _study_csv(tmp_path)  # (read by the "your own data" block)
    monkeypatch.chdir(tmp_path)
    for block in others:
        exec(compile(block, "README.md", "exec"), {})


def test_shell_blocks_are_the_setup_commands():
    """The README's shell blocks hold only the two set-up commands (checked above as make
    targets); a new command in a shell block needs a test that runs it."""
    text = README.read_text()
    lines = [ln.split("#")[0].strip() for lang in ("bash", "sh", "shell", "console")
             for b in _code_blocks(text, lang) for ln in b.splitlines()]
    assert sorted(ln for ln in lines if ln) == ["make demo", "make test"]


def test_relative_links_resolve():
    text = README.read_text()
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [t for t in targets if "://" not in t]
    assert len(local) >= 10
    missing = [t for t in local if not (README.parent / t).exists()]
    assert not missing, f"README links to missing files: {missing}"
