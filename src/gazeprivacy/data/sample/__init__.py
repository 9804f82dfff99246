# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""data/sample."""

__all__: list[str] = []
