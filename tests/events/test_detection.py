# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""I-VT / I-DT on constructed signals with known events, NaN and time gaps, edge cases.

The adaptive default has its own tests (``test_adaptive.py``); here every call names its method.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pymovements as pm
import pytest

from gazeprivacy.data import Dataset, Geometry, Recording
from gazeprivacy.events import (
    EVENT_SCHEMA,
    detect_events,
    detect_events_dataset,
    sample_labels,
)
from gazeprivacy.exceptions import InvalidParameterError

FS = 200.0


def rec(x, y=None, *, rid="r", pid="p", t=None, fs=FS, geometry=None) -> Recording:
    x = np.asarray(x, dtype=float)
    y = np.zeros_like(x) if y is None else np.asarray(y, dtype=float)
    y = np.where(np.isnan(x), np.nan, y)
    return Recording.from_arrays(recording=rid, participant=pid, x=x, y=y, t=t,
                                 sampling_rate_hz=fs, geometry=geometry)


def steps(*parts: tuple[int, float] | np.ndarray) -> np.ndarray:
    """Concatenate (n, value) holds and explicit arrays."""
    return np.concatenate([np.full(p[0], p[1]) if isinstance(p, tuple) else p for p in parts])


def ivt(r: Recording, **kw) -> pl.DataFrame:
    """I-VT (or the method in ``kw``) without the plausibility warning (toy signals)."""
    kw.setdefault("method", "ivt")
    kw.setdefault("max_saccade_share", None)
    return detect_events(r, **kw)


def triples(ev: pl.DataFrame) -> list[tuple[str, int, int]]:
    return ev.select("name", "onset", "offset").rows()


def test_ivt_exact_onsets_offsets_and_schema():
    # fixation 60 samples, saccade 5 samples at 400 deg/s, fixation 45, saccade 3, fixation 70
    x = steps((60, 0.0), np.linspace(2, 10, 5), (45, 10.0), np.array([12.0, 14.0, 16.0]),
              (70, 16.0))
    ev = ivt(rec(x))
    assert ev.schema == pl.Schema(EVENT_SCHEMA)
    assert triples(ev) == [("fixation", 0, 60), ("saccade", 60, 65), ("fixation", 65, 110),
                           ("saccade", 110, 113), ("fixation", 113, 183)]
    fix = ev.row(2, named=True)
    assert fix["n_samples"] == 45
    assert fix["onset_s"] == pytest.approx(65 / FS)
    assert fix["offset_s"] == pytest.approx(110 / FS)
    assert fix["duration_s"] == pytest.approx(0.225)
    sac = ev.row(1, named=True)
    assert (sac["start_x"], sac["end_x"]) == (2.0, 10.0)
    assert sac["centroid_x"] == pytest.approx(6.0)


def test_threshold_is_inclusive_for_saccades():
    # at 128 Hz (exact binary intervals) a step of 30/128 deg is exactly 30 deg/s: a saccade
    # sample (">= 30"); a hair less is not
    x = steps((50, 0.0), (50, 30 / 128))
    assert triples(ivt(rec(x, fs=128))) == [("fixation", 0, 50), ("saccade", 50, 51),
                                                      ("fixation", 51, 100)]
    x = steps((50, 0.0), (50, 29.999 / 128))
    assert triples(ivt(rec(x, fs=128))) == [("fixation", 0, 100)]


def test_minimum_fixation_duration_200ms_is_40_samples_at_200hz():
    # holds of n + 1 samples at 10 deg: the first is the landing (fast) sample, so the slow run
    # is samples 52 .. 52 + n (exclusive), n samples
    def signal(n):
        return steps((50, 0.0), np.array([5.0]), (n + 1, 10.0), np.array([15.0]), (50, 20.0))

    ev = ivt(rec(signal(40)))
    assert triples(ev)[1:4] == [("saccade", 50, 52), ("fixation", 52, 92), ("saccade", 92, 94)]
    ev = ivt(rec(signal(39)))
    # the 195 ms run joins the saccades around it
    assert triples(ev) == [("fixation", 0, 50), ("saccade", 50, 93), ("fixation", 93, 142)]
    ev = ivt(rec(signal(39)), minimum_fixation_duration_s=0.195)
    assert ("fixation", 52, 91) in triples(ev)


def test_short_runs_unclassified_leaves_them_out():
    x = steps((50, 0.0), np.array([5.0]), (10, 10.0), np.array([15.0]), (50, 20.0))
    ev = ivt(rec(x), short_runs="unclassified")
    # samples 50 and 51 are fast (51 is the first 10.0); 52..60 slow but short -> no event
    assert triples(ev) == [("fixation", 0, 50), ("saccade", 50, 52), ("saccade", 61, 63),
                           ("fixation", 63, 112)]
    labels = sample_labels(rec(x), ev)
    assert (labels[52:61] == "").all() and (labels[:52] != "").all()


