# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth ``output_length_s`` (participant level): the written release has one public
length per recording, synthesised, and the record says so; without it the record says the row
counts are the input's. Also the sealed writer's way out of a kept missing-sample mask."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from gazeprivacy.cli.app import app
from gazeprivacy.data import Dataset, Geometry, Recording, read_dataset, write_dataset
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.mechanisms.contract import sample_shape
from gazeprivacy.mechanisms.release import guarantee_path, seal
from gazeprivacy.mechanisms.samples.dpgazesynth import (
    OUTPUT_LENGTH_REFUSAL,
    DPGazeSynthParams,
    client_release,
    curate,
    dpgazesynth,
    output_samples,
    perturb_reports,
    shape_guarantee,
    synthesise,
)

GEO = Geometry(x_min_deg=0.0, x_max_deg=100.0, y_min_deg=0.0, y_max_deg=100.0)
RATE = 20.0  # window_s 0.5 -> W = 10


def params(length: float | None = 3.0, **kw) -> DPGazeSynthParams:
    kw.setdefault("missing", "fill")
    return DPGazeSynthParams(epsilon=2.0, grid_size=10, unit="participant",
                             windows_per_participant=3, output_length_s=length, **kw)


def people(lengths: dict[str, list[int]], *, rate: float = RATE, gaps: bool = False) -> Dataset:
    """Participants with recordings of the given row counts, a pupil column and a label."""
    recs = []
    for i, (p, ns) in enumerate(lengths.items()):
        for j, n in enumerate(ns):
            g = np.random.default_rng(10 * i + j)
            x = np.clip(50 + np.cumsum(g.normal(0, 2.0, n)), 0, 100)
            y = np.clip(50 + np.cumsum(g.normal(0, 2.0, n)), 0, 100)
            if gaps:
                x[3:7] = np.nan
                y[3:7] = np.nan
            recs.append(Recording.from_arrays(
                recording=f"{p}-r{j}", participant=p, x=x, y=y, sampling_rate_hz=rate,
                geometry=GEO, pupil=np.full(n, 3.0), labels={"task": "read"}))
    return Dataset(tuple(recs), name="people")


def _rows(g) -> str:
    return next(c for c in g.columns if c.name == "rows").note


LENGTHS = {"a": [47, 95], "b": [131], "c": [60, 33, 88]}


def test_every_released_recording_has_the_public_length_and_the_record_says_so():
    ds = people(LENGTHS)
    p = params(3.0)
    rel = dpgazesynth(ds, p, rng=np.random.default_rng(0))
    assert output_samples(p, RATE) == 60
    assert [r.n_samples for r in rel.output] == [60] * len(ds)
    assert [(r.recording, r.participant, r.labels) for r in rel.output] == \
        [(r.recording, r.participant, r.labels) for r in ds]
    for r in rel.output:
        np.testing.assert_allclose(r.t, np.arange(60) / RATE)
        assert not np.isnan(r.x).any() and r.pupil is None and not r.channels
        assert ((r.x >= 0) & (r.x <= 100)).all()
    g = rel.guarantee
    assert g.parameters["output_length_s"] == 3.0
    assert g == shape_guarantee(p, sample_shape(ds))
    assert "3 s each, public" in g.parameters["release"]
    sealed = seal(rel, source=ds, rng=np.random.default_rng(1))
    assert sealed.table.group_by("recording").len()["len"].to_list() == [60] * len(ds)
    assert _rows(sealed.guarantee).startswith("public (set to 3 s by the release)")
    cols = {c.name: c for c in sealed.guarantee.columns}
    assert cols["recordings"].note.startswith("public (the input's)")
    # the input's per-row columns are listed as not written
    assert cols["pupil"].status == "not-written" and cols["task"].status == "not-written"
    # other rates: round(S x rate) rows each
    fast = dpgazesynth(people({"a": [300], "b": [170]}, rate=60.0), params(1.26),
                       rng=np.random.default_rng(0)).output
    assert [r.n_samples for r in fast] == [76, 76]


def test_without_output_length_the_record_says_the_lengths_are_the_input_s():
    ds = people(LENGTHS)
    rel = dpgazesynth(ds, params(None), rng=np.random.default_rng(0))
    assert [r.n_samples for r in rel.output] == [r.n_samples for r in ds]
    assert rel.guarantee.parameters["output_length_s"] is None
    assert "the input's row counts, public" in rel.guarantee.parameters["release"]
    sealed = seal(rel, source=ds, rng=np.random.default_rng(1))
    assert _rows(sealed.guarantee).startswith("public (the input's)")
    # a window-level release has the input's lengths too, and its record says so
    win = dpgazesynth(ds, DPGazeSynthParams(epsilon=1.0, grid_size=10, missing="fill"),
                      rng=np.random.default_rng(0))
    assert _rows(seal(win, source=ds, rng=np.random.default_rng(1)).guarantee).startswith(
        "public (the input's)")


