# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy client`` / ``gazeprivacy curator``: DPGazeSynth as devices and a curator."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from gazeprivacy.cli.app import app
from gazeprivacy.data import Dataset, Geometry, Recording, read_dataset, write_dataset
from gazeprivacy.deploy.protocol import curator_release
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.rng import make_rng

GEO = Geometry(x_min_deg=0.0, x_max_deg=16.0, y_min_deg=0.0, y_max_deg=12.0)
runner = CliRunner()


def _device(tmp_path, i: int, *, gap: bool = False):
    g = np.random.default_rng(i)
    recs = []
    for k in range(2):
        n = 160 + 30 * k
        x = np.clip(8 + np.cumsum(g.normal(0, 0.3, n)), 0, 16)
        y = np.clip(6 + np.cumsum(g.normal(0, 0.3, n)), 0, 12)
        if gap:
            x[20:25] = y[20:25] = np.nan
        recs.append(Recording.from_arrays(recording=f"dev{i}-rec{k}", participant=f"person{i}",
                                          x=x, y=y, sampling_rate_hz=100, geometry=GEO,
                                          labels={"task": "read"}))
    return write_dataset(Dataset(tuple(recs), name=f"dev{i}"), tmp_path / f"dev{i}.parquet")


def _ok(*args: str) -> str:
    res = runner.invoke(app, list(args))
    assert res.exit_code == 0, res.output + repr(res.exception)
    return res.output


def _messages(tmp_path, n: int = 3, *extra: str, gap: bool = False) -> list[str]:
    out = []
    for i in range(n):
        msg = tmp_path / f"dev{i}.reports"
        _ok("client", str(_device(tmp_path, i, gap=gap)), str(msg), "--epsilon", "2",
            "--grid-size", "12", "--seed", str(100 + i), *extra)
        out.append(str(msg))
    return out


def test_devices_and_curator_write_a_sealed_release_equal_to_the_library_run(tmp_path):
    msgs = _messages(tmp_path)
    out = tmp_path / "release.parquet"
    text = _ok("curator", *msgs, str(out), "--seed", "5", "--epsilon", "2", "--grid-size", "12",
               "--id-map", str(tmp_path / "ids.csv"))
    assert "3 messages" in " ".join(text.split())
    table = pl.read_parquet(out)
    assert table.columns == ["participant", "recording", "t", "x", "y"]  # no label, no raw id
    assert not set(table["participant"]).intersection({"person0", "person1", "person2"})
    record = json.loads((tmp_path / "release.parquet.guarantee.json").read_text())
    assert record["mechanism"] == "dpgazesynth" and record["seed"] == 5
    assert len(record["per_participant"]) == 3
    # the same release as the library's curator over the same messages and generator
    ids = pl.read_csv(tmp_path / "ids.csv")
    to_raw = dict(zip(ids["pseudonym"], ids["raw"], strict=True))
    ref = curator_release([Path(m).read_bytes() for m in msgs],
                          rng=make_rng(5).spawn(2)[0])
    by_id = {r.recording: r for r in ref.output}
    released = read_dataset(out)
    assert len(released) == 6
    for r in released:
        np.testing.assert_array_equal(r.x, by_id[to_raw[r.recording]].x)


def test_curator_refuses_a_message_of_other_parameters_and_names_it(tmp_path):
    msgs = _messages(tmp_path, 2)
    other = tmp_path / "other.reports"
    _ok("client", str(_device(tmp_path, 7)), str(other), "--epsilon", "3", "--grid-size", "12")
    res = runner.invoke(app, ["curator", *msgs, str(other), str(tmp_path / "o.csv")])
    assert isinstance(res.exception, InvalidDataError)
    assert f"client message {str(other)!r} refused: parameters differ" in str(res.exception)
    assert "epsilon=3.0 (expected 2.0)" in str(res.exception)
    res = runner.invoke(app, ["curator", *msgs, str(tmp_path / "o.csv"), "--epsilon", "2",
                              "--grid-size", "10"])
    assert isinstance(res.exception, InvalidDataError)
    assert "grid_size=12 (expected 10)" in str(res.exception)
    assert not (tmp_path / "o.csv").exists()


def test_curator_refuses_a_corrupt_message_file(tmp_path):
    (msg,) = _messages(tmp_path, 1)
    data = bytearray(Path(msg).read_bytes())
    data[len(data) // 2] ^= 0x10
    bad = tmp_path / "bad.reports"
    bad.write_bytes(bytes(data))
    res = runner.invoke(app, ["curator", str(bad), str(tmp_path / "o.csv")])
    assert isinstance(res.exception, InvalidDataError)
    assert f"{str(bad)!r} refused: payload digest mismatch" in str(res.exception)


@pytest.mark.parametrize("missing", ["keep", "fill"])
def test_gaps_are_released_only_when_declared(tmp_path, missing):
    msgs = _messages(tmp_path, 2, "--missing", missing, "--oue-path", "curator-view", gap=True)
    out = tmp_path / "r.csv"
    args = ["curator", *msgs, str(out), "--seed", "1"]
    if missing == "keep":  # the devices sent the gaps; writing them needs --public mask
        res = runner.invoke(app, args)
        assert isinstance(res.exception, InvalidParameterError)
        assert "--public mask" in str(res.exception)
        args += ["--public", "mask"]
    _ok(*args)
    nan_rows = int(pl.read_csv(out)["x"].is_nan().sum())
    assert nan_rows == (2 * 2 * 5 if missing == "keep" else 0)
