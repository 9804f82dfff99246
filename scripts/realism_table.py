# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Print the realism table of ``docs/realism.md`` from a run's ``results.parquet``.

Usage: ``python scripts/realism_table.py RUN/results.parquet`` (a run of a config with a
``[realism]`` section, e.g. ``configs/realism-doves.toml``). One row per release (means over
seeds); ``x (s)`` is a value with its standard error.
"""

from __future__ import annotations

import sys

import polars as pl


def _get(t: pl.DataFrame, evaluation: str, metric: str) -> float | None:
    v = t.filter((pl.col("evaluation") == evaluation) & (pl.col("metric") == metric))["value"]
    return None if v.len() == 0 else float(v.mean())


def _fmt(v: float | None, se: float | None = None, digits: int = 2) -> str:
    if v is None or v != v:
        return "n/a"
    text = f"{v:.{digits}f}"
    return text if se is None or se != se else f"{text} ({se:.{digits}f})"


def main(path: str) -> None:
    res = pl.read_parquet(path)
    tstr = sorted(e for e in res["evaluation"].unique() if e.endswith(":tstr-rf"))
    head = ["release", "parameters", "discriminator AUC (SE)", "V_max deg/s", "C deg",
            "RMSE to raw fit deg/s", "W1 fixation duration s (SE)",
            "W1 saccade amplitude deg (SE)", "saccade share",
            *(f"TSTR {e.split(':')[0]} (SE)" for e in tstr)]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    order = ["none", *sorted(m for m in res["mechanism"].unique() if m.startswith("baseline-")),
             *sorted(m for m in res["mechanism"].unique()
                     if m != "none" and not m.startswith("baseline-"))]
    for (mech, params), t in sorted(res.group_by("mechanism", "parameters"),
                                    key=lambda g: (order.index(g[0][0]), g[0][1])):
        d, ms, ev = "realism:discriminator", "realism:main-sequence", "realism:events"
        row = [mech if mech != "none" else "raw (reference)", f"`{params}`",
               _fmt(_get(t, d, "discriminator_auc"), _get(t, d, "discriminator_auc_se")),
               _fmt(_get(t, ms, "vmax_deg_s"), digits=0), _fmt(_get(t, ms, "c_deg"), digits=1),
               _fmt(_get(t, ms, "rmse_to_raw_fit_deg_s"), digits=0),
               _fmt(_get(t, ev, "fixation_duration_w1_s"), _get(t, ev, "fixation_duration_w1_s_se"),
                    digits=3),
               _fmt(_get(t, ev, "saccade_amplitude_w1_deg"),
                    _get(t, ev, "saccade_amplitude_w1_deg_se")),
               _fmt(_get(t, ev, "saccade_share")),
               *(_fmt(_get(t, e, "accuracy"), _get(t, e, "accuracy_se"), digits=3)
                 for e in tstr)]
        print("| " + " | ".join(row) + " |")
    for e in tstr:
        chance = _get(res.filter(pl.col("mechanism") == "none"), e, "chance")
        print(f"\n{e}: chance (majority share of the raw windows) {_fmt(chance, digits=3)}")


if __name__ == "__main__":
    main(sys.argv[1])
