# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Audit adapters: how the auditor meets each mechanism.

An adapter says, for one mechanism and one mode, what the privacy unit is, which neighbouring
pairs to try (hand-picked extremes plus random pairs, under *that mechanism's own* neighbouring
definition), how to draw many releases of one unit at once, which features of a release the event
search looks at, and which epsilon / delta to compare with -- always read from the mechanism's own
``guarantee(...)`` record (for the noise primitives, which have no record, the budget they are
called with). Registered mechanisms are reached only through
:data:`gazeprivacy.mechanisms.MECHANISMS` (the adapter looks the module up from the registry
entry); the noise primitives under ``mechanisms/noise`` are imported directly.

``ADAPTERS`` also lists ``<name>-release`` for every registered sample- or event-level mechanism
with an ``example`` and no hand-written one (:func:`derived_adapters`, looked up over
``MECHANISMS`` when asked, so a mechanism registered later is covered without an edit here).

Deliberately broken variants (``broken-*``) show that the auditor has teeth: each is the real
mechanism with one documented flaw, audited against the real mechanism's claim.

:func:`audit_mechanism` runs the worst-pair search and returns a :class:`MechanismAudit` whose
:meth:`~MechanismAudit.row` is one line of the audit table (``gazeprivacy audit`` and
``scripts/audit_table.py`` print these).
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from gazeprivacy._registry import Registry
from gazeprivacy._validation import check_in, check_int
from gazeprivacy.audit import dpgazesynth as _dpgs
from gazeprivacy.audit.auditor import (
    AuditResult,
    AutoSearch,
    HistogramSearch,
    Sampler,
    audit,
)
from gazeprivacy.audit.cases import AuditCase, mechanism_module
from gazeprivacy.audit.neighbours import (
    NeighbourPair,
    NeighbourStrategy,
    PairSearchResult,
    search_worst_pair,
)
from gazeprivacy.exceptions import InvalidParameterError, NotFormallyPrivateWarning
from gazeprivacy.mechanisms import MECHANISMS

if TYPE_CHECKING:
    from gazeprivacy.audit.release import ReleaseAudit

__all__ = [
    "ADAPTERS",
    "MAX_TRIALS_FACTOR",
    "AuditAdapter",
    "AuditCase",
    "MechanismAudit",
    "audit_mechanism",
    "available_adapters",
    "derived_adapters",
    "markdown_table",
    "mechanism_module",
]


#: Most trials an audit takes, as a multiple of its adapter's default: beyond that a run takes
#: hours to days (or, for a whole-release audit, memory for every release's features).
MAX_TRIALS_FACTOR = 50


@dataclass(frozen=True)
class AuditAdapter:
    """A named way to audit a mechanism; ``build(mode)`` gives the :class:`AuditCase`.

    ``requires`` names the ``MECHANISMS`` entry the adapter needs (None for noise primitives,
    which name their module in ``requires_module``);
    ``expect_violation`` marks the deliberately broken variants and the paper modes known to be
    broken, so tests and the table can say what the audit should find.
    """

    name: str
    build: Callable[[str], AuditCase]
    modes: tuple[str, ...] = ("sound",)
    requires: str | None = None
    description: str = ""
    expect_violation: tuple[str, ...] = ()
    requires_module: str | None = None
    known_defect: str = ""  # a defect of the current code that the audit exposes (fix pending)
    #: "unit" (one privacy unit, :func:`audit_mechanism` runs the pair search) or "release"
    #: (the whole-release audit of :mod:`gazeprivacy.audit.release`; ``build`` is unused)
    kind: str = "unit"
    #: draws per input (unit) or releases per dataset (release) when the caller gives none
    default_trials: int = 20_000

    @property
    def max_trials(self) -> int:
        """The most trials :func:`audit_mechanism` accepts (``MAX_TRIALS_FACTOR`` x default)."""
        return MAX_TRIALS_FACTOR * self.default_trials

    def expected_to_fail(self, mode: str) -> bool:
        """True for the deliberately broken variants, the paper modes known to be broken and
        the non-private baselines: a FAIL there is the audit's point, not a defect."""
        return mode in self.expect_violation

    @property
    def available(self) -> bool:
        if self.requires_module is not None:
            try:
                if importlib.util.find_spec(self.requires_module) is None:
                    return False
            except ModuleNotFoundError:
                return False
        # set(): Registry.__contains__ raises instead of returning False for unknown names
        return self.requires is None or self.requires in MECHANISMS


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


# --------------------------------------------------------------------------------------------
# registry


