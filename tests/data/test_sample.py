# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The bundled DOVES sample: loads without any data directory, equals the real subset."""

from __future__ import annotations

from importlib import resources

import numpy as np
import pytest

from gazeprivacy.data.loaders import ENV_VAR
from gazeprivacy.data.loaders.doves import DOVES_GEOMETRY, load_doves
from gazeprivacy.data.sample import SAMPLE_FILE, load_sample

OBSERVERS = ["ABT2", "ACB2", "AV2", "BSQ2", "BW2", "CE2", "CLM2", "CMG2", "CNG2", "CS2", "FMT2",
             "GK2"]
IMAGES = list(range(1, 101, 9))


def test_loads_without_data_dir(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV_VAR, str(tmp_path))  # an empty data directory
    ds = load_sample()
    assert len(ds) == 144 and list(ds.participants) == OBSERVERS
    assert ds.n_samples == 147_893
    assert ds.sampling_rate_hz == 200.0
    assert {r.labels["stimulus"] for r in ds} == {f"img{i:03d}" for i in IMAGES}
    assert all(r.geometry == DOVES_GEOMETRY for r in ds)
    assert {r.labels["task"] for r in ds} == {"free-viewing"}


def test_shipped_notice_and_provenance():
    pkg = resources.files("gazeprivacy.data.sample")
    notice = pkg.joinpath("NOTICE_DOVES.md").read_text()
    assert "Permission is hereby granted" in notice
    assert "Spatial" in notice and "Vision, 22(2): 161-177" in notice
    assert "ABT2" in pkg.joinpath("PROVENANCE.md").read_text()


def test_sample_file_size():
    with resources.as_file(resources.files("gazeprivacy.data.sample") / SAMPLE_FILE) as p:
        assert p.stat().st_size < 2_000_000


@pytest.mark.realdata
def test_equals_the_real_subset(data_dir):
    real = load_doves(data_dir, observers=OBSERVERS, images=IMAGES)
    sample = load_sample()
    assert [r.recording for r in sample] == [r.recording for r in real]
    for a, b in zip(sample, real, strict=True):
        assert np.array_equal(a.t, b.t)
        # Micro-pixel integers reproduce the 6-decimal source values; the float division
        # differs from the CSV parser's rounding by at most a few ulps.
        np.testing.assert_allclose(a.x, b.x, rtol=0, atol=1e-12)
        np.testing.assert_allclose(a.y, b.y, rtol=0, atol=1e-12)
        assert a.labels == b.labels
