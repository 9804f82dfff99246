# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Experiment configuration: a TOML file -> frozen, validated dataclasses.

A config names datasets, mechanisms with parameter grids, seeds, attacks, utility tasks and
fidelity metrics. Every error names the key (``mechanisms[1].grid.epsilon``), the rule, the
value and the way out. Example (see ``configs/doves-sample.toml``)::

    name = "doves-sample"
    seeds = [0, 1]

    [[datasets]]
    name = "doves-sample"
    source = "sample"            # sample | simulate | file | loader
    group_label = "stimulus"     # attack splits by this label; "" splits per participant

    [[mechanisms]]
    name = "dpgazesynth"
    preset = "paper"             # params_type.paper(**point); "params": params_type(**point)
    grid = { epsilon = [1, 2, 3] }

    [[attacks]]
    kind = "reidentification"    # or "attribute"
    classifier = "rbfn"
    threat = "seed000"

    [[utility]]
    kind = "task"
    label = "task"

    [[utility]]                  # learned models (seed 001): train on protected, test on raw
    kind = "gaze-prediction"     # or "activity-sequence" (with label = "activity")
    threat = "seed001"

    fidelity = ["rmse", "density_error"]
    baselines = true             # or a list: baseline-centre, baseline-centre-gaussian, ...
    release_view = { sealed = true, length_s = 5.0 }  # attacks see the release as written

    [realism]                    # or realism = true (all views, label "task")
    labels = ["task", "stimulus"]  # TSTR per label with >= 2 classes (others: a note)

    [frontier]                   # fit on training participants, score on held-out ones
    holdout_fraction = 0.3       # (experiments.frontier); attacks "membership", "attribute"
    labels = ["activity"]
