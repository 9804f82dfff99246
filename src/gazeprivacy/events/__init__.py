# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Eye-movement events: REMoDNaV (Dar, Wagner & Hanke 2021; the default, with smooth pursuit),
adaptive (Nystroem & Holmqvist 2010), I-VT and I-DT fixation and saccade detection, the event
table schema, the plausibility gate of the event mechanisms, and the angular distances and
velocities they rest on."""

from gazeprivacy.events.adaptive import AdaptiveParams, adaptive_threshold
from gazeprivacy.events.detection import (
    DEFAULT_METHOD,
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
from gazeprivacy.events.plausibility import (
    PLAUSIBLE_SACCADE_SHARE,
    EventPlausibility,
    detect_events_checked,
    require_plausible,
)
from gazeprivacy.events.remodnav import RemodnavParams

__all__ = [
    "DEFAULT_METHOD",
    "EVENT_NAMES",
    "EVENT_SCHEMA",
    "MAX_SACCADE_SHARE",
    "METHODS",
    "METRICS",
    "PLAUSIBLE_SACCADE_SHARE",
    "AdaptiveParams",
    "EventPlausibility",
    "RemodnavParams",
    "adaptive_threshold",
    "angular_distance_deg",
    "detect_events",
    "detect_events_checked",
    "detect_events_dataset",
    "empty_event_table",
    "interval_speed_deg_s",
    "mixed_distance_deg",
    "require_plausible",
    "resolve_metric",
    "saccade_share",
    "sample_labels",
    "smoothed_speed_deg_s",
]
