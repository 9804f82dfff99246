# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Reproductions of the seed papers' experiments, one module per paper (``seedNNN.py``)."""

__all__: list[str] = []
