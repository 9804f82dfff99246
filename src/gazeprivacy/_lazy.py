# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Lazy public names of a package (PEP 562), shared by :mod:`gazeprivacy` and
:mod:`gazeprivacy.experiments`: a name is imported from its module on first access."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_attributes(package: str, sources: dict[str, str], namespace: dict[str, Any],
                    names: list[str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` (its ``__name__``), whose public
    ``names`` (its ``__all__``) are imported on first access from the modules ``sources`` maps
    them to and then stored in ``namespace`` (its ``globals()``); any other name is a submodule
    (``gazeprivacy.data`` after a bare ``import gazeprivacy``, as before names were lazy).

    >>> import types
    >>> ns = {}
    >>> get, names = lazy_attributes("gazeprivacy", {"sqrt": "math"}, ns, ["sqrt"])
    >>> get("sqrt")(4.0), "sqrt" in ns, names()
    (2.0, True, ['sqrt'])
    >>> isinstance(get("exceptions"), types.ModuleType)
    True
    """

    def __getattr__(name: str) -> object:
        source = sources.get(name)
        if source is not None:
            value = getattr(importlib.import_module(source), name)
            namespace[name] = value  # later look-ups skip this function
            return value
        if not name.startswith("__"):
            try:
                return importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise  # the submodule exists but one of its imports is missing
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted({*namespace, *names})

    return __getattr__, __dir__
