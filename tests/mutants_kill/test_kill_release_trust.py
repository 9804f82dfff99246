# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Unit tests that kill five privacy mutants which survived every other test (mutation gate):
the participant-level transition model from raw counts, pupil not clipped before the block
mean, recordings written in raw-id order, released windows taken from the reports in a fixed
order, and a baseline keeping pupil, channels and per-sample extras. Statistical tests use fixed
seeds and state their tolerance."""

from __future__ import annotations

import numpy as np
import polars as pl

from gazeprivacy.data import Dataset, Geometry, Recording
from gazeprivacy.experiments.baselines import BASELINES
from gazeprivacy.mechanisms import protect
from gazeprivacy.mechanisms.noise.oue import oue_estimate, oue_q
from gazeprivacy.mechanisms.release import protect_pupil, seal
from gazeprivacy.mechanisms.samples.dpgazesynth import (
    DPGazeSynthParams,
    client_release,
    perturb_reports,
    population_windows,
)

GEO = Geometry(x_min_deg=0.0, x_max_deg=100.0, y_min_deg=0.0, y_max_deg=100.0)


def walkers(n_participants: int, n: int = 400, rate: float = 20.0) -> Dataset:
    recs = []
    for i in range(n_participants):
        g = np.random.default_rng(i)
        recs.append(Recording.from_arrays(
            recording=f"rec-{i:02d}", participant=f"person-{i:02d}",
            x=np.clip(50 + np.cumsum(g.normal(0, 4.0, n)), 0, 100),
            y=np.clip(50 + np.cumsum(g.normal(0, 4.0, n)), 0, 100), sampling_rate_hz=rate,
            geometry=GEO, pupil=np.full(n, 3.0)))
    return Dataset(tuple(recs))


def test_participant_level_transition_reports_carry_the_oue_noise():
    """The curator's estimate of each transition count has OUE's variance, summed over the
    8 G^2 + 1 columns: c p (1 - p) + (n - c) q (1 - q), over (p - q)^2 (p = 1/2). Tolerance:
    the ratio of the squared error to it in [0.75, 1.33] (801 columns: about 5 % SE)."""
    p = DPGazeSynthParams(epsilon=2.0, grid_size=10, unit="participant",
                          windows_per_participant=6)
    rep = client_release(walkers(40).recordings, p, np.random.default_rng(1))
    sums = perturb_reports(rep, p, np.random.default_rng(2))
    d = 8 * p.grid_size ** 2 + 1
    err = want = 0.0
    for eps, values in rep.reports.items():
        if values.size == 0:
            continue
        s, n = sums[eps]
        counts = np.bincount(values, minlength=d).astype(float)
        q = oue_q(epsilon=eps)
        err += float(((oue_estimate(s, n=n, epsilon=eps) - counts) ** 2).sum())
        want += float((counts * 0.25 + (n - counts) * q * (1 - q)).sum() / (0.5 - q) ** 2)
    assert want > 0 and 0.75 < err / want < 1.33, (err, want)


def test_pupil_is_clipped_to_the_range_before_the_block_mean():
    """One outlier in a block moves the mean by at most (hi - lo) / block (the sensitivity the
    noise scale assumes): clipped first, [3, 3, 3, 1000] in [2, 6] has mean 3.75, not 6."""
    out = protect_pupil(np.array([3.0, 3.0, 3.0, 1000.0]), block_samples=4,
                        epsilon_per_block=1e9, pupil_range=(2.0, 6.0),
                        rng=np.random.default_rng(0))
    np.testing.assert_allclose(out, 3.75, atol=1e-6)


def test_recordings_are_written_in_pseudonym_order_never_in_raw_order():
    ds = walkers(12, n=60)  # raw ids in sorted order
    rel = protect(ds, mechanism="kaleido", epsilon=1.0, radius_deg=1.0, window_samples=20,
                  seed=0)
    sealed = seal(rel, rng=np.random.default_rng(0), pseudonym_key=bytes(range(32)))
    written = [r.participant for r in sealed.dataset]
    assert written == sorted(written)
    raw = dict(zip(sealed.id_map["pseudonym"], sealed.id_map["raw"], strict=True))
    assert [raw[p] for p in written] != [r.participant for r in ds]  # fixed key: certain


def test_released_windows_take_reporting_windows_at_random_not_in_order():
    """Every released window takes the start cell of a reporting window drawn uniformly (with
    replacement) from the pool: not the pool in its order, and another draw for another
    generator. 120 reporting windows (3 of each of 40 participants), 1600 released windows."""
    p = DPGazeSynthParams(epsilon=2.0, grid_size=30, unit="participant",
                          windows_per_participant=3, missing="fill")
    recs = walkers(40).recordings
    rep = client_release(recs, p, np.random.default_rng(3))
    a = population_windows(recs, rep, p, np.random.default_rng(4)).start_cell
    b = population_windows(recs, rep, p, np.random.default_rng(5)).start_cell
    pool = rep.start_cell[rep.start_cell >= 0]
    released = a[a >= 0]
    assert released.size == 1600 and pool.size == 120
    assert not np.array_equal(released, np.resize(pool, released.size))
    assert not np.array_equal(a, b)
    assert set(np.unique(released)) <= set(pool)


def test_baselines_keep_no_pupil_channels_or_extras():
    n = 100
    rec = Recording.from_arrays(
        recording="r", participant="p", x=np.full(n, 50.0), y=np.full(n, 50.0),
        sampling_rate_hz=50.0, geometry=GEO, pupil=np.full(n, 3.0),
        channels={"head_yaw": np.zeros(n)}, extras={"event": pl.Series(["fix"] * n)})
    for name, b in BASELINES.items():
        out = b.release(Dataset((rec,)), rng=np.random.default_rng(0)).recordings[0]
        assert out.pupil is None and not out.channels and not out.extras, name
