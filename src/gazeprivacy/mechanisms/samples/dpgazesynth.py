# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth: event-level epsilon-LDP semi-synthetic gaze paths (per 0.5 s window).

Ren, Fan, et al. DPGazeSynth: Enhancing eye-tracking virtual reality privacy with
differentially private data synthesis. Section 4 (Algorithm 1, Theorem 1); implemented as
SPEC section 2.

Each participant's device (client) discretises gaze onto a ``G x G`` grid, splits it into windows
of ``W`` samples and releases per window: the start point through planar Laplace
(``eps1 / r``), the run lengths ("fixation times") through the Laplace mechanism (sensitivity
``2W - 2``, ``eps2``) and its cell transitions through OUE (``eps3 / (W - 1)`` each). The curator
estimates a first-order 8-neighbour transition model from all reports and synthesises every
window (Algorithm 1). Guarantee: ``eps1 + eps2 + eps3`` per window (start points
geo-indistinguishable within ``r``), ``T x eps`` for a participant with ``T`` windows.

Deviations. *Paper mode* noises the ``m`` actual run lengths and sends ``m - 1`` OUE reports,
which releases ``m`` exactly; its proof covers only neighbours with equal ``m`` and the record
says so. *Sound mode* (default) pads the run-length series to ``W`` entries before the noise and
pads the transition reports to ``W - 1`` per window with a "no transition" symbol (domain
``8 G^2 + 1``), so ``m`` is protected. The radius default is ``3 min(H, V) / G`` (the paper's
pairs G = 60 / r = 5 %, G = 30 / r = 10 %), not eq. (8)'s ``min(H, V) / (6 G)``. The option
``transitions="one-per-window"`` (a "beyond" variant) sends one uniformly chosen transition (or
the "no transition" symbol) per window at the full ``eps3``. Rounding keeps sums by largest
remainder; a window whose noisy lengths all clip to 0 becomes one run. Missing samples: see
``missing`` (``fill`` never reaches across a window boundary). See docs/privacy/dpgazesynth.md.

Participant level (``unit="participant"``, beyond the paper, issue 15): ``epsilon`` is the
budget per participant; each participant reports ``m = windows_per_participant`` windows drawn
at random from the public shape, at ``epsilon / m`` each (basic sequential composition), and
every released window is synthesised from the population's reports
(:func:`population_windows`), one synthetic recording per input recording: with the input's
row count (public), or with ``output_length_s`` every recording ``round(output_length_s *
rate)`` rows long, so the written release does not carry the input's recording lengths.

Phases (public, shared by the in-memory run, the partition-wise engines and the auditor): the
client, one function per budget share (:func:`release_start_cells`, :func:`release_run_lengths`,
:func:`transition_values` + :func:`perturb_reports`, each with its analytic noise scale and
variance), composed by :func:`client_release`; the curator's :func:`curate` and
:func:`synthesise`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

import numpy as np

from gazeprivacy._validation import check_int, check_positive
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset, Recording, adopt
from gazeprivacy.exceptions import (
    InvalidDataError,
    InvalidParameterError,
    NotFormallyPrivateWarning,
)
from gazeprivacy.guarantees import Budget, Flag, FlagCode, Guarantee, Kind, Release, Unit
from gazeprivacy.mechanisms.contract import (
    Level,
    Mechanism,
    Mode,
    SampleShape,
    check_partition,
    coerce_option,
    sample_shape,
)
from gazeprivacy.mechanisms.noise.laplace import laplace_noise
from gazeprivacy.mechanisms.noise.oue import (
    oue_curator_view,
    oue_encode,
    oue_estimate,
    oue_q,
    oue_variance,
)
from gazeprivacy.mechanisms.noise.planar_laplace import planar_laplace

__all__ = [
    "OUTPUT_LENGTH_REFUSAL",
    "PARTICIPANT_REFUSAL",
    "SPEC",
    "TRANSITION_OUE_P",
    "BudgetSplit",
    "ClientReport",
    "ClientWindows",
    "DPGazeSynthParams",
    "DPGazeSynthPhases",
    "Missing",
    "OUEPath",
    "PrivacyUnit",
    "TransitionModel",
    "Transitions",
    "client_release",
    "client_windows",
    "curate",
    "dpgazesynth",
    "dpgazesynth_recording",
    "guarantee",
    "noisy_run_lengths",
    "noisy_start_points",
    "output_samples",
    "participant_windows",
    "perturb_reports",
    "plan",
    "population_windows",
    "release_run_lengths",
    "release_start_cells",
    "run_length_noise_scale",
    "run_length_noise_variance",
    "run_length_series",
    "shape_guarantee",
    "start_noise_scale",
    "start_radius_variance",
    "synthesise",
    "transition_estimate_variance",
    "transition_oue_q",
    "transition_values",
    "window_samples",
]

#: Direction k of the 8-neighbourhood: (dcol, drow) = (round(cos(k 45 deg)), round(sin(k 45 deg))).
_DCOL = np.array([1, 1, 0, -1, -1, -1, 0, 1])
_DROW = np.array([0, 1, 1, 1, 0, -1, -1, -1])
#: samples per block of recordings in the in-memory run (cache-sized vectorised arrays)
_BLOCK_SAMPLES = 1 << 19


@dataclass(frozen=True, kw_only=True)
class BudgetSplit:
    """Fractions of the per-window epsilon for start cells, fixation times and transitions.

    The parts must be > 0 and sum to at most 1 (the record uses the sum actually spent).

    >>> BudgetSplit().total
    1.0
    >>> BudgetSplit(start=0.8, times=0.2, transitions=0.2)
    Traceback (most recent call last):
    ...
    gazeprivacy.exceptions.InvalidParameterError: split parts must sum to at most 1, got 1.2 \
(start=0.8, times=0.2, transitions=0.2)
    """

    start: float = 0.6
    times: float = 0.2
    transitions: float = 0.2

    def __post_init__(self) -> None:
        for name in ("start", "times", "transitions"):
            check_positive(**{f"split.{name}": getattr(self, name)})
        total = self.start + self.times + self.transitions
        if total > 1.0 + 1e-12:
            raise InvalidParameterError(
                f"split parts must sum to at most 1, got {total:g} (start={self.start:g}, "
                f"times={self.times:g}, transitions={self.transitions:g})")

    @property
    def total(self) -> float:
        return round(self.start + self.times + self.transitions, 12)


class Transitions(StrEnum):
    """Which transitions a window reports: every one (paper) or one per window."""

    ALL = "all"
    ONE_PER_WINDOW = "one-per-window"


class OUEPath(StrEnum):
    """How the OUE column sums are produced (same distribution either way)."""

    CURATOR_VIEW = "curator-view"
    CLIENT_REPORTS = "client-reports"


class PrivacyUnit(StrEnum):
    """What ``epsilon`` is spent on: every window (the paper) or a whole participant."""

    WINDOW = "window"
    PARTICIPANT = "participant"


class Missing(StrEnum):
    """What happens to missing samples (NaN rows): kept (mask public) or filled (protected)."""

    KEEP = "keep"
    FILL = "fill"


