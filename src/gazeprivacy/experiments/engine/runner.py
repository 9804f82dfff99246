# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The runner: :func:`run_experiment` prepares the datasets, runs every unfinished cell (in this
process or a pool of workers: :mod:`gazeprivacy.experiments.engine.execute`) and gathers the
cells' files into the tidy results.
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy.data.partitioned import PartitionedDataset
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import (
    GazePrivacyError,
    InvalidDataError,
    ReleaseRefusedError,
)
from gazeprivacy.experiments.baselines import BASELINES, is_baseline
from gazeprivacy.experiments.config import (
    ExperimentConfig,
)
from gazeprivacy.experiments.engine.cells import (
    RESULT_SCHEMA,
    STREAMS,
    Cell,
    Featurizer,
    _atomic,
    _Context,
    _input_and_params,
    _labels,
    _named_stream,
    _needs_events,
    _one_line,
    _rows,
    _streams,
    expand_cells,
    release_identity,
)
from gazeprivacy.experiments.engine.execute import execute
from gazeprivacy.experiments.engine.failures import FOLD_FOLDERS, read_failures
from gazeprivacy.experiments.engine.gather import gather
from gazeprivacy.experiments.engine.population import (
    MEMBERSHIP,
    density_rows,
    is_synthetic,
    membership_rows,
    not_applicable_notes,
    population_preview,
    synthetic_in_run,
)
from gazeprivacy.experiments.engine.preflight import (
    _check_points,
    _check_streamable,
    _done,
    _prepare_datasets,
    _source,
)
from gazeprivacy.experiments.engine.views import (
    _attack_rows,
    _Features,
    _fidelity_rows,
    _learned_rows,
    _preview,
    _realism_rows,
    _utility_rows,
)
from gazeprivacy.experiments.featurize import (
    dataset_fingerprint,
    event_features_of,
)
from gazeprivacy.experiments.frontier import (
    first_seconds,
    frontier_metrics,
    frontier_preview,
    frontier_split,
)
from gazeprivacy.experiments.frontier_membership import (
    fold_attribute_guesses,
    fold_scores,
    membership_folds,
)
from gazeprivacy.experiments.release_view import attack_side
from gazeprivacy.experiments.streaming import protected_pass
from gazeprivacy.features.aggregate import recording_features
from gazeprivacy.guarantees import Guarantee, Kind, Unit
from gazeprivacy.report.verdict import REFUSED

__all__ = ["ExperimentResult", "run_experiment"]


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
    #: releases their mechanism refused (dataset, mechanism, parameters, epsilon, seed, reason)
    refusals: list[dict[str, Any]] = field(default_factory=list)
    #: cells that raised (dataset, mechanism, parameters, epsilon, seed, error, file): not in
    #: the results; a rerun computes them again (:mod:`~gazeprivacy.experiments.engine.failures`)
    failures: list[dict[str, Any]] = field(default_factory=list)

    def raise_failures(self) -> None:
        """Raise :class:`~gazeprivacy.exceptions.GazePrivacyError` naming the failed cells
        (for callers that must not go on with a partial grid); nothing when none failed."""
        if self.failures:
            f = self.failures[0]
            raise GazePrivacyError(
                f"{len(self.failures)} cell(s) failed, e.g. {f['dataset']} / {f['mechanism']} "
                f"seed {f['seed']}: {f['error']} (tracebacks: {self.out_dir}/cells/*.failed.json)")


@dataclass(frozen=True)
class _Protected:
    """What a cell's protection step produced (all empty for the raw baseline)."""

    mode: str = "none"
    guarantee: dict[str, Any] | None = None
    dataset: Dataset | None = None  # the release; None when streamed (only features are kept)
    events: pl.DataFrame | None = None  # event features of the release
    preview: dict[str, np.ndarray] | None = None  # set by the streamed pass


def _run_cell(cell: Cell, ctx: _Context) -> dict[str, Any]:
    """Run one cell and write its three files; returns its meta record."""
    if ctx.config.frontier is not None:
        return _run_frontier_cell(cell, ctx)
    if is_synthetic(ctx.registry, cell.mechanism):
        return _run_population_cell(cell, ctx)
    t0 = time.perf_counter()
    notes: list[str] = []
    raw = ctx.datasets[cell.dataset]  # a metadata-only skeleton when the dataset is streamed
    streamed = ctx.streamed.get(cell.dataset)
    attack_rng, protect_rng = _streams(cell)
    protected = _protect_or_refuse(cell, ctx, raw, protect_rng, notes, t0)
    if not isinstance(protected, _Protected):
        return protected  # refused
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
    if cell.mechanism == "none" and streamed is None and synthetic_in_run(ctx.registry):
        # the reference of the synthetic populations' held-out membership attack
        rows += _rows(cell, mode, "privacy", MEMBERSHIP, membership_rows(
            raw, _named_stream(attack_rng, "membership-split"), None, notes))
    preview = protected.preview
    if preview is None:
        preview = _preview(raw if streamed is None else streamed.partition(0), prot)
    return _write_cell(cell, ctx, rows, preview, protected, notes, t0)


