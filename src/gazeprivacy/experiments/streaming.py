# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``evaluate`` on partitioned datasets: raw and protected features, one partition at a time.

A dataset entry of an experiment config whose ``path`` is a partitioned folder
(:mod:`gazeprivacy.data.partitioned`) is never loaded whole. The runner instead

* makes one pass over the raw partitions (:func:`raw_pass`): event features of each partition
  (appended to the feature cache file), the dataset summary, and a *skeleton* -- every
  recording's id, participant, labels, rate and geometry with a single NaN sample, which is all
  the attacks' split index and label look-ups read;
* protects and featurizes each cell partition by partition (:func:`protected_pass`, via
  :func:`gazeprivacy.engines.iter_protected`); the cell's protection stream seeds the
  partition streams, so a cell's output does not depend on the worker it runs in.

Peak memory: one raw partition, its release and client state, plus the feature tables (one row
per event, which the attacks need in memory). What differs from an in-memory run of the same
config: the protected data come from the partition-wise plan (other random draws than the
one-pass mechanism, same distribution); fidelity metrics (which compare whole datasets
sample by sample) are skipped with a note; the report's preview shows the first partition only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from gazeprivacy.data.partitioned import PartitionedDataset, is_partitioned
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.engines import iter_protected
from gazeprivacy.guarantees import Guarantee

if TYPE_CHECKING:  # the config module imports the attacks (scikit-learn)
    from gazeprivacy.experiments.config import DatasetConfig

__all__ = [
    "featurize_partitions",
    "partitioned_source",
    "protected_pass",
    "raw_pass",
    "skeleton_of",
]

Featurizer = Callable[[Dataset], pl.DataFrame]


def partitioned_source(cfg: DatasetConfig) -> PartitionedDataset | None:
    """The partitioned dataset a config entry names (``source = "file"``, ``path`` a
    partitioned folder), else None."""
    if cfg.source == "file" and cfg.path and is_partitioned(cfg.path):
        return PartitionedDataset(cfg.path)
    return None


def skeleton_of(part: Dataset) -> list[Recording]:
    """Metadata-only stand-ins of a partition's recordings: one NaN sample each."""
    one = np.full(1, np.nan)
    return [Recording(recording=r.recording, participant=r.participant, t=np.zeros(1), x=one,
                      y=one, sampling_rate_hz=r.sampling_rate_hz, labels=dict(r.labels),
                      geometry=r.geometry) for r in part]


def featurize_partitions(parts: Iterable[Dataset], featurize: Featurizer,
                         path: str | Path | None = None,
                         on_partition: Callable[[Dataset], Any] | None = None
                         ) -> pl.DataFrame | int:
    """Featurize partition by partition. With ``path``, append every partition's table to one
    Parquet file (memory: one partition's table) and return the row count; otherwise return
    the concatenated table. ``on_partition`` sees each partition first."""
    writer = None
    tables: list[pl.DataFrame] = []
    rows = 0
    schema = None
    try:
        for part in parts:
            if on_partition is not None:
                on_partition(part)
            tab = featurize(part)
            if path is None:
                tables.append(tab)
                continue
            import pyarrow.parquet as pq

            if schema is None:
                schema = tab.schema
                writer = pq.ParquetWriter(str(path), tab.to_arrow().schema)
            else:
                tab = tab.cast(dict(schema))
            writer.write_table(tab.to_arrow())
            rows += tab.height
            del part, tab  # not alive while the next partition is read
    finally:
        if writer is not None:
            writer.close()
    if path is None:
        return pl.concat(tables, how="vertical_relaxed") if tables else pl.DataFrame()
    return rows


def raw_pass(pds: PartitionedDataset, featurize: Featurizer | None,
             path: str | Path | None) -> tuple[Dataset, dict[str, Any]]:
    """One pass over the raw partitions: (skeleton dataset, summary for data_summary.json);
    with ``featurize`` and ``path`` it also writes the raw feature table to ``path``."""
    skeleton: list[Recording] = []
    rows: list[pl.DataFrame] = []

    def collect(part: Dataset) -> None:
        skeleton.extend(skeleton_of(part))
        rows.append(part.summary())

    if featurize is not None and path is not None:
        featurize_partitions(pds, featurize, path, on_partition=collect)
    else:
        for part in pds:
            collect(part)
    summ = pl.concat(rows, how="diagonal_relaxed")
    labels: dict[str, set[str]] = {}
    for r in skeleton:
        for k, v in r.labels.items():
            labels.setdefault(k, set()).add(v)
    summary = {"recordings": len(skeleton), "participants": len(pds.participants),
               "samples": pds.n_samples,
               "sampling_rate_hz": sorted(set(summ["sampling_rate_hz"].to_list())),
               "duration_s_total": round(float(summ["duration_s"].sum()), 2),
               "missing_fraction": round(float(summ["missing_fraction"].mean()), 4),
               "labels": {k: sorted(v)[:12] for k, v in sorted(labels.items())},
               "partitions": pds.n_partitions}
    return Dataset(tuple(skeleton), name=pds.name, info=pds.info), summary


def protected_pass(pds: PartitionedDataset, mechanism: str, params: Any, *,
                   rng: np.random.Generator, featurize: Featurizer,
                   preview: Callable[[Dataset, Dataset], dict[str, np.ndarray]] | None = None,
                   ) -> tuple[Guarantee, pl.DataFrame, dict[str, np.ndarray] | None]:
    """Protect ``pds`` partition-wise with the streams of ``rng``'s seed sequence and featurize
    each released partition: (combined guarantee, feature table, preview of partition 0)."""
    stream = iter_protected(pds, mechanism=mechanism, params=params,
                            seed=rng.bit_generator.seed_seq)
    tables: list[pl.DataFrame] = []
    shown: dict[str, np.ndarray] | None = None
    for raw, prot in stream:
        if preview is not None and shown is None:
            shown = preview(raw, prot)
        tables.append(featurize(prot))
    return stream.guarantee, pl.concat(tables, how="vertical_relaxed"), shown