_NOISE = "gazeprivacy.mechanisms.noise."
#: releases per dataset of a whole-release audit when none is given (about 2-3 minutes each
#: for DPGazeSynth, Kaleido and k-same-synth on a loaded 2-core machine)
RELEASE_TRIALS = 10_000
#: per-component DPGazeSynth audits that fail on the current code, with the fix they wait for
_DPGS_KNOWN_BROKEN: dict[str, str] = {}


def _release_build(mode: str) -> AuditCase:
    raise InvalidParameterError("a whole-release adapter has no single-pair case: run it with "
                                "audit_mechanism (or gazeprivacy.audit.release.audit_release)")


def _adapters() -> dict[str, AuditAdapter]:
    a = [
        AuditAdapter("laplace", _laplace_case, description="Laplace mechanism (noise primitive)",
                     requires_module=_NOISE + "laplace"),
        AuditAdapter("planar-laplace", _planar_case,
                     description="planar Laplace, geo-indistinguishability (noise primitive)",
                     requires_module=_NOISE + "planar_laplace"),
        AuditAdapter("oue", _oue_case, description="Optimized Unary Encoding (noise primitive)",
                     requires_module=_NOISE + "oue"),
        AuditAdapter("gaussian", lambda m: _gaussian_case(m, calibration="classic"),
                     description="Gaussian mechanism, classic calibration",
                     requires_module=_NOISE + "gaussian"),
        AuditAdapter("analytic-gaussian", lambda m: _gaussian_case(m, calibration="analytic"),
                     description="Gaussian mechanism, analytic calibration (Balle & Wang)",
                     requires_module=_NOISE + "gaussian"),
        AuditAdapter("broken-laplace-half-scale",
                     lambda m: _laplace_case(m, scale_factor=0.5,
                                             name="broken-laplace-half-scale"),
                     description="Laplace noise at half the required scale",
                     expect_violation=("sound",), requires_module=_NOISE + "laplace"),
        AuditAdapter("broken-oue", lambda m: _oue_case(m, broken=True),
                     description="OUE keeping the true bit with p + (1 - p) q",
                     expect_violation=("sound",), requires_module=_NOISE + "oue"),
    ]
    a += [
        AuditAdapter("dpgazesynth", _dpgs.window_case, modes=("sound", "paper"),
                     requires="dpgazesynth", expect_violation=("paper",),
                     description="DPGazeSynth client release per window"),
        AuditAdapter("kaleido", _kaleido_case, modes=("sound", "paper"), requires="kaleido",
                     expect_violation=("paper",),
                     description="Kaleido per w-window"),
    ]
    for comp in _dpgs.COMPONENTS.values():
        a.append(AuditAdapter(
            f"dpgazesynth-{comp.name}", lambda m, c=comp.name: _dpgs.component_case(c, m),
            requires="dpgazesynth", description=f"DPGazeSynth client, {comp.description}",
            known_defect=_DPGS_KNOWN_BROKEN.get(comp.name, "")))
    for m in ("dpgazesynth", "kaleido", "k-same-synth", "event-synth-pd"):
        # the whole release runs the mechanism's default mode (sound); event-synth-PD trains
        # a (one-epoch) C-VAE for every release, hence its smaller default
        a.append(_release_adapter(m, f"{m}: every column of protect() on neighbouring datasets",
                                  default_trials=500 if m == "event-synth-pd" else
                                  RELEASE_TRIALS))
    a.append(_PARTICIPANT_RELEASE)
    a += _participant_synth_adapters()
    for hm, modes, bad in (("heatmap-laplace", ("sound",), ()),
                           ("heatmap-gaussian", ("sound", "paper"), ()),
                           ("heatmap-analytic-gaussian", ("sound",), ()),
                           ("heatmap-noise-free", ("baseline",), ("baseline",)),
                           ("heatmap-rs1", ("baseline",), ("baseline",)),
                           ("heatmap-rs2", ("baseline",), ("baseline",))):
        a.append(AuditAdapter(hm, lambda m, hm=hm: _heatmap_case(m, name=hm), modes=modes,
                              requires=hm, expect_violation=bad,
                              description=f"{hm}: noisy aggregate gaze map"))
    for sr in ("series-lpa", "series-fpa", "series-dct", "series-cfpa", "series-dcfpa",
               "series-steil-exponential"):
        a.append(AuditAdapter(sr, lambda m, sr=sr: _series_case(m, name=sr),
                              modes=("sound", "paper"), requires=sr, expect_violation=("paper",),
                              description=f"{sr}: feature-series release per block"))
    return {x.name: x for x in a}


