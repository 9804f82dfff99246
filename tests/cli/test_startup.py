# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy --help`` starts fast: the command line imports no numerical library until a
command runs (issue 18: under 0.5 s and 120 MB). Checked in a fresh interpreter, by the modules
it loads (deterministic, unlike a wall-clock bound on a shared machine)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"

# Loaded only when a command runs. (typer itself loads pydantic for a command's --help.)
HEAVY = ("numpy", "polars", "pyarrow", "scipy", "scipy.optimize", "sklearn", "matplotlib",
         "torch", "pandas", "dask", "gazeprivacy.mechanisms", "gazeprivacy.data.io")

_PROBE = """
import contextlib, io, json, sys
import gazeprivacy.cli.app as app
loaded = {"import": sorted(sys.modules)}
for argv in (["--help"], ["protect", "--help"], ["stream", "--help"]):
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = app.run(argv)
    assert code == 0 and "Usage:" in out.getvalue(), (argv, code)
    loaded[" ".join(argv)] = sorted(sys.modules)
print(json.dumps(loaded))
"""


@pytest.fixture(scope="module")
def loaded() -> dict[str, list[str]]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])])}
    res = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         env=env, timeout=120, check=False)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


@pytest.mark.parametrize("stage", ["import", "--help", "protect --help", "stream --help"])
def test_the_cli_loads_no_numerical_library_for_help(loaded, stage):
    modules = set(loaded[stage])
    assert "gazeprivacy.cli.app" in modules  # the probe did import the command line
    assert not [m for m in HEAVY if m in modules]

