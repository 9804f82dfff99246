# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""KaleidoStream as a live filter: per sample == per chunk == batch, validated input, integer
geometry bounds, bounded memory, a record at any time."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest

import gazeprivacy as gp
from gazeprivacy.data import Geometry
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.guarantees import Guarantee
from gazeprivacy.mechanisms.samples.kaleido import KaleidoParams, KaleidoStream, kaleido_arrays

GEO = Geometry(x_min_deg=-20.0, x_max_deg=20.0, y_min_deg=-15.0, y_max_deg=15.0)
INT_GEO = Geometry(x_min_deg=-2, x_max_deg=2, y_min_deg=-1, y_max_deg=1)


def gaze(n: int, seed: int, nan_share: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng(seed)
    xy = np.clip(np.cumsum(g.normal(0, 0.3, (n, 2)), 0), -25, 25)
    if nan_share:
        xy[g.random(n) < nan_share] = np.nan
    return xy[:, 0].copy(), xy[:, 1].copy()


def test_the_facade_exports_the_stream():
    assert gp.KaleidoStream is KaleidoStream and "KaleidoStream" in gp.__all__


@pytest.mark.parametrize("missing", ["keep", "hold"])
def test_per_sample_scalar_and_chunk_pushes_equal_the_batch(missing, rng):
    p = KaleidoParams(epsilon=1.5, radius_deg=2.0, window_samples=40, t_skip_samples=3,
                      missing=missing)
    x, y = gaze(4000, 1, nan_share=0.08)
    bx, by, bs = kaleido_arrays(x, y, p, rng=np.random.default_rng(5), geometry=GEO)
    s = KaleidoStream(p, rng=np.random.default_rng(5), geometry=GEO)
    ox, oy, spent, i = [], [], [], 0
    while i < x.size:  # a game loop: single samples (floats, numpy scalars) and chunks
        kind = int(rng.integers(3))
        if kind == 0:
            a, b = s.push_one(float(x[i]), float(y[i]))
            step = 1
        elif kind == 1:
            a, b = s.push(x[i], y[i])  # numpy scalars -> floats
            assert isinstance(a, float) and isinstance(b, float)
            step = 1
        else:
            step = int(rng.integers(2, 300))
            a, b = s.push(x[i:i + step], y[i:i + step])
        ox.extend(np.atleast_1d(a))
        oy.extend(np.atleast_1d(b))
        spent.extend(s.epsilon_spent)
        i += step
    np.testing.assert_array_equal(ox, bx)
    np.testing.assert_array_equal(oy, by)
    np.testing.assert_array_equal(spent, bs)
    assert s.samples_released == x.size


def test_integer_geometry_bounds_and_missing_samples_do_not_crash():
    """A Geometry with int bounds used to make the carried point an int, and NaN could not be
    written into the int output."""
    p = KaleidoParams(epsilon=0.2, radius_deg=5.0, window_samples=10, t_skip_samples=1)
    x = np.array([0.0, 30.0, np.nan, -30.0, np.nan, 1.0])
    y = np.array([0.0, 30.0, np.nan, -30.0, np.nan, 0.5])
    s = KaleidoStream(p, rng=np.random.default_rng(0), geometry=INT_GEO)
    ox, oy = s.push(x, y)
    assert ox.dtype == np.float64 and np.isnan(ox[[2, 4]]).all()
    assert INT_GEO.contains(ox[~np.isnan(ox)], oy[~np.isnan(oy)]).all()
    s1 = KaleidoStream(p, rng=np.random.default_rng(0), geometry=INT_GEO)
    one = [s1.push_one(a, b) for a, b in zip(x.tolist(), y.tolist(), strict=True)]
    assert all(type(a) is float for a, _ in one)
    np.testing.assert_array_equal([a for a, _ in one], ox)
    held = KaleidoStream(KaleidoParams(epsilon=0.2, radius_deg=5.0, window_samples=10,
                                       missing="hold"), rng=np.random.default_rng(0),
                         geometry=INT_GEO).push(x, y)[0]
    assert not np.isnan(held).any()


@pytest.mark.parametrize(("x", "y", "match"), [
    (np.array([0.0, np.inf]), np.zeros(2), "finite or NaN"),
    (np.zeros(2), np.array([-np.inf, 1.0]), "finite or NaN"),
    (math.inf, 0.0, "finite or NaN"),
    (None, 0.0, "got None"),
    ([1.0, None], [1.0, 2.0], "got None"),
    (np.zeros((3, 2)), np.zeros((3, 2)), "1-D"),
    (np.zeros((1, 1)), np.zeros((1, 1)), "1-D|one number"),
    (np.zeros(3), np.zeros(4), "same length"),
    ("1.0", 2.0, "must be a number"),
    (np.array(["a", "b"]), np.zeros(2), "must be numbers"),
    (True, 1.0, "must be a number"),
], ids=["inf_x", "minus_inf_y", "inf_scalar", "none_scalar", "none_in_list", "2d", "2d_one",
        "lengths", "text_scalar", "text_array", "bool"])
def test_bad_input_raises_a_named_error_and_leaves_the_state(x, y, match):
    p = KaleidoParams(epsilon=1.0, radius_deg=2.0, window_samples=10, t_skip_samples=1)
    s = KaleidoStream(p, rng=np.random.default_rng(2), geometry=GEO)
    gx, gy = gaze(50, 3)
    first = s.push(gx[:20], gy[:20])
    with pytest.raises(InvalidDataError, match=match):
        s.push(x, y)
    if np.ndim(x) == 0 and np.ndim(y) == 0:
        with pytest.raises(InvalidDataError, match=match):
            s.push_one(x, y)
    assert s.samples_released == 20
    rest = s.push(gx[20:], gy[20:])  # the rejected call changed nothing
    bx, _, _ = kaleido_arrays(gx, gy, p, rng=np.random.default_rng(2), geometry=GEO)
    np.testing.assert_array_equal(np.r_[first[0], rest[0]], bx)


def test_nan_is_a_legal_missing_sample_and_integers_are_accepted():
    p = KaleidoParams(epsilon=1.0, radius_deg=2.0, window_samples=10)
    s = KaleidoStream(p, rng=np.random.default_rng(0), geometry=GEO)
    assert all(math.isnan(v) for v in s.push_one(math.nan, 1.0))  # nothing published yet
    ox, _ = s.push([1, 2, 3], np.array([0, 0, 0], dtype=np.int32))
    assert ox.dtype == np.float64 and not np.isnan(ox).any()
    assert math.isnan(s.push_one(2.0, math.nan)[0])
    assert s.guarantee().parameters["samples_missing"] == 2


def test_memory_is_bounded_over_a_long_stream():
    w = 50
    p = KaleidoParams(epsilon=1.0, radius_deg=2.0, window_samples=w, t_skip_samples=1)
    s = KaleidoStream(p, rng=np.random.default_rng(0), geometry=GEO)
    x, y = gaze(2_000, 4, nan_share=0.05)

    def run(rounds: int) -> None:
        for _ in range(rounds):
            for i in range(0, x.size, 250):
                s.push(x[i:i + 250], y[i:i + 250])
            for a, b in zip(x[:200].tolist(), y[:200].tolist(), strict=True):
                s.push_one(a, b)

    run(5)  # warm up: noise blocks and deques at their working size
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    run(100)  # 220,000 more samples
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert s.samples_released == 105 * 2_200
    # a per-sample history would hold >= 8 bytes per sample (1.76 MB here); what may vary is the
    # block of pre-drawn noise (3 lists of up to ~1,300 Python floats, ~130 kB)
    assert grown < 300_000, f"memory grew by {grown} bytes over 220,000 samples"
    assert len(s._ring) == w and len(s._pub_e) <= w and len(s._pub_i) <= w
    assert len(s._thr) <= 2 * 1024 + 250


def test_the_record_is_available_at_any_time():
    eps, w = 2.0, 40
    p = KaleidoParams(epsilon=eps, radius_deg=2.0, window_s=0.2)
    s = KaleidoStream(p, rng=np.random.default_rng(0), sampling_rate_hz=200.0, geometry=GEO)
    g0 = s.guarantee()
    assert g0.parameters["samples_released"] == 0 and g0.per_participant["session"].epsilon == 0
    x, y = gaze(1001, 5)
    s.push(x[:500], y[:500])
    for a, b in zip(x[500:].tolist(), y[500:].tolist(), strict=True):
        s.push_one(a, b)
    g = s.guarantee(participant="p7")
    windows = math.ceil(1001 / w)
    assert g.epsilon == eps and g.unit.value == "w-window" and g.parameters["window_samples"] == w
    assert g.parameters["samples_released"] == 1001 and g.parameters["windows"] == windows
    assert g.per_participant["p7"].epsilon == pytest.approx(eps * windows)
    assert g.parameters["session_epsilon_bound"] == pytest.approx(eps * windows)
    assert 0 < g.parameters["epsilon_spent_last_window"] == s.window_spent <= eps * (1 + 1e-12)
    assert g.formally_private and Guarantee.from_json(g.to_json()) == g
