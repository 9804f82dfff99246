# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Shared fixtures. Real datasets are read from ``$GAZEPRIVACY_DATA`` or ``../shared/data``.

Tests marked ``realdata`` skip only when that folder is absent *outside CI*; under CI (``CI``
set) its absence is a failure, so a green CI run has always exercised the real data.

``tests/`` itself is put on ``sys.path`` here (pytest runs in importlib mode), so that every test
imports the shared helper modules (``evaluate_helpers``, ``export_helpers``, ``gaze_helpers``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
if str(REPO / "tests") not in sys.path:
    sys.path.insert(0, str(REPO / "tests"))


def shared_data_dir() -> Path | None:
    env = os.environ.get("GAZEPRIVACY_DATA")
    for cand in ([Path(env)] if env else []) + [REPO.parent / "shared" / "data"]:
        if cand.is_dir():
            return cand
    return None


@pytest.fixture(scope="session")
def data_dir() -> Path:
    d = shared_data_dir()
    if d is None:
        if os.environ.get("CI"):
            pytest.fail("CI must see the real datasets in ../shared/data or $GAZEPRIVACY_DATA")
        pytest.skip("real datasets not available (set GAZEPRIVACY_DATA)")
    return d


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261125)
