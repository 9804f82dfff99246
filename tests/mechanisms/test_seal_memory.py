# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The sealed release holds its public time grid once: the table's ``t`` column is the array the
sealed recordings' grids are slices of (no second copy), with the values of ``i / rate``."""

from __future__ import annotations

import numpy as np

from gazeprivacy.data import Dataset, Geometry, Recording
from gazeprivacy.data.recording import _consecutive
from gazeprivacy.mechanisms import protect
from gazeprivacy.mechanisms.release import seal

GEO = Geometry(x_min_deg=-5, x_max_deg=5, y_min_deg=-5, y_max_deg=5)


def _dataset() -> Dataset:
    rng = np.random.default_rng(0)
    return Dataset(tuple(
        Recording.from_arrays(recording=f"r{i}", participant=f"p{i % 3}",
                              x=rng.uniform(-4, 4, n), y=rng.uniform(-4, 4, n),
                              sampling_rate_hz=rate, geometry=GEO)
        for i, (n, rate) in enumerate([(300, 100.0), (7, 60.0), (450, 120.0), (120, 100.0)])))


def test_the_table_time_column_is_the_sealed_grids_not_a_copy():
    ds = _dataset()
    rel = protect(ds, mechanism="kaleido", epsilon=1.0, radius_deg=1.0, window_samples=50,
                  seed=0)
    sealed = seal(rel, source=ds, rng=np.random.default_rng(1))
    t = sealed.table["t"].to_numpy()
    a = 0
    for r in sealed.dataset:
        assert np.shares_memory(r.t, t)
        want = np.arange(r.n_samples) / r.sampling_rate_hz
        assert r.t.tobytes() == want.tobytes() == t[a:a + r.n_samples].tobytes()
        a += r.n_samples
    assert a == t.size


def test_a_raw_public_clock_is_copied_into_the_table_as_before():
    ds = _dataset()
    rel = protect(ds, mechanism="kaleido", epsilon=1.0, radius_deg=1.0, window_samples=50,
                  seed=0)
    sealed = seal(rel, public=("t",), source=ds, rng=np.random.default_rng(1))
    t = sealed.table["t"].to_numpy()
    assert not any(np.shares_memory(r.t, t) for r in ds)
    assert t.tobytes() == np.concatenate([r.t for r in sealed.dataset]).tobytes()


def test_only_consecutive_read_only_slices_of_one_array_are_taken_whole():
    base = np.arange(10.0)
    base.setflags(write=False)
    assert _consecutive([base[0:3], base[3:7], base[7:10]]).tobytes() == base.tobytes()
    assert _consecutive([base[2:4], base[4:5]]).tolist() == [2.0, 3.0, 4.0]
    assert _consecutive([base[0:3], base[4:7]]) is None  # a gap
    assert _consecutive([base[3:6], base[0:3]]) is None  # out of order
    assert _consecutive([base[::2]]) is None  # strided
    writable = np.arange(4.0)
    assert _consecutive([writable[:2], writable[2:]]) is None  # could change under the table
    assert _consecutive([np.arange(3.0)]) is None  # owns its data: no base


def test_the_table_gaze_columns_are_the_sealed_recordings_arrays_not_a_copy():
    ds = _dataset()
    rel = protect(ds, mechanism="kaleido", epsilon=1.0, radius_deg=1.0, window_samples=50,
                  seed=0)
    sealed = seal(rel, source=ds, rng=np.random.default_rng(1))
    table = sealed.table
    assert table["x"].n_chunks() == len(sealed.dataset)  # one chunk per recording, not copied
    assert table.equals(sealed.dataset.to_table())  # the same values as the copied table
    assert table["x"].to_numpy().tobytes() == np.concatenate(
        [r.x for r in sealed.dataset]).tobytes()


def test_gaze_with_a_nan_of_another_bit_pattern_is_copied_and_made_canonical():
    ds = _dataset()
    x = ds[0].x.copy()
    x[3] = -np.nan  # sign bit set: not np.nan's pattern
    y = ds[0].y.copy()
    y[3] = np.nan
    odd = Dataset((ds[0].with_gaze(x, y), *ds.recordings[1:]))
    table = odd.to_table(chunks=True)
    assert table["x"].n_chunks() == 1  # copied into one array
    bits = table["x"].to_numpy().view(np.uint64)
    assert int(bits[3]) == int(np.array(np.nan).view(np.uint64))
    assert table["y"].n_chunks() == len(odd)  # canonical NaN: still the recordings' arrays
