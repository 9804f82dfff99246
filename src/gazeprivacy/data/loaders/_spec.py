# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The record each :data:`~gazeprivacy.data.loaders.LOADERS` entry holds, and what ``describe``
returns."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["KINDS", "DatasetDescription", "LoaderSpec"]

KINDS = ("samples", "fixations", "features")


@dataclass(frozen=True, slots=True, kw_only=True)
class DatasetDescription:
    """Counts of one dataset, obtained without building the full data model.

    ``recordings`` means recordings for sample data, trials (participant x image x presentation)
    for fixation data and table rows for feature tables; ``samples`` means gaze samples,
    fixations or table rows respectively. ``sampling_rate_hz`` is ``None`` where it does not
    apply.
    """

    participants: int
    recordings: int
    samples: int
    sampling_rate_hz: float | None = None
    note: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class LoaderSpec:
    """One dataset the toolkit can read.

    Parameters
    ----------
    name : str
        Registry name (also the dataset folder's name inside the data directory).
    folder : str
        Folder name inside the data directory.
    load : callable
        The public loader: ``load(data_dir=None, **options)``.
    kind : {"samples", "fixations", "features"}
        What ``load`` returns: a :class:`~gazeprivacy.data.Dataset`, a
        :class:`~gazeprivacy.data.fixations.Fixations` or a polars DataFrame.
    licence : str
        One-line licence summary (the dataset's PROVENANCE.md has the full terms).
    redistributable : bool
        Whether the licence allows shipping (a subset of) the data with the package.
    describe : callable
        ``describe(data_dir) -> DatasetDescription``: cheap counts for ``gazeprivacy datasets``.
    what : str
        One-line description.
    """

    name: str
    folder: str
    load: Callable[..., Any]
    kind: str
    licence: str
    redistributable: bool
    describe: Callable[[Path], DatasetDescription]
    what: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise InvalidParameterError(f"LoaderSpec {self.name!r}: kind must be one of {KINDS}, "
                             f"got {self.kind!r}")
