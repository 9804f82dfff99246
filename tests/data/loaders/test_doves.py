# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DOVES loaders on the real data (one full load per test process, memoised table)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from gazeprivacy.data import Dataset
from gazeprivacy.data.fixations import Fixations
from gazeprivacy.data.loaders.doves import (
    DOVES_GEOMETRY,
    describe_doves,
    load_doves,
    load_doves_fixations,
)
from gazeprivacy.exceptions import InvalidParameterError

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="session")
def doves(data_dir) -> Dataset:
    return load_doves(data_dir)


def test_full_load_counts_rates_labels(doves):
    assert len(doves) == 2929
    assert len(doves.participants) == 29
    assert doves.n_samples == 3_002_902
    assert doves.sampling_rate_hz == 200.0
    assert {r.labels["task"] for r in doves} == {"free-viewing"}
    assert len({r.labels["stimulus"] for r in doves}) == 101
    r = doves["ABT2_img001"]
    assert r.participant == "ABT2" and r.labels["stimulus"] == "img001"
    assert r.geometry == DOVES_GEOMETRY and r.geometry.kind == "image"
    assert (r.geometry.width_px, r.geometry.height_px) == (1024, 768)


def test_units_are_degrees_and_5ms_steps(doves):
    r = doves["ABT2_img001"]
    assert r.t[0] == 0.0
    np.testing.assert_allclose(np.diff(r.t), 0.005)
    # First source row: ABT2, image 1, sample 0, x_px 508.390792, y_px 379.334365.
    assert r.x[0] == pytest.approx(508.390792 / 60)
    assert r.y[0] == pytest.approx(379.334365 / 60)
    x = np.concatenate([r.x for r in doves])
    y = np.concatenate([r.y for r in doves])
    assert not np.isnan(x).any() and not np.isnan(y).any()
    inside = DOVES_GEOMETRY.contains(x, y).mean()
    assert inside > 0.99
    assert x.min() >= 0 and x.max() <= 1024 / 60 + 1e-9


def test_trial_lengths_match_provenance(doves):
    n = np.array([r.n_samples for r in doves])
    assert n.min() == 178 and n.max() == 1120 and np.median(n) == 1040


def test_describe_matches_load(data_dir, doves):
    d = describe_doves(data_dir)
    assert (d.participants, d.recordings, d.samples, d.sampling_rate_hz) == (
        len(doves.participants), len(doves), doves.n_samples, 200.0)


def test_filter_observers_and_images(data_dir):
    ds = load_doves(data_dir, observers=["ABT2", "CE2"], images=[1, "img002", 101])
    assert [r.recording for r in ds] == ["ABT2_img001", "ABT2_img002", "ABT2_img101",
                                         "CE2_img001", "CE2_img002", "CE2_img101"]


@pytest.mark.parametrize("kwargs, match", [
    pytest.param({"observers": ["NOPE"]}, "unknown DOVES observer", id="unknown_observer"),
    pytest.param({"images": [0]}, "1..101", id="image_zero"),
    pytest.param({"images": ["cat"]}, "1..101", id="image_not_a_number"),
])
def test_bad_selection_raises(data_dir, kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        load_doves(data_dir, **kwargs)


def test_fixations_drop_two_degenerate_rows(data_dir):
    fx = load_doves_fixations(data_dir)
    assert isinstance(fx, Fixations)
    assert fx.table.height == 35_502 - 2
    assert fx.info["n_dropped_degenerate"] == 2
    assert sorted(fx.info["dropped_degenerate"]) == [("ABT2", 67, 16), ("CLM2", 12, 6)]
    assert (fx.width_px, fx.height_px) == (1024, 768)
    assert fx.n_participants == 29 and len(fx.stimuli) == 101
    assert (fx.table["duration_ms"] == fx.table["duration_raw"] * 5).all()
    assert fx.table["duration_ms"].min() > 0
    assert fx.info["duration_unit_verified"] is False
    assert fx.table.select(pl.col("x_px").is_between(0, 1024).all()).item()


def test_fixations_filter(data_dir):
    fx = load_doves_fixations(data_dir, observers="CLM2", images=12)
    assert fx.participants == ("CLM2",) and fx.stimuli == ("img012",)
    assert fx.info["n_dropped_degenerate"] == 1
