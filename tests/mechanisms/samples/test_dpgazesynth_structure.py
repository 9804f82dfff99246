# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""A fixed public structure: participant-level DPGazeSynth with ``recordings_per_participant``
and ``output_length_s`` writes the same number of recordings per participant and one length,
whatever the input's; the writer refuses a record whose structure does not hold; ``explain()``
lists the input's structure as not protected otherwise."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from gazeprivacy.cli.app import app
from gazeprivacy.data import Dataset, Geometry, Recording, read_dataset, write_dataset
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.guarantees import Release
from gazeprivacy.mechanisms.contract import sample_shape
from gazeprivacy.mechanisms.release import PublicStructure, guarantee_path, seal
from gazeprivacy.mechanisms.samples.dpgazesynth import (
    DPGazeSynthParams,
    dpgazesynth,
    shape_guarantee,
)

GEO = Geometry(x_min_deg=0.0, x_max_deg=100.0, y_min_deg=0.0, y_max_deg=100.0)
RATE = 20.0
LENGTHS = {"a": [47, 95], "b": [131], "c": [60, 33, 88]}


def params(**kw) -> DPGazeSynthParams:
    kw.setdefault("output_length_s", 3.0)
    return DPGazeSynthParams(epsilon=2.0, grid_size=10, unit="participant",
                             windows_per_participant=3, missing="fill", **kw)


def people(lengths: dict[str, list[int]], rate: float = RATE) -> Dataset:
    recs = []
    for i, (p, ns) in enumerate(lengths.items()):
        for j, n in enumerate(ns):
            g = np.random.default_rng(10 * i + j)
            recs.append(Recording.from_arrays(
                recording=f"{p}-r{j}", participant=p,
                x=np.clip(50 + np.cumsum(g.normal(0, 2.0, n)), 0, 100),
                y=np.clip(50 + np.cumsum(g.normal(0, 2.0, n)), 0, 100),
                sampling_rate_hz=rate, geometry=GEO, labels={"task": "read"}))
    return Dataset(tuple(recs), name="people")


def test_every_participant_gets_r_recordings_of_one_length_whatever_the_input():
    ds, other = people(LENGTHS), people({"a": [300], "b": [40, 50, 60, 70], "c": [90]})
    p = params(recordings_per_participant=2)
    for data in (ds, other):
        rel = dpgazesynth(data, p, rng=np.random.default_rng(0))
        per = {}
        for r in rel.output:
            per[r.participant] = per.get(r.participant, 0) + 1
            assert r.n_samples == 60 and not r.labels and r.recording.startswith(r.participant)
        assert per == {"a": 2, "b": 2, "c": 2}
        sealed = seal(rel, source=data, rng=np.random.default_rng(1))
        cols = {c.name: c for c in sealed.guarantee.columns}
        assert cols["recordings"].note.startswith("public (set to 2 by the release)")
        assert cols["rows"].note.startswith("public (set to 3 s by the release)")
        # explain(): fixed, so it carries nothing of the input
        text = sealed.guarantee.explain()
        assert "recordings per participant: fixed by the release" in text
        assert "9x chance" not in text
    assert rel.guarantee.parameters["recordings_per_participant"] == 2
    assert rel.guarantee == shape_guarantee(p, sample_shape(other))


def test_without_a_fixed_structure_explain_lists_the_input_s_structure_as_not_protected():
    ds = people(LENGTHS)
    rel = dpgazesynth(ds, params(output_length_s=None), rng=np.random.default_rng(0))
    text = seal(rel, source=ds, rng=np.random.default_rng(1)).guarantee.explain()
    section = text.split("## What is NOT protected")[1]
    assert "recordings per participant: the input's" in section and "9x chance" in section
    assert "rows per recording: the input's recording lengths" in section
    assert "4.0x chance on DOVES" in section


def test_the_writer_refuses_a_record_whose_recordings_per_participant_do_not_hold():
    ds = people(LENGTHS)
    rel = dpgazesynth(ds, params(recordings_per_participant=2), rng=np.random.default_rng(0))
    lying = Release(Dataset(rel.output.recordings[:-1]), rel.guarantee)  # c has 1, not 2
    with pytest.raises(InvalidDataError, match="every participant has 2 recordings"):
        seal(lying, rng=np.random.default_rng(1))


def test_fixed_structure_refusals():
    with pytest.raises(InvalidParameterError, match="needs output_length_s"):
        params(output_length_s=None, recordings_per_participant=2)
    with pytest.raises(InvalidParameterError, match="recordings_per_participant must be"):
        params(recordings_per_participant=0)
    with pytest.raises(InvalidParameterError, match="recordings_per_participant must be"):
        PublicStructure(recordings_per_participant=0)
    mixed = Dataset((*people({"a": [80]}).recordings, *people({"b": [160]}, 40.0).recordings))
    with pytest.raises(InvalidDataError, match="2 sampling rates"):
        dpgazesynth(mixed, params(recordings_per_participant=1), rng=np.random.default_rng(0))


def test_cli_recordings_per_participant(tmp_path):
    src = write_dataset(people(LENGTHS), tmp_path / "in.parquet")
    out = tmp_path / "out.parquet"
    res = CliRunner().invoke(app, [
        "protect", str(src), str(out), "--mechanism", "dpgazesynth", "--grid-size", "10",
        "--per-participant-epsilon", "2", "--windows-per-participant", "3",
        "--param", "missing=fill", "--output-length-s", "2", "--recordings-per-participant",
        "3"])
    assert res.exit_code == 0, res.output + repr(res.exception)
    written = read_dataset(out)
    assert len(written) == 9 and {r.n_samples for r in written} == {40}
    counts = written.to_table().group_by("participant").agg(
        n=pl.col("recording").n_unique())["n"].to_list()
    assert counts == [3, 3, 3]
    record = json.loads(guarantee_path(out).read_text())
    assert record["parameters"]["recordings_per_participant"] == 3


def test_the_report_lists_the_public_structure_as_not_protected():
    from gazeprivacy.guarantees import Guarantee, Kind, Unit
    from gazeprivacy.report.summary import not_protected

    ds = people(LENGTHS)
    rel = dpgazesynth(ds, params(output_length_s=None), rng=np.random.default_rng(0))
    lines = not_protected(seal(rel, source=ds, rng=np.random.default_rng(1)).guarantee)
    assert any(x.startswith("structure, recordings per participant") and "9x chance" in x
               for x in lines)
    assert any(x.startswith("structure, rows per recording") for x in lines)
    assert not any("missing-sample mask" in x for x in lines)  # missing='fill': no mask
    heat = Guarantee(mechanism="heatmap-laplace", kind=Kind.PURE_DP, unit=Unit.RECORDING,
                     epsilon=1.0)
    assert heat.public_structure() == []
