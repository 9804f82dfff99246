# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy partition`` and ``gazeprivacy protect`` on a partitioned folder."""

from __future__ import annotations

import numpy as np
import polars as pl
from typer.testing import CliRunner

from gazeprivacy.cli.app import app, run
from gazeprivacy.data import write_dataset
from gazeprivacy.data.partitioned import PartitionedDataset
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.engines import read_guarantee
from gazeprivacy.mechanisms import protect

runner = CliRunner()


def test_partition_then_protect_folder(tmp_path):
    ds = simulate_dataset(n_participants=2, tasks=("reading", "free-viewing"), duration_s=2.0,
                          sampling_rate_hz=100, rng=np.random.default_rng(0))
    f = write_dataset(ds, tmp_path / "d.parquet")
    res = runner.invoke(app, ["partition", str(f), str(tmp_path / "parts"),
                              "--recordings-per-partition", "3"])
    assert res.exit_code == 0, res.output
    pds = PartitionedDataset(tmp_path / "parts")
    assert pds.n_partitions == 2 and pds.n_samples == ds.n_samples
    res = runner.invoke(app, ["protect", str(tmp_path / "parts"), str(tmp_path / "out"),
                              "--mechanism", "dpgazesynth", "--epsilon", "2", "--grid-size",
                              "10", "--seed", "3", "--public", "mask", "--public", "task",
                              "--id-map", str(tmp_path / "ids.csv")])
    assert res.exit_code == 0, res.output + repr(res.exception)
    out = PartitionedDataset(tmp_path / "out")
    ids = pl.read_csv(tmp_path / "ids.csv")
    raw = dict(zip(ids["pseudonym"], ids["raw"], strict=True))
    assert [sorted(raw[r] for r in p.recordings) for p in out.partitions] == [
        sorted(p.recordings) for p in pds.partitions]
    assert out.n_samples == ds.n_samples
    assert out.partition(0).to_table().columns == ["participant", "recording", "t", "x", "y",
                                                   "task"]
    g = read_guarantee(tmp_path / "out")
    whole = protect(ds, mechanism="dpgazesynth", epsilon=2.0, grid_size=10, seed=3).guarantee
    assert {raw[k]: b.epsilon for k, b in g.per_participant.items()} == {
        k: b.epsilon for k, b in whole.per_participant.items()}
    text = " ".join(res.output.split()).replace(".jso n", ".json")
    assert "2 partitions" in text and "guarantee record" in text
    # kaleido (the window is the user's to give) and --radius-frac from the partitions' geometry
    res = runner.invoke(app, ["protect", str(tmp_path / "parts"), str(tmp_path / "k"),
                              "--mechanism", "kaleido", "--epsilon", "1", "--radius-frac",
                              "0.05", "--window-s", "0.5", "--public", "mask"])
    assert res.exit_code == 0, res.output + repr(res.exception)
    # the output folder exists: refused without --overwrite, then replaced with it
    again = ["protect", str(tmp_path / "parts"), str(tmp_path / "out"), "--mechanism",
             "dpgazesynth", "--epsilon", "2", "--public", "mask"]
    res = runner.invoke(app, again)
    assert res.exit_code != 0 and "overwrite" in str(res.exception)
    res = runner.invoke(app, [*again, "--overwrite"])
    assert res.exit_code == 0, res.output + repr(res.exception)


def test_engine_option_needs_a_partitioned_input_and_unsupported_mechanisms(tmp_path):
    ds = simulate_dataset(n_participants=2, tasks=("reading",), duration_s=1.0,
                          sampling_rate_hz=100, rng=np.random.default_rng(1))
    f = write_dataset(ds, tmp_path / "d.parquet")
    res = runner.invoke(app, ["protect", str(f), str(tmp_path / "o.parquet"), "--mechanism",
                              "kaleido", "--epsilon", "1", "--radius-deg", "1", "--engine",
                              "dask"])
    assert res.exit_code != 0 and "partitioned INPUT" in str(res.exception)
    runner.invoke(app, ["partition", str(f), str(tmp_path / "p"), "--recordings-per-partition",
                        "1"])
    res = runner.invoke(app, ["protect", str(tmp_path / "p"), str(tmp_path / "o"),
                              "--mechanism", "event-synth-pd", "--k", "2", "--gamma", "2"])
    assert res.exit_code != 0 and "partition-wise" in str(res.exception)


def _files(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _error(capsys, *args) -> str:
    """Run the command in process (as `main`); it fails with exit 1 and one error line."""
    assert run(list(args)) == 1
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("error")]
    assert "Traceback" not in err and len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def test_partition_overwrite_keeps_the_old_folder_when_a_late_recording_is_bad(tmp_path,
                                                                               capsys):
    ds = simulate_dataset(n_participants=4, tasks=("reading",), duration_s=1.0,
                          sampling_rate_hz=50, rng=np.random.default_rng(1))
    f = write_dataset(ds, tmp_path / "d.parquet")
    parts = tmp_path / "parts"
    assert run(["partition", str(f), str(parts), "--recordings-per-partition", "1"]) == 0
    before = _files(parts)
    assert "_gazeprivacy.json" in before and len(before) == 5  # the manifest and 4 partitions
    table = ds.to_table()
    third = table["recording"].unique(maintain_order=True)[2]
    t = pl.when(pl.col("recording") == third).then(-pl.col("t")).otherwise(pl.col("t"))
    bad = tmp_path / "bad.parquet"
    table.with_columns(t.alias("t")).write_parquet(bad)  # the 3rd recording's t runs backwards
    err = _error(capsys, "partition", str(bad), str(parts), "--recordings-per-partition", "1",
                 "--overwrite")
    assert third in err and "strictly increasing" in err
    assert _files(parts) == before  # the old dataset is intact
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.parquet", "d.parquet", "parts"]
    # a non-empty folder that holds no partitioned dataset, or the input, is never replaced
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    err = _error(capsys, "partition", str(f), str(other), "--recordings-per-partition", "1",
                 "--overwrite")
    assert "holds no partitioned dataset" in err and (other / "notes.txt").read_text() == "mine"
    inside = parts / "in.parquet"
    inside.write_bytes(f.read_bytes())
    err = _error(capsys, "partition", str(inside), str(parts), "--recordings-per-partition",
                 "1", "--overwrite")
    assert "holds the input" in err and inside.is_file()


def test_a_corrupt_parquet_file_gives_protects_error_from_partition(tmp_path, capsys):
    for name, data in (("garbage", bytes(range(256)) * 3), ("footer", b"PAR1garbagePAR1")):
        bad = tmp_path / f"{name}.parquet"
        bad.write_bytes(data)
        got = _error(capsys, "partition", str(bad), str(tmp_path / "parts"),
                     "--recordings-per-partition", "1")
        want = _error(capsys, "protect", str(bad), str(tmp_path / "out.parquet"),
                      "--mechanism", "dpgazesynth", "--epsilon", "2", "--public", "mask")
        assert got == want  # the same line: partition reads the file as protect does
        assert f"cannot read {str(bad)!r} as parquet: the file is corrupt or not a Parquet " \
               "file (" in got
    assert sorted(p.name for p in tmp_path.iterdir()) == ["footer.parquet", "garbage.parquet"]
