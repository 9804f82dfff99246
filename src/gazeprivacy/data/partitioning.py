# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Cut a long-format data file into a partitioned folder without reading it whole.

:func:`partition_data_file` is what ``gazeprivacy partition`` runs. It gives the partitions that
reading the file with :func:`~gazeprivacy.data.io.read_dataset` and cutting it with
:func:`~gazeprivacy.data.partitioned.write_partitioned` gives (same recordings, samples, labels,
channels and per-sample columns, same file metadata; ``tests/data/test_partitioning.py``), in
passes over row ranges of the file read with polars' Parquet reader (a CSV is first streamed
into a temporary Parquet file beside ``dest``, typed as :func:`read_dataset` types it):

1. a survey over batches of a few columns: every recording's row count in file order (and the
   refusal of a recording whose rows are not contiguous), whether each text or label-named
   column varies within a recording (what :func:`read_dataset` decides on the whole table:
   labels are the columns that never do), and for a file without gazeprivacy metadata the
   whole-file check that x and y are degrees;
2. each partition's row range, read as a table (:func:`~gazeprivacy.data.io.dataset_from_table`
   with the survey's decisions) and written.

Peak memory: one partition, plus a list of the recordings. Differences from reading whole: an
error found while reading a partition (a non-numeric ``t``, a recording with two participants)
names the row within the partition; a ``.csv.gz`` file is read whole (it cannot be sliced); the
pixel check's exact percentiles, needed only when x or y spans more than 120 units, read the x
and y columns whole.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy._atomic import atomic_dir, raise_if_disk_full
from gazeprivacy.data.io import (
    _MAX_SPAN_DEG,
    LABEL_NAMES,
    _cannot_read,
    _percentile_spans,
    _refuse_non_degrees,
    dataset_from_table,
)
from gazeprivacy.data.io import _parquet_meta as _io_parquet_meta
from gazeprivacy.data.partitioned import PartitionedDataset, PartitionWriter, is_partitioned
from gazeprivacy.data.recording import CORE_COLUMNS, Dataset
from gazeprivacy.exceptions import GazePrivacyError, InvalidDataError, InvalidParameterError

__all__ = ["partition_data_file"]

_BATCH_ROWS = 500_000  # rows per batch of the survey


