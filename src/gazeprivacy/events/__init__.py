# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Eye-movement events: I-VT / I-DT fixation and saccade detection, the event table schema,
and the angular distances and velocities they rest on."""

from gazeprivacy.events.detection import (
    EVENT_NAMES,
    EVENT_SCHEMA,
    detect_events,
    detect_events_dataset,
    empty_event_table,
    sample_labels,
)
from gazeprivacy.events.kinematics import (
    METRICS,
    angular_distance_deg,
    interval_speed_deg_s,
    mixed_distance_deg,
    resolve_metric,
)

__all__ = [
    "EVENT_NAMES",
    "EVENT_SCHEMA",
    "METRICS",
    "angular_distance_deg",
    "detect_events",
    "detect_events_dataset",
    "empty_event_table",
    "interval_speed_deg_s",
    "mixed_distance_deg",
    "resolve_metric",
    "sample_labels",
]
