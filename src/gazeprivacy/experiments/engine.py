# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The grid runner: datasets x mechanisms x parameter points x seeds -> one tidy table.

* **Cells.** Each (dataset, mechanism, parameter point, seed) is a cell; with
  ``include_raw`` every (dataset, seed) also gets a ``mechanism = "none"`` cell (the raw
  baseline), and every configured data-free baseline
  (:mod:`gazeprivacy.experiments.baselines`) a cell of mode ``baseline`` without a guarantee.
* **Attacks.** ``reidentification`` (George & Routray, on event features), ``aware-rf`` (the
  mechanism-aware attacker of :mod:`gazeprivacy.attacks.aware`, on the release's samples and
  event features; it needs the release in memory), ``deep`` (the EKYT-style DenseNet
  attacker of :mod:`gazeprivacy.attacks.deep`, on the samples; skipped with a note when PyTorch
  is missing), ``attribute`` and ``linkage``.
* **Randomness.** Per seed ``s`` the base ``SeedSequence(s)`` spawns one child for the attacks
  (shared by every cell of that seed, so raw and protected data meet the same splits) and one
  child per (dataset, mechanism, point) for the protection. A cell's streams therefore do not
  depend on the order, the process or the worker count it runs in: serial and parallel runs give
  the same table.
* **Caching.** Event features of each raw dataset are computed once (in the parent, before the
  pool starts) into ``OUT/cache/``, named after the data's content fingerprint
  (:func:`~gazeprivacy.experiments.featurize.dataset_fingerprint`) and the featurizer, so
  changed data of the same shape is featurized again; those of each protected release are
  computed once, inside its cell.
* **Resumable.** A finished cell leaves ``OUT/cells/<key>.parquet`` (its rows), ``<key>.npz``
  (a preview for the report) and ``<key>.json`` (meta, guarantee and the data's fingerprint,
  written last); a rerun skips cells whose three files exist, unless the dataset's content
  fingerprint changed since (then the cell runs again).
* **Partitioned datasets.** A dataset whose path is a partitioned folder is streamed: raw and
  protected features are computed partition by partition (see
  :mod:`gazeprivacy.experiments.streaming` for what differs from an in-memory run).
* **Learned evaluations** (seed 001): utilities of kind ``gaze-prediction`` /
  ``activity-sequence`` and attacks of kind ``linkage`` run through
  :mod:`gazeprivacy.experiments.learned` (:func:`_learned_rows`); a config made only of them
  skips the event features.
* **Output.** ``OUT/results.parquet`` -- columns ``dataset, mechanism, mode, parameters`` (JSON),
  ``epsilon`` (flattened, null when the mechanism has none), ``seed, kind`` (privacy | utility |
  fidelity | realism), ``evaluation`` (e.g. ``reid:rbfn:seed000``), ``metric, value``,
  ``beats_baselines`` (utility and fidelity rows of a run with baselines: whether the cell's
  mean beats the best data-free baseline by 2 standard errors,
  :func:`gazeprivacy.report.verdict.flag_results`; null elsewhere) -- and
  ``OUT/guarantees.json`` (one guarantee record per protected cell).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
import time
import warnings
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field, replace
from multiprocessing import get_context
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
from gazeprivacy.data.partitioned import PartitionedDataset
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError, MissingDependencyError
from gazeprivacy.experiments.baselines import BASELINES, is_baseline
from gazeprivacy.experiments.config import (
    AttackConfig,
    ConfigError,
    DatasetConfig,
    ExperimentConfig,
    UtilityConfig,
    canonical_json,
)
from gazeprivacy.experiments.featurize import (
    dataset_fingerprint,
    event_features_of,
    load_configured_dataset,
)
from gazeprivacy.experiments.learned import learned_utility_metrics, linkage_metrics
from gazeprivacy.experiments.release_view import attack_side
from gazeprivacy.experiments.streaming import partitioned_source, protected_pass, raw_pass
from gazeprivacy.features.aggregate import recording_features
from gazeprivacy.metrics.utility import task_classification
from gazeprivacy.report.verdict import flag_results

__all__ = ["RESULT_SCHEMA", "Cell", "ExperimentResult", "expand_cells", "run_experiment"]

