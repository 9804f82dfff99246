# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy info FILE``: a summary of a long-format data file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from gazeprivacy.cli._common import echo_table
from gazeprivacy.cli._common import out as out_console

__all__ = ["info"]


def info(
    path: Annotated[Path, typer.Argument(help="Long-format CSV or Parquet file.")],
    time_unit: Annotated[str, typer.Option(help="Unit of the t column: s, ms or us.")] = "s",
) -> None:
    """Summarise a data file: recordings, participants, samples, rates, labels, missing data."""
    from gazeprivacy.data.io import read_dataset

    ds = read_dataset(path, time_unit=time_unit)
    summary = ds.summary()
    console = out_console()
    rates = sorted(set(summary["sampling_rate_hz"].to_list()))
    rate_text = ", ".join(f"{r:g}" for r in rates)
    console.print(f"{path}: {len(ds)} recordings, {len(ds.participants)} participants, "
                  f"{ds.n_samples} samples; sampling rate(s) {rate_text} Hz; missing "
                  f"{summary['missing_fraction'].mean():.1%} of samples on average", markup=False)
    labels = ds.label_names()
    if labels:
        t = Table("label", "distinct values", "examples")
        for name in labels:
            vals = summary[name].drop_nulls().unique(maintain_order=True).to_list()
            t.add_row(Text(name), str(len(vals)), Text(", ".join(map(str, vals[:5]))))
        echo_table(t)
