# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""scripts/frontier_quick.py: the development loop holds out as many people as the frontier."""

from __future__ import annotations

import tomllib
from pathlib import Path

from script_helpers import load_script

_CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def test_the_loop_splits_with_each_frontier_config_s_fractions():
    """Every data set of the loop reads its frontier config's holdout and probe fractions
    (GazeGraph 0.375: 3 of its 8 people; the loop held out 0.3, 2 of them, until 2026-11-29)."""
    mod = load_script("frontier_quick.py")
    for data in mod.DATA:
        with open(_CONFIGS / f"frontier-{data}.toml", "rb") as fh:
            table = tomllib.load(fh)["frontier"]
        assert mod.split_fractions(data) == (table["holdout_fraction"], table["probe_fraction"])
    assert mod.split_fractions("gazegraph")[0] == 0.375
    assert round(8 * mod.split_fractions("gazegraph")[0]) == 3
