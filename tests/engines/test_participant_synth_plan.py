# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth partition-wise (a participant-grouped plan) on the local engine: a
participant split across partitions, the release bit-equal to the one-process run at a seed
(in memory and the single-file CLI), the record, and a recording in two partitions refused (the
Dask engine is tests/engines/test_dask.py)."""

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
from gazeprivacy.engines import iter_protected, plan_for
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.mechanisms import protect
from gazeprivacy.mechanisms.samples.participant_synth import ParticipantSynthPhases
from gazeprivacy.rng import make_rng

P = {"epsilon_per_participant": 3.0, "delta": 1e-6, "output_length_s": 1.5,
     "public_labels": ("task",)}


@pytest.fixture(scope="module")
def ds():
    # 3 participants x 2 tasks x 2 sessions, a participant's 4 recordings consecutive: in
    # partitions of 6 recordings p02 is split across partitions 0 and 1
    return simulate_dataset(n_participants=3, tasks=("free-viewing", "reading"),
                            recordings_per_task=2, duration_s=3.0, sampling_rate_hz=100,
                            rng=np.random.default_rng(11))



def test_the_plan_is_participant_grouped():
    plan = plan_for("participant-synth", **P)
    assert isinstance(plan, ParticipantSynthPhases) and plan.grouped


@pytest.mark.parametrize("per_part", [4, 6, 12])
def test_release_is_bit_equal_to_one_process_at_a_seed(ds, per_part):
    parts = split_dataset(ds, per_part)
    split = set(parts[0].participants) & set(parts[1].participants) if len(parts) > 1 else ()
    assert bool(split) == (per_part == 6)
    stream = iter_protected(parts, mechanism="participant-synth", seed=8, **P)
    out = [r for _, rel in stream for r in rel]
    one = protect(ds, mechanism="participant-synth", rng=make_rng(8).spawn(2)[0], **P)
    assert_same_gaze(Dataset(tuple(out)), one.output)
    g, w = stream.guarantee, one.guarantee
    assert g.per_participant == w.per_participant  # one unit per participant, not per partition
    assert (g.epsilon, g.delta, g.unit, g.parameters) == (w.epsilon, w.delta, w.unit,
                                                         w.parameters)


def test_another_seed_another_release(ds):
    parts = split_dataset(ds, 6)
    a = [r.x for _, rel in iter_protected(parts, mechanism="participant-synth", seed=1, **P)
         for r in rel]
    b = [r.x for _, rel in iter_protected(parts, mechanism="participant-synth", seed=2, **P)
         for r in rel]
    assert not np.array_equal(a[0], b[0])


def test_a_recording_in_two_partitions_is_refused(ds):
    parts = [Dataset(ds.recordings[:6]), Dataset(ds.recordings[5:])]
    stream = iter_protected(parts, mechanism="participant-synth", seed=0, **P)
    with pytest.raises(InvalidDataError, match="is in partitions 0 and 1; each recording must "
                                               "sit whole in one partition"):
        list(stream)


def _gaze(table: pl.DataFrame) -> list[tuple]:
    """The written recordings' (task, t, x, y) bytes, sorted (pseudonyms apart)."""
    return sorted((g["task"][0], g["t"].to_numpy().tobytes(), g["x"].to_numpy().tobytes(),
                   g["y"].to_numpy().tobytes())
                  for _, g in table.group_by("recording", maintain_order=True))


def test_cli_partitioned_equals_the_single_file_release(ds, tmp_path):
    src = write_partitioned(ds, tmp_path / "in", recordings_per_partition=6)
    assert set(src.partitions[0].participants) & set(src.partitions[1].participants)
    f = write_dataset(ds, tmp_path / "d.parquet")
    args = ["--mechanism", "participant-synth", "--per-participant-epsilon", "3",
            "--per-participant-delta", "1e-6", "--output-length-s", "1.5", "--public", "task",
            "--participants", "4", "--seed", "5"]
    runner = CliRunner()
    for inp, out in ((src.path, "parts"), (f, "one.parquet")):
        res = runner.invoke(app, ["protect", str(inp), str(tmp_path / out), *args])
        assert res.exit_code == 0, res.output + repr(res.exception)
    written = PartitionedDataset(tmp_path / "parts")
    assert written.n_partitions == 2
    parts = pl.concat([pl.read_parquet(tmp_path / "parts" / p.file)
                       for p in written.partitions])
    one = pl.read_parquet(tmp_path / "one.parquet")
    assert parts["participant"].n_unique() == one["participant"].n_unique() == 4
    assert _gaze(parts) == _gaze(one)