def test_nan_gap_never_inside_an_event():
    x = steps((100, 1.0))
    x[45:55] = np.nan  # a 50 ms blink in the middle of a fixation
    ev = ivt(rec(x))
    assert triples(ev) == [("fixation", 0, 45), ("fixation", 55, 100)]
    x = steps((100, 1.0))
    x[30:35] = np.nan  # splits into 30 and 65 samples: the short part becomes a saccade
    ev = ivt(rec(x))
    assert triples(ev) == [("saccade", 0, 30), ("fixation", 35, 100)]
    for on, off in ev.select("onset", "offset").rows():
        assert not np.isnan(x[on:off]).any()


def test_timestamp_gap_splits_events():
    t = np.arange(100) / FS
    t[50:] += 0.5  # 0.5 s without samples (no NaN rows): no event may span it
    x = steps((100, 1.0))
    ev = ivt(rec(x, t=t))
    assert triples(ev) == [("fixation", 0, 50), ("fixation", 50, 100)]
    # a larger max_interval_s joins them (velocity over the gap is 0)
    ev = ivt(rec(x, t=t), max_interval_s=1.0)
    assert triples(ev) == [("fixation", 0, 100)]
    assert ev["duration_s"].item() == pytest.approx(1.0)


def test_first_sample_of_segment_takes_following_velocity():
    x = steps((5, np.nan), np.array([0.0, 3.0, 6.0]), (60, 6.0))
    ev = ivt(rec(x))
    # sample 5 has no predecessor; its following interval is fast -> saccade sample
    assert triples(ev) == [("saccade", 5, 8), ("fixation", 8, 68)]
    x = steps((5, np.nan), (60, 6.0))
    assert triples(ivt(rec(x))) == [("fixation", 5, 65)]


def test_isolated_sample_and_one_sample_and_constant_recordings():
    x = steps((50, 1.0), np.array([np.nan, 2.0, np.nan]), (50, 1.0))
    ev = ivt(rec(x))
    assert triples(ev) == [("fixation", 0, 50), ("fixation", 53, 103)]  # sample 51: no event
    one = ivt(rec([1.0]))
    assert one.height == 0 and one.schema == pl.Schema(EVENT_SCHEMA)
    const = ivt(rec(np.full(1000, 3.0)))
    assert triples(const) == [("fixation", 0, 1000)]
    short_const = ivt(rec(np.full(20, 3.0)))  # 100 ms: too short for a fixation
    assert triples(short_const) == [("saccade", 0, 20)]
    nan_only = ivt(rec(np.full(10, np.nan)))
    assert nan_only.height == 0


def test_every_linked_sample_in_exactly_one_event(rng):
    x = np.cumsum(rng.normal(0, 0.2, 5000))
    y = np.cumsum(rng.normal(0, 0.2, 5000))
    x[rng.choice(5000, 100, replace=False)] = np.nan
    r = rec(x, y)
    ev = ivt(r)
    cover = np.zeros(5000, dtype=int)
    for on, off in ev.select("onset", "offset").rows():
        cover[on:off] += 1
    valid = ~np.isnan(x)
    linked = valid & (np.r_[valid[1:], False] | np.r_[False, valid[:-1]])
    assert (cover[linked] == 1).all() and (cover[~linked] == 0).all()
    assert (ev["onset"].diff().drop_nulls() > 0).all()
    fix = ev.filter(pl.col("name") == "fixation")
    assert (fix["duration_s"] >= 0.2 - 1e-9).all()


def test_ivt_fixations_match_pymovements_ivt(rng):
    # Without NaN or time gaps, pymovements' I-VT on the same velocities finds the same fixations.
    x = np.cumsum(rng.normal(0, 0.02, 4000)) + np.repeat(rng.normal(0, 5, 40), 100)
    y = np.cumsum(rng.normal(0, 0.02, 4000))
    ev = ivt(rec(x, y)).filter(pl.col("name") == "fixation")
    v = pm.transforms.numpy.pos2vel(np.c_[x, y], sampling_rate=FS, method="preceding")
    v[0] = v[1]  # our first-sample rule
    ref = pm.events.ivt(v, minimum_duration=39, velocity_threshold=30.0)  # n - 1 >= 39
    got = ev.select("onset", pl.col("offset") - 1).rows()
    assert ref.frame.height > 10
    assert got == ref.frame.select("onset", "offset").rows()


