# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""features."""

__all__: list[str] = []
