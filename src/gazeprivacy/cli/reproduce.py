# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy reproduce <paper> --out DIR``: one subcommand per seed paper's experiment.

Other papers add a function here and one ``reproduce_app.command(...)`` line in
:mod:`gazeprivacy.cli.app`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from gazeprivacy.experiments.reproduce.seed003 import reproduce_seed003
from gazeprivacy.rng import make_rng

__all__ = ["reproduce_app", "seed003"]

reproduce_app = typer.Typer(help="Reproduce a seed paper's experiment.", no_args_is_help=True)


def _default_data_dir() -> Path:
    import os

    env = os.environ.get("GAZEPRIVACY_DATA")
    return Path(env) if env else Path("../shared/data")


def seed003(
    out: Annotated[Path, typer.Option(help="Output folder.")],
    data_dir: Annotated[Path | None, typer.Option(
        help="Folder with osie_fixations/ and figrim_fixations/ (default $GAZEPRIVACY_DATA or "
             "../shared/data).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the run (research run).")] = 0,
    n_draws: Annotated[int, typer.Option(help="Noisy heatmaps per setting.")] = 100,
    n_stimuli: Annotated[int, typer.Option(help="Images per dataset.")] = 3,
    dataset: Annotated[list[str] | None, typer.Option(
        help="osie and/or figrim (repeatable; default both).")] = None,
    epsilon: Annotated[list[float] | None, typer.Option(
        help="Epsilons (repeatable; default 0.5 1 1.5 2 3).")] = None,
    sigma_px: Annotated[float, typer.Option(help="Heatmap point-spread sigma (px).")] = 24.0,
    cell_px: Annotated[int, typer.Option(help="Gaze-map cell size (px).")] = 1,
    n_simulated: Annotated[int, typer.Option(help="Simulated observers (paper: 50000).")] = 50_000,
) -> None:
    """Liu et al. (ETRA 2019) Figure 3: CC and MSE vs epsilon, Gaussian / Laplacian / analytic."""
    res = reproduce_seed003(
        out, data_dir=data_dir or _default_data_dir(), rng=make_rng(seed), n_draws=n_draws,
        n_stimuli=n_stimuli, datasets=tuple(dataset or ("osie", "figrim")),
        epsilons=tuple(epsilon or (0.5, 1.0, 1.5, 2.0, 3.0)), sigma_px=sigma_px,
        cell_px=cell_px, n_simulated=n_simulated)
    console = Console()
    t = Table("dataset", "mechanism", "epsilon", "CC", "MSE")
    wide = res.summary.pivot(on="metric", index=["dataset", "mechanism", "epsilon"],
                             values="mean").sort("dataset", "mechanism", "epsilon")
    for row in wide.iter_rows(named=True):
        t.add_row(row["dataset"], row["mechanism"], f"{row['epsilon']:g}", f"{row['cc']:.4f}",
                  f"{row['mse']:.3e}")
    console.print(t)
    console.print(f"figure: {res.figure}; tables and guarantee records in {out}")
