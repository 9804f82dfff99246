# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy sample OUT``: write the bundled DOVES sample in the long format."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from gazeprivacy.cli._common import Output, atomic_files, check_outputs
from gazeprivacy.cli._common import out as out_console

__all__ = ["sample"]

_SUFFIXES = (".csv", ".csv.gz", ".parquet", ".pq")


def sample(
    out: Annotated[Path, typer.Argument(
        metavar="OUT", help="Output file (.csv, .csv.gz or .parquet); a CSV gets its metadata "
                            "in OUT.meta.json.")],
    overwrite: Annotated[bool, typer.Option(help="Replace an existing OUT.")] = False,
) -> None:
    """Write the bundled DOVES sample as a long-format file, ready for protect, info, ..."""
    parquet = out.name.lower().endswith((".parquet", ".pq"))
    meta = out.with_name(out.name + ".meta.json")
    check_outputs([Output(out, "OUT", suffixes=_SUFFIXES),
                   Output(None if parquet else meta, "OUT's metadata file")],
                  overwrite=overwrite)
    from gazeprivacy.data.io import write_dataset
    from gazeprivacy.data.sample import load_sample

    ds = load_sample()
    if parquet:
        with atomic_files(out) as (tmp,):
            write_dataset(ds, tmp)
    else:
        with atomic_files(out, meta) as (tmp, tmp_meta):
            write_dataset(ds, tmp)
            os.replace(tmp.with_name(tmp.name + ".meta.json"), tmp_meta)
    out_console().print(f"wrote {out} ({ds.name}: {len(ds.recordings)} recordings)",
                        markup=False)
