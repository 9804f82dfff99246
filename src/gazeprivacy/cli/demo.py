# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy demo --out DIR``: every sample-level mechanism on the bundled DOVES sample,
attacked and measured, with a report.

The run is written into a temporary folder beside DIR and renamed to DIR when complete, so an
interrupted demo (Ctrl-C) leaves no partial DIR.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

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
    reid = res.results.filter(res.results["metric"] == "identification_rate")
    for row in reid.iter_rows(named=True):
        eps = "" if row["epsilon"] is None else f" eps={row['epsilon']:g}"
        attack = str(row["evaluation"]).removeprefix("reid:")
        console.print(f"  {row['mechanism']}{eps}: identification rate {row['value']:.3f} "
                      f"({attack})", markup=False)
    for note in res.notes[:10]:
        say(f"note: {note}")
    console.print(f"report: {out / 'report.html'}", markup=False)
