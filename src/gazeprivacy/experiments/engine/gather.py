# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Gathering a run: every finished cell's files read back into the run's tidy outputs
(``results.parquet``, ``guarantees.json``, ``refusals.json``, ``failures.json``, the frontier's
``frontier.json``, ``membership.json`` and ``attribute.json``, and ``run.json``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy.experiments.config import ExperimentConfig, canonical_json
from gazeprivacy.experiments.engine.cells import RESULT_SCHEMA, Cell, _atomic
from gazeprivacy.report.attribute import pooled_attribute, read_attribute_guesses
from gazeprivacy.report.membership import pooled_membership, read_membership_scores
from gazeprivacy.report.verdict import flag_results, frontier_record

__all__ = ["gather"]


def gather(out: Path, config: ExperimentConfig, cells: list[Cell],
           failures: list[dict[str, Any]]
           ) -> tuple[pl.DataFrame, list[dict[str, Any]], list[str], list[dict[str, Any]]]:
    """Read the finished ``cells`` back; write ``results.parquet``, ``guarantees.json``,
    ``refusals.json``, ``failures.json`` (the cells that raised) and ``run.json``."""
    parts, guarantees, refusals = [], [], []
    seen_notes: dict[str, list[str]] = {}
    for c in cells:
        part = pl.read_parquet(out / "cells" / f"{c.key}.parquet")
        # cells written before the beats_baselines column existed; the flag is set below
        parts.append(part.drop("beats_baselines", strict=False))
        meta = json.loads((out / "cells" / f"{c.key}.json").read_text())
        for n in meta["notes"]:
            seen_notes.setdefault(n, []).append(f"{c.label} {c.parameters_json} seed {c.seed}")
        if meta.get("refused"):
            refusals.append({"dataset": c.dataset, "mechanism": c.label,
                             "parameters": dict(c.parameters), "epsilon": c.epsilon,
                             "seed": c.seed, "reason": meta["refused"]})
        refusals += [{"dataset": c.dataset, "mechanism": c.label,
                      "parameters": dict(c.parameters), "epsilon": c.epsilon, "seed": c.seed,
                      **r} for r in meta.get("fold_refusals", [])]
        if meta["guarantee"] is not None:
            guarantees.append({"key": c.key, "dataset": c.dataset, "mechanism": c.label,
                               "parameters": dict(c.parameters), "seed": c.seed,
                               "guarantee": meta["guarantee"]})
    notes = [f"{n} [{len(where)} cell(s), e.g. {where[0]}]" for n, where in seen_notes.items()]
    results = (flag_results(pl.concat(parts, how="vertical")) if parts
               else pl.DataFrame(schema=RESULT_SCHEMA))
    _atomic(out / "results.parquet", lambda p: results.write_parquet(p))
    (out / "guarantees.json").write_text(json.dumps(guarantees, indent=2, default=str))
    (out / "refusals.json").write_text(json.dumps(refusals, indent=2, default=str))
    (out / "failures.json").write_text(json.dumps(failures, indent=2, default=str))
    if config.frontier is not None and results.height:
        (out / "frontier.json").write_text(json.dumps(
            frontier_record(results), indent=2, default=str))
    scores = read_membership_scores(out, [c.key for c in cells])
    if config.frontier is not None and scores.height:  # the bootstrap's seed is fixed: 0
        (out / "membership.json").write_text(json.dumps(_with_refused_folds(pooled_membership(
            scores, rng=np.random.default_rng(0)).to_dicts(), refusals), indent=2, default=str))
    guesses = read_attribute_guesses(out, [c.key for c in cells])
    if config.frontier is not None and guesses.height:  # the same fixed bootstrap seed
        (out / "attribute.json").write_text(json.dumps(_with_refused_folds(pooled_attribute(
            guesses, rng=np.random.default_rng(0)).to_dicts(), refusals), indent=2, default=str))
    (out / "run.json").write_text(json.dumps(
        {"name": config.name, "cells": [c.key for c in cells], "notes": notes}, indent=2))
    return results, guarantees, notes, refusals


def _with_refused_folds(rows: list[dict[str, Any]], refusals: list[dict[str, Any]]
                        ) -> list[dict[str, Any]]:
    """Each pooled verdict row with ``refused_folds``: the ``seed S fold K`` its release's
    mechanism refused (those games are not in the pool; empty when none)."""
    for row in rows:
        row["refused_folds"] = [
            f"seed {r['seed']} fold {r['fold']}" for r in refusals
            if "fold" in r and (r["dataset"], r["mechanism"], canonical_json(r["parameters"]))
            == (row.get("dataset"), row.get("mechanism"), row.get("parameters"))]
    return rows
