# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""describe_datasets: found / not-found rows."""

from __future__ import annotations

import os

import pytest

from gazeprivacy.data.loaders import LOADERS
from gazeprivacy.data.loaders.catalog import CATALOG_COLUMNS, describe_datasets


def test_empty_dir_lists_everything_as_not_found(tmp_path):
    tab = describe_datasets(tmp_path)
    assert tuple(tab.columns) == CATALOG_COLUMNS
    assert tab.height == len(LOADERS) + 1
    missing = tab.filter(~tab["found"])
    assert missing.height == len(LOADERS)
    assert all("not found" in n for n in missing["note"])
    sample = tab.row(tab.height - 1, named=True)
    assert sample["found"] and sample["recordings"] == 144 and sample["participants"] == 12


def test_no_data_dir_at_all(monkeypatch):
    monkeypatch.delenv("GAZEPRIVACY_DATA", raising=False)
    tab = describe_datasets()
    assert tab["found"].sum() == 1
    assert "GAZEPRIVACY_DATA" in tab["note"][0]


@pytest.mark.realdata
def test_partial_data_dir(tmp_path, data_dir):
    os.symlink(data_dir / "mpiidpeye", tmp_path / "mpiidpeye")
    tab = describe_datasets(tmp_path)
    found = dict(zip(tab["name"], tab["found"], strict=True))
    assert found["mpiidpeye"] and not found["doves"]
    row = tab.filter(tab["name"] == "mpiidpeye").row(0, named=True)
    assert (row["participants"], row["recordings"]) == (20, 60)
