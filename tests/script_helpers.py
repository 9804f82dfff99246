# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""A script of ``scripts/`` loaded as a module, for the tests of its functions (scripts are
not a package)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

__all__ = ["load_script"]

_SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def load_script(filename: str, name: str | None = None) -> ModuleType:
    """``scripts/<filename>`` executed as a fresh module named ``name`` (default its stem)."""
    path = _SCRIPTS / filename
    spec = importlib.util.spec_from_file_location(name or path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
