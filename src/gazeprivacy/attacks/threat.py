# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Threat models as data: which side of the attacker's train / test split is protected.

The papers disagree on what the attacker holds, so the choice is a named object, recorded with
every result:

* ``seed000`` (Ren, Fan et al., section 5.2): the attacker trains on *raw* gaze and tests on the
  protected release -- "the raw gaze samples formed the basis of our model training".
* ``seed001`` (David-John et al., section 4.1): the released dataset is protected and the
  attacker's probe data are *raw* -- train on protected, test on raw.
* ``seed004`` (Steil et al., section 4.1, "future situation"): only protected data exist --
  train and test on protected.
* ``seed004-clean`` (Steil et al., "current situation"): clean training data, protected test data
  (the same sides as ``seed000``).
* ``raw``: no protection on either side; the baseline every protected result is compared with.
"""

from __future__ import annotations

from dataclasses import dataclass

from gazeprivacy._registry import Registry
from gazeprivacy._validation import check_in

__all__ = ["THREAT_MODELS", "ThreatModel"]

_SIDES = ("raw", "protected")


@dataclass(frozen=True, kw_only=True)
class ThreatModel:
    """Which side (train / test) of an attack sees protected data.

    Parameters
    ----------
    train, test : {"raw", "protected"}
        The data the attacker trains on, and the data it is evaluated on.
    name : str
        A short name for tables.
    source : str
        Where the threat model comes from (paper and section).

    Examples
    --------
    >>> ThreatModel.seed001().train, ThreatModel.seed001().test
    ('protected', 'raw')
    >>> ThreatModel(train="raw", test="noisy")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gazeprivacy.exceptions.InvalidParameterError: test must be one of 'raw', 'protected', ...
    """

    train: str
    test: str
    name: str = ""
    source: str = ""

    def __post_init__(self) -> None:
        check_in(train=self.train, options=_SIDES)
        check_in(test=self.test, options=_SIDES)
        if not self.name:
            object.__setattr__(self, "name", f"train-{self.train}-test-{self.test}")

    @property
    def uses_protected(self) -> bool:
        """True when at least one side is protected."""
        return "protected" in (self.train, self.test)

    @classmethod
    def seed000(cls) -> ThreatModel:
        """Ren, Fan et al. (DPGazeSynth) 5.2: train on raw, test on protected."""
        return cls(train="raw", test="protected", name="seed000",
                   source="Ren, Fan et al., DPGazeSynth, section 5.2")

    @classmethod
    def seed001(cls) -> ThreatModel:
        """David-John et al. 4.1: train on the protected release, test on raw probes."""
        return cls(train="protected", test="raw", name="seed001",
                   source="David-John, Butler, Jain, TVCG 2023, section 4.1")

    @classmethod
    def seed004(cls) -> ThreatModel:
        """Steil et al. 4.1 (future situation): train and test on protected data."""
        return cls(train="protected", test="protected", name="seed004",
                   source="Steil et al., ETRA 2019, section 4.1 / 6.2 (trained on DP data)")

    @classmethod
    def seed004_clean(cls) -> ThreatModel:
        """Steil et al. (current situation): train on clean data, test on protected data."""
        return cls(train="raw", test="protected", name="seed004-clean",
                   source="Steil et al., ETRA 2019, section 6.2 (trained on clean data)")

    @classmethod
    def raw(cls) -> ThreatModel:
        """No protection on either side (the baseline)."""
        return cls(train="raw", test="raw", name="raw", source="baseline")


THREAT_MODELS: Registry[ThreatModel] = Registry("threat model", {
    "seed000": ThreatModel.seed000(),
    "seed001": ThreatModel.seed001(),
    "seed004": ThreatModel.seed004(),
    "seed004-clean": ThreatModel.seed004_clean(),
    "raw": ThreatModel.raw(),
})