@dataclass(frozen=True, kw_only=True)
class DPGazeSynthParams:
    """Parameters of DPGazeSynth.

    Parameters
    ----------
    epsilon : float, > 0
        Budget per ``unit`` (split by ``split``); no default. Per window (``unit="window"``,
        the paper), or per participant (``unit="participant"``: spent as ``epsilon / m`` on
        each of ``m = windows_per_participant`` windows).
    grid_size : int, >= 2
        ``G`` of the ``G x G`` grid (paper: 30 or 60).
    window_s : float
        Window length in seconds (paper: 0.5); ``W = round(window_s * rate)`` samples, >= 2.
    radius_deg : float, optional
        Protection radius ``r`` of the start point; default ``3 min(H, V) / G``.
    split : BudgetSplit
        Default 0.6 / 0.2 / 0.2 (the paper's).
    mode : {"sound", "paper"}
        See the module's Deviations.
    transitions : {"all", "one-per-window"}
        Report every transition at ``eps3 / (W - 1)`` (paper) or one per window at ``eps3``.
    oue_path : {"curator-view", "client-reports"}
        Simulate the curator's column sums in O(d) (exact in distribution), or have every client
        emit real sparse OUE reports (O(d) per report; small data only).
    missing : {"keep", "fill"}
        ``keep``: NaN rows stay NaN and are skipped (the missing-sample mask is public);
        ``fill``: before discretising, a NaN row takes the previous valid position *of its own
        window* (leading NaN rows the window's first valid one, a window without any the screen
        centre), every row is synthesised and the mask is protected too.
    geometry : Geometry, optional
        Screen bounds (public); default: each recording's own geometry.
    unit : {"window", "participant"}
        ``window`` (default, the paper): every window reports at ``epsilon`` and its synthetic
        path is built from its own report; a participant with ``T`` windows gets ``T x
        epsilon``. ``participant``: each participant's client reports ``m`` windows drawn at
        random (without replacement, from the public shape) across all of its recordings, at
        ``epsilon / m`` each (basic sequential composition: ``epsilon`` per participant), and
        every released window is synthesised from the population's reports (see
        :func:`synthesise`).
    windows_per_participant : int, optional
        ``m``; required with ``unit="participant"`` (no default), not allowed otherwise.
    output_length_s : float, optional
        ``unit="participant"`` with ``missing="fill"`` only: every released recording has
        ``round(output_length_s * rate)`` rows (>= 1), synthesised like the rest from the
        population model, so the release does not carry the input's recording lengths. None
        (default): one released row per input row, and the record says the row counts are the
        input's (public, not protected). Refused with ``unit="window"``
        (:data:`OUTPUT_LENGTH_REFUSAL`).
    """

    epsilon: float
    grid_size: int = 30
    window_s: float = 0.5
    radius_deg: float | None = None
    split: BudgetSplit = field(default_factory=BudgetSplit)
    mode: Mode = Mode.SOUND
    transitions: Transitions = Transitions.ALL
    oue_path: OUEPath = OUEPath.CURATOR_VIEW
    missing: Missing = Missing.KEEP
    geometry: Geometry | None = None
    unit: PrivacyUnit = PrivacyUnit.WINDOW
    windows_per_participant: int | None = None
    output_length_s: float | None = None

    def __post_init__(self) -> None:
        check_positive(epsilon=self.epsilon)
        object.__setattr__(self, "unit", coerce_option("unit", self.unit, PrivacyUnit))
        if self.unit == "participant":
            if self.windows_per_participant is None:
                raise InvalidParameterError(
                    "unit='participant' needs windows_per_participant (m, the number of windows "
                    "each participant reports, at epsilon / m each); there is no default")
            check_int(windows_per_participant=self.windows_per_participant, minimum=1)
        elif self.windows_per_participant is not None:
            raise InvalidParameterError(
                "windows_per_participant applies to unit='participant' only (unit='window' "
                "reports every window at epsilon); pass unit='participant' or drop it")
        check_int(grid_size=self.grid_size, minimum=2)
        check_positive(window_s=self.window_s)
        if self.radius_deg is not None:
            check_positive(radius_deg=self.radius_deg)
        if not isinstance(self.split, BudgetSplit):
            raise InvalidParameterError(f"split must be a BudgetSplit, got {self.split!r}")
        for name, enum, allowed in (("mode", Mode, (Mode.SOUND, Mode.PAPER)),
                                    ("transitions", Transitions, None),
                                    ("oue_path", OUEPath, None), ("missing", Missing, None)):
            object.__setattr__(self, name, coerce_option(name, getattr(self, name), enum,
                                                         allowed))
        if self.output_length_s is not None:
            check_positive(output_length_s=self.output_length_s)
            if self.unit != "participant":
                raise InvalidParameterError(f"output_length_s: {OUTPUT_LENGTH_REFUSAL}")
            if self.missing != "fill":
                raise InvalidParameterError(
                    "output_length_s needs missing='fill': under missing='keep' the released "
                    "rows are the input's valid rows (its missing-sample mask, of the input's "
                    "length), which a release of another length cannot keep; pass "
                    "missing='fill' (--param missing=fill)")

    @classmethod
    def paper(cls, *, epsilon: float, grid_size: int = 60, **kw: Any) -> DPGazeSynthParams:
        """The paper's values (section 5.1): G = 60, W = 0.5 s, split 0.6 / 0.2 / 0.2.

        Sets values only (the mode stays sound); pass ``mode="paper"`` for the paper's run
        lengths and transition reports as printed."""
        return cls(epsilon=epsilon, grid_size=grid_size, **kw)

    @property
    def epsilon_window(self) -> float:
        """The budget of one reporting window (before the split): ``epsilon`` per window, or
        ``epsilon / m`` when ``epsilon`` is per participant (basic composition over ``m``)."""
        if self.unit == "participant":
            return self.epsilon / self.windows_per_participant
        return self.epsilon

    @property
    def epsilon_start(self) -> float:
        return self.epsilon_window * self.split.start

    @property
    def epsilon_times(self) -> float:
        return self.epsilon_window * self.split.times

    @property
    def epsilon_transitions(self) -> float:
        return self.epsilon_window * self.split.transitions

    def radius_for(self, geometry: Geometry) -> float:
        """``r`` in degrees: the given one, else ``3 min(H, V) / G``."""
        if self.radius_deg is not None:
            return float(self.radius_deg)
        return 3.0 * min(geometry.width_deg, geometry.height_deg) / self.grid_size

    def epsilon_per_report(self, w: int) -> float:
        """Budget of one OUE transition report for windows of ``w`` samples."""
        if self.transitions == "one-per-window":
            return self.epsilon_transitions
        return self.epsilon_transitions / (w - 1)


def window_samples(params: DPGazeSynthParams, sampling_rate_hz: float) -> int:
    """``W = round(window_s * sampling_rate_hz)``; must be >= 2.

    >>> window_samples(DPGazeSynthParams(epsilon=1.0), 200.0)
    100
    """
    w = round(params.window_s * sampling_rate_hz)
    if w < 2:
        raise InvalidParameterError(
            f"window_s={params.window_s:g} s at {sampling_rate_hz:g} Hz gives W={w} samples; "
            "DPGazeSynth needs W >= 2: use a longer window_s")
    return w


def guarantee(params: DPGazeSynthParams, *, sampling_rate_hz: float,
              geometry: Geometry | None = None) -> Guarantee:
    """The privacy map: per-window record from public parameters only (never reads data).

    >>> g = guarantee(DPGazeSynthParams(epsilon=2.0), sampling_rate_hz=200.0)
    >>> g.kind.value, g.unit.value, g.epsilon, g.formally_private
    ('epsilon-LDP', 'window', 2.0, True)
    """
    w = window_samples(params, sampling_rate_hz)
    geometry = geometry or params.geometry
    r = params.radius_for(geometry) if geometry is not None else params.radius_deg
    eps = params.epsilon * params.split.total
    flags: list[Flag] = []
    if params.mode == "paper":
        flags.append(Flag(FlagCode.PARTIAL_COVERAGE, (
            "paper mode noises the m actual run lengths and sends m - 1 transition reports, "
            "which releases the number of runs m of every window exactly; Theorem 1's proof "
            "covers only neighbouring windows with the same m")))
    same = ("same missing-sample mask" if params.missing == "keep" else
            "any missing-sample masks, gaps filled within the window")
    neighbouring = (
        f"two versions of one window of W = {w} samples (same recording, same position, {same}) "
        "whose first valid samples"
        + ("" if params.missing == "keep" else " (the screen centre for a window without any)")
        + " lie within r = "
        f"{'3 min(H, V) / G' if r is None else f'{r:.6g} deg'} of each other; the cell sequence "
        "is otherwise arbitrary" + (" but has the same number of runs" if params.mode == "paper"
                                    else "") +
        ". Start points further apart than r are distinguishable at eps1 x distance / r")
    notes = [
        f"eps1 = {params.epsilon_start:g} (planar Laplace start point, radius r), "
        f"eps2 = {params.epsilon_times:g} (Laplace on run lengths, sensitivity 2W - 2 = "
        f"{2 * w - 2}), eps3 = {params.epsilon_transitions:g} (OUE, "
        f"{params.epsilon_per_report(w):.6g} per report)",
        "the transition model is the curator's aggregate over all participants; synthesis is "
        "post-processing",
    ]
    if params.missing == "keep":
        notes.append("missing samples (NaN rows, blinks) stay NaN: the missing-sample mask is "
                     "released as is and is not protected (use missing='fill' to protect it)")
    else:
        notes.append("missing='fill': a missing sample takes the previous valid sample of its "
                     "own window (missing samples at a window's start its first valid sample; "
                     "a window without valid samples the screen centre, public), never a sample "
                     "of another window; every row is synthesised and the missing-sample mask "
                     "is not released")
    record = Guarantee(
        mechanism="dpgazesynth", kind=Kind.LOCAL_DP, unit=Unit.WINDOW, epsilon=eps,
        mode=params.mode,
        neighbouring=neighbouring,
        parameters={
            "epsilon": params.epsilon, "split": {"start": params.split.start,
                                                 "times": params.split.times,
                                                 "transitions": params.split.transitions},
            "grid_size": params.grid_size, "window_s": params.window_s, "window_samples": w,
            "radius_deg": r, "transitions": params.transitions,
            "epsilon_per_report": params.epsilon_per_report(w), "oue_path": params.oue_path,
            "missing": params.missing, "sampling_rate_hz": sampling_rate_hz,
        },
        flags=tuple(flags),
        paper_claim="Theorem 1: event-level eps-LDP per window, eps = eps1 + eps2 + eps3",
        notes=tuple(notes),
    )
    return record if params.unit == "window" else _participant_record(record, params)


