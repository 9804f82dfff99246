# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Issue 14, first "Done when": ``gazeprivacy protect`` writes nothing but what its record lists.

The input has pupil, head-pose channels, a pixel copy of gaze, distinctive ids, a gender label,
dataset info naming a site, and jittered timestamps. For each sample mechanism in its default
mode, the written file (and its metadata sidecar and record) must hold no raw id or label value,
no written column besides the protected gaze, the public grid and the pseudonymised ids may
correlate (row by row, |r| > 0.5) with any raw numeric column, and the record must list every
written column. On the main branch before the sealed writer, every raw column was copied.
"""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from gazeprivacy.cli.app import app
from gazeprivacy.data import Dataset, Recording, read_dataset, write_dataset
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.guarantees import Guarantee

runner = CliRunner()
RAW_NUMERIC = ("t", "x", "y", "pupil", "head_yaw", "head_pitch", "x_px")
EXEMPT = {"participant", "recording", "t", "x", "y"}  # ids, public grid, protected gaze
MECHANISMS = {
    "dpgazesynth": ["--epsilon", "2", "--grid-size", "20"],
    "kaleido": ["--epsilon", "2", "--radius-deg", "2", "--window-s", "0.5"],
    "k-same-synth": ["--k", "2"],
    "event-synth-pd": ["--k", "2", "--gamma", "3", "--param", "epsilon0=1",
                       "--param", "cvae_epochs=2",
                       "--param", "max_tries=3"],
}
NAMES = ("Quill", "Marlow", "Vesper", "Tamsin")


def rich_dataset() -> Dataset:
    """Four participants x two tasks, 4 s at 100 Hz, with every kind of extra column."""
    sim = simulate_dataset(n_participants=4, tasks=("reading", "free-viewing"), duration_s=4.0,
                           sampling_rate_hz=100, rng=np.random.default_rng(14), blink_rate_hz=0)
    g = np.random.default_rng(1)
    recs = []
    for r in sim:
        who = NAMES[int(r.participant[1:]) - 1]
        n = r.n_samples
        recs.append(Recording(
            recording=f"rec-{who}-{r.labels['task']}", participant=f"subj-{who}",
            t=1000.0 + r.t + g.uniform(0, 0.003, n), x=r.x, y=r.y, sampling_rate_hz=100,
            labels={"task": r.labels["task"], "stimulus": f"stim-{r.labels['task']}",
                    "gender": f"gender-{'FM'[len(recs) % 2]}-label"},
            pupil=r.pupil, geometry=r.geometry,
            channels={"head_yaw": np.cumsum(g.normal(0, 0.1, n)),
                      "head_pitch": np.cumsum(g.normal(0, 0.1, n)),
                      "x_px": r.x * 35.0}))
    return Dataset(tuple(recs), name="study-Orchid", info={"site": "clinic-Heron"})


def forbidden(ds: Dataset) -> set[str]:
    """Every raw id and label value, and the dataset's name and info values."""
    out = {ds.name, "clinic-Heron"}
    for r in ds:
        out |= {r.participant, r.recording, *r.labels.values()}
    return out


def raw_rows(src: Dataset, sealed: pl.DataFrame, id_map: pl.DataFrame) -> pl.DataFrame:
    """The raw table re-ordered to the release's rows (through the id map)."""
    to_raw = dict(zip(id_map["pseudonym"], id_map["raw"], strict=True))
    order = list(dict.fromkeys(sealed["recording"]))
    return pl.concat([src[to_raw[p]].to_table() for p in order], how="diagonal_relaxed")


