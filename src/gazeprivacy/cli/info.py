# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy info FILE``: a summary of a data file (the long format or an eye-tracker export,
read as ``gazeprivacy protect`` reads it), and its guarantee record when it is a release (the
sidecar ``FILE.guarantee.json`` or a record in the Parquet metadata)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from gazeprivacy.cli._common import echo_table
from gazeprivacy.cli._common import out as out_console
from gazeprivacy.cli.protect import InputFormat

__all__ = ["info"]


def info(
    path: Annotated[Path, typer.Argument(
        help="Long-format CSV or Parquet file, or an eye-tracker export (as for protect).")],
    time_unit: Annotated[str | None, typer.Option(
        help="Unit of the t column: s, ms, us or ns (the long format; default s).")] = None,
    input_format: Annotated[InputFormat | None, typer.Option(
        help="long, tobii, pupil-core, neon or eyelink. Default: told by the file's name and "
             "header.")] = None,
    px_per_deg: Annotated[float | None, typer.Option(
        help="Pixels per degree for pixel gaze (Tobii, EyeLink).")] = None,
    participant: Annotated[str | None, typer.Option(
        help="The participant of a device export that names none.")] = None,
) -> None:
    """Summarise a data file: recordings, participants, samples, rates, labels, missing data."""
    from gazeprivacy.data.readers import read_input

    ds = read_input(path, time_unit=time_unit, px_per_deg=px_per_deg, participant=participant,
                    input_format=None if input_format is None else input_format.value)
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
    _print_record(path, console)


def _records(path: Path) -> list[tuple[str, str]]:
    """(where, JSON text) of every guarantee record found for ``path``."""
    found = [(str(side), side.read_text()) for side in
             (path.with_name(path.name + ".guarantee.json"),
              path.with_name(path.stem + ".guarantee.json")) if side.is_file()]
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        meta = pq.read_metadata(path).metadata or {}
        for key, raw in meta.items():
            name = key.decode(errors="replace")
            if "guarantee" in name or "record" in name:
                found.append((f"Parquet metadata {name!r}", raw.decode(errors="replace")))
    return found


def _print_record(path: Path, console) -> None:
    from gazeprivacy.guarantees import Guarantee

    records = _records(path)
    if not records:
        console.print("record: none found (no FILE.guarantee.json beside it and none in its "
                      "metadata): not a gazeprivacy release, or its record was not kept",
                      markup=False)
        return
    where, text = records[0]
    try:
        g = Guarantee.from_json(text)
    except (ValueError, KeyError, TypeError) as exc:
        console.print(f"record ({where}): unreadable: {exc}", markup=False)
        return
    console.print(f"record ({where}): {g.summary()}", markup=False)
    for f in g.flags:
        console.print(f"  flag {f.code.value}: {f.message}", markup=False)
