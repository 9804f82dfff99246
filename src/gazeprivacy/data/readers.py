# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Readers for eye-tracker exports, each to a :class:`~gazeprivacy.data.Dataset`.

:func:`read_input` reads a file in any of these formats, told by ``input_format`` or recognised
from its name and header (:func:`detect_format`); ``docs/inputs.md`` is the user's guide:

* ``long``: gazeprivacy's long format (:func:`gazeprivacy.data.io.read_dataset`); a table with
  other column names is read with ``columns={"participant": "subject", "t": "timestamp",
  ...}``;
* ``tobii``: a Tobii Pro Lab data export (TSV; ``Recording timestamp``, ``Gaze point X/Y`` in
  pixels, ``Participant name``, ``Recording name``, ``Presented Stimulus name``, ``Pupil
  diameter left/right``). Pixels become degrees with ``px_per_deg`` or ``screen``; the screen is
  the export's ``Recording resolution``; the rate is a sampling-rate column when the export has
  one. Rows of other sensors (``Sensor`` other than ``Eye Tracker``) and event rows without a
  sample are dropped; comma decimals are read; a value that is no number becomes missing
  (counted). ``eye``: ``Gaze point X/Y`` (Tobii's combined point, the default), ``left``,
  ``right`` (``Gaze point left/right X/Y``), ``mean`` or ``both``. The gaze-point columns not
  read are dropped (a raw eye is never written);
* ``pupil-core``: Pupil Core's ``gaze_positions.csv`` (:mod:`gazeprivacy.data.pupil_core`);
* ``neon``: Pupil Labs Neon's ``gaze.csv`` (Pupil Cloud timeseries export; ``timestamp [ns]``,
  ``azimuth [deg]``, ``elevation [deg]``, ``worn``; ``t`` counts from the file's first sample,
  the raw ``timestamp [ns]`` is kept exactly). ``x`` is the azimuth, ``y`` minus the
  elevation (downwards, as the scene camera's pixels); samples not worn become missing
  (counted); the geometry is the scene camera's field of view (103 x 77 degrees, centred). The
  participant is the ``wearer_id`` of an ``info.json`` beside the file when there is one;
* ``eyelink``: an EyeLink ``.asc`` file, one recording per trial
  (:mod:`gazeprivacy.data.eyelink`).

Every other column of an export is kept (as a label, channel or exact extra, as in the long
format) and written only when declared ``--public``. Without a participant id in the file, the
file's name is the participant (a :class:`DataPolicyWarning` says so). Every row a reader drops
or makes missing is counted in one warning. The sampling rate is the export's, else the
declared ``sampling_rate_hz``, else the clock's nominal rate (:mod:`gazeprivacy.data.rates`);
:attr:`Dataset.reading` says which.

A path can carry how to read it (:class:`InputFile`), so that a caller that takes a path (e.g.
:func:`~gazeprivacy.mechanisms.release.protect_file`) reads it with every option.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import polars as pl

from gazeprivacy.data.column_map import check_columns
from gazeprivacy.data.exports import (
    EYES,
    Counts,
    check_eye,
    column,
    finish,
    participant_from_name,
    read_text_table,
)
from gazeprivacy.data.eyelink import read_eyelink
from gazeprivacy.data.geometry import Geometry, ScreenSetup
from gazeprivacy.data.io import not_a_file, read_dataset
from gazeprivacy.data.pupil_core import read_pupil_core
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["EYES", "INPUT_FORMATS", "NEON_FIELD_OF_VIEW_DEG", "InputFile", "detect_format",
           "read_eyelink", "read_input", "read_neon", "read_pupil_core", "read_tobii"]

#: The formats :func:`read_input` reads.
INPUT_FORMATS = ("long", "tobii", "pupil-core", "neon", "eyelink")
#: Neon's scene camera field of view (horizontal, vertical), degrees.
NEON_FIELD_OF_VIEW_DEG = (103.0, 77.0)
_COLUMNS_HINT = ("map your columns with columns=participant=COL,recording=COL,t=COL,x=COL,"
                 "y=COL")


class InputFile(os.PathLike):
    """A path with how to read it: :func:`read_input`'s options (``columns``, ``eye``,
    ``trial_message``, ``screen``, ``sampling_rate_hz``), for callers that take a path.

    >>> f = InputFile("a.asc", eye="both")
    >>> os.fspath(f), f.options
    ('a.asc', {'eye': 'both'})
    """

    _KEYS = ("columns", "eye", "trial_message", "screen", "sampling_rate_hz")

    def __init__(self, path: str | os.PathLike[str], **options: Any) -> None:
        bad = sorted(set(options) - set(self._KEYS))
        if bad:
            raise InvalidParameterError(f"InputFile takes {', '.join(self._KEYS)}, got "
                                        f"{', '.join(bad)}")
        self.path = Path(path)
        self.options = {k: v for k, v in options.items() if v is not None}

    def __fspath__(self) -> str:
        return os.fspath(self.path)

    def __str__(self) -> str:
        return str(self.path)

    def __repr__(self) -> str:
        return f"InputFile({str(self.path)!r}, {self.options})"


def _header(path: Path) -> str:
    import gzip

    opener = gzip.open if path.name.lower().endswith(".gz") else open
    try:
        with opener(path, "rt", errors="replace") as fh:  # type: ignore[operator]
            return fh.readline()
    except OSError as exc:
        raise InvalidDataError(f"cannot read {str(path)!r}: {exc}") from None


def detect_format(path: str | Path, columns: dict[str, str] | None = None) -> str:
    """The format of ``path`` from its name and first line (one of :data:`INPUT_FORMATS`).

    ``.asc`` is EyeLink, ``.parquet`` the long format; a text file by its header (``columns``
    renamed as :func:`read_input` would). A table with other names is told to map them.
    """
    path = Path(path)
    name = path.name.lower()
    if name.endswith(".asc"):
        return "eyelink"
    if name.endswith((".parquet", ".pq")):
        return "long"
    if not path.is_file():
        raise InvalidDataError(not_a_file(path))
    head = _header(path)
    raw = [c.strip().strip('"') for c in re.split(r"[\t,;]", head.rstrip("\r\n"))]
    back = {v: k for k, v in (columns or {}).items()}
    cols = {back.get(c, c).lower() for c in raw}
    if "recording timestamp" in cols or any(c.startswith("recording timestamp [") for c in cols) \
            or "gaze point x" in cols:
        return "tobii"
    if {"gaze_timestamp", "norm_pos_x"} <= cols:
        return "pupil-core"
    if "timestamp [ns]" in cols and ("azimuth [deg]" in cols or "gaze x [px]" in cols):
        return "neon"
    if len({"participant", "recording", "t", "x", "y"} & cols) >= 3:
        return "long"  # (a missing long-format column is then named by the long reader)
    if len(raw) >= 3 and not columns and name.endswith((".csv", ".csv.gz", ".tsv", ".txt")):
        raise InvalidDataError(
            f"{str(path)!r}: its columns ({', '.join(raw[:8])}) are not the long format's "
            f"participant, recording, t, x, y: {_COLUMNS_HINT}; or, for an eye-tracker "
            f"export, pass input_format=... (one of {', '.join(INPUT_FORMATS)})")
    raise InvalidDataError(
        f"cannot tell the format of {str(path)!r} from its header; pass input_format=... "
        f"(one of {', '.join(INPUT_FORMATS)})")


def _options(path: Any, given: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The path and the options, those an :class:`InputFile` carries filled in."""
    if not isinstance(path, InputFile):
        return path, given
    out = dict(given)
    for k, v in path.options.items():
        if out.get(k) is not None and out[k] != v:
            raise InvalidParameterError(f"{k} is given twice, as {out[k]!r} and {v!r}")
        out[k] = v
    return path.path, out


# long: the one entry point; each option checked against the format it applies to
def read_input(path: str | Path | Any, *, input_format: str | None = None,
               geometry: Geometry | None = None, sampling_rate_hz: float | None = None,
               time_unit: str | None = None, labels: tuple[str, ...] | list[str] = (),
               xy_unit: str | None = None, px_per_deg: float | None = None,
               name: str | None = None, participant: str | None = None,
               columns: dict[str, str] | None = None, eye: str | None = None,
               trial_message: str | None = None, screen: ScreenSetup | None = None) -> Dataset:
    """Read ``path`` in ``input_format`` (default: :func:`detect_format`).

    ``time_unit`` and ``xy_unit`` apply to the long format (the exports say their units), and
    ``columns`` (the long format's names -> yours, e.g. ``{"participant": "subject", "t":
    "timestamp"}``); ``px_per_deg`` to pixel data (long with ``xy_unit="px"``, Tobii, EyeLink);
    ``screen`` (:class:`~gazeprivacy.data.geometry.ScreenSetup`, the screen in cm and its
    distance) converts pixels exactly instead, and is refused with ``geometry`` or
    ``px_per_deg``. ``sampling_rate_hz`` declares the nominal rate. ``eye`` (left, right, mean,
    both) and ``trial_message`` (a regular expression that starts a trial) apply to binocular
    exports and EyeLink. A long-format table (polars, pandas or pyarrow) instead of a path is
    read as the long format. ``participant`` names the participant of an export that carries no
    participant id (instead of its file or folder name).
    """
    path, o = _options(path, {"columns": columns, "eye": eye, "trial_message": trial_message,
                              "screen": screen, "sampling_rate_hz": sampling_rate_hz})
    columns = check_columns(o["columns"])
    table = not isinstance(path, str | os.PathLike)
    fmt = input_format or ("long" if table else detect_format(path, columns))
    if fmt not in INPUT_FORMATS:
        raise InvalidParameterError(f"input_format must be one of {', '.join(INPUT_FORMATS)}, "
                                    f"got {fmt!r}")
    if o["screen"] is not None and (geometry is not None or px_per_deg is not None):
        raise InvalidParameterError(
            "the screen in physical units (screen=...) gives the conversion and the geometry: "
            "it goes without geometry and px_per_deg")
    check_eye(o["eye"], fmt)
    if o["trial_message"] is not None and fmt != "eyelink":
        raise InvalidParameterError("trial_message applies to EyeLink files")
    if fmt == "long":
        return _read_long(path, o, participant=participant, geometry=geometry,
                          time_unit=time_unit, name=name, labels=labels, xy_unit=xy_unit,
                          px_per_deg=px_per_deg)
    if time_unit not in (None, "s") or xy_unit is not None or columns:
        raise InvalidParameterError(f"time_unit, xy_unit and columns apply to the long format; "
                                    f"a {fmt} export says its units and names its columns")
    opts: dict[str, Any] = {"geometry": geometry, "labels": labels, "name": name,
                            "sampling_rate_hz": o["sampling_rate_hz"], "participant": participant}
    if fmt in ("tobii", "eyelink"):
        opts.update(px_per_deg=px_per_deg, screen=o["screen"], eye=o["eye"])
    elif px_per_deg is not None or o["screen"] is not None:
        raise InvalidParameterError(f"px_per_deg and screen do not apply to a {fmt} export "
                                    "(its gaze is in degrees or normalised)")
    if fmt == "eyelink":
        opts["trial_message"] = o["trial_message"]
    reader = {"tobii": read_tobii, "pupil-core": read_pupil_core, "neon": read_neon,
              "eyelink": read_eyelink}[fmt]
    return reader(path, **opts)


def _read_long(path: Any, o: dict[str, Any], *, participant: str | None,
               **kw: Any) -> Dataset:
    if participant is not None:
        raise InvalidParameterError(
            "participant=... names the participant of a device export; a long-format "
            "table names them in its participant column")
    try:
        return read_dataset(path, sampling_rate_hz=o["sampling_rate_hz"],
                            columns=o["columns"], screen=o["screen"],
                            **{**kw, "time_unit": kw["time_unit"] or "s"})
    except InvalidDataError as exc:
        if o["columns"] or "missing required column" not in str(exc):
            raise
        raise InvalidDataError(f"{exc}; {_COLUMNS_HINT}") from None


# -------------------------------------------------------------------------------------- Tobii

_TOBII_TIME_UNIT = {"ms": 1e-3, "μs": 1e-6, "us": 1e-6, "µs": 1e-6}
#: Columns of raw gaze a Tobii reader drops when it has read the eye it was asked for.
_TOBII_GAZE = ("gaze point", "gaze direction", "fixation point", "mapped gaze",
               "mapped fixation")


def _tobii_numbers(table: pl.DataFrame, cols: list[str], counts: Counts) -> pl.DataFrame:
    """Numeric columns read as text (comma decimals, a stray word) as floats; a value that is
    no number becomes missing and is counted."""
    fix = []
    for c in cols:
        if table.schema[c] != pl.String:
            continue
        num = pl.col(c).str.strip_chars().str.replace(",", ".", literal=True)
        bad = table.select((pl.col(c).is_not_null() & (pl.col(c).str.strip_chars() != "")
                            & num.cast(pl.Float64, strict=False).is_null()).sum()).item()
        counts.add(bad, f"values of {c!r} that are no number made missing")
        fix.append(num.cast(pl.Float64, strict=False).alias(c))
    return table.with_columns(fix) if fix else table


def _tobii_eye(table: pl.DataFrame, eye: str | None, path: Path) -> list[tuple[str | None,
                                                                                pl.Expr,
                                                                                pl.Expr]]:
    """(eye label, x, y) per recording to read (module docstring)."""
    xcol, ycol = column(table, "Gaze point X"), column(table, "Gaze point Y")
    sides = {s: (column(table, f"Gaze point {s} X"), column(table, f"Gaze point {s} Y"))
             for s in ("left", "right")}
    if eye is None:
        if xcol is None or ycol is None:
            raise InvalidDataError(f"{str(path)!r}: a Tobii Pro Lab export needs the columns "
                                   "'Recording timestamp', 'Gaze point X' and 'Gaze point Y' "
                                   "(or eye=left / right with 'Gaze point left X', ...)")
        return [(None, pl.col(xcol), pl.col(ycol))]
    need = ("left", "right") if eye in ("mean", "both") else (eye,)
    missing = [s for s in need if None in sides[s]]
    if missing:
        raise InvalidDataError(f"{str(path)!r}: eye={eye} needs the columns 'Gaze point "
                               f"{missing[0]} X' and 'Gaze point {missing[0]} Y'")
    if eye == "mean":  # both eyes where both are valid, else the valid one
        return [(None, pl.mean_horizontal(sides["left"][0], sides["right"][0]),
                 pl.mean_horizontal(sides["left"][1], sides["right"][1]))]
    return [(s if eye == "both" else None, pl.col(sides[s][0]), pl.col(sides[s][1]))
            for s in need]


def _tobii_pupil(table: pl.DataFrame, pupils: list[str], eye: str | None) -> pl.Expr:
    """The pupil of the eye read (``left`` / ``right``), else the mean of both eyes'."""
    own = column(table, f"Pupil diameter {eye}") if eye in ("left", "right") else None
    return pl.col(own) if own is not None else pl.mean_horizontal(pupils[:2] or pupils)


def _tobii_rate(table: pl.DataFrame) -> tuple[float | None, str | None]:
    """The nominal rate a sampling-rate column states, and the column."""
    for c in table.columns:
        low = c.lower()
        if "sampling rate" in low or "sampling frequency" in low or "sample rate" in low:
            v = table[c].cast(pl.String).str.replace(",", ".", literal=True).cast(
                pl.Float64, strict=False).drop_nulls()
            if v.len() and float(v[0]) > 0:
                return float(v[0]), c
    return None, None


def _tobii_geometry(table: pl.DataFrame, px_per_deg: float | None,
                    geometry: Geometry | None, screen: ScreenSetup | None,
                    path: Path) -> tuple[Geometry | None, ScreenSetup | None, str]:
    """The geometry (and the screen with its pixel grid), by the precedence rule of
    ``docs/inputs.md``, and where it came from."""
    width, height = column(table, "Recording resolution width"), \
        column(table, "Recording resolution height")
    grid = None
    if width and height and table[width].drop_nulls().len():
        grid = (int(table[width].drop_nulls()[0]), int(table[height].drop_nulls()[0]))
    if screen is not None:
        screen = screen.with_pixels(*grid) if grid else screen
        return None, screen, "the screen in physical units"
    if geometry is not None:
        if px_per_deg is None and geometry.width_px is None:
            raise InvalidParameterError(
                f"{str(path)!r}: Tobii gaze is in pixels; pass px_per_deg=... or a geometry "
                "with its pixel grid")
        return geometry, None, "declared"
    if px_per_deg is None:
        raise InvalidParameterError(
            f"{str(path)!r}: Tobii gaze is in pixels; pass px_per_deg=... or the screen's "
            "size and distance, screen=ScreenSetup(...)")
    if grid is None:
        return None, None, "missing (the export has no Recording resolution)"
    return (Geometry.screen_px(width_px=grid[0], height_px=grid[1], px_per_deg=px_per_deg),
            None, "export (Recording resolution) at px_per_deg")


# long: one reader, its steps in the export's column order; helpers above do each part
def read_tobii(path: str | Path, *, px_per_deg: float | None = None,
               geometry: Geometry | None = None, labels: tuple[str, ...] | list[str] = (),
               name: str | None = None, sampling_rate_hz: float | None = None,
               participant: str | None = None, screen: ScreenSetup | None = None,
               eye: str | None = None) -> Dataset:
    """A Tobii Pro Lab data export (TSV) as a Dataset (module docstring).

    ``participant`` names the participant of an export without a 'Participant name' column
    (default: the file name, with a warning). ``sampling_rate_hz`` declares the nominal rate
    (default: the export's sampling-rate column, else the clock's nominal rate).

    Raises
    ------
    InvalidDataError
        A required column is missing, or the gaze cannot be converted to degrees.
    InvalidParameterError
        Neither ``px_per_deg``, a screen, nor a geometry with a pixel grid is given, or
        ``participant`` is given for an export that names its participants.
    """
    path = Path(path)
    check_eye(eye, "tobii")
    table = read_text_table(path, "\t")
    tcol = column(table, "Recording timestamp")
    if tcol is None:
        raise InvalidDataError(f"{str(path)!r}: a Tobii Pro Lab export needs the columns "
                               "'Recording timestamp', 'Gaze point X' and 'Gaze point Y'")
    counts = Counts(path)
    eyes = _tobii_eye(table, eye, path)
    gaze_cols = [c for c in table.columns if c.lower().startswith(_TOBII_GAZE)]
    sensor, event = column(table, "Sensor"), column(table, "Event")
    if sensor is not None:
        n = table.height
        table = table.filter(pl.col(sensor).is_null() | (pl.col(sensor) == "Eye Tracker"))
        counts.note(n - table.height, "rows of other sensors dropped")
    pupils = [c for c in (column(table, "Pupil diameter left"),
                          column(table, "Pupil diameter right"),
                          column(table, "Pupil diameter filtered")) if c is not None]
    if event is not None:  # event rows carry no sample (no gaze column holds a value)
        some = [c for c in gaze_cols if c.lower().startswith("gaze point")]
        n = table.height
        table = table.filter(pl.col(event).is_null()
                             | pl.any_horizontal(pl.col(c).is_not_null() for c in some))
        counts.note(n - table.height, "event rows (no gaze sample) dropped")
    table = _tobii_numbers(_tobii_numbers(table, [tcol], Counts(path)),
                           [*gaze_cols, *pupils], counts)
    no_time = int(table[tcol].is_null().sum())
    counts.add(no_time, "rows without a timestamp dropped")
    table = table.filter(pl.col(tcol).is_not_null())
    unit = re.search(r"\[(.*?)\]", tcol)
    scale = _TOBII_TIME_UNIT.get(unit.group(1).strip() if unit else "ms", 1e-3)
    pname, rname = column(table, "Participant name"), column(table, "Recording name")
    if pname and participant is not None:
        raise InvalidParameterError(f"{str(path)!r} names its participants in {pname!r}; "
                                    "participant=... is for exports without that column")
    pid = None if pname else participant or participant_from_name(
        path, path.name.split(".")[0], "no 'Participant name' column")
    geometry, screen, geo_source = _tobii_geometry(table, px_per_deg, geometry, screen, path)
    rate, rate_col = _tobii_rate(table)
    stim = column(table, "Presented Stimulus name")
    rid = pl.col(rname).cast(pl.String) if rname else pl.lit(path.name.split(".")[0])
    table = table.with_row_index("__row").with_columns(  # each recording's first row
        pl.col("__row").min().over(rname or pl.lit(0)).alias("__first"))
    parts = [table.with_columns(
        (pl.col(pname).cast(pl.String) if pname else pl.lit(pid)).alias("participant"),
        (rid + f" {which}" if which else rid).alias("recording"),
        (pl.col(tcol).cast(pl.Float64) * scale).alias("t"),
        x.cast(pl.Float64).alias("x"), y.cast(pl.Float64).alias("y"),
        *([_tobii_pupil(table, pupils, which or eye).alias("pupil")] if pupils else []),
        *([pl.col(stim).alias("stimulus")] if stim else []),
        *([pl.lit(which).alias("eye")] if which else []),
    ).drop(*(c for c in {pname, rname, tcol, stim, *gaze_cols} if c is not None))
        for which, x, y in eyes]
    out = parts[0]
    if len(parts) > 1:  # one recording per eye, each after its own: rows of a recording together
        out = pl.concat(parts).sort("__first", "eye", "__row")
    out = out.drop("__row", "__first", strict=False)
    if sampling_rate_hz is None and rate is not None:
        sampling_rate_hz, source = rate, f"export (column {rate_col!r})"
    else:
        source = "declared"
    return finish(out, path, geometry=geometry, labels=labels, name=name,
                  sampling_rate_hz=sampling_rate_hz, rate_source=source, xy_unit="px",
                  px_per_deg=px_per_deg if screen is None else None, screen=screen,
                  counts=counts, reading={"geometry": geo_source,
                                          "eye": eye or "Tobii's combined gaze point"})


# --------------------------------------------------------------------------------- Pupil Labs


def read_neon(path: str | Path, *, geometry: Geometry | None = None,
              labels: tuple[str, ...] | list[str] = (), name: str | None = None,
              sampling_rate_hz: float | None = None, participant: str | None = None) -> Dataset:
    """Pupil Labs Neon's ``gaze.csv`` as a Dataset, one recording per ``recording id``
    (module docstring). The raw ``timestamp [ns]`` is kept exactly as an integer extra."""
    path = Path(path)
    table = read_text_table(path, ",")
    tcol = column(table, "timestamp")
    az, el = column(table, "azimuth"), column(table, "elevation")
    if tcol is None or az is None or el is None:
        raise InvalidDataError(f"{str(path)!r}: a Neon gaze.csv needs 'timestamp [ns]', "
                               "'azimuth [deg]' and 'elevation [deg]'")
    rid = column(table, "recording id")
    info = path.with_name("info.json")
    if participant is None and info.is_file():
        try:
            meta = json.loads(info.read_text())
            participant = str(meta.get("wearer_id") or meta.get("wearer_name") or "") or None
        except (OSError, ValueError):
            participant = None
    pid = participant or participant_from_name(path, path.parent.name or path.stem,
                                               "no info.json with a wearer_id beside it")
    worn = column(table, "worn")
    ok = pl.lit(True) if worn is None else pl.col(worn).cast(pl.Float64).fill_null(0) > 0
    counts = Counts(path)
    counts.add(int(table.select((~ok & pl.col(az).is_not_null()).sum()).item()),
               "samples not worn made missing")
    geo_source = "declared"
    if geometry is None:
        w, h = NEON_FIELD_OF_VIEW_DEG
        geometry = Geometry(x_min_deg=-w / 2, x_max_deg=w / 2, y_min_deg=-h / 2,
                            y_max_deg=h / 2, kind="scene-camera")
        geo_source = "Neon's scene camera field of view"
    out = table.with_columns(
        pl.lit(pid).alias("participant"),
        (pl.col(rid).cast(pl.String) if rid else pl.lit(path.parent.name or path.stem))
        .alias("recording"),
        # from the file's first sample, in exact integers, then seconds (the epoch clock in
        # ns is not exact as a float; it stays in its own column)
        ((pl.col(tcol) - pl.col(tcol).min()).cast(pl.Float64) * 1e-9).alias("t"),
        pl.when(ok).then(pl.col(az).cast(pl.Float64)).alias("x"),
        pl.when(ok).then(-pl.col(el).cast(pl.Float64)).alias("y"),
    ).drop(*(c for c in (rid, az, el) if c is not None))
    return finish(out, path, geometry=geometry, labels=labels, name=name,
                  sampling_rate_hz=sampling_rate_hz, counts=counts,
                  reading={"geometry": geo_source})
