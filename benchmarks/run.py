# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""All mechanism benchmarks in one run, as ratios against baselines measured in the same run.

Run: ``make bench`` or ``PYTHONPATH=src python benchmarks/run.py [--scale 0.1] [--out FILE.md]``.

Workload: the simulator at seed 001's EHTask size — 30 participants, 15 h at 100 Hz (5.4 M
samples) — times ``--scale`` (default 0.1, i.e. 540 k samples, so the run takes minutes; use
``--scale 1`` for the full size). For every sample-level mechanism it reports single-process
throughput, the ratio of its time to a *physical-limit baseline* measured in the same run (one
vectorised numpy pass that reads every sample and writes the same number of noisy samples), and
the speed-up over seed 001's Table 2 runtime for the full workload, extrapolated linearly from
the measured scale (event detection excluded, as in the paper). Kaleido's streaming API is timed
pushing 250-sample chunks and single samples.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from gazeprivacy.data.recording import Dataset
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.events import detect_events_dataset
from gazeprivacy.mechanisms.samples.dpgazesynth import DPGazeSynthParams, dpgazesynth
from gazeprivacy.mechanisms.samples.event_synth_pd import EventSynthPDParams, event_synth_pd
from gazeprivacy.mechanisms.samples.k_same_synth import KSameSynthParams, k_same_synth
from gazeprivacy.mechanisms.samples.kaleido import KaleidoParams, KaleidoStream, kaleido_dataset

__all__: list[str] = []

FULL_SAMPLES = 15 * 3600 * 100  # EHTask: 15 h in all (30 participants) at 100 Hz = 5.4 M
#: seed 001, Table 2 (EHTask row), seconds
PAPER_S = {"k-same-synth": 2.2 * 60, "event-synth-pd": 14.8 * 60, "kaleido": 5.2 * 60}


def _time(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def baseline(ds: Dataset, rng: np.random.Generator) -> float:
    """Read every sample, write as many noisy ones: the floor any mechanism pays."""
    def run() -> None:
        for r in ds:
            _ = r.x + rng.laplace(0.0, 1.0, r.n_samples)
            _ = r.y + rng.laplace(0.0, 1.0, r.n_samples)
    return _time(run)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--scale", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip", nargs="*", default=[], help="mechanisms to leave out")
    ap.add_argument("--out", default=None, help="also write the table to this file")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    tasks = ("reading", "free-viewing", "random-dot")
    duration_s = a.scale * 15 * 3600 / (30 * len(tasks))
    ds = simulate_dataset(n_participants=30, tasks=tasks, duration_s=duration_s,
                          sampling_rate_hz=100, rng=rng)
    n = ds.n_samples
    t_base = baseline(ds, rng)
    events = detect_events_dataset(ds)
    runs: dict[str, Callable[[], object]] = {
        "dpgazesynth": lambda: dpgazesynth(ds, DPGazeSynthParams(epsilon=2.0, grid_size=30),
                                           rng=rng),
        "kaleido": lambda: kaleido_dataset(ds, KaleidoParams(epsilon=2.0, radius_deg=2.0,
                                                             window_s=0.5), rng=rng),
        "k-same-synth": lambda: k_same_synth(ds, KSameSynthParams(k=4, group_by="task"),
                                             rng=rng, events=events),
        "event-synth-pd": lambda: event_synth_pd(
            ds, EventSynthPDParams(k=2, gamma=2.0, cvae_epochs=20), rng=rng, events=events),
    }
    rows = [f"| baseline (numpy read + noisy write) | {n:,} | {t_base:.3f} | "
            f"{n / t_base:,.0f} | 1 | - | - |"]
    for name, fn in runs.items():
        if name in a.skip:
            continue
        t = _time(fn)
        full = t * FULL_SAMPLES / n
        paper = PAPER_S.get(name)
        speedup = f"{paper / full:.1f}x" if paper else "-"
        rows.append(f"| {name} | {n:,} | {t:.2f} | {n / t:,.0f} | {t / t_base:.0f} | "
                    f"{full / 60:.1f} min | {speedup} |")
    p = KaleidoParams(epsilon=2.0, radius_deg=2.0, window_samples=50)
    rec = ds[0]
    for chunk in (250, 1):
        m = min(rec.n_samples, 250_000 if chunk > 1 else 20_000)
        stream = KaleidoStream(p, rng=rng)

        def push(stream: KaleidoStream = stream, m: int = m, chunk: int = chunk) -> None:
            for i in range(0, m, chunk):
                stream.push(rec.x[i:i + chunk], rec.y[i:i + chunk])
        t = _time(push)
        rows.append(f"| kaleido stream, chunks of {chunk} | {m:,} | {t:.2f} | {m / t:,.0f} | - "
                    f"| - | - |")
    table = "\n".join([
        f"Workload: simulator, 30 participants x 3 tasks x {duration_s:.0f} s at 100 Hz "
        f"({n:,} samples, scale {a.scale:g} of EHTask's 5.4 M); one process.",
        "",
        "| run | samples | seconds | samples/s | x baseline | full EHTask (extrapolated) "
        "| speed-up vs seed 001 Table 2 |",
        "|---|---|---|---|---|---|---|",
        *rows])
    print(table)
    if a.out:
        with open(a.out, "w") as fh:
            fh.write(table + "\n")


if __name__ == "__main__":
    main()