def _participant_synth_adapters() -> list[AuditAdapter]:
    """participant-synth: the curator's measurements (all, and each against its own share)
    and a broken variant with the noise at an eighth (gazeprivacy.audit.participant_synth)."""
    from gazeprivacy.audit import participant_synth as ps

    out = [AuditAdapter("participant-synth", lambda m: ps.measurement_case(None, m),
                        requires="participant-synth", default_trials=20_000,
                        description="participant-synth: every curator measurement on one "
                                    "participant replaced (the rest is post-processing)"),
           AuditAdapter("broken-participant-synth-eighth-noise",
                        lambda m: ps.measurement_case(None, m, noise_factor=0.125),
                        requires="participant-synth", expect_violation=("sound",),
                        description="participant-synth with the noise at an eighth of its sd")]
    out += [AuditAdapter(f"participant-synth-{c}", lambda m, c=c: ps.measurement_case(c, m),
                         requires="participant-synth", default_trials=20_000,
                         description=f"participant-synth: the {c} measurement, against its "
                                     "share of rho")
            for c in (*ps.MEASURED, *ps.MEASURED_LABELS)]
    return out


#: DPGazeSynth ``unit="participant"``: a parameter variant with a hand-written release scenario
_PARTICIPANT_RELEASE = AuditAdapter(
    "dpgazesynth-participant-release", _release_build, requires="dpgazesynth", kind="release",
    modes=("sound",), default_trials=RELEASE_TRIALS,
    description="dpgazesynth unit='participant': every column of protect() with one "
                "participant's recording changed")


def _release_adapter(mechanism: str, description: str, **kw: Any) -> AuditAdapter:
    return AuditAdapter(f"{mechanism}-release", _release_build, requires=mechanism,
                        kind="release", modes=("sound",), description=description, **kw)


def derived_adapters(static: Mapping[str, AuditAdapter]) -> dict[str, AuditAdapter]:
    """``<name>-release`` for every registered mechanism that gets the generic whole-release
    scenario (:func:`gazeprivacy.audit.release.derives_scenario`: sample or event level, an
    ``example``, no hand-written scenario) and has no adapter of that name in ``static``."""
    from gazeprivacy.audit.release import derives_scenario

    return {f"{n}-release": _release_adapter(
        n, f"{n}: every column of protect() on the generic neighbouring datasets derived from "
           "its contract (example dataset, one unit of its record changed)",
        default_trials=RELEASE_TRIALS)
        for n in MECHANISMS if f"{n}-release" not in static and derives_scenario(n)}


class _Adapters(Registry[AuditAdapter]):
    """The hand-written adapters plus those derived from the contract, looked up when asked
    (so a mechanism registered later -- a toy in a test -- gets its ``<name>-release``)."""

    def _all(self) -> dict[str, AuditAdapter]:
        return {**self._entries, **derived_adapters(self._entries)}

    def __getitem__(self, name: str) -> AuditAdapter:
        entries = self._all()
        if name in entries:
            return entries[name]
        return Registry(self._what, entries)[name]  # the named error listing valid names

    def __contains__(self, name: object) -> bool:
        return name in self._all()

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


ADAPTERS: Registry[AuditAdapter] = _Adapters("audit adapter", _adapters())


def available_adapters() -> list[str]:
    """Names of adapters whose mechanism is registered in ``MECHANISMS`` (or a primitive)."""
    return [name for name, ad in ADAPTERS.items() if ad.available]


# --------------------------------------------------------------------------------------------
# running an audit


@dataclass(frozen=True)
class MechanismAudit:
    """One mechanism, one mode: the case, the pair search and its confirmation audit."""

    adapter: AuditAdapter
    case: AuditCase
    search: PairSearchResult

    @property
    def result(self) -> AuditResult:
        return self.search.confirmation

    @property
    def passed(self) -> bool:
        return self.result.passed

    def row(self) -> dict[str, Any]:
        r = self.result
        return {
            "mechanism": self.adapter.name, "mode": self.case.mode, "unit": self.case.unit,
            "claimed_epsilon": r.claimed_epsilon, "claimed_delta": r.claimed_delta,
            "epsilon_lower_bound": r.epsilon_lower_bound,
            "epsilon_estimate": r.epsilon_estimate, "p_value": r.p_value,
            "verdict": "pass" if r.passed else "FAIL", "n_trials": r.n_trials,
            "pair": self.search.worst.description, "event": r.event,
            "expected": "violation" if self.case.mode in self.adapter.expect_violation
            else ("pass after the fix" if self.adapter.known_defect else "pass"),
            "claim": (f"{r.claimed_epsilon:.4g}" if self.case.guarantee is None
                      or self.case.guarantee.epsilon is not None else "none (kind none: "
                      "audited against 0)"),
        }


