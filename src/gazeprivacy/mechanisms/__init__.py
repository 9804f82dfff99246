# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Randomised releases. Every mechanism is listed here, in one place, in ``MECHANISMS``."""

from gazeprivacy._registry import Registry
from gazeprivacy.mechanisms import series as _series
from gazeprivacy.mechanisms.base import MechanismSpec, protect_recordings

__all__ = ["MECHANISMS", "MechanismSpec", "protect_recordings"]

MECHANISMS: Registry[MechanismSpec] = Registry("mechanism", {
    # name: spec  -- one line per mechanism, added by the module that implements it
    "series-lpa": _series.LPA_SPEC,
    "fpa": _series.FPA_SPEC,
    "dct": _series.DCT_SPEC,
    "cfpa": _series.CFPA_SPEC,
    "dcfpa": _series.DCFPA_SPEC,
    "steil-exponential": _series.STEIL_SPEC,
})