def _run_population_cell(cell: Cell, ctx: _Context) -> dict[str, Any]:
    """A synthetic-population release (:mod:`gazeprivacy.experiments.engine.population`): the
    evaluations that pair its recordings with the input's are noted as not applicable; the
    held-out membership attack, the density error and the realism views are measured."""
    t0 = time.perf_counter()
    raw = ctx.datasets[cell.dataset]
    attack_rng, protect_rng = _streams(cell)
    notes = not_applicable_notes(ctx.config, cell.label)
    protected = _protect_or_refuse(cell, ctx, raw, protect_rng, notes, t0, events=False)
    if not isinstance(protected, _Protected):
        return protected  # refused
    release, mode = protected.dataset, protected.mode
    spec = ctx.registry[cell.mechanism]
    fit_refusals: list[dict[str, Any]] = []

    def protect_fit(fit: Dataset) -> Dataset:  # the same mechanism on the training part
        with warnings.catch_warnings():  # already noted from the release of the whole input
            warnings.simplefilter("ignore")
            try:
                data, params = _input_and_params(spec, cell, fit)
                return spec.protect(data, params,
                                    rng=_named_stream(protect_rng, "membership-fit"),
                                    progress=False).output
            except ReleaseRefusedError as exc:  # the attack is skipped (noted); recorded too
                fit_refusals.append({"fold": "membership split", "reason": (
                    f"the membership attack's training part was refused: {_one_line(exc)}")})
                raise

    rows = _rows(cell, mode, "privacy", MEMBERSHIP, membership_rows(
        raw, _named_stream(attack_rng, "membership-split"), protect_fit, notes))
    if "density_error" in ctx.config.fidelity:
        rows += _rows(cell, mode, "fidelity", "fidelity", density_rows(raw, release, notes))
    rows += _realism_rows(cell, ctx, raw, release, mode, attack_rng, notes, synthetic=True)
    return _write_cell(cell, ctx, rows, population_preview(raw, release), protected, notes, t0,
                       fold_refusals=fit_refusals)


def _protect_or_refuse(cell: Cell, ctx: _Context, data: Dataset, rng: np.random.Generator,
                       notes: list[str], t0: float, *, events: bool = True
                       ) -> _Protected | dict[str, Any]:
    """:func:`_protect_cell`, or the meta of the cell written as refused when its mechanism
    refuses the data by a documented rule (:class:`~gazeprivacy.exceptions.ReleaseRefusedError`,
    nothing else): the cell is done, its one row (:data:`~gazeprivacy.report.verdict.REFUSED`,
    value 1) says so, its meta keeps the one-line reason, and the run goes on."""
    try:
        return _protect_cell(cell, ctx, data, rng, notes, events=events)
    except ReleaseRefusedError as exc:
        kind, evaluation, metric = REFUSED
        rows = _rows(cell, "refused", kind, evaluation, {metric: 1.0})
        return _write_cell(cell, ctx, rows, {}, _Protected(mode="refused"), notes, t0,
                           refused=_one_line(exc))


