# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Data flows one way: a module imports only its own layer and the layers to its left."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "gazeprivacy"
ORDER = ["data", "events", "features", "mechanisms", "attacks|metrics|audit|engines",
         "experiments|report", "cli"]
RANK = {name: i for i, group in enumerate(ORDER) for name in group.split("|")}


def layer_of(parts: tuple[str, ...]) -> int | None:
    return RANK.get(parts[0]) if parts else None


def test_no_module_imports_a_layer_to_its_right_or_the_facade():
    offences = []
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC).parts
        own = layer_of(rel[:-1]) if len(rel) > 1 else None
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                parts = name.split(".")
                if parts[0] != "gazeprivacy":
                    continue
                if len(parts) == 1:
                    offences.append(f"{path}: imports the facade")
                    continue
                target = layer_of(tuple(parts[1:]))
                if own is not None and target is not None and target > own:
                    offences.append(f"{path}: {name}")
    assert not offences, "\n".join(offences)
