# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The compiled threshold loop (_kaleido_loop.c) is bit-identical to the Python loop: same
released points, same budgets, same state carried across pushes, in every geometry and policy."""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
import sysconfig

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gazeprivacy.data import Geometry
from gazeprivacy.mechanisms.samples import kaleido as kal
from gazeprivacy.mechanisms.samples.kaleido import KaleidoParams, KaleidoStream

SCREEN = Geometry(x_min_deg=-20.0, x_max_deg=20.0, y_min_deg=-15.0, y_max_deg=15.0)
VR = Geometry(x_min_deg=-90, x_max_deg=90, y_min_deg=-80, y_max_deg=80, kind="vr")
LOOP = kal._LOOP


def _compiler() -> bool:
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc) is not None


def test_the_compiled_loop_is_built_where_a_compiler_exists():
    if os.environ.get("GAZEPRIVACY_PURE_PYTHON", "") not in ("", "0"):
        assert LOOP is None
        pytest.skip("GAZEPRIVACY_PURE_PYTHON is set: the Python loop is forced")
    if not _compiler():
        pytest.skip("no C compiler: the package runs the Python loop (the extension is optional)")
    assert LOOP is not None, ("the extension is not built: `pip install -e .` or "
                              "`python setup.py build_ext --inplace`")


def test_the_environment_variable_forces_the_python_loop():
    code = ("from gazeprivacy.mechanisms.samples import kaleido; "
            "print(kaleido._LOOP is None, kaleido.KaleidoStream.__name__)")
    env = {**os.environ, "GAZEPRIVACY_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["True", "KaleidoStream"]


@pytest.mark.skipif(LOOP is None, reason="the compiled loop is not built")
@pytest.mark.parametrize(("j0", "skip"), [(0, 1), (0, 5), (3, 4), (40, 2)])
def test_the_compiled_count_of_tested_samples_is_the_python_one(j0, skip):
    x, y = gaze(500, j0 + skip, nan_share=0.2, jump=1.0)
    ok = ~(np.isnan(x) | np.isnan(y))
    assert LOOP.count(x, y, j0, skip) == kal._tested_with_missing(ok, j0, skip).size
    assert LOOP.count(x[:0], y[:0], j0, skip) == 0


needs_loop = pytest.mark.skipif(LOOP is None, reason="the compiled loop is not built")


def gaze(n: int, seed: int, *, nan_share: float, jump: float,
         clip: float = 85.0) -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng(seed)
    steps = g.normal(0, 0.3, (n, 2)) + (g.random((n, 1)) < 0.05) * g.normal(0, jump, (n, 2))
    xy = np.clip(np.cumsum(steps, 0), -clip, clip)
    xy[g.random(n) < nan_share] = np.nan
    return xy[:, 0].copy(), xy[:, 1].copy()


def run(loop, p: KaleidoParams, x, y, geometry, chunks, seed: int = 3) -> dict:
    """Push ``x, y`` in ``chunks`` with the given loop (None: Python; a list: one per push)."""
    s = KaleidoStream(p, rng=np.random.default_rng(seed), geometry=geometry)
    ox, oy, spent, i = [], [], [], 0
    for k, c in enumerate(chunks):
        s._loop = loop[k % len(loop)] if isinstance(loop, list) else loop
        a, b = s.push(x[i:i + c], y[i:i + c])
        ox.append(np.atleast_1d(a))
        oy.append(np.atleast_1d(b))
        spent.append(s.epsilon_spent)
        i += c
    return {"x": np.concatenate(ox), "y": np.concatenate(oy), "spent": np.concatenate(spent),
            "last": s._last, "pub_i": list(s._pub_i), "pub_e": list(s._pub_e),
            "window": s.window_spent, "next": s._next_test,
            "noise_left": (s._thr[s._pos:], s._rc[s._pos:], s._rs[s._pos:])}


def assert_same(a: dict, b: dict, *, same_chunks: bool = True) -> None:
    """Equal outputs and state; the noise drawn ahead depends on the chunks, not on the loop."""
    for key in a:
        if key == "noise_left" and not same_chunks:
            continue
        if isinstance(a[key], np.ndarray):
            np.testing.assert_array_equal(a[key], b[key], err_msg=key, strict=True)
        else:
            assert a[key] == b[key], key


CASES = {
    "screen-clamped": (dict(epsilon=2.0, radius_deg=2.0, window_samples=50), SCREEN),
    "great-circle-vr": (dict(epsilon=1.0, radius_deg=3.0, window_samples=37, t_skip_samples=3,
                             l_thresh_deg=2.0), VR),
    "no-geometry": (dict(epsilon=0.7, radius_deg=1.0, window_samples=20, t_skip_samples=1), None),
    "unclamped": (dict(epsilon=0.3, radius_deg=5.0, window_samples=60, clamp=False), SCREEN),
    "hold-paper": (dict(epsilon=1.0, radius_deg=0.5, window_samples=40, missing="hold",
                        mode="paper", t_skip_samples=2), SCREEN),
    # every sample tested and published: eps_pub halves down to 0 in floating point (skipped)
    "budget-exhausted": (dict(epsilon=1e6, radius_deg=1e-3, window_samples=3000,
                              t_skip_samples=1, l_thresh_deg=0.0, mode="paper"), SCREEN),
    # great-circle past +-90 deg latitude (unclamped, +-360 deg): the input reaches +-170 deg
    # and holds coincident and antipodal pairs (see past_the_poles), where the haversine term
    # rounds outside [0, 1]
    "great-circle-past-the-poles": (dict(epsilon=1.0, radius_deg=1e-20, window_samples=25,
                                         t_skip_samples=1, l_thresh_deg=1.0, clamp=False,
                                         test_distance="great-circle"), None),
}


def past_the_poles(x: np.ndarray, y: np.ndarray) -> None:
    """Every 50th sample onwards: blocks of the same place written two ways, (0, 100) and
    (180, 80), then an antipodal pair (10, 30) and (190, -30) (haversine term 1)."""
    block = [(180.0, 100.0), (0.0, 80.0)] * 5 + [(10.0, 130.0), (190.0, 50.0)] * 5
    block += [(10.0, 30.0), (190.0, -30.0)] * 3
    for start in range(0, x.size - len(block), 150):
        x[start:start + len(block)] = [a for a, _ in block]
        y[start:start + len(block)] = [b for _, b in block]


@needs_loop
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("nan_share", [0.0, 0.1])
def test_compiled_equals_python_in_one_push_and_in_random_chunks(case, nan_share):
    kw, geo = CASES[case]
    p = KaleidoParams(**kw)
    n = 6000
    poles = case == "great-circle-past-the-poles"
    x, y = gaze(n, 11, nan_share=nan_share, jump=60.0 if case == "budget-exhausted" else 5.0,
                clip=170.0 if poles else 85.0)
    if poles:
        past_the_poles(x, y)
    g = np.random.default_rng(hash((case, nan_share)) % 2**32)
    cuts = g.integers(1, 700, n)
    chunks = cuts[:int(np.searchsorted(np.cumsum(cuts), n)) + 1].tolist()
    python = run(None, p, x, y, geo, [n])
    assert_same(python, run(LOOP, p, x, y, geo, [n]))
    assert_same(run(None, p, x, y, geo, chunks), run(LOOP, p, x, y, geo, chunks))
    assert_same(python, run(LOOP, p, x, y, geo, chunks), same_chunks=False)
    # the paths alternate within one stream: the state (noise, history, last point) carries
    assert_same(python, run([LOOP, None], p, x, y, geo, chunks), same_chunks=False)
    if case == "budget-exhausted":  # cap - fsum(history) rounds to 0 after ~53 halvings:
        # the window's later samples are tested but publish nothing
        tested = python["spent"][-1000:][~np.isnan(x[-1000:])]
        assert python["pub_i"][-1] < n - 1000 and tested.min() > 0.0
    if poles:  # noise of scale 1e-20 rounds away: (0, 80) re-publishes (180, 100)
        at = np.flatnonzero((x == 0.0) & (y == 80.0))
        assert at.size > 100 and np.all(python["x"][at] == 180.0)


@needs_loop
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(25, 400), w=st.integers(1, 30),
       skip=st.integers(1, 6), nan_share=st.sampled_from([0.0, 0.3]),
       geo=st.sampled_from([SCREEN, VR, None]))
def test_compiled_equals_python_on_random_streams(seed, n, w, skip, nan_share, geo):
    p = KaleidoParams(epsilon=1.0, radius_deg=2.0, window_samples=w, t_skip_samples=skip)
    x, y = gaze(n, seed, nan_share=nan_share, jump=20.0)
    assert_same(run(None, p, x, y, geo, [n], seed), run(LOOP, p, x, y, geo, [n], seed))


@needs_loop
@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300,
                          max_value=1e300), max_size=40))
def test_the_compiled_sum_is_math_fsum(values):
    a = np.array(values, dtype=np.float64)
    try:
        expected = math.fsum(values)
    except OverflowError:
        return
    assert LOOP.fsum(a) == expected
    assert LOOP.fsum(np.concatenate([a, -a[::2], [1e-300, 1.0, -1.0]])) == math.fsum(
        [*values, *(-a[::2]).tolist(), 1e-300, 1.0, -1.0])


@needs_loop
@pytest.mark.parametrize("great", [False, True])
def test_a_distance_at_the_threshold_is_decided_by_the_python_function(great):
    """Within 1e-9 of the threshold the C loop asks the Python loop's own distance function
    (libm's hypot may round differently from math.hypot): here one that says 'farther'."""
    calls = []

    def farther(*a):
        calls.append(a)
        d = kal._haversine_deg(*a) if great else math.hypot(*a)
        return d + 1e-12

    x, y = np.array([0.0, 3.0]), np.array([0.0, 4.0])
    dist = kal._haversine_deg(3.0, 4.0, 0.0, 0.0) if great else 5.0
    for fn, published in ((math.hypot if not great else kal._haversine_deg, False),
                          (farther, True)):
        ex = (math.hypot, fn) if great else (fn, kal._haversine_deg)
        out = np.zeros(2), np.zeros(2), np.zeros(2)
        last, _, k, _, _ = LOOP.push(x, y, np.array([0.0, dist]), np.zeros(2), np.zeros(2), *out,
                                     [], [], None, 0, 1, 0, 10, False, great, False, 0.0, 0.0,
                                     0.0, 0.0, 1.0, 0.1, *ex)
        assert k == 2 and (out[2][1] > 0.1) == published
        assert last == ((3.0, 4.0) if published else (0.0, 0.0))
    assert calls


def push_args(n: int = 4, k: int | None = None, **over) -> list:
    """Valid arguments of LOOP.push for a chunk of n samples (zeros) tested every sample;
    ``over`` replaces some by name."""
    k = n if k is None else k
    a = dict(x=np.zeros(n), y=np.zeros(n), thr=np.zeros(k), rc=np.zeros(k), rs=np.zeros(k),
             out_x=np.zeros(n), out_y=np.zeros(n), spent=np.zeros(n), pub_i=[], pub_e=[],
             last=None, j0=0, skip=1, base=0, w=10, hold=False, great=False, clamp=False,
             bx0=0.0, bx1=0.0, by0=0.0, by1=0.0, cap=1.0, eps_test=0.1,
             exact_hypot=math.hypot, exact_haversine=kal._haversine_deg)
    a.update(over)
    return list(a.values())


@needs_loop
def test_push_arguments_are_accepted_as_the_stream_passes_them():
    last, _, k, pending, missing = LOOP.push(*push_args(last=(1.0, 2.0), thr=np.full(4, 3.0)))
    assert (k, pending, missing) == (4, 4, 0) and last == (1.0, 2.0)


@needs_loop
@pytest.mark.parametrize("name", ["x", "y", "thr", "rc", "rs", "out_x", "out_y", "spent"])
@pytest.mark.parametrize("bad", [np.zeros(4, dtype=np.float32), np.zeros(4, dtype=np.int64),
                                 np.zeros(4, dtype=">f8"), b"\0" * 32, np.zeros(8)[::2]],
                         ids=["float32", "int64", "big-endian", "bytes", "strided"])
def test_push_refuses_buffers_that_are_not_contiguous_float64(name, bad):
    with pytest.raises((TypeError, BufferError, ValueError), match=name + "|contiguous|writable"):
        LOOP.push(*push_args(**{name: bad}))


@needs_loop
def test_push_refuses_read_only_outputs_and_odd_lengths():
    ro = np.zeros(4)
    ro.flags.writeable = False
    with pytest.raises((TypeError, BufferError, ValueError)):
        LOOP.push(*push_args(out_x=ro))
    odd = memoryview(np.zeros(4)).cast("B")[:31]  # format "B": refused before its length
    with pytest.raises(TypeError, match="x must be a contiguous float64 buffer"):
        LOOP.count(odd, odd, 0, 1)


@needs_loop
@pytest.mark.parametrize("k", [3, 5, 0])
def test_push_refuses_noise_of_another_length_than_count(k):
    """Shorter noise once made the loop stop testing silently; longer was refused."""
    with pytest.raises(ValueError, match="does not match count"):
        LOOP.push(*push_args(4, k))


@needs_loop
@pytest.mark.parametrize("last", [[1.0, 2.0], 1.0, "ab"])
def test_push_refuses_a_last_point_that_is_not_a_tuple(last):
    with pytest.raises(TypeError, match="last must be a tuple"):
        LOOP.push(*push_args(last=last))
    with pytest.raises(TypeError):
        LOOP.push(*push_args(last=(1.0,)))


@needs_loop
def test_push_refuses_a_bad_window_or_base():
    for over in ({"w": 0}, {"skip": 0}, {"base": -1}, {"base": 2**63 - 2}):
        with pytest.raises(ValueError, match="skip < 1, w < 1 or base"):
            LOOP.push(*push_args(**over))


@needs_loop
def test_the_largest_skip_does_not_overflow_the_compiled_loop():
    """skip = 2**63 - 1 after a leading missing sample: count() once added skip - 1 to the
    position (signed overflow: an endless loop); push() saturates the next test position."""
    x = np.r_[np.nan, np.zeros(9)]
    big = 2**63 - 1
    assert LOOP.count(x, x, 0, big) == 1
    assert LOOP.count(x, x, 3, big) == 1 and LOOP.count(x, x, 10, big) == 0
    last, _, k, pending, missing = LOOP.push(*push_args(10, 1, x=x, y=x.copy(), skip=big))
    assert (k, pending, missing) == (1, big, 1) and last == (0.0, 0.0)
