# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Plausibility of detected events, and the gate of the event mechanisms.

:func:`detect_events_checked` detects events (without warnings) and returns them with an
:class:`EventPlausibility`: the share of valid samples labelled saccade over the dataset and
the number of recordings the detector's own checks flag (the adaptive and REMoDNaV threshold
and noise checks of :func:`~gazeprivacy.events.detect_events`, or a recording's own saccade
share above :data:`~gazeprivacy.events.MAX_SACCADE_SHARE`).

Events are **plausible** when the saccade share lies in 2-25 % (human coders label 5-10 %; a
human-coded 500 Hz hold-out has 7.4-7.7 %) and at most half of the recordings are flagged.
:func:`require_plausible` is the event mechanisms' gate (k-same-synth, event-synth-PD): they
synthesise a release from the detected events, so wrong events give a release that looks
like any other but has the wrong structure. It raises
:class:`~gazeprivacy.exceptions.ReleaseRefusedError` (an ``InvalidDataError``) naming
``--accept-implausible-events``, or, when the caller accepts, warns with
:class:`ImplausibleEventsWarning` and lets the release go on.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy.data.recording import Dataset
from gazeprivacy.events.detection import (
    DEFAULT_METHOD,
    MAX_SACCADE_SHARE,
    _detect_with_flags,
    _resolve,
)
from gazeprivacy.exceptions import ImplausibleEventsWarning, ReleaseRefusedError

__all__ = ["PLAUSIBLE_SACCADE_SHARE", "EventPlausibility", "detect_events_checked",
           "require_plausible"]

#: Saccade share (of valid samples) that the gate accepts.
PLAUSIBLE_SACCADE_SHARE = (0.02, 0.25)
_MAX_FLAGGED_SHARE = 0.5  # "most recordings"


@dataclass(frozen=True)
class EventPlausibility:
    """What the plausibility checks found on one detection.

    Attributes
    ----------
    method : str
        The detector.
    saccade_share : float
        Share of the dataset's valid samples labelled saccade (NaN with no valid sample).
    n_recordings, n_flagged : int
        Recordings, and those the detector's own checks flag.
    """

    method: str
    saccade_share: float
    n_recordings: int
    n_flagged: int

    @property
    def problems(self) -> tuple[str, ...]:
        """One phrase per failed check (empty when plausible).

        >>> EventPlausibility("ivt", 0.61, 10, 9).problems[0]
        'method ivt labels 61 % of valid samples saccade (plausible: 2-25 %)'
        """
        out = []
        lo, hi = PLAUSIBLE_SACCADE_SHARE
        share = self.saccade_share
        if not math.isnan(share) and not lo <= share <= hi:
            out.append(f"method {self.method} labels {100 * share:.0f} % of valid samples saccade "
                       f"(plausible: {100 * lo:.0f}-{100 * hi:.0f} %)")
        if self.n_recordings and self.n_flagged > _MAX_FLAGGED_SHARE * self.n_recordings:
            out.append(f"its plausibility checks fail on {self.n_flagged} of "
                       f"{self.n_recordings} recordings")
        return tuple(out)

    @property
    def plausible(self) -> bool:
        return not self.problems


def detect_events_checked(dataset: Dataset, *, method: str = DEFAULT_METHOD,
                          progress: bool = False, **kwargs: Any
                          ) -> tuple[pl.DataFrame, EventPlausibility]:
    """Events of ``dataset`` (as :func:`~gazeprivacy.events.detect_events_dataset`, without
    its warnings) and their :class:`EventPlausibility`.

    ``kwargs`` are the detector options of :func:`~gazeprivacy.events.detect_events_dataset`
    (not ``max_saccade_share``: the gate's limits are fixed).

    >>> from gazeprivacy.data.simulate import simulate_dataset
    >>> ds = simulate_dataset(n_participants=1, tasks="reading", duration_s=5.0,
    ...                       sampling_rate_hz=250, rng=np.random.default_rng(0))
    >>> ev, p = detect_events_checked(ds)
    >>> p.plausible, p.n_recordings
    (True, 1)
    """
    names = ("velocity_threshold_deg_s", "minimum_fixation_duration_s", "short_runs",
             "adaptive", "remodnav")
    kw = _resolve(method, *(kwargs.pop(n, None) for n in names))
    kw.update({"dispersion_threshold_deg": 1.0, "max_interval_s": None, "metric": "auto",
               **kwargs})
    events, flags = _detect_with_flags(dataset, progress=progress, **kw)
    recs = list(dataset.recordings)
    valid = {r.recording: int(np.count_nonzero(~r.missing)) for r in recs}
    sac = dict(events.filter(pl.col("name") == "saccade").group_by("recording")
               .agg(pl.col("n_samples").sum()).iter_rows())
    for i, r in enumerate(recs):  # a recording's own saccade share, as detect_events warns
        if valid[r.recording] and sac.get(r.recording, 0) > MAX_SACCADE_SHARE * valid[
                r.recording]:
            flags[i] = True
    n_valid = sum(valid.values())
    share = sum(sac.values()) / n_valid if n_valid else math.nan
    return events, EventPlausibility(method, float(share), len(recs), int(sum(flags)))


def require_plausible(plausibility: EventPlausibility, *, accept: bool, what: str) -> None:
    """The event mechanisms' gate: raise unless ``plausibility`` passes or ``accept``.

    Raises
    ------
    ReleaseRefusedError
        The events fail a check and ``accept`` is False (the message names
        ``--accept-implausible-events``).

    Warns
    -----
    ImplausibleEventsWarning
        The events fail a check and ``accept`` is True.
    """
    problems = plausibility.problems
    if not problems:
        return
    why = "; ".join(problems)
    if accept:
        warnings.warn(f"{what}: releasing on implausible events ({why}), as accepted",
                      ImplausibleEventsWarning, stacklevel=3)
        return
    raise ReleaseRefusedError(
        f"{what} refuses to release: the detected events are implausible ({why}), so the "
        "synthetic events would not be these people's; check the sampling rate and the "
        "units, or pass --accept-implausible-events (accept_implausible_events=True) to "
        "release anyway")
