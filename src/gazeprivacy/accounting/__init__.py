# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Accounting: the privacy-budget ledger across releases and the composition it uses.

Below the engines and the mechanisms' writers, which charge it; it reads nothing but guarantee
records and participant keys. See docs/ledger.md.
"""

__all__: list[str] = []
