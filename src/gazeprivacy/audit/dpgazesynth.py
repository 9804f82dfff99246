# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth's client, audited component by component on the mechanism's own path.

DPGazeSynth splits each window's budget ``epsilon`` into three randomisers (SPEC section 2):
the start point (planar Laplace, ``0.6 epsilon`` by default), the padded run-length series
(Laplace, ``0.2 epsilon``) and the transitions (OUE, ``0.2 epsilon`` over ``W - 1`` reports).
Each randomiser is audited against *its own* share with a pair of windows that differ in that
component only; a combined pair that changes all three at once is audited against the whole
``epsilon``; missing-sample pairs and a window-boundary pair cover what the per-window proof
assumes about NaN rows and about windows being independent.

Everything runs through :func:`client_view`, the **one** call site into the mechanism: it runs
the module's public per-share client functions on ``n`` copies of a pattern of windows and its
own OUE perturbation (``perturb_reports``) per copy. It also reads the Laplace output on the
run-length series *before* the client's rounding (``noisy_run_lengths``, on the same draw as the
released lengths): rounding is post-processing, which can only hide a leak, and it hides almost
all of it (a run-length noise cut 4x is invisible in the rounded lengths, lower bound 0 on
40 000 draws), so the run-length component is audited where its budget is spent.

