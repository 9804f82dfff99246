# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Per-observer fixation lists on images (OSIE, FIGRIM, DOVES fixations): the input of gaze maps.

A :class:`Fixations` object is a polars table with one row per fixation and the columns
``participant`` (str), ``stimulus`` (str), ``fixation`` (int, order within the trial), ``x_px``,
``y_px`` (float, image pixels, origin top-left) and ``duration_ms`` (float, null when the source
has none), plus any label columns, together with the image size.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import polars as pl

from gazeprivacy.exceptions import InvalidDataError

__all__ = ["FIXATION_COLUMNS", "Fixations"]

FIXATION_COLUMNS = ("participant", "stimulus", "fixation", "x_px", "y_px", "duration_ms")


@dataclass(frozen=True, eq=False)
class Fixations:
    """Fixations of many observers on images of one size.

    Examples
    --------
    >>> tab = pl.DataFrame({"participant": ["a"], "stimulus": ["s1"], "fixation": [0],
    ...                     "x_px": [10.0], "y_px": [5.0], "duration_ms": [200.0]})
    >>> Fixations(tab, width_px=800, height_px=600, name="toy").n_participants
    1
    """

    table: pl.DataFrame
    width_px: int
    height_px: int
    name: str = "fixations"
    info: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        missing = [c for c in FIXATION_COLUMNS if c not in self.table.columns]
        if missing:
            raise InvalidDataError(f"fixations {self.name!r}: missing column(s) {missing}")
        bad = self.table.select(pl.col("x_px", "y_px").is_nan().any()
                                | pl.col("x_px", "y_px").is_null().any())
        if bad.row(0) != (False, False):
            raise InvalidDataError(f"fixations {self.name!r}: x_px / y_px contain NaN or null; "
                                   "drop such fixations explicitly before building the object")

    @property
    def participants(self) -> tuple[str, ...]:
        return tuple(self.table["participant"].unique(maintain_order=True).to_list())

    @property
    def stimuli(self) -> tuple[str, ...]:
        return tuple(self.table["stimulus"].unique(maintain_order=True).to_list())

    @property
    def n_participants(self) -> int:
        return self.table["participant"].n_unique()

    def for_stimulus(self, stimulus: str) -> pl.DataFrame:
        """The rows of one stimulus; the error lists a few valid ids."""
        out = self.table.filter(pl.col("stimulus") == stimulus)
        if out.height == 0:
            raise InvalidDataError(f"fixations {self.name!r} have no stimulus {stimulus!r}; "
                                   f"e.g. {', '.join(self.stimuli[:5])}")
        return out
