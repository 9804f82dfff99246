# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Pupil Core's ``gaze_positions.csv`` (a Pupil Player raw data export) as a Dataset.

The export sits in ``RECORDING/exports/NNN/gaze_positions.csv``, beside Pupil Capture's
``RECORDING/info.player.json``. ``gaze_timestamp`` is in seconds.

* **Gaze** in degrees from the 3-D gaze point (``gaze_point_3d_x/y/z``: angles of the direction
  in world-camera coordinates, ``y`` down); where those are empty (the 2-D pipeline writes the
  columns but leaves them empty) from ``norm_pos_x/y`` (0-1, origin bottom-left) mapped onto a
  given geometry (the world camera's field of view). Samples with ``confidence`` below
  ``min_confidence`` (0.6, Pupil Labs' recommendation) become missing; a warning counts them.
* **Participant**: ``participant=...``; else a ``participant``, ``subject`` or ``wearer`` entry
  of ``info.player.json`` or ``user_info.csv``; else the recording folder's name (or the
  ``recording_name`` of ``info.player.json``) when it holds a letter, with a warning. Never the
  export's number (``000``): when nothing names the participant, the read is refused until
  ``participant=...`` is given.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy.data.exports import Counts, finish, participant_from_name, read_text_table
from gazeprivacy.data.geometry import Geometry, direction_to_angles_deg
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["pupil_core_ids", "read_pupil_core"]

_ID_KEYS = ("participant", "participant_id", "subject", "subject_id", "wearer", "wearer_id")
_3D = ("gaze_point_3d_x", "gaze_point_3d_y", "gaze_point_3d_z")


def _recording_dir(path: Path) -> Path:
    """The Pupil Capture recording folder of an export file."""
    folder = path.parent
    if folder.parent.name == "exports":
        return folder.parent.parent
    return folder


def _named(rec: Path, info: dict[str, Any]) -> str | None:
    """A participant named by ``info.player.json`` or ``user_info.csv``."""
    for k in _ID_KEYS:
        if info.get(k):
            return str(info[k])
    user = rec / "user_info.csv"
    if user.is_file():
        try:
            with open(user, newline="", encoding="utf-8", errors="replace") as fh:
                for row in csv.reader(fh):
                    if len(row) >= 2 and row[0].strip().lower() in _ID_KEYS and row[1].strip():
                        return row[1].strip()
        except OSError:
            pass
    return None


def pupil_core_ids(path: str | Path, participant: str | None = None) -> tuple[str, str]:
    """(participant, recording id) of a Pupil Core export (module docstring).

    Raises
    ------
    InvalidParameterError
        Nothing names the participant and ``participant`` is not given.
    """
    path = Path(path)
    rec = _recording_dir(path)
    info: dict[str, Any] = {}
    side = rec / "info.player.json"
    if side.is_file():
        try:
            info = json.loads(side.read_text(encoding="utf-8", errors="replace"))
        except (OSError, ValueError):
            info = {}
    numbered = not re.search(r"[A-Za-z]", rec.name)
    rid = f"{rec.parent.name}/{rec.name}" if numbered and rec.parent.name else rec.name
    if participant is not None:
        return participant, rid
    named = _named(rec, info)
    if named:
        return named, rid
    for candidate, what in ((rec.name, "the recording folder"),
                            (str(info.get("recording_name") or ""),
                             "the recording_name of info.player.json")):
        if re.search(r"[A-Za-z]", candidate):
            return participant_from_name(path, candidate, f"Pupil Core exports carry none; "
                                                          f"{what}"), rid
    raise InvalidParameterError(
        f"cannot tell the participant of {str(path)!r}: its recording folder {rec.name!r} is a "
        "number and neither info.player.json nor user_info.csv names one; pass "
        "participant=...")


def _gaze(table: pl.DataFrame, path: Path, geometry: Geometry | None,
          counts: Counts) -> tuple[np.ndarray, np.ndarray, Geometry, str]:
    """x, y in degrees, the geometry, and which pipeline gave them ("3-D", "2-D", mixed)."""
    n = table.height
    x3 = y3 = np.full(n, np.nan)
    has3 = np.zeros(n, dtype=bool)
    if set(_3D) <= set(table.columns):
        v = table.select(_3D).cast(pl.Float64).fill_null(float("nan")).to_numpy()
        x3, y3 = direction_to_angles_deg(v)
        has3 = np.isfinite(x3)
    if has3.all():
        return x3, y3, geometry or Geometry(x_min_deg=-90.0, x_max_deg=90.0, y_min_deg=-90.0,
                                            y_max_deg=90.0, kind="scene-camera"), "3-D"
    if geometry is None:
        if not has3.any():
            why = ("its 3-D gaze columns are empty (the 2-D pipeline)" if set(_3D) <=
                   set(table.columns) else "it has no 3-D gaze points")
            raise InvalidParameterError(
                f"{str(path)!r}: {why}: mapping norm_pos to degrees needs the world camera's "
                "field of view: pass geometry=Geometry(...)")
        counts.add(int((~has3).sum()), "samples without a 3-D gaze point made missing (pass "
                                        "the world camera's field of view to map norm_pos)")
        return x3, y3, Geometry(x_min_deg=-90.0, x_max_deg=90.0, y_min_deg=-90.0,
                                y_max_deg=90.0, kind="scene-camera"), "3-D"
    g = geometry
    nx = table["norm_pos_x"].cast(pl.Float64).fill_null(float("nan")).to_numpy()
    ny = table["norm_pos_y"].cast(pl.Float64).fill_null(float("nan")).to_numpy()
    x = np.where(has3, x3, g.x_min_deg + nx * g.width_deg)
    y = np.where(has3, y3, g.y_min_deg + (1 - ny) * g.height_deg)
    return x, y, g, ("2-D" if not has3.any() else "3-D, 2-D where the 3-D point is empty")


def read_pupil_core(path: str | Path, *, geometry: Geometry | None = None,
                    labels: tuple[str, ...] | list[str] = (), name: str | None = None,
                    sampling_rate_hz: float | None = None, participant: str | None = None,
                    min_confidence: float = 0.6) -> Dataset:
    """Pupil Core's ``gaze_positions.csv`` as a one-recording Dataset (module docstring).

    ``geometry`` is the world camera's field of view in degrees, needed to map ``norm_pos``
    where the 3-D gaze point is empty or absent.
    """
    path = Path(path)
    table = read_text_table(path, ",")
    need = {"gaze_timestamp", "norm_pos_x", "norm_pos_y", "confidence"}
    if not need <= set(table.columns):
        raise InvalidDataError(f"{str(path)!r}: gaze_positions.csv needs the columns "
                               f"{', '.join(sorted(need))}")
    pid, rid = pupil_core_ids(path, participant)
    counts = Counts(path)
    x, y, geometry, pipeline = _gaze(table, path, geometry, counts)
    low = (table["confidence"].cast(pl.Float64).fill_null(0.0) < min_confidence).to_numpy()
    counts.add(int((low & np.isfinite(x)).sum()),
               f"samples below confidence {min_confidence:g} made missing")
    x, y = np.where(low, np.nan, x), np.where(low, np.nan, y)
    out = table.with_columns(
        pl.lit(pid).alias("participant"), pl.lit(rid).alias("recording"),
        pl.col("gaze_timestamp").cast(pl.Float64).alias("t"),
        pl.Series("x", x).fill_nan(None), pl.Series("y", y).fill_nan(None),
    ).drop("gaze_timestamp")
    return finish(out, path, geometry=geometry, labels=labels, name=name,
                  sampling_rate_hz=sampling_rate_hz, counts=counts,
                  reading={"gaze": pipeline})
