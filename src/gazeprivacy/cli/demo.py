# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy demo --out DIR``: every sample-level mechanism on the bundled DOVES sample,
attacked and measured, with a report.

The run is written into a temporary folder beside DIR and renamed to DIR when complete, so an
interrupted demo (Ctrl-C) leaves no partial DIR.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from gazeprivacy.cli._common import (
    Output,
    atomic_dir,
    check_outputs,
    make_rng,
    progress_wanted,
    say,
)
from gazeprivacy.cli._common import out as out_console

if TYPE_CHECKING:
    import polars as pl

__all__ = ["demo"]


def demo(
    out: Annotated[Path, typer.Option("--out", help="Output folder (created; must be empty or "
                                      "absent unless --overwrite).")] = Path("demo-report"),
    seed: Annotated[int | None, typer.Option(help="Fix the seed (research run; >= 0); default: "
                                                  "OS entropy.", min=0)] = None,
    workers: Annotated[int, typer.Option(help="Worker processes.", min=1)] = 2,
    n_splits: Annotated[int, typer.Option(help="Re-identification splits.", min=2)] = 20,
    progress: Annotated[bool, typer.Option(help="Report progress on stderr (a bar on a "
                                           "terminal, one line per step otherwise).")] = True,
    overwrite: Annotated[bool, typer.Option(help="Replace an existing demo folder.")] = False,
) -> None:
    """Protect the DOVES sample with every sample-level mechanism at epsilon 1, 2, 3, attack it,
    measure fidelity, and write results.parquet, guarantees.json and report.html."""
    from gazeprivacy.experiments.demo import run_demo

    check_outputs([Output(out, "--out", folder=True, markers=("results.parquet",))],
                  overwrite=overwrite)
    say(f"demo: writing into {out} (the folder appears when the run is complete)")
    with atomic_dir(out) as tmp:
        res, _report = run_demo(tmp, rng=make_rng(seed), workers=workers, n_splits=n_splits,
                                progress=progress_wanted(progress))
    console = out_console()
    mechs = sorted(set(res.results["mechanism"].to_list()) - {"none"})
    console.print(f"demo: {res.n_cells} cells in {res.seconds:.1f} s; mechanisms: "
                  f"{', '.join(mechs) or 'none registered yet (raw data only)'}", markup=False)
    for line in _attack_lines(res.results):
        console.print(line, markup=False, highlight=False)
    for note in res.notes[:10]:
        say(f"note: {note}")
    console.print(f"report: {out / 'report.html'}", markup=False)


def _attack_lines(results: pl.DataFrame) -> list[str]:
    """One line per release and re-identification attack: the rate identified beside chance
    (1 / participants) and their ratio, the attack in words; then the membership AUCs of the
    synthetic populations (and the raw reference)."""
    import polars as pl

    from gazeprivacy.report.words import evaluation_words

    keys = ["mechanism", "parameters", "seed", "evaluation"]
    reid = results.filter(pl.col("metric") == "identification_rate")
    chance = results.filter(pl.col("metric") == "chance").select(
        *keys, pl.col("value").alias("chance"))
    lines = []
    for row in reid.join(chance, on=keys, how="left", maintain_order="left").iter_rows(
            named=True):
        eps = "" if row["epsilon"] is None else f" eps={row['epsilon']:g}"
        text = f"  {row['mechanism']}{eps}: {100 * row['value']:.1f} % identified"
        if row["chance"]:
            text += (f" vs chance {100 * row['chance']:.1f} % "
                     f"= {row['value'] / row['chance']:.1f}x chance")
        lines.append(f"{text} ({evaluation_words(str(row['evaluation']))})")
    member = results.filter(pl.col("evaluation").str.starts_with("membership:"))
    se = member.filter(pl.col("metric") == "auc_se").select(*keys,
                                                             pl.col("value").alias("se"))
    for row in member.filter(pl.col("metric") == "auc").join(
            se, on=keys, how="left", maintain_order="left").iter_rows(named=True):
        eps = "" if row["epsilon"] is None else f" eps={row['epsilon']:g} per participant"
        who = "raw data (copy of the input)" if row["mechanism"] == "none" else row["mechanism"]
        pm = "" if row["se"] is None else f" +- {row['se']:.2f}"
        lines.append(f"  {who}{eps}: membership AUC {row['value']:.2f}{pm} vs chance 0.50 "
                     f"({evaluation_words(str(row['evaluation']))}, held-out split)")
    return lines
