# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""What a cell measures: the rows of its attacks, utility tasks, fidelity metrics, realism views
and learned evaluations, and the preview the report draws.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy.attacks.aware import aware_reidentification
from gazeprivacy.attacks.deep import deep_reidentification
from gazeprivacy.attacks.inference import infer_attribute
from gazeprivacy.attacks.reidentification import reidentification_attack
from gazeprivacy.attacks.splits import recording_index
from gazeprivacy.attacks.threat import THREAT_MODELS, ThreatModel
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError, MissingDependencyError
from gazeprivacy.experiments.config import AttackConfig, DatasetConfig
from gazeprivacy.experiments.engine.cells import (
    Cell,
    _attack_stream,
    _Context,
    _labels,
    _named_stream,
    _rows,
    _utility_stream,
)
from gazeprivacy.experiments.learned import learned_utility_metrics, linkage_metrics
from gazeprivacy.metrics.utility import task_classification

__all__: list[str] = []

_PREVIEW_POINTS = 1500
_DENSITY_GRID = 60


def _fidelity(names: tuple[str, ...], raw: Dataset, prot: Dataset,
              notes: list[str]) -> dict[str, float]:
    if not names:
        return {}
    try:
        from gazeprivacy.metrics import fidelity
    except ImportError:
        notes.append("fidelity metrics skipped: gazeprivacy.metrics.fidelity is not available")
        return {}
    out = {}
    for name in names:
        try:
            out[name] = float(getattr(fidelity, name)(raw, prot))
            if name in _FIDELITY_SE:
                out[f"{name}_se"] = _fidelity_se(getattr(fidelity, name), name, raw, prot)
        except InvalidDataError as exc:
            notes.append(f"fidelity {name} skipped: {exc}")
    return out


_FIDELITY_SE = ("rmse", "rss_distance", "density_error")
_BOOTSTRAP = 20


def _fidelity_se(metric: Callable[[Dataset, Dataset], float], name: str, raw: Dataset,
                 prot: Dataset) -> float:
    """Standard error of a fidelity metric over the recordings (the comparison with the
    data-free baselines needs one when a run has a single seed): for the per-recording averages
    (rmse, rss_distance) std / sqrt(n) of the per-recording values; for the pooled
    density_error a bootstrap over recordings (20 resamples, a fixed seed)."""
    pairs = list(zip(raw.recordings, prot.recordings, strict=True))
    if name != "density_error":
        vals = np.array([metric(Dataset((a,)), Dataset((b,))) for a, b in pairs])
        vals = vals[np.isfinite(vals)]
        return float(vals.std(ddof=1) / np.sqrt(vals.size)) if vals.size > 1 else float("nan")
    rng = np.random.default_rng(0)
    geo = next((r.geometry for r in raw.recordings if r.geometry is not None), None)
    reps = []
    for _ in range(_BOOTSTRAP):
        pick = rng.integers(0, len(pairs), len(pairs))
        ids = [f"{i}" for i in range(len(pick))]
        a = Dataset(tuple(replace(pairs[j][0], recording=k) for j, k in zip(pick, ids,
                                                                             strict=True)))
        b = Dataset(tuple(replace(pairs[j][1], recording=k) for j, k in zip(pick, ids,
                                                                             strict=True)))
        reps.append(metric(a, b) if geo is None else metric(a, b, geometry=geo))
    return float(np.std(reps, ddof=1))


def _preview(raw: Dataset, prot: Dataset | None) -> dict[str, np.ndarray]:
    """The first recording's path (original and protected) and both density grids."""
    first = raw.recordings[0]
    n = min(first.n_samples, _PREVIEW_POINTS)
    if prot is not None:  # a release at its own length (output_length_s): the common prefix
        n = min(n, prot[first.recording].n_samples)
    out = {"t": first.t[:n], "x": first.x[:n], "y": first.y[:n]}
    xs = np.concatenate([r.x for r in raw])
    ys = np.concatenate([r.y for r in raw])
    geo = first.geometry
    if geo is not None:
        bounds = [[geo.y_min_deg, geo.y_max_deg], [geo.x_min_deg, geo.x_max_deg]]
    else:
        bounds = [[float(np.nanmin(ys)), float(np.nanmax(ys))],
                  [float(np.nanmin(xs)), float(np.nanmax(xs))]]
    out["bounds"] = np.array(bounds, dtype=float).ravel()

    def density(ds: Dataset) -> np.ndarray:
        x = np.concatenate([r.x for r in ds])
        y = np.concatenate([r.y for r in ds])
        ok = np.isfinite(x) & np.isfinite(y)
        h, _, _ = np.histogram2d(y[ok], x[ok], bins=_DENSITY_GRID, range=bounds)
        return h

    out["density_raw"] = density(raw)
    if prot is not None:
        p = prot[first.recording]
        out["px"], out["py"] = p.x[:n], p.y[:n]
        out["density_protected"] = density(prot)
    return out


