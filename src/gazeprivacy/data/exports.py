# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""What the eye-tracker export readers share (:mod:`gazeprivacy.data.readers`,
:mod:`gazeprivacy.data.eyelink`, :mod:`gazeprivacy.data.pupil_core`): reading a text table,
finding a column by its name without a unit, counting the rows a reader drops or makes missing
(one warning with the counts), choosing an eye, and building the Dataset.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

import polars as pl

from gazeprivacy.data.geometry import Geometry, ScreenSetup
from gazeprivacy.data.io import dataset_from_table
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import DataPolicyWarning, InvalidDataError, InvalidParameterError

__all__ = ["EYES", "Counts", "check_eye", "column", "finish", "participant_from_name",
           "read_text_table"]

#: ``eye=``: which eye of a binocular export is read (``both``: one recording per eye, each
#: labelled ``eye``, each protected).
EYES = ("left", "right", "mean", "both")


def check_eye(eye: str | None, fmt: str) -> None:
    """``eye`` is one of :data:`EYES` and ``fmt`` is a binocular export."""
    if eye is None:
        return
    if eye not in EYES:
        raise InvalidParameterError(f"eye must be one of {', '.join(EYES)}, got {eye!r}")
    if fmt not in ("tobii", "eyelink"):
        raise InvalidParameterError(f"eye=... applies to binocular exports (tobii, eyelink), "
                                    f"not to a {fmt} file")


def read_text_table(path: Path, separator: str) -> pl.DataFrame:
    """A text table, every column's type inferred from all rows; unreadable or empty refused."""
    try:
        table = pl.read_csv(path, separator=separator, infer_schema_length=None,
                            encoding="utf8-lossy")
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise InvalidDataError(f"cannot read {str(path)!r}: {exc}") from None
    if table.height == 0:
        raise InvalidDataError(f"{str(path)!r} has a header but no rows")
    return table


def column(table: pl.DataFrame, *names: str) -> str | None:
    """The first column whose name, without a bracketed unit, matches one of ``names``
    (case-insensitive).

    >>> column(pl.DataFrame({"Recording timestamp [ms]": [0]}), "recording timestamp")
    'Recording timestamp [ms]'
    """
    plain = {re.sub(r"\s*[\[(].*?[\])]\s*$", "", c).strip().lower(): c for c in table.columns}
    for n in names:
        if n.lower() in plain:
            return plain[n.lower()]
    return None


def participant_from_name(path: Path, pid: str, what: str) -> str:
    """``pid`` (a file or folder name) as the participant, with a warning."""
    warnings.warn(f"{str(path)!r} names no participant ({what}): {pid!r}, from the file or "
                  "folder name, is taken as the participant of its recordings (name them with "
                  "participant=...)", DataPolicyWarning, stacklevel=4)
    return pid


class Counts:
    """Rows a reader drops or makes missing, by reason; :meth:`warn` says them in one warning
    (and they go to :attr:`Dataset.reading`)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.items: dict[str, int] = {}
        self.notes: dict[str, int] = {}

    def add(self, n: int, what: str) -> None:
        """``n`` rows dropped or made missing because ``what`` (in the warning)."""
        if n:
            self.items[what] = self.items.get(what, 0) + int(n)

    def note(self, n: int, what: str) -> None:
        """``n`` rows that are no gaze sample, dropped (e.g. event rows): for ``info``, no
        warning."""
        if n:
            self.notes[what] = self.notes.get(what, 0) + int(n)

    def warn(self) -> None:
        if self.items:
            text = "; ".join(f"{n} {what}" for what, n in self.items.items())
            warnings.warn(f"{str(self.path)!r}: {text}", DataPolicyWarning, stacklevel=4)


def finish(table: pl.DataFrame, path: Path, *, geometry: Geometry | None,
           labels: tuple[str, ...] | list[str], name: str | None,
           sampling_rate_hz: float | None, rate_source: str = "declared",
           xy_unit: str = "deg", px_per_deg: float | None = None,
           screen: ScreenSetup | None = None, counts: Counts | None = None,
           reading: dict[str, Any] | None = None) -> Dataset:
    """The reader's long table (``participant, recording, t, x, y`` first) as a Dataset, with
    what the reader counted and where the rate and geometry came from in ``reading``."""
    front = ["participant", "recording", "t", "x", "y"]
    table = table.select(*front, *[c for c in table.columns if c not in front])
    if counts is not None:
        counts.warn()
    ds = dataset_from_table(table, geometry=geometry, sampling_rate_hz=sampling_rate_hz,
                            name=name or path.name.split(".")[0], source=str(path),
                            labels=labels, xy_unit=None if screen else xy_unit,
                            px_per_deg=px_per_deg, copy=False,  # a table read from the file
                            rate_source=rate_source, screen=screen)
    rows = {**counts.items, **counts.notes} if counts is not None else {}
    return replace(ds, reading={**ds.reading, **(reading or {}),
                                **({"rows": rows} if rows else {})})