RESULT_SCHEMA = {
    "dataset": pl.String, "mechanism": pl.String, "mode": pl.String, "parameters": pl.String,
    "epsilon": pl.Float64, "seed": pl.Int64, "kind": pl.String, "evaluation": pl.String,
    "metric": pl.String, "value": pl.Float64, "beats_baselines": pl.Boolean,
}
_PREVIEW_POINTS = 1500
_DENSITY_GRID = 60

Featurizer = Callable[[Dataset], pl.DataFrame]


@dataclass(frozen=True)
class Cell:
    """One unit of work. ``combo`` indexes (dataset, mechanism, point) within a seed."""

    dataset: str
    mechanism: str
    label: str
    parameters: Mapping[str, Any]
    preset: str
    seed: int
    combo: int

    @property
    def parameters_json(self) -> str:
        return canonical_json(self.parameters)

    @property
    def key(self) -> str:
        """Stable id of the cell (dataset, mechanism label, parameters, seed)."""
        text = json.dumps([self.dataset, self.label, self.parameters_json, self.seed])
        return hashlib.sha1(text.encode()).hexdigest()[:16]

    @property
    def epsilon(self) -> float | None:
        v = self.parameters.get("epsilon")
        return float(v) if isinstance(v, int | float) else None


def expand_cells(config: ExperimentConfig) -> list[Cell]:
    """The config's cells in a stable order: seed, dataset, (raw first) mechanism, point."""
    combos: list[tuple[str, str, str, dict[str, Any], str]] = []
    for d in config.datasets:
        if config.include_raw:
            combos.append((d.name, "none", "none", {}, "none"))
        for b in config.baselines:
            combos.append((d.name, b, b, {}, "none"))
        for m in config.mechanisms:
            for point in m.points():
                combos.append((d.name, m.name, m.label or m.name, point, m.preset))
    return [Cell(dataset=d, mechanism=mech, label=label, parameters=point, preset=preset,
                 seed=s, combo=i)
            for s in config.seeds for i, (d, mech, label, point, preset) in enumerate(combos)]


def _streams(cell: Cell, n_combos: int) -> tuple[np.random.Generator, np.random.Generator]:
    """(attack rng, protection rng) of a cell: children of SeedSequence(seed)."""
    children = np.random.SeedSequence(cell.seed).spawn(n_combos + 1)
    return np.random.default_rng(children[0]), np.random.default_rng(children[1 + cell.combo])


@dataclass(frozen=True)
class _Context:
    """What a worker needs besides its cell (picklable)."""

    config: ExperimentConfig
    out_dir: str
    n_combos: int
    datasets: Mapping[str, Dataset]
    raw_features: Mapping[str, str]  # dataset -> cached parquet path
    registry: Mapping[str, Any]
    featurizer: Featurizer | None
    streamed: Mapping[str, PartitionedDataset] = field(default_factory=dict)  # partitioned
    fingerprints: Mapping[str, str] = field(default_factory=dict)  # dataset -> content digest


@dataclass
class ExperimentResult:
    """What :func:`run_experiment` produced."""

    out_dir: Path
    results: pl.DataFrame
    guarantees: list[dict[str, Any]]
    n_cells: int
    n_run: int
    n_skipped: int
    seconds: float
    notes: list[str] = field(default_factory=list)


def _build_params(spec: Any, cell: Cell) -> Any:
    point = dict(cell.parameters)
    paper = getattr(spec.params_type, "paper", None)  # a preset is optional in the contract
    if cell.preset == "paper" and paper is not None:
        return paper(**point)
    return spec.params_type(**point)


def _rows(cell: Cell, mode: str, kind: str, evaluation: str,
          metrics: Mapping[str, float]) -> list[dict[str, Any]]:
    return [{"dataset": cell.dataset, "mechanism": cell.label, "mode": mode,
             "parameters": cell.parameters_json, "epsilon": cell.epsilon, "seed": cell.seed,
             "kind": kind, "evaluation": evaluation, "metric": m,
             "value": float(v) if v is not None else None, "beats_baselines": None}
            for m, v in metrics.items()]


