# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``check_*`` helpers: each takes ``name=value`` and raises a message that names the parameter,
the rule, the value and, where there is one, the way out."""

from __future__ import annotations

import math
import numbers

from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["check_in", "check_int", "check_positive", "check_probability", "check_range"]


def _one(kwargs: dict) -> tuple[str, object]:
    if len(kwargs) != 1:
        raise TypeError("check helpers take exactly one name=value argument")
    return next(iter(kwargs.items()))


def _is_bool(value: object) -> bool:
    """``True``, ``False`` or a NumPy bool (not an int here, though Python says so)."""
    return isinstance(value, bool) or type(value).__name__ in ("bool", "bool_")


def _number(name: str, value: object) -> None:
    """Refuse, with the reason, what is not a Python ``int`` or ``float`` (or a subclass, such
    as ``numpy.float64``): a bool is not a number here, and other number types (``numpy.float32``,
    ``Decimal``, ``Fraction``) would be kept as they are by the caller and break its arithmetic
    or its JSON record, so the message says how to pass them."""
    if _is_bool(value):
        raise InvalidParameterError(f"{name} must be a number, got the bool {value!r}")
    if isinstance(value, int | float):
        return
    kind = f"{type(value).__module__}.{type(value).__qualname__}".removeprefix("builtins.")
    if not isinstance(value, numbers.Number):  # Decimal is a Number, not a Real
        raise InvalidParameterError(f"{name} must be a number (an int or a float), got "
                                    f"{value!r} ({kind})")
    try:
        as_float = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):  # complex
        raise InvalidParameterError(f"{name} must be a real number (an int or a float), got "
                                    f"{value!r} ({kind})") from None
    exact = math.isfinite(as_float) and as_float == value  # exact comparisons, Decimal's too
    how = (f"pass float({name}), which is exactly {as_float!r}" if exact else
           f"float({name}) would round it to {as_float!r}")
    raise InvalidParameterError(f"{name} must be an int or a float, got {value!r} ({kind}); "
                                f"{how}")


def check_positive(*, allow_zero: bool = False, **kwargs: float) -> float:
    """``value > 0`` (or ``>= 0``) and finite; a bool or another number type is refused with
    the reason (see :func:`_number`).

    >>> check_positive(epsilon=-1.0)
    Traceback (most recent call last):
    ...
    gazeprivacy.exceptions.InvalidParameterError: epsilon must be > 0, got -1.0
    >>> check_positive(epsilon=True)
    Traceback (most recent call last):
    ...
    gazeprivacy.exceptions.InvalidParameterError: epsilon must be a number, got the bool True
    """
    name, value = _one(kwargs)
    _number(name, value)
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
    _number(name, value)
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
    if _is_bool(value):
        raise InvalidParameterError(f"{name} must be an integer, got the bool {value!r}")
    if not isinstance(value, int) and hasattr(value, "__index__"):  # numpy.int64 and the like
        kind = f"{type(value).__module__}.{type(value).__qualname__}"
        raise InvalidParameterError(f"{name} must be a Python int, got {value!r} ({kind}); "
                                    f"pass int({name})")
    if not isinstance(value, int) or value < minimum:
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