"""

from __future__ import annotations

import itertools
import json
import numbers
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.experiments.baselines import (
    BASELINE_PREFIX,
    BASELINES,
    DEFAULT_BASELINES,
    is_baseline,
)
from gazeprivacy.experiments.config_measures import (
    ATTACK_KINDS,
    LEARNED_UTILITY_KINDS,
    REALISM_VIEWS,
    UTILITY_KINDS,
    AttackConfig,
    ConfigError,
    FrontierConfig,
    RealismConfig,
    UtilityConfig,
    _check_keys,
    _frontier,
    _realism,
)
from gazeprivacy.experiments.release_view import ReleaseView
from gazeprivacy.mechanisms.contract import Level

__all__ = [
    "ATTACK_KINDS",
    "FIDELITY_METRICS",
    "LEARNED_UTILITY_KINDS",
    "REALISM_VIEWS",
    "UTILITY_KINDS",
    "AttackConfig",
    "ConfigError",
    "DatasetConfig",
    "ExperimentConfig",
    "FrontierConfig",
    "MechanismConfig",
    "RealismConfig",
    "UtilityConfig",
    "canonical_json",
    "identity_json",
    "load_config",
    "parse_config",
]

FIDELITY_METRICS = ("rmse", "rss_distance", "density_error", "suppressed_fraction")
_SOURCES = ("sample", "simulate", "file", "loader", "injected")


@dataclass(frozen=True, kw_only=True)
class DatasetConfig:
    """Where a dataset comes from and how attacks split it.

    ``source``: ``sample`` (the bundled DOVES sample), ``simulate`` (the simulator, ``options``
    are its keyword arguments, ``options.seed`` its seed), ``file`` (a long-format file at
    ``path``), ``loader`` (``LOADERS[loader](path, **options)``) or ``injected`` (passed to the
    runner in code).
    """

    name: str
    source: str
    path: str | None = None
    loader: str | None = None
    group_label: str | None = "stimulus"
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.name:
            raise ConfigError("datasets[].name must be a non-empty string")
        if self.group_label == "":  # TOML has no null: "" means "split per participant"
            object.__setattr__(self, "group_label", None)
        if self.source not in _SOURCES:
            raise ConfigError(f"datasets[{self.name!r}].source must be one of {_SOURCES}, got "
                              f"{self.source!r}")
        if self.source == "file" and not self.path:
            raise ConfigError(f"datasets[{self.name!r}] with source='file' needs path")
        if self.source == "loader" and not self.loader:
            raise ConfigError(f"datasets[{self.name!r}] with source='loader' needs loader "
                              "(a LOADERS name)")


@dataclass(frozen=True, kw_only=True)
class MechanismConfig:
    """A mechanism (a ``MECHANISMS`` name) and its parameter grid.

    ``grid`` maps a parameter to the list of its values (the grid is their product); ``fixed``
    holds parameters common to every point; ``preset="paper"`` builds the parameters with
    ``params_type.paper(**point)`` (the paper's values; presets set values only, so add
    ``mode = "paper"`` to ``fixed`` for the paper's mode), ``preset="params"`` with
    ``params_type(**point)``.
    """

    name: str
    grid: Mapping[str, tuple[Any, ...]]
    fixed: Mapping[str, Any] = field(default_factory=dict)
    preset: str = "paper"
    label: str | None = None

    def __post_init__(self) -> None:
        if self.preset not in ("paper", "params"):
            raise ConfigError(f"mechanisms[{self.name!r}].preset must be 'paper' or 'params', "
                              f"got {self.preset!r}")
        for k, v in self.grid.items():
            if not isinstance(v, tuple) or not v:
                raise ConfigError(f"mechanisms[{self.name!r}].grid.{k} must be a non-empty list "
                                  f"of values, got {v!r}")
            if len({identity_json(x) for x in v}) != len(v):  # 3 and 3.0 are the same value
                raise ConfigError(f"mechanisms[{self.name!r}].grid.{k} lists a value twice, got "
                                  f"{list(v)!r}: a release is run once; delete the repeat")
        both = sorted(set(self.grid) & set(self.fixed))
        if both:
            raise ConfigError(f"mechanisms[{self.name!r}]: {both} appear in both grid and fixed")

    def points(self) -> list[dict[str, Any]]:
        """The grid's points (each merged with ``fixed``), in a stable order."""
        keys = list(self.grid)
        return [{**self.fixed, **dict(zip(keys, combo, strict=True))}
                for combo in itertools.product(*(self.grid[k] for k in keys))]


@dataclass(frozen=True, kw_only=True)
class ExperimentConfig:
    """A whole experiment: the grid datasets x mechanisms x parameter points x seeds.

    ``baselines`` names data-free reference releases
    (:data:`~gazeprivacy.experiments.baselines.BASELINES`) run beside the mechanisms on every
    dataset and seed; every evaluation runs on them, and utility / fidelity metrics of the
    mechanisms are compared with the best of them (``beats_baselines`` in the results).
    ``realism`` (:class:`RealismConfig`, optional) compares every release with the raw data.
    ``frontier`` (:class:`FrontierConfig`, optional) replaces the evaluations by the held-out
    protocol of :mod:`gazeprivacy.experiments.frontier`.
    """

    name: str
    seeds: tuple[int, ...]
    datasets: tuple[DatasetConfig, ...]
    mechanisms: tuple[MechanismConfig, ...] = ()
    attacks: tuple[AttackConfig, ...] = ()
    utility: tuple[UtilityConfig, ...] = ()
    fidelity: tuple[str, ...] = ()
    workers: int = 2
    include_raw: bool = True
    baselines: tuple[str, ...] = ()
    realism: RealismConfig | None = None
    release_view: ReleaseView | None = None  # what the attacks see (experiments.release_view)
    frontier: FrontierConfig | None = None  # the held-out protocol (experiments.frontier)

    def __post_init__(self) -> None:
        if not self.seeds or not all(isinstance(s, int) and s >= 0 for s in self.seeds):
            raise ConfigError(f"seeds must be a non-empty list of integers >= 0, got "
                              f"{list(self.seeds)!r}")
        if len(set(self.seeds)) != len(self.seeds):
            raise ConfigError(f"seeds must be distinct, got {list(self.seeds)!r}")
        if not self.datasets:
            raise ConfigError("the config needs at least one [[datasets]] entry")
        names = [d.name for d in self.datasets]
        if len(set(names)) != len(names):
            raise ConfigError(f"dataset names must be distinct, got {names}")
        for m in self.fidelity:
            if m not in FIDELITY_METRICS:
                raise ConfigError(f"fidelity metric {m!r} is unknown; choose from "
                                  f"{', '.join(FIDELITY_METRICS)}")
        if not (isinstance(self.workers, int) and self.workers >= 1):
            raise ConfigError(f"workers must be an integer >= 1, got {self.workers!r}")
        for b in self.baselines:
            if b not in BASELINES:
                raise ConfigError(f"baselines: {b!r} is not a data-free baseline; choose from "
                                  f"{', '.join(BASELINES)}")
        if len(set(self.baselines)) != len(self.baselines):
            raise ConfigError(f"baselines must be distinct, got {list(self.baselines)!r}")
        labels = [m.label or m.name for m in self.mechanisms]
        if len(set(labels)) != len(labels):
            raise ConfigError(f"two [[mechanisms]] entries share the name {labels}; give one a "
                              "distinct label")
        if self.frontier is None and any(a.kind == "membership" for a in self.attacks):
            raise ConfigError("attacks[] of kind 'membership' need a [frontier] table (it holds "
                              "participants out of the input: the non-members)")
        clash = sorted(n for n in labels if is_baseline(n))
        if clash:
            raise ConfigError(f"mechanism name(s) {clash} start with {BASELINE_PREFIX!r}, which "
                              "is reserved for the data-free baselines; give a label")

    def check_mechanisms(self, registry: Mapping[str, Any]) -> None:
        """Every mechanism name is a registered sample-level mechanism (the error lists them).

        Heatmap- and series-level mechanisms release other objects than gaze samples; they run
        through their own experiments (``gazeprivacy reproduce seed002 | seed003 | seed004``).
        """
        samples = sorted(n for n, spec in registry.items()
                         if Level(getattr(spec, "level", Level.SAMPLES)).takes_samples)
        for m in self.mechanisms:
            if m.name not in samples:
                what = ("is not a registered mechanism" if m.name not in registry else
                        f"is a {registry[m.name].level}-level mechanism; the runner protects "
                        "gaze samples (heatmap and series mechanisms run in `gazeprivacy "
                        "reproduce`)")
                raise ConfigError(f"mechanisms[].name {m.name!r} {what}; choose one of: "
                                  f"{', '.join(samples) or '(none yet)'}")


def _tuple_grid(section: str, grid: Any) -> dict[str, tuple[Any, ...]]:
    if not isinstance(grid, Mapping):
        raise ConfigError(f"{section}.grid must be a table of lists, got {grid!r}")
    out = {}
    for k, v in grid.items():
        if not isinstance(v, list) or not v:
            raise ConfigError(f"{section}.grid.{k} must be a non-empty list of values, got {v!r}")
        out[k] = tuple(v)
    return out


def parse_config(data: Mapping[str, Any]) -> ExperimentConfig:
    """Validate a config already parsed from TOML (or built in code) into an ExperimentConfig.

    Examples
    --------
    >>> cfg = parse_config({"name": "x", "seeds": [0],
    ...                     "datasets": [{"name": "d", "source": "sample"}],
    ...                     "mechanisms": [{"name": "m", "grid": {"epsilon": [1, 2]}}]})
    >>> cfg.mechanisms[0].points()
    [{'epsilon': 1}, {'epsilon': 2}]
    >>> parse_config({"name": "x", "seeds": [0], "datasets": [], "colour": 1})
    Traceback (most recent call last):
    ...
    gazeprivacy.experiments.config.ConfigError: unknown key(s) ['colour'] in the config; ...
    """
    top = {"name", "seeds", "datasets", "mechanisms", "attacks", "utility", "fidelity",
           "workers", "include_raw", "baselines", "realism", "release_view", "frontier"}
    _check_keys("the config", data, top, {"name", "seeds", "datasets"})
    try:
        datasets = []
        for i, d in enumerate(data["datasets"]):
            if isinstance(d, Mapping) and "task_label" in d:
                raise ConfigError(
                    f"datasets[{i}].task_label was removed (nothing read it): the label a "
                    "utility task classifies is utility[].label; delete the key")
            _check_keys(f"datasets[{i}]", d, {"name", "source", "path", "loader", "group_label",
                                              "options"}, {"name", "source"})
            datasets.append(DatasetConfig(**d))
        mechanisms = []
        for i, m in enumerate(data.get("mechanisms", [])):
            sec = f"mechanisms[{i}]"
            _check_keys(sec, m, {"name", "grid", "fixed", "preset", "label"}, {"name", "grid"})
            mechanisms.append(MechanismConfig(**{**m, "grid": _tuple_grid(sec, m["grid"]),
                                                 "fixed": dict(m.get("fixed", {}))}))
        attacks = []
        for i, a in enumerate(data.get("attacks", [])):
            _check_keys(f"attacks[{i}]", a, {"kind", "classifier", "threat", "n_splits",
                                             "test_fraction", "attribute", "quasi_identifiers",
                                             "k", "window_s", "segment_s", "epochs",
                                             "max_windows", "time_budget_s"}, {"kind"})
            attacks.append(AttackConfig(**{**a, "quasi_identifiers": tuple(
                a.get("quasi_identifiers", ()))}))
        utility = []
        for i, u in enumerate(data.get("utility", [])):
            _check_keys(f"utility[{i}]", u, {"kind", "label", "direction", "n_splits",
                                             "test_fraction", "n_trees", "threat", "channels",
                                             "epochs", "window_s", "stride_s", "history_s",
                                             "horizon_s", "max_train_windows"})
            utility.append(UtilityConfig(**u))
        seeds = data["seeds"]
        if not isinstance(seeds, list):
            raise ConfigError(f"seeds must be a list of integers, got {seeds!r}")
        return ExperimentConfig(
            name=str(data["name"]), seeds=tuple(seeds), datasets=tuple(datasets),
            mechanisms=tuple(mechanisms), attacks=tuple(attacks), utility=tuple(utility),
            fidelity=tuple(data.get("fidelity", ())), workers=data.get("workers", 2),
            include_raw=bool(data.get("include_raw", True)),
            baselines=_baselines(data.get("baselines", ())),
            realism=_realism(data.get("realism")),
            release_view=_release_view(data.get("release_view")),
            frontier=_frontier(data.get("frontier")))
    except TypeError as exc:  # a wrongly typed value reaching a dataclass
        raise ConfigError(f"invalid config: {exc}") from None


def _release_view(value: Any) -> ReleaseView | None:
    """``release_view``: absent (attacks see the in-memory release) or a table
    (:class:`~gazeprivacy.experiments.release_view.ReleaseView`)."""
    if value is None:
        return None
    _check_keys("release_view", value, {"sealed", "length_s"})
    try:
        return ReleaseView(**value)
    except InvalidParameterError as exc:
        raise ConfigError(str(exc)) from None


def _baselines(value: Any) -> tuple[str, ...]:
    """``baselines``: a list of :data:`~gazeprivacy.experiments.baselines.BASELINES` names, or
    ``true`` for :data:`~gazeprivacy.experiments.baselines.DEFAULT_BASELINES`."""
    if value is True:
        return DEFAULT_BASELINES
    if value is False:
        return ()
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"baselines must be a list of names ({', '.join(BASELINES)}) or true, "
                          f"got {value!r}")
    return tuple(value)


