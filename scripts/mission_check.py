# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The mission check of a run: strongest attack against chance in standard errors, and utility.

Usage: ``python scripts/mission_check.py RUN/results.parquet`` (e.g. a run of
``configs/honest-doves-sealed.toml``).

One row per release (means over seeds). For every attack that reports a unit accuracy with its
standard error over splits (the aware forest, the deep attacker) ``z = (unit accuracy -
chance) / SE``; with an SE of 0 (e.g. every probe given the same answer), an accuracy at
chance counts as z = 0, above it as +inf, below as -inf. ``near chance`` = every such
z <= 2 (the mission's "within 2 SE of chance"; attacks without an SE, e.g. the RBFN, are shown
as a multiple of chance but not tested). ``beats`` lists
the utility / fidelity metrics that beat the best data-free baseline by more than two standard
errors (the runner's ``beats_baselines``). ``target`` = near chance and beats something; the
budget bound is the release's own (read its parameters: ``unit = participant`` makes
``epsilon`` the per-participant bound).
"""

from __future__ import annotations

import math
import sys

import polars as pl


def _z(acc: float, se: float, chance: float) -> float:
    if se > 0:
        return (acc - chance) / se
    if abs(acc - chance) < 1e-12:
        return 0.0
    return math.inf if acc > chance else -math.inf


def _attacks(t: pl.DataFrame) -> tuple[list[str], float]:
    """Per attack 'name acc (z)' and the largest z."""
    cells, zs = [], []
    priv = t.filter(pl.col("kind") == "privacy")
    for ev, g in sorted(priv.group_by("evaluation"), key=lambda x: x[0][0]):
        m = {k: float(v.mean()) for (k,), v in
             ((k, d["value"]) for k, d in g.group_by("metric"))}
        chance = m.get("chance")
        if chance is None or "identification_rate" not in m:
            continue
        short = str(ev[0]).removeprefix("reid:")
        if "unit_accuracy_se" in m and "unit_accuracy" in m:
            z = _z(m["unit_accuracy"], m["unit_accuracy_se"], chance)
            zs.append(z)
            cells.append(f"{short} {m['unit_accuracy']:.3f} (z {z:.1f})")
        else:
            cells.append(f"{short} {m['identification_rate'] / chance:.1f}x")
    return cells, max(zs, default=math.nan)


def main(path: str) -> None:
    res = pl.read_parquet(path)
    print("| release | parameters | attacks: unit accuracy (z vs chance) | max z | near chance "
          "| beats best data-free baseline on | target |")
    print("|---|---|---|---|---|---|---|")
    for (mech, params), t in sorted(res.group_by("mechanism", "parameters"),
                                    key=lambda g: (g[0][0], g[0][1])):
        if mech == "none":
            continue
        cells, zmax = _attacks(t)
        near = zmax <= 2.0
        flag = t.filter(pl.col("beats_baselines").fill_null(False))
        beats = sorted(set(flag["metric"].to_list()))
        target = near and bool(beats) and not mech.startswith("baseline-")
        print(f"| {mech} | `{params}` | {'; '.join(cells)} | {zmax:.1f} | "
              f"{'yes' if near else 'no'} | {', '.join(beats) or '-'} | "
              f"{'MET' if target else '-'} |")


if __name__ == "__main__":
    main(sys.argv[1])
