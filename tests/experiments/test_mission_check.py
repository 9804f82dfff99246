# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""scripts/mission_check.py: z against chance and the target verdict per release."""

from __future__ import annotations

import math

import polars as pl

from gazeprivacy.experiments.engine import RESULT_SCHEMA
from script_helpers import load_script


def _load():
    return load_script("mission_check.py")


def _rows(mech, acc, se, beats=None):
    base = {"dataset": "d", "mechanism": mech, "mode": "sound", "parameters": "{}",
            "epsilon": None, "seed": 0, "kind": "privacy", "evaluation": "reid:aware-rf:seed004",
            "beats_baselines": None}
    out = [{**base, "metric": m, "value": v} for m, v in
           (("identification_rate", acc), ("unit_accuracy", acc), ("unit_accuracy_se", se),
            ("chance", 0.1))]
    out.append({**base, "kind": "fidelity", "evaluation": "fidelity", "metric": "density_error",
                "value": 0.3, "beats_baselines": beats})
    return out


def test_z_and_verdicts(tmp_path, capsys):
    mc = _load()
    assert mc._z(0.2, 0.05, 0.1) == 2.0
    assert mc._z(0.1, 0.0, 0.1) == 0.0
    assert mc._z(0.2, 0.0, 0.1) == math.inf and mc._z(0.0, 0.0, 0.1) == -math.inf
    rows = (_rows("leaky", 0.30, 0.01, True) + _rows("quiet", 0.11, 0.02, True)
            + _rows("useless", 0.10, 0.02, False) + _rows("baseline-centre", 0.1, 0.0))
    path = tmp_path / "results.parquet"
    pl.DataFrame(rows, schema=RESULT_SCHEMA).write_parquet(path)
    mc.main(str(path))
    lines = {ln.split(" | ")[0].strip("| "): ln for ln in capsys.readouterr().out.splitlines()}
    assert "| 20.0 | no |" in lines["leaky"] and lines["leaky"].endswith("| - |")
    assert "| 0.5 | yes | density_error | MET |" in lines["quiet"]
    assert lines["useless"].endswith("| yes | - | - |")
    assert lines["baseline-centre"].endswith("| - |")  # a baseline is never the target
