# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""MPIIDPEye loader on the real data."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from gazeprivacy.data.loaders.mpiidpeye import (
    MPIIDPEYE_GEOMETRY,
    describe_mpiidpeye,
    load_mpiidpeye,
)
from gazeprivacy.exceptions import InvalidParameterError

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def mpii(data_dir):
    return load_mpiidpeye(data_dir)


def test_counts_and_labels(mpii):
    assert len(mpii) == 60 and len(mpii.participants) == 20
    assert mpii.n_samples == 1_224_372
    assert mpii.sampling_rate_hz == 30.4
    docs = {r.labels["document"] for r in mpii}
    assert docs == {"comic", "newspaper", "textbook"}
    genders = {r.participant: r.labels["gender"] for r in mpii}
    assert sorted(genders.values()).count("female") == 10
    assert genders["P1"] == "female" and genders["P2"] == "male"  # Ground_Truth.csv
    r = mpii["P1_comic"]
    assert r.geometry == MPIIDPEYE_GEOMETRY and r.geometry.kind == "eye-camera"
    assert r.pupil is not None and "confidence" in r.channels


def test_measured_rates_near_nominal(mpii):
    rates = [v["measured_rate_hz"] for v in mpii.info["per_recording"].values()]
    assert min(rates) > 30.3 and max(rates) < 30.6


def test_low_confidence_policy_nan_rows_kept_and_counted(data_dir, mpii):
    path = data_dir / "mpiidpeye" / "Eye_Tracking_Data" / "Data_P1_R1.csv.gz"
    raw = pl.read_csv(path, separator=";", has_header=False)
    conf = raw[:, 3].to_numpy()
    r = mpii["P1_comic"]
    assert r.n_samples == raw.height  # nothing dropped
    low = conf < 0.6
    assert np.array_equal(np.isnan(r.x), low)
    assert np.isnan(r.pupil[low]).all()
    assert mpii.info["per_recording"]["P1_comic"]["n_low_confidence"] == int(low.sum())
    assert mpii.info["n_low_confidence"] == sum(
        v["n_low_confidence"] for v in mpii.info["per_recording"].values())
    # First row of the file: pupil_x 0.325535, confidence 0.400072 -> NaN; second row kept.
    assert np.isnan(r.x[0])
    assert r.x[1] == pytest.approx((0.312254 - 0.5) * 100)
    assert r.t[0] == 0.0 and r.t[1] == pytest.approx(4970.667632 - 4970.634732)


def test_keep_policy_and_threshold(data_dir):
    kept = load_mpiidpeye(data_dir, participants=["P1"], low_confidence="keep")
    assert not np.isnan(kept["P1_comic"].x).any()
    strict = load_mpiidpeye(data_dir, participants=[1], confidence_threshold=0.0)
    assert strict.info["n_low_confidence"] == 0
    assert [r.recording for r in strict] == ["P1_comic", "P1_newspaper", "P1_textbook"]


def test_timestamps_clean_in_source(mpii):
    assert mpii.info["n_duplicate_timestamps_dropped"] == 0
    assert mpii.info["n_backward_timestamps_dropped"] == 0


def test_describe(data_dir):
    d = describe_mpiidpeye(data_dir)
    assert (d.participants, d.recordings, d.samples) == (20, 60, 1_224_372)
    assert d.sampling_rate_hz == pytest.approx(30.4, abs=0.1)


@pytest.mark.parametrize("kwargs, match", [
    pytest.param({"low_confidence": "drop"}, "low_confidence", id="unknown_policy"),
    pytest.param({"confidence_threshold": 1.5}, "confidence_threshold", id="threshold_above_1"),
    pytest.param({"participants": [21]}, "unknown MPIIDPEye participant", id="participant_21"),
    pytest.param({"deg_per_unit": 0.0}, "deg_per_unit", id="zero_scale"),
])
def test_bad_options(data_dir, kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        load_mpiidpeye(data_dir, **kwargs)
