# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Experiments: TOML config -> dataclasses, the resumable parallel grid runner, the demo."""

from gazeprivacy.experiments.config import ConfigError, ExperimentConfig, load_config, parse_config
from gazeprivacy.experiments.demo import run_demo
from gazeprivacy.experiments.engine import ExperimentResult, expand_cells, run_experiment

__all__ = [
    "ConfigError",
    "ExperimentConfig",
    "ExperimentResult",
    "expand_cells",
    "load_config",
    "parse_config",
    "run_demo",
    "run_experiment",
]
