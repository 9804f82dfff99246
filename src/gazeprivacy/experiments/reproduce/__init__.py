# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Reproductions of the seed papers' experiments, one module per paper (``seedNNN.py``), run
by ``gazeprivacy reproduce <seed>``."""

__all__: list[str] = []
