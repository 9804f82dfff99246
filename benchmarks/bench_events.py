# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Time I-VT and adaptive detection and George & Routray event features on all of DOVES.

Run: ``GAZEPRIVACY_DATA=/path/to/data PYTHONPATH=src python benchmarks/bench_events.py``
(``$GAZEPRIVACY_DATA/doves`` must hold the raw 200 Hz DOVES files). Add ``--idt`` to time I-DT.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import polars as pl

from gazeprivacy.data.loaders import load_doves
from gazeprivacy.events import detect_events_dataset
from gazeprivacy.features import event_features_dataset


def main() -> None:
    t0 = time.perf_counter()
    ds = load_doves()
    t1 = time.perf_counter()
    print(f"DOVES: {len(ds)} recordings, {ds.n_samples} samples (load {t1 - t0:.1f} s)")
    for method in ("ivt", "adaptive", "idt") if "--idt" in sys.argv else ("ivt", "adaptive"):
        t1 = time.perf_counter()
        ev = detect_events_dataset(ds, method=method, max_saccade_share=None)
        t2 = time.perf_counter()
        fix = ev.filter(pl.col("name") == "fixation")
        med, mean = fix["duration_s"].median() * 1000, fix["duration_s"].mean() * 1000
        print(f"{method}: {ev.height} events, {fix.height} fixations, "
              f"{ev.height - fix.height} saccades in {t2 - t1:.2f} s; fixation duration median "
              f"{med:.0f} ms, mean {mean:.0f} ms")
        feats = event_features_dataset(ds, ev)
        t3 = time.perf_counter()
        nonfinite = int((~np.isfinite(feats.select(pl.selectors.float()).to_numpy())).sum())
        print(f"  event features: {feats.height} rows x {feats.width} columns in {t3 - t2:.2f} s;"
              f" non-finite values: {nonfinite} (the *_prev features of first events)")


if __name__ == "__main__":
    main()
