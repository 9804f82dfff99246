# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Lazy imports of optional heavy dependencies, with errors that name the extra to install."""

from __future__ import annotations

import importlib
from types import ModuleType

from gazeprivacy.exceptions import MissingDependencyError

__all__ = ["import_optional"]

_EXTRAS = {"torch": "deep", "dask": "distributed", "distributed": "distributed",
           "opendp": "opendp"}


def import_optional(name: str) -> ModuleType:
    """Import ``name`` or raise :class:`MissingDependencyError` naming the extra.

    >>> import_optional("json").__name__
    'json'
    """
    try:
        return importlib.import_module(name)
    except ImportError:
        extra = _EXTRAS.get(name.split(".")[0], "deep")
        raise MissingDependencyError(
            f"{name} is needed here; install it with: pip install 'gazeprivacy[{extra}]'"
        ) from None
