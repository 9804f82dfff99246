# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Time I-VT detection and George & Routray event features on all of DOVES.

Run: ``PYTHONPATH=src python benchmarks/bench_events.py [path/to/doves]`` (default
``$GAZEPRIVACY_DATA/doves`` or ``../shared/data/doves``). Reads the raw 200 Hz CSV directly
(1 px = 1 arcmin, so deg = px / 60).
"""

from __future__ import annotations

import lzma
import os
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

from gazeprivacy.data import Dataset, Recording
from gazeprivacy.events import detect_events_dataset
from gazeprivacy.features import event_features_dataset


def load_doves(folder: Path) -> Dataset:
    with lzma.open(folder / "doves_gaze_200hz.csv.xz", "rb") as fh:
        tab = pl.read_csv(fh.read())
    recs = []
    for (obs, img), g in tab.group_by(["observer", "image"], maintain_order=True):
        s = g["sample"].to_numpy()
        recs.append(Recording(recording=f"{obs}_img{img:03d}", participant=str(obs),
                              t=s / 200.0, x=g["x_px"].to_numpy() / 60.0,
                              y=g["y_px"].to_numpy() / 60.0, sampling_rate_hz=200.0,
                              labels={"stimulus": f"img{img:03d}"}))
    return Dataset(tuple(recs), name="doves")


def main() -> None:
    default = Path(os.environ.get("GAZEPRIVACY_DATA", "../shared/data")) / "doves"
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else default
    t0 = time.perf_counter()
    ds = load_doves(folder)
    t1 = time.perf_counter()
    ev = detect_events_dataset(ds)
    t2 = time.perf_counter()
    feats = event_features_dataset(ds, ev)
    t3 = time.perf_counter()
    fix = ev.filter(pl.col("name") == "fixation")
    print(f"DOVES: {len(ds)} recordings, {ds.n_samples} samples (load {t1 - t0:.1f} s)")
    print(f"I-VT (30 deg/s, 200 ms): {ev.height} events, {fix.height} fixations, "
          f"{ev.height - fix.height} saccades in {t2 - t1:.2f} s")
    print(f"fixation duration median {fix['duration_s'].median() * 1000:.0f} ms, "
          f"mean {fix['duration_s'].mean() * 1000:.0f} ms")
    print(f"event features: {feats.height} rows x {feats.width} columns in {t3 - t2:.2f} s; "
          f"non-finite feature values: "
          f"{int((~np.isfinite(feats.select(pl.selectors.float()).to_numpy())).sum())}")


if __name__ == "__main__":
    main()
