# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Column mapping: a table with its own column names read as the long format
(``read_input(path, columns={"participant": "subject", "t": "timestamp", ...})``, CLI
``--columns participant=subject,t=timestamp,...``)."""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from gazeprivacy.data.recording import CORE_COLUMNS
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["MAPPABLE_COLUMNS", "check_columns", "map_columns"]


#: The names ``columns=`` maps (the long format's core columns and pupil).
MAPPABLE_COLUMNS = (*CORE_COLUMNS, "pupil")


def check_columns(columns: Mapping[str, str] | None) -> dict[str, str]:
    """``columns`` (long-format name -> the table's name) checked: known keys, one source
    column each.

    >>> check_columns({"participant": "subject", "t": "timestamp"})
    {'participant': 'subject', 't': 'timestamp'}
    """
    columns = dict(columns or {})
    bad = sorted(set(columns) - set(MAPPABLE_COLUMNS))
    if bad:
        raise InvalidParameterError(
            f"columns maps {', '.join(bad)}: it maps the long format's "
            f"{', '.join(MAPPABLE_COLUMNS)} to your table's names, e.g. "
            "columns=participant=subject,t=timestamp")
    twice = sorted({v for v in columns.values() if list(columns.values()).count(v) > 1})
    if twice:
        raise InvalidParameterError(f"columns maps column {twice[0]!r} twice")
    return columns


def map_columns(table: pl.DataFrame, columns: Mapping[str, str], source: str) -> pl.DataFrame:
    """``table`` with its columns renamed to the long format's (``columns``: long name ->
    the table's name)."""
    if not columns:
        return table
    missing = [v for v in columns.values() if v not in table.columns]
    if missing:
        raise InvalidDataError(
            f"{source}: columns names {', '.join(map(repr, missing))}, not in the table; its "
            f"columns: {', '.join(table.columns)}")
    clash = [k for k, v in columns.items() if k in table.columns and k != v
             and k not in columns.values()]
    if clash:
        raise InvalidDataError(
            f"{source}: columns maps {clash[0]}={columns[clash[0]]}, but the table has a "
            f"column {clash[0]!r} too; rename or drop it")
    return table.rename({v: k for k, v in columns.items()})
