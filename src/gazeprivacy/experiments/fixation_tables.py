# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Read a fixation table file into :class:`~gazeprivacy.data.fixations.Fixations`.

Accepts the project's fixation columns (participant, stimulus, fixation, x_px, y_px,
duration_ms) and two source layouts as found in ``../shared/data``:

- OSIE long format (``image, subject_index, fixation, x_px, y_px, duration_ms``): stimulus =
  image, participant = subject_index.
- FIGRIM long format (``filename, user_slot, presentation, fixation, x_px, y_px, ...``):
  stimulus = filename, participant = user_slot, and only the first viewing
  (``presentation == "enc"``) is kept, so each observer contributes one viewing per image
  (the rows of the other presentations are counted in ``info``; FIGRIM has no durations).

``gazeprivacy heatmap INPUT`` reads files with it. For the shared datasets themselves prefer
the dataset loaders (``gazeprivacy.data.loaders.load_osie_fixations`` /
``load_figrim_fixations``), which the reproductions use.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from gazeprivacy.data.fixations import FIXATION_COLUMNS, Fixations
from gazeprivacy.data.io import not_a_file
from gazeprivacy.exceptions import InvalidDataError

__all__ = ["read_fixation_table"]


def read_fixation_table(path: str | Path, *, width_px: int, height_px: int,
                        name: str | None = None) -> Fixations:
    """Read a CSV(.gz) or Parquet fixation table (see the module docstring for layouts).

    Raises
    ------
    InvalidDataError
        Missing file or unknown layout (the message lists the columns found).
    """
    p = Path(path)
    if not p.is_file():
        raise InvalidDataError(not_a_file(p, "fixation file"))
    tab = pl.read_parquet(p) if p.suffix == ".parquet" else pl.read_csv(p)
    info: dict[str, object] = {"source": str(p)}
    cols = set(tab.columns)
    if {"image", "subject_index"} <= cols:
        tab = tab.rename({"image": "stimulus", "subject_index": "participant"})
        info["layout"] = "osie-long"
    elif {"filename", "user_slot", "presentation"} <= cols:
        n_all = tab.height
        tab = (tab.filter(pl.col("presentation") == "enc")
               .rename({"filename": "stimulus", "user_slot": "participant"})
               .with_columns(pl.lit(None, dtype=pl.Float64).alias("duration_ms")))
        info["layout"] = "figrim-long"
        info["rows_of_later_presentations_not_used"] = n_all - tab.height
    elif not set(FIXATION_COLUMNS) <= cols:
        raise InvalidDataError(f"fixation file {str(p)!r}: unknown layout; need columns "
                               f"{', '.join(FIXATION_COLUMNS)} (found {', '.join(tab.columns)})")
    tab = tab.with_columns(pl.col("participant").cast(pl.Utf8), pl.col("stimulus").cast(pl.Utf8),
                           pl.col("x_px").cast(pl.Float64), pl.col("y_px").cast(pl.Float64))
    return Fixations(tab, width_px=width_px, height_px=height_px, name=name or p.stem, info=info)
