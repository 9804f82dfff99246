# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The grid's cells: what a cell is, the config's cells in order, a cell's random streams, the
context a worker gets, and the helpers every part of a cell's run shares (result rows, labels,
atomic writes).

A cell's streams (:func:`_streams`) are children of ``SeedSequence(seed)`` reached by spawn
key, never by the cell's position in the config: the attack stream is spawn key ``(0,)``
(shared by every cell of the seed), the protection stream is ``(1, w0, w1, w2, w3)``, the
first four 32-bit big-endian words of the SHA-256 of the release's identity
(:func:`release_identity`). So a release's draw is the same whatever else the config runs.
A finished cell's meta records this scheme (:data:`STREAMS`) and its release identity; a cell
found in an output folder with another scheme or identity is computed again.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy.data.partitioned import PartitionedDataset
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.experiments.config import (
    AttackConfig,
    ExperimentConfig,
    UtilityConfig,
    canonical_json,
    identity_json,
)

__all__ = ["RESULT_SCHEMA", "STREAMS", "Cell", "Featurizer", "expand_cells", "release_identity"]

RESULT_SCHEMA = {
    "dataset": pl.String, "mechanism": pl.String, "mode": pl.String, "parameters": pl.String,
    "epsilon": pl.Float64, "seed": pl.Int64, "kind": pl.String, "evaluation": pl.String,
    "metric": pl.String, "value": pl.Float64, "beats_baselines": pl.Boolean,
}

Featurizer = Callable[[Dataset], pl.DataFrame]

#: The random-stream scheme of a cell's draws (module docstring), recorded in each finished
#: cell's meta: cells drawn by another scheme (such as by their position in the config, before
#: this one; their meta has none) are never reused.
STREAMS = "release-identity-v1"


@dataclass(frozen=True)
class Cell:
    """One unit of work. ``combo`` is the cell's position among the config's (dataset,
    mechanism, point) within a seed: the run's order only, no part of any random stream."""

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
        """Stable id of the cell (dataset, mechanism label, parameters, seed): its files' name.
        Not the release's identity (no mechanism, no preset): the runner reuses a finished cell
        only when its meta's release identity is the cell's too."""
        text = json.dumps([self.dataset, self.label, self.parameters_json, self.seed])
        return hashlib.sha1(text.encode()).hexdigest()[:16]

    @property
    def epsilon(self) -> float | None:
        v = self.parameters.get("epsilon", self.parameters.get("epsilon_per_participant"))
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


def release_identity(cell: Cell) -> str:
    """The canonical text of the release a cell evaluates: its dataset's name, the mechanism's
    registry name, the preset and the parameter point (with the grid's ``fixed`` values), as
    :func:`~gazeprivacy.experiments.config.identity_json` (sorted keys, no spaces, numbers as
    floats). The label is a display name and not part of it; nor are the seed and the cell's
    position in the config.

    >>> c = Cell(dataset="d", mechanism="m", label="shown", parameters={"epsilon": 3},
    ...          preset="paper", seed=0, combo=5)
    >>> release_identity(c)
    '{"dataset":"d","mechanism":"m","parameters":{"epsilon":3.0},"preset":"paper"}'
    """
    return identity_json({"dataset": cell.dataset, "mechanism": cell.mechanism,
                          "preset": cell.preset, "parameters": dict(cell.parameters)})


def _release_key(cell: Cell) -> tuple[int, ...]:
    """``(1, w0, w1, w2, w3)``: the protection stream's spawn key (module docstring)."""
    digest = hashlib.sha256(release_identity(cell).encode()).digest()
    return (1, *(int.from_bytes(digest[i:i + 4], "big") for i in range(0, 16, 4)))


def _streams(cell: Cell) -> tuple[np.random.Generator, np.random.Generator]:
    """(attack rng, protection rng) of a cell: children of ``SeedSequence(seed)`` with spawn
    keys ``(0,)`` (every cell of the seed) and :func:`_release_key` (the release's own)."""
    return (np.random.default_rng(np.random.SeedSequence(cell.seed, spawn_key=(0,))),
            np.random.default_rng(np.random.SeedSequence(cell.seed,
                                                         spawn_key=_release_key(cell))))


