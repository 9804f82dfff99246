# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""experiments."""

__all__: list[str] = []
