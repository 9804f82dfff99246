# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The facade ``gazeprivacy`` loads its public names on first use (PEP 562) and still offers
every one of them, from the module that defines it."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import gazeprivacy

SRC = Path(__file__).resolve().parents[1] / "src"


def test_import_gazeprivacy_loads_no_numerical_library():
    code = ("import json, sys, gazeprivacy; print(json.dumps(sorted(m for m in sys.modules "
            "if m.split('.')[0] in ('numpy', 'polars', 'pyarrow', 'scipy') "
            "or m.startswith('gazeprivacy.'))))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])])}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=60, check=True)
    assert json.loads(res.stdout) == ["gazeprivacy._lazy"]  # the lazy names' helper: stdlib only


@pytest.mark.parametrize("name", sorted(set(gazeprivacy.__all__) - {"__version__"}))
def test_every_public_name_is_the_defining_modules_object(name):
    namespace: dict = {}
    exec(f"from gazeprivacy import {name}", namespace)
    source = importlib.import_module(gazeprivacy._SOURCES[name])
    assert namespace[name] is getattr(source, name) is getattr(gazeprivacy, name)
    assert name in dir(gazeprivacy)


def test_star_import_and_version():
    namespace: dict = {}
    exec("from gazeprivacy import *", namespace)
    assert set(gazeprivacy.__all__) <= set(namespace)
    assert gazeprivacy.__version__ == "0.1.0"


def test_subpackages_are_attributes_and_unknown_names_fail():
    assert gazeprivacy.data.Geometry is gazeprivacy.Geometry
    assert not hasattr(gazeprivacy, "no_such_name")
    with pytest.raises(AttributeError, match="no_such_name"):
        gazeprivacy.no_such_name  # noqa: B018