def partition_data_file(path: str | Path, dest: str | Path, recordings_per_partition: int, *,
                        time_unit: str = "s", overwrite: bool = False) -> PartitionedDataset:
    """Write the long-format CSV or Parquet file ``path`` as a partitioned folder ``dest`` of
    ``recordings_per_partition`` whole recordings per partition (order kept), streaming.

    Raises
    ------
    InvalidParameterError
        ``recordings_per_partition < 1``, an unknown file type, or ``dest`` holds a partitioned
        dataset and not ``overwrite`` (with it, the new dataset is written beside ``dest`` and
        replaces it only once complete, so an error leaves the old one as it was).
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
    from gazeprivacy.data.io import _format, read_dataset
    from gazeprivacy.data.partitioned import write_partitioned

    if recordings_per_partition < 1:
        raise InvalidParameterError(
            f"recordings_per_partition must be >= 1, got {recordings_per_partition}")
    dest = Path(dest)
    if overwrite and (is_partitioned(dest) or any(dest.glob("part-*.parquet"))):
        # written beside dest, which is replaced only once complete: an error in a late
        # partition leaves the old dataset as it was
        with atomic_dir(dest) as tmp:
            partition_data_file(path, tmp, recordings_per_partition, time_unit=time_unit)
        return PartitionedDataset(dest)
    path = Path(path)
    fmt = _format(path)
    if not path.is_file() or path.name.lower().endswith(".gz"):  # read_dataset names the problem
        return write_partitioned(read_dataset(path, time_unit=time_unit), dest,
                                 recordings_per_partition=recordings_per_partition,
                                 overwrite=overwrite)
    if fmt == "csv":  # parsed once, streaming, into a Parquet file of the same types
        beside = Path(dest).resolve().parent
        beside.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=beside, prefix=".gazeprivacy-csv-") as tmp:
            pq_path, meta = _csv_to_parquet(path, Path(tmp) / "rows.parquet")
            return _partition(pq_path, meta, str(path), path.name.split(".")[0], dest,
                              recordings_per_partition, time_unit, overwrite)
    return _partition(path, _parquet_meta(path), str(path), path.name.split(".")[0], dest,
                      recordings_per_partition, time_unit, overwrite)


def _partition(path: Path, meta: dict[str, Any], source: str, stem: str, dest: str | Path,
               k: int, time_unit: str, overwrite: bool) -> PartitionedDataset:
    writer: PartitionWriter | None = None
    try:
        survey = _survey(path, meta, source)
        rows = survey.rows
        sizes = [int(rows[i:i + k].sum()) for i in range(0, rows.size, k)]
        name = meta.get("name") or stem
        writer = PartitionWriter(dest, name=name, info=meta.get("info", {}),
                                 overwrite=overwrite)
        for table in _batches(path, sizes=sizes):
            part = dataset_from_table(table, meta=meta, time_unit=time_unit, name=name,
                                      source=source, labels=survey.labels, xy_unit="deg",
                                      copy=False)  # read from the file here
            writer.write(_as_extras(part, table, survey.varying))
            del part, table
    except BaseException as exc:
        if writer is not None:
            writer.abort()  # the hidden folder goes; dest keeps what it held
        if not isinstance(exc, pl.exceptions.PolarsError | OSError | ValueError) or \
                isinstance(exc, GazePrivacyError):
            raise
        raise_if_disk_full(exc, Path(dest))  # a full disk is not a read error
        if source.lower().endswith((".parquet", ".pq")):  # as read_dataset words it
            raise _cannot_read(Path(source), "parquet", exc) from None
        raise InvalidDataError(f"cannot read {source!r}: {exc}") from None
    return writer.close()


@dataclass(frozen=True)
class _Survey:
    """Rows of every recording (in file order) and which columns are labels or vary."""

    rows: np.ndarray
    labels: list[str]
    varying: list[str]


def _parquet_meta(path: Path) -> dict[str, Any]:
    """:func:`read_dataset`'s reading of the file's metadata, and its error if it cannot."""
    try:
        return _io_parquet_meta(path)
    except (OSError, pl.exceptions.PolarsError, ValueError) as exc:
        raise _cannot_read(path, "parquet", exc) from None


def _csv_to_parquet(path: Path, out: Path) -> tuple[Path, dict[str, Any]]:
    """The CSV's rows, typed as :func:`read_dataset` types them, streamed into ``out``."""
    from gazeprivacy.data.io import _bad_csv_line

    side = path.with_name(path.name + ".meta.json")
    meta = json.loads(side.read_text()) if side.is_file() else {}
    try:
        header = pl.read_csv(path, n_rows=0).columns
        text = {c: pl.String for c in header
                if c in ("participant", "recording") or c.lower() in LABEL_NAMES}
        try:
            pl.scan_csv(path, infer_schema_length=10000, schema_overrides=text).sink_parquet(out)
        except pl.exceptions.ComputeError:
            # a late value does not fit the type inferred from the first rows (as read_dataset)
            pl.scan_csv(path, infer_schema_length=None, schema_overrides=text).sink_parquet(out)
    except pl.exceptions.PolarsError as exc:
        line = _bad_csv_line(path)
        raise InvalidDataError(f"cannot read {str(path)!r} as csv: {line or exc}") from None
    return out, meta


