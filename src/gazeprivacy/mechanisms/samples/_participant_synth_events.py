# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's event measurement window: events from the first T seconds of each recording.

participant-synth uses a participant's events only as normalised histograms (fixation
durations, saccade amplitudes and directions, fixation cells and transitions, the event rate
per recording): each participant weighs 1 per marginal whatever the length of their
recordings. Measuring them on the first ``event_seconds_per_recording`` seconds of every
recording (its samples with ``t < t[0] + T``, as the frontier's ``first_seconds``; a rule fixed
by the parameters, not chosen from the data) is a fixed function of each recording applied
inside its participant's bounded statistic, so each participant's contribution keeps its L1
norm <= 1 per marginal and the guarantee is unchanged
(``docs/privacy/participant-synth.md#event-window``). It cuts the event detector's time
(REMoDNaV is most of participant-synth's time) on long recordings; the spatial density and the
moments keep every sample.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import polars as pl

from gazeprivacy.data.recording import Dataset, Recording

__all__ = ["event_sample_count", "event_window", "measured_events", "saccade_shifts"]


def event_sample_count(recording: Recording, seconds: float | None) -> int:
    """How many leading samples of ``recording`` its events are measured on: all (``seconds``
    None) or those less than ``seconds`` after its first (at least one).

    >>> r = Recording.from_arrays(recording="r", participant="p", x=[0.0] * 500,
    ...                           y=[0.0] * 500, sampling_rate_hz=100)
    >>> event_sample_count(r, 2.0), event_sample_count(r, 60.0), event_sample_count(r, None)
    (200, 500, 500)
    """
    if seconds is None:
        return recording.n_samples
    t = recording.t
    return max(1, int(np.searchsorted(t, t[0] + float(seconds), side="left")))


def event_window(recording: Recording, seconds: float | None) -> Recording:
    """``recording``'s first :func:`event_sample_count` samples (itself when that is all of
    them): gaze, timestamps, rate and geometry; no pupil, channels or extras (detectors read
    gaze only)."""
    n = event_sample_count(recording, seconds)
    if n == recording.n_samples:
        return recording
    return replace(recording, t=recording.t[:n], x=recording.x[:n], y=recording.y[:n],
                   pupil=None, channels={}, extras={})


def measured_events(part: Dataset, detector: str, seconds: float | None) -> pl.DataFrame:
    """The events of every recording of ``part`` within its event window (recording ids and
    onsets as in the recording itself)."""
    from gazeprivacy.events.detection import detect_events_dataset

    windows = Dataset(tuple(event_window(r, seconds) for r in part), name=part.name)
    # per recording (no dataset-wide check): a recording's events do not depend on its partition
    return detect_events_dataset(windows, method=detector, max_saccade_share=None)


def saccade_shifts(recs: Sequence[Recording], events: pl.DataFrame,
                   seconds: float | None) -> tuple[np.ndarray, np.ndarray]:
    """Each saccade's gaze shift ``(dx, dy)`` (deg): from the sample just before its onset to
    the sample just after its offset (the saccade's own first / last sample where that
    neighbour is missing or outside the recording's event window), saccades in the order of
    ``events`` filtered to ``recs``' recordings.

    What the renderer needs is the shift from one fixation to the next. A detector's saccade
    runs from its first to its last *moving* sample, and at low rates that is often a single
    sample: at 30 Hz REMoDNaV's start-to-end amplitude is 0 for over a quarter of
    GazeGraph's saccades, and its median 0.65 deg against the adaptive detector's 7.7 deg.
    The samples either side are the last of the fixation before and the first of the one
    after, so their distance is the shift at any rate (GazeGraph: median 6.5 deg, no zeros);
    at 200 Hz+ they add 5 ms or less of fixation at each end, the start-to-end distance in
    spirit. The distance between the two intervals' centroids (:func:`fixation_intervals`)
    would be near it (median 6.2 deg) but drifts with any pursuit inside them.

    >>> r = Recording.from_arrays(recording="r", participant="p",
    ...                           x=[0.0, 0.0, 4.0, 8.0, 8.0], y=[0.0] * 5, sampling_rate_hz=30)
    >>> ev = pl.DataFrame({"recording": ["r"], "name": ["saccade"], "onset": [2],
    ...                    "offset": [3]})
    >>> saccade_shifts([r], ev, None)
    (array([8.]), array([0.]))
    """
    sac = events.filter(pl.col("name") == "saccade")
    dx, dy = [], []
    for r in recs:
        own = sac.filter(pl.col("recording") == r.recording)
        if own.height == 0:
            continue
        n = event_sample_count(r, seconds)
        x, y = r.x[:n], r.y[:n]
        ok = np.isfinite(x) & np.isfinite(y)
        on, off = own["onset"].to_numpy(), own["offset"].to_numpy()
        before = np.maximum(on - 1, 0)
        a = np.where((on > 0) & ok[before], before, on)
        after = np.minimum(off, n - 1)
        b = np.where((off < n) & ok[after], after, off - 1)
        dx.append(x[b] - x[a])
        dy.append(y[b] - y[a])
    if not dx:
        return np.zeros(0), np.zeros(0)
    return np.concatenate(dx), np.concatenate(dy)