def _labels(dataset: Dataset, name: str | None, by: str) -> dict[str, str] | None:
    if name is None:
        return None
    out = {}
    for r in dataset.recordings:
        if name not in r.labels:
            return None
        key = r.recording if by == "recording" else r.participant
        out[key] = r.labels[name]
    return out


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
class _Protected:
    """What a cell's protection step produced (all empty for the raw baseline)."""

    mode: str = "none"
    guarantee: dict[str, Any] | None = None
    dataset: Dataset | None = None  # the release; None when streamed (only features are kept)
    events: pl.DataFrame | None = None  # event features of the release
    preview: dict[str, np.ndarray] | None = None  # set by the streamed pass


@dataclass(frozen=True)
class _Features:
    """Event features of the raw data and of the release, and their per-recording aggregates."""

    raw_events: pl.DataFrame | None
    prot_events: pl.DataFrame | None
    raw_rec: pl.DataFrame | None
    prot_rec: pl.DataFrame | None


def _run_cell(cell: Cell, ctx: _Context) -> dict[str, Any]:
    """Run one cell and write its three files; returns its meta record."""
    t0 = time.perf_counter()
    notes: list[str] = []
    raw = ctx.datasets[cell.dataset]  # a metadata-only skeleton when the dataset is streamed
    streamed = ctx.streamed.get(cell.dataset)
    attack_rng, protect_rng = _streams(cell, ctx.n_combos)
    protected = _protect_cell(cell, ctx, raw, protect_rng, notes)
    prot, mode = protected.dataset, protected.mode
    rows: list[dict[str, Any]] = _learned_rows(cell, ctx, raw, prot, mode, attack_rng, notes)
    if rows and ctx.config.release_view is not None and prot is not None:
        notes.append("release_view: linkage attacks and learned utilities read the in-memory "
                     "release (they need its labels)")
    # attacks and utility tasks see the release as written when the config has a release_view
    seen, seen_events = attack_side(ctx.config.release_view, raw, prot, protected.events,
                                    ctx.featurizer or event_features_of, notes,
                                    needs_events=_needs_events(ctx.config))
    features = _cell_features(cell, ctx, raw, seen_events)
    rows += _attack_rows(cell, ctx, raw, seen, features, mode, attack_rng, notes)
    rows += _utility_rows(cell, ctx, raw, features, mode, attack_rng, notes)
    rows += _fidelity_rows(cell, ctx, raw, prot, mode, notes)
    rows += _realism_rows(cell, ctx, raw, prot, mode, attack_rng, notes)
    table = pl.DataFrame(rows, schema=RESULT_SCHEMA) if rows else pl.DataFrame(
        schema=RESULT_SCHEMA)
    cells = Path(ctx.out_dir) / "cells"
    _atomic(cells / f"{cell.key}.parquet", lambda p: table.write_parquet(p))
    preview = protected.preview
    if preview is None:
        preview = _preview(raw if streamed is None else streamed.partition(0), prot)
    _atomic(cells / f"{cell.key}.npz", lambda p: np.savez_compressed(p, **preview),
            suffix=".npz")
    meta = {"key": cell.key, "cell": {**asdict(cell), "parameters": dict(cell.parameters)},
            "mode": mode, "guarantee": protected.guarantee, "notes": notes,
            "data_fingerprint": ctx.fingerprints.get(cell.dataset),
            "seconds": round(time.perf_counter() - t0, 3)}
    _atomic(cells / f"{cell.key}.json",
            lambda p: Path(p).write_text(json.dumps(meta, indent=2, default=str)))
    return meta


