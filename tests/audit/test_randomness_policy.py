# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Randomness policy (issue 8, item 6).

Release runs seed from OS entropy; a fixed seed is marked in the guarantee record as a research
run; every recording gets its own child stream (SeedSequence spawning), so a parallel run gives
the same output as a serial one for the same seed.
"""

from __future__ import annotations

import ast
import importlib.util
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.guarantees import FlagCode, Guarantee, Kind, Release, Unit
from gazeprivacy.mechanisms import MECHANISMS, protect_recordings
from gazeprivacy.rng import make_rng, seed_for_sklearn, spawn

SRC = Path(__file__).resolve().parents[2] / "src" / "gazeprivacy"


def toy_dataset(n: int = 6) -> Dataset:
    recs = tuple(
        Recording.from_arrays(recording=f"r{i}", participant=f"p{i % 3}",
                              x=np.linspace(0, 1, 20 + i), y=np.zeros(20 + i),
                              sampling_rate_hz=100.0)
        for i in range(n))
    return Dataset(recs, name="toy")


def toy_mechanism(rec: Recording, rng: np.random.Generator) -> Release[Recording]:
    out = rec.with_gaze(rec.x + rng.laplace(0, 1, rec.n_samples),
                        rec.y + rng.laplace(0, 1, rec.n_samples))
    return Release(out, Guarantee(mechanism="toy", kind=Kind.LOCAL_DP, unit=Unit.RECORDING,
                                  epsilon=1.0))


def serial(ds: Dataset, seed: int) -> list[np.ndarray]:
    rel = protect_recordings(ds, toy_mechanism, rng=make_rng(seed), units=lambda r: 1)
    return [r.x for r in rel.output]


def parallel(ds: Dataset, seed: int, workers: int = 3) -> list[np.ndarray]:
    """What a parallel runner does: spawn one child per recording, hand them out in any order."""
    children = spawn(make_rng(seed), len(ds))
    order = list(range(len(ds)))[::-1]  # finish order must not matter
    with ThreadPoolExecutor(workers) as pool:
        futures = {i: pool.submit(toy_mechanism, ds[i], children[i]) for i in order}
    return [futures[i].result().output.x for i in range(len(ds))]


def test_release_runs_draw_from_os_entropy():
    a, b = make_rng(None).integers(0, 2**62, 4), make_rng(None).integers(0, 2**62, 4)
    assert not np.array_equal(a, b)


def test_a_fixed_seed_reproduces_and_is_marked_as_a_research_run():
    assert serial(toy_dataset(), 5)[2].tolist() == serial(toy_dataset(), 5)[2].tolist()
    assert serial(toy_dataset(), 5)[2].tolist() != serial(toy_dataset(), 6)[2].tolist()
    g = Guarantee(mechanism="toy", kind=Kind.LOCAL_DP, unit=Unit.RECORDING, epsilon=1.0)
    research = g.with_seed(5)
    assert research.seed == 5
    assert [f.code for f in research.flags] == [FlagCode.FIXED_SEED]
    assert "research run" in research.flags[0].message
    assert research.formally_private  # informational, not a broken guarantee
    assert Guarantee.from_json(research.to_json()) == research
    assert g.with_seed(None) == g  # a release run carries no seed


def test_parallel_and_serial_runs_give_identical_output_for_the_same_seed():
    ds = toy_dataset(7)
    for s, p in zip(serial(ds, 11), parallel(ds, 11), strict=True):
        np.testing.assert_array_equal(s, p)


def test_child_streams_are_independent_of_each_other():
    # recording i's output depends only on (seed, i): removing the last recording leaves the
    # others unchanged, and sibling streams are not copies of one another.
    full, fewer = serial(toy_dataset(6), 3), serial(toy_dataset(5), 3)
    for a, b in zip(full[:5], fewer, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(full[0], full[1][:20])


def test_sibling_streams_are_uncorrelated():
    # 200 recordings of 400 samples: the noise of recording i against recording i + 1. Under
    # independence each correlation has standard error 1 / sqrt(400) = 0.05, so their mean over
    # 199 pairs has standard error 0.05 / sqrt(199) = 0.0035: |mean| < 4 SE = 0.014, and no single
    # pair beyond 5 SE = 0.25 (a copied or shifted stream gives r = 1)
    recs = tuple(Recording.from_arrays(recording=f"r{i}", participant=f"p{i}", x=np.zeros(400),
                                       y=np.zeros(400), sampling_rate_hz=100.0)
                 for i in range(200))
    noise = np.stack(serial(Dataset(recs, name="many"), 9))
    r = np.array([np.corrcoef(noise[i], noise[i + 1])[0, 1] for i in range(199)])
    assert abs(r.mean()) < 4 * 0.05 / np.sqrt(199)
    assert np.abs(r).max() < 0.25


def test_seed_for_sklearn_is_deterministic_given_the_generator():
    assert seed_for_sklearn(make_rng(1)) == seed_for_sklearn(make_rng(1))
    assert 0 <= seed_for_sklearn(make_rng(2)) < 2**31


@pytest.mark.parametrize("path", sorted(p for p in SRC.rglob("*.py")), ids=lambda p: str(
    p.relative_to(SRC)))
def test_no_module_uses_the_global_numpy_random_state(path):
    # np.random.<fn>(...) would bypass the Generator passed in; default_rng / Generator types
    # and SeedSequence are the only allowed attributes.
    allowed = {"default_rng", "Generator", "SeedSequence", "PCG64", "BitGenerator"}
    bad = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
                and node.value.attr == "random" and isinstance(node.value.value, ast.Name)
                and node.value.value.id in {"np", "numpy"} and node.attr not in allowed):
            bad.append(f"line {node.lineno}: np.random.{node.attr}")
    assert not bad, f"{path}: {bad}"


HAS_PROTECT = importlib.util.find_spec("gazeprivacy.mechanisms.protect") is not None


@pytest.mark.skipif(not HAS_PROTECT, reason="gazeprivacy.mechanisms.protect lands with sampledp")
def test_protect_marks_a_fixed_seed_and_leaves_release_runs_unseeded():
    from gazeprivacy.mechanisms.protect import protect

    names = [n for n, s in MECHANISMS.items() if s.level.takes_samples]
    assert names, "no sample-level mechanism registered"
    geo = Geometry(x_min_deg=-10, x_max_deg=10, y_min_deg=-10, y_max_deg=10)
    ds = Dataset(tuple(
        Recording.from_arrays(recording=f"r{i}", participant=f"p{i}", x=np.linspace(-5, 5, 60),
                              y=np.zeros(60), sampling_rate_hz=100.0, geometry=geo)
        for i in range(3)), name="toy")
    kw = {"kaleido": {"epsilon": 1.0, "radius_deg": 2.0, "window_samples": 10},
          "dpgazesynth": {"epsilon": 1.0, "grid_size": 5}}
    for name in (n for n in names if n in kw):
        a = protect(ds, mechanism=name, seed=3, **kw[name])
        b = protect(ds, mechanism=name, seed=3, **kw[name])
        assert a.guarantee.seed == 3
        assert FlagCode.FIXED_SEED in {f.code for f in a.guarantee.flags}
        for ra, rb in zip(a.output, b.output, strict=True):
            np.testing.assert_array_equal(ra.x, rb.x)
        rel1 = protect(ds, mechanism=name, **kw[name])
        rel2 = protect(ds, mechanism=name, **kw[name])
        assert rel1.guarantee.seed is None
        assert FlagCode.FIXED_SEED not in {f.code for f in rel1.guarantee.flags}
        assert not np.array_equal(rel1.output[0].x, rel2.output[0].x, equal_nan=True)
