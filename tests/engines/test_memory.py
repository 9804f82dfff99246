# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Bounded memory: the peak of a partition-wise run does not grow with the number of partitions.

tracemalloc counts every Python and numpy allocation (numpy reports its buffers to it), so the
peak is deterministic and independent of other processes, unlike RSS. Data grow 4x (2 -> 8
partitions of equal size); the peak must grow by less than 1.5x, and stay under half the peak
of protecting the same data in memory. benchmarks/memory.py measures RSS at 1x-50x EHTask.
"""

from __future__ import annotations

import tracemalloc
import warnings
from dataclasses import replace

import numpy as np
import pytest

from gazeprivacy.data.partitioned import PartitionWriter
from gazeprivacy.data.recording import Dataset
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.engines import protect_partitioned


def _write(path, n_parts, rate):
    with PartitionWriter(path, name="m") as w:
        for j in range(n_parts):
            ds = simulate_dataset(n_participants=2, tasks=("reading", "free-viewing"),
                                  duration_s=12.0, sampling_rate_hz=rate,
                                  rng=np.random.default_rng([3, j % 2]))
            w.write(Dataset(tuple(replace(r, recording=f"{r.recording}-{j}") for r in ds)))
    return path


def _peak(src, dest, mechanism, kw):
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            protect_partitioned(src, dest, mechanism=mechanism, seed=0, public=["mask"], **kw)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("mechanism, kw, rate", [
    ("dpgazesynth", {"epsilon": 2.0, "grid_size": 10}, 250),
    ("kaleido", {"epsilon": 2.0, "radius_deg": 2.0, "window_s": 0.5}, 100),  # slower per sample
])
def test_peak_memory_is_flat_in_the_number_of_partitions(tmp_path, mechanism, kw, rate):
    small, large = _write(tmp_path / "x1", 2, rate), _write(tmp_path / "x4", 8, rate)
    _peak(small, tmp_path / "warm", mechanism, kw)  # imports and caches outside the count
    p1 = _peak(small, tmp_path / "o1", mechanism, kw)
    p4 = _peak(large, tmp_path / "o4", mechanism, kw)
    assert p4 < 1.5 * p1, (p1, p4)
    # the same 8 partitions protected in memory as one dataset peak far higher
    from gazeprivacy.data.partitioned import PartitionedDataset
    from gazeprivacy.mechanisms import protect

    tracemalloc.start()
    try:  # read (as the partition-wise run does) and protect
        whole = Dataset(tuple(r for part in PartitionedDataset(large) for r in part))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            protect(whole, mechanism=mechanism, seed=0, **kw)
        # plus the input, held whole: its columns are polars' buffers shared with the
        # recordings, which tracemalloc does not trace (nor the partition-wise run's one
        # partition at a time)
        p_mem = tracemalloc.get_traced_memory()[1] + sum(
            a.nbytes for r in whole for a in (r.t, r.x, r.y))
    finally:
        tracemalloc.stop()
    assert p4 < 0.5 * p_mem, (p4, p_mem)
