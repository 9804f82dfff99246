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



# `protect --mechanism M` imports M's module alone (the registry is lazy) and none of the
# libraries of the attacks, plots or deep models (issue 18).
_PROTECT_PROBE = """
import json, sys
import gazeprivacy.cli.app as app
code = app.run(["protect", sys.argv[1], sys.argv[2], *sys.argv[3:]])
assert code in (0, None), code
print(json.dumps(sorted(sys.modules)))
"""

_MECH_MODULES = {
    "kaleido": "gazeprivacy.mechanisms.samples.kaleido",
    "dpgazesynth": "gazeprivacy.mechanisms.samples.dpgazesynth",
}
_ARGS = {"kaleido": ["--epsilon", "2", "--radius-deg", "2", "--window-s", "0.5"],
         "dpgazesynth": ["--epsilon", "2", "--grid-size", "10"]}


@pytest.mark.parametrize("mechanism", sorted(_MECH_MODULES))
def test_protect_imports_only_its_own_mechanism(mechanism, tmp_path):
    import numpy as np

    from gazeprivacy.data.io import write_dataset
    from gazeprivacy.data.simulate import simulate_dataset

    write_dataset(simulate_dataset(n_participants=2, tasks=("reading",), duration_s=2.0,
                                   sampling_rate_hz=100, rng=np.random.default_rng(0)),
                  tmp_path / "in.parquet")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": os.pathsep.join(
        [str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])])}
    res = subprocess.run(
        [sys.executable, "-c", _PROTECT_PROBE, str(tmp_path / "in.parquet"),
         str(tmp_path / "out.parquet"), "--mechanism", mechanism, *_ARGS[mechanism],
         "--public", "mask", "--seed", "0"],
        capture_output=True, text=True, env=env, timeout=120, check=False)
    assert res.returncode == 0, res.stderr
    loaded = set(json.loads(res.stdout.strip().splitlines()[-1]))
    assert _MECH_MODULES[mechanism] in loaded  # the probe did run the mechanism
    others = {m for m in loaded if m.startswith(("gazeprivacy.mechanisms.samples.",
                                                 "gazeprivacy.mechanisms.heatmaps.",
                                                 "gazeprivacy.mechanisms.series"))
              and not m.startswith(_MECH_MODULES[mechanism] + ".")}  # its own package's parts
    own = {_MECH_MODULES[mechanism], "gazeprivacy.mechanisms.samples._kaleido_loop"}
    mine = {m for m in others if m.startswith(_MECH_MODULES[mechanism] + ".")}  # a subpackage's
    assert others - mine == {_MECH_MODULES[mechanism]} | (own & others if mechanism == "kaleido"
                                                          else set())
    assert not {m.split(".")[0] for m in loaded} & {"torch", "sklearn", "matplotlib", "scipy"}
