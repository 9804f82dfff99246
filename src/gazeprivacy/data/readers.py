# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Readers for eye-tracker exports, each to a :class:`~gazeprivacy.data.Dataset`.

:func:`read_input` reads a file in any of these formats, told by ``input_format`` or recognised
from its name and header (:func:`detect_format`):

* ``long``: gazeprivacy's long format (:func:`gazeprivacy.data.io.read_dataset`);
* ``tobii``: a Tobii Pro Lab data export (TSV; ``Recording timestamp``, ``Gaze point X/Y`` in
  pixels, ``Participant name``, ``Recording name``, ``Presented Stimulus name``, ``Pupil
  diameter left/right``). Pixels become degrees with ``px_per_deg`` (or a geometry with its
  pixel grid); the screen is the export's ``Recording resolution``. Rows of other sensors
  (``Sensor`` other than ``Eye Tracker``) and event rows without a sample are dropped; comma
  decimals are read;
* ``pupil-core``: Pupil Core's ``gaze_positions.csv`` (Pupil Player raw data export;
  ``gaze_timestamp`` in seconds). Gaze in degrees from the 3-D gaze point
  (``gaze_point_3d_x/y/z``, angles of the direction in world-camera coordinates, ``y`` down),
  else from ``norm_pos_x/y`` (0-1, origin bottom-left) mapped onto a given geometry. Samples
  with ``confidence`` below ``min_confidence`` (0.6, Pupil Labs' recommendation) become missing;
* ``neon``: Pupil Labs Neon's ``gaze.csv`` (Pupil Cloud timeseries export; ``timestamp [ns]``,
  ``azimuth [deg]``, ``elevation [deg]``, ``worn``; ``t`` counts from the file's first sample,
  the raw ``timestamp [ns]`` is kept exactly). ``x`` is the azimuth, ``y`` minus the
  elevation (downwards, as the scene camera's pixels); samples not worn become missing; the
  geometry is the scene camera's field of view (103 x 77 degrees, centred). The participant is
  the ``wearer_id`` of an ``info.json`` beside the file when there is one;
* ``eyelink``: an EyeLink ``.asc`` file, parsed by pymovements (``pm.gaze.from_asc``; sampling
  rate and screen resolution from the file). Pixels become degrees with ``px_per_deg``, or with
  pymovements' ``pix2deg`` when a ``pm.Experiment`` with the screen's size and distance is given
  (its geometry then comes from the experiment). Of a binocular recording the left eye is read.

Every other column of an export is kept (as a label, channel or exact extra, as in the long
format) and written only when declared ``--public``. Without a participant id in the file, the
file's name is the participant (a :class:`DataPolicyWarning` says so).
"""

from __future__ import annotations

import json
import os
import re
import warnings
from pathlib import Path
from typing import Any

import polars as pl

from gazeprivacy.data.geometry import Geometry, direction_to_angles_deg
from gazeprivacy.data.io import dataset_from_table, read_dataset
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import DataPolicyWarning, InvalidDataError, InvalidParameterError

__all__ = ["INPUT_FORMATS", "NEON_FIELD_OF_VIEW_DEG", "detect_format", "read_eyelink",
           "read_input", "read_neon", "read_pupil_core", "read_tobii"]

#: The formats :func:`read_input` reads.
INPUT_FORMATS = ("long", "tobii", "pupil-core", "neon", "eyelink")
#: Neon's scene camera field of view (horizontal, vertical), degrees.
NEON_FIELD_OF_VIEW_DEG = (103.0, 77.0)


def _header(path: Path) -> str:
    import gzip

    opener = gzip.open if path.name.lower().endswith(".gz") else open
    try:
        with opener(path, "rt", errors="replace") as fh:  # type: ignore[operator]
            return fh.readline()
    except OSError as exc:
        raise InvalidDataError(f"cannot read {str(path)!r}: {exc}") from None


def detect_format(path: str | Path) -> str:
    """The format of ``path`` from its name and first line (one of :data:`INPUT_FORMATS`).

    ``.asc`` is EyeLink, ``.parquet`` the long format; a text file by its header.
    """
    path = Path(path)
    name = path.name.lower()
    if name.endswith(".asc"):
        return "eyelink"
    if name.endswith((".parquet", ".pq")):
        return "long"
    if not path.is_file():
        raise InvalidDataError(f"no such file: {str(path)!r}")
    head = _header(path)
    cols = {c.strip().strip('"').lower() for c in re.split(r"[\t,;]", head)}
    if "recording timestamp" in cols or any(c.startswith("recording timestamp [") for c in cols) \
            or "gaze point x" in cols:
        return "tobii"
    if {"gaze_timestamp", "norm_pos_x"} <= cols:
        return "pupil-core"
    if "timestamp [ns]" in cols and ("azimuth [deg]" in cols or "gaze x [px]" in cols):
        return "neon"
    if len({"participant", "recording", "t", "x", "y"} & cols) >= 3:
        return "long"  # (a missing long-format column is then named by the long reader)
    raise InvalidDataError(
        f"cannot tell the format of {str(path)!r} from its header; pass input_format=... "
        f"(one of {', '.join(INPUT_FORMATS)})")


def read_input(path: str | Path | Any, *, input_format: str | None = None,
               geometry: Geometry | None = None, sampling_rate_hz: float | None = None,
               time_unit: str | None = None, labels: tuple[str, ...] | list[str] = (),
               xy_unit: str | None = None, px_per_deg: float | None = None,
               name: str | None = None, participant: str | None = None) -> Dataset:
    """Read ``path`` in ``input_format`` (default: :func:`detect_format`).

    ``time_unit`` and ``xy_unit`` apply to the long format (the exports say their units);
    ``px_per_deg`` to pixel data (long with ``xy_unit="px"``, Tobii, EyeLink). A long-format
    table (polars, pandas or pyarrow) instead of a path is read as the long format.
    ``participant`` names the participant of an export that carries no participant id (instead
    of its file or folder name); the long format names them in its ``participant`` column.
    """
    table = not isinstance(path, str | os.PathLike)
    fmt = input_format or ("long" if table else detect_format(path))
    if fmt not in INPUT_FORMATS:
        raise InvalidParameterError(f"input_format must be one of {', '.join(INPUT_FORMATS)}, "
                                    f"got {fmt!r}")
    if fmt == "long":
        if participant is not None:
            raise InvalidParameterError(
                "participant=... names the participant of a device export; a long-format "
                "table names them in its participant column")
        return read_dataset(path, geometry=geometry, sampling_rate_hz=sampling_rate_hz,
                            time_unit=time_unit or "s", name=name, labels=labels,
                            xy_unit=xy_unit, px_per_deg=px_per_deg)
    if time_unit not in (None, "s") or xy_unit is not None:
        raise InvalidParameterError(
            f"time_unit and xy_unit apply to the long format; a {fmt} export says its units")
    opts: dict[str, Any] = {"geometry": geometry, "labels": labels, "name": name,
                            "sampling_rate_hz": sampling_rate_hz, "participant": participant}
    if fmt in ("tobii", "eyelink"):
        opts["px_per_deg"] = px_per_deg
    elif px_per_deg is not None:
        raise InvalidParameterError(f"px_per_deg does not apply to a {fmt} export (its gaze "
                                    "is in degrees or normalised)")
    reader = {"tobii": read_tobii, "pupil-core": read_pupil_core, "neon": read_neon,
              "eyelink": read_eyelink}[fmt]
    return reader(path, **opts)


# ------------------------------------------------------------------------------------ helpers


def _read_text_table(path: Path, separator: str) -> pl.DataFrame:
    try:
        table = pl.read_csv(path, separator=separator, infer_schema_length=None,
                            encoding="utf8-lossy")
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise InvalidDataError(f"cannot read {str(path)!r}: {exc}") from None
    if table.height == 0:
        raise InvalidDataError(f"{str(path)!r} has a header but no rows")
    return table


def _column(table: pl.DataFrame, *names: str) -> str | None:
    """The first column whose name, without a bracketed unit, matches one of ``names``
    (case-insensitive)."""
    plain = {re.sub(r"\s*[\[(].*?[\])]\s*$", "", c).strip().lower(): c for c in table.columns}
    for n in names:
        if n.lower() in plain:
            return plain[n.lower()]
    return None


def _participant_from_name(path: Path, pid: str, what: str) -> str:
    warnings.warn(f"{str(path)!r} names no participant ({what}): {pid!r}, from the file or "
                  "folder name, is taken as the participant of its recordings (name them with "
                  "participant=...)", DataPolicyWarning,
                  stacklevel=3)
    return pid


def _finish(table: pl.DataFrame, path: Path, *, geometry: Geometry | None,
            labels: tuple[str, ...] | list[str], name: str | None,
            sampling_rate_hz: float | None, xy_unit: str = "deg",
            px_per_deg: float | None = None) -> Dataset:
    front = ["participant", "recording", "t", "x", "y"]
    table = table.select(*front, *[c for c in table.columns if c not in front])
    return dataset_from_table(table, geometry=geometry, sampling_rate_hz=sampling_rate_hz,
                              name=name or path.name.split(".")[0], source=str(path),
                              labels=labels, xy_unit=xy_unit, px_per_deg=px_per_deg,
                              copy=False)  # a table this module read from the file


# -------------------------------------------------------------------------------------- Tobii

_TOBII_TIME_UNIT = {"ms": 1e-3, "μs": 1e-6, "us": 1e-6, "µs": 1e-6}


def _tobii_numbers(table: pl.DataFrame, cols: list[str]) -> pl.DataFrame:
    """Numeric columns read as text because of comma decimals, as floats."""
    fix = [pl.col(c).str.replace(",", ".", literal=True).cast(pl.Float64, strict=False)
           for c in cols if table.schema[c] == pl.String]
    return table.with_columns(fix) if fix else table


def read_tobii(path: str | Path, *, px_per_deg: float | None = None,
               geometry: Geometry | None = None, labels: tuple[str, ...] | list[str] = (),
               name: str | None = None, sampling_rate_hz: float | None = None,
               participant: str | None = None) -> Dataset:
    """A Tobii Pro Lab data export (TSV) as a Dataset (module docstring).

    ``participant`` names the participant of an export without a 'Participant name' column
    (default: the file name, with a warning).

    Raises
    ------
    InvalidDataError
        A required column is missing, or the gaze cannot be converted to degrees.
    InvalidParameterError
        Neither ``px_per_deg`` nor a geometry with a pixel grid is given, or ``participant`` is
        given for an export that names its participants.
    """
    path = Path(path)
    table = _read_text_table(path, "\t")
    tcol = _column(table, "Recording timestamp")
    xcol, ycol = _column(table, "Gaze point X"), _column(table, "Gaze point Y")
    if tcol is None or xcol is None or ycol is None:
        raise InvalidDataError(f"{str(path)!r}: a Tobii Pro Lab export needs the columns "
                               "'Recording timestamp', 'Gaze point X' and 'Gaze point Y'")
    sensor = _column(table, "Sensor")
    if sensor is not None:
        table = table.filter(pl.col(sensor).is_null() | (pl.col(sensor) == "Eye Tracker"))
    event = _column(table, "Event")
    pupils = [c for c in (_column(table, "Pupil diameter left"),
                          _column(table, "Pupil diameter right"),
                          _column(table, "Pupil diameter filtered")) if c is not None]
    table = _tobii_numbers(table, [xcol, ycol, tcol, *pupils])
    if event is not None:  # event rows carry no sample
        table = table.filter(pl.col(event).is_null() | pl.col(xcol).is_not_null())
    unit = re.search(r"\[(.*?)\]", tcol)
    scale = _TOBII_TIME_UNIT.get(unit.group(1).strip() if unit else "ms", 1e-3)
    pname, rname = _column(table, "Participant name"), _column(table, "Recording name")
    if pname and participant is not None:
        raise InvalidParameterError(f"{str(path)!r} names its participants in {pname!r}; "
                                    "participant=... is for exports without that column")
    pid = None if pname else participant or _participant_from_name(
        path, path.name.split(".")[0], "no 'Participant name' column")
    width, height = _column(table, "Recording resolution width"), \
        _column(table, "Recording resolution height")
    if geometry is None and px_per_deg is not None and width and height:
        geometry = Geometry.screen_px(width_px=int(table[width].drop_nulls()[0]),
                                      height_px=int(table[height].drop_nulls()[0]),
                                      px_per_deg=px_per_deg)
    if px_per_deg is None and (geometry is None or geometry.width_px is None):
        raise InvalidParameterError(
            f"{str(path)!r}: Tobii gaze is in pixels; pass px_per_deg=... or a geometry "
            "with its pixel grid")
    stim = _column(table, "Presented Stimulus name")
    out = table.with_columns(
        (pl.col(pname).cast(pl.String) if pname else pl.lit(pid)).alias("participant"),
        (pl.col(rname).cast(pl.String) if rname else pl.lit(path.name.split(".")[0]))
        .alias("recording"),
        (pl.col(tcol).cast(pl.Float64) * scale).alias("t"),
        pl.col(xcol).cast(pl.Float64).alias("x"), pl.col(ycol).cast(pl.Float64).alias("y"),
        *([pl.mean_horizontal(pupils[:2] or pupils).alias("pupil")] if pupils else []),
        *([pl.col(stim).alias("stimulus")] if stim else []),
    ).drop(c for c in (pname, rname, tcol, xcol, ycol, stim) if c is not None)
    return _finish(out, path, geometry=geometry, labels=labels, name=name,
                   sampling_rate_hz=sampling_rate_hz, xy_unit="px", px_per_deg=px_per_deg)


# --------------------------------------------------------------------------------- Pupil Labs


def read_pupil_core(path: str | Path, *, geometry: Geometry | None = None,
                    labels: tuple[str, ...] | list[str] = (), name: str | None = None,
                    sampling_rate_hz: float | None = None, participant: str | None = None,
                    min_confidence: float = 0.6) -> Dataset:
    """Pupil Core's ``gaze_positions.csv`` as a one-recording Dataset (module docstring).

    ``participant`` names the wearer (default: the name of the recording folder, with a
    warning). Without 3-D gaze points, ``geometry`` (the world camera's field of view in
    degrees) is required to map ``norm_pos``.
    """
    path = Path(path)
    table = _read_text_table(path, ",")
    need = {"gaze_timestamp", "norm_pos_x", "norm_pos_y", "confidence"}
    if not need <= set(table.columns):
        raise InvalidDataError(f"{str(path)!r}: gaze_positions.csv needs the columns "
                               f"{', '.join(sorted(need))}")
    low = pl.col("confidence") < min_confidence
    if {"gaze_point_3d_x", "gaze_point_3d_y", "gaze_point_3d_z"} <= set(table.columns):
        v = table.select("gaze_point_3d_x", "gaze_point_3d_y", "gaze_point_3d_z").cast(
            pl.Float64).fill_null(float("nan")).to_numpy()
        h, vert = direction_to_angles_deg(v)
        xy = pl.DataFrame({"x": h, "y": vert}).with_columns(pl.all().fill_nan(None))
        if geometry is None:
            geometry = Geometry(x_min_deg=-90.0, x_max_deg=90.0, y_min_deg=-90.0,
                                y_max_deg=90.0, kind="scene-camera")
    else:
        if geometry is None:
            raise InvalidParameterError(
                f"{str(path)!r} has no 3-D gaze points: mapping norm_pos to degrees needs the "
                "world camera's field of view: pass geometry=Geometry(...)")
        g = geometry
        xy = table.select((g.x_min_deg + pl.col("norm_pos_x") * g.width_deg).alias("x"),
                          (g.y_min_deg + (1 - pl.col("norm_pos_y")) * g.height_deg).alias("y"))
    folder = path.parent.name if path.parent.name not in ("", "exports") else path.stem
    pid = participant or _participant_from_name(path, folder, "Pupil Core exports carry none")
    out = table.with_columns(
        pl.lit(pid).alias("participant"), pl.lit(folder or path.stem).alias("recording"),
        pl.col("gaze_timestamp").cast(pl.Float64).alias("t"),
        pl.when(~low).then(xy["x"]).alias("x"), pl.when(~low).then(xy["y"]).alias("y"),
    ).drop("gaze_timestamp")
    return _finish(out, path, geometry=geometry, labels=labels, name=name,
                   sampling_rate_hz=sampling_rate_hz)


def read_neon(path: str | Path, *, geometry: Geometry | None = None,
              labels: tuple[str, ...] | list[str] = (), name: str | None = None,
              sampling_rate_hz: float | None = None, participant: str | None = None) -> Dataset:
    """Pupil Labs Neon's ``gaze.csv`` as a Dataset, one recording per ``recording id``
    (module docstring). The raw ``timestamp [ns]`` is kept exactly as an integer extra."""
    path = Path(path)
    table = _read_text_table(path, ",")
    tcol = _column(table, "timestamp")
    az, el = _column(table, "azimuth"), _column(table, "elevation")
    if tcol is None or az is None or el is None:
        raise InvalidDataError(f"{str(path)!r}: a Neon gaze.csv needs 'timestamp [ns]', "
                               "'azimuth [deg]' and 'elevation [deg]'")
    rid = _column(table, "recording id")
    info = path.with_name("info.json")
    if participant is None and info.is_file():
        try:
            meta = json.loads(info.read_text())
            participant = str(meta.get("wearer_id") or meta.get("wearer_name") or "") or None
        except (OSError, ValueError):
            participant = None
    pid = participant or _participant_from_name(path, path.parent.name or path.stem,
                                                "no info.json with a wearer_id beside it")
    worn = _column(table, "worn")
    ok = pl.lit(True) if worn is None else pl.col(worn).cast(pl.Float64).fill_null(0) > 0
    if geometry is None:
        w, h = NEON_FIELD_OF_VIEW_DEG
        geometry = Geometry(x_min_deg=-w / 2, x_max_deg=w / 2, y_min_deg=-h / 2,
                            y_max_deg=h / 2, kind="scene-camera")
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
    return _finish(out, path, geometry=geometry, labels=labels, name=name,
                   sampling_rate_hz=sampling_rate_hz)


# ------------------------------------------------------------------------------------ EyeLink


def read_eyelink(path: str | Path, *, px_per_deg: float | None = None,
                 geometry: Geometry | None = None, experiment: Any = None,
                 labels: tuple[str, ...] | list[str] = (), name: str | None = None,
                 sampling_rate_hz: float | None = None, participant: str | None = None) -> Dataset:
    """An EyeLink ``.asc`` file as a one-recording Dataset, parsed by pymovements
    (``pm.gaze.from_asc``).

    Pixels become degrees with ``px_per_deg`` (linear; geometry: the file's screen at that
    scale) or, with an ``experiment`` whose screen has its size and distance, with pymovements'
    ``pix2deg`` (geometry: :func:`~gazeprivacy.data.pymovements_bridge.geometry_from_experiment`).
    ``participant`` defaults to the file name (with a warning).
    """
    import pymovements as pm

    from gazeprivacy.data.pymovements_bridge import geometry_from_experiment

    path = Path(path)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            # pymovements notes a missing mount line of the header; the reader needs none
            warnings.filterwarnings("ignore", message="No mount configuration found")
            gaze = pm.gaze.from_asc(path, experiment=experiment)
    except (OSError, ValueError, pl.exceptions.PolarsError) as exc:
        raise InvalidDataError(f"cannot read {str(path)!r} as EyeLink ASC: {exc}") from None
    samples = gaze.samples
    if samples.height == 0 or "pixel" not in samples.columns:
        raise InvalidDataError(f"{str(path)!r}: no gaze samples found in the ASC file")
    rate = sampling_rate_hz or (gaze.experiment.sampling_rate if gaze.experiment else None)
    screen_geo = geometry_from_experiment(experiment) if experiment is not None else None
    if screen_geo is not None and px_per_deg is None:
        gaze.pix2deg()
        pos, xy_unit, geometry = "position", "deg", geometry or screen_geo
    elif px_per_deg is not None:
        screen = gaze.experiment.screen if gaze.experiment is not None else None
        if geometry is None and screen is not None and screen.width_px:
            geometry = Geometry.screen_px(width_px=int(screen.width_px),
                                          height_px=int(screen.height_px),
                                          px_per_deg=px_per_deg)
        pos, xy_unit = "pixel", "px"
    else:
        raise InvalidParameterError(
            f"{str(path)!r}: EyeLink gaze is in pixels; pass px_per_deg=... or a "
            "pm.Experiment with the screen's size and distance")
    s = gaze.samples
    pid = participant or _participant_from_name(path, path.name.split(".")[0],
                                                "EyeLink files carry none")
    out = s.with_columns(
        pl.lit(pid).alias("participant"), pl.lit(path.name.split(".")[0]).alias("recording"),
        (pl.col("time").cast(pl.Float64) / 1000.0).alias("t"),
        pl.col(pos).list.get(0).cast(pl.Float64).alias("x"),
        pl.col(pos).list.get(1).cast(pl.Float64).alias("y"),
    ).drop(c for c in ("time", "pixel", "position") if c in s.columns)
    return _finish(out, path, geometry=geometry, labels=labels, name=name,
                   sampling_rate_hz=rate, xy_unit=xy_unit,
                   px_per_deg=px_per_deg if xy_unit == "px" else None)
