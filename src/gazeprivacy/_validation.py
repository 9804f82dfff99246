# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``check_*`` helpers: each takes ``name=value`` and raises a message that names the parameter,
the rule, the value and, where there is one, the way out."""

from __future__ import annotations

import math

from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["check_in", "check_int", "check_positive", "check_probability", "check_range"]


def _one(kwargs: dict) -> tuple[str, object]:
    if len(kwargs) != 1:
        raise TypeError("check helpers take exactly one name=value argument")
    return next(iter(kwargs.items()))


def check_positive(*, allow_zero: bool = False, **kwargs: float) -> float:
    """``value > 0`` (or ``>= 0``) and finite.

    >>> check_positive(epsilon=-1.0)
    Traceback (most recent call last):
    ...
    gazeprivacy.exceptions.InvalidParameterError: epsilon must be > 0, got -1.0
    """
    name, value = _one(kwargs)
    ok = isinstance(value, int | float) and math.isfinite(value)
    ok = ok and (value >= 0 if allow_zero else value > 0)
    if not ok:
        rule = ">=" if allow_zero else ">"
        raise InvalidParameterError(f"{name} must be {rule} 0, got {value!r}")
    return float(value)


def check_range(*, lo: float, hi: float, lo_open: bool = False, hi_open: bool = False,
                **kwargs: float) -> float:
    """``lo <= value <= hi`` (brackets open as asked)."""
    name, value = _one(kwargs)
    ok = isinstance(value, int | float) and not math.isnan(value)
    ok = ok and (value > lo if lo_open else value >= lo)
    ok = ok and (value < hi if hi_open else value <= hi)
    if not ok:
        brackets = ("(" if lo_open else "[") + f"{lo}, {hi}" + (")" if hi_open else "]")
        raise InvalidParameterError(f"{name} must be in {brackets}, got {value!r}")
    return float(value)


def check_probability(**kwargs: float) -> float:
    """``0 < value < 1`` (e.g. delta)."""
    return check_range(lo=0.0, hi=1.0, lo_open=True, hi_open=True, **kwargs)


def check_int(*, minimum: int = 1, **kwargs: int) -> int:
    """An integer ``>= minimum``."""
    name, value = _one(kwargs)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


def check_in(*, options: tuple[str, ...] | list[str], **kwargs: str) -> str:
    """One of ``options``."""
    name, value = _one(kwargs)
    if value not in options:
        raise InvalidParameterError(
            f"{name} must be one of {', '.join(map(repr, options))}, got {value!r}"
        )
    return value
