# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The one compiled part: Kaleido's threshold loop (kaleido.py says why). Optional: without a C
compiler the package installs and runs the same loop in pure Python."""

import sys

from setuptools import Extension, setup

# no fused multiply-add: the compiled loop must round exactly as the Python loop does
FLAGS = [] if sys.platform == "win32" else ["-O2", "-ffp-contract=off"]

setup(ext_modules=[Extension(
    "gazeprivacy.mechanisms.samples._kaleido_loop",
    ["src/gazeprivacy/mechanisms/samples/_kaleido_loop.c"],
    extra_compile_args=FLAGS, optional=True)])
