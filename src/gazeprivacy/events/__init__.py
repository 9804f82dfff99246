# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""events."""

__all__: list[str] = []