def _write_cell(cell: Cell, ctx: _Context, rows: list[dict[str, Any]],
                preview: dict[str, np.ndarray], protected: _Protected, notes: list[str],
                t0: float, *, refused: str | None = None,
                fold_refusals: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Write a cell's rows, preview and meta (meta last: it marks the cell done); ``refused``:
    the reason a refused release gives (the meta's ``refused``); ``fold_refusals``: the
    membership folds (or split) whose smaller training part the mechanism refused, each
    ``{"fold", "reason"}`` (the meta's ``fold_refusals``)."""
    table = pl.DataFrame(rows, schema=RESULT_SCHEMA) if rows else pl.DataFrame(
        schema=RESULT_SCHEMA)
    cells = Path(ctx.out_dir) / "cells"
    _atomic(cells / f"{cell.key}.parquet", lambda p: table.write_parquet(p))
    _atomic(cells / f"{cell.key}.npz", lambda p: np.savez_compressed(p, **preview),
            suffix=".npz")
    meta = {"key": cell.key, "cell": {**asdict(cell), "parameters": dict(cell.parameters)},
            "mode": protected.mode, "guarantee": protected.guarantee, "notes": notes,
            "data_fingerprint": ctx.fingerprints.get(cell.dataset), "streams": STREAMS,
            "release": release_identity(cell), "seconds": round(time.perf_counter() - t0, 3)}
    if refused is not None:
        meta["refused"] = refused
    if fold_refusals:
        meta["fold_refusals"] = fold_refusals
    _atomic(cells / f"{cell.key}.json",
            lambda p: Path(p).write_text(json.dumps(meta, indent=2, default=str)))
    return meta


def _run_frontier_cell(cell: Cell, ctx: _Context) -> dict[str, Any]:
    """A cell under the frontier protocol (:mod:`gazeprivacy.experiments.frontier`): the
    mechanism sees the training participants' kept recordings; everything is scored against
    the held-out participants. The raw cell's release is its input (the copy)."""
    t0 = time.perf_counter()
    notes: list[str] = []
    cfg = ctx.config.frontier
    raw = first_seconds(ctx.datasets[cell.dataset], cfg.max_duration_s)
    attack_rng, protect_rng = _streams(cell)
    _remove_old_folds(cell, ctx)
    split = frontier_split(raw, rng=_named_stream(attack_rng, "frontier-split"),
                           holdout_fraction=cfg.holdout_fraction,
                           probe_fraction=cfg.probe_fraction, probes=cfg.probes)
    protected = _protect_or_refuse(cell, ctx, split.fit, protect_rng, notes, t0)
    if not isinstance(protected, _Protected):
        return protected  # refused
    release = split.fit if protected.dataset is None else protected.dataset
    attribute_of = {a.attribute: labs for a in ctx.config.attacks
                    if a.kind == "attribute" and a.attribute
                    and (labs := _labels(raw, a.attribute, by="participant")) is not None}
    # what depends on the held-out data only is computed once per (dataset, seed) and process
    memo = _FRONTIER_MEMO.setdefault((cell.dataset, cell.seed, ctx.fingerprints.get(
        cell.dataset), repr(cfg)), {})
    if len(_FRONTIER_MEMO) > 2:  # keep the memory of two splits at most
        _FRONTIER_MEMO.pop(next(iter(_FRONTIER_MEMO)))
    metrics = frontier_metrics(cfg, split, release, attacks=ctx.config.attacks,
                               attribute_of=attribute_of,
                               rng=_named_stream(attack_rng, "frontier-evaluations"),
                               notes=notes, memo=memo)
    bound = _participant_bound(protected.guarantee)
    if bound:
        metrics["guarantee"] = ("privacy", bound)
    rows = [row for ev, (kind, m) in metrics.items()
            for row in _rows(cell, protected.mode, kind, ev, m)]
    fold_refusals = _membership_folds(cell, ctx, raw, attack_rng, protect_rng, notes,
                                      attribute_of)
    return _write_cell(cell, ctx, rows, frontier_preview(split.held, release), protected, notes,
                       t0, fold_refusals=fold_refusals)


def _remove_old_folds(cell: Cell, ctx: _Context) -> None:
    """Remove the cell's fold files an earlier run left (``membership/<cell>.parquet``,
    ``attribute/<cell>.parquet``): the cell key holds no data fingerprint, so a cell computed
    again (changed data, or now refused or without folds) must not pool the old ones. These
    are the run's own outputs; each removal is said on stderr."""
    for folder in FOLD_FOLDERS:
        path = Path(ctx.out_dir) / folder / f"{cell.key}.parquet"
        if path.is_file():
            path.unlink()
            print(f"removed {path} (pooled-game fold rows of an earlier run of this cell, "
                  "computed again now)", file=sys.stderr)


def _membership_folds(cell: Cell, ctx: _Context, raw: Dataset, attack_rng: np.random.Generator,
                      protect_rng: np.random.Generator, notes: list[str],
                      attribute_of: Mapping[str, Mapping[str, str]]) -> list[dict[str, Any]]:
    """The pooled membership game (:mod:`gazeprivacy.experiments.frontier_membership`): the
    cell's release regenerated on each fold of its seed, every candidate's score written to
    ``membership/<cell>.parquet``; the attribute attacks on the same fold releases (generated
    once for both), every candidate's answer written to ``attribute/<cell>.parquet`` (nothing
    when the config asks no folds). A fold whose smaller training part the mechanism refuses
    (:class:`~gazeprivacy.exceptions.ReleaseRefusedError`) is left out, noted and returned
    (``{"fold", "reason"}``); the other folds are kept."""
    cfg = ctx.config.frontier
    kinds = {a.kind for a in ctx.config.attacks}
    attrs = {a: v for a, v in attribute_of.items() if "attribute" in kinds}
    if not cfg.membership_folds or not ("membership" in kinds or attrs):
        return []
    parts, guesses, fold_notes, refused = [], [], [], []
    try:
        folds = membership_folds(raw, rng=_named_stream(attack_rng, "membership-folds"),
                                 n_folds=cfg.membership_folds, probe_fraction=cfg.probe_fraction,
                                 probes=cfg.membership_probes)
        for k, fold in enumerate(folds):
            try:
                prot = _protect_cell(cell, ctx, fold.fit,
                                     _named_stream(protect_rng, f"membership-fold-{k}"),
                                     fold_notes, events=False)
            except ReleaseRefusedError as exc:  # this fold only; the verdicts pool the others
                refused.append({"fold": k, "reason": f"pooled-game fold {k} (its smaller "
                                f"training part) was refused: {_one_line(exc)}"})
                notes.append(f"pooled membership/attribute folds: fold {k} refused and left "
                             f"out: {_one_line(exc)}")
                continue
            release = fold.fit if prot.dataset is None else prot.dataset
            if "membership" in kinds:
                parts.append(fold_scores(fold, release, fold=k, window_s=cfg.window_s))
            for name, values in attrs.items():
                try:
                    guesses.append(fold_attribute_guesses(
                        fold, release, values, attribute=name, fold=k, window_s=cfg.window_s,
                        rng=_named_stream(attack_rng, f"attribute-fold-{k}-{name}")))
                except InvalidDataError as exc:
                    notes.append(f"pooled {name} attribute folds: fold {k} skipped: {exc}")
    except InvalidDataError as exc:  # e.g. too few participants for the folds
        notes.append(f"pooled membership folds skipped: {exc}")
        return refused
    for folder, tables in (("membership", parts), ("attribute", guesses)):
        if tables:
            _write_folds(cell, ctx, folder, pl.concat(tables))
    return refused


def _write_folds(cell: Cell, ctx: _Context, folder: str, table: pl.DataFrame) -> None:
    """``<folder>/<cell>.parquet``: a cell's per-fold rows with its dataset, release and seed."""
    table = table.with_columns(
        pl.lit(cell.dataset).alias("dataset"), pl.lit(cell.label).alias("mechanism"),
        pl.lit(cell.parameters_json).alias("parameters"), pl.lit(cell.seed).alias("seed"))
    where = Path(ctx.out_dir) / folder
    where.mkdir(parents=True, exist_ok=True)
    _atomic(where / f"{cell.key}.parquet", lambda p: table.write_parquet(p))


_FRONTIER_MEMO: dict[tuple[Any, ...], dict[str, Any]] = {}


def _participant_bound(guarantee: Mapping[str, Any] | None) -> dict[str, float]:
    """The per-participant (epsilon, delta) of a guarantee record as result metrics (empty
    when the record states none)."""
    if not guarantee:
        return {}
    g = Guarantee.from_dict(guarantee)
    eps = g.epsilon if g.unit is Unit.PARTICIPANT else g.max_participant_epsilon
    delta = g.delta if g.unit is Unit.PARTICIPANT else g.max_participant_delta
    if eps is None or g.kind is Kind.NONE:
        return {}
    return {"participant_epsilon": float(eps),
            "participant_delta": float(delta) if delta is not None else 0.0}


def _protect_cell(cell: Cell, ctx: _Context, raw: Dataset, protect_rng: np.random.Generator,
                  notes: list[str], *, events: bool = True) -> _Protected:
    """Apply the cell's mechanism: in memory, or partition by partition when streamed; the
    release's event features when an evaluation needs them (and ``events``)."""
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
    raw, params = _input_and_params(spec, cell, raw)
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
    if prot is not None and events and _needs_events(ctx.config):
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
        A cell that raised does not stop the others: it is in ``failures`` (and
        ``failures.json``), not in the results, and a rerun computes it again; call
        :meth:`ExperimentResult.raise_failures` to stop on it. A refused release is a cell's
        outcome, in ``refusals``.
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
    ctx = _Context(config=config, out_dir=str(out), datasets=loaded, raw_features=raw_paths,
                   registry=registry, featurizer=featurizer, streamed=streamed,
                   fingerprints=fingerprints)
    todo = [c for c in cells if not _done(out, c, fingerprints[c.dataset])]
    n_workers = workers if workers is not None else config.workers
    execute(todo, ctx, n_workers, progress, run=_run_cell)
    failures = read_failures(out, cells)
    done = [c for c in cells if (out / "cells" / f"{c.key}.json").is_file()]
    results, guarantees, notes, refusals = gather(out, config, done, failures)
    return ExperimentResult(out_dir=out, results=results, guarantees=guarantees,
                            refusals=refusals, failures=failures,
                            n_cells=len(cells), n_run=len(todo),
                            n_skipped=len(cells) - len(todo),
                            seconds=time.perf_counter() - t0, notes=notes)