Features are likelihood-ratio statistics of the known pair (the distance advantage of the
released start cell, ``sum |v - b| - |v - a|`` for the Laplace series, the OUE column sums
projected on the difference of the two windows' report counts) plus, for the combined pairs,
their sum weighted by each component's claimed budget.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np

from gazeprivacy.audit.auditor import Sampler, ThresholdSearch
from gazeprivacy.audit.cases import AuditCase, mechanism_module
from gazeprivacy.audit.neighbours import NeighbourPair, NeighbourStrategy

__all__ = [
    "COMPONENTS",
    "ClientView",
    "Pattern",
    "client_view",
    "component_case",
    "start_llr_table",
    "window_case",
]

RATE = 16.0    # Hz: W = 8 samples per 0.5 s window
W = 8
G = 8          # 8 x 8 grid of 2-degree cells on a 16 x 16 degree screen
SIDE = 16.0
RADIUS = 2.0   # r (public): the start-point noise scale r / eps1 is 1.7 cells at eps = 1
CELL = SIDE / G
#: the budgets of the run-length and transition audits: larger than 1 so that each component's
#: share (0.2 epsilon; one report per window of W = 2: 0.4 here) can be measured; the combined
#: pairs at 4, where the discretised start point still shows most of its share
EPS_RUNS = 2.0
EPS_TRANSITIONS = 2.0
EPS_COMBINED = 4.0


@dataclass(frozen=True)
class Pattern:
    """``k`` consecutive windows of ``W`` samples (NaN = missing) that the client sees."""

    x: np.ndarray
    y: np.ndarray
    w: int = W

    @property
    def n_windows(self) -> int:
        return self.x.size // self.w


@dataclass(frozen=True)
class ClientView:
    """What the client of ``n`` copies of a pattern releases, per copy.

    ``start_cell`` (n, k): released start cell of each window (-1 for a window without valid
    rows); ``n_runs`` and ``first_run`` (n, k): number and first of the released (rounded) run
    lengths; ``noisy_lengths`` (n, L): the Laplace output on the run-length series (padded to
    each window's valid rows in sound mode), L entries per copy; ``oue_sums`` (n, d + 1): column
    sums of the copy's perturbed OUE reports; ``n_reports`` (n,): how many reports it sent.
    """

    start_cell: np.ndarray
    n_runs: np.ndarray
    first_run: np.ndarray
    noisy_lengths: np.ndarray
    oue_sums: np.ndarray
    n_reports: np.ndarray


def _params(mode: str = "sound", missing: str = "keep", epsilon: float = 1.0, w: int = W) -> Any:
    from gazeprivacy.data.geometry import Geometry

    mod = mechanism_module("dpgazesynth")
    geo = Geometry(x_min_deg=0.0, x_max_deg=SIDE, y_min_deg=0.0, y_max_deg=SIDE)
    return mod.DPGazeSynthParams(epsilon=epsilon, grid_size=G, window_s=w / RATE,
                                 radius_deg=RADIUS, mode=mode, missing=missing, geometry=geo)


def _recording(p: Pattern, n: int, params: Any) -> Any:
    from gazeprivacy.data.recording import Recording

    return Recording.from_arrays(recording="audit", participant="audit", x=np.tile(p.x, n),
                                 y=np.tile(p.y, n), sampling_rate_hz=RATE,
                                 geometry=params.geometry)


def client_view(p: Pattern, params: Any, n: int, rng: np.random.Generator) -> ClientView:
    """Run DPGazeSynth's client on ``n`` copies of ``p``: THE call site into the mechanism.

    The client's public per-share functions run once on a recording that tiles the pattern
    ``n`` times (the client treats windows independently, so the copies are ``n`` independent
    releases): ``release_start_cells`` (eps1), ``noisy_run_lengths`` and, on the same draw,
    ``release_run_lengths`` (eps2; the noisy values before rounding are what the audit reads),
    and the OUE randomisation ``perturb_reports`` (eps3, the path ``protect`` uses) once per copy
    on the copy's reports. With ``transitions="all"`` the report values of a copy are a
    deterministic function of its windows, so they are taken from one ``client_release`` of a
    single copy.
    """
    mod = mechanism_module("dpgazesynth")
    k = p.n_windows
    r_start, r_times, r_oue = rng.spawn(3)
    windows = mod.client_windows(_recording(p, n, params), params)
    start_cell = mod.release_start_cells(windows, params, r_start)
    _, _, noisy = mod.noisy_run_lengths(windows, params, copy.deepcopy(r_times))
    run_window, run_length = mod.release_run_lengths(windows, params, r_times)
    single = mod.client_release(_recording(p, 1, params), params, np.random.default_rng(0))
    runs = np.bincount(run_window, minlength=n * k)
    first = run_length[np.minimum(np.searchsorted(run_window, np.arange(n * k)),
                                  max(run_length.size - 1, 0))] if run_length.size else 0
    d = 8 * params.grid_size ** 2 + 1
    sums, counts = np.zeros((n, d)), np.zeros(n)
    for i, g in enumerate(r_oue.spawn(n)):
        for s, m in mod.perturb_reports(single, params, g).values():
            sums[i] += s
            counts[i] += m
    return ClientView(start_cell=start_cell.reshape(n, k), n_runs=runs.reshape(n, k),
                      first_run=np.where(runs > 0, first, 0).reshape(n, k),
                      noisy_lengths=noisy.reshape(n, -1) if n else noisy,
                      oue_sums=sums, n_reports=counts)


# --------------------------------------------------------------------------------------------
# what the pair is (for the likelihood-ratio features): the public grid applied to the input


def _cells(p: Pattern) -> np.ndarray:
    col = np.clip(np.floor(p.x / CELL), 0, G - 1)
    row = np.clip(np.floor(p.y / CELL), 0, G - 1)
    return np.where(np.isnan(p.x), -1, row * G + col).astype(np.int64)


def _padded_runs(p: Pattern, params: Any) -> tuple[np.ndarray, np.ndarray]:
    """Each window's run lengths padded with zeros to its valid rows, windows concatenated (the
    series the client noises in sound mode), and each entry's Laplace scale ``(2 W_v - 2) /
    eps2``."""
    series: list[np.ndarray] = []
    scales: list[np.ndarray] = []
    cells = _cells(p)
    if params.missing == "fill":  # filled rows repeat the previous valid cell
        cells = cells[np.maximum.accumulate(np.where(cells >= 0, np.arange(cells.size), 0))]
    for j in range(p.n_windows):
        c = cells[j * p.w:(j + 1) * p.w]
        c = c[c >= 0]
        if c.size == 0:
            continue
        brk = np.flatnonzero(np.r_[True, c[1:] != c[:-1]])
        lengths = np.diff(np.r_[brk, c.size])
        series.append(np.r_[lengths, np.zeros(c.size - lengths.size)])
        scales.append(np.full(c.size, (2.0 * c.size - 2.0) / params.epsilon_times))
    if not series:
        return np.zeros(0), np.zeros(0)
    return np.concatenate(series), np.concatenate(scales)


def _first_valid(p: Pattern, j: int) -> np.ndarray:
    x, y = p.x[j * p.w:(j + 1) * p.w], p.y[j * p.w:(j + 1) * p.w]
    i = int(np.argmax(~np.isnan(x)))
    return np.array([x[i], y[i]])


def _report_counts(p: Pattern, params: Any) -> np.ndarray:
    mod = mechanism_module("dpgazesynth")
    single = mod.client_release(_recording(p, 1, params), params, np.random.default_rng(0))
    return np.bincount(single.all_reports.astype(np.int64), minlength=8 * G * G + 1)


# --------------------------------------------------------------------------------------------
# features


@dataclass(frozen=True)
class _Budget:
    start: float
    times: float
    per_report: float


def _budget(params: Any, w: int) -> _Budget:
    return _Budget(params.epsilon_start, params.epsilon_times, params.epsilon_per_report(w))


def start_llr_table(a: Pattern, b: Pattern, params: Any, window: int,
                    n: int = 10_000) -> np.ndarray:
    """Log-ratio of how often each start cell is released for ``a`` and for ``b``, from a pilot
    run of ``n`` client releases each (fixed seeds, independent of any audit's draws): the
    likelihood ratio of the discretised, clamped start point, which no formula gives."""
    ca = client_view(a, params, n, np.random.default_rng(101)).start_cell[:, window]
    cb = client_view(b, params, n, np.random.default_rng(102)).start_cell[:, window]
    k = G * G + 1  # index cell + 1 (-1: no valid row)
    ha, hb = np.bincount(ca + 1, minlength=k), np.bincount(cb + 1, minlength=k)
    return np.log((ha + 0.5) / (hb + 0.5))


def _features(view: ClientView, a: Pattern, b: Pattern, params: Any, window: int,
              parts: tuple[str, ...], start_table: np.ndarray | None = None) -> np.ndarray:
    """Likelihood-ratio statistics favouring ``a`` over ``b`` (one column per part, plus
    their sum when there are several). The start point's is ``start_table`` (see
    :func:`start_llr_table`) or else the distance advantage of the released cell's centre."""
    bud = _budget(params, a.w)
    cols: dict[str, np.ndarray] = {}
    cell = view.start_cell[:, window]
    if start_table is not None:
        cols["start"] = start_table[cell + 1]
    else:
        centre = np.column_stack([(cell % G + 0.5) * CELL, (cell // G + 0.5) * CELL])
        pa, pb = _first_valid(a, window), _first_valid(b, window)
        adv = (np.hypot(*(centre - pb).T) - np.hypot(*(centre - pa).T))
        cols["start"] = adv * bud.start / RADIUS
    (ta, scale), (tb, _) = _padded_runs(a, params), _padded_runs(b, params)
    v = view.noisy_lengths
    if v.shape[1] == ta.size == tb.size:  # sound mode (paper mode noises m entries)
        cols["runs"] = ((np.abs(v - tb) - np.abs(v - ta)) / np.maximum(scale, 1e-12)).sum(axis=1)
    delta = _report_counts(a, params) - _report_counts(b, params)
    cols["transitions"] = (view.oue_sums @ delta) * bud.per_report
    chosen = [cols[k] for k in parts if k in cols]
    if len(chosen) > 1:
        chosen.append(np.sum(chosen, axis=0))  # the likelihood ratio of the sound mechanism
    # round off floating-point noise: |v - 7| - |v - 1| is 6 up to the last bit, and which bit
    # depends on v's magnitude -- an event search would otherwise split on rounding errors
    return np.round(np.column_stack(chosen), 9)


# --------------------------------------------------------------------------------------------
# the pairs


def _pt(col: float, row: float) -> tuple[float, float]:
    return (col + 0.5) * CELL, (row + 0.5) * CELL


def _path(*points: tuple[float, float], w: int = W) -> Pattern:
    x, y = zip(*points, strict=True)
    return Pattern(np.array(x, dtype=np.float64), np.array(y, dtype=np.float64), w)


def _alternate(p: tuple[float, float], q: tuple[float, float], n: int = W) -> list:
    return [p if i % 2 == 0 else q for i in range(n)]


A, B, C = _pt(4, 4), _pt(5, 4), _pt(4, 5)
NAN = (np.nan, np.nan)
#: A moved right by r (just inside the distance r): the start point's largest allowed move
A_R = (A[0] + 0.999 * RADIUS, A[1])
EDGE = _pt(0, 4)
#: EDGE moved left by r: off-screen, but in the same (clamped) cell, so only the start moves
EDGE_R = (EDGE[0] - 0.999 * RADIUS, EDGE[1])
FAR = _pt(G - 1, G - 1)


@dataclass(frozen=True)
class _Component:
    """One per-component audit: the pair, which features, which share of epsilon."""

    name: str
    description: str
    a: Pattern
    b: Pattern
    parts: tuple[str, ...]
    share: str  # "start", "times", "transitions", "report" (one OUE report) or "total"
    missing: str = "keep"
    window: int = 0
    raw_start_of: int | None = None  # audit window j's released start cell as such ...
    direction: tuple[float, float] = (1.0, 0.0)  # ... projected on this direction
    epsilon: float = 1.0  # per-window budget of the audited run (a public parameter)


COMPONENTS: dict[str, _Component] = {c.name: c for c in (
    _Component("start", "start point moved by r (off-screen, same cell: runs and transitions "
               "unchanged)", _path(*[EDGE] * W), _path(EDGE_R, *[EDGE] * (W - 1)),
               ("start",), "start", raw_start_of=0, direction=(-1.0, 0.0)),
    _Component("runs", "runs (1, W-1) vs (W-1, 1), same start and transitions",
               _path(A, *[B] * (W - 1)), _path(*[A] * (W - 1), B), ("runs",), "times",
               epsilon=EPS_RUNS),
    _Component("transitions", "windows of W = 2 samples A, B vs A, C: one OUE report differs "
               "(same start, runs (1, 1)); claim: the budget of one report",
               _path(A, B, w=2), _path(A, C, w=2), ("transitions",), "report",
               epsilon=EPS_TRANSITIONS),
    _Component("combined", "one run at A vs start moved by r then W runs (start, runs and "
               "every transition change at once)", _path(*[A] * W),
               _path(A_R, *_alternate(_pt(6, 4), A_R, W - 1)),
               ("start", "runs", "transitions"), "total", epsilon=EPS_COMBINED),
    _Component("missing-keep", "combined pair with rows 3-4 missing in both (keep)",
               _path(A, A, NAN, NAN, *[A] * 4),
               _path(A_R, _pt(6, 4), NAN, NAN, *_alternate(A_R, _pt(6, 4), 4)),
               ("start", "runs", "transitions"), "total", epsilon=EPS_COMBINED),
    _Component("missing-fill", "window with rows 3-5 missing vs the combined neighbour without "
               "missing rows (fill)", _path(A, A, NAN, NAN, NAN, A, A, A),
               _path(A_R, *_alternate(_pt(6, 4), A_R, W - 1)),
               ("start", "runs", "transitions"), "total", missing="fill"),
    _Component("window-boundary", "window j changes after its start (last sample A vs the far "
               "corner); window j+1, identical, starts with 4 missing rows (fill)",
               _path(*[A] * W, *[NAN] * 4, *[A] * 4),
               _path(A, *[FAR] * (W - 1), *[NAN] * 4, *[A] * 4),
               ("start",), "total", missing="fill", raw_start_of=1, direction=(1.0, 1.0)),
)}


def _claim(record: Any, share: str) -> float:
    """The claimed budget of a component, read from the mechanism's own record."""
    if share == "total":
        return float(record.epsilon)
    if share == "report":
        return float(record.parameters["epsilon_per_report"])
    return float(record.parameters["epsilon"]) * float(record.parameters["split"][share])


def component_case(name: str, mode: str = "sound") -> AuditCase:
    """The audit of one component pair (see :data:`COMPONENTS`) on the real client path."""
    comp = COMPONENTS[name]
    mod = mechanism_module("dpgazesynth")
    params = _params(mode, comp.missing, comp.epsilon, comp.a.w)
    record = mod.guarantee(params, sampling_rate_hz=RATE, geometry=params.geometry)

    def samplers(pair: NeighbourPair) -> tuple[Sampler, Sampler]:
        table = (start_llr_table(pair.a, pair.b, params, comp.window)
                 if len(comp.parts) > 1 and comp.raw_start_of is None else None)

        def make(p: Pattern) -> Sampler:
            def s(n: int, rng: np.random.Generator) -> np.ndarray:
                view = client_view(p, params, n, rng)
                if comp.raw_start_of is not None:
                    cell = view.start_cell[:, comp.raw_start_of]
                    return (cell % G) * comp.direction[0] + (cell // G) * comp.direction[1]
                return _features(view, pair.a, pair.b, params, comp.window, comp.parts, table)
            return s
        return make(pair.a), make(pair.b)

    claim = _claim(record, comp.share)
    source = {"total": "epsilon", "report": "parameters.epsilon_per_report"}.get(
        comp.share, f"parameters.split.{comp.share} x parameters.epsilon")
    return AuditCase(
        mechanism=f"dpgazesynth-{name}", mode=mode, unit="window", claimed_epsilon=claim,
        claimed_delta=0.0, neighbouring=record.neighbouring, guarantee=record,
        strategy=NeighbourStrategy((NeighbourPair(comp.a, comp.b, comp.description),)),
        samplers=samplers, claim_from=source,
        event_search=ThresholdSearch() if len(comp.parts) == 1 and comp.raw_start_of is None
        else None,
        notes=f"G = {G}, W = {comp.a.w}, r = {RADIUS:g} deg, screen {SIDE:g} deg, missing = "
              f"{comp.missing}; claim: {comp.share} share of epsilon = {claim:.4g}")


def window_case(mode: str) -> AuditCase:
    """One window, all of the client's release at once (the ``dpgazesynth`` adapter).

    Features: start cell, number of released runs, first run length, number of OUE reports the
    curator receives, and the OUE column sum at the first transition that tells the pair apart.
    Paper mode fails on windows with different numbers of runs (it releases that number).
    """
    mod = mechanism_module("dpgazesynth")
    params = _params(mode)
    record = mod.guarantee(params, sampling_rate_hz=RATE, geometry=params.geometry)

    def samplers(pair: NeighbourPair) -> tuple[Sampler, Sampler]:
        diff = _report_counts(pair.b, params) - _report_counts(pair.a, params)
        target = int(np.argmax(np.abs(diff[:-1]))) if np.any(diff[:-1]) else 0

        def make(p: Pattern) -> Sampler:
            def s(n: int, rng: np.random.Generator) -> np.ndarray:
                v = client_view(p, params, n, rng)
                return np.column_stack([v.start_cell[:, 0], v.n_runs[:, 0], v.first_run[:, 0],
                                        v.n_reports, v.oue_sums[:, target]])
            return s
        return make(pair.a), make(pair.b)

    def rand(rng: np.random.Generator) -> NeighbourPair:
        cells_a = rng.integers(3, 6, (2, W)) + 0.5
        cells_b = rng.integers(3, 6, (2, W)) + 0.5
        cells_b[:, 0] = cells_a[:, 0]  # same start point: the windows differ in their runs
        return NeighbourPair(Pattern(cells_a[0] * CELL, cells_a[1] * CELL),
                             Pattern(cells_b[0] * CELL, cells_b[1] * CELL),
                             "random cell sequences, same start")

    one = _path(*[A] * W)
    extremes = (
        NeighbourPair(one, _path(*[A] * (W // 2), *[B] * (W - W // 2)),
                      "1 run vs 2 runs (same start)"),
        NeighbourPair(one, _path(*_alternate(A, B)), f"1 run vs {W} runs (same start)"),
        NeighbourPair(one, _path(*[A_R] * W), "start point moved by r"),
    )
    return AuditCase(
        mechanism="dpgazesynth", mode=mode, unit="window", claimed_epsilon=record.epsilon,
        claimed_delta=0.0, neighbouring=record.neighbouring, guarantee=record,
        strategy=NeighbourStrategy(extremes, rand, 2), samplers=samplers,
        notes=f"G = {G}, W = {W}, r = {RADIUS:g} deg, screen {SIDE:g} deg; features: start "
              "cell, number of runs, first run length, number of OUE reports, OUE column sum "
              "at the first transition that differs")
