# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy partition INPUT OUTDIR --recordings-per-partition N``: cut a data file into a
partitioned folder (Parquet partitions of whole recordings and a manifest), the input of
``protect`` and ``evaluate`` on data larger than memory (docs/scale.md).

The file is streamed (:func:`gazeprivacy.data.partitioning.partition_data_file`: two passes,
memory about one partition, not the file; a ``.csv.gz`` is read whole), with the partitions that
reading it whole and cutting it would give.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gazeprivacy.cli._common import atomic_dir, check_output_dir, out, say
from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["partition"]


def partition(
    input: Annotated[Path, typer.Argument(help="Long-format CSV or Parquet file.")],
    outdir: Annotated[Path, typer.Argument(help="Output folder (created).")],
    recordings_per_partition: Annotated[int, typer.Option(
        help="Whole recordings per partition (memory needed ~ one partition).")],
    time_unit: Annotated[str, typer.Option(help="Unit of the t column: s, ms or us.")] = "s",
    overwrite: Annotated[bool, typer.Option(help="Replace a partitioned OUTDIR.")] = False,
) -> None:
    """Cut a gaze data file into a partitioned folder for bounded-memory protect / evaluate."""
    if recordings_per_partition < 1:
        raise InvalidParameterError(
            f"--recordings-per-partition must be >= 1, got {recordings_per_partition}")
    from gazeprivacy.data.partitioned import PartitionedDataset
    from gazeprivacy.data.partitioning import partition_data_file

    if outdir.exists() and input.exists() and outdir.resolve() == input.resolve():
        raise InvalidParameterError(f"OUTDIR {str(outdir)!r} is the input; refusing to write "
                                    "over it")
    if outdir.exists() and not outdir.is_dir():
        raise InvalidParameterError(f"OUTDIR {str(outdir)!r} exists and is not a folder")
    if outdir.is_dir() and any(outdir.iterdir()):
        _check_replaceable(outdir, input, overwrite)
    check_output_dir(outdir, overwrite=True, option="OUTDIR")
    say(f"streaming {input} into partitions in {outdir}")
    # written into a hidden folder beside OUTDIR that replaces it only when complete: an error
    # found in a late partition, or Ctrl-C, leaves no new folder and an old one as it was
    with atomic_dir(outdir) as tmp:
        partition_data_file(input, tmp, recordings_per_partition, time_unit=time_unit)
    pds = PartitionedDataset(outdir)
    out().print(f"{pds.path}: {pds.n_partitions} partitions, {pds.n_recordings} "
                f"recordings, {len(pds.participants)} participants, {pds.n_samples:,} "
                "samples", markup=False)


def _check_replaceable(outdir: Path, input: Path, overwrite: bool) -> None:
    """A non-empty OUTDIR is replaced only with --overwrite, and only if it holds a partitioned
    dataset (a manifest or partition files) and not the input, never an unrelated folder."""
    from gazeprivacy._paths import is_within
    from gazeprivacy.data.partitioned import is_partitioned

    if not (is_partitioned(outdir) or any(outdir.glob("part-*.parquet"))):
        raise InvalidParameterError(
            f"OUTDIR {str(outdir)!r} is not empty and holds no partitioned dataset; refusing "
            "to replace a folder this command did not write")
    if not overwrite:
        raise InvalidParameterError(
            f"OUTDIR {str(outdir)!r} already holds a partitioned dataset; pass --overwrite to "
            "replace it or choose another folder")
    if input.exists() and is_within(input.resolve(), outdir):
        raise InvalidParameterError(f"OUTDIR {str(outdir)!r} holds the input; refusing to "
                                    "replace it")
