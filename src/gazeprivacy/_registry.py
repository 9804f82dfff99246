# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""An explicit name -> object table. Entries are listed in one place; nothing self-registers."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Generic, TypeVar

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
    """

    def __init__(self, what: str, entries: Mapping[str, T]) -> None:
        self._what = what
        self._entries = dict(entries)

    def __getitem__(self, name: str) -> T:
        try:
            return self._entries[name]
        except KeyError:
            valid = ", ".join(sorted(self._entries))
            raise InvalidParameterError(
                f"unknown {self._what} {name!r}; choose one of: {valid}"
            ) from None

    def __contains__(self, name: object) -> bool:
        # Mapping.__contains__ catches only KeyError; our lookup error is a named one.
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self._what!r}, {sorted(self._entries)})"
