# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Cut a long-format data file into a partitioned folder without reading it whole.

:func:`partition_data_file` is what ``gazeprivacy partition`` runs. It gives the partitions that
reading the file with :func:`~gazeprivacy.data.io.read_dataset` and cutting it with
:func:`~gazeprivacy.data.partitioned.write_partitioned` gives (same recordings, samples, labels,
channels and per-sample columns; ``tests/data/test_partitioning.py``), in two streaming passes
over the file (polars ``scan_parquet`` / ``scan_csv``, streaming engine):

1. a survey: one row per recording (its first and last row and row count: the recordings'
   order, the contiguity check and the partitions' row ranges), whether each text or
   label-named column varies within a recording (what :func:`read_dataset` decides on the whole
   table: labels are the columns that never do), and for files without gazeprivacy metadata
   the whole-file check that x and y are degrees;
2. the rows in batches, cut at the partitions' row ranges; each partition is read as a table
   (:func:`~gazeprivacy.data.io.dataset_from_table`) with the survey's decisions and written.

Peak memory: one partition (and one batch of rows), plus the survey's row per recording.
Differences from reading whole: an error found while reading a partition (a non-numeric ``t``, a
recording with two participants) names the row within the partition; a ``.csv.gz`` file is read
whole (compressed CSV cannot be scanned); the pixel check's exact percentiles, needed only when
x or y spans more than 120 units, read the x and y columns whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy.data.io import LABEL_NAMES, dataset_from_table
from gazeprivacy.data.partitioned import PartitionedDataset, PartitionWriter
from gazeprivacy.data.recording import CORE_COLUMNS, Dataset
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["partition_data_file"]

_BATCH_ROWS = 100_000
_MAX_SPAN_DEG = 120.0  # as gazeprivacy.data.io's pixel check


def partition_data_file(path: str | Path, dest: str | Path, recordings_per_partition: int, *,
                        time_unit: str = "s", overwrite: bool = False) -> PartitionedDataset:
    """Write the long-format CSV or Parquet file ``path`` as a partitioned folder ``dest`` of
    ``recordings_per_partition`` whole recordings per partition (order kept), streaming.

    Raises
    ------
    InvalidParameterError
        ``recordings_per_partition < 1``, an unknown file type, or ``dest`` holds a partitioned
        dataset and not ``overwrite``.
    InvalidDataError
        As :func:`~gazeprivacy.data.io.read_dataset` (missing file or column, rows of a
        recording not contiguous, normalised or pixel coordinates, ...).

    >>> import tempfile
    >>> import numpy as np
    >>> from gazeprivacy.data.io import write_dataset
    >>> from gazeprivacy.data.simulate import simulate_dataset
    >>> ds = simulate_dataset(n_participants=3, tasks=("reading",), duration_s=2.0,
    ...                       sampling_rate_hz=100, rng=np.random.default_rng(0))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     f = write_dataset(ds, f"{tmp}/in.parquet")
    ...     pds = partition_data_file(f, f"{tmp}/parts", 2)
    ...     (pds.n_partitions, pds.n_recordings, pds.n_samples == ds.n_samples)
    (2, 3, True)
    """
    from gazeprivacy.data.io import read_dataset
    from gazeprivacy.data.partitioned import write_partitioned

    if recordings_per_partition < 1:
        raise InvalidParameterError(
            f"recordings_per_partition must be >= 1, got {recordings_per_partition}")
    path = Path(path)
    lower = path.name.lower()
    if not path.is_file() or lower.endswith(".gz"):  # read_dataset names the problem
        return write_partitioned(read_dataset(path, time_unit=time_unit), dest,
                                 recordings_per_partition=recordings_per_partition,
                                 overwrite=overwrite)
    lf, meta = _scan(path)
    try:
        survey = _survey(lf, meta, str(path))
    except pl.exceptions.PolarsError as exc:
        raise _unreadable(path, exc) from None
    name = meta.get("name") or path.name.split(".")[0]
    rows = survey.rows
    sizes = [int(rows[i:i + recordings_per_partition].sum())
             for i in range(0, rows.size, recordings_per_partition)]
    writer = PartitionWriter(dest, name=name, info=meta.get("info", {}), overwrite=overwrite)
    try:
        for table in _chunks(lf, sizes):
            part = dataset_from_table(table, meta=meta, time_unit=time_unit, name=name,
                                      source=str(path), labels=survey.labels, xy_unit="deg")
            writer.write(_as_extras(part, table, survey.varying))
            del part, table
    except pl.exceptions.PolarsError as exc:
        raise _unreadable(path, exc) from None
    return writer.close()


def _unreadable(path: Path, exc: Exception) -> InvalidDataError:
    from gazeprivacy.data.io import _bad_csv_line, _format

    fmt = _format(path)
    line = _bad_csv_line(path) if fmt == "csv" else None
    return InvalidDataError(f"cannot read {str(path)!r} as {fmt}: {line or exc}")


@dataclass(frozen=True)
class _Survey:
    """Rows of every recording (in file order) and which columns are labels or vary."""

    rows: np.ndarray
    labels: list[str]
    varying: list[str]


def _scan(path: Path) -> tuple[pl.LazyFrame, dict[str, Any]]:
    """The file as a LazyFrame read as :func:`read_dataset` reads it, and its metadata."""
    import pyarrow.parquet as pq

    from gazeprivacy.data.io import _format

    fmt = _format(path)
    meta: dict[str, Any] = {}
    try:
        if fmt == "parquet":
            raw = (pq.read_metadata(path).metadata or {}).get(b"gazeprivacy")
            meta = json.loads(raw) if raw else {}
            meta.pop("dtypes", None)
            return pl.scan_parquet(path), meta
        side = path.with_name(path.name + ".meta.json")
        if side.is_file():
            meta = json.loads(side.read_text())
        header = pl.read_csv(path, n_rows=0).columns
    except (OSError, pl.exceptions.PolarsError, ValueError) as exc:
        raise InvalidDataError(f"cannot read {str(path)!r} as {fmt}: {exc}") from None
    text = {c: pl.String for c in header
            if c in ("participant", "recording") or c.lower() in LABEL_NAMES}
    lf = pl.scan_csv(path, infer_schema_length=10000, schema_overrides=text)
    try:  # every value parsed once: the types inferred from the first rows fit
        lf.select(pl.all().null_count()).collect(engine="streaming")
    except pl.exceptions.ComputeError:
        # a late value does not fit the type inferred from the first rows (as read_dataset)
        lf = pl.scan_csv(path, infer_schema_length=None, schema_overrides=text)
    return lf, meta


def _survey(lf: pl.LazyFrame, meta: dict[str, Any], source: str) -> _Survey:
    schema = lf.collect_schema()
    missing = [c for c in CORE_COLUMNS if c not in schema]
    if missing:
        raise InvalidDataError(
            f"{source}: missing required column(s) {', '.join(missing)}; the long format needs "
            f"{', '.join(CORE_COLUMNS)}")
    rest = [c for c in schema if c not in CORE_COLUMNS and c != "pupil"]
    named = [c for c in rest if c.lower() in LABEL_NAMES]
    candidates = [c for c in rest if c in named or schema[c] in (pl.String, pl.Categorical)
                  or isinstance(schema[c], pl.Enum)]
    per = (lf.with_row_index("_row").group_by(pl.col("recording").cast(pl.String))
           .agg(pl.col("_row").min().alias("_first"), pl.col("_row").max().alias("_last"),
                pl.len().alias("_n"),
                *((pl.col(c).drop_nulls() if c in named else pl.col(c)).n_unique()
                  .alias(f"_u_{c}") for c in candidates))
           .collect(engine="streaming").sort("_first"))
    if per.height == 0:
        raise InvalidDataError(f"{source}: the table has no rows")
    split = per.filter(pl.col("_last") - pl.col("_first") + 1 != pl.col("_n"))
    if split.height:
        r = split.row(0, named=True)
        raise InvalidDataError(
            f"{source}: rows of recording {r['recording']!r} are not contiguous ({r['_n']} rows "
            f"between rows {r['_first']} and {r['_last']}); sort the table by recording")
    varying = [c for c in candidates if int(per[f"_u_{c}"].max() or 0) > 1]
    if not meta.get("recordings"):  # gazeprivacy's own files were checked when made
        _check_degrees(lf, source)
    return _Survey(rows=per["_n"].to_numpy(), labels=[c for c in candidates if c not in varying],
                   varying=varying)


def _check_degrees(lf: pl.LazyFrame, source: str) -> None:
    """:func:`gazeprivacy.data.io`'s whole-file check that x and y are degrees, streaming
    (without a geometry: none is read from a file without gazeprivacy metadata)."""
    x = pl.col("x").cast(pl.Float64).fill_null(np.nan)
    y = pl.col("y").cast(pl.Float64).fill_null(np.nan)
    ok = lf.select(x.alias("x"), y.alias("y")).filter(pl.col("x").is_not_nan())
    s = ok.select(pl.len().alias("n"),
                  (~((pl.col("x") >= 0) & (pl.col("x") <= 1) & (pl.col("y") >= 0)
                     & (pl.col("y") <= 1))).sum().alias("out01"),
                  (pl.col("x").max() - pl.col("x").min()).alias("sx"),
                  (pl.col("y").filter(pl.col("y").is_not_nan()).max()
                   - pl.col("y").filter(pl.col("y").is_not_nan()).min()).alias("sy"),
                  ).collect(engine="streaming").row(0, named=True)
    if s["n"] >= 10 and s["out01"] == 0:
        raise InvalidDataError(
            f"{source}: every x and y lies within [0, 1]: these look like normalised screen "
            "coordinates, not degrees; pass xy_unit='norm' (with the screen's geometry), or "
            "xy_unit='deg' if they are degrees")
    if s["n"] < 10 or max(s["sx"] or 0.0, s["sy"] or 0.0) <= _MAX_SPAN_DEG:
        return  # the 1st-99th percentile span is at most the full span
    xy = ok.collect(engine="streaming")  # rare: exact percentiles need the columns
    spans = [float(np.subtract(*np.percentile(xy[c].to_numpy(), [99, 1]))) for c in "xy"]
    if max(spans) > _MAX_SPAN_DEG:
        raise InvalidDataError(
            f"{source}: the gaze spans {max(spans):.0f} units (1st to 99th percentile), "
            f"more than the {_MAX_SPAN_DEG:g} degrees of any screen: it is probably in "
            "pixels; pass xy_unit='px' with px_per_deg=..., or xy_unit='deg' if it is "
            "degrees (e.g. VR angles)")


def _chunks(lf: pl.LazyFrame, sizes: list[int]) -> Iterator[pl.DataFrame]:
    """The rows of ``lf`` as consecutive tables of ``sizes`` rows, read in batches."""
    held: list[pl.DataFrame] = []
    n_held = 0
    want = iter(sizes)
    size = next(want)
    for batch in lf.collect_batches(chunk_size=_BATCH_ROWS, engine="streaming"):
        held.append(batch)
        n_held += batch.height
        while size is not None and n_held >= size:
            table = pl.concat(held, how="vertical", rechunk=True)
            held = [table.slice(size)] if table.height > size else []
            n_held = table.height - size
            yield table.slice(0, size)
            del table
            size = next(want, None)
    if size is not None and n_held:
        yield pl.concat(held, how="vertical", rechunk=True)


def _as_extras(part: Dataset, table: pl.DataFrame, varying: list[str]) -> Dataset:
    """``part`` with the columns that vary within a recording somewhere in the file kept per
    sample, as reading the whole file keeps them (a partition alone may show them constant)."""
    if not varying:
        return part
    recs = []
    start = 0
    order = list(table.columns)
    for r in part.recordings:
        fix = [c for c in varying if c not in r.extras]
        if fix:
            extras = {**r.extras, **{c: table[c].slice(start, r.n_samples) for c in fix}}
            extras = {c: extras[c].alias(c) for c in order if c in extras}
            r = replace(r, labels={k: v for k, v in r.labels.items() if k not in fix},
                        extras=extras)
        recs.append(r)
        start += r.n_samples
    return Dataset(tuple(recs), name=part.name, info=part.info, schema=part.schema)
