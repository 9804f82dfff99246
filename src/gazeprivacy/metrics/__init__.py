# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""metrics."""

__all__: list[str] = []