def audit_mechanism(name: str, *, mode: str = "sound", n_trials: int,
                    rng: np.random.Generator, confidence: float = 0.99,
                    exploration_trials: int | None = None,
                    explore: bool = True) -> MechanismAudit | ReleaseAudit:
    """Audit adapter ``name`` in ``mode``: explore its pairs, confirm the worst on fresh draws.

    Parameters
    ----------
    name : str
        An entry of :data:`ADAPTERS`.
    mode : {"sound", "paper"}
        Must be one of the adapter's modes.
    n_trials : int
        Draws per input of the confirmation audit (>= 20).
    rng : numpy.random.Generator
    confidence : float
        Confidence of the epsilon lower bound.
    exploration_trials : int, optional
        Draws per input for each explored pair (default ``max(200, n_trials // 4)``).
    explore : bool
        False audits only the first hand-picked extreme pair (fast; for tests).

    A ``*-release`` adapter returns the :class:`~gazeprivacy.audit.release.ReleaseAudit` of the
    whole release instead (``mode`` and ``explore`` do not apply).

    Raises
    ------
    InvalidParameterError
        Unknown adapter, a mode the adapter does not have, or a mechanism that is not
        registered.
    """
    adapter = ADAPTERS[name]
    if not isinstance(n_trials, bool) and isinstance(n_trials, int) and \
            n_trials > adapter.max_trials:
        raise InvalidParameterError(
            f"n_trials must be at most {adapter.max_trials:,} for {name!r} "
            f"({MAX_TRIALS_FACTOR} x its default of {adapter.default_trials:,}; a larger "
            f"audit runs for hours), got {n_trials:,}")
    if adapter.kind == "release":  # whole release: its mode is the mechanism's default
        from gazeprivacy.audit.release import audit_release

        return audit_release(name.removesuffix("-release"), n_trials=n_trials, rng=rng,
                             confidence=confidence)
    check_in(mode=mode, options=adapter.modes)
    check_int(n_trials=n_trials, minimum=20)
    if not adapter.available:
        need = adapter.requires or adapter.requires_module
        raise InvalidParameterError(
            f"audit adapter {name!r} needs {need!r}, which is not installed in this build; "
            f"available adapters: {', '.join(available_adapters()) or 'none'}")
    with warnings.catch_warnings():
        # paper modes warn on every call; the audit row reports what they break instead
        warnings.simplefilter("ignore", NotFormallyPrivateWarning)
        case = adapter.build(mode)

        def run(pair: NeighbourPair, n: int, r: np.random.Generator) -> AuditResult:
            sa, sb = case.samplers(pair)
            return audit(sa, sb, n_trials=n, claimed_epsilon=case.claimed_epsilon,
                         claimed_delta=case.claimed_delta,
                         event_search=case.event_search or AutoSearch(), confidence=confidence,
                         rng=r, label=f"{name} [{mode}] {pair.description}")

        strategy = case.strategy if explore else NeighbourStrategy(case.strategy.extremes[:1])
        search = search_worst_pair(strategy, run,
                                   exploration_trials=exploration_trials or max(200,
                                                                                n_trials // 4),
                                   confirmation_trials=n_trials, rng=rng)
    return MechanismAudit(adapter, case, search)


def markdown_table(audits: list[MechanismAudit | ReleaseAudit | dict[str, Any]]) -> str:
    """The audit table in Markdown: claimed epsilon (delta), audited lower bound, verdict."""
    head = ("| mechanism | mode | unit | claimed epsilon | delta | audited epsilon lower bound "
            "| point estimate | verdict | p-value | expected | worst pair |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|\n")
    lines = []
    for a in audits:
        row = a if isinstance(a, dict) else a.row()
        p = row["p_value"]
        lines.append(
            f"| {row['mechanism']} | {row['mode']} | {row['unit']} | "
            f"{row.get('claim', format(row['claimed_epsilon'], '.4g'))} | "
            f"{row['claimed_delta']:.3g} | "
            f"{row['epsilon_lower_bound']:.3f} | {row['epsilon_estimate']:.3f} | "
            f"**{row['verdict']}** | {'< 1e-300' if p == 0 else format(p, '.2g')} | "
            f"{row['expected']} | {row['pair']} |")
    return head + "\n".join(lines) + "\n"
