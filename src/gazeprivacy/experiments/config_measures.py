# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The measurement sections of an experiment config (:mod:`gazeprivacy.experiments.config`):
``[[attacks]]``, ``[[utility]]``, ``[realism]`` and ``[frontier]``, each parsed into a frozen,
validated dataclass, and the error and key check every section of a config uses
(:class:`ConfigError`, ``_check_keys``). Moved here unchanged from ``config.py`` (757 lines),
which re-exports every public name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gazeprivacy.attacks.classifiers import CLASSIFIERS
from gazeprivacy.attacks.threat import THREAT_MODELS
from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["ATTACK_KINDS", "LEARNED_UTILITY_KINDS", "REALISM_VIEWS", "UTILITY_KINDS",
           "AttackConfig", "ConfigError", "FrontierConfig", "RealismConfig", "UtilityConfig"]



class ConfigError(InvalidParameterError):
    """A configuration file breaks a rule; the message names the key."""


# its public home, where tracebacks and pickles name it (as NumPy's ``set_module`` does): the
# class moved here with the sections, and ``config`` re-exports it
ConfigError.__module__ = "gazeprivacy.experiments.config"


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
