# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The audit cases of the noise primitives (Laplace, planar Laplace, OUE, Gaussian) and of the
sample-, heatmap- and series-level mechanisms (Kaleido, the heatmap mechanisms, the feature
time-series mechanisms): per mode, the unit, the neighbouring pairs, the samplers and the claim
(:class:`~gazeprivacy.audit.cases.AuditCase`). :mod:`gazeprivacy.audit.adapters` registers them;
moved here unchanged from ``adapters.py`` (776 lines).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from gazeprivacy.audit.auditor import HistogramSearch, Sampler
from gazeprivacy.audit.cases import AuditCase, mechanism_module
from gazeprivacy.audit.neighbours import NeighbourPair, NeighbourStrategy
from gazeprivacy.exceptions import NotFormallyPrivateWarning
from gazeprivacy.mechanisms import MECHANISMS

# --------------------------------------------------------------------------------------------
# noise primitives

EPS = 1.0  # the budget the primitives are audited at


def _laplace_case(mode: str, *, scale_factor: float = 1.0, name: str = "laplace") -> AuditCase:
    from gazeprivacy.mechanisms.noise.laplace import laplace_mechanism

    # scale_factor < 1 is the broken variant: the real kernel run at epsilon / scale_factor
    run_eps = EPS / scale_factor

    def samplers(pair: NeighbourPair) -> tuple[Sampler, Sampler]:
        def make(v: float) -> Sampler:
            return lambda n, rng: laplace_mechanism(np.full(n, v), sensitivity=1.0,
                                                    epsilon=run_eps, rng=rng)
        return make(pair.a), make(pair.b)

    def rand(rng: np.random.Generator) -> NeighbourPair:
        a = float(rng.uniform(-5, 5))
        b = a + float(rng.uniform(-1, 1))
        return NeighbourPair(a, b, f"{a:.3g} vs {b:.3g}")

    return AuditCase(
        mechanism=name, mode=mode, unit="query", claimed_epsilon=EPS, claimed_delta=0.0,
        neighbouring="query answers differing by at most the L1 sensitivity 1",
        strategy=NeighbourStrategy((NeighbourPair(0.0, 1.0, "0 vs 1 (full sensitivity)"),),
                                   rand, 2),
        samplers=samplers,
        notes="" if scale_factor == 1 else f"noise scale x {scale_factor:g}: true epsilon "
                                           f"{EPS / scale_factor:g}")


def _planar_case(mode: str) -> AuditCase:
    from gazeprivacy.mechanisms.noise.planar_laplace import planar_laplace

    r = 2.0

    def samplers(pair: NeighbourPair) -> tuple[Sampler, Sampler]:
        (ax, ay), (bx, by) = pair.a, pair.b

        def make(px: float, py: float) -> Sampler:
            def s(n: int, rng: np.random.Generator) -> np.ndarray:
                ox, oy = planar_laplace(np.full(n, px), np.full(n, py),
                                        epsilon_per_unit=EPS / r, rng=rng)
                # distance advantage: the scale-free statistic of a radial mechanism
                return np.column_stack([np.hypot(ox - bx, oy - by) - np.hypot(ox - ax, oy - ay),
                                        ox, oy])
            return s
        return make(ax, ay), make(bx, by)

    def rand(rng: np.random.Generator) -> NeighbourPair:
        a = rng.uniform(-10, 10, 2)
        ang = rng.uniform(0, 2 * np.pi)
        b = a + rng.uniform(0, r) * np.array([np.cos(ang), np.sin(ang)])
        return NeighbourPair(tuple(a), tuple(b), f"{np.round(a, 2)} vs {np.round(b, 2)}")

    return AuditCase(
        mechanism="planar-laplace", mode=mode, unit="point", claimed_epsilon=EPS,
        claimed_delta=0.0,
        neighbouring=f"two points within r = {r:g} deg (epsilon_per_unit = epsilon / r)",
        strategy=NeighbourStrategy((NeighbourPair((0.0, 0.0), (r, 0.0), "points r apart"),),
                                   rand, 2),
        samplers=samplers)


