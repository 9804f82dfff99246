# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy sample OUT``: the bundled sample in the long format, written safely."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from gazeprivacy.cli.app import app
from gazeprivacy.data import read_dataset
from gazeprivacy.data.sample import load_sample
from gazeprivacy.exceptions import InvalidParameterError


@pytest.mark.parametrize("name", ["s.parquet", "s.csv"])
def test_sample_round_trips_the_bundled_sample(tmp_path, name):
    out = tmp_path / name
    res = CliRunner().invoke(app, ["sample", str(out)])
    assert res.exit_code == 0, res.output
    back, orig = read_dataset(out), load_sample()
    assert [r.recording for r in back.recordings] == [r.recording for r in orig.recordings]
    a, b = back.recordings[0], orig.recordings[0]
    assert a.participant == b.participant and a.sampling_rate_hz == b.sampling_rate_hz
    np.testing.assert_allclose(a.x, b.x, equal_nan=True)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".partial-")]
    if name.endswith(".csv"):
        assert (tmp_path / "s.csv.meta.json").is_file()
    # info reads it back from the CLI
    assert CliRunner().invoke(app, ["info", str(out)]).exit_code == 0


def test_sample_refuses_an_existing_file_before_any_work(tmp_path, monkeypatch):
    import gazeprivacy.data.sample as sample_mod

    out = tmp_path / "s.csv"
    out.write_text("keep me")
    with monkeypatch.context() as m:
        m.setattr(sample_mod, "load_sample", lambda: pytest.fail("loaded before the check"))
        res = CliRunner().invoke(app, ["sample", str(out)])
    assert isinstance(res.exception, InvalidParameterError)
    assert "--overwrite" in str(res.exception)
    assert out.read_text() == "keep me"
    res = CliRunner().invoke(app, ["sample", str(out), "--overwrite"])
    assert res.exit_code == 0, res.output
    assert out.read_text() != "keep me"


def test_sample_refuses_an_unknown_suffix(tmp_path):
    res = CliRunner().invoke(app, ["sample", str(tmp_path / "s.txt")])
    assert isinstance(res.exception, InvalidParameterError) and not (tmp_path / "s.txt").exists()
