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
