# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""What an audit of one mechanism in one mode is made of (shared by every adapter module)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from gazeprivacy.audit.auditor import EventSearch, Sampler
from gazeprivacy.audit.neighbours import NeighbourPair, NeighbourStrategy
from gazeprivacy.guarantees import Guarantee
from gazeprivacy.mechanisms import MECHANISMS

__all__ = ["AuditCase", "mechanism_module"]


@dataclass(frozen=True)
class AuditCase:
    """Everything the engine needs to audit one mechanism in one mode."""

    mechanism: str
    mode: str
    unit: str
    neighbouring: str
    claimed_epsilon: float
    claimed_delta: float
    strategy: NeighbourStrategy
    samplers: Callable[[NeighbourPair], tuple[Sampler, Sampler]]
    event_search: EventSearch | None = None
    guarantee: Guarantee | None = None
    notes: str = ""
    #: where the claim comes from: "epsilon" (the record's headline) or a part of the record
    #: such as "parameters.split.start x epsilon" (a component's budget share)
    claim_from: str = "epsilon"


def mechanism_module(name: str) -> ModuleType:
    """The module that implements registry entry ``name`` (found through ``MECHANISMS``)."""
    return importlib.import_module(MECHANISMS[name].run.__module__)
