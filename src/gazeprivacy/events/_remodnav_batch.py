# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""REMoDNaV's fixation-or-pursuit step for every stretch between saccades of a segment at once.

``EyegazeClassifier._fix_or_pursuit`` low-pass filters each stretch between two saccades (a
Butterworth filter forward and backward, :func:`gazeprivacy.events.remodnav._sosfiltfilt`),
takes its speeds and calls the stretch pursuit where they exceed the pursuit threshold long
enough, fixation elsewhere. Its events are leaves of REMoDNaV's recursion: nothing else reads
them. So the lean classifier (:func:`~gazeprivacy.events._remodnav_fast.lean_classifier_type`)
only notes each stretch (:func:`deferred_fix_or_pursuit`), and
:func:`~gazeprivacy.events.remodnav.remodnav_codes` computes them all afterwards
(:func:`fix_or_pursuit_all`): every stretch's odd extension as one row of a matrix (zeros
after it), SciPy's second-order-sections loop over all rows forward, each row's filtered part
reversed, the loop again (a row's filtered samples depend on its own earlier samples only, so
the zeros after it change nothing: the same bits as one stretch at a time), the speeds of all
rows, and the run search only for the stretches with a speed above the threshold (about one in
ten: the others are one fixation each). A stretch was one call of about 20 NumPy operations on
some 20 samples: a third of REMoDNaV's time on the protect benchmark. With the compiled module
(:mod:`gazeprivacy.events._remodnav_compiled`) each stretch is filtered on its own there, with
SciPy's loop written out (the same bits; a third of the batch's time).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gazeprivacy.events import _remodnav_compiled as compiled
from gazeprivacy.events._remodnav_fast import pursuit_runs
from gazeprivacy.events.remodnav import _butter_sos, _sosfilt_kernel

__all__ = ["deferred_fix_or_pursuit", "fix_or_pursuit_all"]


def deferred_fix_or_pursuit(self: Any, data: Any, start: int, end: int) -> tuple[()]:
    """The lean classifier's ``_fix_or_pursuit``: notes the stretch in ``self.deferred`` (when
    it is long enough for a fixation, as REMoDNaV's test) and gives no event now."""
    if end - start >= self.min_fix_dur:
        self.deferred.append((start, end))
    return ()


def _extended(x: np.ndarray, s: np.ndarray, m: np.ndarray, pad: np.ndarray,
              cols: np.ndarray) -> np.ndarray:
    """Per stretch ``x[s:s + m]`` (``m >= 2``) its odd extension by ``pad`` samples on each
    side (``_sosfiltfilt``'s ``2 x[0] - x[pad:0:-1]``, ``x``, ``2 x[-1] - x[-2:-pad - 2:-1]``),
    one row each, zeros after it."""
    j = cols[None, :]
    s, m, pad = s[:, None], m[:, None], pad[:, None]
    head, body = j < pad, (j >= pad) & (j < pad + m)
    src = np.where(head, s + pad - j, np.where(body, s + j - pad, s + m - 2 - (j - pad - m)))
    valid = j < m + 2 * pad
    v = x[np.where(valid, src, s)]
    edge = np.where(head, 2 * x[s], 2 * x[s + m - 1])
    return np.where(valid, np.where(body, v, edge - v), 0.0)


