# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Put ``tests/`` on sys.path so ``export_helpers`` imports (pytest runs in importlib mode)."""

import sys
from pathlib import Path

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
