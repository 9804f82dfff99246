# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""I-VT and event features on a slice of real DOVES (200 Hz, natural images, free viewing)."""

from __future__ import annotations

import io
import lzma

import numpy as np
import polars as pl
import pytest

from gazeprivacy.data import Dataset, Recording
from gazeprivacy.events import detect_events_dataset
from gazeprivacy.features import EVENT_FEATURE_COLUMNS, event_features_dataset

pytestmark = pytest.mark.realdata
N_ROWS = 20_000  # about 20 recordings of observer ABT2


@pytest.fixture(scope="module")
def doves(data_dir) -> Dataset:
    # Read the head of the CSV directly (the project loader lives in gazeprivacy.data.loaders).
    with lzma.open(data_dir / "doves" / "doves_gaze_200hz.csv.xz", "rt") as fh:
        head = "".join(fh.readline() for _ in range(N_ROWS + 1))
    tab = pl.read_csv(io.StringIO(head))
    recs = []
    for (obs, img), g in tab.group_by(["observer", "image"], maintain_order=True):
        if g.height < 100:  # the last, truncated recording of the slice
            continue
        recs.append(Recording(recording=f"{obs}_img{img:03d}", participant=str(obs),
                              t=g["sample"].to_numpy() / 200.0, x=g["x_px"].to_numpy() / 60.0,
                              y=g["y_px"].to_numpy() / 60.0, sampling_rate_hz=200.0))
    return Dataset(tuple(recs), name="doves-slice")


def test_ivt_fixation_durations_plausible(doves):
    ev = detect_events_dataset(doves, method="ivt", max_saccade_share=None)
    fix = ev.filter(pl.col("name") == "fixation")
    sac = ev.filter(pl.col("name") == "saccade")
    med = fix["duration_s"].median()
    # free viewing of natural images: median fixation 200-400 ms (DOVES' own list: ~300 ms)
    assert 0.2 <= med <= 0.4, med
    assert fix["duration_s"].min() >= 0.2 - 1e-9
    assert 2.0 <= fix.height / len(doves) <= 30.0  # ~5 s trials
    # saccades are short and fast: median duration below 100 ms
    assert sac["duration_s"].median() < 0.1
    # every sample (DOVES has no NaN) belongs to exactly one event
    per_rec = ev.group_by("recording").agg(pl.col("n_samples").sum())
    sizes = {r.recording: r.n_samples for r in doves}
    assert all(n == sizes[rid] for rid, n in per_rec.iter_rows())


def test_event_features_on_doves(doves):
    ev = detect_events_dataset(doves, method="ivt", max_saccade_share=None)
    f = event_features_dataset(doves, ev, fill_undefined=0.0)
    assert f.height == ev.filter(pl.col("n_samples") >= 4).height
    assert np.isfinite(f.select(EVENT_FEATURE_COLUMNS).to_numpy()).all()
    med = f.group_by("name").agg(pl.col("velocity_ang_max").median()).sort("name")
    fix_peak, sac_peak = med["velocity_ang_max"].to_list()
    assert fix_peak < 30.0 < sac_peak  # the I-VT threshold separates the two
