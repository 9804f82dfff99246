# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Data flows one way: a module imports only its own layer and the layers to its left."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "gazeprivacy"
# accounting (the ledger) sits below the mechanisms' writers that charge it; deploy (LSL filter,
# device / curator wire format) at the engines' layer
ORDER = ["data", "events", "features", "accounting", "mechanisms",
         "attacks|metrics|audit|engines|deploy", "experiments|report", "cli"]
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


def _private_mechanism_uses(path: Path) -> list[str]:
    """Private names of ``gazeprivacy.mechanisms`` that ``path`` imports or reads.

    Caught: ``from gazeprivacy.mechanisms... import _x``, imports of private modules
    (``..._core``, ``heatmaps._base``), and ``m._x`` where ``m`` is bound to a mechanism module
    (by an import, or by ``mechanism_module(...)`` in the audit adapters).
    """
    tree = ast.parse(path.read_text())
    modules: set[str] = set()
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and \
                node.module.startswith("gazeprivacy.mechanisms"):
            if any(p.startswith("_") for p in node.module.split(".")):
                out.append(f"{path}:{node.lineno}: from {node.module}")
            for a in node.names:
                if a.name.startswith("_"):
                    out.append(f"{path}:{node.lineno}: {node.module}.{a.name}")
                modules.add(a.asname or a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("gazeprivacy.mechanisms"):
                    if any(p.startswith("_") for p in a.name.split(".")):
                        out.append(f"{path}:{node.lineno}: import {a.name}")
                    modules.add(a.asname or a.name.split(".")[0])
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                getattr(node.value.func, "id", "") == "mechanism_module":
            modules.update(t.id for t in node.targets if isinstance(t, ast.Name))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and \
                not node.attr.startswith("__") and isinstance(node.value, ast.Name) and \
                node.value.id in modules:
            out.append(f"{path}:{node.lineno}: {node.value.id}.{node.attr}")
    return out


def test_no_layer_outside_mechanisms_uses_a_private_name_of_a_mechanism():
    offences = [o for path in sorted(SRC.rglob("*.py"))
                if path.relative_to(SRC).parts[0] != "mechanisms"
                for o in _private_mechanism_uses(path)]
    assert not offences, "\n".join(offences)


def test_the_private_name_check_can_fail(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from gazeprivacy.mechanisms.samples import dpgazesynth as m\n"
                   "from gazeprivacy.mechanisms.series._core import laplace\n"
                   "mod = mechanism_module('kaleido')\n"
                   "m._clients(1)\nmod._client(2)\n")
    found = _private_mechanism_uses(bad)
    assert len(found) == 3 and any("m._clients" in f for f in found)
    assert any("mod._client" in f for f in found)
