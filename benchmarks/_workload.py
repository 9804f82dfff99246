# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The simulated EHTask-sized workload as a partitioned folder, shared by the benchmarks.

``scale = 1`` is seed 001's EHTask size: 30 participants x 3 tasks x 600 s at 100 Hz, split into
10 partitions of 3 participants (540 k samples each); larger scales add sessions of the same
30 participants. Generated one partition at a time, so memory stays flat.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

__all__ = ["PARTITION_S", "TASKS", "write_workload"]

TASKS = ("reading", "free-viewing", "random-dot")
PARTITION_S = 600.0  # per recording; 3 participants x 3 tasks per partition


def write_workload(path: str | Path, scale: float) -> int:
    """Simulate the workload into ``path``; return its sample count."""
    from gazeprivacy.data.partitioned import PartitionWriter
    from gazeprivacy.data.recording import Dataset
    from gazeprivacy.data.simulate import draw_traits, simulate_dataset

    traits = draw_traits(30, rng=np.random.default_rng(0))
    samples = 0
    with PartitionWriter(path, name="ehtask-sized", overwrite=True) as w:
        for j in range(max(1, round(10 * scale))):
            group, session = j % 10, j // 10 + 1
            ds = simulate_dataset(n_participants=3, tasks=TASKS, duration_s=PARTITION_S,
                                  sampling_rate_hz=100, traits=traits[3 * group:3 * group + 3],
                                  rng=np.random.default_rng([7, j]))
            recs = tuple(replace(r, recording=f"{r.recording[:-2]}_{session}",
                                 labels={**r.labels, "session": str(session)}) for r in ds)
            w.write(Dataset(recs, name="ehtask-sized"))
            samples += ds.n_samples
    return samples
