# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Allocator settings for bounded memory (issue 18): polars' jemalloc and glibc's heap."""

import os
import subprocess
import sys

from gazeprivacy._memory import trim


def _conf(env: dict[str, str]) -> str:
    code = "import os, gazeprivacy; print(os.environ.get('_RJEM_MALLOC_CONF'))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env=env).stdout.strip()


def test_importing_gazeprivacy_sets_polars_allocator_default_and_keeps_the_users():
    env = {k: v for k, v in os.environ.items() if k != "_RJEM_MALLOC_CONF"}
    assert _conf(env) == "oversize_threshold:262144,muzzy_decay_ms:0"
    assert _conf({**env, "_RJEM_MALLOC_CONF": "dirty_decay_ms:0"}) == "dirty_decay_ms:0"


def test_trim_runs_on_glibc_linux():
    import platform

    expected = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
    assert trim() is expected