def _oue_bits(values: np.ndarray, d: int, eps: float, rng: np.random.Generator, *,
              broken: bool) -> np.ndarray:
    if not broken:
        from gazeprivacy.mechanisms.noise.oue import oue_encode

        rep = oue_encode(values, domain_size=d, epsilon=eps, rng=rng)
        bits = np.zeros((rep.n, d))
        rows = np.repeat(np.arange(rep.n), np.diff(rep.indptr))
        bits[rows, rep.indices] = 1.0
        return bits
    from gazeprivacy.mechanisms.noise.oue import oue_q

    # The flaw of a public LDP trajectory synthesiser: every bit is first set to 1 with
    # probability q, then the true bit is *also* given its own chance 1/2 -- so the true bit is 1
    # with probability p + (1 - p) q, not p = 1/2.
    q = oue_q(epsilon=eps)
    bits = (rng.random((values.size, d)) < q).astype(float)
    rows = np.arange(values.size)
    bits[rows, values] = np.maximum(bits[rows, values], rng.random(values.size) < 0.5)
    return bits


def _oue_case(mode: str, *, broken: bool = False) -> AuditCase:
    d = 8
    eps = 0.25  # small budgets are where the flaw matters most: true epsilon -> ln 3

    def samplers(pair: NeighbourPair) -> tuple[Sampler, Sampler]:
        def make(v: int) -> Sampler:
            def s(n: int, rng: np.random.Generator) -> np.ndarray:
                bits = _oue_bits(np.full(n, v, dtype=np.int64), d, eps, rng, broken=broken)
                return bits[:, [pair.a, pair.b]]  # the two bits that can differ
            return s
        return make(pair.a), make(pair.b)

    return AuditCase(
        mechanism="broken-oue" if broken else "oue", mode=mode, unit="report",
        claimed_epsilon=eps, claimed_delta=0.0,
        neighbouring=f"two values of the domain (d = {d})",
        strategy=NeighbourStrategy((NeighbourPair(0, 1, "values 0 vs 1"),
                                    NeighbourPair(2, 7, "values 2 vs 7"))),
        samplers=samplers, event_search=HistogramSearch(),
        notes=("true bit kept with p + (1 - p) q: true epsilon "
               f"{math.log(math.exp(eps) + 2):.3f}") if broken else "")


def _gaussian_case(mode: str, *, calibration: str) -> AuditCase:
    from gazeprivacy.mechanisms.noise.gaussian import gaussian_mechanism

    eps, delta = (0.5, 1e-3) if calibration == "classic" else (1.0, 1e-3)

    def samplers(pair: NeighbourPair) -> tuple[Sampler, Sampler]:
        def make(v: float) -> Sampler:
            return lambda n, rng: gaussian_mechanism(
                np.full(n, v), sensitivity_l2=1.0, epsilon=eps, delta=delta, rng=rng,
                calibration=calibration)
        return make(pair.a), make(pair.b)

    return AuditCase(
        mechanism="gaussian" if calibration == "classic" else "analytic-gaussian", mode=mode,
        unit="query", claimed_epsilon=eps, claimed_delta=delta,
        neighbouring="query answers differing by at most the L2 sensitivity 1",
        strategy=NeighbourStrategy((NeighbourPair(0.0, 1.0, "0 vs 1 (full sensitivity)"),)),
        samplers=samplers)


# --------------------------------------------------------------------------------------------
# sample-level mechanisms


def _screen(width: float, height: float, x0: float = 0.0, y0: float = 0.0) -> Any:
    from gazeprivacy.data.geometry import Geometry

    return Geometry(x_min_deg=x0, x_max_deg=x0 + width, y_min_deg=y0, y_max_deg=y0 + height)


