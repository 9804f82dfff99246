# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth's grid and the client's data: cells, windows and runs of a block of recordings.

The discretisation (:func:`client_windows`, deterministic, no budget), what the clients send
(:class:`ClientReport`) and the sum-keeping rounding that the run lengths share with the
participant level.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Recording
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.mechanisms.samples.dpgazesynth.params import DPGazeSynthParams, window_samples

__all__ = [
    "ClientReport",
    "ClientWindows",
    "client_windows",
]


#: Direction k of the 8-neighbourhood: (dcol, drow) = (round(cos(k 45 deg)), round(sin(k 45 deg))).
_DCOL = np.array([1, 1, 0, -1, -1, -1, 0, 1])
_DROW = np.array([0, 1, 1, 1, 0, -1, -1, -1])


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