def _batches(path: Path, columns: list[str] | None = None,
             sizes: list[int] | None = None) -> Iterator[pl.DataFrame]:
    """Consecutive row ranges of the file (of ``sizes`` rows, default :data:`_BATCH_ROWS`),
    read by polars' Parquet reader (as read_dataset reads), which reads the row groups that a
    range overlaps only."""
    lf = pl.scan_parquet(path)
    n = _n_rows(lf)
    if columns is not None:
        lf = lf.select(columns)
    start = 0
    for size in sizes if sizes is not None else [_BATCH_ROWS] * -(-n // _BATCH_ROWS):
        yield lf.slice(start, size).collect()
        start += size


def _n_rows(lf: pl.LazyFrame) -> int:
    """Rows of a scanned Parquet file (from its footer, not its data)."""
    return int(lf.select(pl.len()).collect().item())


def _survey(path: Path, meta: dict[str, Any], source: str) -> _Survey:
    schema = pl.read_parquet_schema(path)
    missing = [c for c in CORE_COLUMNS if c not in schema]
    if missing:
        raise InvalidDataError(
            f"{source}: missing required column(s) {', '.join(missing)}; the long format needs "
            f"{', '.join(CORE_COLUMNS)}")
    if _n_rows(pl.scan_parquet(path)) == 0:
        raise InvalidDataError(f"{source}: the table has no rows")
    rest = [c for c in schema if c not in CORE_COLUMNS and c != "pupil"]
    named = [c for c in rest if c.lower() in LABEL_NAMES]
    candidates = [c for c in rest if c in named or schema[c] in (pl.String, pl.Categorical)
                  or isinstance(schema[c], pl.Enum)]
    fold = _Fold(candidates, named, source)
    for b in _batches(path, ["recording", *candidates]):
        fold.add(b)
    varying = sorted(fold.varying, key=candidates.index)
    if not meta.get("recordings"):  # gazeprivacy's own files were checked when made
        _check_degrees(path, source)
    return _Survey(rows=np.array(fold.rows, dtype=np.int64),
                   labels=[c for c in candidates if c not in varying], varying=varying)


class _Fold:
    """The survey over batches: recordings' row counts in order (refusing a recording whose
    rows are not contiguous) and the candidate label columns that vary within a recording
    (named labels ignore nulls, other text columns count null as a value: as read_dataset)."""

    def __init__(self, candidates: list[str], named: list[str], source: str) -> None:
        self.candidates, self.named, self.source = candidates, set(named), source
        self.rows: list[int] = []
        self.ids: list[str] = []
        self.seen: set[str] = set()
        self.varying: set[str] = set()
        self.carry: dict[str, Any] = {}  # value of each candidate in the current recording
        self.row = 0

    def add(self, b: pl.DataFrame) -> None:
        rec = b["recording"].cast(pl.String)
        if rec.null_count():
            row = self.row + int(rec.is_null().arg_true()[0])
            raise InvalidDataError(f"{self.source}: recording is empty at row {row}")
        starts = rec.ne_missing(rec.shift(1)).fill_null(True).arg_true().to_list()
        ends = [*starts[1:], b.height]
        cont = bool(self.ids) and rec[0] == self.ids[-1]
        for j, (a, e) in enumerate(zip(starts, ends, strict=True)):
            rid = rec[a]
            if j == 0 and cont:
                self.rows[-1] += e - a
                continue
            if rid in self.seen:
                raise InvalidDataError(
                    f"{self.source}: rows of recording {rid!r} are not contiguous (it starts "
                    f"again at row {self.row + a}); sort the table by recording")
            self.seen.add(rid)
            self.ids.append(rid)
            self.rows.append(e - a)
        run = pl.Series("_run", np.repeat(np.arange(len(starts)), np.diff([*starts, b.height])))
        for c in self.candidates:
            if c not in self.varying:
                self._column(c, b[c], run, cont)
        self.row += b.height

    def _column(self, c: str, s: pl.Series, run: pl.Series, cont: bool) -> None:
        named = c in self.named
        v = pl.col(c).drop_nulls() if named else pl.col(c)
        g = (pl.DataFrame([run, s]).group_by("_run", maintain_order=True)
             .agg(v.n_unique().alias("n"), v.first().alias("first")))
        if int(g["n"].max() or 0) > 1:
            self.varying.add(c)
            return
        first = g["first"].to_list()
        if cont and c in self.carry:
            old, new = self.carry[c], first[0]
            if (named and old is not None and new is not None and old != new) or (
                    not named and g["n"][0] > 0 and old != new):
                self.varying.add(c)
                return
            if named and new is None:
                first[0] = old
        self.carry[c] = first[-1]


def _check_degrees(path: Path, source: str) -> None:
    """:func:`gazeprivacy.data.io`'s whole-file check that x and y are degrees, over batches
    (without a geometry: none is read from a file without gazeprivacy metadata)."""
    n = out01 = 0
    lo = [np.inf, np.inf]
    hi = [-np.inf, -np.inf]
    for b in _batches(path, ["x", "y"]):
        x = b["x"].cast(pl.Float64).fill_null(np.nan).to_numpy()
        y = b["y"].cast(pl.Float64).fill_null(np.nan).to_numpy()
        ok = ~np.isnan(x)
        x, y = x[ok], y[ok]
        n += x.size
        out01 += int((~((x >= 0) & (x <= 1) & (y >= 0) & (y <= 1))).sum())
        for i, a in enumerate((x, y[~np.isnan(y)])):
            if a.size:
                lo[i], hi[i] = min(lo[i], float(a.min())), max(hi[i], float(a.max()))
    if max(hi[0] - lo[0], hi[1] - lo[1]) <= _MAX_SPAN_DEG:
        spans = None  # the 1st-99th percentile span is at most the full span
    else:  # rare: exact percentiles need the columns whole
        def spans() -> list[float]:
            xy = pl.read_parquet(path, columns=["x", "y"])
            return _percentile_spans(*(xy[c].cast(pl.Float64).fill_null(np.nan).to_numpy()
                                       for c in ("x", "y")))
    _refuse_non_degrees(source, n, out01 == 0, spans)


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
