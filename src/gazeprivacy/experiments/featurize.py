# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Dataset-level helpers for the runner: load a configured dataset, and its event features.

:func:`event_features_of` is the runner's default featurizer (sound mode): REMoDNaV events
(Dar, Wagner & Hanke 2021; the library's default detector, with smooth pursuit) per recording
from :func:`gazeprivacy.events.detect_events_dataset`, then the George & Routray per-event
features from :func:`gazeprivacy.features.event_features` (pursuit rows are featurized too; the
RBFN attack reads the fixation and saccade rows). :func:`ivt_event_features_of` is the same on
I-VT events (30 deg/s, minimum fixation 200 ms: seeds 000 and 001), on which the RBFN attack
and the seed 000 task classifier are defined; the reproductions pass it explicitly
(:func:`~gazeprivacy.experiments.reproduce._runs.run_roles`), so their numbers do not follow
the default. :func:`adaptive_event_features_of` uses adaptive (Nystroem & Holmqvist 2010)
events.

The runner calls a featurizer once per dataset it sees (raw once, each protected release once).
All switch the saccade-share warning off (``max_saccade_share=None``): protected releases are
noisy by design, so the share is high for every noise mechanism, and the runner has no place for
a warning per release. Check raw data with :func:`gazeprivacy.events.saccade_share` (see
``docs/events.md``).
All work on groups of about 100 k samples of whole recordings at a time (memory), and the
module imports neither the runner nor the attacks (scikit-learn) nor the report (matplotlib).
:func:`dataset_fingerprint` names the runner's cache of raw features by the data's content.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from gazeprivacy.data.partitioned import MANIFEST, PartitionedDataset
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import InvalidParameterError, MissingDependencyError

if TYPE_CHECKING:  # the config module imports the attacks (scikit-learn)
    from gazeprivacy.experiments.config import DatasetConfig

__all__ = ["adaptive_event_features_of", "dataset_fingerprint", "event_features_of",
           "ivt_event_features_of", "load_configured_dataset"]


def event_features_of(dataset: Dataset) -> pl.DataFrame:
    """Per-event features of every recording on REMoDNaV events (one row per event; see module
    docstring)."""
    return _features(dataset, method="remodnav")


def ivt_event_features_of(dataset: Dataset) -> pl.DataFrame:
    """Per-event features of every recording on I-VT events (paper mode, the reproductions)."""
    return _features(dataset, method="ivt")


def adaptive_event_features_of(dataset: Dataset) -> pl.DataFrame:
    """Per-event features of every recording on adaptive events (see module docstring)."""
    return _features(dataset, method="adaptive")


def _features(dataset: Dataset, *, method: str) -> pl.DataFrame:
    try:
        from gazeprivacy.events import detect_events_dataset
        from gazeprivacy.features import event_features_dataset
    except ImportError as exc:  # the events layer is not in this build
        raise MissingDependencyError(
            f"event detection / event features are not available ({exc}); the attacks and the "
            "task classifier need gazeprivacy.events.detect_events_dataset and "
            "gazeprivacy.features.event_features_dataset") from None
    tables = []
    for group in _groups(dataset):
        events = detect_events_dataset(group, method=method, max_saccade_share=None)
        tables.append(event_features_dataset(group, events, min_samples=4))
        del events
    if len(tables) == 1:
        return tables[0]
    return pl.concat([t for t in tables if t.height] or tables[:1], how="vertical")


#: Samples per group of recordings featurized at once: events and features are per recording,
#: so the table is that of one pass (the medians, read back from a sort key, to the same ~1e-10
#: of each event's range); the temporaries (every event's samples gathered into concatenated
#: arrays) scale with a group, not with the dataset or partition.
_GROUP_SAMPLES = 100_000


def _groups(dataset: Dataset) -> list[Dataset]:
    """``dataset`` cut into consecutive groups of whole recordings of about
    :data:`_GROUP_SAMPLES` samples (a longer recording is a group of its own)."""
    groups: list[list[Recording]] = [[]]
    size = 0
    for r in dataset.recordings:
        if groups[-1] and size + r.n_samples > _GROUP_SAMPLES:
            groups.append([])
            size = 0
        groups[-1].append(r)
        size += r.n_samples
    return [Dataset(tuple(g), name=dataset.name, info=dataset.info, schema=dataset.schema)
            for g in groups]


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
