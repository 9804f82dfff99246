# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Data-directory resolution, missing-data errors and the LOADERS registry (no real data)."""

from __future__ import annotations

import pytest

from gazeprivacy.data.loaders import (
    ENV_VAR,
    LOADERS,
    load_doves,
    load_mpiidpeye,
    resolve_data_dir,
)
from gazeprivacy.data.loaders._spec import LoaderSpec
from gazeprivacy.exceptions import GazePrivacyError, InvalidDataError, InvalidParameterError

EXPECTED = {"doves", "doves_fixations", "mpiidpeye", "vr_selfcalib_office_supermarket",
            "gazegraph_desktop_activity", "osie_fixations", "figrim_fixations",
            "sbsat_features", "gazebasevr_vergence_features"}


def test_no_dir_and_no_env_var_raises(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    with pytest.raises(InvalidDataError, match="GAZEPRIVACY_DATA"):
        resolve_data_dir()


def test_env_var_is_used(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    assert resolve_data_dir() == tmp_path


def test_nonexistent_dir_names_the_path(tmp_path):
    missing = tmp_path / "nowhere"
    with pytest.raises(InvalidDataError, match=r"nowhere.*does not exist"):
        resolve_data_dir(missing)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_loader_names_the_missing_folder(tmp_path, name):
    spec = LOADERS[name]
    expected = str(tmp_path / spec.folder)
    with pytest.raises(GazePrivacyError) as info:
        spec.load(tmp_path)
    assert expected in str(info.value)
    with pytest.raises(InvalidDataError):
        spec.describe(tmp_path)


def test_incomplete_folder_names_the_file(tmp_path):
    (tmp_path / "doves").mkdir()
    with pytest.raises(InvalidDataError, match=r"doves_gaze_200hz\.csv\.xz.*missing"):
        load_doves(tmp_path)
    (tmp_path / "mpiidpeye").mkdir()
    with pytest.raises(InvalidDataError, match="Eye_Tracking_Data"):
        load_mpiidpeye(tmp_path)


def test_env_var_feeds_loaders(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    with pytest.raises(InvalidDataError, match=str(tmp_path / "doves")):
        load_doves()


def test_registry_entries():
    assert set(LOADERS) == EXPECTED
    for name, spec in LOADERS.items():
        assert isinstance(spec, LoaderSpec) and spec.name == name
        assert spec.kind in ("samples", "fixations", "features")
        assert spec.licence
    shippable = {n for n, s in LOADERS.items() if s.redistributable}
    assert shippable == {"doves", "doves_fixations"}
    with pytest.raises(InvalidParameterError, match="choose one of"):
        LOADERS["gazebase"]


def test_spec_rejects_unknown_kind():
    with pytest.raises(InvalidParameterError, match="kind must be one of"):
        LoaderSpec(name="x", folder="x", load=print, kind="images", licence="-",
                   redistributable=False, describe=print)
