# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""A config dataset with ``source = "loader"`` loads through the LOADERS registry."""

from __future__ import annotations

import pytest

from gazeprivacy.experiments.config import parse_config
from gazeprivacy.experiments.featurize import load_configured_dataset


@pytest.mark.realdata
def test_loader_source_reads_real_doves_with_options(data_dir):
    cfg = parse_config({"name": "x", "seeds": [0], "datasets": [
        {"name": "d", "source": "loader", "loader": "doves", "path": str(data_dir),
         "options": {"observers": ["ABT2", "CLM2"], "images": [1, 2]}}]})
    ds = load_configured_dataset(cfg.datasets[0])
    assert len(ds) == 4 and set(ds.participants) == {"ABT2", "CLM2"}
    assert ds.sampling_rate_hz == 200.0
