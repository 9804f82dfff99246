# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Dataset-level helpers for the runner: load a configured dataset, and its event features.

:func:`event_features_of` is the default featurizer: I-VT events (30 deg/s, minimum fixation
200 ms: SPEC section 1) per recording from :func:`gazeprivacy.events.detect_events`, then the
George & Routray per-event features from :func:`gazeprivacy.features.event_features`. The
runner calls it once per dataset it sees (raw once, each protected release once).
:func:`dataset_fingerprint` names the runner's cache of raw features by the data's content.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy.data.partitioned import MANIFEST, PartitionedDataset
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidParameterError, MissingDependencyError
from gazeprivacy.experiments.config import DatasetConfig

__all__ = ["dataset_fingerprint", "event_features_of", "load_configured_dataset"]


def event_features_of(dataset: Dataset) -> pl.DataFrame:
    """Per-event features of every recording (one row per event; see module docstring)."""
    try:
        from gazeprivacy.events import detect_events_dataset
        from gazeprivacy.features import event_features_dataset
    except ImportError as exc:  # the events layer is not in this build
        raise MissingDependencyError(
            f"event detection / event features are not available ({exc}); the attacks and the "
            "task classifier need gazeprivacy.events.detect_events_dataset and "
            "gazeprivacy.features.event_features_dataset") from None
    events = detect_events_dataset(dataset, method="ivt")
    return event_features_dataset(dataset, events, min_samples=4)


def dataset_fingerprint(data: Dataset | PartitionedDataset) -> str:
    """A hex digest that changes when the data changes (the runner's raw-feature cache key).

    For a :class:`Dataset`, a SHA-1 over every recording's id, participant, labels, sampling
    rate, geometry and the bytes (with dtype) of ``t``, ``x``, ``y`` and ``pupil``: two datasets
    of the same shape with different values get different fingerprints. For a
    :class:`PartitionedDataset`, reading every partition just to hash it would cost a full pass
    over data that may not fit in memory, so the fingerprint covers the manifest and each
    partition file's size and modification time: a rewritten partition (the writers replace
    files, never edit them in place) gets a new fingerprint; a copy with fresh times only costs a
    recomputation.
    """
    h = hashlib.sha1()
    if isinstance(data, PartitionedDataset):
        h.update((data.path / MANIFEST).read_bytes())
        for p in data.partitions:
            st = (data.path / p.file).stat()
            h.update(repr((p.file, st.st_size, st.st_mtime_ns)).encode())
        return h.hexdigest()
    for r in data.recordings:
        head = [r.recording, r.participant, dict(sorted(r.labels.items())),
                float(r.sampling_rate_hz), repr(r.geometry)]
        h.update(json.dumps(head, default=str).encode())
        for a in (r.t, r.x, r.y, r.pupil):
            if a is None:
                h.update(b"none")
                continue
            h.update(f"{a.dtype.str}{a.shape}".encode())
            h.update(np.ascontiguousarray(a).data)
    return h.hexdigest()


def load_configured_dataset(cfg: DatasetConfig) -> Dataset:
    """Load the dataset a :class:`DatasetConfig` names (imports the data layer lazily)."""
    opts: dict[str, Any] = dict(cfg.options)
    if cfg.source == "sample":
        from gazeprivacy.data.sample import load_sample

        return load_sample(**opts)
    if cfg.source == "simulate":
        from gazeprivacy.data.simulate import simulate_dataset

        seed = int(opts.pop("seed", 0))
        return simulate_dataset(**opts, rng=np.random.default_rng(seed))
    if cfg.source == "file":
        from gazeprivacy.data.io import read_dataset

        return read_dataset(cfg.path, **opts)
    if cfg.source == "loader":
        from gazeprivacy.data.loaders import load

        return load(cfg.loader, cfg.path, **opts)
    raise InvalidParameterError(
        f"dataset {cfg.name!r} has source={cfg.source!r}: pass it to the runner in code "
        "(run_experiment(..., datasets={name: Dataset}))")
