# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""audit."""

__all__: list[str] = []
