# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""mechanisms/noise."""

__all__: list[str] = []
