# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Before any cell runs (:func:`~gazeprivacy.experiments.engine.runner.run_experiment`): every
parameter point builds, a streamed dataset gets only what works from event features, each
dataset is loaded once with its cached raw event features and public summary, and a finished
cell is reused only when it holds the same draw on the same data."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gazeprivacy.data.partitioned import PartitionedDataset
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.experiments.baselines import is_baseline
from gazeprivacy.experiments.config import ConfigError, DatasetConfig, ExperimentConfig
from gazeprivacy.experiments.engine.cells import (
    STREAMS,
    Cell,
    Featurizer,
    _atomic,
    _build_params,
    release_identity,
)
from gazeprivacy.experiments.engine.population import is_synthetic
from gazeprivacy.experiments.featurize import load_configured_dataset
from gazeprivacy.experiments.streaming import partitioned_source, raw_pass

__all__: list[str] = []


def _summary(ds: Dataset) -> dict[str, Any]:
    """Public shape of a dataset for the report: counts, rates, missing data, labels."""
    summ = ds.summary()
    return {"recordings": len(ds), "participants": len(ds.participants),
            "samples": ds.n_samples,
            "sampling_rate_hz": sorted(set(summ["sampling_rate_hz"].to_list())),
            "duration_s_total": round(float(summ["duration_s"].sum()), 2),
            "missing_fraction": round(float(summ["missing_fraction"].mean()), 4),
            "labels": {k: sorted({r.labels[k] for r in ds if k in r.labels})[:12]
                       for k in ds.label_names()}}


def _done(out: Path, cell: Cell, fingerprint: str | None = None) -> bool:
    """Whether ``cell`` finished with the same draw on the same data: its three files exist and
    its meta records this stream scheme (:data:`~gazeprivacy.experiments.engine.cells.STREAMS`),
    the cell's release identity (:func:`~gazeprivacy.experiments.engine.cells.release_identity`)
    and, when given, ``fingerprint`` (a meta without a fingerprint passes that test). A cell
    finished otherwise runs again, said on stderr: one drawn by an earlier scheme (by its
    position in the config), or another release under the same key (the label's mechanism or
    preset changed), would otherwise mix into this run's results."""
    c = out / "cells"
    if not all((c / f"{cell.key}{ext}").is_file() for ext in (".parquet", ".npz", ".json")):
        return False
    try:
        meta = json.loads((c / f"{cell.key}.json").read_text())
    except (OSError, ValueError):
        return False
    stale = _stale(meta, cell, fingerprint)
    if stale:
        print(f"computing cell {cell.key} ({cell.dataset}, {cell.label}, seed {cell.seed}) "
              f"again: {stale}", file=sys.stderr)
    return not stale


def _stale(meta: Mapping[str, Any], cell: Cell, fingerprint: str | None) -> str | None:
    """Why a finished cell's files cannot be reused for ``cell`` (:func:`_done`), or None."""
    if meta.get("streams") != STREAMS:
        return (f"its earlier result was drawn by the stream scheme {meta['streams']!r}, not "
                f"{STREAMS!r}" if meta.get("streams") else "its earlier result was drawn by "
                "the cell's position in the config, before release-keyed streams")
    if meta.get("release") != release_identity(cell):
        return f"its earlier result is of another release ({meta.get('release')})"
    if fingerprint is not None and meta.get("data_fingerprint", fingerprint) != fingerprint:
        return "the dataset's content changed"
    return None


def _check_points(cells: list[Cell], registry: Mapping[str, Any]) -> None:
    """Every parameter point must build before any work starts."""
    for c in cells:
        if c.mechanism != "none" and not is_baseline(c.mechanism):
            try:
                _build_params(registry[c.mechanism], c)
            except (TypeError, InvalidParameterError) as exc:
                raise ConfigError(
                    f"mechanism {c.mechanism!r} cannot build parameters {c.parameters_json} "
                    f"with preset {c.preset!r}: {exc}") from None


def _source(d: DatasetConfig, given: Mapping[str, Dataset] | None
            ) -> Dataset | PartitionedDataset:
    """A dataset given in code, else the configured partitioned folder or loaded dataset."""
    if given and d.name in given and given[d.name] is not None:
        return given[d.name]
    return partitioned_source(d) or load_configured_dataset(d)


def _prepare_datasets(sources: Mapping[str, Dataset | PartitionedDataset],
                      fingerprints: Mapping[str, str], out: Path, featurize: Featurizer, *,
                      need_events: bool
                      ) -> tuple[dict[str, Dataset], dict[str, str], dict[str, Any]]:
    """Per dataset: the dataset in memory (a metadata-only skeleton when streamed), the path of
    its cached raw event features (when an evaluation needs them) and its public summary.

    The cache file is named after the dataset's content fingerprint and the featurizer, so
    changed data of the same shape is featurized again instead of served stale features.
    """
    loaded: dict[str, Dataset] = {}
    raw_paths: dict[str, str] = {}
    summaries: dict[str, Any] = {}
    for name, source in sources.items():
        digest = hashlib.sha1(repr((name, fingerprints[name],
                                    getattr(featurize, "__qualname__", str(featurize))))
                              .encode()).hexdigest()[:16]
        path = out / "cache" / f"{name}-{digest}-events.parquet"
        want = need_events and not path.is_file()
        if isinstance(source, PartitionedDataset):  # one pass: skeleton, summary, raw features
            tmp = path.with_name(path.name + ".tmp")
            loaded[name], summaries[name] = raw_pass(
                source, featurize if want else None, tmp if want else None)
            if tmp.is_file():
                os.replace(tmp, path)
        else:
            loaded[name], summaries[name] = source, _summary(source)
            if want:
                _atomic(path, lambda p, ds=source: featurize(ds).write_parquet(p))
        if need_events:
            raw_paths[name] = str(path)
    return loaded, raw_paths, summaries


def _check_streamable(cells: list[Cell], streamed: Mapping[str, PartitionedDataset],
                      registry: Mapping[str, Any], config: ExperimentConfig) -> None:
    """Every mechanism applied to a partitioned dataset must have a partition-wise plan, and
    every evaluation must work from event features (the streamed path keeps only those)."""
    from gazeprivacy.engines import plan_for

    if streamed:
        odd = [a.kind for a in config.attacks if a.kind not in ("reidentification", "attribute")]
        odd += [f"baseline {b}" for b in config.baselines]
        odd += [f"utility {u.id}" for u in config.utility if getattr(u, "learned", False)]
        if odd:
            raise ConfigError(
                f"dataset(s) {sorted(streamed)} are partitioned (streamed), which supports only "
                f"evaluations on event features; {', '.join(odd)} need(s) whole datasets in "
                "memory: evaluate those on an in-memory file")
    for c in cells:
        if c.dataset in streamed and is_synthetic(registry, c.mechanism):
            raise ConfigError(f"dataset {c.dataset!r} is partitioned (streamed), and "
                              f"{c.mechanism!r} releases a synthetic population, which the "
                              "runner evaluates as a whole release in memory: evaluate it on "
                              "an in-memory file")
        if c.dataset in streamed and c.mechanism != "none" and not is_baseline(c.mechanism):
            try:
                plan_for(c.mechanism, _build_params(registry[c.mechanism], c))
            except InvalidParameterError as exc:
                raise ConfigError(f"dataset {c.dataset!r} is partitioned: {exc}") from None
