# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``protect`` and the registry entries of the sample mechanisms, through one contract."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from gazeprivacy.data import Dataset, Geometry, Recording
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.mechanisms import MECHANISMS, build_params, protect
from gazeprivacy.mechanisms.samples.kaleido import KaleidoParams

GEO = Geometry(x_min_deg=0.0, x_max_deg=16.0, y_min_deg=0.0, y_max_deg=12.0)
PARAMS = {"dpgazesynth": {"epsilon": 1.0, "grid_size": 16},
          "kaleido": {"epsilon": 1.0, "radius_deg": 1.0, "window_s": 0.5}}


def ds(shift: float = 0.0) -> Dataset:
    g = np.random.default_rng(1)
    return Dataset(tuple(Recording.from_arrays(
        recording=f"r{i}", participant=f"p{i % 2}", sampling_rate_hz=100, geometry=GEO,
        x=np.clip(5 + shift + np.cumsum(g.normal(0, 0.2, 120)), 0, 16),
        y=np.clip(5 + np.cumsum(g.normal(0, 0.2, 120)), 0, 12)) for i in range(3)))


@pytest.mark.parametrize("name", ["dpgazesynth", "kaleido"])
def test_registry_entry_contract(name):
    spec = MECHANISMS[name]
    assert spec.name == name and spec.level == "samples" and spec.citation
    a = protect(ds(), mechanism=name, seed=4, **PARAMS[name])
    b = protect(ds(), mechanism=name, seed=4, **PARAMS[name])
    np.testing.assert_array_equal(a.output[1].x, b.output[1].x)
    assert [r.n_samples for r in a.output] == [120] * 3
    assert [r.recording for r in a.output] == ["r0", "r1", "r2"]
    # the record depends on public shape only
    c = protect(ds(shift=3.0), mechanism=name, seed=9, **PARAMS[name])
    assert replace(c.guarantee, seed=None, flags=()) == replace(a.guarantee, seed=None, flags=())
    assert a.guarantee.seed == 4


def test_protect_accepts_a_params_object_and_an_rng():
    p = KaleidoParams(epsilon=1.0, radius_deg=1.0, window_samples=25)
    rel = protect(ds(), mechanism="kaleido", params=p, rng=np.random.default_rng(0))
    assert rel.guarantee.seed is None and rel.guarantee.parameters["window_samples"] == 25


@pytest.mark.parametrize(("kw", "match"), [
    ({"mechanism": "nope"}, "unknown mechanism 'nope'"),
    ({"mechanism": "kaleido", "epsilon": 1.0, "radius_deg": 1.0, "window_s": 0.5,
      "colour": 1}, r"kaleido has no parameter\(s\) colour"),
    ({"mechanism": "kaleido", "params": object()}, "must be a KaleidoParams"),
    ({"mechanism": "kaleido", "epsilon": 1.0, "radius_deg": 1.0, "window_s": 0.5, "seed": 1,
      "rng": np.random.default_rng(0)}, "give rng or seed, not both"),
], ids=["unknown_mechanism", "unknown_parameter", "wrong_params_type", "rng_and_seed"])
def test_protect_errors_name_the_problem(kw, match):
    with pytest.raises(InvalidParameterError, match=match):
        protect(ds(), **kw)


def test_build_params_without_privacy_parameter_fails():
    with pytest.raises(InvalidParameterError,
                       match="dpgazesynth needs epsilon .privacy parameters have no defaults"):
        build_params("dpgazesynth", grid_size=30)
