# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Removed config keys fail with a message that says what replaces them."""

from __future__ import annotations

import dataclasses

import pytest

from gazeprivacy.experiments.config import ConfigError, DatasetConfig, parse_config


def test_dataset_task_label_is_gone_and_names_its_replacement():
    assert "task_label" not in {f.name for f in dataclasses.fields(DatasetConfig)}
    cfg = {"name": "x", "seeds": [0],
           "datasets": [{"name": "d", "source": "sample", "task_label": "task"}]}
    with pytest.raises(ConfigError, match=r"datasets\[0\]\.task_label was removed.*"
                                          r"utility\[\]\.label"):
        parse_config(cfg)