def test_the_released_shape_does_not_depend_on_the_input_s_rows():
    """Synthesis at a public length from the same reports gives the same release whatever
    the recordings' gaze and row counts: it reads the public shape (ids, rate, geometry)."""
    ds = people(LENGTHS)
    other = people({"a": [200, 20], "b": [64], "c": [90, 300, 41]})
    p = params(2.0)
    rep = client_release(ds.recordings, p, np.random.default_rng(3))
    model = curate([perturb_reports(rep, p, np.random.default_rng(4))], p)
    out_a = synthesise(ds.recordings, rep, model, p, np.random.default_rng(5))
    out_b = synthesise(other.recordings, rep, model, p, np.random.default_rng(5))
    for u, v in zip(out_a, out_b, strict=True):
        assert u.n_samples == v.n_samples == 40
        np.testing.assert_array_equal(u.x, v.x)
        np.testing.assert_array_equal(u.y, v.y)


def test_output_length_is_refused_where_it_cannot_hold():
    with pytest.raises(InvalidParameterError, match="unit='participant' only"):
        DPGazeSynthParams(epsilon=1.0, output_length_s=3.0, missing="fill")
    assert "own report" in OUTPUT_LENGTH_REFUSAL
    with pytest.raises(InvalidParameterError, match="needs missing='fill'"):
        params(3.0, missing="keep")
    with pytest.raises(InvalidParameterError, match="output_length_s must be > 0"):
        params(-1.0)
    with pytest.raises(InvalidParameterError, match="gives 0 rows per recording"):
        dpgazesynth(people(LENGTHS), params(0.01), rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameterError, match="gives 0 rows per recording"):
        shape_guarantee(params(0.01), sample_shape(people(LENGTHS)))


def test_the_writer_refuses_a_record_whose_public_length_does_not_hold():
    ds = people(LENGTHS)
    rel = dpgazesynth(ds, params(3.0), rng=np.random.default_rng(0))
    for public in (["pupil"], ["t"]):
        with pytest.raises(InvalidParameterError, match="input's lengths"):
            seal(rel, source=ds, public=public, rng=np.random.default_rng(1))
    # input lengths kept while the record claims a public length: not written
    lying = type(rel)(ds, rel.guarantee)
    with pytest.raises(InvalidDataError, match=r"says every recording is 3 s long"):
        seal(lying, source=ds, rng=np.random.default_rng(1))


def _protect(src, out, *extra):
    return CliRunner().invoke(app, [
        "protect", str(src), str(out), "--mechanism", "dpgazesynth", "--grid-size", "10",
        "--per-participant-epsilon", "2", "--windows-per-participant", "3", "--seed", "1",
        *extra])


def test_cli_output_length_writes_one_length_and_the_record_says_so(tmp_path):
    src = write_dataset(people(LENGTHS), tmp_path / "in.parquet")
    out = tmp_path / "out.parquet"
    res = _protect(src, out, "--output-length-s", "2.5", "--param", "missing=fill")
    assert res.exit_code == 0, res.output + repr(res.exception)
    written = read_dataset(out)
    assert [r.n_samples for r in written] == [50] * 6
    for r in written:
        np.testing.assert_allclose(r.t, np.arange(50) / RATE)
    record = json.loads(guarantee_path(out).read_text())
    rows = next(c for c in record["columns"] if c["name"] == "rows")
    assert rows["note"].startswith("public (set to 2.5 s by the release)")
    assert record["parameters"]["output_length_s"] == 2.5
    plain = tmp_path / "plain.parquet"
    assert _protect(src, plain, "--param", "missing=fill").exit_code == 0
    inputs = sorted(n for ns in LENGTHS.values() for n in ns)
    assert sorted(r.n_samples for r in read_dataset(plain)) == inputs
    record = json.loads(guarantee_path(plain).read_text())
    rows = next(c for c in record["columns"] if c["name"] == "rows")
    assert rows["note"].startswith("public (the input's)")
    res = CliRunner().invoke(app, ["protect", str(src), str(tmp_path / "w.parquet"),
                                   "--mechanism", "dpgazesynth", "--epsilon", "1",
                                   "--output-length-s", "2", "--param", "missing=fill"])
    assert res.exit_code != 0 and "unit='participant' only" in str(res.exception)


def test_cli_kept_mask_at_participant_level_names_both_ways_out(tmp_path):
    src = write_dataset(people(LENGTHS, gaps=True), tmp_path / "in.parquet")
    res = _protect(src, tmp_path / "out.parquet")
    assert res.exit_code != 0
    message = str(res.exception)
    assert "--public mask" in message and "--param missing=fill" in message
    assert _protect(src, tmp_path / "a.parquet", "--public", "mask").exit_code == 0
    assert _protect(src, tmp_path / "b.parquet", "--param", "missing=fill").exit_code == 0
