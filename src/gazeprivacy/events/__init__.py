# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Eye-movement events: adaptive (Nystroem & Holmqvist 2010), I-VT and I-DT fixation and
saccade detection, the event table schema,
and the angular distances and velocities they rest on."""

from gazeprivacy.events.adaptive import AdaptiveParams, adaptive_threshold
from gazeprivacy.events.detection import (
    EVENT_NAMES,
    EVENT_SCHEMA,
    MAX_SACCADE_SHARE,
    METHODS,
    detect_events,
    detect_events_dataset,
    empty_event_table,
    saccade_share,
    sample_labels,
)
from gazeprivacy.events.kinematics import (
    METRICS,
    angular_distance_deg,
    interval_speed_deg_s,
    mixed_distance_deg,
    resolve_metric,
    smoothed_speed_deg_s,
)

__all__ = [
    "EVENT_NAMES",
    "EVENT_SCHEMA",
    "MAX_SACCADE_SHARE",
    "METHODS",
    "METRICS",
    "AdaptiveParams",
    "adaptive_threshold",
    "angular_distance_deg",
    "detect_events",
    "detect_events_dataset",
    "empty_event_table",
    "interval_speed_deg_s",
    "mixed_distance_deg",
    "resolve_metric",
    "saccade_share",
    "sample_labels",
    "smoothed_speed_deg_s",
]
