# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth's compiled kernel (_dpgazesynth_kernel.c) is bit-identical to the numpy path:
the client windows, the run lengths, the rounding and the whole release, on random recordings
with missing gaps, off-screen points, ties in the rounding, several window sizes and screens,
in both modes, both missing-sample policies, both transition variants and at participant level.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import fields

import numpy as np
import pytest

from gazeprivacy.data import Dataset, Geometry, Recording
from gazeprivacy.mechanisms.samples import dpgazesynth as dg
from gazeprivacy.mechanisms.samples.dpgazesynth import DPGazeSynthParams, grid, kernel

KERNEL = kernel.KERNEL
needs_kernel = pytest.mark.skipif(KERNEL is None, reason="the compiled kernel is not built")
SCREENS = (Geometry(x_min_deg=0.0, x_max_deg=30.0, y_min_deg=0.0, y_max_deg=20.0),
           Geometry(x_min_deg=-20.0, x_max_deg=20.0, y_min_deg=-15.0, y_max_deg=15.0))


def _compiler() -> bool:
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc) is not None


def test_the_compiled_kernel_is_built_where_a_compiler_exists():
    if os.environ.get("GAZEPRIVACY_PURE_PYTHON", "") not in ("", "0"):
        assert KERNEL is None
        pytest.skip("GAZEPRIVACY_PURE_PYTHON is set: the numpy path is forced")
    if not _compiler():
        pytest.skip("no C compiler: the package runs the numpy path (the extension is optional)")
    assert KERNEL is not None, ("the extension is not built: `pip install -e .` or "
                                "`python setup.py inplace`")


