# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Read and write datasets in the long format (CSV or Parquet).

The long format has one row per sample and the columns

``participant, recording, t, x, y`` (required; ``t`` in seconds, ``x``/``y`` in degrees,
missing samples as empty / NaN), then optionally ``pupil``, further numeric per-sample channels,
and string label columns (``task``, ``stimulus``, ``session``, ...). Rows of a recording are
contiguous and ordered by time.

Per-recording metadata (sampling rate, geometry) and dataset info travel in the Parquet schema
metadata under the key ``gazeprivacy``, and for CSV in a sidecar ``FILE.meta.json``. Without
metadata the sampling rate is inferred from the timestamps.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow.parquet as pq

from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import CORE_COLUMNS, Dataset, Recording
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["dataset_from_table", "read_dataset", "write_dataset"]

_META_KEY = b"gazeprivacy"
_NUMERIC = (pl.Float64, pl.Float32, pl.Int64, pl.Int32, pl.Int16, pl.Int8, pl.UInt32,
            pl.UInt16, pl.UInt8, pl.UInt64)


def _format(path: Path) -> str:
    name = path.name.lower()
    if name.endswith(".parquet") or name.endswith(".pq"):
        return "parquet"
    if name.endswith(".csv") or name.endswith(".csv.gz"):
        return "csv"
    raise InvalidParameterError(
        f"cannot tell the format of {str(path)!r}: use a .csv, .csv.gz or .parquet file name")


def _metadata(ds: Dataset) -> dict[str, Any]:
    return {
        "name": ds.name,
        "info": ds.info,
        "recordings": {
            r.recording: {"sampling_rate_hz": r.sampling_rate_hz,
                          "geometry": None if r.geometry is None else r.geometry.to_dict()}
            for r in ds.recordings
        },
    }


def write_dataset(ds: Dataset, path: str | Path) -> Path:
    """Write ``ds`` to ``path`` (format by suffix) with its metadata; returns the path."""
    path = Path(path)
    fmt = _format(path)
    table = ds.to_table()
    meta = json.dumps(_metadata(ds), default=str).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "parquet":  # polars' writer (snappy, as pyarrow's default): half pyarrow's time
        table.write_parquet(path, compression="snappy",
                            metadata={_META_KEY.decode(): meta.decode()})
    else:
        if path.name.lower().endswith(".gz"):
            import gzip

            with gzip.open(path, "wb") as fh:
                table.write_csv(fh)
        else:
            table.write_csv(path)
        path.with_name(path.name + ".meta.json").write_bytes(meta)
    return path


def read_dataset(path: str | Path, *, geometry: Geometry | None = None,
                 sampling_rate_hz: float | None = None, time_unit: str = "s",
                 name: str | None = None) -> Dataset:
    """Read a long-format CSV or Parquet file into a :class:`Dataset`.

    Raises
    ------
    InvalidDataError
        The file is missing, unreadable or corrupt, lacks a required column, or a recording
        breaks a data-model rule (the message names the recording and row).
    """
    path = Path(path)
    fmt = _format(path)
    if not path.is_file():
        raise InvalidDataError(f"no such file: {str(path)!r}")
    meta: dict[str, Any] = {}
    try:
        if fmt == "parquet":  # polars' reader: a third of pyarrow's time on string columns
            raw = (pq.read_metadata(path).metadata or {}).get(_META_KEY)
            meta = json.loads(raw) if raw else {}
            table = pl.read_parquet(path)
        else:
            table = pl.read_csv(path, infer_schema_length=10000,
                                schema_overrides={"participant": pl.String,
                                                  "recording": pl.String})
            side = path.with_name(path.name + ".meta.json")
            if side.is_file():
                meta = json.loads(side.read_text())
    except (OSError, pl.exceptions.PolarsError, ValueError) as exc:
        raise InvalidDataError(f"cannot read {str(path)!r} as {fmt}: {exc}") from None
    return dataset_from_table(table, meta=meta, geometry=geometry,
                              sampling_rate_hz=sampling_rate_hz, time_unit=time_unit,
                              name=name or meta.get("name") or path.name.split(".")[0],
                              source=str(path))


