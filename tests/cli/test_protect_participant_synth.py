# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy protect --mechanism participant-synth``: the written file and the flags."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from gazeprivacy.cli.app import app
from gazeprivacy.data.io import write_dataset
from gazeprivacy.data.recording import Dataset
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.mechanisms.release import guarantee_path

runner = CliRunner()
BASE = ("--mechanism", "participant-synth", "--per-participant-epsilon", "3",
        "--per-participant-delta", "1e-6", "--output-length-s", "2", "--seed", "1")


def _pilot(ds: Dataset) -> Dataset:
    """A pilot of its own: the simulator numbers participants p01, p02, ... in every dataset,
    so a simulated pilot is renamed (the input's p01 is someone else)."""
    return Dataset(tuple(r.with_gaze(r.x, r.y, participant="pilot") for r in ds))


@pytest.fixture(scope="module")
def src(tmp_path_factory):
    ds = simulate_dataset(n_participants=3, tasks=("free-viewing", "reading"),
                          recordings_per_task=2, duration_s=3.0, sampling_rate_hz=100,
                          rng=np.random.default_rng(4))
    return write_dataset(ds, tmp_path_factory.mktemp("in") / "in.parquet"), ds


def test_the_file_holds_only_synthetic_pseudonyms_the_grid_xy_and_declared_labels(src,
                                                                                 tmp_path):
    path, ds = src
    out = tmp_path / "out.parquet"
    res = runner.invoke(app, ["protect", str(path), str(out), *BASE, "--public", "task",
                              "--participants", "4", "--recordings-per-participant", "2"])
    assert res.exit_code == 0, res.output + repr(res.exception)
    table = pl.read_parquet(out)
    assert table.columns == ["participant", "recording", "t", "x", "y", "task"]
    assert table["participant"].n_unique() == 4 and table["recording"].n_unique() == 16
    assert set(table.group_by("recording").len()["len"].to_list()) == {200}
    raw = set(ds.participants) | {r.recording for r in ds}
    assert raw.isdisjoint(set(table["participant"]) | set(table["recording"]))
    assert sorted(table["task"].unique().to_list()) == ["free-viewing", "reading"]
    record = json.loads(guarantee_path(out).read_text())
    assert record["kind"] == "rho-zCDP" and record["unit"] == "participant"
    assert record["epsilon"] == 3.0 and record["delta"] == 1e-6
    assert record["parameters"]["conversion"].startswith("Canonne, Kamath & Steinke")
    written = {c["name"] for c in record["columns"] if c["status"] != "not-written"}
    assert set(table.columns) <= written
    assert "rho-zCDP per participant" in res.output


@pytest.mark.parametrize(("extra", "message"), [
    (("--windows-per-participant", "4"), "--windows-per-participant does not apply"),
    (("--public", "participant"), "--public participant does not apply"),
    (("--epsilon", "1"), "--epsilon does not apply to a synthetic population"),
], ids=["windows", "raw_ids_public", "epsilon"])
def test_flags_that_do_not_apply_are_named(src, tmp_path, extra, message):
    res = runner.invoke(app, ["protect", str(src[0]), str(tmp_path / "o.parquet"), *BASE,
                              *extra])
    assert res.exit_code != 0 and message in str(res.exception)
    assert not (tmp_path / "o.parquet").exists()


def test_delta_is_required(src, tmp_path):
    res = runner.invoke(app, ["protect", str(src[0]), str(tmp_path / "o.parquet"), "--mechanism",
                              "participant-synth", "--per-participant-epsilon", "3",
                              "--output-length-s", "2"])
    assert res.exit_code != 0
    assert "needs --per-participant-epsilon and --per-participant-delta" in str(res.exception)


def test_synthetic_flags_are_refused_for_other_mechanisms(src, tmp_path):
    res = runner.invoke(app, ["protect", str(src[0]), str(tmp_path / "o.parquet"), "--mechanism",
                              "kaleido", "--epsilon", "1", "--radius-deg", "1", "--window-s",
                              "0.5", "--per-participant-delta", "1e-6"])
    assert res.exit_code != 0 and "--per-participant-delta applies to a synthetic-population" \
        in str(res.exception)


