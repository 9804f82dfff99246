# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""What data are available: one row per :data:`LOADERS` entry plus the bundled sample.

Used by ``gazeprivacy datasets``. Counting never builds the data model; the datasets are
described in parallel threads (decompression and polars release the GIL), so the slowest one,
DOVES (~4 s to decompress), sets the wall time.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import polars as pl

from gazeprivacy.data.loaders._paths import resolve_data_dir
from gazeprivacy.data.loaders._spec import DatasetDescription, LoaderSpec
from gazeprivacy.exceptions import InvalidDataError

__all__ = ["CATALOG_COLUMNS", "describe_datasets"]

CATALOG_COLUMNS = ("name", "kind", "found", "participants", "recordings", "samples",
                   "sampling_rate_hz", "licence", "redistributable", "note")
SAMPLE_NAME = "doves_sample (bundled)"


def _row(spec_name: str, kind: str, licence: str, redistributable: bool,
         desc: DatasetDescription | None, note: str) -> dict:
    return {"name": spec_name, "kind": kind, "found": desc is not None,
            "participants": None if desc is None else desc.participants,
            "recordings": None if desc is None else desc.recordings,
            "samples": None if desc is None else desc.samples,
            "sampling_rate_hz": None if desc is None else desc.sampling_rate_hz,
            "licence": licence, "redistributable": redistributable,
            "note": note if desc is None else (desc.note or note)}


def _describe(spec: LoaderSpec, root: Path | None, why_missing: str) -> dict:
    if root is None:
        return _row(spec.name, spec.kind, spec.licence, spec.redistributable, None, why_missing)
    folder = root / spec.folder
    if not folder.is_dir():
        return _row(spec.name, spec.kind, spec.licence, spec.redistributable, None,
                    f"not found: expected folder {str(folder)!r}")
    try:
        desc = spec.describe(root)
    except InvalidDataError as exc:
        return _row(spec.name, spec.kind, spec.licence, spec.redistributable, None,
                    f"unreadable: {exc}")
    return _row(spec.name, spec.kind, spec.licence, spec.redistributable, desc, "")


def _describe_sample() -> dict:
    # Imported here: gazeprivacy.data.sample imports this package (the DOVES table builder).
    from gazeprivacy.data.sample import load_sample

    try:
        ds = load_sample()
    except InvalidDataError as exc:
        return _row(SAMPLE_NAME, "samples", "DOVES terms (NOTICE_DOVES.md)", True, None,
                    str(exc))
    desc = DatasetDescription(participants=len(ds.participants), recordings=len(ds),
                              samples=ds.n_samples, sampling_rate_hz=ds.sampling_rate_hz,
                              note="shipped with the package; needs no data directory")
    return _row(SAMPLE_NAME, "samples", "DOVES terms (NOTICE_DOVES.md)", True, desc, "")


def describe_datasets(data_dir: str | os.PathLike[str] | None = None, *,
                      max_workers: int = 4) -> pl.DataFrame:
    """One row per registered dataset (found or not) and one for the bundled sample.

    Parameters
    ----------
    data_dir : path, optional
        Folder containing the dataset folders; default ``$GAZEPRIVACY_DATA``. When neither
        resolves, every dataset row is "not found" (the bundled sample is still described).
    max_workers : int
        Threads used to describe datasets in parallel.

    Returns
    -------
    polars.DataFrame
        Columns :data:`CATALOG_COLUMNS`; counts are null for datasets that were not found.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     tab = describe_datasets(d)
    >>> tab.filter(pl.col("found"))["name"].to_list()
    ['doves_sample (bundled)']
    """
    from gazeprivacy.data.loaders import LOADERS

    try:
        root: Path | None = resolve_data_dir(data_dir)
        why = ""
    except InvalidDataError as exc:
        root = None
        why = ("not found: no data directory (pass --data-dir / data_dir= or set "
               "GAZEPRIVACY_DATA)" if data_dir is None and not os.environ.get("GAZEPRIVACY_DATA")
               else f"not found: {exc}")
    with ThreadPoolExecutor(max_workers=max_workers) as pool:
        futures = [pool.submit(_describe, spec, root, why) for spec in LOADERS.values()]
        futures.append(pool.submit(_describe_sample))
        rows = [f.result() for f in futures]
    return pl.DataFrame(rows, schema={
        "name": pl.String, "kind": pl.String, "found": pl.Boolean, "participants": pl.Int64,
        "recordings": pl.Int64, "samples": pl.Int64, "sampling_rate_hz": pl.Float64,
        "licence": pl.String, "redistributable": pl.Boolean, "note": pl.String})