def _participant_record(window: Guarantee, params: DPGazeSynthParams) -> Guarantee:
    """The ``unit="participant"`` record: ``epsilon`` per participant (the headline), spent as
    ``epsilon / m`` on each of ``m`` randomly drawn windows (basic sequential composition)."""
    m = int(params.windows_per_participant)
    per_window = params.epsilon_window * params.split.total
    neighbouring = (
        "two versions of one participant's data with the same public shape (recordings, row "
        "counts, sampling rates, geometry, labels"
        + (", missing-sample mask" if params.missing == "keep" else "")
        + ") whose windows' first valid samples lie within r of each other (window by window); "
        "everything else may differ arbitrarily. Per window the relation of unit='window' "
        f"holds at eps / m = {per_window:.6g}; start points further apart than r are "
        f"distinguishable at {params.epsilon_start:.6g} x distance / r per window (the start "
        "share of eps / m)")
    notes = (
        f"participant level: each participant's client reports m = {m} windows drawn uniformly "
        "without replacement from all windows of all its recordings (ceil(rows / W) per "
        "recording, public shape; the draw uses the release's generator and no gaze value), "
        f"each at epsilon / m = {per_window:.6g} (basic sequential composition: {window.epsilon:g}"
        " per participant); the other windows send nothing",
        "released: one synthetic recording per input recording (the number of recordings per "
        "participant is the input's, public shape), "
        + (f"each of round({params.output_length_s:g} s x rate) rows whatever the input's "
           "length (output_length_s; the input's row counts are not written, but neither are "
           "they protected: the windows drawn and a recording's last, shorter window depend on "
           "them, and the neighbouring relation fixes them)"
           if params.output_length_s is not None else
           "each with the input's row count (public shape, not protected)")
        + "; every window is drawn from the population model (the start cell and run "
        "lengths of a uniformly drawn reporting window of any participant, the transition model "
        "of all reports), so a synthetic recording depends on the data only through the pooled "
        "reports: its participant / recording labels link it to the public shape, not to its "
        "owner's gaze",
        "a drawn window without valid samples (missing='keep') sends nothing: it still counts "
        "towards m (the bound is an upper bound)",
    )
    return replace(
        window, unit=Unit.PARTICIPANT, neighbouring=neighbouring,
        parameters={**window.parameters, "unit": params.unit, "windows_per_participant": m,
                    "epsilon_per_window": per_window,
                    "output_length_s": params.output_length_s,
                    "release": "one synthetic recording per input recording ("
                               + ("the input's row counts, public" if params.output_length_s
                                  is None else f"{params.output_length_s:g} s each, public")
                               + "), synthesised from the population model"},
        notes=(*window.notes, *notes))


# --------------------------------------------------------------------------------------------
# client side
# --------------------------------------------------------------------------------------------
# Every client step reads one window of one participant only. The simulation runs all clients
# of a dataset at once on concatenated arrays (global window ids), which is the same computation
# vectorised across clients: a Python loop per recording cost 50 x a numpy pass.
#
# The client is split by budget share, each share with its analytic noise scale and variance:
#   client_windows          discretise and cut into windows and runs (no noise, no budget)
#   release_start_cells     eps1: planar Laplace start point   (start_noise_scale, ..._variance)
#   release_run_lengths     eps2: Laplace on the run lengths   (run_length_noise_scale, ...)
#   transition_values       eps3: the OUE input of every report (transition_oue_q, ...), whose
#   perturb_reports               randomisation runs in aggregate (exact in distribution)
#   client_release          the three shares composed: the ClientReport of a block of clients


@dataclass(frozen=True)
class ClientWindows:
    """The client's discretised windows before any noise (this never leaves the device).

    Arrays over concatenated recordings: per valid sample, per run of equal cells (sorted by
    window) and per window (global index, recordings in order, ``W`` samples each).
    """

    n_windows: int
    rec_of_win: np.ndarray   # recording index of each window
    n_valid: np.ndarray      # rows per window that get synthetic gaze (W_v)
    valid_rows: np.ndarray   # those rows (of the concatenated recordings)
    start_x: np.ndarray      # first valid sample of each window (0 where the window has none)
    start_y: np.ndarray
    run_window: np.ndarray   # per run: window, length, cell, column and row
    run_length: np.ndarray
    run_cell: np.ndarray
    run_col: np.ndarray
    run_row: np.ndarray
    x0: np.ndarray           # per window: screen bounds, cell size and radius r (public)
    y0: np.ndarray
    x1: np.ndarray
    y1: np.ndarray
    cw: np.ndarray
    ch: np.ndarray
    radius: np.ndarray
    rec_w: np.ndarray        # W of each recording


@dataclass(frozen=True)
class ClientReport:
    """What the clients of a block of recordings send (formerly ``_Clients``).

    ``start_cell`` and ``run_length`` are already noised (eps1, eps2); ``reports`` are the OUE
    inputs grouped by report budget, randomised by :func:`perturb_reports` (eps3) before the
    curator sees them. ``valid_rows`` and the per-window screen bounds are public bookkeeping.
    """

    valid_rows: np.ndarray      # rows (of the concatenated recordings) that get synthetic gaze
    run_window: np.ndarray      # global window index of each noisy run (sorted)
    run_length: np.ndarray      # noisy run lengths (> 0), sum per window = valid rows in it
    start_cell: np.ndarray      # noisy start cell per window (-1 for windows without rows)
    window_x0: np.ndarray       # per window: screen bounds and cell size (its recording's)
    window_y0: np.ndarray
    window_cw: np.ndarray
    window_ch: np.ndarray
    reports: dict[float, np.ndarray]  # OUE input values per report budget
    report_windows: dict[float, np.ndarray] = field(default_factory=dict)  # their windows

    @property
    def all_reports(self) -> np.ndarray:
        return np.concatenate([self.reports[k] for k in sorted(self.reports)] or [np.zeros(0)])


_Clients = ClientReport  # the former private name (engines/plan.py, audit adapters)


def _geometry(rec: Recording, params: DPGazeSynthParams) -> Geometry:
    geo = params.geometry or rec.geometry
    if geo is None:
        raise InvalidParameterError(
            f"recording {rec.recording!r} has no geometry and DPGazeSynthParams.geometry is "
            "None; the screen bounds are public parameters: pass geometry=Geometry(...)")
    return geo


def _cells(x: np.ndarray, y: np.ndarray, x0: np.ndarray, y0: np.ndarray, cw: np.ndarray,
           ch: np.ndarray, g: int) -> tuple[np.ndarray, np.ndarray]:
    """(col, row) of each point; off-screen points go to the nearest cell."""
    col = np.clip(np.floor((x - x0) / cw), 0, g - 1).astype(np.int64)
    row = np.clip(np.floor((y - y0) / ch), 0, g - 1).astype(np.int64)
    return col, row


