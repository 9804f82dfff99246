# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Deterministic helpers over per-event feature tables: which columns are features, and the
per-recording aggregate (mean and standard deviation per event type, event counts) that the
utility task and attribute inference classify.

An event feature table has one row per event with the columns ``recording``, ``participant``,
``name`` (event type, e.g. ``fixation`` / ``saccade``) and numeric feature columns (see
:func:`gazeprivacy.features.event_features`). Timing columns (``onset``, ``offset``, ``onset_s``,
``offset_s``) are bookkeeping, not features.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from gazeprivacy.exceptions import InvalidDataError

__all__ = ["META_COLUMNS", "feature_columns", "recording_features"]

META_COLUMNS = frozenset({"recording", "participant", "name", "onset", "offset", "onset_s",
                          "offset_s", "event_index", "stimulus", "task", "label"})


def feature_columns(table: pl.DataFrame) -> list[str]:
    """Numeric columns of ``table`` that are features (not ids or timing), in table order.

    >>> t = pl.DataFrame({"recording": ["r"], "participant": ["p"], "name": ["fixation"],
    ...                   "onset_s": [0.0], "duration_s": [0.2], "std_x": [0.1]})
    >>> feature_columns(t)
    ['duration_s', 'std_x']
    """
    missing = {"recording", "participant", "name"} - set(table.columns)
    if missing:
        raise InvalidDataError(f"event feature table lacks column(s) {sorted(missing)}; it has "
                               f"{table.columns}")
    return [c for c, dt in table.schema.items()
            if c not in META_COLUMNS and dt.is_numeric()]


def recording_features(table: pl.DataFrame, *, recordings: Sequence[str] | None = None,
                       event_types: Sequence[str] = ("fixation", "saccade")) -> pl.DataFrame:
    """One row per recording: per event type, the mean and std of each feature and the count.

    Parameters
    ----------
    table : polars.DataFrame
        Per-event features (see module docstring).
    recordings : sequence of str, optional
        Recordings to report, in this order; a recording without events gets count 0 and null
        means (the classifiers impute them). Default: the recordings present in ``table``.
    event_types : sequence of str
        Event types to aggregate.

    Returns
    -------
    polars.DataFrame
        ``recording``, ``participant`` and ``{type}_{feature}_{mean|std}``, ``{type}_count``.

    Examples
    --------
    >>> t = pl.DataFrame({"recording": ["a", "a", "b"], "participant": ["p", "p", "q"],
    ...                   "name": ["fixation", "fixation", "saccade"], "d": [1.0, 3.0, 5.0]})
    >>> recording_features(t).select("recording", "fixation_d_mean", "saccade_count").rows()
    [('a', 2.0, 0), ('b', None, 1)]
    """
    feats = feature_columns(table)
    if recordings is None:
        recordings = table["recording"].unique(maintain_order=True).to_list()
    owners = table.select("recording", "participant").unique(subset="recording",
                                                                maintain_order=True)
    out = pl.DataFrame({"recording": pl.Series(list(recordings), dtype=pl.String)})
    out = out.join(owners, on="recording", how="left", maintain_order="left")
    for et in event_types:
        sub = table.filter(pl.col("name") == et)
        agg = sub.group_by("recording", maintain_order=True).agg(
            [pl.col(f).cast(pl.Float64).fill_nan(None).mean().alias(f"{et}_{f}_mean")
             for f in feats]
            + [pl.col(f).cast(pl.Float64).fill_nan(None).std().alias(f"{et}_{f}_std")
               for f in feats]
            + [pl.len().cast(pl.Int64).alias(f"{et}_count")])
        out = out.join(agg, on="recording", how="left", maintain_order="left")
        out = out.with_columns(pl.col(f"{et}_count").fill_null(0))
    return out
