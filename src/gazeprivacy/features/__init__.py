# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Deterministic transformations of gaze data: per-event features (George & Routray 2016), ..."""

from gazeprivacy.features.event_features import (
    EVENT_FEATURE_COLUMNS,
    SERIES,
    STATISTICS,
    event_features,
    event_features_dataset,
)

__all__ = [
    "EVENT_FEATURE_COLUMNS",
    "SERIES",
    "STATISTICS",
    "event_features",
    "event_features_dataset",
]
