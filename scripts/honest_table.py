# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Print the honest-measurement table (issue 15) of a run's ``results.parquet``.

Usage: ``python scripts/honest_table.py RUN/results.parquet`` (e.g. a run of
``configs/honest-doves.toml``). One row per release (means over seeds): every re-identification
attack's rate as a multiple of chance (the papers' raw-trained RBFN, the aware random forest,
the deep attacker raw-trained and aware), the strongest of them, RMSE and density error with the
best data-free baseline's value beside them, and the discriminator AUC. A utility cell is marked
``*`` when it beats the best baseline by more than two standard errors (the runner's
``beats_baselines``).
"""

from __future__ import annotations

import sys

import polars as pl

ATTACKS = (("reid:rbfn:seed000", "RBFN raw-trained"), ("reid:aware-rf", "aware RF"),
           ("reid:deep:seed000", "deep raw-trained"), ("reid:deep", "deep aware"))
UTILITY = (("rmse", "RMSE deg"), ("density_error", "density error"))


def _mean(t: pl.DataFrame, prefix: str, metric: str, *, exact: bool = False) -> float | None:
    ev = pl.col("evaluation")
    hit = (ev == prefix) if exact else ev.str.starts_with(prefix)
    if prefix.startswith("reid:deep"):  # raw-trained (seed000) or aware (any other threat),
        raw = ev.str.ends_with(":seed000")  # with or without a segment length in the name
        hit = ev.str.starts_with("reid:deep") & (raw if prefix.endswith(":seed000") else ~raw)
    v = t.filter(hit & (pl.col("metric") == metric))["value"]
    return None if v.len() == 0 else float(v.mean())


def _attack(t: pl.DataFrame, prefix: str) -> tuple[float | None, float | None]:
    rate = _mean(t, prefix, "identification_rate", exact=prefix.endswith("seed000"))
    chance = _mean(t, prefix, "chance", exact=prefix.endswith("seed000"))
    return rate, chance


def _utility(t: pl.DataFrame, metric: str) -> tuple[float | None, bool]:
    rows = t.filter(pl.col("metric") == metric)
    if rows.height == 0:
        return None, False
    beats = "beats_baselines" in rows.columns and bool(rows["beats_baselines"].fill_null(False)
                                                       .any())
    return float(rows["value"].mean()), beats


def main(path: str) -> None:
    res = pl.read_parquet(path)
    chance_note = []
    head = ["release", "parameters", *(f"{n} (x chance)" for _, n in ATTACKS), "strongest",
            *(n for _, n in UTILITY), "discriminator AUC"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    base = res.filter(pl.col("mechanism").str.starts_with("baseline-"))
    best = {m: base.filter(pl.col("metric") == m).group_by("mechanism").agg(
        pl.col("value").mean()).sort("value").row(0) if base.filter(
        pl.col("metric") == m).height else None for m, _ in UTILITY}
    order = ["none", *sorted(m for m in res["mechanism"].unique() if m.startswith("baseline-")),
             *sorted(m for m in res["mechanism"].unique()
                     if m != "none" and not m.startswith("baseline-"))]
    for (mech, params), t in sorted(res.group_by("mechanism", "parameters"),
                                    key=lambda g: (order.index(g[0][0]), g[0][1])):
        cells, ratios = [], []
        for prefix, _ in ATTACKS:
            rate, chance = _attack(t, prefix)
            if rate is None or not chance:
                cells.append("n/a")
                continue
            ratios.append(rate / chance)
            cells.append(f"{rate:.3f} ({rate / chance:.1f}x)")
            chance_note.append(chance)
        util = []
        for m, _ in UTILITY:
            v, beats = _utility(t, m)
            util.append("n/a" if v is None else f"{v:.3f}{' *' if beats else ''}")
        auc = _mean(t, "realism:discriminator", "discriminator_auc", exact=True)
        print("| " + " | ".join([mech if mech != "none" else "raw (reference)", f"`{params}`",
                                 *cells, f"{max(ratios):.1f}x" if ratios else "n/a", *util,
                                 "n/a" if auc is None else f"{auc:.2f}"]) + " |")
    if chance_note:
        print(f"\nchance: {min(chance_note):.3f}-{max(chance_note):.3f}; best data-free "
              "baseline: " + ", ".join(f"{m} {b[1]:.3f} ({b[0]})" for m, b in best.items() if b))


if __name__ == "__main__":
    main(sys.argv[1])
