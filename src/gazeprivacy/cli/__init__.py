# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The ``gazeprivacy`` command line (Typer + Rich). Each command lives in its own module."""

__all__: list[str] = []
