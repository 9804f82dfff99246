# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""No raw position leaves k-same-synth or event-synth-PD (issue 14, item 5).

A saccade that no fixation follows used to be aimed at its raw landing sample, and a recording
whose only event is a saccade started there: such a recording was released raw. Here: a recording
with only a saccade, and one that ends in a saccade.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from gazeprivacy.data import Dataset, Recording
from gazeprivacy.events.models import gaussian_profile, integrate_profile
from gazeprivacy.mechanisms.samples._event_synthesis import (
    HOLDER_REPORT_KEY,
    fit_events,
    render,
)
from gazeprivacy.mechanisms.samples.k_same_synth import KSameSynthParams, k_same_synth

RATE = 100.0


def _saccade(start, end, n, peak=350.0):
    return integrate_profile(gaussian_profile([peak, 0.45, 0.05]), n, np.asarray(start),
                             np.asarray(end))


def _only_saccade(pid: str, g: np.random.Generator) -> tuple[Recording, list[tuple]]:
    a = g.uniform(2, 6, 2)
    x, y = _saccade(a, a + np.array([7.0, 3.0]), 20)
    rec = Recording.from_arrays(recording=f"{pid}-only", participant=pid, x=x, y=y,
                                sampling_rate_hz=RATE, labels={"stimulus": "s0"})
    return rec, [(rec.recording, "saccade", 0, 20)]


def _ending_in_saccade(pid: str, g: np.random.Generator) -> tuple[Recording, list[tuple]]:
    c1, c2 = g.uniform(2, 6, 2), g.uniform(8, 12, 2)
    xs = [g.normal(c1[0], 0.1, 25)]
    ys = [g.normal(c1[1], 0.1, 25)]
    sx, sy = _saccade(c1, c2, 6)
    xs += [sx, g.normal(c2[0], 0.1, 25)]
    ys += [sy, g.normal(c2[1], 0.1, 25)]
    sx, sy = _saccade(c2, c2 + np.array([-6.0, 4.0]), 10)
    xs.append(sx)
    ys.append(sy)
    rec = Recording.from_arrays(recording=f"{pid}-end", participant=pid, x=np.concatenate(xs),
                                y=np.concatenate(ys), sampling_rate_hz=RATE,
                                labels={"stimulus": "s0"})
    rid = rec.recording
    return rec, [(rid, "fixation", 0, 25), (rid, "saccade", 25, 31), (rid, "fixation", 31, 56),
                 (rid, "saccade", 56, 66)]


def _dataset(seed: int = 0) -> tuple[Dataset, pl.DataFrame]:
    g = np.random.default_rng(seed)
    recs, rows = [], []
    for i, make in enumerate((_only_saccade, _ending_in_saccade, _only_saccade,
                              _ending_in_saccade)):
        rec, ev = make(f"p{i}", g)
        recs.append(rec)
        rows += ev
    events = pl.DataFrame(rows, schema=["recording", "name", "onset", "offset"], orient="row")
    return Dataset(tuple(recs), name="saccade-ends"), events


def _assert_nothing_raw(ds: Dataset, out: Dataset, events: pl.DataFrame) -> int:
    """No released sample within 1e-9 of any raw sample of its recording; no released saccade
    ends on its raw landing point. Returns the number of released samples checked."""
    checked = 0
    for raw, rel in zip(ds, out, strict=True):
        ok = ~np.isnan(rel.x)
        d = np.maximum(np.abs(rel.x[ok, None] - raw.x[None, :]),
                       np.abs(rel.y[ok, None] - raw.y[None, :]))
        assert not (d <= 1e-9).any(), raw.recording
        fit = fit_events(raw, events.filter(pl.col("recording") == raw.recording))
        for b in fit.offset[fit.names == "saccade"]:
            land = np.array([rel.x[b - 1], rel.y[b - 1]])
            assert not np.allclose(land, [raw.x[b - 1], raw.y[b - 1]], rtol=0, atol=1e-9)
        checked += int(ok.sum())
    return checked


def test_k_same_synth_releases_no_raw_sample_or_landing_point():
    ds, events = _dataset()
    rel = k_same_synth(ds, KSameSynthParams(k=2), rng=np.random.default_rng(1), events=events)
    assert _assert_nothing_raw(ds, rel.output, events) > 0
    # every recording has saccades, so saccades were released (and checked) for each
    for r in rel.output:
        assert (~np.isnan(r.x)).sum() >= 10


@pytest.mark.parametrize("mode", ["paper", "sound"])
def test_event_synth_pd_releases_no_raw_sample_or_landing_point(mode):
    pytest.importorskip("torch")
    from gazeprivacy.mechanisms.samples.event_synth_pd import EventSynthPDParams, event_synth_pd

    ds, events = _dataset(3)
    kw = {"epsilon0": 5.0} if mode == "sound" else {}
    params = EventSynthPDParams(k=2, gamma=1e9, mode=mode, cvae_epochs=5,
                                on_failure="population", **kw)
    rel = event_synth_pd(ds, params, rng=np.random.default_rng(2), events=events)
    report = rel.output.info[HOLDER_REPORT_KEY]["event-synth-pd"]
    assert report["released"] > 0  # candidates passed and were rendered
    assert _assert_nothing_raw(ds, rel.output, events) > 0


def test_a_trailing_saccade_direction_does_not_point_at_the_raw_landing():
    """Rendered with its own raw profile (the worst case), a saccade that no fixation follows
    moves along a direction independent of the raw one: mean cosine 0 within 4 standard errors
    (it was 1 when the saccade was aimed at its landing sample)."""
    ds, events = _dataset(5)
    raw = ds[0]
    fit = fit_events(raw, events.filter(pl.col("recording") == raw.recording))
    raw_dir = np.array([raw.x[-1] - raw.x[0], raw.y[-1] - raw.y[0]])
    raw_dir /= np.hypot(*raw_dir)
    cos = []
    for s in range(400):
        x, y = render(raw, fit, fit.fixation_params, fit.saccade_profiles,
                      rng=np.random.default_rng(s))
        d = np.array([x[-1] - x[0], y[-1] - y[0]])
        cos.append(float(d @ raw_dir / np.hypot(*d)))
        assert x[0] == 0.0 and y[0] == 0.0  # starts at the public centre, not the raw start
    se = math.sqrt(0.5 / len(cos))  # the cosine of a uniform angle has variance 1/2
    assert abs(np.mean(cos)) < 4 * se