def test_vr_uses_great_circle_velocity():
    # Near the pole a 20-degree azimuth step is a tiny great-circle move (< 30 deg/s * 5 ms).
    geo = Geometry(x_min_deg=-180, x_max_deg=180, y_min_deg=-90, y_max_deg=90, kind="vr")
    x = steps((50, 0.0), (50, 20.0))
    y = np.full(100, 89.99)
    assert triples(ivt(rec(x, y, geometry=geo))) == [("fixation", 0, 100)]
    assert triples(ivt(rec(x, y))) == [("fixation", 0, 50), ("saccade", 50, 51),
                                                 ("fixation", 51, 100)]
    assert triples(ivt(rec(x, y), metric="great-circle")) == [("fixation", 0, 100)]


def test_idt_constructed_case():
    # two clusters within 0.5 deg of dispersion, a 3-sample move between them, then a drift
    x = steps((60, 0.0), np.array([3.0, 6.0, 9.0]), (50, 10.0), np.linspace(10, 40, 30))
    x[:60] += np.tile([0.0, 0.3], 30)
    ev = ivt(rec(x), method="idt", dispersion_threshold_deg=0.5,
                       minimum_fixation_duration_s=0.2)
    # first fixation covers 0..59; the second starts at 63 (the first 10.0) and includes 113
    # (the drift starts at 10.0); its next step of 30/29 deg (sample 114) breaks 0.5 deg.
    assert triples(ev) == [("fixation", 0, 60), ("saccade", 60, 63), ("fixation", 63, 114),
                           ("saccade", 114, 143)]


def test_idt_matches_pymovements_idt_up_to_its_breaking_sample(rng):
    # pymovements 0.28 (Salvucci's pseudocode read literally) keeps the sample that breaks the
    # threshold as the fixation's last one and starts the next window after it; we end the
    # fixation before that sample and let it open the next window.
    x = np.repeat(rng.normal(0, 5, 30), 80) + rng.normal(0, 0.05, 2400)
    y = np.repeat(rng.normal(0, 5, 30), 80) + rng.normal(0, 0.05, 2400)
    ev = ivt(rec(x, y), method="idt", dispersion_threshold_deg=1.0)
    ours = ev.filter(pl.col("name") == "fixation").select("onset", "offset").rows()
    ref = pm.events.idt(np.c_[x, y], minimum_duration=40, dispersion_threshold=1.0)
    theirs = ref.frame.select("onset", "offset").rows()
    assert len(ours) == len(theirs) == 30  # adjacent fixations stay separate events
    for (on, off), (pon, poff) in zip(ours, theirs, strict=True):
        assert pon - on in (0, 1)
        assert poff == (off if off < 2400 else 2399)


def test_dataset_table_in_order_with_progress():
    r1 = rec(steps((60, 0.0), (60, 5.0)), rid="a", pid="p1")
    r2 = rec(np.full(80, 1.0), rid="b", pid="p2")
    r3 = rec([1.0], rid="c", pid="p2")
    ds = Dataset((r1, r2, r3))
    ev = detect_events_dataset(ds, progress=True, method="ivt")
    assert ev.select("recording", "participant", "name", "onset", "offset").rows() == [
        ("a", "p1", "fixation", 0, 60), ("a", "p1", "saccade", 60, 61),
        ("a", "p1", "fixation", 61, 120), ("b", "p2", "fixation", 0, 80)]
    assert ev.equals(pl.concat([ivt(r) for r in ds]))
    assert detect_events_dataset(Dataset(())).height == 0


@pytest.mark.parametrize(("kwargs", "match"), [
    pytest.param({"method": "ihmm"}, "method must be one of", id="unknown_method"),
    pytest.param({"method": "ivt", "velocity_threshold_deg_s": 0.0},
                 "velocity_threshold_deg_s must be > 0", id="zero_threshold"),
    pytest.param({"velocity_threshold_deg_s": 30.0}, "applies to method='ivt' only",
                 id="threshold_with_adaptive"),
    pytest.param({"minimum_fixation_duration_s": -1.0}, "minimum_fixation_duration_s must be",
                 id="negative_duration"),
    pytest.param({"max_interval_s": 0.001}, "max_interval_s must be >= one sample interval",
                 id="interval_below_period"),
    pytest.param({"short_runs": "drop"}, "short_runs must be one of", id="bad_short_runs"),
    pytest.param({"metric": "manhattan"}, "metric must be one of", id="bad_metric"),
    pytest.param({"method": "idt", "minimum_fixation_duration_s": 0.004},
                 "I-DT needs a minimum window of >= 2 samples", id="idt_window_too_small"),
])
def test_bad_parameters_raise_named_errors(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        detect_events(rec(np.zeros(100)), **kwargs)