def load_config(path: str | Path) -> ExperimentConfig:
    """Read and validate a TOML experiment config.

    Raises
    ------
    ConfigError
        The file is missing, is not valid TOML, or breaks a rule (the message names the key).
    """
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} does not exist")
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {str(path)!r} is not valid TOML: {exc}") from None
    return parse_config(data)


def canonical_json(d: Mapping[str, Any]) -> str:
    """Stable JSON of a parameter mapping (sorted keys), used in result tables and cell keys."""
    return json.dumps(dict(d), sort_keys=True, default=str)


def identity_json(value: Any) -> str:
    """Canonical JSON of ``value`` as a release's identity reads it (the key of its protection
    stream, :func:`gazeprivacy.experiments.engine.cells.release_identity`): keys sorted, no
    spaces, every number (Python's or NumPy's) a float (``3``, ``3.0`` and ``np.int64(3)`` are
    the same point; ``-0.0`` is ``0.0``), except an integer no float holds exactly, written
    exactly (``2**53 + 1`` is not ``2**53``); NumPy scalars and arrays as their Python values.

    >>> identity_json({"k": 4, "epsilon": 3.0, "public": ["stimulus"], "clip": True})
    '{"clip":true,"epsilon":3.0,"k":4.0,"public":["stimulus"]}'
    >>> identity_json([np.int64(3), -0.0, np.True_, 2**53 + 1])
    '[3.0,0.0,true,9007199254740993]'
    """
    return json.dumps(_numbers(value), sort_keys=True, separators=(",", ":"), default=str)


def _numbers(v: Any) -> Any:
    """``v`` with NumPy values as Python ones and numbers normalised (:func:`identity_json`)."""
    if isinstance(v, np.generic | np.ndarray):
        v = v.tolist()  # Python scalars (np.bool_ -> bool, np.int64 -> int) or nested lists
    if isinstance(v, Mapping):
        return {str(k): _numbers(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_numbers(x) for x in v]
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        return v
    if isinstance(v, numbers.Integral):
        try:
            f = float(v)
        except OverflowError:  # beyond the largest float
            return int(v)
        return f if int(f) == v else int(v)  # exact where no float holds it
    return float(v) + 0.0  # -0.0 + 0.0 is 0.0