def _runs(starts: pl.Series, n: int) -> list[tuple[int, int]]:
    """``[start, end)`` of each run, from the mask of the rows that start one."""
    first = starts.arg_true().to_list()
    return list(zip(first, [*first[1:], n], strict=True))


def dataset_from_table(table: pl.DataFrame, *, meta: dict[str, Any] | None = None,
                       geometry: Geometry | None = None, sampling_rate_hz: float | None = None,
                       time_unit: str = "s", name: str = "dataset",
                       source: str = "table") -> Dataset:
    """Split a long-format table into recordings (order of first appearance is kept)."""
    meta = meta or {}
    missing = [c for c in CORE_COLUMNS if c not in table.columns]
    if missing:
        raise InvalidDataError(
            f"{source}: missing required column(s) {', '.join(missing)}; the long format needs "
            f"{', '.join(CORE_COLUMNS)}")
    if table.height == 0:
        raise InvalidDataError(f"{source}: the table has no rows")
    for c in ("t", "x", "y"):
        if table.schema[c] not in _NUMERIC:
            raise InvalidDataError(f"{source}: column {c!r} must be numeric, got "
                                   f"{table.schema[c]}")
    table = table.with_columns(pl.col("participant", "recording").cast(pl.String))
    for c in ("participant", "recording"):
        nulls = table[c].is_null()
        if nulls.any():
            row = int(nulls.arg_true()[0])
            raise InvalidDataError(f"{source}: {c} is empty at row {row}")
    labels = [c for c in table.columns
              if c not in CORE_COLUMNS and c != "pupil" and table.schema[c] not in _NUMERIC]
    numeric_extra = [c for c in table.columns
                     if c not in CORE_COLUMNS and c != "pupil" and c not in labels]
    rec_meta = meta.get("recordings", {})
    recs = []
    # Contiguity check: a recording id that reappears later would be merged silently otherwise.
    ids = table["recording"]
    starts = ids.ne_missing(ids.shift(1)).fill_null(True)
    run_ids = ids.filter(starts)
    if run_ids.n_unique() != run_ids.len():
        dup = run_ids.filter(run_ids.is_duplicated())[0]
        row = int(((ids == dup) & starts).arg_true()[1])
        raise InvalidDataError(f"{source}: rows of recording {dup!r} are not contiguous "
                               f"(it starts again at row {row}); sort the table by recording")
    for a, b in _runs(starts, table.height):  # one run of rows per recording (checked above)
        part = table.slice(a, b - a)  # zero-copy, unlike partition_by
        rid = part["recording"][0]
        pids = part["participant"].unique()
        if pids.len() != 1:
            raise InvalidDataError(f"{source}: recording {rid!r} has several participants "
                                   f"{pids.to_list()}")
        m = rec_meta.get(rid, {})
        geo = geometry or (Geometry.from_dict(m["geometry"]) if m.get("geometry") else None)
        rate = sampling_rate_hz or m.get("sampling_rate_hz")
        lab = {c: part[c][0] for c in labels if part[c][0] is not None}
        recs.append(Recording.from_arrays(
            recording=rid, participant=pids[0],
            t=part["t"].cast(pl.Float64).to_numpy(),
            x=part["x"].cast(pl.Float64).fill_null(float("nan")).to_numpy(),
            y=part["y"].cast(pl.Float64).fill_null(float("nan")).to_numpy(),
            sampling_rate_hz=rate, time_unit=time_unit, labels=lab,
            pupil=(part["pupil"].cast(pl.Float64).fill_null(float("nan")).to_numpy()
                   if "pupil" in part.columns else None),
            geometry=geo,
            channels={c: part[c].cast(pl.Float64).fill_null(float("nan")).to_numpy()
                      for c in numeric_extra},
        ))
    return Dataset(tuple(recs), name=name, info=meta.get("info", {}))
