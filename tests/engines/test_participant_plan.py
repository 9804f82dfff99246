# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Participant-level DPGazeSynth partition-wise (a participant-grouped plan): the windows drawn
across partitions, the release bit-equal to the one-process file release at a seed, the record,
and the CLI (local engine; the Dask engine is tests/engines/test_dask.py)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from gaze_helpers import assert_same_gaze
from gazeprivacy.cli.app import app
from gazeprivacy.data import Dataset, write_dataset
from gazeprivacy.data.partitioned import PartitionedDataset, split_dataset, write_partitioned
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.engines import iter_protected, partition_streams, plan_for, protect_partitioned
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.mechanisms import protect
from gazeprivacy.mechanisms.samples.dpgazesynth import (
    DPGazeSynthParams,
    participant_windows,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.participant_plan import (
    ParticipantPhases,
    draw_windows,
    partition_shape,
)
from gazeprivacy.rng import make_rng

P = {"epsilon": 3.0, "grid_size": 10, "unit": "participant", "windows_per_participant": 2,
     "missing": "fill"}


@pytest.fixture(scope="module")
def ds():
    # 3 participants x 2 tasks, a participant's recordings consecutive: in partitions of 3
    # recordings participant p02 spans partitions 0 and 1
    return simulate_dataset(n_participants=3, tasks=("reading", "free-viewing"), duration_s=3.0,
                            sampling_rate_hz=100, rng=np.random.default_rng(0))


def _one_process(ds, seed, **kw):
    """The one-process file release's mechanism output (protect_file's generator)."""
    return protect(ds, mechanism="dpgazesynth", rng=make_rng(seed).spawn(2)[0], **kw)



def test_the_plan_is_participant_grouped():
    plan = plan_for("dpgazesynth", **P)
    assert isinstance(plan, ParticipantPhases) and plan.grouped


@pytest.mark.parametrize("per_part", [1, 2, 3, 6])
def test_windows_drawn_from_public_counts_are_those_of_one_process(ds, per_part):
    p = DPGazeSynthParams(**{**P, "windows_per_participant": 3})
    whole = participant_windows(ds.recordings, p, np.random.default_rng(4))
    parts = split_dataset(ds, per_part)
    drawn = draw_windows([partition_shape(q, p) for q in parts], p, np.random.default_rng(4))
    offsets = np.cumsum([0] + [sum(partition_shape(q, p).n_windows) for q in parts])
    np.testing.assert_array_equal(np.concatenate([d + o for d, o in
                                                  zip(drawn, offsets, strict=False)]), whole)
    assert whole.size == 3 * 3


def test_too_few_windows_over_all_partitions_is_refused(ds):
    p = DPGazeSynthParams(**{**P, "windows_per_participant": 13})  # 2 x 6 windows each
    with pytest.raises(InvalidDataError, match="windows_per_participant=13"):
        draw_windows([partition_shape(q, p) for q in split_dataset(ds, 3)], p,
                     np.random.default_rng(0))


@pytest.mark.parametrize("per_part", [1, 3, 5])
def test_release_is_bit_equal_to_one_process_at_a_seed(ds, per_part):
    parts = split_dataset(ds, per_part)
    spanning = set(parts[0].participants) & set(parts[1].participants)
    assert spanning or per_part == 1
    stream = iter_protected(parts, mechanism="dpgazesynth", seed=8, **P)
    out = [r for _, rel in stream for r in rel]
    one = _one_process(ds, 8, **P)
    assert_same_gaze(Dataset(tuple(out)), one.output)
    g, w = stream.guarantee, one.guarantee
    assert g.per_participant == w.per_participant  # m windows each, the same rule
    assert (g.epsilon, g.unit) == (w.epsilon, w.unit)


def test_missing_keep_and_output_length_are_bit_equal_too(ds):
    rng = np.random.default_rng(3)
    gaps = [rng.random(r.n_samples) < 0.1 for r in ds]
    holes = Dataset(tuple(r.with_gaze(np.where(g, np.nan, r.x), np.where(g, np.nan, r.y))
                          for r, g in zip(ds, gaps, strict=True)))
    for kw in ({**P, "missing": "keep"}, {**P, "output_length_s": 2.0}):
        stream = iter_protected(split_dataset(holes, 3), mechanism="dpgazesynth", seed=2, **kw)
        assert_same_gaze(Dataset(tuple(r for _, rel in stream for r in rel)),
                   _one_process(holes, 2, **kw).output)


def test_another_seed_or_partitioning_of_the_streams_changes_nothing_but_the_seed(ds):
    parts = split_dataset(ds, 3)
    a = [r.x for _, rel in iter_protected(parts, mechanism="dpgazesynth", seed=1, **P)
         for r in rel]
    b = [r.x for _, rel in iter_protected(parts, mechanism="dpgazesynth", seed=2, **P)
         for r in rel]
    assert not np.array_equal(a[0], b[0])
    assert partition_streams(1, 2).root().random() == make_rng(1).spawn(2)[0].random()


def test_protect_partitioned_and_cli_equal_the_single_file_release(ds, tmp_path):
    src = write_partitioned(ds, tmp_path / "in", recordings_per_partition=3)
    rel = protect_partitioned(src, tmp_path / "py", mechanism="dpgazesynth", seed=5,
                              id_map_path=tmp_path / "py.ids.csv", **P)
    assert rel.guarantee.max_participant_epsilon == pytest.approx(3.0)
    f = write_dataset(ds, tmp_path / "d.parquet")
    args = ["--mechanism", "dpgazesynth", "--per-participant-epsilon", "3",
            "--windows-per-participant", "2", "--grid-size", "10", "--param", "missing=fill",
            "--seed", "5"]
    runner = CliRunner()
    for inp, out in ((src.path, "parts"), (f, "one.parquet")):
        res = runner.invoke(app, ["protect", str(inp), str(tmp_path / out), *args,
                                  "--id-map", str(tmp_path / f"{out}.ids.csv")])
        assert res.exit_code == 0, res.output + repr(res.exception)
    files = [tmp_path / "parts" / p.file for p in PartitionedDataset(tmp_path / "parts")
             .partitions]
    parts = _raw(pl.concat([pl.read_parquet(p) for p in files]), tmp_path / "parts.ids.csv")
    one = _raw(pl.read_parquet(tmp_path / "one.parquet"), tmp_path / "one.parquet.ids.csv")
    assert parts.height == ds.n_samples and parts.equals(one)
    py = _raw(pl.concat([pl.read_parquet(tmp_path / "py" / p.file)
                         for p in rel.output.partitions]), tmp_path / "py.ids.csv")
    assert py.equals(one)  # the Python call and the CLI: one release (pseudonyms apart)


def _raw(table, ids):
    """Rows with raw ids (from the id map) in (recording, t) order."""
    m = pl.read_csv(ids)
    maps = {k: dict(m.filter(pl.col("kind") == k).select("pseudonym", "raw").iter_rows())
            for k in ("participant", "recording")}
    return table.with_columns(pl.col(k).replace_strict(v) for k, v in maps.items()).sort(
        "recording", "t")


class _CountsPlan:
    """A toy participant-grouped plan: each participant's bounded statistic (its sample count,
    clipped per partition) summed across partitions before the curator adds the noise once;
    the release writes the noisy total of each recording's participant as its gaze."""

    mechanism = "toy"
    grouped = True

    def shape(self, part):
        return tuple(r.participant for r in part)

    def assign(self, shapes, root):
        self.seen = shapes
        return self

    def client(self, i, part, rng):
        out: dict[str, float] = {}
        for r in part:
            out[r.participant] = out.get(r.participant, 0.0) + min(r.n_samples, 250) / 10
        return out

    def merge(self, messages):
        total: dict[str, float] = {}
        for m in messages:
            for k, v in m.items():
                total[k] = total.get(k, 0.0) + v
        return total

    def curate(self, messages, rng):
        (sums,) = messages  # folded by merge
        noisy = {k: v + rng.laplace(0, 1.0) for k, v in sorted(sums.items())}
        return noisy, [None] * len(self.seen)

    def release(self, i, part, model, piece, rng):
        from gazeprivacy.guarantees import Guarantee, Kind, Release, Unit

        out = tuple(r.with_gaze(np.full(r.n_samples, model[r.participant]),
                                np.zeros(r.n_samples)) for r in part)
        g = Guarantee(mechanism="toy", kind=Kind.LOCAL_DP, unit=Unit.PARTICIPANT, epsilon=1.0)
        return Release(Dataset(out, name=part.name), g.compose(
            {r.participant: 1 for r in part}))


def test_a_grouped_plan_sums_a_spanning_participants_statistics_before_the_noise(ds):
    from gazeprivacy.engines.local import iter_release

    parts = split_dataset(ds, 3)  # p02: one recording in each of partitions 0 and 1
    plan = _CountsPlan()
    released = [(i, r.participant, float(r.x[0])) for i, _, rel in
                iter_release(parts, plan, partition_streams(0, 2)) for r in rel.output]
    assert plan.seen == [("p01", "p01", "p02"), ("p02", "p03", "p03")]
    p02 = {v for i, q, v in released if q == "p02"}
    assert len(p02) == 1  # noised once: the same value in both partitions
    # each participant's two recordings (25 each after clipping), summed over partitions
    assert all(abs(v - 50) < 10 for _, _, v in released)
    assert len({v for _, _, v in released}) == 3


def test_a_fixed_public_structure_is_refused_partition_wise():
    from gazeprivacy.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="recordings_per_participant cannot run "
                                                    "partition-wise"):
        plan_for("dpgazesynth", **{**P, "output_length_s": 2.0,
                                   "recordings_per_participant": 2})
