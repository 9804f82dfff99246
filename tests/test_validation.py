# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy._validation``: a bool is never a number, and another number type (NumPy's
float32, Decimal, Fraction) is refused with the real reason and the way out, not as if its
value were out of range."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from gazeprivacy import protect
from gazeprivacy._validation import check_int, check_positive, check_probability, check_range
from gazeprivacy.exceptions import InvalidParameterError


@pytest.mark.parametrize("value", [True, False, np.True_])
def test_bools_are_refused_as_bools(value):
    for check in (lambda v: check_positive(epsilon=v, allow_zero=True),
                  lambda v: check_range(epsilon=v, lo=0.0, hi=10.0),
                  lambda v: check_probability(delta=v), lambda v: check_int(k=v, minimum=0)):
        with pytest.raises(InvalidParameterError, match="got the bool"):
            check(value)


@pytest.mark.parametrize(("value", "how"), [
    (np.float32(0.5), "pass float(epsilon), which is exactly 0.5"),
    (Decimal("2"), "pass float(epsilon), which is exactly 2.0"),
    (Decimal("0.1"), "float(epsilon) would round it to 0.1"),
    (Fraction(1, 3), "float(epsilon) would round it to 0.3333333333333333"),
])
def test_other_number_types_are_refused_with_the_reason(value, how):
    with pytest.raises(InvalidParameterError, match="must be an int or a float") as e:
        check_positive(epsilon=value)
    assert how in str(e.value) and "must be > 0" not in str(e.value)
    with pytest.raises(InvalidParameterError, match="must be an int or a float"):
        check_range(epsilon=value, lo=0.0, hi=10.0)


def test_numpy_ints_and_text_are_refused_with_the_reason():
    with pytest.raises(InvalidParameterError, match=r"k must be a Python int.*pass int\(k\)"):
        check_int(k=np.int64(3))
    with pytest.raises(InvalidParameterError, match=r"must be a number \(an int or a float\)"):
        check_positive(epsilon="1")


def test_floats_ints_and_numpy_float64_still_pass():
    assert check_positive(epsilon=np.float64(0.5)) == 0.5
    assert check_positive(epsilon=2) == 2.0 and check_int(k=3) == 3


def test_a_mechanism_refuses_epsilon_true(rng):
    from gazeprivacy.mechanisms.base import example_dataset

    with pytest.raises(InvalidParameterError, match="epsilon must be a number, got the bool"):
        protect(example_dataset(), mechanism="kaleido", epsilon=True, radius_deg=1.0,
                window_s=0.5, rng=rng)
