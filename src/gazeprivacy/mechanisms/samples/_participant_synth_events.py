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

from dataclasses import replace

import numpy as np
import polars as pl

from gazeprivacy.data.recording import Dataset, Recording

__all__ = ["event_sample_count", "event_window", "measured_events"]


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
