# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""REMoDNaV's compiled classification and filters (_remodnav_loop.c, _remodnav_filters.c) give the
Python path's events, bit for bit: its sums (NumPy's pairwise summation), its adaptive
thresholds, its preprocessing, each segment's saccades and stretches between saccades (at 30 to
150 Hz, gap-free and with a NaN stretch), whole event lists against the installed ``remodnav``
package, and ``remodnav_codes`` (the low-pass step: tests/events/test_remodnav_fast.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import warnings

import numpy as np
import pytest

from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.events import _remodnav_compiled as compiled
from gazeprivacy.events import _remodnav_fast as fast
from gazeprivacy.events import remodnav as ours

KERNEL = compiled.KERNEL
needs_kernel = pytest.mark.skipif(KERNEL is None, reason="the compiled module is not built")


def _bits(a) -> bytes:
    return np.asarray(a, dtype=np.float64).tobytes()


def test_the_compiled_module_is_built_where_a_compiler_exists():
    if os.environ.get("GAZEPRIVACY_PURE_PYTHON", "") not in ("", "0"):
        assert KERNEL is None
        pytest.skip("GAZEPRIVACY_PURE_PYTHON is set: the Python path is forced")
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        pytest.skip("no C compiler: the package runs the Python path (the extension is optional)")
    assert KERNEL is not None, ("the extension is not built: `pip install -e .` or "
                                "`python setup.py inplace`")


def test_every_local_header_of_a_c_file_is_a_dependency_in_setup_py():
    # a header not in the extension's `depends` is not rebuilt on change and not in the sdist
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    setup = (root / "setup.py").read_text()
    sources = sorted((root / "src" / "gazeprivacy").rglob("*.c"))
    seen = set()
    for c in sources:
        for header in re.findall(r'^#include "([^"]+)"', c.read_text(), flags=re.M):
            path = (c.parent / header).relative_to(root).as_posix()
            assert (root / path).is_file(), path
            assert f'"{path}"' in setup, f"{c.name} includes {header}; setup.py must list {path}"
            seen.add((c.name, header))
    # the two REMoDNaV modules share one header instead of copies of get_doubles
    assert {("_remodnav_loop.c", "_remodnav_common.h"),
            ("_remodnav_filters.c", "_remodnav_common.h")} <= seen
    assert all("get_doubles(PyObject" not in c.read_text() for c in sources
               if c.name.startswith("_remodnav"))


def test_the_environment_variable_forces_the_python_path():
    code = "from gazeprivacy.events import _remodnav_compiled as c; print(c.KERNEL is None)"
    env = {**os.environ, "GAZEPRIVACY_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["True"]


@needs_kernel
def test_sums_are_numpys_pairwise_sums():
    """Below 8 values, within a block of 128, split in halves above it (values of very
    different magnitudes: another order of additions rounds differently)."""
    rng = np.random.default_rng(0)
    for n in (*range(0, 140), 255, 256, 257, 1000, 4099, 9000):
        for _ in range(5):
            a = np.abs(rng.standard_normal(n)) * 10.0 ** rng.uniform(-4, 4, n)
            assert _bits(KERNEL.pairwise_sum(a)) == _bits(np.add.reduce(a)), n


class _Params:
    velthresh_startvel = 300.0

    def __init__(self, noise_factor: float) -> None:
        self.noise_factor = noise_factor


@needs_kernel
@pytest.mark.parametrize("noise_factor", [5.0, 7.0])
def test_thresholds_equal_the_python_ones(noise_factor):
    """Speeds with NaN, ties, none below the start, all zero, sorted, reversed and equal runs
    (the compiled sort's worst cases), short and long."""
    rng = np.random.default_rng(1)
    cases = [np.abs(rng.standard_normal(n) * 40) for n in (0, 1, 2, 3, 10, 17, 101, 2000)]
    cases += [np.round(np.abs(rng.standard_normal(200)) * 3), np.full(50, 400.0),
              np.concatenate([[0.0, np.nan], np.abs(rng.standard_normal(80)) * 900]),
              np.zeros(30), np.array([0.0, 0.0, 10.0]), np.arange(500.0) / 7,
              np.arange(500.0)[::-1] / 3, np.repeat([1.0, 2.0, 9.0, 3.0], 300),
              np.full(40, np.nan)]
    clf = _Params(noise_factor)
    with warnings.catch_warnings():  # (an empty median's warnings)
        warnings.simplefilter("ignore", RuntimeWarning)
        for v in cases:
            want = fast.adaptive_thresholds(clf, v)
            assert _bits(KERNEL.thresholds(v, 300.0, noise_factor)) == _bits(want), v[:5]
            assert _bits(compiled.compiled_thresholds(clf, v)) == _bits(want)


def _recording(rate: float, seed: int):
    from gazeprivacy.events.synthetic_pursuit import add_pursuit

    r = simulate_dataset(n_participants=1, tasks=("free-viewing",), duration_s=12.0,
                         sampling_rate_hz=rate, rng=np.random.default_rng(seed),
                         ground_truth=True)[0]
    r = add_pursuit(r, pursuit_share=0.3, rng=np.random.default_rng(seed + 1))
    ok = np.isfinite(r.x)
    return r.x[ok], r.y[ok]


def _classified(rate: float, x: np.ndarray, y: np.ndarray, kernel, upstream: bool = False):
    """The preprocessed samples, the events and the deferred stretches of one segment with the
    lean classifier (``kernel``: compiled or None) or REMoDNaV's own (``upstream``)."""
    from remodnav import EyegazeClassifier

    orig = compiled.KERNEL
    compiled.KERNEL = kernel
    try:
        with ours._quiet():
            clf, s = ours._classifier(ours.RemodnavParams.for_rate(rate), rate,
                                      kind=EyegazeClassifier if upstream else None)
            if upstream:
                clf.deferred = []
                data = np.rec.fromarrays([x.copy(), y.copy()], names=["x", "y"])
                pp = clf.preproc(data, min_blink_duration=0.0, dilate_nan=0.0,
                                 median_filter_length=(s["median"] + 0.5) / clf.sr,
                                 savgol_length=0.0, savgol_polyord=2, max_vel=1000.0)
                return pp, clf(pp, classify_isp=True, sort_events=True), [], clf
            x, y = fast.spike_filtered_pieces([x, y])
            return (*ours._segment_events(clf, s, x, y, 1000.0), clf)
    finally:
        compiled.KERNEL = orig


def _bounds(events, sr):
    return [(e["id"], e["label"], _bits(e["start_time"]), _bits(e["end_time"]),
             round(e["start_time"] * sr), round(e["end_time"] * sr)) for e in events]


@needs_kernel
@pytest.mark.parametrize("rate", [30.0, 60.0, 100.0, 150.0])
@pytest.mark.parametrize("nan", [False, True], ids=["gap_free", "nan_stretch"])
def test_segment_events_equal_the_python_path(rate, nan):
    """Every saccade (id, label, bounds in seconds, bit for bit) and every deferred stretch of
    the compiled classification equal the Python path's (REMoDNaV's own ``__call__`` over the
    fast methods), on simulated free viewing with pursuit, gap-free or with a NaN stretch
    (REMoDNaV's own NaN handling: no saccade across it)."""
    x, y = _recording(rate, 4)
    if nan:
        x[len(x) // 2:len(x) // 2 + int(rate // 10)] = np.nan
        y[np.isnan(x)] = np.nan
    pp_c, ev_c, st_c, _ = _classified(rate, x, y, KERNEL)
    pp_p, ev_p, st_p, _ = _classified(rate, x, y, None)
    assert pp_c.tobytes() == pp_p.tobytes()
    assert _bounds(ev_c, rate) == _bounds(ev_p, rate)
    assert [tuple(map(int, w)) for w in st_c] == [tuple(map(int, w)) for w in st_p]
    labels = {e["label"] for e in ev_c}
    assert len(ev_c) > 20 and labels >= {"ISAC", *(() if nan else ("SACC",))}
    assert len(st_c) > 20


@needs_kernel
@pytest.mark.parametrize("rate", [60.0, 100.0])
def test_events_with_the_stretches_equal_remodnavs(rate):
    """The compiled saccades and the batched fixation-or-pursuit events of the deferred
    stretches are REMoDNaV's own event list (labels and bounds), event by event."""
    from gazeprivacy.events._remodnav_batch import fix_or_pursuit_all

    x, y = _recording(rate, 10)
    pp, ev, stretches, clf = _classified(rate, x, y, KERNEL)
    with ours._quiet():
        leaves = fix_or_pursuit_all(clf, pp, stretches)
    got = sorted([(e["label"], round(e["start_time"] * rate), round(e["end_time"] * rate))
                  for e in ev] + leaves, key=lambda e: e[1])
    ref = _classified(rate, x, y, None, upstream=True)[1]  # (its preproc filters the spikes)
    want = [(e["label"], round(e["start_time"] * rate), round(e["end_time"] * rate))
            for e in ref]
    assert got == want
    assert {"FIXA", "PURS", "SACC", "ISAC"} <= {e[0] for e in want}


@needs_kernel
@pytest.mark.parametrize("rate", [60.0, 100.0])
def test_remodnav_codes_equal_without_the_compiled_module(monkeypatch, rate):
    """Whole recordings with gaps (several segments each): the same codes, starts and
    plausibility flags."""
    ds = simulate_dataset(n_participants=2, tasks=("free-viewing", "reading"), duration_s=20.0,
                          sampling_rate_hz=rate, rng=np.random.default_rng(6))
    params = ours.RemodnavParams.for_rate(rate)
    got = [ours.remodnav_codes(r, params, 0.1) for r in ds]
    monkeypatch.setattr(compiled, "KERNEL", None)
    want = [ours.remodnav_codes(r, params, 0.1) for r in ds]
    for (c1, s1, i1), (c2, s2, i2) in zip(got, want, strict=True):
        assert np.array_equal(c1, c2) and np.array_equal(s1, s2) and i1 == i2
    assert all((c == 2).any() and (c == 1).any() for c, _, _ in got)


def _lean_events(pp: np.ndarray, kernel, rate: float = 100.0):
    """The lean classifier's saccades (id, label, onset and end in samples) and deferred
    stretches of the preprocessed samples ``pp``, compiled (``kernel``) or not (None)."""
    orig = compiled.KERNEL
    compiled.KERNEL = kernel
    try:
        with ours._quiet():
            clf, _ = ours._classifier(ours.RemodnavParams.for_rate(rate), rate)
            clf.deferred = []
            ev = clf(pp, classify_isp=True, sort_events=True)
    finally:
        compiled.KERNEL = orig
    return ([(e["id"], e["label"], round(e["start_time"] * rate), round(e["end_time"] * rate))
             for e in ev], [tuple(map(int, w)) for w in clf.deferred])


def _pp(vel: np.ndarray, med: np.ndarray | None = None, x: np.ndarray | None = None):
    out = np.zeros(vel.shape[0], dtype=[(n, np.float64) for n in
                                        ("med_vel", "vel", "accel", "x", "y")])
    out["vel"], out["med_vel"] = vel, vel if med is None else med
    out["x"] = np.cumsum(vel) / 100 if x is None else x
    return out


@needs_kernel
def test_crafted_speeds_give_the_python_paths_saccades():
    """Hand-made speeds where the order of equal peaks decides (twin peaks closer than the
    minimum interval between saccades: the first in REMoDNaV's stable order wins), peaks at
    the first and last samples, plateaus at the threshold, NaN positions and speeds, and more
    saccades than the initial frequency cap allows."""
    rng = np.random.default_rng(3)
    base = np.abs(rng.standard_normal(400)) * 3
    cases = []
    for gap in (1, 2, 3, 5, 8):  # twin peaks: equal speed sums (through the sample after)
        v = base.copy()
        v[100:104] = v[100 + gap + 4:104 + gap + 4] = [200.0, 400.0, 200.0, 1.0]
        v[300:304] = v[300 + gap + 4:304 + gap + 4] = [150.0, 150.0, 150.0, 0.5]
        cases.append(_pp(v))
        cases.append(_pp(v, med=v[::-1].copy()))  # the global peaks from other speeds
    for k in range(1, 7):  # an inner saccade from k samples after a global one (kept: >= 4)
        v = base.copy()
        v[100:103] = [300.0, 600.0, 300.0]
        v[103:103 + k] = 0.0  # the global saccade ends at 103, the inner one starts at 103 + k
        v[103 + k:107 + k] = [0.5, 60.0, 60.0, 0.0]
        med = base.copy()
        med[100:103] = v[100:103]  # (a global peak in the median-filtered speeds only there)
        cases.append(_pp(v, med=med))
    v = base.copy()
    v[:3] = v[-3:] = 500.0
    cases.append(_pp(v))
    v = base.copy()
    v[::9] = 300.0  # more peaks than 2 per second
    cases.append(_pp(v))
    v = np.round(base)
    v[50:60] = v[200:205] = 2.0  # speeds equal to the thresholds' likely values
    cases.append(_pp(v))
    v = base.copy()
    v[150:152] = 600.0
    x = np.cumsum(v) / 100
    x[140:145] = x[250:251] = np.nan
    cases.append(_pp(v, x=x))
    v = base.copy()
    v[10:12] = v[390:392] = 400.0
    v[[20, 200, 201]] = np.nan
    cases.append(_pp(v, med=np.nan_to_num(v)))
    for pp in cases:
        got = _lean_events(pp, KERNEL)
        assert got == _lean_events(pp, None)
    assert sum(len(_lean_events(pp, KERNEL)[0]) for pp in cases) > 40


@needs_kernel
@pytest.mark.parametrize("rate", [30.0, 60.0, 100.0, 150.0])
def test_preproc_equals_the_python_one(rate):
    """The compiled preprocessing gives the Python one's structured array, bit for bit: median
    filters of 0 to 7 samples (even ones too, reflected at both ends), speeds above the cap
    (the previous one kept, also at the first sample), and falls back to the Python one on
    segments not longer than the filter and with NaN."""
    rng = np.random.default_rng(11)
    with ours._quiet():
        clf, _ = ours._classifier(ours.RemodnavParams.for_rate(rate), rate)
        for n in (1, 2, 3, 6, 50, 700):
            x, y = rng.standard_normal(n).cumsum(), rng.standard_normal(n).cumsum()
            x[rng.random(n) < 0.05] += 50.0  # jumps faster than the cap at every rate here
            for k in range(8):
                length = (k + 0.5) / rate if k else 0.0
                data = np.rec.fromarrays([x.copy(), y.copy()], names=["x", "y"])
                got = compiled.compiled_preproc(clf, data, 0.0, 0.0, length, 0.0, 2, 1000.0)
                want = fast.preproc(clf, data, 0.0, 0.0, length, 0.0, 2, 1000.0)
                assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (n, k)
        assert (np.diff(x) * rate > 1000).any()
        x[3] = np.nan
        data = np.rec.fromarrays([x, y], names=["x", "y"])
        got = compiled.compiled_preproc(clf, data, 0.0, 0.0, 3.5 / rate, 0.0, 2, 1000.0)
        want = fast.preproc(clf, data, 0.0, 0.0, 3.5 / rate, 0.0, 2, 1000.0)
        assert got.tobytes() == want.tobytes() and np.isnan(got["vel"][3])


@needs_kernel
@pytest.mark.parametrize("start, length", [
    (float("nan"), 3.0), (0.0, float("nan")), (float("inf"), 3.0), (0.0, float("-inf")),
    (1e300, 3.0), (0.0, -1e300), (-1.0, 3.0), (0.0, 1.0), (0.5, 3.0), (0.0, 2.5), (8.0, 3.0)])
def test_lowpass_speeds_refuses_a_stretch_that_is_not_whole_and_inside_x(start, length):
    # checked as doubles before any cast to an index (a cast of NaN or 1e300 is undefined)
    x = np.arange(10.0)
    sos, zi = np.zeros((1, 6)), np.zeros((1, 2))
    with pytest.raises(ValueError, match="a stretch outside x"):
        KERNEL.lowpass_speeds(x, x, np.array([start]), np.array([length]), sos, zi, 1.0, 1.0,
                              np.empty(20))
    out = np.empty(20)  # the same call inside x runs
    KERNEL.lowpass_speeds(x, x, np.array([7.0]), np.array([3.0]), np.eye(1, 6), zi, 1.0, 1.0,
                          out)


@needs_kernel
def test_lowpass_speeds_refuses_a_partial_row_of_sos():
    x = np.arange(10.0)
    with pytest.raises(ValueError, match="sos is not n x 6"):
        KERNEL.lowpass_speeds(x, x, np.array([0.0]), np.array([3.0]), np.zeros(7),
                              np.zeros(2), 1.0, 1.0, np.empty(20))
