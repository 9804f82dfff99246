# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""report."""

__all__: list[str] = []
