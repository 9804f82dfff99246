# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Dataset-level helpers for the runner: load a configured dataset, and its event features.

:func:`event_features_of` is the default featurizer: I-VT events (30 deg/s, minimum fixation
200 ms: SPEC section 1) per recording from :func:`gazeprivacy.events.detect_events`, then the
George & Routray per-event features from :func:`gazeprivacy.features.event_features`. The
runner calls it once per dataset it sees (raw once, each protected release once).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidParameterError, MissingDependencyError
from gazeprivacy.experiments.config import DatasetConfig

__all__ = ["event_features_of", "load_configured_dataset"]


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