def test_write_release_refuses_keywords_and_records_the_public_structure(src, tmp_path):
    import gazeprivacy as gp
    from gazeprivacy.exceptions import InvalidParameterError

    _, ds = src
    rel = gp.protect(ds, mechanism="participant-synth", epsilon_per_participant=3.0,
                     delta=1e-6, output_length_s=1.0, public_labels=("task",), seed=0)
    for bad in ("participant", "t", "mask", "info", "pupil"):
        with pytest.raises(InvalidParameterError, match=f"{bad} does not apply to "
                                                        "participant-synth"):
            gp.write_release(rel, tmp_path / "x.parquet", source=ds, public=["task", bad])
    sealed = gp.write_release(rel, tmp_path / "ok.parquet", source=ds, public=["task"])
    assert sealed.table.columns == ["participant", "recording", "t", "x", "y", "task"]
    recordings = sealed.guarantee.column("recordings")
    assert recordings.by == "participant-synth parameters"
    assert "3 synthetic participants x 2 public label values x 1 recordings" in recordings.note
    assert "input's recordings" in recordings.note


def test_a_declared_tracker_is_read_from_a_pilot_file_and_recorded(src, tmp_path):
    pilot = _pilot(simulate_dataset(n_participants=1, tasks=("free-viewing",), duration_s=3.0,
                                    sampling_rate_hz=100, rng=np.random.default_rng(9)))
    pilot_path = write_dataset(pilot, tmp_path / "pilot.parquet")
    out = tmp_path / "out.parquet"
    res = runner.invoke(app, ["protect", str(src[0]), str(out), *BASE,
                              "--declared-tracker", str(pilot_path)])
    assert res.exit_code == 0, res.output + repr(res.exception)
    record = json.loads(guarantee_path(out).read_text())
    declared = record["parameters"]["declared_tracker"]
    assert declared["source"] == "file pilot.parquet" and declared["median_step_deg"] > 0
    assert record["parameters"]["split"]["tracker_step"] == 0.0
    assert any("declared public by the user" in n for n in record["notes"])


def test_declared_trackers_of_several_pilots_are_a_population_in_the_record(src, tmp_path):
    paths = []
    for i, noise in enumerate((0.0, 0.5)):
        pilot = simulate_dataset(n_participants=1, tasks=("free-viewing",), duration_s=3.0,
                                 sampling_rate_hz=100, rng=np.random.default_rng(9 + i))
        rng = np.random.default_rng(i)
        pilot = _pilot(Dataset(tuple(r.with_gaze(r.x + rng.normal(0, noise, r.x.size), r.y)
                                     for r in pilot)))
        paths += ["--declared-tracker", str(write_dataset(pilot, tmp_path / f"p{i}.parquet"))]
    out = tmp_path / "out.parquet"
    res = runner.invoke(app, ["protect", str(src[0]), str(out), *BASE, *paths])
    assert res.exit_code == 0, res.output + repr(res.exception)
    record = json.loads(guarantee_path(out).read_text())
    declared = record["parameters"]["declared_tracker"]
    assert [d["source"] for d in declared] == ["file p0.parquet", "file p1.parquet"]
    assert declared[1]["median_step_deg"] > 3 * declared[0]["median_step_deg"]
    assert any("population of 2" in n for n in record["notes"])


@pytest.mark.parametrize("case", ["other_mechanism", "the_input", "no_file", "twice",
                                  "an_input_participant"])
def test_a_declared_tracker_that_cannot_be_used_is_refused(src, tmp_path, case):
    path = str(src[0])
    pilot = str(write_dataset(_pilot(simulate_dataset(
        n_participants=1, tasks=("free-viewing",), duration_s=3.0, sampling_rate_hz=100,
        rng=np.random.default_rng(9))), tmp_path / "pilot.parquet"))
    # a file of its own that holds one of INPUT's participants (the same id)
    first = sorted(src[1].participants)[0]
    theirs = str(write_dataset(src[1].select(lambda r: r.participant == first),
                               tmp_path / "theirs.parquet"))
    args = {"other_mechanism": ["--mechanism", "kaleido", "--epsilon", "1", "--radius-deg", "1",
                                "--window-s", "0.5", "--declared-tracker", path],
            "the_input": [*BASE, "--declared-tracker", pilot, "--declared-tracker", path],
            "no_file": [*BASE, "--declared-tracker", str(tmp_path / "none.parquet")],
            "twice": [*BASE, "--declared-tracker", pilot, "--declared-tracker", pilot],
            "an_input_participant": [*BASE, "--declared-tracker", pilot,
                                     "--declared-tracker", theirs]}[case]
    message = {"other_mechanism": "--declared-tracker applies to a synthetic-population",
               "the_input": "--declared-tracker must be a recording of no participant of INPUT",
               "no_file": "--declared-tracker: no such file",
               "twice": "pilot.parquet is given twice",
               "an_input_participant": f"was read from participant {first!r}, who is in the "
                                       "input"}[case]
    res = runner.invoke(app, ["protect", path, str(tmp_path / "o.parquet"), *args])
    assert res.exit_code != 0 and message in str(res.exception)
    assert not (tmp_path / "o.parquet").exists()
