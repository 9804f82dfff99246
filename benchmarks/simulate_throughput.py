# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Throughput of the gaze simulator at EHTask scale: 30 participants x 15 h at 100 Hz.

Run: ``PYTHONPATH=src python benchmarks/simulate_throughput.py [--hours 15] [--rate 100]``.
Streams recordings (one in memory at a time) and prints samples/s and peak RSS.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from gazeprivacy.data.simulate import iter_simulated_recordings

__all__: list[str] = []


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--participants", type=int, default=30)
    ap.add_argument("--hours", type=float, default=15.0, help="total hours over all recordings")
    ap.add_argument("--rate", type=float, default=100.0)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    tasks = ("reading", "free-viewing", "random-dot")
    duration_s = a.hours * 3600 / (a.participants * len(tasks))
    t0, c0 = time.perf_counter(), time.process_time()
    n = 0
    for rec in iter_simulated_recordings(n_participants=a.participants, tasks=tasks,
                                         duration_s=duration_s, sampling_rate_hz=a.rate,
                                         rng=np.random.default_rng(a.seed)):
        n += rec.n_samples
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{a.participants} participants x {len(tasks)} tasks x {duration_s:.0f} s at "
          f"{a.rate:g} Hz: {n:,} samples in {dt:.2f} s wall ({n / dt:,.0f} samples/s), "
          f"{cpu:.2f} s CPU ({n / cpu:,.0f} samples/s per core); "
          f"peak RSS {rss_mb:.0f} MB")


if __name__ == "__main__":
    main()
