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

from gazeprivacy.attacks.classifiers import CLASSIFIERS
from gazeprivacy.attacks.threat import THREAT_MODELS
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.experiments.baselines import (
    BASELINE_PREFIX,
    BASELINES,
    DEFAULT_BASELINES,
    is_baseline,
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


class ConfigError(InvalidParameterError):
    """A configuration file breaks a rule; the message names the key."""


def _check_keys(section: str, d: Mapping[str, Any], allowed: set[str],
                required: set[str] = frozenset()) -> None:
    if not isinstance(d, Mapping):
        raise ConfigError(f"{section} must be a table, got {d!r}")
    unknown = sorted(set(d) - allowed)
    if unknown:
        raise ConfigError(f"unknown key(s) {unknown} in {section}; valid keys: "
                          f"{', '.join(sorted(allowed))}")
    missing = sorted(required - set(d))
    if missing:
        raise ConfigError(f"{section} needs key(s) {missing}")


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


ATTACK_KINDS = ("reidentification", "aware-rf", "deep", "attribute", "linkage", "membership")


@dataclass(frozen=True, kw_only=True)
class AttackConfig:
    """One attack: ``reidentification`` (George & Routray), ``aware-rf`` (the mechanism-aware
    re-identification attacker, :mod:`gazeprivacy.attacks.aware`), ``attribute`` inference, or
    the demographic ``linkage`` attack of seed 001 section 3, or ``membership`` inference
    (:mod:`gazeprivacy.attacks.membership`; only under ``[frontier]``, which holds participants
    out). Under ``[frontier]``, ``attribute`` is the release-trained attacker of
    :mod:`gazeprivacy.attacks.release_attribute` (the other kinds are skipped there).

    ``threat`` defaults to ``seed000`` (train raw, test protected) for re-identification and
    attribute inference, to ``seed004`` (train and test on the release: the attacker holds it)
    for ``aware-rf`` and to ``seed001`` (train on the release, probe with raw data) for
    linkage. ``aware-rf`` always uses a random forest (``classifier`` is ignored and recorded as
    ``rf``); ``segment_s`` cuts its recordings into segments (default: whole recordings, or 10 s
    segments when some participant has a single recording).

    ``deep`` is the EKYT-style DenseNet attacker (:mod:`gazeprivacy.attacks.deep`), with the
    same default threat and units as ``aware-rf`` (``seed000`` gives its raw-trained mode;
    ``classifier`` is ignored); its budget: ``window_s`` (default 2 s), ``epochs``
    (default 30), ``max_windows`` (training windows per split, default all) and
    ``time_budget_s`` (per split; makes results machine-dependent). Training is its cost, so
    give it fewer ``n_splits`` than the other attacks.

    Linkage: ``quasi_identifiers`` (recording labels, constant per participant, e.g.
    ``["gender"]``) are made ``k``-anonymous by generalisation; the gaze biometric (random forest
    on ``window_s`` windows) then re-identifies within the candidate class. The threat model's
    train side is the attacker's gallery, its test side the probes (split by recording).
    """

    kind: str
    classifier: str = "rbfn"
    threat: str | None = None
    n_splits: int = 20
    test_fraction: float = 0.25
    attribute: str | None = None
    quasi_identifiers: tuple[str, ...] = ()
    k: int | None = None
    window_s: float | None = None  # linkage: 10 s, deep: 2 s
    segment_s: float | None = None
    epochs: int = 30
    max_windows: int | None = None
    time_budget_s: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in ATTACK_KINDS:
            raise ConfigError(f"attacks[].kind must be one of {ATTACK_KINDS}, got "
                              f"{self.kind!r}")
        if self.threat is None:  # seed 001's linkage attacker holds the release (section 3)
            default = {"linkage": "seed001", "aware-rf": "seed004",
                       "deep": "seed004"}.get(self.kind, "seed000")
            object.__setattr__(self, "threat", default)
        if self.kind == "aware-rf":
            object.__setattr__(self, "classifier", "rf")
        if self.window_s is None:
            object.__setattr__(self, "window_s", 2.0 if self.kind == "deep" else 10.0)
        if self.kind == "deep":
            self._check_deep()
        if self.segment_s is not None and not (
                isinstance(self.segment_s, int | float) and self.segment_s > 0):
            raise ConfigError(f"attacks[].segment_s must be > 0 seconds, got {self.segment_s!r}")
        if self.kind == "linkage":
            if not (isinstance(self.k, int) and self.k >= 1):
                raise ConfigError(f"attacks[] of kind 'linkage' needs k (an integer >= 1: the "
                                  f"k-anonymity of the released quasi-identifiers), got "
                                  f"{self.k!r}")
            if not self.quasi_identifiers:
                raise ConfigError("attacks[] of kind 'linkage' needs quasi_identifiers (a list "
                                  "of recording labels, e.g. ['gender'])")
            if not self.window_s > 0:
                raise ConfigError(f"attacks[].window_s must be > 0, got {self.window_s!r}")
        if self.classifier not in CLASSIFIERS:
            raise ConfigError(f"attacks[].classifier must be one of {sorted(CLASSIFIERS)}, got "
                              f"{self.classifier!r}")
        if self.threat not in THREAT_MODELS:
            raise ConfigError(f"attacks[].threat must be one of {sorted(THREAT_MODELS)}, got "
                              f"{self.threat!r}")
        if not (isinstance(self.n_splits, int) and self.n_splits >= 1):
            raise ConfigError(f"attacks[].n_splits must be an integer >= 1, got {self.n_splits!r}")
        if not (0 < self.test_fraction < 1):
            raise ConfigError(f"attacks[].test_fraction must be in (0, 1), got "
                              f"{self.test_fraction!r}")
        if self.kind == "attribute" and not self.attribute:
            raise ConfigError("attacks[] of kind 'attribute' needs attribute (a recording label, "
                              "e.g. 'gender')")

    def _check_deep(self) -> None:
        if not (isinstance(self.window_s, int | float) and self.window_s > 0):
            raise ConfigError(f"attacks[].window_s must be > 0 seconds, got {self.window_s!r}")
        if isinstance(self.epochs, bool) or not (isinstance(self.epochs, int)
                                                 and self.epochs >= 1):
            raise ConfigError(f"attacks[].epochs must be an integer >= 1, got {self.epochs!r}")
        if self.max_windows is not None and (isinstance(self.max_windows, bool) or not (
                isinstance(self.max_windows, int) and self.max_windows >= 2)):
            raise ConfigError(f"attacks[].max_windows must be an integer >= 2, got "
                              f"{self.max_windows!r}")
        if self.time_budget_s is not None and not (
                isinstance(self.time_budget_s, int | float) and self.time_budget_s > 0):
            raise ConfigError(f"attacks[].time_budget_s must be > 0 seconds, got "
                              f"{self.time_budget_s!r}")

    @property
    def id(self) -> str:
        if self.kind == "linkage":
            return f"linkage:{'+'.join(self.quasi_identifiers)}:k{self.k}:{self.threat}"
        if self.kind == "aware-rf":
            seg = "" if self.segment_s is None else f":seg{self.segment_s:g}s"
            return f"reid:aware-rf{seg}:{self.threat}"
        if self.kind == "deep":
            seg = "" if self.segment_s is None else f":seg{self.segment_s:g}s"
            return f"reid:deep{seg}:{self.threat}"
        if self.kind == "membership":
            return "membership:relative-distance"
        what = self.attribute if self.kind == "attribute" else "reid"
        return f"{what}:{self.classifier}:{self.threat}"


UTILITY_KINDS = ("task", "gaze-prediction", "activity-sequence")
LEARNED_UTILITY_KINDS = ("gaze-prediction", "activity-sequence")


@dataclass(frozen=True, kw_only=True)
class UtilityConfig:
    """One utility task.

    * ``task``: random forest on per-recording event aggregates (seed 000); ``direction`` says
      which side is protected; ``group_by`` the split unit (default ``participant``: no
      person's recordings on both sides, issue 15; ``recording`` is the old protocol).
    * ``gaze-prediction`` (seed 001, 4.5.3): a GRU predicts gaze ``horizon_s`` ahead from the
      past ``history_s``; metrics ``error_deg`` (mean angular error), ``baseline_error_deg``
      (constant position) and ``raw_error_deg`` (the same model trained on raw data).
    * ``activity-sequence`` (seed 001, 4.5.2): Conv1d + BiGRU on ``window_s`` windows
      classifies ``label``; metrics ``accuracy``, ``chance`` (majority share), ``uniform_chance``
      (1 / classes) and ``raw_accuracy``.

    Learned kinds hold out ``test_fraction`` of the participants in each of ``n_splits`` splits
    (default 1) and take the sides from ``threat`` (default ``seed001``: train on the protected
    release, test on raw data). ``channels = "auto"`` adds the head orientation channels
    (``head_yaw_deg``, ``head_pitch_deg``) where the data have them; ``[]`` uses gaze only.
    ``max_train_windows`` caps the training windows (a random subset) to bound compute.
    """

    kind: str = "task"
    label: str = "task"
    direction: str = "train-original"
    n_splits: int | None = None
    test_fraction: float = 0.3
    n_trees: int = 100
    threat: str = "seed001"
    channels: str | tuple[str, ...] = "auto"
    epochs: int | None = None
    window_s: float = 5.0
    stride_s: float | None = None
    history_s: float = 0.5
    horizon_s: float = 0.1
    max_train_windows: int | None = None
    group_by: str = "participant"

    def __post_init__(self) -> None:
        if self.kind not in UTILITY_KINDS:
            raise ConfigError(f"utility[].kind must be one of {UTILITY_KINDS}, got "
                              f"{self.kind!r}")
        if self.n_splits is None:
            object.__setattr__(self, "n_splits", 5 if self.kind == "task" else 1)
        if not (isinstance(self.n_trees, int) and self.n_trees >= 1):
            raise ConfigError(f"utility[].n_trees must be an integer >= 1, got {self.n_trees!r}")
        if self.group_by not in ("participant", "recording"):
            raise ConfigError(f"utility[].group_by must be 'participant' or 'recording', got "
                              f"{self.group_by!r}")
        if self.direction not in ("train-original", "train-protected"):
            raise ConfigError(f"utility[].direction must be 'train-original' or "
                              f"'train-protected', got {self.direction!r}")
        if not (isinstance(self.n_splits, int) and self.n_splits >= 1):
            raise ConfigError(f"utility[].n_splits must be an integer >= 1, got "
                              f"{self.n_splits!r}")
        if not (0 < self.test_fraction < 1):
            raise ConfigError(f"utility[].test_fraction must be in (0, 1), got "
                              f"{self.test_fraction!r}")
        if self.threat not in THREAT_MODELS:
            raise ConfigError(f"utility[].threat must be one of {sorted(THREAT_MODELS)}, got "
                              f"{self.threat!r}")
        if isinstance(self.channels, list):
            object.__setattr__(self, "channels", tuple(self.channels))
        if isinstance(self.channels, str) and self.channels != "auto":
            raise ConfigError(f"utility[].channels must be 'auto' or a list of channel names, "
                              f"got {self.channels!r}")
        if self.epochs is not None and not (isinstance(self.epochs, int) and self.epochs >= 1):
            raise ConfigError(f"utility[].epochs must be an integer >= 1, got {self.epochs!r}")
        for name in ("window_s", "history_s", "horizon_s"):
            v = getattr(self, name)
            if not (isinstance(v, int | float) and v > 0):
                raise ConfigError(f"utility[].{name} must be > 0 seconds, got {v!r}")
        if self.stride_s is not None and not self.stride_s > 0:
            raise ConfigError(f"utility[].stride_s must be > 0 seconds, got {self.stride_s!r}")
        if self.max_train_windows is not None and not (
                isinstance(self.max_train_windows, int) and self.max_train_windows >= 10):
            raise ConfigError(f"utility[].max_train_windows must be an integer >= 10, got "
                              f"{self.max_train_windows!r}")

    @property
    def learned(self) -> bool:
        """True for the PyTorch models of seed 001 (gaze prediction, activity sequence)."""
        return self.kind in LEARNED_UTILITY_KINDS

    @property
    def id(self) -> str:
        if self.kind == "gaze-prediction":
            return f"gaze-prediction:gru:{self.threat}"
        if self.kind == "activity-sequence":
            return f"{self.label}:seq:{self.threat}"
        return f"{self.label}:rf:{self.direction}"


REALISM_VIEWS = ("discriminator", "main-sequence", "events", "tstr")


@dataclass(frozen=True, kw_only=True)
class RealismConfig:
    """Realism of each release against the raw data (:mod:`gazeprivacy.metrics.realism`).

    ``views``: ``discriminator`` (AUC of release vs raw windows, participants held out; 0.5 =
    indistinguishable), ``main-sequence`` (amplitude vs peak velocity fits), ``events``
    (Wasserstein distances of fixation durations and saccade amplitudes) and ``tstr`` (train on
    the release, test on raw, for each of ``labels`` that has >= 2 classes; a utility row).
    ``window_s`` is the discriminator's and TSTR's window, ``n_splits`` their participant folds,
    ``n_trees`` the TSTR forest's size.
    """

    views: tuple[str, ...] = REALISM_VIEWS
    labels: tuple[str, ...] = ("task",)
    window_s: float = 1.0
    n_splits: int = 5
    n_trees: int = 50

    def __post_init__(self) -> None:
        for name in ("views", "labels"):
            v = getattr(self, name)
            if isinstance(v, list):
                object.__setattr__(self, name, v := tuple(v))
            if not isinstance(v, tuple) or not all(isinstance(x, str) for x in v):
                raise ConfigError(f"realism.{name} must be a list of strings, got {v!r}")
        bad = sorted(set(self.views) - set(REALISM_VIEWS))
        if bad or not self.views:
            raise ConfigError(f"realism.views must be a non-empty list of {REALISM_VIEWS}, got "
                              f"{list(self.views)!r}")
        if not (isinstance(self.window_s, int | float) and self.window_s > 0):
            raise ConfigError(f"realism.window_s must be > 0 seconds, got {self.window_s!r}")
        for name in ("n_splits", "n_trees"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 2:
                raise ConfigError(f"realism.{name} must be an integer >= 2, got {v!r}")


@dataclass(frozen=True, kw_only=True)
class FrontierConfig:
    """The frontier protocol (:mod:`gazeprivacy.experiments.frontier`): per seed, a random
    ``holdout_fraction`` of the participants is held out (never in a mechanism's input); of
    every participant a ``probe_fraction`` of the recordings (a participant with one recording:
    its last ``probe_fraction`` in time) is kept back as the membership and attribute attackers'
    probes (``probes = "segments"``: the last ``probe_fraction`` of every recording, a stronger
    attacker). ``max_duration_s`` first cuts every recording to its first seconds (a public
    choice that bounds the cost). Mechanisms and baselines are fitted on the rest of the
    training participants; everything is scored against the held-out participants' raw data:
    density error on the ``density_grid`` and ``coarse_grid`` grids (pooled and per value of
    each of ``labels``), train-on-release / test-on-raw accuracy per label (a ``n_trees`` forest
    on ``window_s`` windows), the discriminator (``discriminator_splits`` participant folds), W1
    of fixation durations and saccade amplitudes, and the ``[[attacks]]`` of kind ``membership``
    and ``attribute``. ``membership_folds`` (an integer >= 2, or absent) adds the pooled
    membership measurement of :mod:`gazeprivacy.experiments.frontier_membership`: the release
    regenerated on each of that many member / non-member folds of the seed, the attacker holding
    ``membership_probes`` (``"segments"`` or ``"recordings"``) of every candidate; the
    ``attribute`` attacks play on the same fold releases (pooled in ``attribute.json``).
    """

    holdout_fraction: float = 0.3
    probe_fraction: float = 0.34
    probes: str = "recordings"
    max_duration_s: float | None = None
    labels: tuple[str, ...] = ()
    window_s: float = 1.0
    n_trees: int = 50
    discriminator_splits: int = 3
    density_grid: int = 60
    coarse_grid: int = 16
    membership_folds: int | None = None
    membership_probes: str = "segments"

    def __post_init__(self) -> None:
        if isinstance(self.labels, list):
            object.__setattr__(self, "labels", tuple(self.labels))
        if not isinstance(self.labels, tuple) or not all(isinstance(x, str) for x in self.labels):
            raise ConfigError(f"frontier.labels must be a list of strings, got {self.labels!r}")
        for name in ("probes", "membership_probes"):
            if getattr(self, name) not in ("recordings", "segments"):
                raise ConfigError(f"frontier.{name} must be 'recordings' or 'segments', got "
                                  f"{getattr(self, name)!r}")
        f = self.membership_folds
        if f is not None and (isinstance(f, bool) or not isinstance(f, int) or f < 2):
            raise ConfigError(f"frontier.membership_folds must be an integer >= 2, got {f!r}")
        for name in ("holdout_fraction", "probe_fraction"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float) or not 0 < v < 1:
                raise ConfigError(f"frontier.{name} must be in (0, 1), got {v!r}")
        if not (isinstance(self.window_s, int | float) and self.window_s > 0):
            raise ConfigError(f"frontier.window_s must be > 0 seconds, got {self.window_s!r}")
        if self.max_duration_s is not None and not (
                isinstance(self.max_duration_s, int | float) and self.max_duration_s > 0):
            raise ConfigError(f"frontier.max_duration_s must be > 0 seconds, got "
                              f"{self.max_duration_s!r}")
        for name in ("n_trees", "discriminator_splits", "density_grid", "coarse_grid"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 2:
                raise ConfigError(f"frontier.{name} must be an integer >= 2, got {v!r}")


def _frontier(value: Any) -> FrontierConfig | None:
    """``frontier``: absent (the usual protocol) or a table (:class:`FrontierConfig`)."""
    if value is None:
        return None
    _check_keys("frontier", value, {"holdout_fraction", "probe_fraction", "probes", "labels",
                                    "max_duration_s", "window_s", "n_trees",
                                    "discriminator_splits", "density_grid", "coarse_grid",
                                    "membership_folds", "membership_probes"})
    return FrontierConfig(**value)


def _realism(value: Any) -> RealismConfig | None:
    """``realism``: ``true`` (defaults), ``false`` / absent (none) or a table."""
    if value is True:
        return RealismConfig()
    if value is None or value is False:
        return None
    _check_keys("realism", value, {"views", "labels", "window_s", "n_splits", "n_trees"})
    return RealismConfig(**value)


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
