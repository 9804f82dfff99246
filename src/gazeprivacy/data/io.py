# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Read and write datasets in the long format (CSV or Parquet).

The long format has one row per sample and the columns

``participant, recording, t, x, y`` (required; ``t`` in seconds, ``x``/``y`` in degrees,
missing samples as empty / NaN), then optionally ``pupil`` and any further columns. Rows of a
recording are contiguous and ordered by time. Every column is kept as it is
(:func:`dataset_from_table`):

* **labels** (one value per recording): the columns declared with ``labels=[...]`` (CLI
  ``--label COLUMN``), the columns with a recognised name (:data:`LABEL_NAMES`: ``task``,
  ``stimulus``, ``trial``, ``session``, ...) whatever their dtype, and text columns whose every
  row in a recording holds the same value. Nulls of declared and named labels are ignored (a
  label null in a recording's first row is read from the others). A declared label with two
  values in one recording is refused.
* **channels**: other float columns (head pose, confidence, ...), as float64;
* **extras**: every other per-sample column (text that varies within a recording, Booleans,
  integers such as nanosecond device clocks, dates), kept exactly with its dtype.

The input's column order and dtypes are kept in :attr:`Dataset.schema` and restored on writing.

**Units** (``xy_unit``): ``"deg"`` (degrees of visual angle), ``"px"`` (pixels, divided by
``px_per_deg`` or the geometry's pixels per degree, offset by its left / top edge) or
``"norm"`` (0-1 of the screen, origin top-left, mapped onto the geometry). Without ``xy_unit``
the gaze is taken as degrees and checked: all values within [0, 1] (normalised coordinates) or
most of them outside the screen geometry (pixels) are refused with the option to pass, and a
warning says how many samples lie off the screen (bounded mechanisms clamp them to its edge).

Per-recording metadata (sampling rate, geometry) and dataset info travel in the Parquet schema
metadata under the key ``gazeprivacy``, and for CSV in a sidecar ``FILE.meta.json`` (its keys:
``docs/inputs.md``). Without metadata the sampling rate is the clock's nominal rate
(:mod:`gazeprivacy.data.rates`).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import warnings
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy.data.column_map import check_columns, map_columns
from gazeprivacy.data.geometry import Geometry, ScreenSetup
from gazeprivacy.data.rates import RateLog
from gazeprivacy.data.recording import _TIME_SCALE, CORE_COLUMNS, Dataset, Recording, adopt
from gazeprivacy.exceptions import DataPolicyWarning, InvalidDataError, InvalidParameterError

__all__ = ["LABEL_NAMES", "XY_UNITS", "as_polars", "dataset_from_table", "not_a_file",
           "read_dataset", "write_dataset"]


def not_a_file(path: Path, what: str = "file") -> str:
    """Why ``path`` cannot be read as a data file: it does not exist, or it is a folder (a
    partitioned folder is read whole by ``protect``, not by the file readers).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     (not_a_file(Path(tmp) / "none.csv").startswith("no such file: "),
    ...      not_a_file(Path(tmp)).endswith("is a folder, not a file"))
    (True, True)
    """
    from gazeprivacy.data.partitioned import MANIFEST  # (partitioned reads through this module)

    if path.is_dir():
        part = " (a partitioned folder: give it to gazeprivacy protect)" if (
            path / MANIFEST).is_file() else ""
        return f"{str(path)!r} is a folder{part}, not a {what}"
    return f"no such {what}: {str(path)!r}"

_META_KEY = b"gazeprivacy"
_NUMERIC = (pl.Float64, pl.Float32, pl.Int64, pl.Int32, pl.Int16, pl.Int8, pl.UInt32,
            pl.UInt16, pl.UInt8, pl.UInt64)
_FLOAT = (pl.Float64, pl.Float32)
#: Column names read as recording labels whatever their dtype (when they hold one value per
#: recording; otherwise they are kept as per-sample extras, never as a numeric channel).
LABEL_NAMES = frozenset({
    "task", "task_id", "stimulus", "stimulus_id", "stimulus_name", "image", "image_id",
    "trial", "trial_id", "session", "session_id", "block", "block_id", "condition", "run",
    "group", "document", "document_id", "text_id", "activity", "gender", "sex", "age",
})
#: Units of x and y that the readers convert from (``xy_unit``).
XY_UNITS = ("deg", "px", "norm")


def _format(path: Path) -> str:
    name = path.name.lower()
    if name.endswith(".parquet") or name.endswith(".pq"):
        return "parquet"
    if name.endswith(".csv") or name.endswith(".csv.gz"):
        return "csv"
    raise InvalidParameterError(
        f"cannot tell the format of {str(path)!r}: use a .csv, .csv.gz or .parquet file name")


def _metadata(ds: Dataset, table: pl.DataFrame) -> dict[str, Any]:
    return {
        "name": ds.name,
        "info": ds.info,
        "recordings": {
            r.recording: {"sampling_rate_hz": r.sampling_rate_hz,
                          "geometry": None if r.geometry is None else r.geometry.to_dict()}
            for r in ds.recordings
        },
        # the written columns' dtypes, so a CSV reads back as it was (labels as integers...)
        "dtypes": {c: str(dt) for c, dt in table.schema.items()},
    }


def _dtypes(meta: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with the simple dtypes a file's metadata records (a CSV's sidecar)."""
    out = dict(schema)
    for c, name in (meta.get("dtypes") or {}).items():
        dt = getattr(pl, str(name), None)
        if c in out and isinstance(dt, type) and issubclass(dt, pl.DataType):
            out[c] = dt()
    return out


def write_dataset(ds: Dataset, path: str | Path, *,
                  metadata: dict[str, str] | None = None,
                  table: pl.DataFrame | None = None) -> Path:
    """Write ``ds`` to ``path`` (format by suffix) with its metadata; returns the path.

    ``metadata``: further Parquet metadata (key -> text), e.g. a release's record; ignored for
    CSV (whose metadata travels in sidecars). ``table``: ``ds.to_table()`` when the caller has
    built it already (a sealed release has), to save building it twice.
    """
    path = Path(path)
    fmt = _format(path)
    table = ds.to_table() if table is None else table
    meta = json.dumps(_metadata(ds, table), default=str).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "parquet":  # polars' writer (snappy, as pyarrow's default): half pyarrow's time
        table.write_parquet(path, compression="snappy",
                            metadata={_META_KEY.decode(): meta.decode(), **(metadata or {})})
    else:
        if path.name.lower().endswith(".gz"):
            import gzip

            with gzip.open(path, "wb") as fh:
                table.write_csv(fh)
        else:
            table.write_csv(path)
        path.with_name(path.name + ".meta.json").write_bytes(meta)
    return path


def read_dataset(path: str | Path | Any, *, geometry: Geometry | None = None,
                 sampling_rate_hz: float | None = None, time_unit: str = "s",
                 name: str | None = None, labels: Iterable[str] = (),
                 xy_unit: str | None = None, px_per_deg: float | None = None,
                 columns: Mapping[str, str] | None = None,
                 rate_source: str = "declared", screen: ScreenSetup | None = None) -> Dataset:
    """Read a long-format CSV or Parquet file into a :class:`Dataset`.

    ``labels``, ``xy_unit`` and ``px_per_deg`` are as in :func:`dataset_from_table`; a table
    (polars, pandas or pyarrow) instead of a path is read with it. ``columns`` maps the long
    format's names to the table's (``{"participant": "subject", "t": "timestamp", ...}``; the
    keys among ``participant, recording, t, x, y, pupil``).

    Raises
    ------
    InvalidDataError
        The file is missing, unreadable or corrupt (a CSV error names the line), lacks a
        required column, or a recording breaks a data-model rule (the message names the
        recording and row).
    """
    columns = check_columns(columns)
    if not isinstance(path, str | os.PathLike):
        where = f"the {type(path).__name__} given"
        return dataset_from_table(map_columns(as_polars(path, where), columns, where),
                                  geometry=geometry, sampling_rate_hz=sampling_rate_hz,
                                  time_unit=time_unit, name=name or "dataset", labels=labels,
                                  xy_unit=xy_unit, px_per_deg=px_per_deg, source=where,
                                  rate_source=rate_source, screen=screen)
    path = Path(path)
    if path.is_dir():  # before the name's format: a folder is no file of any format
        raise InvalidDataError(not_a_file(path))
    fmt = _format(path)
    if not path.is_file():
        raise InvalidDataError(not_a_file(path))
    meta: dict[str, Any] = {}
    try:
        if fmt == "parquet":  # polars' reader: a third of pyarrow's time on string columns
            meta = _parquet_meta(path)
            table = pl.read_parquet(path)
        else:
            table = _read_csv(path, (*labels, *(v for k, v in columns.items()
                                                 if k in ("participant", "recording"))))
            side = path.with_name(path.name + ".meta.json")
            if side.is_file():
                meta = json.loads(side.read_text())
    except InvalidDataError:
        raise  # already says which file and why (a malformed CSV line): not twice
    except (OSError, pl.exceptions.PolarsError, ValueError) as exc:
        raise _cannot_read(path, fmt, exc) from None
    return dataset_from_table(map_columns(table, columns, str(path)), meta=meta,
                              geometry=geometry, sampling_rate_hz=sampling_rate_hz,
                              time_unit=time_unit,
                              name=name or meta.get("name") or path.name.split(".")[0],
                              source=str(path), labels=labels, xy_unit=xy_unit,
                              px_per_deg=px_per_deg, copy=False, rate_source=rate_source,
                              screen=screen)


def _parquet_meta(path: Path) -> dict[str, Any]:
    """The gazeprivacy metadata of a Parquet file, without its dtypes (the file's own types
    are the truth); read by polars (pyarrow's import would cost 50 ms)."""
    raw = pl.read_parquet_metadata(path).get(_META_KEY.decode())
    meta = json.loads(raw) if raw else {}
    meta.pop("dtypes", None)
    return meta


def _cannot_read(path: Path, fmt: str, exc: Exception) -> InvalidDataError:
    """The error for a file that cannot be read (shared with the streaming partitioner)."""
    why = (f"the file is corrupt or not a Parquet file ({exc})"
           if fmt == "parquet" and isinstance(exc, pl.exceptions.PolarsError) else exc)
    return InvalidDataError(f"cannot read {str(path)!r} as {fmt}: {why}")


def _read_csv(path: Path, labels: Iterable[str] = ()) -> pl.DataFrame:
    """A CSV, its column types inferred from the first 10,000 rows, or from all of them when a
    later value does not fit (a text value late in a numeric column makes it text, which
    :func:`dataset_from_table` then reports by row); a malformed line is named. Ids and label
    columns are read as text, as written (``"007"`` stays ``"007"``)."""
    import csv
    import gzip

    opener = gzip.open if path.name.lower().endswith(".gz") else open
    with opener(path, "rt", newline="") as fh:  # type: ignore[operator]
        header = next(csv.reader(fh), [])
    declared = set(labels)
    text = {c: pl.String for c in header
            if c in ("participant", "recording") or c in declared or c.lower() in LABEL_NAMES}
    try:
        try:
            return pl.read_csv(path, infer_schema_length=10000, schema_overrides=text)
        except pl.exceptions.ComputeError:
            # a value late in the file does not fit the type its first rows gave the column:
            # infer from every row (the column becomes text; the table check names the row)
            return pl.read_csv(path, infer_schema_length=None, schema_overrides=text)
    except pl.exceptions.PolarsError as exc:
        line = _bad_csv_line(path)
        if line is None:
            raise
        raise InvalidDataError(f"cannot read {str(path)!r} as csv: {line}") from exc


def _bad_csv_line(path: Path) -> str | None:
    """The first line whose field count differs from the header's, said in words."""
    import csv
    import gzip

    opener = gzip.open if path.name.lower().endswith(".gz") else open
    with opener(path, "rt", newline="") as fh:  # type: ignore[operator]
        reader = csv.reader(fh)
        header = next(reader, None)
        if header is None:
            return "the file is empty"
        for row in reader:
            if len(row) != len(header) and row:
                return (f"line {reader.line_num} has {len(row)} fields, the header has "
                        f"{len(header)} (data row {reader.line_num - 2})")
    return None


def as_polars(table: Any, source: str = "table") -> pl.DataFrame:
    """A polars DataFrame from a polars DataFrame or LazyFrame, a pandas DataFrame or a pyarrow
    Table (or RecordBatch); anything else is refused with a clear error.

    >>> import pandas as pd
    >>> as_polars(pd.DataFrame({"x": [1.0]})).columns
    ['x']
    """
    if isinstance(table, pl.DataFrame):
        return table
    if isinstance(table, pl.LazyFrame):
        return table.collect()
    module = type(table).__module__.split(".")[0]
    if module == "pandas" and hasattr(table, "columns"):
        import pandas as pd

        if not isinstance(table.index, pd.RangeIndex):
            table = table.reset_index()
        return pl.from_pandas(table)
    if module == "pyarrow":
        return pl.DataFrame(pl.from_arrow(table))
    raise InvalidDataError(
        f"{source}: expected a long-format table (polars, pandas or pyarrow), got "
        f"{type(table).__name__}")


def dataset_from_table(table: Any, *, meta: dict[str, Any] | None = None,
                       geometry: Geometry | None = None, sampling_rate_hz: float | None = None,
                       time_unit: str = "s", name: str = "dataset", source: str = "table",
                       labels: Iterable[str] = (), xy_unit: str | None = None,
                       px_per_deg: float | None = None, copy: bool = True,
                       rate_source: str = "declared",
                       screen: ScreenSetup | None = None) -> Dataset:
    """Split a long-format table into recordings (order of first appearance is kept).

    Parameters
    ----------
    table : polars, pandas or pyarrow table
        The long format (module docstring).
    labels : iterable of str
        Columns that are recording labels (one value per recording), besides the recognised
        names in :data:`LABEL_NAMES` and text columns with one value per recording.
    xy_unit : {"deg", "px", "norm"}, optional
        Unit of ``x`` and ``y``; None: degrees, checked for normalised and pixel values.
    px_per_deg : float, optional
        Pixels per degree for ``xy_unit="px"`` (default: from the geometry's pixel grid).
    screen : ScreenSetup, optional
        The screen in physical units: pixels (``xy_unit`` "px" or unset) become degrees by
        ``atan`` and the geometry is the screen's; not with ``geometry`` or ``px_per_deg``.
    sampling_rate_hz : float, optional
        The nominal rate of every recording (``rate_source`` says where it comes from); else a
        gazeprivacy file's metadata, else the clock's nominal rate
        (:mod:`gazeprivacy.data.rates`: snapped to a standard rate; one warning, with the
        number of recordings, when none fits). :attr:`Dataset.reading` says which.
    copy : bool
        The recordings copy the table's float columns (default), so that later writes to the
        caller's arrays cannot change them. ``False`` hands them zero-copy, read-only views
        (:func:`~gazeprivacy.data.recording.adopt`): for tables nothing else holds or writes,
        such as one just read from a file.
    """
    table = as_polars(table, source)
    meta = meta or {}
    _check_core(table, source)
    schema = _dtypes(meta, dict(table.schema))
    table = table.with_columns(pl.col("participant", "recording").cast(pl.String))
    for c in ("participant", "recording"):
        nulls = table[c].is_null()
        if nulls.any():
            row = int(nulls.arg_true()[0])
            raise InvalidDataError(f"{source}: {c} is empty at row {row}")
    # where each recording starts (rows of a recording are contiguous: checked here); one
    # run-length pass over the id column, reused below (a string comparison per row costs as
    # much as reading the column)
    starts = _run_starts(table["recording"])
    kinds = _column_kinds(table, frozenset(labels), source, starts)
    _check_contiguous(table, starts, source)
    pid_of = _participants(table, starts, source)
    rec_meta = meta.get("recordings", {})
    geo_of = {rid: geometry or (Geometry.from_dict(m["geometry"]) if m.get("geometry") else None)
              for rid, m in rec_meta.items()}
    if screen is not None:
        if geometry is not None or px_per_deg is not None or xy_unit not in (None, "px"):
            raise InvalidParameterError(
                "the screen in physical units converts pixels and gives the geometry: it goes "
                "without geometry, px_per_deg and xy_unit other than 'px'")
        geometry, xy_unit = screen.geometry(), "deg"
        x, y = screen.to_deg(_floats(table["x"]), _floats(table["y"]))
        table = table.with_columns(pl.Series("x", x), pl.Series("y", y))
    table = _to_degrees(table, xy_unit, px_per_deg,
                        geometry or next((g for g in geo_of.values() if g is not None), None),
                        source)
    recs = []
    rids = table["recording"].gather(starts).to_list()
    # float64 columns without nulls are handed over without a copy (zero-copy views of the
    # table's read-only buffers, which nothing else holds: see Recording's adopt); per
    # recording, since a whole column of several Parquet row groups would be copied into one
    floats = {c: table[c] for c in ("t", "x", "y", "pupil", *kinds["channels"])
              if c in table.columns}
    label_cols = {c: _label_values(table[c], starts) for c in kinds["labels"]}
    rates = RateLog(sampling_rate_hz, rate_source, _TIME_SCALE.get(time_unit, 1.0))
    for i, (a, b) in enumerate(zip(starts, [*starts[1:], table.height], strict=True)):
        rid = rids[i]
        m = rec_meta.get(rid, {})
        cols = {c: _floats(f.slice(a, b - a)) for c, f in floats.items()}
        with adopt(*cols.values()) if not copy else contextlib.nullcontext():
            recs.append(Recording.from_arrays(
                recording=rid, participant=pid_of[i], t=cols["t"], x=cols.pop("x"),
                y=cols.pop("y"), sampling_rate_hz=rates.of(cols.pop("t"), m),
                time_unit=time_unit, geometry=geometry or geo_of.get(rid),
                labels={c: v[i] for c, v in label_cols.items() if v[i] is not None},
                pupil=cols.pop("pupil", None), channels=cols,
                extras={c: table[c].slice(a, b - a) for c in kinds["extras"]},
            ))
    ds = Dataset(tuple(recs), name=name, info=meta.get("info", {}), schema=schema,
                 reading={"rate_source": rates.source(source)})
    if xy_unit is None and not rec_meta:  # gazeprivacy's own files were checked when made
        _check_degrees(ds, source)
    return ds


def _floats(s: pl.Series) -> Any:
    """``s`` as a float64 array, nulls as NaN (a zero-copy view for float64 without nulls)."""
    if s.dtype != pl.Float64:
        s = s.cast(pl.Float64)
    if s.null_count():
        s = s.fill_null(float("nan"))
    return s.to_numpy()


def _run_starts(s: pl.Series) -> list[int]:
    """The rows where a new run of equal values of ``s`` (without nulls) begins, 0 first."""
    lengths = s.rle().struct.field("len").to_numpy()
    return [0, *np.cumsum(lengths[:-1]).tolist()]


def _participants(table: pl.DataFrame, starts: list[int], source: str) -> list[str]:
    """Each recording's participant (the one value of its rows; several are refused)."""
    bad = sorted(set(_run_starts(table["participant"])) - set(starts))
    if bad:
        a = max(x for x in starts if x <= bad[0])
        b = next((x for x in starts if x > a), table.height)
        part = table.slice(a, b - a)
        raise InvalidDataError(
            f"{source}: recording {part['recording'][0]!r} has several participants "
            f"{part['participant'].unique(maintain_order=True).to_list()}")
    return table["participant"].gather(starts).to_list()


def _label_values(s: pl.Series, starts: list[int]) -> list[Any]:
    """Each recording's value of label column ``s``: its first non-null value (None when all
    are null)."""
    first = s.gather(starts).to_list()
    if s.null_count() == 0:
        return first
    ends = [*starts[1:], s.len()]
    return [v if v is not None else s.slice(a, b - a).drop_nulls().first()
            for v, a, b in zip(first, starts, ends, strict=True)]


def _check_core(table: pl.DataFrame, source: str) -> None:
    missing = [c for c in CORE_COLUMNS if c not in table.columns]
    if missing:
        raise InvalidDataError(
            f"{source}: missing required column(s) {', '.join(missing)}; the long format needs "
            f"{', '.join(CORE_COLUMNS)}")
    if table.height == 0:
        raise InvalidDataError(f"{source}: the table has no rows")
    for c in ("t", "x", "y", "pupil"):
        if c not in table.columns or table.schema[c] in _NUMERIC:
            continue
        if table.schema[c] == pl.String:
            bad = table[c].is_not_null() & table[c].str.strip_chars().cast(
                pl.Float64, strict=False).is_null()
            if bad.any():
                row = int(bad.arg_true()[0])
                raise InvalidDataError(
                    f"{source}: column {c!r} must be numeric; data row {row} (line {row + 2} of "
                    f"a CSV) holds {table[c][row]!r}")
        raise InvalidDataError(f"{source}: column {c!r} must be numeric, got "
                               f"{table.schema[c]}")


def _check_contiguous(table: pl.DataFrame, starts: list[int], source: str) -> None:
    """A recording id that reappears later would be merged silently otherwise."""
    run_ids = table["recording"].gather(starts)
    if run_ids.n_unique() != run_ids.len():
        dup = run_ids.filter(run_ids.is_duplicated())[0]
        row = starts[int((run_ids == dup).arg_true()[1])]
        raise InvalidDataError(f"{source}: rows of recording {dup!r} are not contiguous "
                               f"(it starts again at row {row}); sort the table by recording")


def _column_kinds(table: pl.DataFrame, declared: frozenset[str], source: str,
                  starts: list[int]) -> dict[str, list[str]]:
    """Which columns are labels, float channels and exact per-sample extras (module doc)."""
    unknown = sorted(declared - set(table.columns))
    if unknown:
        raise InvalidParameterError(f"label column(s) {', '.join(unknown)} not found in "
                                    f"{source}; its columns: {', '.join(table.columns)}")
    core = sorted(declared & {*CORE_COLUMNS, "pupil"})
    if core:
        raise InvalidParameterError(f"{', '.join(core)} cannot be a label")
    rest = [c for c in table.columns if c not in CORE_COLUMNS and c != "pupil"]
    candidates = [c for c in rest if c in declared or c.lower() in LABEL_NAMES
                  or table.schema[c] in (pl.String, pl.Categorical) or
                  isinstance(table.schema[c], pl.Enum)]
    varying: set[str] = set()
    if candidates:
        # named labels skip nulls (a null first row is no second value); other text columns are
        # labels only when every row of a recording holds the same value (a sparse per-sample
        # note such as "blink" on a few rows stays per sample)
        named = [c for c in candidates if c in declared or c.lower() in LABEL_NAMES]
        # without nulls (the usual case) a column varies within a recording when one of its
        # runs of equal values starts inside a recording: one run-length pass, no hashing
        # (rows of a recording are contiguous, checked before)
        full = [c for c in candidates if table[c].null_count() == 0]
        rec_starts = set(starts)
        varying = {c for c in full if not rec_starts.issuperset(_run_starts(table[c]))}
        rest_c = [c for c in candidates if c not in full]
        if rest_c:
            counts = table.group_by("recording").agg(
                *(pl.col(c).drop_nulls().n_unique() for c in rest_c if c in named),
                *(pl.col(c).n_unique() for c in rest_c if c not in named))
            varying |= {c for c in rest_c if int(counts[c].max() or 0) > 1}
    for c in sorted(declared & varying):
        ids = table["recording"]
        first = table.group_by("recording", maintain_order=True).agg(
            pl.col(c).drop_nulls().first())
        values = ids.to_frame().join(first, on="recording", how="left")[c]
        row = int((table[c].ne_missing(values) & table[c].is_not_null()).arg_true()[0])
        raise InvalidDataError(
            f"{source}: label {c!r} has several values in recording {ids[row]!r} (row {row} "
            f"holds {table[c][row]!r}); a label has one value per recording: do not declare it "
            "a label, or split the recording")
    labels = [c for c in candidates if c not in varying]
    channels = [c for c in rest if c not in labels and c not in candidates
                and table.schema[c] in _FLOAT]
    extras = [c for c in rest if c not in labels and c not in channels]
    return {"labels": labels, "channels": channels, "extras": extras}


def _to_degrees(table: pl.DataFrame, xy_unit: str | None, px_per_deg: float | None,
                geometry: Geometry | None, source: str) -> pl.DataFrame:
    """x and y converted to degrees from ``xy_unit`` (see the module docstring)."""
    if xy_unit is not None and xy_unit not in XY_UNITS:
        raise InvalidParameterError(f"xy_unit must be one of {', '.join(XY_UNITS)}, got "
                                    f"{xy_unit!r}")
    if px_per_deg is not None and xy_unit != "px":
        raise InvalidParameterError("px_per_deg applies to xy_unit='px'")
    if xy_unit in (None, "deg"):
        return table
    x, y = pl.col("x").cast(pl.Float64), pl.col("y").cast(pl.Float64)
    if xy_unit == "norm":
        if geometry is None:
            raise InvalidParameterError(
                f"{source}: xy_unit='norm' maps 0-1 onto the screen's bounds in degrees: pass "
                "geometry=Geometry(...)")
        g = geometry
        return table.with_columns((g.x_min_deg + x * g.width_deg).alias("x"),
                                  (g.y_min_deg + y * g.height_deg).alias("y"))
    if px_per_deg is None:
        if geometry is None or geometry.width_px is None:
            raise InvalidParameterError(
                f"{source}: xy_unit='px' needs px_per_deg=... or a geometry with its pixel "
                "grid (width_px, height_px)")
        px_per_deg = geometry.width_px / geometry.width_deg
    if not (math.isfinite(px_per_deg) and px_per_deg > 0):
        raise InvalidParameterError(f"px_per_deg must be > 0, got {px_per_deg!r}")
    x0, y0 = (0.0, 0.0) if geometry is None else (geometry.x_min_deg, geometry.y_min_deg)
    return table.with_columns((x0 + x / px_per_deg).alias("x"),
                              (y0 + y / px_per_deg).alias("y"))


#: Share of samples outside the geometry above which gaze is refused as probably pixels, and
#: above which a warning says how many will be clamped.
_OUTSIDE_REFUSE, _OUTSIDE_WARN = 0.5, 0.01
#: Without a geometry, a gaze span (1st to 99th percentile) beyond this is refused as pixels.
_MAX_SPAN_DEG = 120.0


def _percentile_spans(xs: np.ndarray, ys: np.ndarray) -> list[float]:
    """The 1st-to-99th percentile spans of x and y over the samples whose x is not NaN."""
    ok = ~np.isnan(xs)
    return [float(np.subtract(*np.percentile(a[ok], [99, 1]))) for a in (xs, ys)]


def _refuse_non_degrees(source: str, n: int, within_01: bool,
                       spans: Callable[[], list[float]] | None) -> None:
    """The check that gaze read as degrees is degrees, shared by :func:`read_dataset` and the
    streaming :mod:`gazeprivacy.data.partitioning`: of ``n`` valid samples (none checked below
    10), all within [0, 1] (``within_01``) are normalised coordinates; without a geometry,
    ``spans()`` (:func:`_percentile_spans`) beyond :data:`_MAX_SPAN_DEG` are pixels.

    >>> try:
    ...     _refuse_non_degrees("f", 20, False, lambda: [300.0, 10.0])
    ... except InvalidDataError as exc:
    ...     print(str(exc)[:60])
    f: the gaze spans 300 units (1st to 99th percentile), more t
    >>> _refuse_non_degrees("f", 20, False, None)  # a geometry: the span is not checked
    """
    if n < 10:
        return
    if within_01:
        raise InvalidDataError(
            f"{source}: every x and y lies within [0, 1]: these look like normalised screen "
            "coordinates, not degrees; pass xy_unit='norm' (with the screen's geometry), or "
            "xy_unit='deg' if they are degrees")
    span = max(spans()) if spans is not None else 0.0
    if span > _MAX_SPAN_DEG:
        raise InvalidDataError(
            f"{source}: the gaze spans {span:.0f} units (1st to 99th percentile), "
            f"more than the {_MAX_SPAN_DEG:g} degrees of any screen: it is probably in "
            "pixels; pass xy_unit='px' with px_per_deg=..., or xy_unit='deg' if it is "
            "degrees (e.g. VR angles)")


def _check_degrees(ds: Dataset, source: str) -> None:
    """Refuse normalised or pixel coordinates read as degrees; warn of off-screen samples."""
    xs = np.concatenate([r.x for r in ds])
    ys = np.concatenate([r.y for r in ds])
    ok = ~np.isnan(xs)
    within = bool(((xs[ok] >= 0) & (xs[ok] <= 1) & (ys[ok] >= 0) & (ys[ok] <= 1)).all())
    _refuse_non_degrees(source, int(ok.sum()), within,
                       (lambda: _percentile_spans(xs, ys))
                       if all(r.geometry is None for r in ds) else None)
    outside = total = 0
    for r in ds:
        if r.geometry is None or r.geometry.kind.value not in ("screen", "image"):
            continue
        valid = ~r.missing
        total += int(valid.sum())
        outside += int((valid & ~r.geometry.contains(r.x, r.y)).sum())
    if total and outside > _OUTSIDE_REFUSE * total:
        raise InvalidDataError(
            f"{source}: {outside} of {total} gaze samples lie outside the screen geometry: the "
            "gaze is probably in pixels; pass xy_unit='px' (with px_per_deg=... or a geometry "
            "with its pixel grid), or xy_unit='deg' if it is degrees")
    if total and outside > _OUTSIDE_WARN * total:
        warnings.warn(f"{source}: {outside} of {total} gaze samples ({outside / total:.1%}) lie "
                      "outside the screen geometry; mechanisms bounded by the screen clamp them "
                      "to its edge", DataPolicyWarning, stacklevel=3)
