# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy datasets [--data-dir DIR] [--format table|json|csv]``: which real datasets are
available, with counts. Names are never truncated: they are what users type."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from gazeprivacy.cli._common import Format, echo_table, out, say

__all__ = ["datasets"]


def _count(v: int | None) -> str:
    return "-" if v is None else f"{v:,}"


def datasets(
    data_dir: Annotated[Path | None, typer.Option(
        "--data-dir", help="Folder containing the dataset folders (default: "
                           "$GAZEPRIVACY_DATA).")] = None,
    format: Annotated[Format, typer.Option("--format", help="Output format.")] = Format.table,
) -> None:
    """List the datasets gazeprivacy can load: participants, recordings, samples, licence."""
    from gazeprivacy.data.loaders.catalog import describe_datasets

    start = time.perf_counter()
    tab = describe_datasets(data_dir)
    fmt = Format(format)
    if fmt is Format.json:
        out().print_json(tab.write_json())
        return
    if fmt is Format.csv:
        print(tab.write_csv(), end="")
        return
    table = Table("dataset", "kind", "participants", "recordings", "samples", "rate (Hz)",
                  "licence", "shippable", "note", title="gazeprivacy datasets")
    for r in tab.iter_rows(named=True):
        rate = r["sampling_rate_hz"]
        dim = "" if r["found"] else "dim"
        table.add_row(
            Text(r["name"], style=dim), Text(str(r["kind"])),
            _count(r["participants"]), _count(r["recordings"]), _count(r["samples"]),
            "-" if rate is None else f"{rate:g}", Text(str(r["licence"])),
            "yes" if r["redistributable"] else "no",
            Text(str(r["note"]), style="" if r["found"] else "yellow"))
    # The names are what users type: their column never folds (other columns do).
    table.columns[0].min_width = max((len(n) for n in tab["name"].to_list()), default=7)
    echo_table(table)
    found = int(tab["found"].sum())
    say(f"{found} of {tab.height} found in {time.perf_counter() - start:.1f} s. For fixation "
        "data, recordings = trials and samples = fixations; for feature tables both are rows.")
