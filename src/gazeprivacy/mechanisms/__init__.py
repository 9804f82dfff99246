# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Randomised releases. Every mechanism is listed here, in one place, in ``MECHANISMS``."""

from gazeprivacy._registry import Registry
from gazeprivacy.mechanisms.base import MechanismSpec, protect_recordings

__all__ = ["MECHANISMS", "MechanismSpec", "protect_recordings"]

MECHANISMS: Registry[MechanismSpec] = Registry("mechanism", {
    # name: spec  -- one line per mechanism, added by the module that implements it
})