def _fill_missing(x: np.ndarray, y: np.ndarray, w: int, geometry: Geometry
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``missing="fill"`` within each window of ``w`` samples, never across windows.

    A NaN row takes the previous valid sample of its window; NaN rows at the start of a window
    take the window's first valid sample; a window without any valid sample is filled with the
    screen centre (public). So a window's filled values depend on its own samples only.
    """
    n = x.size
    ok = ~np.isnan(x)
    idx = np.arange(n)
    win_start = idx - idx % w
    win_end = np.minimum(win_start + w, n)
    prev = np.maximum.accumulate(np.where(ok, idx, -1))
    nxt = np.minimum.accumulate(np.where(ok, idx, n)[::-1])[::-1]
    src = np.where(prev >= win_start, prev, np.where(nxt < win_end, nxt, -1))
    has = src >= 0
    cx = (geometry.x_min_deg + geometry.x_max_deg) / 2.0
    cy = (geometry.y_min_deg + geometry.y_max_deg) / 2.0
    safe = np.where(has, src, 0)
    return np.where(has, x[safe], cx), np.where(has, y[safe], cy)


def client_windows(recordings: Recording | Sequence[Recording], params: DPGazeSynthParams
                   ) -> ClientWindows:
    """Steps 1-2 of every client: discretise, fill (``missing="fill"``), cut into windows of
    ``W`` samples and runs of equal cells. Deterministic; spends no budget."""
    recs = (recordings,) if isinstance(recordings, Recording) else tuple(recordings)
    g = params.grid_size
    geos = [_geometry(r, params) for r in recs]
    ws = np.array([window_samples(params, r.sampling_rate_hz) for r in recs])
    n_rows = np.array([r.n_samples for r in recs])
    n_win = -(-n_rows // ws)
    win_off = np.concatenate([[0], np.cumsum(n_win)[:-1]])
    n_windows = int(n_win.sum())
    if params.missing == "fill":
        filled = [_fill_missing(r.x, r.y, int(w), q) for r, w, q in zip(recs, ws, geos,
                                                                         strict=True)]
    else:
        filled = [(r.x, r.y) for r in recs]
    x = np.concatenate([f[0] for f in filled])
    y = np.concatenate([f[1] for f in filled])
    rec_of_row = np.repeat(np.arange(len(recs)), n_rows)
    local_row = np.arange(x.size) - np.repeat(np.concatenate([[0], np.cumsum(n_rows)[:-1]]),
                                              n_rows)
    # per-window public quantities (from the recording's geometry and rate)
    rec_of_win = np.repeat(np.arange(len(recs)), n_win)
    gx0, gy0, gx1, gy1 = (np.array([getattr(q, a) for q in geos]) for a in
                          ("x_min_deg", "y_min_deg", "x_max_deg", "y_max_deg"))
    gcw, gch = (gx1 - gx0) / g, (gy1 - gy0) / g
    radius = np.array([params.radius_for(q) for q in geos])

    valid_rows = np.flatnonzero(~np.isnan(x))
    vx, vy = x[valid_rows], y[valid_rows]
    vrec = rec_of_row[valid_rows]
    # one window size and screen for the whole block (the usual case): scalars, not per-row
    # copies of them (the same values, so the same cells)
    one = (ws == ws[0]).all() and all(np.all(a == a[0]) for a in (gx0, gy0, gcw, gch))

    def per_row(a: np.ndarray) -> Any:
        return a[0] if one else a[vrec]

    vwin = win_off[vrec] + local_row[valid_rows] // per_row(ws)
    col, row = _cells(vx, vy, per_row(gx0), per_row(gy0), per_row(gcw), per_row(gch), g)
    cell = row * g + col
    # windows and runs over the valid samples
    n_valid = np.bincount(vwin, minlength=n_windows)
    brk = np.ones(vwin.size, dtype=bool)
    brk[1:] = (cell[1:] != cell[:-1]) | (vwin[1:] != vwin[:-1])
    run_first = np.flatnonzero(brk)
    has = n_valid > 0
    first_idx = np.minimum(np.searchsorted(vwin, np.arange(n_windows)), max(vx.size - 1, 0))
    w_of = rec_of_win
    return ClientWindows(
        n_windows=n_windows, rec_of_win=rec_of_win, n_valid=n_valid, valid_rows=valid_rows,
        start_x=np.where(has, vx[first_idx] if vx.size else 0.0, 0.0),
        start_y=np.where(has, vy[first_idx] if vy.size else 0.0, 0.0),
        run_window=vwin[run_first], run_length=np.diff(np.append(run_first, vwin.size)),
        run_cell=cell[run_first], run_col=col[run_first], run_row=row[run_first],
        x0=gx0[w_of], y0=gy0[w_of], x1=gx1[w_of], y1=gy1[w_of], cw=gcw[w_of], ch=gch[w_of],
        radius=radius[w_of], rec_w=ws)


def _subset_windows(windows: ClientWindows, keep: np.ndarray) -> ClientWindows:
    """The windows with global indices ``keep`` (sorted) only, renumbered ``0..len(keep)-1``;
    their runs and valid rows follow. What a ``unit="participant"`` client reports from."""
    mask = np.zeros(windows.n_windows, dtype=bool)
    mask[keep] = True
    new_id = np.cumsum(mask) - 1
    run_keep = mask[windows.run_window]
    row_win = np.repeat(np.arange(windows.n_windows), windows.n_valid)
    per_win = {name: getattr(windows, name)[mask] for name in
               ("rec_of_win", "n_valid", "start_x", "start_y", "x0", "y0", "x1", "y1", "cw",
                "ch", "radius")}
    per_run = {name: getattr(windows, name)[run_keep] for name in
               ("run_length", "run_cell", "run_col", "run_row")}
    return replace(windows, n_windows=int(mask.sum()),
                   valid_rows=windows.valid_rows[mask[row_win]],
                   run_window=new_id[windows.run_window[run_keep]], **per_win, **per_run)


def _round_keep_sum(values: np.ndarray, group: np.ndarray, totals: np.ndarray,
                    block: int = 1 << 14) -> np.ndarray:
    """Clip at 0, scale each group to ``totals[group]``, round by largest remainder.

    ``group`` is sorted. A group whose values are all 0 after clipping puts its whole total on
    its first entry. Groups are independent, so they are processed ``block`` at a time (the same
    result; arrays of cache size rather than of the whole dataset, 2-3 x faster at 5 M rows).
    """
    n_groups = totals.shape[0]
    if n_groups <= block:
        return _round_keep_sum_block(values, group, totals)
    bounds = np.searchsorted(group, np.arange(0, n_groups + block, block)).tolist()
    out = np.empty(group.size, dtype=np.int64)
    for b, g0 in enumerate(range(0, n_groups, block)):
        a, e = bounds[b], bounds[b + 1]
        out[a:e] = _round_keep_sum_block(values[a:e], group[a:e] - g0,
                                         totals[g0:g0 + block])
    return out


def _round_keep_sum_block(values: np.ndarray, group: np.ndarray, totals: np.ndarray
                          ) -> np.ndarray:
    """:func:`_round_keep_sum` on one block of groups."""
    v = np.clip(values, 0.0, None)
    n_groups = totals.shape[0]
    s = np.bincount(group, weights=v, minlength=n_groups)
    starts = np.searchsorted(group, np.arange(n_groups))
    empty = (s <= 0) & (totals > 0)
    if empty.any():
        v = v.copy()
        v[starts[empty]] = 1.0
        s[empty] = 1.0
    scaled = v * (totals / np.where(s > 0, s, 1.0))[group]  # (the same quotients, one gather)
    fl = np.floor(scaled)
    rem = scaled - fl
    deficit = totals - np.bincount(group, weights=fl, minlength=n_groups)
    # rank of each remainder within its group, largest first, ties in index order (what a
    # stable lexsort by (group, -rem) gives): groups are short (at most W entries), so sort the
    # rows of a padded (groups x longest) matrix instead of the whole array
    col = np.arange(rem.size) - starts[group]
    width = int(col.max()) + 1 if rem.size else 0
    flat = group * width + col  # each entry's cell in the padded matrix
    mat = np.full(n_groups * width, 2.0)  # padding sorts last (remainders are < 1)
    mat[flat] = -rem
    order = np.argsort(mat.reshape(n_groups, width), axis=1, kind="stable")
    # the entries at sorted positions < deficit of their group get one more (marked through
    # the sorted order: no inverse permutation is needed)
    top = np.arange(width)[None, :] < np.rint(deficit)[:, None]
    up = np.zeros(n_groups * width, dtype=bool)
    up[(order + (np.arange(n_groups) * width)[:, None])[top]] = True
    out = fl + up[flat]
    return out.astype(np.int64)


# --- eps1: the start point ------------------------------------------------------------------


def start_noise_scale(params: DPGazeSynthParams, geometry: Geometry) -> float:
    """Scale ``b = r / eps1`` of the start point's planar Laplace noise (its radius is
    Gamma(2, b), its angle uniform); ``epsilon_per_unit = eps1 / r``.

    >>> geo = Geometry(x_min_deg=0, x_max_deg=10, y_min_deg=0, y_max_deg=10)
    >>> start_noise_scale(DPGazeSynthParams(epsilon=2.0, grid_size=10), geo)  # r = 3 / 1.2
    2.5
    """
    return params.radius_for(geometry) / params.epsilon_start


def start_radius_variance(params: DPGazeSynthParams, geometry: Geometry) -> float:
    """Variance ``2 b^2`` of the start point's displacement radius Gamma(2, b), b = r / eps1
    (its mean is ``2 b``, its mean square ``6 b^2``)."""
    b = start_noise_scale(params, geometry)
    return 2.0 * b * b


def noisy_start_points(windows: ClientWindows, params: DPGazeSynthParams,
                       rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """eps1 share, before post-processing: each window's first valid sample plus planar Laplace
    noise of scale ``r / eps1``. One draw per window, also for windows without valid rows, so the
    random stream does not depend on the missing-sample mask."""
    n = windows.n_windows
    dx, dy = planar_laplace(np.zeros(n), np.zeros(n), epsilon_per_unit=1.0, rng=rng)
    scale = windows.radius / params.epsilon_start
    return windows.start_x + dx * scale, windows.start_y + dy * scale


def release_start_cells(windows: ClientWindows, params: DPGazeSynthParams,
                        rng: np.random.Generator) -> np.ndarray:
    """eps1 share: the noisy start point clamped to the screen (the nearest on-screen point,
    post-processing) and discretised; -1 for a window without valid rows."""
    nx, ny = noisy_start_points(windows, params, rng)
    nx = np.clip(nx, windows.x0, windows.x1)
    ny = np.clip(ny, windows.y0, windows.y1)
    col, row = _cells(nx, ny, windows.x0, windows.y0, windows.cw, windows.ch,
                      params.grid_size)
    return np.where(windows.n_valid > 0, row * params.grid_size + col, -1)


# --- eps2: the fixation times (run lengths) -------------------------------------------------


def run_length_noise_scale(params: DPGazeSynthParams, w: int) -> float:
    """Laplace scale ``b = (2 w - 2) / eps2`` of the run-length noise of a window with ``w``
    valid samples (``W``, or fewer under ``missing="keep"`` and in a recording's last window).

    >>> run_length_noise_scale(DPGazeSynthParams(epsilon=1.0), 100)
    990.0
    """
    return (2.0 * w - 2.0) / params.epsilon_times


def run_length_noise_variance(params: DPGazeSynthParams, w: int) -> float:
    """Variance ``2 b^2`` of each run length's Laplace noise, ``b`` of
    :func:`run_length_noise_scale`."""
    b = run_length_noise_scale(params, w)
    return 2.0 * b * b


def run_length_series(windows: ClientWindows, params: DPGazeSynthParams
                      ) -> tuple[np.ndarray, np.ndarray]:
    """``(window, value)`` of the series that gets noised: the ``m`` run lengths of each window
    (paper mode) or those padded with zeros to ``W_v`` entries (sound mode)."""
    run_len, run_win = windows.run_length, windows.run_window
    if params.mode == "paper":
        return run_win, run_len.astype(np.float64)
    grp = np.repeat(np.arange(windows.n_windows), windows.n_valid)
    pad_start = np.concatenate([[0], np.cumsum(windows.n_valid)[:-1]])
    run_rank = np.arange(run_len.size) - np.searchsorted(run_win, run_win)
    vals = np.zeros(grp.size)
    vals[pad_start[run_win] + run_rank] = run_len
    return grp, vals


def noisy_run_lengths(windows: ClientWindows, params: DPGazeSynthParams,
                      rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """eps2 share, before post-processing: ``(window, true value, noisy value)`` of every
    entry of :func:`run_length_series`; Laplace noise of scale ``(2 W_v - 2) / eps2``."""
    grp, vals = run_length_series(windows, params)
    noise_scale = (2.0 * windows.n_valid[grp] - 2.0) / params.epsilon_times
    noisy = vals + laplace_noise(scale=1.0, size=vals.size, rng=rng) * noise_scale
    return grp, vals, noisy


def release_run_lengths(windows: ClientWindows, params: DPGazeSynthParams,
                        rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """eps2 share: ``(window, length)`` of the released runs: the noisy series clipped at 0,
    scaled to sum ``W_v``, rounded by largest remainder, zero runs dropped."""
    grp, _, noisy = noisy_run_lengths(windows, params, rng)
    lengths = _round_keep_sum(noisy, grp, windows.n_valid)
    keep = lengths > 0
    return grp[keep], lengths[keep]


# --- eps3: the transitions ------------------------------------------------------------------

#: OUE keeps the bit of the true value at 1 with this probability (Wang et al.)
TRANSITION_OUE_P = 0.5


def transition_oue_q(params: DPGazeSynthParams, w: int) -> float:
    """OUE ``q = 1 / (e^eps' + 1)`` of a transition report for windows of ``w`` samples, with
    ``eps' = eps3 / (w - 1)`` (``transitions="all"``) or ``eps3`` (one per window)."""
    return oue_q(epsilon=params.epsilon_per_report(w))


def transition_estimate_variance(params: DPGazeSynthParams, w: int, *, n: int,
                                 true_count: float = 0.0) -> float:
    """Variance of the curator's unbiased OUE estimate of one (cell, direction) count from
    ``n`` reports of windows of ``w`` samples: ``(c p (1 - p) + (n - c) q (1 - q)) / (p - q)^2``
    (``n 4 e^eps' / (e^eps' - 1)^2`` for ``c = 0``)."""
    return oue_variance(n=n, epsilon=params.epsilon_per_report(w), true_count=true_count)


def transition_values(windows: ClientWindows, params: DPGazeSynthParams,
                      rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """eps3 share, before OUE: ``(value, window)`` of every report. A move between runs is
    ``source cell x 8 + direction``; ``8 G^2`` is "no transition" (sound-mode padding to
    ``W_v - 1`` reports per window, or a window without moves under one-per-window, where
    ``rng`` picks the reported move)."""
    d = 8 * params.grid_size ** 2
    n_windows, n_valid, run_win = windows.n_windows, windows.n_valid, windows.run_window
    same = run_win[1:] == run_win[:-1]
    src = windows.run_cell[:-1][same]
    dcol = (windows.run_col[1:] - windows.run_col[:-1])[same]
    drow = (windows.run_row[1:] - windows.run_row[:-1])[same]
    direction = np.mod(np.rint(np.arctan2(drow, dcol) / (np.pi / 4)), 8).astype(np.int64)
    trans = src * 8 + direction
    trans_win = run_win[1:][same]
    if params.transitions == "one-per-window":
        # one report per window with >= 2 valid rows: a uniform transition or the dummy d
        n_trans = np.bincount(trans_win, minlength=n_windows)
        eligible = np.flatnonzero(n_valid >= 2)
        u = rng.random(eligible.size)
        pick = np.full(eligible.size, d, dtype=np.int64)
        cnt = n_trans[eligible]
        pos = np.searchsorted(trans_win, eligible) + np.floor(u * cnt).astype(np.int64)
        pick[cnt > 0] = trans[pos[cnt > 0]]
        return pick, eligible
    if params.mode == "paper":
        return trans, trans_win
    # sound: pad to W_v - 1 reports per window with the "no transition" symbol d
    n_dummy = np.clip(n_valid - 1, 0, None) - np.bincount(trans_win, minlength=n_windows)
    dummy_win = np.repeat(np.arange(n_windows), n_dummy)
    return (np.concatenate([trans, np.full(dummy_win.size, d, dtype=np.int64)]),
            np.concatenate([trans_win, dummy_win]))


def _by_budget(values: np.ndarray, value_win: np.ndarray, windows: ClientWindows,
               params: DPGazeSynthParams
               ) -> tuple[dict[float, np.ndarray], dict[float, np.ndarray]]:
    """Reports (and their windows) grouped by report budget, in report order. The window
    sizes are those of the recordings (a handful), so no sort over all reports is needed."""
    reports: dict[float, np.ndarray] = {}
    wins: dict[float, np.ndarray] = {}
    if value_win.size:
        ws = windows.rec_w
        w_rep = ws[windows.rec_of_win[value_win]]
        eps_of = {int(w): params.epsilon_per_report(int(w)) for w in np.unique(ws)}
        for e in sorted(set(eps_of.values())):
            sizes = [w for w, v in eps_of.items() if v == e]
            mask = w_rep == sizes[0] if len(sizes) == 1 else np.isin(w_rep, sizes)
            if mask.all():  # one budget for every report (the usual case): no copy
                reports[float(e)], wins[float(e)] = values, value_win
            elif mask.any():
                reports[float(e)] = values[mask]
                wins[float(e)] = value_win[mask]
    return reports, wins


def client_release(recordings: Recording | Sequence[Recording], params: DPGazeSynthParams,
                   rng: np.random.Generator) -> ClientReport:
    """Every client of a block of recordings: the three budget shares composed.

    ``rng`` is split into three streams (start points, run lengths, transitions) in that order.
    The OUE randomisation of the transition reports is :func:`perturb_reports`.

    >>> geo = Geometry(x_min_deg=0, x_max_deg=10, y_min_deg=0, y_max_deg=10)
    >>> rec = Recording.from_arrays(recording="r", participant="p", x=np.linspace(1, 9, 200),
    ...                             y=np.full(200, 5.0), sampling_rate_hz=200, geometry=geo)
    >>> rep = client_release(rec, DPGazeSynthParams(epsilon=2.0, grid_size=10),
    ...                      rng=np.random.default_rng(0))
    >>> rep.start_cell.shape, int(rep.run_length.sum()), rep.all_reports.size  # W = 100
    ((2,), 200, 198)
    """
    windows = client_windows(recordings, params)
    if params.unit == "participant":
        # m windows per participant (public shape); only they report, at epsilon / m each
        rng_select, rng = rng.spawn(2)
        recs = (recordings,) if isinstance(recordings, Recording) else tuple(recordings)
        windows = _subset_windows(windows, participant_windows(recs, params, rng_select))
    rng_start, rng_times, rng_trans = rng.spawn(3)
    start_cell = release_start_cells(windows, params, rng_start)
    run_window, run_length = release_run_lengths(windows, params, rng_times)
    values, value_win = transition_values(windows, params, rng_trans)
    reports, report_windows = _by_budget(values, value_win, windows, params)
    return ClientReport(valid_rows=windows.valid_rows, run_window=run_window,
                        run_length=run_length, start_cell=start_cell, window_x0=windows.x0,
                        window_y0=windows.y0, window_cw=windows.cw, window_ch=windows.ch,
                        reports=reports, report_windows=report_windows)


# --------------------------------------------------------------------------------------------
# curator side
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TransitionModel:
    """Estimated 8-neighbour transition probabilities, ``probs[cell, direction]``."""

    grid_size: int
    probs: np.ndarray
    n_reports: int

    @property
    def cumulative(self) -> np.ndarray:
        c = np.cumsum(self.probs, axis=1)
        return c / c[:, -1:]


def _valid_directions(g: int) -> np.ndarray:
    cells = np.arange(g * g)
    col, row = cells % g, cells // g
    nc = col[:, None] + _DCOL[None, :]
    nr = row[:, None] + _DROW[None, :]
    return (nc >= 0) & (nc < g) & (nr >= 0) & (nr < g)


def transition_model_from_estimates(estimates: np.ndarray, g: int, n_reports: int
                                    ) -> TransitionModel:
    """Post-process OUE estimates (length ``8 G^2``): clip, zero off-grid, normalise per cell."""
    valid = _valid_directions(g)
    est = np.clip(np.asarray(estimates, dtype=np.float64).reshape(g * g, 8), 0.0, None)
    est = np.where(valid, est, 0.0)
    tot = est.sum(axis=1, keepdims=True)
    uniform = valid / valid.sum(axis=1, keepdims=True)
    probs = np.where(tot > 0, est / np.where(tot > 0, tot, 1.0), uniform)
    return TransitionModel(grid_size=g, probs=probs, n_reports=n_reports)


def perturb_reports(clients: ClientReport, params: DPGazeSynthParams,
                    rng: np.random.Generator) -> dict[float, tuple[np.ndarray, int]]:
    """The clients' OUE randomisation of their transition reports (eps3 share), aggregated:
    per report budget the column sums of the ``n`` perturbed reports (length ``8 G^2 + 1``) and
    ``n``. ``oue_path="curator-view"`` samples the sums in O(d), exact in distribution;
    ``"client-reports"`` encodes every report. Column sums of disjoint groups of clients add up
    to those of the union, so partitions may each run this step and the curator sums the
    results (:func:`curate`)."""
    d = 8 * params.grid_size ** 2
    out: dict[float, tuple[np.ndarray, int]] = {}
    for eps in sorted(clients.reports):
        values = clients.reports[eps]
        if values.size == 0:
            out[eps] = (np.zeros(d + 1), 0)
        elif params.oue_path == "curator-view":
            counts = np.bincount(values, minlength=d + 1)
            out[eps] = (oue_curator_view(counts, epsilon=eps, rng=rng), int(values.size))
        else:
            rep = oue_encode(values, domain_size=d + 1, epsilon=eps, rng=rng)
            sums = np.bincount(rep.indices, minlength=d + 1).astype(np.float64)
            out[eps] = (sums, int(rep.n))
    return out


def curate(messages: Sequence[dict[float, tuple[np.ndarray, int]]],
           params: DPGazeSynthParams) -> TransitionModel:
    """Curator: add the column sums of all :func:`perturb_reports` messages per budget,
    estimate each count without bias and post-process into a :class:`TransitionModel`."""
    g = params.grid_size
    d = 8 * g * g
    sums: dict[float, np.ndarray] = {}
    counts: dict[float, int] = {}
    for msg in messages:
        for eps, (s, n) in msg.items():
            sums[eps] = sums.get(eps, 0.0) + np.asarray(s, dtype=np.float64)
            counts[eps] = counts.get(eps, 0) + int(n)
    est = np.zeros(d + 1)
    for eps in sorted(sums):
        if counts[eps]:
            est += oue_estimate(sums[eps], n=counts[eps], epsilon=eps)
    return transition_model_from_estimates(est[:d], g, sum(counts.values()))




def _blocks(recs: tuple[Recording, ...]) -> list[tuple[Recording, ...]]:
    """Consecutive recordings in blocks of about ``_BLOCK_SAMPLES`` samples (at least one
    recording each)."""
    out: list[tuple[Recording, ...]] = []
    start = total = 0
    for i, r in enumerate(recs):
        total += r.n_samples
        if total >= _BLOCK_SAMPLES:
            out.append(recs[start:i + 1])
            start, total = i + 1, 0
    if start < len(recs):
        out.append(recs[start:])
    return out


def _synthesise(n_rows: int, clients: ClientReport, model: TransitionModel,
                params: DPGazeSynthParams, rng: np.random.Generator
                ) -> tuple[np.ndarray, np.ndarray]:
    g = params.grid_size
    win, length = clients.run_window, clients.run_length
    m = win.size
    cells = np.empty(m, dtype=np.int64)
    rank = np.arange(m) - np.searchsorted(win, win)
    first = rank == 0
    cells[first] = clients.start_cell[win[first]]
    cum = model.cumulative
    u_all = rng.random(m)
    # Markov steps run in parallel over windows: loop over the run rank (<= W), not the runs.
    # (a stable sort of small integers is a radix sort in numpy: the same order, 3x faster)
    small = rank.astype(np.int16) if m and rank.max() < np.iinfo(np.int16).max else rank
    order = np.argsort(small, kind="stable")
    bounds = np.searchsorted(rank[order], np.arange(1, (rank.max() + 2) if m else 1))
    for k in range(1, bounds.size):
        idx = order[bounds[k - 1]:bounds[k]]
        prev = cells[idx - 1]
        direction = (u_all[idx, None] >= cum[prev]).sum(axis=1)
        cells[idx] = prev + _DROW[direction] * g + _DCOL[direction]
    col, row = cells % g, cells // g
    px = clients.window_x0[win] + (col + rng.random(m)) * clients.window_cw[win]
    py = clients.window_y0[win] + (row + rng.random(m)) * clients.window_ch[win]
    x = np.full(n_rows, np.nan)
    y = np.full(n_rows, np.nan)
    x[clients.valid_rows] = np.repeat(px, length)
    y[clients.valid_rows] = np.repeat(py, length)
    return x, y


def dpgazesynth(dataset: Dataset, params: DPGazeSynthParams, *, rng: np.random.Generator,
                progress: bool = False) -> Release[Dataset]:
    """Protect a dataset with DPGazeSynth (clients per recording, one curator for all).

    Parameters
    ----------
    dataset : Dataset
        Recordings with a geometry (or ``params.geometry``); any sampling rates.
    params : DPGazeSynthParams
    rng : numpy.random.Generator
        Split into independent streams for the client steps, the curator and the synthesis.
    progress : bool
        Accepted for the registry contract; the run is one vectorised pass.

    Returns
    -------
    Release[Dataset]
        Same recordings, order, row counts, timestamps and labels; synthetic ``x, y``. The record
        is per window, composed per participant over its windows. With ``output_length_s``
        (participant level) every recording has :func:`output_samples` rows on the public grid
        ``i / rate``, its labels, rate and geometry, and no other per-row column.

    Raises
    ------
    InvalidParameterError
        No geometry, or a window shorter than 2 samples.

    Examples
    --------
    >>> from gazeprivacy.data import Geometry, Recording, Dataset
    >>> geo = Geometry(x_min_deg=0, x_max_deg=10, y_min_deg=0, y_max_deg=10)
    >>> rec = Recording.from_arrays(recording="r", participant="p", x=np.linspace(1, 9, 400),
    ...                             y=np.full(400, 5.0), sampling_rate_hz=200, geometry=geo)
    >>> rel = dpgazesynth(Dataset((rec,)), DPGazeSynthParams(epsilon=2.0, grid_size=10),
    ...                   rng=np.random.default_rng(0))
    >>> rel.output[0].n_samples, rel.guarantee.per_participant["p"].epsilon
    (400, 8.0)
    """
    if len(dataset) == 0:
        raise InvalidDataError(f"dataset {dataset.name!r} has no recordings")
    for rate in {r.sampling_rate_hz for r in dataset}:
        output_samples(params, rate)  # a too short output length: refused before any work
    if params.mode == "paper":
        warnings.warn("DPGazeSynth paper mode releases the number of runs per window; see the "
                      "guarantee's flags", NotFormallyPrivateWarning, stacklevel=2)
    # Clients and synthesis run over blocks of consecutive recordings (about _BLOCK_SAMPLES
    # samples each) so the vectorised arrays stay cache-sized; the curator sums the blocks' OUE
    # column sums, which is exactly the aggregate over all clients (see perturb_reports).
    # unit="participant": one block, since each participant's m windows are drawn across all
    # of its recordings and every window is synthesised from the whole population's reports
    blocks = _blocks(dataset.recordings) if params.unit == "window" else [dataset.recordings]
    rng_clients, rng_curator, rng_synth = (r.spawn(len(blocks)) for r in rng.spawn(3))
    states = [client_release(b, params, g) for b, g in zip(blocks, rng_clients, strict=True)]
    model = curate([perturb_reports(c, params, g) for c, g in
                    zip(states, rng_curator, strict=True)], params)
    out = [r for b, c, g in zip(blocks, states, rng_synth, strict=True)
           for r in synthesise(b, c, model, params, g)]
    return Release(Dataset(tuple(out), name=dataset.name, info=dataset.info),
                   _record(dataset, params))


def synthesise(recordings: Sequence[Recording], clients: ClientReport, model: TransitionModel,
               params: DPGazeSynthParams, rng: np.random.Generator) -> list[Recording]:
    """Curator, Algorithm 1: the released recordings of one block (or partition) of clients
    from their report and the transition model (post-processing).

    ``unit="participant"``: ``clients`` is the report of *all* clients and every window of
    ``recordings`` is synthesised from the population (:func:`population_windows`), not from
    a report of its own."""
    recs = tuple(recordings)
    if params.unit == "participant":
        recs = tuple(_at_output_length(r, params) for r in recs)
    sizes = [r.n_samples for r in recs]
    if params.unit == "participant":
        rng_draw, rng = rng.spawn(2)
        clients = population_windows(recs, clients, params, rng_draw)
    x, y = _synthesise(sum(sizes), clients, model, params, rng)
    cuts = np.cumsum(sizes)[:-1]
    xs, ys = np.split(x, cuts), np.split(y, cuts)
    with adopt(*xs, *ys):  # views of arrays made here: the recordings take them uncopied
        return [r.with_gaze(u, v) for r, u, v in zip(recs, xs, ys, strict=True)]


def output_samples(params: DPGazeSynthParams, sampling_rate_hz: float) -> int | None:
    """Rows of every released recording at this rate, ``round(output_length_s * rate)``; None
    when ``output_length_s`` is None (each recording keeps its input's row count).

    >>> output_samples(DPGazeSynthParams(epsilon=1.0, unit="participant",
    ...     windows_per_participant=2, missing="fill", output_length_s=1.5), 60.0)
    90
    """
    if params.output_length_s is None:
        return None
    n = round(params.output_length_s * sampling_rate_hz)
    if n < 1:
        raise InvalidParameterError(
            f"output_length_s={params.output_length_s:g} s at {sampling_rate_hz:g} Hz gives "
            f"{n} rows per recording; use at least {1 / sampling_rate_hz:g} s")
    return n


def _at_output_length(r: Recording, params: DPGazeSynthParams) -> Recording:
    """The skeleton of ``r``'s released recording: ``r`` itself, or with ``output_length_s`` a
    new recording of :func:`output_samples` rows with ``r``'s ids, labels, rate and geometry,
    the public grid ``i / rate`` and no gaze yet (synthesis fills every row). Reads no row of
    ``r``; its other per-row columns (pupil, channels, extras) are of the input's length and
    are not carried."""
    n = output_samples(params, r.sampling_rate_hz)
    if n is None:
        return r
    t = np.arange(n) / r.sampling_rate_hz
    blank = np.zeros(n)
    with adopt(t, blank):
        return Recording(recording=r.recording, participant=r.participant, t=t, x=blank,
                         y=blank, sampling_rate_hz=r.sampling_rate_hz, labels=r.labels,
                         geometry=r.geometry)




def _public_windows(recs: tuple[Recording, ...], params: DPGazeSynthParams
                    ) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """The released windows' public skeleton: rows that get gaze (all rows under ``fill``;
    the non-NaN rows under ``keep``, whose mask is public), rows per window, and per window
    the screen bounds and cell size of its recording."""
    g = params.grid_size
    ws = [window_samples(params, r.sampling_rate_hz) for r in recs]
    n_win = [-(-r.n_samples // w) for r, w in zip(recs, ws, strict=True)]
    valid, n_valid = [], []
    offset = 0
    for r, w, k in zip(recs, ws, n_win, strict=True):
        ok = np.ones(r.n_samples, bool) if params.missing == "fill" else ~np.isnan(r.x)
        valid.append(offset + np.flatnonzero(ok))
        n_valid.append(np.bincount(np.flatnonzero(ok) // w, minlength=k))
        offset += r.n_samples
    geos = [_geometry(r, params) for r in recs]
    x0 = np.repeat([q.x_min_deg for q in geos], n_win)
    y0 = np.repeat([q.y_min_deg for q in geos], n_win)
    cw = np.repeat([(q.x_max_deg - q.x_min_deg) / g for q in geos], n_win)
    ch = np.repeat([(q.y_max_deg - q.y_min_deg) / g for q in geos], n_win)
    return (np.concatenate(valid), np.concatenate(n_valid),
            {"window_x0": x0, "window_y0": y0, "window_cw": cw, "window_ch": ch})


def population_windows(recordings: Sequence[Recording], clients: ClientReport,
                       params: DPGazeSynthParams, rng: np.random.Generator) -> ClientReport:
    """Curator, ``unit="participant"``: every window of ``recordings`` (that has rows to fill)
    takes the noisy start cell and the noisy run lengths of a reporting window drawn uniformly
    from all of ``clients``' windows (any participant), the lengths rescaled to the window's
    rows by largest remainder. Post-processing of the reports and of public shape (row counts,
    geometry, the public mask under ``missing="keep"``). Returns the report-shaped input of the
    synthesis (moves from the transition model)."""
    recs = tuple(recordings)
    valid_rows, n_valid, bounds = _public_windows(recs, params)
    pool = np.flatnonzero(clients.start_cell >= 0)
    if pool.size == 0:
        raise InvalidDataError("no reporting window has a valid sample: nothing to synthesise "
                               "from (unit='participant')")
    out_win = np.flatnonzero(n_valid > 0)
    pick = pool[rng.integers(pool.size, size=out_win.size)]
    first = np.searchsorted(clients.run_window, pick)
    count = np.searchsorted(clients.run_window, pick, side="right") - first
    group = np.repeat(np.arange(out_win.size), count)
    rank = np.arange(group.size) - np.repeat(np.cumsum(count) - count, count)
    values = clients.run_length[np.repeat(first, count) + rank].astype(np.float64)
    lengths = _round_keep_sum(values, group, n_valid[out_win])
    keep = lengths > 0
    start = np.full(n_valid.size, -1, dtype=np.int64)
    start[out_win] = clients.start_cell[pick]
    return ClientReport(valid_rows=valid_rows, run_window=out_win[group[keep]],
                        run_length=lengths[keep], start_cell=start, reports={}, **bounds)


def _record(dataset: Dataset, params: DPGazeSynthParams) -> Guarantee:
    """The guarantee of releasing ``dataset``: its public shape's privacy map."""
    return shape_guarantee(params, sample_shape(dataset))


def dpgazesynth_recording(recording: Recording, params: DPGazeSynthParams, *,
                          rng: np.random.Generator) -> Release[Recording]:
    """DPGazeSynth on one recording whose own reports are the curator's whole input."""
    rel = dpgazesynth(Dataset((recording,), name=recording.recording), params, rng=rng)
    return Release(rel.output[0], rel.guarantee)


def _with_note(g: Guarantee, note: str) -> Guarantee:
    return replace(g, notes=(*g.notes, note))


# --------------------------------------------------------------------------------------------
# contract: privacy map of a public shape, client report, partition phases, registry entry
# --------------------------------------------------------------------------------------------


def shape_guarantee(params: DPGazeSynthParams, shape: SampleShape) -> Guarantee:
    """The record of releasing a dataset of this public shape (per window, composed per
    participant over ``ceil(n / W)`` windows per recording); never reads gaze values."""
    recs = shape.recordings
    if not recs:
        raise InvalidDataError("the dataset has no recordings")
    record = guarantee(params, sampling_rate_hz=recs[0].sampling_rate_hz,
                       geometry=_geometry(recs[0], params))
    if len({(r.sampling_rate_hz, _geometry(r, params)) for r in recs}) > 1:
        record = _with_note(record, "recordings differ in sampling rate or geometry; window "
                                    "samples and radius in 'parameters' are those of the first "
                                    "recording")
    for rate in {r.sampling_rate_hz for r in recs}:
        output_samples(params, rate)  # refuses a too short output length
    windows = shape.units_per_participant(
        lambda r: -(-r.n_samples // window_samples(params, r.sampling_rate_hz)))
    if params.unit == "window":
        return record.compose(windows)
    m = _check_windows_available(windows, params)
    rule = (f"basic sequential composition over m = {m} windows drawn at random, "
            f"{record.parameters['epsilon_per_window']:.6g} each")
    return replace(record, per_participant={str(p): Budget(record.epsilon, None, m, rule)
                                            for p in windows})


def _check_windows_available(windows: dict[str, int], params: DPGazeSynthParams) -> int:
    """``m``, after checking that every participant has at least ``m`` windows (public shape);
    the policy is to refuse rather than to report fewer windows silently."""
    m = int(params.windows_per_participant)
    short = {p: n for p, n in windows.items() if n < m}
    if short:
        few = ", ".join(f"{p!r}: {n}" for p, n in sorted(short.items())[:5])
        raise InvalidDataError(
            f"windows_per_participant={m} exceeds the windows some participants have "
            f"({len(short)} of {len(windows)}; windows = ceil(rows / W) over all their "
            f"recordings: {few}); choose m <= {min(windows.values())} or leave them out")
    return m


def participant_windows(recordings: Sequence[Recording], params: DPGazeSynthParams,
                        rng: np.random.Generator) -> np.ndarray:
    """``unit="participant"``: the global indices (recordings in order, ``ceil(rows / W)``
    windows each, as in :func:`client_windows`) of the ``m`` windows each participant reports,
    drawn uniformly without replacement from all windows of all its recordings. Reads the public
    shape only (participant ids, row counts, rates): the draw does not depend on gaze.

    Raises
    ------
    InvalidDataError
        A participant with fewer than ``m`` windows.
    """
    recs = tuple(recordings)
    n_win = np.array([-(-r.n_samples // window_samples(params, r.sampling_rate_hz))
                      for r in recs], dtype=np.int64)
    owner = np.repeat(np.array([r.participant for r in recs], dtype=object), n_win)
    by_part: dict[str, int] = {}
    for r, n in zip(recs, n_win.tolist(), strict=True):
        by_part[r.participant] = by_part.get(r.participant, 0) + n
    m = _check_windows_available(by_part, params)
    picks = [rng.choice(np.flatnonzero(owner == p), size=m, replace=False)
             for p in sorted(by_part)]
    return np.sort(np.concatenate(picks)) if picks else np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class DPGazeSynthPhases:
    """DPGazeSynth as a two-phase job (a :class:`~gazeprivacy.mechanisms.contract.
    PartitionPlan`).

    client: the client step on the partition (start points, run lengths, transition values;
    all noised on the client) and its OUE reports summed per budget -> state (the clients'
    release), message ``{eps: (column sums, n)}``. curate: the transition model from all
    messages. release: synthesis per partition with the model. Sums of per-partition OUE column
    sums are distributed exactly as the column sums of one aggregate over the union.
    """

    params: DPGazeSynthParams
    mechanism: str = "dpgazesynth"
    two_phase: bool = True

    def __post_init__(self) -> None:
        if self.params.unit == "participant":
            raise InvalidParameterError(f"dpgazesynth with unit='participant' cannot run "
                                        f"partition-wise: {PARTICIPANT_REFUSAL}")

    def client(self, part: Dataset, rng: np.random.Generator) -> tuple[Any, Any]:
        check_partition(part)
        rng_clients, rng_perturb = rng.spawn(2)
        state = client_release(part.recordings, self.params, rng_clients)
        return state, perturb_reports(state, self.params, rng_perturb)

    def merge(self, messages: list[Any] | tuple[Any, ...]) -> Any:
        """Several messages as one (column sums and counts added per budget): ``curate`` of
        the merged message equals ``curate`` of the parts exactly (integer-valued sums), so
        engines may reduce messages as they arrive, in any grouping."""
        out: dict[float, tuple[np.ndarray, int]] = {}
        for msg in messages:
            for eps, (col, n) in msg.items():
                if eps in out:
                    out[eps] = (out[eps][0] + col, out[eps][1] + int(n))
                else:
                    out[eps] = (np.array(col, dtype=np.float64), int(n))
        return out

    def curate(self, messages: Any, rng: np.random.Generator) -> Any:
        return curate(list(messages), self.params)

    def release(self, part: Dataset, state: Any, model: Any,
                rng: np.random.Generator) -> Release[Dataset]:
        check_partition(part)
        p = self.params
        if p.mode is Mode.PAPER:
            warnings.warn("DPGazeSynth paper mode releases the number of runs per window; see "
                          "the guarantee's flags", NotFormallyPrivateWarning, stacklevel=2)
        if state.valid_rows.size and int(state.valid_rows[-1]) >= part.n_samples:
            raise InvalidDataError("client state does not belong to this partition (its rows "
                                   "exceed the partition's); recompute the client phase")
        out = synthesise(part.recordings, state, model, p, rng)
        record = _with_note(_record(part, p), "run partition-wise: clients perturbed per "
                            "partition, the curator summed the OUE column sums of all "
                            "partitions")
        return Release(Dataset(tuple(out), name=part.name, info=part.info), record)


def plan(params: DPGazeSynthParams) -> DPGazeSynthPhases:
    """The partition phases of DPGazeSynth with ``params``.

    Raises
    ------
    InvalidParameterError
        ``unit="participant"``, which has no partition plan (see :data:`PARTICIPANT_REFUSAL`).
    """
    return DPGazeSynthPhases(params=params)  # refuses unit='participant'



#: Why ``unit="participant"`` has no partition plan.
PARTICIPANT_REFUSAL = (
    "each participant's m windows are drawn across all of its recordings, and a partition's "
    "clients cannot know whether the participant also has recordings in another partition "
    "(drawing m per partition would spend m x epsilon / m per partition, over the budget; "
    "finding out at the curator is too late, the reports are sent); and every released window "
    "is drawn from the reports of all partitions. Way out: protect it in memory, or run "
    "unit='window' partition-wise")

#: Why ``output_length_s`` is refused with ``unit="window"``.
OUTPUT_LENGTH_REFUSAL = (
    "a public output length applies to unit='participant' only. With unit='window' every "
    "released window is synthesised from that window's own report, so the release is the "
    "participant's own windows, and the record composes epsilon over them (its per-participant "
    "budgets count each participant's windows, i.e. its recording lengths): a different output "
    "length would hide neither. Use unit='participant' (--per-participant-epsilon E "
    "--windows-per-participant M --param missing=fill)")



def _example(mode: Mode) -> tuple[Dataset, DPGazeSynthParams] | None:
    from gazeprivacy.mechanisms.base import example_dataset

    if mode is Mode.BASELINE:
        return None
    return example_dataset(), DPGazeSynthParams(epsilon=2.0, grid_size=10, mode=mode)


SPEC = Mechanism(
    name="dpgazesynth", level=Level.SAMPLES, params_type=DPGazeSynthParams, run=dpgazesynth,
    guarantee=shape_guarantee, plan=plan, example=_example,
    summary="local-DP semi-synthetic gaze paths: noisy start cells, run lengths and an OUE "
            "transition model per 0.5 s window (epsilon-LDP per window)",
    citation="Ren, Fan et al., DPGazeSynth, section 4",
)
