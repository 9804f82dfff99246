# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""attacks."""

__all__: list[str] = []