def check_release(src_ds: Dataset, out, id_map_path, *, allowed_extra: set[str]) -> Guarantee:
    from gazeprivacy.guarantees import Status  # new with the release schema

    written = pl.read_csv(out)
    id_map = pl.read_csv(id_map_path)
    raw = raw_rows(src_ds, written, id_map)
    assert written.height == raw.height
    assert set(written.columns) <= EXEMPT | allowed_extra
    # 1. no raw id or label value anywhere in the file, its metadata or its record
    text = "".join(p.read_text() for p in (out, out.with_name(out.name + ".meta.json"),
                                           out.with_name(out.name + ".guarantee.json")))
    declared = {r.labels[c] for r in src_ds for c in allowed_extra if c in r.labels}
    leaked = sorted(v for v in forbidden(src_ds) - declared if v in text)
    assert not leaked, f"raw values in the release: {leaked}"
    # 2. no non-exempt column correlates with a raw numeric column, row by row
    for col in set(written.columns) - EXEMPT:
        if not written.schema[col].is_numeric():
            continue  # a declared label: its values are public by the user's declaration
        a = written[col].cast(pl.Float64).to_numpy()
        for rc in RAW_NUMERIC:
            b = raw[rc].to_numpy()
            ok = np.isfinite(a) & np.isfinite(b)
            r = np.corrcoef(a[ok], b[ok])[0, 1]
            assert abs(r) <= 0.5, f"{col} correlates with raw {rc}: r = {r:.3f}"
    # the grid is the public one, not the raw (jittered) clock
    t = written["t"].to_numpy()
    grid = np.concatenate([np.arange(n) / 100 for n in written.group_by(
        "recording", maintain_order=True).len()["len"]])
    np.testing.assert_allclose(t, grid, atol=1e-12)
    # 3. the record lists every written column with its status
    g = Guarantee.from_json(out.with_name(out.name + ".guarantee.json").read_text())
    for col in written.columns:
        status = g.column(col)
        assert status is not None and status.status is not Status.NOT_WRITTEN, col
    assert g.column("x").status is Status.PROTECTED
    assert {g.column(c).status for c in ("participant", "recording")} == {Status.PSEUDONYMISED}
    return g


@pytest.mark.parametrize("mechanism", list(MECHANISMS))
def test_default_release_holds_only_gaze_grid_and_pseudonyms(tmp_path, mechanism):
    ds = rich_dataset()
    src = write_dataset(ds, tmp_path / "raw.csv")
    out = tmp_path / "out.csv"
    res = runner.invoke(app, ["protect", str(src), str(out), "--mechanism", mechanism,
                              *MECHANISMS[mechanism], "--seed", "3",
                              "--id-map", str(tmp_path / "ids.csv")])
    assert res.exit_code == 0, res.output + repr(res.exception)
    check_release(read_dataset(src), out, tmp_path / "ids.csv", allowed_extra=set())
    assert pl.read_csv(out).columns == ["participant", "recording", "t", "x", "y"]
    assert json.loads(out.with_name(out.name + ".meta.json").read_text())["info"] == {}


@pytest.mark.parametrize("mechanism", ["dpgazesynth", "kaleido"])
def test_protected_pupil_and_a_declared_label(tmp_path, mechanism):
    ds = rich_dataset()
    src = write_dataset(ds, tmp_path / "raw.csv")
    out = tmp_path / "out.csv"
    res = runner.invoke(app, ["protect", str(src), str(out), "--mechanism", mechanism,
                              *MECHANISMS[mechanism], "--seed", "3", "--public", "task",
                              "--pupil-epsilon", "1", "--pupil-range", "1", "9",
                              "--id-map", str(tmp_path / "ids.csv")])
    assert res.exit_code == 0, res.output + repr(res.exception)
    raw = read_dataset(src)
    g = check_release(raw, out, tmp_path / "ids.csv", allowed_extra={"pupil", "task"})
    assert g.column("pupil").status.value == "protected" and g.epsilon == pytest.approx(3.0)
    assert g.column("task").status.value == "public-declared"
    assert g.column("gender").status.value == "not-written"


@pytest.mark.parametrize("mechanism", ["dpgazesynth", "kaleido"])
def test_no_raw_column_id_or_label_is_written_without_options(tmp_path, mechanism):
    """Issue 14 items 1 and 2 with the options that exist before the release schema: fails on
    the main branch that copied pupil, head pose, x_px, labels, ids and the clock."""
    ds = rich_dataset()
    src = write_dataset(ds, tmp_path / "raw.csv")
    out = tmp_path / "out.csv"
    res = runner.invoke(app, ["protect", str(src), str(out), "--mechanism", mechanism,
                              *MECHANISMS[mechanism], "--seed", "3"])
    assert res.exit_code == 0, res.output + repr(res.exception)
    written = pl.read_csv(out)
    assert written.columns == ["participant", "recording", "t", "x", "y"]
    text = out.read_text() + out.with_name(out.name + ".meta.json").read_text()
    assert not sorted(v for v in forbidden(ds) if v in text)
    assert written["t"].max() < 4.0  # the grid from 0, not the raw clock (from 1000 s)


def test_kaleido_window_is_not_injected(tmp_path):
    src = write_dataset(rich_dataset(), tmp_path / "raw.csv")
    res = runner.invoke(app, ["protect", str(src), str(tmp_path / "o.csv"), "--mechanism",
                              "kaleido", "--epsilon", "1", "--radius-deg", "1"])
    assert res.exit_code != 0
    assert "window_samples and window_s" in str(res.exception)