def _speeds(clf: Any, data: Any, s: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The low-passed speeds of the stretches ``data[s:s + m]`` (``m >= 2``), one row each
    (``m - 1`` speeds, then values past them that mean nothing)."""
    sos, zi = _butter_sos(5, float(clf.lp_cutoff_freq / (0.5 * clf.sr)), "low", False)
    pad = np.minimum(3 * (2 * sos.shape[0] + 1), m - 1)
    length = m + 2 * pad
    cols = np.arange(int(length.max()))
    y = np.ascontiguousarray(np.concatenate([
        _extended(np.asarray(data[k], dtype=np.float64), s, m, pad, cols) for k in ("x", "y")]))
    rows = np.concatenate([length, length])[:, None]
    kernel = _sosfilt_kernel()
    kernel(sos, y, np.ascontiguousarray(zi[None] * y[:, :1, None]))
    y = np.where(cols[None, :] < rows,
                 np.take_along_axis(y, np.maximum(rows - 1 - cols[None, :], 0), axis=1), 0.0)
    kernel(sos, y, np.ascontiguousarray(zi[None] * y[:, :1, None]))
    pads = np.concatenate([pad, pad])[:, None]
    i = cols[None, :int(m.max())]
    d = np.diff(np.take_along_axis(y, np.maximum(rows - 1 - pads - i, 0), axis=1), axis=1)
    n = s.size
    vels = (d[:n] ** 2 + d[n:] ** 2) ** 0.5  # REMoDNaV's _get_velocities, step by step
    vels *= clf.px2deg * clf.sr
    return vels


def _compiled_speeds(kernel: Any, clf: Any, data: Any, s: np.ndarray, m: np.ndarray
                     ) -> dict[int, np.ndarray]:
    """:func:`_speeds` of every stretch ``data[s:s + m]`` of at least two samples, one at a
    time in the compiled module (the same loop as SciPy's, so the same bits), only for the
    stretches with a speed above the pursuit threshold (by index)."""
    sos, zi = _butter_sos(5, float(clf.lp_cutoff_freq / (0.5 * clf.sr)), "low", False)
    idx = np.flatnonzero(m >= 2)
    ms = m[idx]
    at = np.concatenate(([0], np.cumsum(ms - 1)))
    out = np.empty(int(at[-1]))
    xy = [np.ascontiguousarray(data[k], dtype=np.float64) for k in ("x", "y")]
    above = kernel.lowpass_speeds(
        *xy, s[idx].astype(np.float64), ms.astype(np.float64), np.ascontiguousarray(sos),
        np.ascontiguousarray(zi), float(clf.px2deg * clf.sr), float(clf.pursuit_velthresh), out)
    return {int(idx[w]): out[at[w]:at[w + 1]] for w in above}


def _grouped_speeds(clf: Any, data: Any, s: np.ndarray, m: np.ndarray
                    ) -> dict[int, np.ndarray]:
    """:func:`_speeds` of every stretch ``data[s:s + m]`` of at least two samples, in groups of
    similar length (sorted; a group's longest at most twice its shortest plus 64 samples, so
    that the zeros after the short ones stay few), only for the stretches with a speed above
    the pursuit threshold (by index)."""
    speeds: dict[int, np.ndarray] = {}
    order = np.argsort(m, kind="stable")
    order = order[m[order] >= 2]  # (a stretch of one sample has no speed: one fixation)
    lo = 0
    while lo < order.size:
        cap = 2 * int(m[order[lo]]) + 64
        hi = int(np.searchsorted(m[order], cap, side="right"))
        g = order[lo:hi]
        vels = _speeds(clf, data, s[g], m[g])
        ok = np.arange(vels.shape[1])[None, :] < (m[g] - 1)[:, None]
        for r in np.flatnonzero(((vels > clf.pursuit_velthresh) & ok).any(axis=1)).tolist():
            speeds[int(g[r])] = vels[r, :int(m[g[r]]) - 1].copy()
        lo = hi
    return speeds


def fix_or_pursuit_all(clf: Any, data: Any, windows: list[tuple[int, int]]
                       ) -> list[tuple[str, int, int]]:
    """``_fix_or_pursuit``'s events (label, first sample, end) of every stretch of
    ``windows`` (the stretches :func:`deferred_fix_or_pursuit` noted, disjoint), in order:
    the low-passed speeds of all stretches (compiled when built, else in groups of rows), the
    pursuit search only where one exceeds the threshold."""
    if not windows:
        return []
    s = np.array([w[0] for w in windows], dtype=np.int64)
    m = np.array([w[1] - w[0] for w in windows], dtype=np.int64)
    kernel = compiled.KERNEL
    speeds = (_compiled_speeds(kernel, clf, data, s, m) if kernel is not None
              else _grouped_speeds(clf, data, s, m))
    out: list[tuple[str, int, int]] = []
    for w, (a, b) in enumerate(windows):
        if w not in speeds:
            out.append(("FIXA", a, b))
            continue
        for ev in pursuit_runs(clf, speeds[w], b - a):
            out.append(("PURS" if ev[0] else "FIXA", a + ev[1], a + ev[-1]))
    return out