def _protect_cell(cell: Cell, ctx: _Context, raw: Dataset, protect_rng: np.random.Generator,
                  notes: list[str]) -> _Protected:
    """Apply the cell's mechanism: in memory, or partition by partition when streamed."""
    if cell.mechanism == "none":
        return _Protected()
    featurize = ctx.featurizer or event_features_of
    if is_baseline(cell.mechanism):  # data-free: no guarantee, nothing to record
        prot = BASELINES[cell.mechanism].release(raw, rng=protect_rng)
        events = featurize(prot) if _needs_events(ctx.config) else None
        return _Protected(mode="baseline", dataset=prot, events=events)
    streamed = ctx.streamed.get(cell.dataset)
    prot: Dataset | None = None
    prot_events: pl.DataFrame | None = None
    preview: dict[str, np.ndarray] | None = None
    spec = ctx.registry[cell.mechanism]
    params = _build_params(spec, cell)
    # the mechanism's warnings (e.g. NotFormallyPrivateWarning in paper mode) become notes;
    # the guarantee record's flags carry the same facts into the report
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if streamed is None:
            release = spec.protect(raw, params, rng=protect_rng, progress=False)
            prot, record = release.output, release.guarantee
        else:  # partition by partition; only the features are kept
            record, prot_events, preview = protected_pass(
                streamed, cell.mechanism, params, rng=protect_rng, featurize=featurize,
                preview=_preview)
    notes.extend(dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught))
    guarantee = record.with_seed(cell.seed).to_dict()
    mode = record.mode  # the record says which path ran, not a params default
    if prot is not None and _needs_events(ctx.config):
        prot_events = featurize(prot)
    return _Protected(mode=mode, guarantee=guarantee, dataset=prot, events=prot_events,
                      preview=preview)


def _cell_features(cell: Cell, ctx: _Context, raw: Dataset,
                   prot_events: pl.DataFrame | None) -> _Features:
    """The cached raw event features, and both sides aggregated per recording."""
    raw_events = (pl.read_parquet(ctx.raw_features[cell.dataset])
                  if cell.dataset in ctx.raw_features else None)
    recs = [r.recording for r in raw.recordings]
    raw_rec = (recording_features(raw_events, recordings=recs)
               if _needs_events(ctx.config) else None)
    prot_rec = None if prot_events is None else recording_features(prot_events, recordings=recs)
    return _Features(raw_events=raw_events, prot_events=prot_events, raw_rec=raw_rec,
                     prot_rec=prot_rec)


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
                  attack_rng: np.random.Generator, notes: list[str]) -> list[dict[str, Any]]:
    """Rows of the realism views (:func:`gazeprivacy.metrics.realism.realism_metrics`): the
    release against the raw data; the raw cell compares the raw data with itself (the reference:
    AUC 0.5, distances 0, TSTR = train and test on raw on the same participant folds)."""
    rc = ctx.config.realism
    if rc is None:
        return []
    if cell.dataset in ctx.streamed:
        notes.append("realism skipped: the dataset is partitioned (streamed) and the realism "
                     "views read whole datasets")
        return []
    from gazeprivacy.metrics.realism import realism_metrics

    # one stream per seed (not per cell), so the raw cell and every release meet the same folds
    seq = attack_rng.bit_generator.seed_seq
    word = int(hashlib.sha1(b"realism").hexdigest()[:8], 16)
    rng = np.random.default_rng(np.random.SeedSequence(seq.entropy,
                                                       spawn_key=(*seq.spawn_key, word)))
    try:
        res = realism_metrics(raw, raw if prot is None else prot, rng=rng, views=rc.views,
                              labels=rc.labels, window_s=rc.window_s, n_splits=rc.n_splits,
                              n_trees=rc.n_trees)
    except (InvalidDataError, InvalidParameterError) as exc:
        notes.append(f"realism skipped: {exc}")
        return []
    notes.extend(res.notes)
    return [row for ev, m in res.metrics.items()
            for row in _rows(cell, mode, res.kinds[ev], ev, m)]


def _needs_events(cfg: ExperimentConfig) -> bool:
    """Whether any evaluation of ``cfg`` reads I-VT event features (the learned ones do not)."""
    return (any(a.kind != "linkage" for a in cfg.attacks)
            or any(not u.learned for u in cfg.utility))


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


def _attack_stream(attack_rng: np.random.Generator, a: AttackConfig) -> np.random.Generator:
    # Per attack, a stream derived from the seed's attack child and the attack's id, so adding an
    # attack to the config does not change the others' splits.
    seq = attack_rng.bit_generator.seed_seq
    word = int(hashlib.sha1(a.id.encode()).hexdigest()[:8], 16)
    return np.random.default_rng(np.random.SeedSequence(seq.entropy,
                                                        spawn_key=(*seq.spawn_key, word)))


