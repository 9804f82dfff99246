# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy datasets`` through Typer's CliRunner."""

from __future__ import annotations

import os

import pytest
from typer.testing import CliRunner

from gazeprivacy.cli.app import app

runner = CliRunner()


def test_empty_data_dir_shows_not_found_and_the_sample(tmp_path):
    res = runner.invoke(app, ["datasets", "--data-dir", str(tmp_path)],
                        env={"COLUMNS": "250"})
    assert res.exit_code == 0, res.output
    assert "mpiidpeye" in res.output and "not found" in res.output
    assert "doves_sample (bundled)" in res.output
    assert "1 of 10 found" in res.output


@pytest.mark.realdata
def test_real_data_counts(tmp_path, data_dir):
    # Everything but DOVES (whose counts test_doves.py checks), to keep this test quick.
    for name in os.listdir(data_dir):
        if name != "doves":
            os.symlink(data_dir / name, tmp_path / name)
    res = runner.invoke(app, ["datasets", "--data-dir", str(tmp_path)],
                        env={"COLUMNS": "250"})
    assert res.exit_code == 0, res.output
    lines = {ln.split("│")[1].strip(): ln for ln in res.output.splitlines()
             if ln.startswith("│") and ln.split("│")[1].strip()}
    mpii = [c.strip() for c in lines["mpiidpeye"].split("│")]
    assert mpii[3:7] == ["20", "60", "1,224,372", "30.4"]
    vr = [c.strip() for c in lines["vr_selfcalib_office_supermarket"].split("│")]
    assert vr[3:7] == ["17", "30", "217,706", "50"]
    assert "not found" in lines["doves"]
    assert "not found" in lines["doves_fixations"]  # same folder as doves
    assert "8 of 10 found" in res.output