@dataclass(frozen=True)
class _Context:
    """What a worker needs besides its cell (picklable)."""

    config: ExperimentConfig
    out_dir: str
    datasets: Mapping[str, Dataset]
    raw_features: Mapping[str, str]  # dataset -> cached parquet path
    registry: Mapping[str, Any]
    featurizer: Featurizer | None
    streamed: Mapping[str, PartitionedDataset] = field(default_factory=dict)  # partitioned
    fingerprints: Mapping[str, str] = field(default_factory=dict)  # dataset -> content digest


#: A participant-synth ``tracker`` under an evaluation: the mechanism's input loses its first
#: participant (by id), whose tracker is declared instead (:func:`_input_and_params`), the
#: evaluation's stand-in for an experimenter's pilot recording (docs/results/frontier.md);
#: ``"pilots:K"``: its first K participants, a declared population of K trackers.
PILOT = "pilot"


def pilot_count(tracker: Any) -> int | None:
    """K of an evaluation's ``tracker = "pilot"`` (1) or ``"pilots:K"``; None for any other
    value (a tracker given as such).

    >>> pilot_count("pilot"), pilot_count("pilots:3"), pilot_count(None)
    (1, 3, None)
    >>> pilot_count("pilots:0")
    Traceback (most recent call last):
    ...
    gazeprivacy.exceptions.InvalidParameterError: tracker = "pilots:K" needs a whole K >= 1, ...
    """
    if tracker == PILOT:
        return 1
    if not (isinstance(tracker, str) and tracker.startswith(PILOT + "s:")):
        return None
    k = tracker.removeprefix(PILOT + "s:")
    if not (k.isdigit() and int(k) >= 1):
        raise InvalidParameterError(f'tracker = "pilots:K" needs a whole K >= 1, got '
                                    f"{tracker!r}")
    return int(k)


def _build_params(spec: Any, cell: Cell) -> Any:
    """The cell's parameters (a ``tracker = "pilot"`` or ``"pilots:K"`` as no tracker: for
    checks and plans)."""
    point = dict(cell.parameters)
    if pilot_count(point.get("tracker")) is not None:
        point["tracker"] = None
    paper = getattr(spec.params_type, "paper", None)  # a preset is optional in the contract
    if cell.preset == "paper" and paper is not None:
        return paper(**point)
    return spec.params_type(**point)


def _input_and_params(spec: Any, cell: Cell, data: Dataset) -> tuple[Dataset, Any]:
    """The mechanism's input and parameters on ``data``: as given, or with ``tracker =
    "pilot"`` (``"pilots:K"``) without the pilot (the K pilots), whose tracker is declared
    (:func:`~gazeprivacy.experiments.frontier.pilot_tracker`)."""
    params = _build_params(spec, cell)
    k = pilot_count(cell.parameters.get("tracker"))
    if k is None:
        return data, params
    from gazeprivacy.experiments.frontier import pilot_tracker

    data, tracker = pilot_tracker(data, k)
    return data, replace(params, tracker=tracker)


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


def _needs_events(cfg: ExperimentConfig) -> bool:
    """Whether any evaluation of ``cfg`` reads I-VT event features (the learned ones and the
    frontier protocol do not)."""
    if cfg.frontier is not None:
        return False
    return (any(a.kind != "linkage" for a in cfg.attacks)
            or any(not u.learned for u in cfg.utility))


def _named_stream(rng: np.random.Generator, name: str) -> np.random.Generator:
    """The child of ``rng``'s seed sequence keyed by ``name`` (the first 32 bits of its SHA-1
    appended to the spawn key): the same whatever else the run draws from ``rng``."""
    seq = rng.bit_generator.seed_seq
    word = int(hashlib.sha1(name.encode()).hexdigest()[:8], 16)
    return np.random.default_rng(np.random.SeedSequence(seq.entropy,
                                                        spawn_key=(*seq.spawn_key, word)))


def _attack_stream(attack_rng: np.random.Generator, a: AttackConfig) -> np.random.Generator:
    # Per attack, keyed by the attack's id: adding an attack does not change the others' splits.
    return _named_stream(attack_rng, a.id)


def _utility_stream(attack_rng: np.random.Generator, u: UtilityConfig) -> np.random.Generator:
    return _named_stream(attack_rng, "utility:" + u.id)


def _one_line(exc: BaseException) -> str:
    """The first line of an error's message (its type's name when it has none)."""
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _atomic(path: Path, write: Callable[[str], Any], suffix: str = "") -> None:
    tmp = path.with_name(path.name + ".tmp" + suffix)
    write(str(tmp))
    os.replace(tmp, path)
