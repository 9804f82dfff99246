# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy evaluate CONFIG --out DIR``: run an experiment grid and write its report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from gazeprivacy.experiments.config import load_config
from gazeprivacy.experiments.engine import run_experiment
from gazeprivacy.report.html import build_report

__all__ = ["evaluate"]


def evaluate(
    config: Annotated[Path, typer.Argument(help="Experiment config (TOML).")],
    out: Annotated[Path, typer.Option("--out", help="Output folder.")],
    workers: Annotated[int | None, typer.Option(help="Worker processes (default: the "
                                                     "config's, 2).")] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    report: Annotated[bool, typer.Option(help="Write report.html.")] = True,
) -> None:
    """Run the grid (resumable: finished cells are skipped), write results.parquet,
    guarantees.json and report.html."""
    cfg = load_config(config)
    res = run_experiment(cfg, out, workers=workers, progress=progress)
    console = Console()
    console.print(f"[bold]{cfg.name}[/]: {res.n_cells} cells ({res.n_run} run, "
                  f"{res.n_skipped} reused) in {res.seconds:.1f} s; "
                  f"{res.results.height} result rows -> {out / 'results.parquet'}")
    for note in res.notes[:10]:
        console.print(f"[yellow]note:[/] {note}", highlight=False)
    if report:
        path = build_report(out)
        console.print(f"report: {path}")