def _utility_stream(attack_rng: np.random.Generator, u: UtilityConfig) -> np.random.Generator:
    seq = attack_rng.bit_generator.seed_seq
    word = int(hashlib.sha1(("utility:" + u.id).encode()).hexdigest()[:8], 16)
    return np.random.default_rng(np.random.SeedSequence(seq.entropy,
                                                        spawn_key=(*seq.spawn_key, word)))


def _atomic(path: Path, write: Callable[[str], Any], suffix: str = "") -> None:
    tmp = path.with_name(path.name + ".tmp" + suffix)
    write(str(tmp))
    os.replace(tmp, path)


def _worker_init() -> None:
    # Ctrl-C in a terminal reaches the whole process group: the parent stops the run, so the
    # workers ignore it (no traceback per worker) and are shut down by the parent.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # One BLAS / OpenMP thread per worker process: the pool already uses the cores, and
    # oversubscribed BLAS threads slow small least-squares problems down by 10x or more.
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except ImportError:  # threadpoolctl comes with scikit-learn; keep going without it
        pass


def _summary(ds: Dataset) -> dict[str, Any]:
    """Public shape of a dataset for the report: counts, rates, missing data, labels."""
    summ = ds.summary()
    return {"recordings": len(ds), "participants": len(ds.participants),
            "samples": ds.n_samples,
            "sampling_rate_hz": sorted(set(summ["sampling_rate_hz"].to_list())),
            "duration_s_total": round(float(summ["duration_s"].sum()), 2),
            "missing_fraction": round(float(summ["missing_fraction"].mean()), 4),
            "labels": {k: sorted({r.labels[k] for r in ds if k in r.labels})[:12]
                       for k in ds.label_names()}}


def _done(out: Path, cell: Cell, fingerprint: str | None = None) -> bool:
    """Whether ``cell`` finished on the same data: its three files exist and its meta has
    ``fingerprint`` (cells written before fingerprints were recorded are trusted)."""
    c = out / "cells"
    if not all((c / f"{cell.key}{ext}").is_file() for ext in (".parquet", ".npz", ".json")):
        return False
    if fingerprint is None:
        return True
    try:
        meta = json.loads((c / f"{cell.key}.json").read_text())
    except (OSError, ValueError):
        return False
    return meta.get("data_fingerprint", fingerprint) == fingerprint


def run_experiment(
    config: ExperimentConfig,
    out_dir: str | Path,
    *,
    workers: int | None = None,
    registry: Mapping[str, Any] | None = None,
    datasets: Mapping[str, Dataset] | None = None,
    featurizer: Featurizer | None = None,
    progress: bool = False,
) -> ExperimentResult:
    """Run every cell of ``config`` (skipping finished ones) and write the tidy results.

    Parameters
    ----------
    config : ExperimentConfig
    out_dir : path
        Output folder (created); holds ``cells/``, ``cache/``, ``results.parquet``,
        ``guarantees.json``.
    workers : int, optional
        Worker processes (default ``config.workers``); 1 runs in this process.
    registry : mapping name -> Mechanism, optional
        Mechanisms by name (default :data:`gazeprivacy.mechanisms.MECHANISMS`).
    datasets : mapping name -> Dataset, optional
        Datasets given in code (override the config's source for those names).
    featurizer : callable Dataset -> event feature table, optional
        Default :func:`~gazeprivacy.experiments.featurize.event_features_of`. Must be picklable
        (a module-level function) when ``workers > 1``.
    progress : bool
        Show a Rich progress bar on stderr.

    Returns
    -------
    ExperimentResult
    """
    t0 = time.perf_counter()
    if registry is None:
        from gazeprivacy.mechanisms import MECHANISMS

        registry = MECHANISMS
    config.check_mechanisms(registry)
    registry = {m.name: registry[m.name] for m in config.mechanisms}
    cells = expand_cells(config)
    _check_points(cells, registry)
    out = Path(out_dir)
    (out / "cells").mkdir(parents=True, exist_ok=True)
    (out / "cache").mkdir(parents=True, exist_ok=True)
    sources = {d.name: _source(d, datasets) for d in config.datasets}
    streamed = {n: s for n, s in sources.items() if isinstance(s, PartitionedDataset)}
    _check_streamable(cells, streamed, registry, config)
    fingerprints = {name: dataset_fingerprint(source) for name, source in sources.items()}
    loaded, raw_paths, summaries = _prepare_datasets(sources, fingerprints, out,
                                                     featurizer or event_features_of,
                                                     need_events=_needs_events(config))
    (out / "data_summary.json").write_text(json.dumps(summaries, indent=2))
    n_combos = max(c.combo for c in cells) + 1
    ctx = _Context(config=config, out_dir=str(out), n_combos=n_combos, datasets=loaded,
                   raw_features=raw_paths, registry=registry, featurizer=featurizer,
                   streamed=streamed, fingerprints=fingerprints)
    todo = [c for c in cells if not _done(out, c, fingerprints[c.dataset])]
    n_workers = workers if workers is not None else config.workers
    _execute(todo, ctx, n_workers, progress)
    results, guarantees, notes = _gather(out, config, cells)
    return ExperimentResult(out_dir=out, results=results, guarantees=guarantees,
                            n_cells=len(cells), n_run=len(todo),
                            n_skipped=len(cells) - len(todo),
                            seconds=time.perf_counter() - t0, notes=notes)


