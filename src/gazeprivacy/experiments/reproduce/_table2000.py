# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Seed 000 Table 2 (task classification), with participants held out and sample-level features.

The first reproduction classified per-recording aggregates of I-VT event features and split the
*recordings* at random, so the same people sat on both sides of every split (a task classifier
then partly recognises people), and the event features of noisy data are themselves noise. This
module classifies, for every release of the Table 2 grid (train original / test protected, a
random forest as the paper):

* ``events / recording split``: the first reproduction's protocol (kept for comparison);
* ``events / participant split``: the same features, participants held out;
* ``samples / participant split``: sample-level features of whole recordings (normalised
  histograms of gaze position, speed and direction at two lags, missing share, mean / spread;
  :func:`~gazeprivacy.attacks.aware.unit_features`), participants held out;
* ``samples 10 s / participant split``: the same features per 10 s segment (many instances per
  recording, as the paper's 1004 instances per task), participants held out.

Participant-held-out splits hold out ``test_fraction`` of the participants
(:func:`~gazeprivacy.metrics.utility.task_classification` with ``group_by="participant"``).
Rows come in the runner's results schema (``kind`` utility, ``evaluation``
``{label}:rf:{features}:{split}``).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy.attacks.aware import unit_features, units_of
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.experiments.featurize import ivt_event_features_of
from gazeprivacy.features.aggregate import recording_features
from gazeprivacy.mechanisms import MECHANISMS
from gazeprivacy.metrics.utility import task_classification

__all__ = ["PROTOCOLS", "table2_rows"]

#: evaluation suffix -> (features, unit, split)
PROTOCOLS = {
    "events:by-recording": ("events", None, "recording"),
    "events:by-participant": ("events", None, "participant"),
    "samples:by-participant": ("samples", None, "participant"),
    "samples-10s:by-participant": ("samples", 10.0, "participant"),
}


def _sample_table(ds: Dataset, segment_s: float | None) -> tuple[pl.DataFrame, dict[str, str]]:
    """Sample-level features per unit (``recording`` = the unit id) and unit -> recording."""
    units = units_of(ds, segment_s=segment_s)
    X = unit_features(ds, units)
    tab = pl.DataFrame(X, schema=[f"f{i}" for i in range(X.shape[1])], orient="row")
    tab = tab.with_columns(units["unit"].alias("recording"),
                           units["participant"].alias("participant"))
    return tab, dict(zip(units["unit"].to_list(), units["recording"].to_list(), strict=True))


def _feature_tables(ds: Dataset) -> dict[str, tuple[pl.DataFrame, dict[str, str]]]:
    """Per protocol features key ('events', 'samples', 'samples-10s'): (table, unit -> rec)."""
    recs = [r.recording for r in ds.recordings]
    events = recording_features(ivt_event_features_of(ds), recordings=recs)
    return {"events": (events, {r: r for r in recs}),
            "samples": _sample_table(ds, None), "samples-10s": _sample_table(ds, 10.0)}


def _classify(raw: dict, prot: dict | None, labels: dict[str, str], *, label: str,
              n_splits: int, n_trees: int, rng: np.random.Generator) -> dict[str, dict]:
    """Metrics per protocol (``prot=None``: original on both sides, the ceiling)."""
    out = {}
    for name, child in zip(PROTOCOLS, rng.spawn(len(PROTOCOLS)), strict=True):
        feats, seg, split = PROTOCOLS[name]
        key = feats if seg is None else "samples-10s"
        tab, unit_rec = raw[key]
        label_of = {u: labels[r] for u, r in unit_rec.items()}
        try:
            res = task_classification(tab, None if prot is None else prot[key][0], label_of,
                                      rng=child, task=label, n_splits=n_splits,
                                      n_trees=n_trees, group_by=split, test_fraction=0.3)
        except InvalidDataError:  # e.g. too few participants for a split
            continue
        out[name] = {**res.metrics(),
                     "accuracy_se": res.accuracy_std / np.sqrt(res.n_splits)}
    return out


def _rows(dataset: str, mechanism: str, params: dict[str, Any], seed: int, label: str,
          metrics: dict[str, dict]) -> list[dict]:
    return [{"dataset": dataset, "mechanism": mechanism,
             "mode": "paper" if mechanism != "none" else None,
             "parameters": json.dumps(params, sort_keys=True), "epsilon": params.get("epsilon"),
             "seed": seed, "kind": "utility", "evaluation": f"{label}:rf:{name}",
             "metric": metric, "value": float(value), "beats_baselines": None}
            for name, ms in metrics.items() for metric, value in ms.items()]


Setting = tuple[str, str, dict[str, Any]]


def table2_rows(datasets: dict[str, tuple[Dataset, str, Sequence[Setting]]], *,
                seeds: Sequence[int], n_splits: int, n_trees: int) -> pl.DataFrame:
    """Table 2's classification rows (module docstring) for every dataset in ``datasets``
    (name -> (dataset, label, settings)), each of its settings ``(mechanism, label, point)``
    (released with the mechanism's paper preset at ``point``) and each seed.
    """
    rows: list[dict] = []
    for name, (ds, label, settings) in datasets.items():
        labels = {r.recording: str(r.label(label)) for r in ds.recordings}
        raw = _feature_tables(ds)
        for seed in seeds:
            rng = np.random.default_rng([seed, 2])
            rows += _rows(name, "none", {}, seed, label,
                          _classify(raw, None, labels, label=label, n_splits=n_splits,
                                    n_trees=n_trees, rng=rng.spawn(1)[0]))
            for mech, mech_label, point in settings:
                spec = MECHANISMS[mech]
                r_rel, r_cls = rng.spawn(2)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # paper mode: flagged in the records
                    rel = spec.protect(ds, spec.params_type.paper(**point), rng=r_rel,
                                       progress=False)
                prot = _feature_tables(rel.output)
                rows += _rows(name, mech_label, point, seed, label,
                              _classify(raw, prot, labels, label=label, n_splits=n_splits,
                                        n_trees=n_trees, rng=r_cls))
    return pl.DataFrame(rows, infer_schema_length=None)
