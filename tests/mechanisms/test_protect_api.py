# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``protect``'s own errors and ``protect_recordings``; the contract of every registered
mechanism is checked in ``tests/test_common.py``."""

from __future__ import annotations

import numpy as np
import pytest

from gazeprivacy.data import Dataset, Geometry, Recording
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.mechanisms import build_params, protect
from gazeprivacy.mechanisms.samples.kaleido import KaleidoParams

GEO = Geometry(x_min_deg=0.0, x_max_deg=16.0, y_min_deg=0.0, y_max_deg=12.0)


def ds(shift: float = 0.0) -> Dataset:
    g = np.random.default_rng(1)
    return Dataset(tuple(Recording.from_arrays(
        recording=f"r{i}", participant=f"p{i % 2}", sampling_rate_hz=100, geometry=GEO,
        x=np.clip(5 + shift + np.cumsum(g.normal(0, 0.2, 120)), 0, 16),
        y=np.clip(5 + np.cumsum(g.normal(0, 0.2, 120)), 0, 12)) for i in range(3)))


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


def test_protect_recordings_keeps_a_flag_only_a_later_recording_raises():
    from gazeprivacy.guarantees import Flag, FlagCode, Guarantee, Kind, Release, Unit
    from gazeprivacy.mechanisms import protect_recordings

    base = Guarantee(mechanism="m", kind=Kind.LOCAL_DP, unit=Unit.RECORDING, epsilon=1.0)
    late = Flag(FlagCode.PROOF_GAP, "only the last recording's rate breaks the proof")

    def one(rec, rng):
        g = base.with_flags(late) if rec.recording == "r2" else base
        return Release(rec, g)

    rel = protect_recordings(ds(), one, rng=np.random.default_rng(0), units=lambda r: 1)
    assert rel.guarantee.flags == (late,)
    assert not rel.guarantee.formally_private
