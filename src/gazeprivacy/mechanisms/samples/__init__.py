# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""mechanisms/samples."""

__all__: list[str] = []
