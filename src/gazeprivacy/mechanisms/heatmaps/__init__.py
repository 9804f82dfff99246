# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Heatmap-level mechanisms (seed 003): one aggregate gaze map per stimulus."""

from gazeprivacy.mechanisms.heatmaps._base import AggregateMap, example_maps

__all__ = ["AggregateMap", "example_maps"]
