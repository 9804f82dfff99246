# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth's client (the device): one function per budget share, composed by
:func:`client_release`.

Each share comes with its analytic noise scale and variance (the auditor checks them).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Recording
from gazeprivacy.mechanisms.noise.laplace import laplace_noise
from gazeprivacy.mechanisms.noise.oue import oue_q, oue_variance
from gazeprivacy.mechanisms.noise.planar_laplace import planar_laplace
from gazeprivacy.mechanisms.samples.dpgazesynth import kernel
from gazeprivacy.mechanisms.samples.dpgazesynth.grid import (
    ClientReport,
    ClientWindows,
    _cells,
    _round_keep_sum,
    _subset_windows,
    client_windows,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.params import DPGazeSynthParams
from gazeprivacy.mechanisms.samples.dpgazesynth.participant import participant_windows

__all__ = [
    "TRANSITION_OUE_P",
    "client_release",
    "noise_windows",
    "noisy_run_lengths",
    "noisy_start_points",
    "release_run_lengths",
    "release_start_cells",
    "run_length_noise_scale",
    "run_length_noise_variance",
    "run_length_series",
    "start_noise_scale",
    "start_radius_variance",
    "transition_estimate_variance",
    "transition_oue_q",
    "transition_values",
]


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
    noise_scale = _window_noise_scale(windows, params)[grp]
    noisy = vals + laplace_noise(scale=1.0, size=vals.size, rng=rng) * noise_scale
    return grp, vals, noisy


def _window_noise_scale(windows: ClientWindows, params: DPGazeSynthParams) -> np.ndarray:
    """Per window, the Laplace scale ``(2 W_v - 2) / eps2`` of its run-length noise."""
    return (2.0 * windows.n_valid - 2.0) / params.epsilon_times


def release_run_lengths(windows: ClientWindows, params: DPGazeSynthParams,
                        rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """eps2 share: ``(window, length)`` of the released runs: the noisy series clipped at 0,
    scaled to sum ``W_v``, rounded by largest remainder, zero runs dropped.

    With the compiled kernel (:mod:`.kernel`) the same Laplace draws, and the series, its
    noise and the rounding in one pass per window (the same result bit for bit)."""
    kern = kernel.KERNEL
    if kern is None:
        grp, _, noisy = noisy_run_lengths(windows, params, rng)
        lengths = _round_keep_sum(noisy, grp, windows.n_valid)
        keep = lengths > 0
        return grp[keep], lengths[keep]
    sound = params.mode != "paper"
    size = int(windows.n_valid.sum()) if sound else windows.run_length.size
    noise = laplace_noise(scale=1.0, size=size, rng=rng)
    out_win, out_len = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
    i64 = lambda a: np.ascontiguousarray(a, dtype=np.int64)  # noqa: E731
    k = kern.runs(i64(windows.run_window), i64(windows.run_length), i64(windows.n_valid), noise,
                  _window_noise_scale(windows, params), sound, out_win, out_len)
    return out_win[:k], out_len[:k]


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
    return noise_windows(windows, params, rng.spawn(3))


def noise_windows(windows: ClientWindows, params: DPGazeSynthParams,
                  rngs: Sequence[np.random.Generator]) -> ClientReport:
    """The three budget shares on the drawn windows (start points, run lengths, transitions,
    with the generators in that order), as :func:`client_release` runs them after its draw
    (the participant-level plans call it on their drawn windows)."""
    start, times, trans = rngs
    start_cell = release_start_cells(windows, params, start)
    run_window, run_length = release_run_lengths(windows, params, times)
    values, value_win = transition_values(windows, params, trans)
    reports, report_windows = _by_budget(values, value_win, windows, params)
    return ClientReport(valid_rows=windows.valid_rows, run_window=run_window,
                        run_length=run_length, start_cell=start_cell, window_x0=windows.x0,
                        window_y0=windows.y0, window_cw=windows.cw, window_ch=windows.ch,
                        reports=reports, report_windows=report_windows)


