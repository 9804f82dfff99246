# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""SB-SAT and GazeBaseVR feature-table loaders on the real data."""

from __future__ import annotations

import polars as pl
import pytest

from gazeprivacy.data.loaders.gazebasevr import load_gazebasevr_vergence
from gazeprivacy.data.loaders.sbsat import SBSAT_FEATURES, load_sbsat_features
from gazeprivacy.exceptions import InvalidParameterError

pytestmark = pytest.mark.realdata


def test_sbsat_with_labels(data_dir):
    tab = load_sbsat_features(data_dir)
    assert tab.height == 7298
    assert tab["participant"].n_unique() == 95
    assert set(SBSAT_FEATURES) <= set(tab.columns)
    assert tab["sex"].null_count() == 0 and set(tab["sex"].unique()) == {"F", "M"}
    per_person = tab.group_by("participant").agg(pl.col("sex").first())
    assert per_person["sex"].value_counts().sort("sex")["count"].to_list() == [63, 32]
    assert (tab["participant"] == tab["RECORDING_SESSION_LABEL"]).all()


def test_sbsat_without_labels(data_dir):
    tab = load_sbsat_features(data_dir, labels=False)
    assert tab.columns[0] == "participant" and "sex" not in tab.columns


@pytest.mark.parametrize("table, rows, people", [
    pytest.param("biomarker", 1004, 407, id="biomarker"),
    pytest.param("model", 740, 354, id="model"),
    pytest.param("model2", 740, 354, id="model2"),
])
def test_gazebasevr_tables(data_dir, table, rows, people):
    tab = load_gazebasevr_vergence(data_dir, table=table)
    assert tab.height == rows and tab["participant"].n_unique() == people
    assert tab.columns[:2] == ["participant", "recording"]
    assert {"round", "session"} <= set(tab.columns)
    assert tab["recording"].n_unique() == rows


def test_gazebasevr_bad_table(data_dir):
    with pytest.raises(InvalidParameterError, match="table must be one of"):
        load_gazebasevr_vergence(data_dir, table="raw")
