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
* **Synthetic populations.** A mechanism whose entry has ``synthetic_population`` (new
  participants and recordings) is not paired with the input recording by recording: its
  recording-level attacks, utility tasks and fidelity metrics are noted as not applicable, and
  it faces membership inference on a held-out split instead, the raw cell giving the reference
  (:mod:`gazeprivacy.experiments.engine.population`).
* **Randomness.** Per seed ``s`` the base ``SeedSequence(s)`` gives the attacks spawn key
  ``(0,)`` (shared by every cell of that seed, so raw and protected data meet the same splits)
  and each release a protection stream keyed by the SHA-256 of its identity (dataset,
  mechanism, preset, parameter point:
  :func:`~gazeprivacy.experiments.engine.cells.release_identity`), never by its position in
  the config. A cell's streams therefore do not
  depend on what else the config runs, the order, the process or the worker count: serial and
  parallel runs give the same table, and adding a release changes no other release's draw.
* **Caching.** Event features of each raw dataset are computed once (in the parent, before the
  pool starts) into ``OUT/cache/``, named after the data's content fingerprint
  (:func:`~gazeprivacy.experiments.featurize.dataset_fingerprint`) and the featurizer, so
  changed data of the same shape is featurized again; those of each protected release are
  computed once, inside its cell.
* **Resumable.** A finished cell leaves ``OUT/cells/<key>.parquet`` (its rows), ``<key>.npz``
  (a preview for the report) and ``<key>.json`` (meta, guarantee and the data's fingerprint,
  written last, with the stream scheme and the release's identity); a rerun skips cells whose
  three files exist, unless the meta's stream scheme, release identity or dataset content
  fingerprint differs from the cell's (then the cell runs again, said on stderr).
* **Failed cells.** A cell that raises (anything but a refusal, which is its outcome) is written
  as failed and the grid goes on; the results leave it out, ``failures.json`` and the report
  list it, and a rerun computes it again (:mod:`gazeprivacy.experiments.engine.failures`).
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

from gazeprivacy.experiments.engine.cells import RESULT_SCHEMA, Cell, expand_cells
from gazeprivacy.experiments.engine.cells import Featurizer as Featurizer
from gazeprivacy.experiments.engine.runner import ExperimentResult, run_experiment
from gazeprivacy.experiments.engine.views import _preview as _preview

__all__ = ["RESULT_SCHEMA", "Cell", "ExperimentResult", "expand_cells", "run_experiment"]
