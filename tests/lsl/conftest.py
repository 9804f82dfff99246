# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""LSL tests: every LSL packet stays on this machine.

``LSLAPICFG`` points at ``lsl_api.cfg`` beside this file (loopback only, no IPv6, no multicast or
broadcast discovery) before anything imports pylsl: liblsl reads its configuration once per
process. Subprocesses get the same variable. pylsl may be missing only outside CI.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

LSL_CONFIG = Path(__file__).resolve().with_name("lsl_api.cfg")
os.environ["LSLAPICFG"] = str(LSL_CONFIG)


@pytest.fixture(scope="session")
def pylsl():
    try:
        import pylsl
    except (ImportError, RuntimeError, OSError) as exc:  # not installed, or liblsl not loadable
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the LSL tests: pylsl does not import ({exc}); install "
                        "the 'stream' extra")
        pytest.skip(f"pylsl not importable ({exc}): pip install 'gazeprivacy[stream]'")
    return pylsl


@pytest.fixture
def lsl_env() -> dict[str, str]:
    """The environment of a subprocess that uses LSL (same loopback-only configuration)."""
    return {**os.environ, "LSLAPICFG": str(LSL_CONFIG)}
