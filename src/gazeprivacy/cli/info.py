# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy info FILE``: a summary of a long-format data file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from gazeprivacy.data.io import read_dataset

__all__ = ["info"]


def info(
    path: Annotated[Path, typer.Argument(help="Long-format CSV or Parquet file.")],
    time_unit: Annotated[str, typer.Option(help="Unit of the t column: s, ms or us.")] = "s",
) -> None:
    """Summarise a data file: recordings, participants, samples, rates, labels, missing data."""
    ds = read_dataset(path, time_unit=time_unit)
    summary = ds.summary()
    console = Console()
    rates = sorted(set(summary["sampling_rate_hz"].to_list()))
    console.print(f"[bold]{path}[/]: {len(ds)} recordings, {len(ds.participants)} participants, "
                  f"{ds.n_samples} samples; sampling rate(s) {', '.join(f'{r:g}' for r in rates)} "
                  f"Hz; missing {summary['missing_fraction'].mean():.1%} of samples on average")
    labels = ds.label_names()
    if labels:
        t = Table("label", "distinct values", "examples")
        for name in labels:
            vals = summary[name].drop_nulls().unique(maintain_order=True).to_list()
            t.add_row(name, str(len(vals)), ", ".join(map(str, vals[:5])))
        console.print(t)
