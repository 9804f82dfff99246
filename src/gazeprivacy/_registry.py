# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""An explicit name -> object table. Entries are listed in one place; nothing self-registers.

An entry may be given as a ``"package.module:attribute"`` reference (:meth:`Registry.lazy`):
the module is imported when the entry is first looked up, so a command that uses one entry
does not pay for importing the others (issue 18), while listing the names imports nothing.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any, Generic, TypeVar

from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["Registry"]

T = TypeVar("T")


class Registry(Mapping[str, T], Generic[T]):
    """Read-only mapping whose unknown-key error lists the valid names.

    Examples
    --------
    >>> r = Registry("colours", {"red": 1})
    >>> r["red"], "blue" in r
    (1, False)
    >>> r["blue"]
    Traceback (most recent call last):
    ...
    gazeprivacy.exceptions.InvalidParameterError: unknown colours 'blue'; choose one of: red
    >>> lazy = Registry.lazy("functions", {"join": "os.path:join"})
    >>> list(lazy), lazy["join"].__name__
    (['join'], 'join')
    """

    def __init__(self, what: str, entries: Mapping[str, T]) -> None:
        self._what = what
        self._entries: dict[str, Any] = dict(entries)
        self._refs: dict[str, str] = {}

    @classmethod
    def lazy(cls, what: str, refs: Mapping[str, str]) -> Registry[Any]:
        """A registry whose entries are ``"module:attribute"`` references, each imported on
        its first lookup (iterating over the names imports nothing)."""
        for name, ref in refs.items():
            if ref.count(":") != 1:
                raise ValueError(f"{what} {name!r}: expected 'module:attribute', got {ref!r}")
        reg: Registry[Any] = cls(what, {})
        reg._entries = dict.fromkeys(refs)
        reg._refs = dict(refs)
        return reg

    def __getitem__(self, name: str) -> T:
        try:
            entry = self._entries[name]
        except KeyError:
            valid = ", ".join(sorted(self._entries))
            raise InvalidParameterError(
                f"unknown {self._what} {name!r}; choose one of: {valid}"
            ) from None
        if entry is None and name in self._refs:
            module, attr = self._refs[name].split(":")
            entry = self._entries[name] = getattr(importlib.import_module(module), attr)
        return entry  # type: ignore[no-any-return]

    def __contains__(self, name: object) -> bool:
        # Mapping.__contains__ catches only KeyError; our lookup error is a named one.
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self._what!r}, {sorted(self._entries)})"