def _kaleido_case(mode: str) -> AuditCase:
    """Per w-window: the released stream of two neighbouring two-sample streams.

    The construction isolates the test step. The screen (a public parameter) is the box
    ``[-1, 1] x [-1, 1]`` deg and both samples lie far off-screen (off-screen points are legal
    input; Kaleido clamps what it publishes): the first sample up-left, so its publication is
    clamped to the corner ``(-1, 1)``; the second down-right, so a new publication is clamped to
    the opposite corner. Whether the second sample was re-published is therefore visible in the
    output, and the test distance does not depend on the publication noise. ``w = 1`` and
    ``t_skip = 1`` put the whole testing budget ``epsilon / h`` on that one test; the threshold
    (public) sits at the distance of stream ``a``, and stream ``b`` moves the second sample by
    ``r`` straight away from the corner.
    """
    mod = mechanism_module("kaleido")
    r, w, eps, far = 10.0, 1, 2.0, 150.0
    geo = _screen(2.0, 2.0, -1.0, -1.0)
    corner = np.array([-1.0, 1.0])
    g0 = np.array([-far, far])
    g1 = np.array([far, -far])
    away = (g1 - corner) / np.hypot(*(g1 - corner))
    thresh = float(np.hypot(*(g1 - corner)))
    params = mod.KaleidoParams(epsilon=eps, radius_deg=r, window_samples=w, l_thresh_deg=thresh,
                               t_skip_samples=1, h=2.0, mode=mode, geometry=geo)
    rate = 100.0
    record = mod.guarantee(params, sampling_rate_hz=rate)

    def samplers(pair: NeighbourPair) -> tuple[Sampler, Sampler]:
        def make(stream: tuple[np.ndarray, np.ndarray]) -> Sampler:
            x, y = stream

            def s(n: int, rng: np.random.Generator) -> np.ndarray:
                feats = np.empty((n, 3))
                for i, child in enumerate(rng.spawn(n)):
                    ox, oy, _ = mod.kaleido_arrays(x, y, params, rng=child,
                                                   sampling_rate_hz=rate, geometry=geo)
                    republished = float(ox[1] == ox[0] and oy[1] == oy[0])
                    feats[i] = [republished, ox[0], oy[0]]
                return feats
            return s
        return make(pair.a), make(pair.b)

    stream_a = (np.array([g0[0], g1[0]]), np.array([g0[1], g1[1]]))

    def moved(vec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (np.array([g0[0], g1[0] + vec[0]]), np.array([g0[1], g1[1] + vec[1]]))

    def rand(rng: np.random.Generator) -> NeighbourPair:
        ang = rng.uniform(0, 2 * np.pi)
        d = rng.uniform(0.5, 1.0) * r
        return NeighbourPair(stream_a, moved(d * np.array([np.cos(ang), np.sin(ang)])),
                             f"second sample moved by {d:.2g} deg at {np.degrees(ang):.0f} deg")

    return AuditCase(
        mechanism="kaleido", mode=mode, unit="w-window", claimed_epsilon=record.epsilon,
        claimed_delta=0.0, neighbouring=record.neighbouring, guarantee=record,
        strategy=NeighbourStrategy(
            (NeighbourPair(stream_a, moved(r * away), "second sample moved by r away from the "
                                                      "last published point"),), rand, 1),
        samplers=samplers,
        notes=f"epsilon = {eps:g}, w = {w}, t_skip = 1, r = {r:g} deg, h = 2, l_thresh = "
              f"{thresh:.4g} deg, screen [-1, 1] x [-1, 1] deg, samples {far:g} deg off-screen")


def _heatmap_case(mode: str, *, name: str) -> AuditCase:
    """Per heatmap (one observer's map replaced): the released noisy aggregate.

    Small public shape (``n = 8`` observers, a ``4 x 4`` grid, cap ``m = 2``) so that draws are
    cheap; the guarantee does not depend on the shape beyond the sensitivity. Features: the
    projection of the output on ``b - a`` (the Gaussian log-likelihood ratio) and the L1
    distance advantage (the Laplace one), both computed from the two public aggregates.
    Mechanisms of kind ``none`` (noise-free, rs1, rs2) are audited against epsilon 0: any
    positive lower bound exhibits a distinguishing event, as the paper's Theorems 3.2-3.3 say.
    """
    mod = mechanism_module(name)
    spec = MECHANISMS[name]
    from gazeprivacy.features.gaze_maps import GazeMaps, MapGrid

    n_obs, side, cap = 8, 4, 2
    grid = MapGrid(width_px=side, height_px=side)
    eps, delta = 1.0, 1e-3
    ptype = spec.params_type
    kw: dict[str, Any] = {"cap": cap}
    fields = set(getattr(ptype, "__dataclass_fields__", {}))
    if "epsilon" in fields:
        kw["epsilon"] = eps
    if "delta" in fields:
        kw["delta"] = delta
    if "fraction" in fields:
        kw["fraction"] = 0.5
    if "mode" in fields:
        kw["mode"] = mode
    params = ptype(**kw)
    record = mod.guarantee(params, n_observers=n_obs, n_cells=grid.n_cells)
    claimed_eps = record.epsilon if record.epsilon is not None else 0.0
    claimed_delta = record.delta or 0.0
    base = np.random.default_rng(0).integers(0, cap + 1, (n_obs, side, side))

    def maps_with(first: np.ndarray) -> Any:
        counts = base.copy()
        counts[0] = first
        return GazeMaps(counts=counts, observers=tuple(map(str, range(n_obs))), stimulus="s",
                        grid=grid)

    def samplers(pair: NeighbourPair) -> tuple[Sampler, Sampler]:
        ma, mb = maps_with(pair.a), maps_with(pair.b)
        agg_a, agg_b = ma.aggregate(cap).ravel(), mb.aggregate(cap).ravel()
        direction = agg_b - agg_a

        def make(maps: Any) -> Sampler:
            def s(n: int, rng: np.random.Generator) -> np.ndarray:
                out = np.stack([spec.protect(maps, params, rng=rng).output.values.ravel()
                                for _ in range(n)])
                return np.column_stack([
                    (out - agg_a) @ direction,
                    np.abs(out - agg_a).sum(axis=1) - np.abs(out - agg_b).sum(axis=1)])
            return s
        return make(ma), make(mb)

    zeros, full = np.zeros((side, side), dtype=np.int64), np.full((side, side), cap)

    def rand(rng: np.random.Generator) -> NeighbourPair:
        return NeighbourPair(rng.integers(0, cap + 1, (side, side)),
                             rng.integers(0, cap + 1, (side, side)), "random maps for observer 0")

    return AuditCase(
        mechanism=name, mode=mode, unit="heatmap (one observer)", claimed_epsilon=claimed_eps,
        claimed_delta=claimed_delta, neighbouring=record.neighbouring, guarantee=record,
        strategy=NeighbourStrategy((NeighbourPair(zeros, full, "observer 0: empty map vs map "
                                                  "at the cap everywhere"),), rand, 1),
        samplers=samplers,
        notes=f"n = {n_obs} observers, r = {grid.n_cells} cells, cap m = {cap}" + (
            "; kind none: audited against epsilon 0" if record.epsilon is None else ""))


def _series_dataset(values: list[np.ndarray], n_win: int) -> list[Any]:
    from gazeprivacy.features.window_features import FeatureSeries

    return [FeatureSeries(recording=f"r{i}", participant=f"p{i}",
                          t_start=np.arange(n_win, dtype=float), values=v[:, None],
                          feature_names=("f",)) for i, v in enumerate(values)]


def _series_case(mode: str, *, name: str) -> AuditCase:
    """Per block (one feature series, or one chunk of it): the released noisy series.

    Sound mode: one recording, one feature with declared range ``[0, 1]``, 8 windows (chunks
    of 4 for CFPA / DCFPA); the extreme pair is the unit (the series, or its first chunk) at the
    bottom of the range against the unit at its top, everything else equal. Features: the mean
    of the released unit (the DC direction, which every transform keeps) and its first value.

    Paper mode reads the sensitivity from the data, and its neighbours are datasets in which one
    participant's series is replaced by another's. Seven participants' constant series, ``0``,
    five times ``1/2`` and ``1``, against the same dataset with the first replaced by ``1/2``: the
    largest distance between participants halves, so does the noise of *every* recording, which
    the released series of the six untouched participants show. Feature: the log of their total
    absolute deviation from their (public, in an audit) inputs. Steil's paper mode keeps the
    sensitivity fixed (both datasets span the same range) and exposes its own flaw instead:
    every element moves by the same magnitude, so the differences between released elements
    equal the true differences whenever two random signs agree.
    """
    spec = MECHANISMS[name]
    from gazeprivacy.features.ranges import FeatureRange

    eps, n_win = 1.0, 8
    names = {f for f in getattr(spec.params_type, "__dataclass_fields__", {})}
    kw: dict[str, Any] = {"epsilon": eps, "mode": mode}
    if mode == "sound":
        kw["ranges"] = {"f": FeatureRange(0.0, 1.0, "natural", "audit")}
    if "chunk_size" in names and name in ("series-cfpa", "series-dcfpa"):
        kw["chunk_size"] = 4
    if "subsample_w" in names:
        kw["subsample_w"] = 1  # no subsampling: the audited unit is the whole series
    params = spec.params_type(**kw)
    steil = name == "series-steil-exponential"
    chunked = "chunk_size" in kw
    block = kw["chunk_size"] if chunked else n_win  # neighbours differ in one unit only

    def release(data: list[Any], rng: np.random.Generator) -> list[np.ndarray]:
        return [s.values[:, 0] for s in spec.protect(data, params, rng=rng).output]

    if mode == "sound" or steil:
        if steil and mode == "paper":
            a_vals = np.tile([0.0, 1.0], n_win // 2)
            b_vals = 1.0 - a_vals
            desc = "alternating 0/1 vs 1/0 (same range, so the same data-driven sensitivity)"
        else:
            a_vals, b_vals = np.zeros(n_win), np.zeros(n_win)
            b_vals[:block] = 1.0
            desc = ("first chunk at the bottom vs the top of the declared range" if chunked
                    else "series at the bottom vs the top of the declared range")
        data_a, data_b = _series_dataset([a_vals], n_win), _series_dataset([b_vals], n_win)

        def feats(out: list[np.ndarray]) -> np.ndarray:
            r = out[0][:block]  # the unit: the first chunk (or the whole series)
            if steil and mode == "paper":
                diffs = np.diff(r)
                return np.array([np.sum(np.isclose(diffs, np.diff(a_vals), atol=1e-9)),
                                 np.sum(np.isclose(diffs, np.diff(b_vals), atol=1e-9))])
            return np.array([r.mean(), r[0]])
    else:
        a_vals = [np.zeros(n_win), *[np.full(n_win, 0.5)] * 5, np.ones(n_win)]
        b_vals = [np.full(n_win, 0.5), *a_vals[1:]]
        data_a, data_b = _series_dataset(a_vals, n_win), _series_dataset(b_vals, n_win)
        desc = "participant 0's series replaced by participant 1's (max distance halves)"

        def feats(out: list[np.ndarray]) -> np.ndarray:
            # the untouched participants' noise: its total size is the Laplace scale statistic
            dev = sum(np.abs(r - v).sum() for r, v in zip(out[1:], a_vals[1:], strict=True))
            return np.array([np.log(dev + 1e-300)])

    def samplers(pair: NeighbourPair) -> tuple[Sampler, Sampler]:
        def make(data: list[Any]) -> Sampler:
            def s(n: int, rng: np.random.Generator) -> np.ndarray:
                return np.stack([feats(release(data, rng)) for _ in range(n)])
            return s
        return make(pair.a), make(pair.b)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotFormallyPrivateWarning)
        record = spec.protect(data_a, params, rng=np.random.default_rng(0)).guarantee
    return AuditCase(
        mechanism=name, mode=mode, unit=record.unit.value, claimed_epsilon=record.epsilon,
        claimed_delta=0.0, neighbouring=record.neighbouring, guarantee=record,
        strategy=NeighbourStrategy((NeighbourPair(data_a, data_b, desc),)),
        samplers=samplers,
        event_search=HistogramSearch() if steil and mode == "paper" else None,
        notes=f"one feature, {n_win} windows" + (", chunks of 4" if "chunk_size" in kw else ""))
