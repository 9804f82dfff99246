# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Report: privacy-utility plots and the self-contained HTML report of a run."""

from gazeprivacy.report.html import build_report

__all__ = ["build_report"]
