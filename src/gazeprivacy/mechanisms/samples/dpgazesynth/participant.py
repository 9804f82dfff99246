# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth at the participant level (``unit="participant"``, beyond the paper).

The draw of ``m`` windows per participant (:func:`participant_windows`, public shape only), the
population windows every released window is synthesised from (:func:`population_windows`) and
the skeleton of a recording at the public output length.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gazeprivacy.data.recording import Recording, adopt
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.mechanisms.samples.dpgazesynth.grid import ClientReport, _geometry, _round_keep_sum
from gazeprivacy.mechanisms.samples.dpgazesynth.params import (
    DPGazeSynthParams,
    output_samples,
    window_samples,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.privacy_map import _check_windows_available

__all__ = [
    "participant_windows",
    "population_windows",
]


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
