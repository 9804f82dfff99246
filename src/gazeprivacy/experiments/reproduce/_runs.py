# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Pieces the reproductions share: running per-dataset configs as one run, markdown tables."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl

from gazeprivacy.data.recording import Dataset
from gazeprivacy.experiments.config import parse_config
from gazeprivacy.experiments.engine import run_experiment
from gazeprivacy.experiments.featurize import event_features_of

__all__ = ["markdown_table", "run_roles"]


def run_roles(configs: Mapping[str, dict[str, Any]], datasets: Mapping[str, Dataset],
              out: Path, *, name: str, progress: bool) -> pl.DataFrame:
    """Run ``configs[role]`` on ``datasets[role]`` for every role, sharing ``out`` (its cell
    cache), then write the merged ``results.parquet``, ``guarantees.json``, ``run.json`` and
    ``data_summary.json`` of all roles; return the merged results.

    The event features are the papers' I-VT ones, passed explicitly
    (:func:`~gazeprivacy.experiments.featurize.event_features_of`), so the reproductions do not
    follow a change of the runner's default featurizer."""
    parts, guarantees, cells, notes, summaries = [], [], [], [], {}
    for role, raw in configs.items():
        ds = datasets[role]
        res = run_experiment(parse_config(raw), out, datasets={ds.name: ds}, progress=progress,
                             featurizer=event_features_of)
        parts.append(res.results)
        guarantees += res.guarantees
        notes += res.notes
        cells += json.loads((out / "run.json").read_text())["cells"]
        summaries.update(json.loads((out / "data_summary.json").read_text()))
    results = pl.concat(parts, how="vertical")
    results.write_parquet(out / "results.parquet")
    (out / "guarantees.json").write_text(json.dumps(guarantees, indent=2, default=str))
    (out / "run.json").write_text(json.dumps({"name": name, "cells": cells, "notes": notes},
                                             indent=2))
    (out / "data_summary.json").write_text(json.dumps(summaries, indent=2))
    return results


def markdown_table(title: str, note: str, header: list[str], rows: list[list[str]]) -> str:
    """A ``### title`` section: the note, then a markdown table."""
    lines = [f"### {title}", "", note, "", "| " + " | ".join(header) + " |",
             "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"