def test_the_environment_variable_forces_the_numpy_path():
    code = ("from gazeprivacy.mechanisms.samples.dpgazesynth import kernel; "
            "print(kernel.KERNEL is None)")
    env = {**os.environ, "GAZEPRIVACY_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["True"]


def recordings(seed: int, n_recs: int = 4) -> tuple[Recording, ...]:
    """Fixation-like gaze with NaN gaps (single rows, runs, whole windows), points off the
    screen and coordinates on cell edges; rates and screens differ between recordings."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n_recs):
        geo = SCREENS[int(rng.integers(2))]
        rate = float(rng.choice([50.0, 100.0, 120.0]))
        n = int(rng.integers(1, 400))
        fix = np.repeat(rng.integers(0, 8, size=n // 5 + 1), 5)[:n]
        w, h = geo.x_max_deg - geo.x_min_deg, geo.y_max_deg - geo.y_min_deg
        x = geo.x_min_deg + (fix + rng.normal(0, 0.05, n)) * w / 6 - 0.1 * w
        y = geo.y_min_deg + (fix % 3 + rng.normal(0, 0.05, n)) * h / 2.5 - 0.1 * h
        edge = rng.random(n) < 0.1  # exactly on a cell edge
        x[edge] = geo.x_min_deg + np.round(rng.random(edge.sum()) * 30) * w / 30
        gaps = rng.random(n) < rng.choice([0.0, 0.05, 0.3])
        if n > 60 and rng.random() < 0.5:  # a long gap (whole windows missing)
            a = int(rng.integers(0, n - 60))
            gaps[a:a + 60] = True
        x[gaps] = np.nan
        y[gaps] = np.nan
        out.append(Recording.from_arrays(recording=f"r{i}", participant=f"p{i % 2}", x=x, y=y,
                                         sampling_rate_hz=rate, geometry=geo))
    return tuple(out)


def both(monkeypatch: pytest.MonkeyPatch, fn, *args, **kw):
    """fn(*args) with the numpy path, then with the compiled kernel."""
    monkeypatch.setattr(kernel, "KERNEL", None)
    a = fn(*args, **kw)
    monkeypatch.setattr(kernel, "KERNEL", KERNEL)
    return a, fn(*args, **kw)


def same(a, b) -> None:
    """Equal arrays of the same dtype (float64 bit for bit, NaN where NaN)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


@needs_kernel
@pytest.mark.parametrize("missing", ["keep", "fill"])
@pytest.mark.parametrize("seed", range(12))
def test_client_windows_are_the_numpy_ones(monkeypatch, seed, missing):
    recs = recordings(seed)
    p = DPGazeSynthParams(epsilon=2.0, grid_size=int(2 + seed % 7 * 5), missing=missing)
    a, b = both(monkeypatch, grid.client_windows, recs, p)
    assert a.n_windows == b.n_windows
    for f in fields(a):
        if f.name != "n_windows":
            same(getattr(a, f.name), getattr(b, f.name))


@needs_kernel
@pytest.mark.parametrize("mode", ["sound", "paper"])
@pytest.mark.parametrize("seed", range(12))
def test_released_run_lengths_are_the_numpy_ones(monkeypatch, seed, mode):
    p = DPGazeSynthParams(epsilon=[0.5, 2.0, 50.0][seed % 3], grid_size=10, mode=mode)
    windows = grid.client_windows(recordings(seed), p)
    a, b = both(monkeypatch, lambda: dg.release_run_lengths(windows, p,
                                                            np.random.default_rng(seed)))
    same(a[0], b[0])
    same(a[1], b[1])


@needs_kernel
@pytest.mark.parametrize("seed", range(48))
def test_rounding_with_ties_and_empty_groups_is_the_numpy_one(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    # short groups (sorted by insertion) and long ones (Hoare's selection first)
    sizes = rng.integers(1, [3, 12, 60, 400][seed % 4], size=int(rng.integers(1, 50)))
    group = np.repeat(np.arange(sizes.size), sizes)
    totals = sizes + rng.integers(0, 7, size=sizes.size)
    # small integers and halves: equal remainders within a group (ties in the order), groups
    # all at or below zero (the whole total on their first entry)
    values = rng.integers(-3, 4, size=group.size) / rng.choice([1.0, 2.0, 3.0])
    if seed % 3 == 0:
        values = values + rng.normal(0, 100.0, size=group.size)
    a, b = both(monkeypatch, grid._round_keep_sum, values, group, totals)
    same(a, b)
    assert np.array_equal(np.bincount(group, weights=b, minlength=sizes.size), totals)


@pytest.mark.parametrize("compiled", [False, True])
def test_the_rounding_gives_ties_to_the_earlier_entry(monkeypatch, compiled):
    """Three equal remainders, one unit to give: the first entry gets it (both paths)."""
    if compiled and KERNEL is None:
        pytest.skip("the compiled kernel is not built")
    monkeypatch.setattr(kernel, "KERNEL", KERNEL if compiled else None)
    out = grid._round_keep_sum(np.array([1.0, 1.0, 1.0, 5.0]), np.array([0, 0, 0, 1]),
                               np.array([4, 3]))
    assert out.tolist() == [2, 1, 1, 3]


CASES = [
    {}, {"mode": "paper"}, {"missing": "fill"}, {"transitions": "one-per-window"},
    {"mode": "paper", "missing": "fill"}, {"grid_size": 2}, {"grid_size": 45},
    {"unit": "participant", "windows_per_participant": 2},
    {"unit": "participant", "windows_per_participant": 3, "missing": "fill"},
]


@needs_kernel
@pytest.mark.parametrize("kw", CASES, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items())
                         or "default")
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.filterwarnings("ignore::gazeprivacy.exceptions.NotFormallyPrivateWarning")
def test_the_whole_release_is_the_numpy_one(monkeypatch, seed, kw):
    ds = Dataset(recordings(100 + seed, n_recs=5))
    params = DPGazeSynthParams(**{"epsilon": 3.0, "grid_size": 12, **kw})
    a, b = both(monkeypatch, lambda: dg.dpgazesynth(ds, params, rng=np.random.default_rng(seed)))
    assert len(a.output) == len(b.output)
    for ra, rb in zip(a.output, b.output, strict=True):
        same(ra.x, rb.x)
        same(ra.y, rb.y)
    assert a.guarantee == b.guarantee


@needs_kernel
def test_the_kernel_refuses_runs_out_of_window_order():
    g = 3
    cum = np.tile(np.linspace(0.125, 1.0, 8), (g * g, 1))
    one = np.zeros(2)
    with pytest.raises(ValueError, match="not sorted"):
        KERNEL.synth(np.array([1, 0]), np.array([1, 1]), np.array([0, 0]), cum, one, one, one,
                     one, one, one + 1.0, one + 1.0, np.array([0, 1]), g, np.empty(2),
                     np.empty(2))
