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

from gazeprivacy.cli._common import Output, atomic_dir, check_outputs, out, say
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
    from gazeprivacy.data.partitioned import PARTITIONED_MARKERS, PartitionedDataset
    from gazeprivacy.data.partitioning import partition_data_file

    check_outputs([Output(outdir, "OUTDIR", folder=True, markers=PARTITIONED_MARKERS,
                          holds="partitioned dataset")], inputs=[input], overwrite=overwrite)
    say(f"streaming {input} into partitions in {outdir}")
    # written into a hidden folder beside OUTDIR that replaces it only when complete: an error
    # found in a late partition, or Ctrl-C, leaves no new folder and an old one as it was
    with atomic_dir(outdir) as tmp:
        partition_data_file(input, tmp, recordings_per_partition, time_unit=time_unit)
    pds = PartitionedDataset(outdir)
    out().print(f"{pds.path}: {pds.n_partitions} partitions, {pds.n_recordings} "
                f"recordings, {len(pds.participants)} participants, {pds.n_samples:,} "
                "samples", markup=False)