def _check_points(cells: list[Cell], registry: Mapping[str, Any]) -> None:
    """Every parameter point must build before any work starts."""
    for c in cells:
        if c.mechanism != "none" and not is_baseline(c.mechanism):
            try:
                _build_params(registry[c.mechanism], c)
            except (TypeError, InvalidParameterError) as exc:
                raise ConfigError(
                    f"mechanism {c.mechanism!r} cannot build parameters {c.parameters_json} "
                    f"with preset {c.preset!r}: {exc}") from None


def _source(d: DatasetConfig, given: Mapping[str, Dataset] | None
            ) -> Dataset | PartitionedDataset:
    """A dataset given in code, else the configured partitioned folder or loaded dataset."""
    if given and d.name in given and given[d.name] is not None:
        return given[d.name]
    return partitioned_source(d) or load_configured_dataset(d)


def _prepare_datasets(sources: Mapping[str, Dataset | PartitionedDataset],
                      fingerprints: Mapping[str, str], out: Path, featurize: Featurizer, *,
                      need_events: bool
                      ) -> tuple[dict[str, Dataset], dict[str, str], dict[str, Any]]:
    """Per dataset: the dataset in memory (a metadata-only skeleton when streamed), the path of
    its cached raw event features (when an evaluation needs them) and its public summary.

    The cache file is named after the dataset's content fingerprint and the featurizer, so
    changed data of the same shape is featurized again instead of served stale features.
    """
    loaded: dict[str, Dataset] = {}
    raw_paths: dict[str, str] = {}
    summaries: dict[str, Any] = {}
    for name, source in sources.items():
        digest = hashlib.sha1(repr((name, fingerprints[name],
                                    getattr(featurize, "__qualname__", str(featurize))))
                              .encode()).hexdigest()[:16]
        path = out / "cache" / f"{name}-{digest}-events.parquet"
        want = need_events and not path.is_file()
        if isinstance(source, PartitionedDataset):  # one pass: skeleton, summary, raw features
            tmp = path.with_name(path.name + ".tmp")
            loaded[name], summaries[name] = raw_pass(
                source, featurize if want else None, tmp if want else None)
            if tmp.is_file():
                os.replace(tmp, path)
        else:
            loaded[name], summaries[name] = source, _summary(source)
            if want:
                _atomic(path, lambda p, ds=source: featurize(ds).write_parquet(p))
        if need_events:
            raw_paths[name] = str(path)
    return loaded, raw_paths, summaries


