# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy datasets [--data-dir DIR]``: which real datasets are available, with counts."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from gazeprivacy.data.loaders.catalog import describe_datasets

__all__ = ["datasets"]


def _count(v: int | None) -> str:
    return "-" if v is None else f"{v:,}"


def datasets(
    data_dir: Annotated[Path | None, typer.Option(
        "--data-dir", help="Folder containing the dataset folders (default: "
                           "$GAZEPRIVACY_DATA).")] = None,
) -> None:
    """List the datasets gazeprivacy can load: participants, recordings, samples, licence."""
    start = time.perf_counter()
    tab = describe_datasets(data_dir)
    console = Console()
    table = Table("dataset", "kind", "participants", "recordings", "samples", "rate (Hz)",
                  "licence", "shippable", "note", title="gazeprivacy datasets")
    for r in tab.iter_rows(named=True):
        rate = r["sampling_rate_hz"]
        table.add_row(
            r["name"] if r["found"] else f"[dim]{r['name']}[/]", r["kind"],
            _count(r["participants"]), _count(r["recordings"]), _count(r["samples"]),
            "-" if rate is None else f"{rate:g}", r["licence"],
            "yes" if r["redistributable"] else "no",
            r["note"] if r["found"] else f"[yellow]{r['note']}[/]")
    console.print(table)
    found = int(tab["found"].sum())
    console.print(f"{found} of {tab.height} found in {time.perf_counter() - start:.1f} s. "
                  "For fixation data, recordings = trials and samples = fixations; for feature "
                  "tables both are rows.", highlight=False)