@dataclass(frozen=True)
class _Features:
    """Event features of the raw data and of the release, and their per-recording aggregates."""

    raw_events: pl.DataFrame | None
    prot_events: pl.DataFrame | None
    raw_rec: pl.DataFrame | None
    prot_rec: pl.DataFrame | None


def _attack_rows(cell: Cell, ctx: _Context, raw: Dataset, prot: Dataset | None,
                 features: _Features, mode: str, attack_rng: np.random.Generator,
                 notes: list[str]) -> list[dict[str, Any]]:
    """Rows of the attacks: re-identification and attribute inference on event features, and
    the mechanism-aware attacker on the samples (and event features) of its sides."""
    dcfg: DatasetConfig = next(d for d in ctx.config.datasets if d.name == cell.dataset)
    index = recording_index(raw, group_label=dcfg.group_label)
    rows: list[dict[str, Any]] = []
    for a in ctx.config.attacks:
        if a.kind == "linkage":
            continue  # in _learned_rows
        threat: ThreatModel = (THREAT_MODELS[a.threat] if features.prot_events is not None
                               else ThreatModel.raw())
        rng = _attack_stream(attack_rng, a)
        if a.kind in ("aware-rf", "deep"):
            rows += _sample_attack_rows(cell, a, raw, prot, features, threat, mode, index, rng,
                                        notes)
        elif a.kind == "reidentification":
            res = reidentification_attack(features.raw_events, features.prot_events, index,
                                          threat=threat, rng=rng, classifier=a.classifier,
                                          n_splits=a.n_splits, test_fraction=a.test_fraction)
            rows += _rows(cell, mode, "privacy", a.id, res.metrics())
        else:
            attr = _labels(raw, a.attribute, by="participant")
            if attr is None:
                notes.append(f"attack {a.id} skipped: not every recording has label "
                             f"{a.attribute!r}")
                continue
            res = infer_attribute(features.raw_rec, features.prot_rec, attr, threat=threat,
                                  rng=rng, attribute=a.attribute, classifier=a.classifier)
            rows += _rows(cell, mode, "privacy", a.id, res.metrics())
    return rows


def _sample_attack_rows(cell: Cell, a: AttackConfig, raw: Dataset, prot: Dataset | None,
                        features: _Features, threat: ThreatModel, mode: str, index: pl.DataFrame,
                        rng: np.random.Generator, notes: list[str]) -> list[dict[str, Any]]:
    """The aware (``aware-rf``) or deep attacker under ``threat``: both read the samples (raw
    data on both sides for the raw cell)."""
    if prot is None and features.prot_events is not None:
        notes.append(f"attack {a.id} skipped: the release is streamed (only its event features "
                     "are kept) and the attacker reads its samples")
        return []
    data = {"raw": raw, "protected": prot if prot is not None else raw}
    split = {"rng": rng, "n_splits": a.n_splits, "test_fraction": a.test_fraction,
             "segment_s": a.segment_s}
    try:
        if a.kind == "aware-rf":
            events = {"raw": features.raw_events,
                      "protected": (features.prot_events if prot is not None
                                    else features.raw_events)}
            res = aware_reidentification(data[threat.train], data[threat.test], index, **split,
                                         train_events=events[threat.train],
                                         test_events=events[threat.test])
        else:
            res = deep_reidentification(data[threat.train], data[threat.test], index, **split,
                                        window_s=float(a.window_s or 2.0), epochs=a.epochs,
                                        max_windows=a.max_windows, time_budget_s=a.time_budget_s)
    except (InvalidDataError, MissingDependencyError) as exc:
        notes.append(f"attack {a.id} skipped: {exc}")
        return []
    return _rows(cell, mode, "privacy", a.id, res.metrics())