def _gather(out: Path, config: ExperimentConfig, cells: list[Cell]
            ) -> tuple[pl.DataFrame, list[dict[str, Any]], list[str]]:
    """Read every cell back; write ``results.parquet``, ``guarantees.json`` and ``run.json``."""
    parts, guarantees = [], []
    seen_notes: dict[str, list[str]] = {}
    for c in cells:
        part = pl.read_parquet(out / "cells" / f"{c.key}.parquet")
        # cells written before the beats_baselines column existed; the flag is set below
        parts.append(part.drop("beats_baselines", strict=False))
        meta = json.loads((out / "cells" / f"{c.key}.json").read_text())
        for n in meta["notes"]:
            seen_notes.setdefault(n, []).append(f"{c.label} {c.parameters_json} seed {c.seed}")
        if meta["guarantee"] is not None:
            guarantees.append({"key": c.key, "dataset": c.dataset, "mechanism": c.label,
                               "parameters": dict(c.parameters), "seed": c.seed,
                               "guarantee": meta["guarantee"]})
    notes = [f"{n} [{len(where)} cell(s), e.g. {where[0]}]" for n, where in seen_notes.items()]
    results = (flag_results(pl.concat(parts, how="vertical")) if parts
               else pl.DataFrame(schema=RESULT_SCHEMA))
    _atomic(out / "results.parquet", lambda p: results.write_parquet(p))
    (out / "guarantees.json").write_text(json.dumps(guarantees, indent=2, default=str))
    (out / "run.json").write_text(json.dumps(
        {"name": config.name, "cells": [c.key for c in cells], "notes": notes}, indent=2))
    return results, guarantees, notes


def _check_streamable(cells: list[Cell], streamed: Mapping[str, PartitionedDataset],
                      registry: Mapping[str, Any], config: ExperimentConfig) -> None:
    """Every mechanism applied to a partitioned dataset must have a partition-wise plan, and
    every evaluation must work from event features (the streamed path keeps only those)."""
    from gazeprivacy.engines import plan_for

    if streamed:
        odd = [a.kind for a in config.attacks if a.kind not in ("reidentification", "attribute")]
        odd += [f"baseline {b}" for b in config.baselines]
        odd += [f"utility {u.id}" for u in config.utility if getattr(u, "learned", False)]
        if odd:
            raise ConfigError(
                f"dataset(s) {sorted(streamed)} are partitioned (streamed), which supports only "
                f"evaluations on event features; {', '.join(odd)} need(s) whole datasets in "
                "memory: evaluate those on an in-memory file")
    for c in cells:
        if c.dataset in streamed and c.mechanism != "none" and not is_baseline(c.mechanism):
            try:
                plan_for(c.mechanism, _build_params(registry[c.mechanism], c))
            except InvalidParameterError as exc:
                raise ConfigError(f"dataset {c.dataset!r} is partitioned: {exc}") from None


class _Lines:
    """Progress without a terminal (a log file, CI): one line per finished cell on stderr."""

    def __init__(self, total: int) -> None:
        self.total, self.done = total, 0

    def advance(self, _task: object = None) -> None:
        self.done += 1
        print(f"cells: {self.done}/{self.total} done", file=sys.stderr, flush=True)

    def stop(self) -> None:
        pass


def _progress(total: int) -> tuple[Any, Any]:
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal:
        return _Lines(total), None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    bar = Progress("[progress.description]{task.description}", BarColumn(),
                   MofNCompleteColumn(), TimeElapsedColumn(), console=console, transient=False)
    bar.start()
    return bar, bar.add_task("cells", total=total)


def _execute(todo: list[Cell], ctx: _Context, n_workers: int, progress: bool) -> None:
    if not todo:
        return
    bar, task = _progress(len(todo)) if progress else (None, None)
    try:
        if n_workers <= 1 or len(todo) == 1:
            for c in todo:
                _run_cell(c, ctx)
                if bar is not None:
                    bar.advance(task)
        else:
            with ProcessPoolExecutor(max_workers=min(n_workers, len(todo)),
                                     mp_context=get_context("spawn"),
                                     initializer=_worker_init) as pool:
                pending = {pool.submit(_run_cell, c, ctx) for c in todo}
                try:
                    while pending:
                        # A short timeout: Ctrl-C may be delivered to a helper thread, and the
                        # main thread only notices it when it wakes up.
                        done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                        for fut in done:
                            fut.result()
                            if bar is not None:
                                bar.advance(task)
                except BaseException as exc:
                    # Queued cells are cancelled. On Ctrl-C the running ones are terminated too
                    # (cells are written atomically, so a resumed run recomputes them); after a
                    # failed cell they finish and are cached for the rerun.
                    if isinstance(exc, KeyboardInterrupt):
                        for proc in list((getattr(pool, "_processes", None) or {}).values()):
                            proc.terminate()
                    pool.shutdown(wait=True, cancel_futures=True)
                    raise
    finally:
        if bar is not None:
            bar.stop()

