# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Reproductions of the source papers' experiments (``gazeprivacy reproduce <seed>``)."""

__all__: list[str] = []