def _utility_rows(cell: Cell, ctx: _Context, raw: Dataset, features: _Features, mode: str,
                  attack_rng: np.random.Generator, notes: list[str]) -> list[dict[str, Any]]:
    """Rows of the utility tasks on recording features (the learned ones are elsewhere)."""
    rows: list[dict[str, Any]] = []
    for u in ctx.config.utility:
        if u.learned:
            continue  # in _learned_rows
        lab = _labels(raw, u.label, by="recording")
        if lab is None or len(set(lab.values())) < 2:
            notes.append(f"utility {u.id} skipped: label {u.label!r} missing or constant")
            continue
        res = task_classification(features.raw_rec, features.prot_rec, lab,
                                  rng=_utility_stream(attack_rng, u), task=u.label,
                                  direction=u.direction, n_splits=u.n_splits,
                                  test_fraction=u.test_fraction, n_trees=u.n_trees,
                                  group_by=u.group_by)
        # the split-level standard error, for the comparison with the data-free baselines
        se = {"accuracy_se": res.accuracy_std / np.sqrt(res.n_splits)}
        rows += _rows(cell, mode, "utility", u.id, {**res.metrics(), **se})
    return rows


def _fidelity_rows(cell: Cell, ctx: _Context, raw: Dataset, prot: Dataset | None, mode: str,
                   notes: list[str]) -> list[dict[str, Any]]:
    """Rows of the fidelity metrics (they need the whole release in memory)."""
    cfg = ctx.config
    if prot is not None:
        fid = _fidelity(cfg.fidelity, raw, prot, notes)
        return _rows(cell, mode, "fidelity", "fidelity", fid)
    if cell.dataset in ctx.streamed and cell.mechanism != "none" and cfg.fidelity:
        notes.append("fidelity metrics skipped: the dataset is partitioned (streamed) and they "
                     "compare whole datasets sample by sample")
    return []


def _realism_rows(cell: Cell, ctx: _Context, raw: Dataset, prot: Dataset | None, mode: str,
                  attack_rng: np.random.Generator, notes: list[str], *,
                  synthetic: bool = False) -> list[dict[str, Any]]:
    """Rows of the realism views (:func:`gazeprivacy.metrics.realism.realism_metrics`): the
    release against the raw data; the raw cell compares the raw data with itself (the reference:
    AUC 0.5, distances 0, TSTR = train and test on raw on the same participant folds). A
    ``synthetic`` population is labelled by its own public labels."""
    rc = ctx.config.realism
    if rc is None:
        return []
    if cell.dataset in ctx.streamed:
        notes.append("realism skipped: the dataset is partitioned (streamed) and the realism "
                     "views read whole datasets")
        return []
    from gazeprivacy.metrics.realism import realism_metrics

    # one stream per seed (not per cell), so the raw cell and every release meet the same folds
    rng = _named_stream(attack_rng, "realism")
    try:
        res = realism_metrics(raw, raw if prot is None else prot, rng=rng, views=rc.views,
                              labels=rc.labels, window_s=rc.window_s, n_splits=rc.n_splits,
                              n_trees=rc.n_trees, synthetic=synthetic)
    except (InvalidDataError, InvalidParameterError) as exc:
        notes.append(f"realism skipped: {exc}")
        return []
    notes.extend(res.notes)
    return [row for ev, m in res.metrics.items()
            for row in _rows(cell, mode, res.kinds[ev], ev, m)]


def _learned_rows(cell: Cell, ctx: _Context, raw: Dataset, prot: Dataset | None, mode: str,
                  attack_rng: np.random.Generator, notes: list[str]) -> list[dict[str, Any]]:
    """Rows of the learned evaluations (seed 001): linkage attacks and learned utilities."""
    cfg = ctx.config
    dcfg = next(d for d in cfg.datasets if d.name == cell.dataset)
    rows: list[dict[str, Any]] = []
    for a in cfg.attacks:
        if a.kind != "linkage":
            continue
        try:
            m = linkage_metrics(a, raw, prot, group_label=dcfg.group_label,
                                rng=_attack_stream(attack_rng, a))
        except InvalidDataError as exc:
            notes.append(f"attack {a.id} skipped: {exc}")
            continue
        rows += _rows(cell, mode, "privacy", a.id, m)
    for u in cfg.utility:
        if not u.learned:
            continue
        try:
            m = learned_utility_metrics(u, raw, prot, rng=_utility_stream(attack_rng, u),
                                        cache_dir=Path(ctx.out_dir) / "cache",
                                        cache_key=f"{cell.dataset}:{cell.seed}")
        except InvalidDataError as exc:
            notes.append(f"utility {u.id} skipped: {exc}")
            continue
        rows += _rows(cell, mode, "utility", u.id, m)
    return rows
