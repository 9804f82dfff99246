# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Fixation, saccade and pursuit detection: REMoDNaV (default), adaptive, I-VT and I-DT, one
event table per call.

The default ``method="remodnav"`` is Dar, Wagner & Hanke's (2021) REMoDNaV
(:mod:`gazeprivacy.events.remodnav`): adaptive thresholds per saccade context and a smooth
pursuit class, built for natural viewing with moving stimuli; it is the only method here with
a ``"pursuit"`` event. ``method="adaptive"`` is Nystroem & Holmqvist's (2010) data-driven
peak-velocity threshold on Savitzky-Golay speeds (:mod:`gazeprivacy.events.adaptive`), with
durations given in seconds and converted per sampling rate; it has no pursuit class (pursuit
becomes fixation). On real recordings a fixed 30 deg/s labels most samples as saccades (61 % of
a human-coded 500 Hz hold-out, more on 30 Hz mobile data); see ``docs/events.md`` for the
validation. The paper reproductions keep their papers' I-VT and pass ``method="ivt"``
explicitly.

Every call checks the share of valid samples labelled saccade and raises an
:class:`~gazeprivacy.exceptions.ImplausibleEventsWarning` above ``max_saccade_share`` (0.30;
human coders label 5-10 %), whatever the method.

I-VT follows seeds 000 (section 5.2) and 001 (section 4.3), after Salvucci & Goldberg (ETRA
2000): a sample whose angular velocity is ``>= velocity_threshold_deg_s`` (30 deg/s) is a saccade
sample; a maximal run of slower samples is a fixation when it lasts at least
``minimum_fixation_duration_s`` (200 ms). I-DT (Salvucci & Goldberg) grows a window from the
minimum duration while its dispersion ``(max x - min x) + (max y - min y)`` stays
``<= dispersion_threshold_deg``.

Policies (each tested in ``tests/events/test_detection.py``):

* **Velocity** of sample ``i`` is the distance from sample ``i - 1`` over ``t_i - t_{i-1}``
  (:func:`~gazeprivacy.events.kinematics.interval_speed_deg_s`): Euclidean degrees for screens,
  great-circle (haversine) for ``Geometry(kind="vr")``. The first sample of a segment has no
  preceding interval and takes the velocity of its following one.
* **Segments.** Missing samples (NaN) and timestamp gaps longer than ``max_interval_s``
  (default 2.5 nominal sample intervals) split the recording into segments. No event ever spans a
  segment boundary, so no event contains a missing sample or crosses a gap. A valid sample alone
  in its segment has no velocity and belongs to no event.
* **Saccades are the complement of fixations**: with ``short_runs="saccade"`` (default) every
  maximal run of valid samples outside fixations (in one segment) is a saccade event, so a
  sub-threshold run shorter than the minimum duration becomes part of the saccade around it and
  every sample of a segment of two or more samples belongs to exactly one event (mechanisms that
  replace events' samples then leave no raw sample behind). A short slow segment on its own
  (e.g. 100 ms between two blinks) is therefore reported as a saccade. With
  ``short_runs="unclassified"`` saccades are the runs of supra-threshold samples only, and short
  sub-threshold runs belong to no event. I-DT always uses the complement rule.
* **Duration**: an event of samples ``onset .. offset - 1`` lasts
  ``duration_s = t[offset - 1] - t[onset] + 1 / sampling_rate_hz`` (so ``n`` samples at a uniform
  rate last ``n / sampling_rate_hz``); I-VT keeps a fixation when ``duration_s >=
  minimum_fixation_duration_s`` (200 ms at 200 Hz = 40 samples). I-DT counts its minimum window
  in samples, ``ceil(minimum_fixation_duration_s * sampling_rate_hz)``, as Salvucci & Goldberg
  and pymovements do.

Why not pymovements' detectors: ``pymovements.events.ivt`` returns fixations only (saccades as
their complement, the time-gap rule and the great-circle velocity are not expressible there) and
costs about 1.4 ms per 1000-sample recording (4 s on DOVES, against ~0.9 s for this
module's I-VT vectorised over blocks of recordings, both on a loaded 2-core machine);
``pymovements.events.idt`` is a per-sample Python loop (~11 ms per 1000 samples) and, reading
Salvucci & Goldberg's pseudocode literally, keeps the sample that breaks the dispersion threshold
in the fixation; here a fixation ends before that sample, which opens the next window. Both are
cross-checked against this module in the tests on inputs where the definitions coincide.

The event table (:data:`EVENT_SCHEMA`) has one row per event, ordered by recording (dataset
order) then onset:

==============  =======  ==========================================================
column          dtype    meaning
==============  =======  ==========================================================
recording       String   recording id
participant     String   participant id
name            String   ``"fixation"``, ``"saccade"`` or (REMoDNaV) ``"pursuit"``
onset           Int64    index of the first sample (0-based, within the recording)
offset          Int64    index one past the last sample (exclusive)
onset_s         Float64  ``t[onset]``
offset_s        Float64  ``t[offset - 1] + 1 / sampling_rate_hz``
duration_s      Float64  ``offset_s - onset_s``
n_samples       Int64    ``offset - onset``
start_x/_y      Float64  position of the first sample (deg)
end_x/_y        Float64  position of the last sample (deg)
centroid_x/_y   Float64  mean position (deg)
==============  =======  ==========================================================
"""

from __future__ import annotations

import math
import warnings
from dataclasses import replace
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy._validation import check_in, check_positive, check_range
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.events._threshold import (
    _CODE_NAMES,
    _FIX,
    _NONE,
    _SAC,
    _Block,
    _idt_codes,
    _idt_window,
    _ivt_codes,
    _runs,
    _sample_speed,
)
from gazeprivacy.events.adaptive import AdaptiveParams, adaptive_saccades
from gazeprivacy.events.kinematics import (
    METRICS,
    segments,
    smoothed_speed_deg_s,
)
from gazeprivacy.events.remodnav import RemodnavParams, remodnav_codes
from gazeprivacy.exceptions import ImplausibleEventsWarning, InvalidParameterError

__all__ = [
    "DEFAULT_METHOD",
    "EVENT_NAMES",
    "EVENT_SCHEMA",
    "MAX_SACCADE_SHARE",
    "METHODS",
    "detect_events",
    "detect_events_dataset",
    "empty_event_table",
    "saccade_share",
    "sample_labels",
]

EVENT_NAMES = ("fixation", "saccade", "pursuit")
EVENT_SCHEMA: dict[str, pl.DataType] = {
    "recording": pl.String(), "participant": pl.String(), "name": pl.String(),
    "onset": pl.Int64(), "offset": pl.Int64(), "onset_s": pl.Float64(),
    "offset_s": pl.Float64(), "duration_s": pl.Float64(), "n_samples": pl.Int64(),
    "start_x": pl.Float64(), "start_y": pl.Float64(), "end_x": pl.Float64(),
    "end_y": pl.Float64(), "centroid_x": pl.Float64(), "centroid_y": pl.Float64(),
}
METHODS = ("remodnav", "adaptive", "ivt", "idt")
#: The default method (sound mode everywhere); paper mode and the reproductions use "ivt".
DEFAULT_METHOD = "remodnav"
#: Default ceiling of the share of valid samples in saccades before a warning
MAX_SACCADE_SHARE = 0.30
# A dataset warns when more than this share of its recordings has an implausible adaptive peak
# threshold (a single recording warns whenever its own is); a few artefact-laden recordings in a
# lab dataset (7 of the 144 of the bundled DOVES sample) are not a misfit of the detector.
_MAX_IMPLAUSIBLE_SHARE = 0.10
# A recording is implausible for the adaptive detector also when more than this share of its
# speeds exceed max_speed_deg_s (physiologically impossible: tracker noise, or not gaze at all).
_MAX_NOISE_SHARE = 0.10
_SHORT_RUNS = ("saccade", "unclassified")
_BLOCK = 256  # recordings per vectorised block


def empty_event_table() -> pl.DataFrame:
    """An event table with no rows and the :data:`EVENT_SCHEMA` columns."""
    return pl.DataFrame(schema=EVENT_SCHEMA)


def _check_params(recording: Recording, *, method: str, velocity_threshold_deg_s: float,
                  minimum_fixation_duration_s: float, dispersion_threshold_deg: float,
                  max_interval_s: float | None, short_runs: str) -> float:
    check_in(options=METHODS, method=method)
    check_in(options=_SHORT_RUNS, short_runs=short_runs)
    check_positive(velocity_threshold_deg_s=velocity_threshold_deg_s)
    check_positive(minimum_fixation_duration_s=minimum_fixation_duration_s)
    check_positive(dispersion_threshold_deg=dispersion_threshold_deg)
    period = 1.0 / recording.sampling_rate_hz
    if max_interval_s is None:
        return 2.5 * period
    check_positive(max_interval_s=max_interval_s)
    if max_interval_s < period:
        raise InvalidParameterError(
            f"max_interval_s must be >= one sample interval ({period:g} s for recording "
            f"{recording.recording!r}), got {max_interval_s!r}; leave it None for 2.5 intervals")
    return float(max_interval_s)


def _events(b: _Block, code: np.ndarray, breaks: np.ndarray) -> pl.DataFrame:
    starts, ends, codes = _runs(code, breaks)
    keep = codes != _NONE
    starts, ends, codes = starts[keep], ends[keep], codes[keep]
    if starts.shape[0] == 0:
        return empty_event_table()
    t, x, y = b.t, b.x, b.y
    n = ends - starts
    csx = np.concatenate(([0.0], np.cumsum(np.where(np.isnan(x), 0.0, x))))
    csy = np.concatenate(([0.0], np.cumsum(np.where(np.isnan(y), 0.0, y))))
    rec_of = np.searchsorted(b.starts, starts, side="right") - 1
    base = b.starts[rec_of]
    onset_s = t[starts]
    offset_s = t[ends - 1] + b.period[starts]
    cols = {
        "recording": np.array([r.recording for r in b.recs], dtype=object)[rec_of],
        "participant": np.array([r.participant for r in b.recs], dtype=object)[rec_of],
        "name": _CODE_NAMES[codes],
        "onset": starts - base, "offset": ends - base,
        "onset_s": onset_s, "offset_s": offset_s, "duration_s": offset_s - onset_s,
        "n_samples": n,
        "start_x": x[starts], "start_y": y[starts], "end_x": x[ends - 1], "end_y": y[ends - 1],
        "centroid_x": (csx[ends] - csx[starts]) / n, "centroid_y": (csy[ends] - csy[starts]) / n,
    }
    return pl.DataFrame({k: pl.Series(k, v, dtype=EVENT_SCHEMA[k]) for k, v in cols.items()})


def _adaptive_codes(b: _Block, max_intervals: list[float], params: list[AdaptiveParams],
                    short_runs: str) -> tuple[np.ndarray, np.ndarray, list[bool]]:
    """Sample codes, run breaks (each saccade starts a run) and, per recording, whether the
    adaptive detector finds it implausible (threshold or noise share)."""
    n = b.t.shape[0]
    code = np.full(n, _NONE, dtype=np.int8)
    breaks = b.breaks.copy()
    min_fix = np.zeros(n, dtype=np.int64)
    peaks: list[bool] = []
    two_point = _sample_speed(b) if any(p.window_s is None for p in params) else None
    for k, (r, p) in enumerate(zip(b.recs, params, strict=True)):
        o, m = int(b.starts[k]), r.n_samples
        if p.window_s is None:
            assert two_point is not None
            speed = two_point[o:o + m]
        else:
            speed = smoothed_speed_deg_s(r, window_s=p.window_s, polyorder=p.polyorder,
                                         max_interval_s=max_intervals[k], metric=b.metric)
        starts, ends = segments(r, max_intervals[k])
        sacs, peak, _ = adaptive_saccades(speed, starts, ends, p, r.sampling_rate_hz)
        defined = ~np.isnan(speed)
        n_noise = int(np.count_nonzero(speed[defined] > p.max_speed_deg_s))
        # implausible: the threshold, or more than 10 % of the speeds physiologically impossible
        peaks.append(peak > p.implausible_threshold_deg_s
                     or n_noise > _MAX_NOISE_SHARE * max(1, int(defined.sum())))
        c = np.where(np.isnan(speed), _NONE, _FIX).astype(np.int8)
        for on, off in sacs:
            c[on:off] = _SAC
            breaks[o + on] = True
        c[speed > p.max_speed_deg_s] = _NONE
        code[o:o + m] = c
        min_fix[o:o + m] = p.samples(r.sampling_rate_hz)["minimum_fixation"]
    starts, ends, codes = _runs(code, breaks)
    short = (codes == _FIX) & (ends - starts < min_fix[starts])
    fill = _SAC if short_runs == "saccade" else _NONE
    # a short run filled with saccade code merges with the saccade before it (no break there)
    code = np.where(np.repeat(short, ends - starts), fill, code).astype(np.int8)
    return code, breaks, peaks


def _resolve(method: str, velocity_threshold_deg_s: float | None,
             minimum_fixation_duration_s: float | None, short_runs: str | None,
             adaptive: AdaptiveParams | None,
             remodnav: RemodnavParams | None = None) -> dict[str, Any]:
    """Method-dependent defaults (see :func:`detect_events`)."""
    check_in(options=METHODS, method=method)
    if method in ("adaptive", "remodnav") and velocity_threshold_deg_s is not None:
        raise InvalidParameterError(
            f"velocity_threshold_deg_s applies to method='ivt' only; method={method!r} "
            f"estimates its thresholds from the data, got {velocity_threshold_deg_s!r}; "
            "pass method='ivt' for a fixed threshold")
    if method == "adaptive":
        if adaptive is not None and not isinstance(adaptive, AdaptiveParams):
            raise InvalidParameterError(
                f"adaptive must be an AdaptiveParams, got {type(adaptive).__name__}")
    elif adaptive is not None:
        raise InvalidParameterError(
            f"adaptive settings apply to method='adaptive' only, got method={method!r}")
    if short_runs is not None:
        check_in(options=_SHORT_RUNS, short_runs=short_runs)
    if method == "remodnav":
        if remodnav is not None and not isinstance(remodnav, RemodnavParams):
            raise InvalidParameterError(
                f"remodnav must be a RemodnavParams, got {type(remodnav).__name__}")
        if short_runs not in (None, "unclassified"):
            raise InvalidParameterError(
                f"short_runs applies to methods 'adaptive', 'ivt' and 'idt'; REMoDNaV leaves "
                f"unlabelled stretches in no event, got short_runs={short_runs!r}")
    elif remodnav is not None:
        raise InvalidParameterError(
            f"remodnav settings apply to method='remodnav' only, got method={method!r}")
    return dict(
        method=method,
        velocity_threshold_deg_s=(30.0 if velocity_threshold_deg_s is None
                                  else velocity_threshold_deg_s),
        minimum_fixation_duration_s=minimum_fixation_duration_s,
        short_runs=short_runs or ("unclassified" if method in ("adaptive", "remodnav")
                                  else "saccade"),
        adaptive=adaptive, remodnav=remodnav)


def _remodnav_codes(b: _Block, max_intervals: list[float], remodnav: RemodnavParams | None,
                    minimum_fixation_duration_s: float | None
                    ) -> tuple[np.ndarray, np.ndarray, list[bool]]:
    """Sample codes, run breaks and per-recording implausibility of REMoDNaV."""
    code = np.full(b.t.shape[0], _NONE, dtype=np.int8)
    breaks = b.breaks.copy()
    flags = []
    for k, r in enumerate(b.recs):
        p = RemodnavParams.for_rate(r.sampling_rate_hz) if remodnav is None else remodnav
        if minimum_fixation_duration_s is not None:
            p = replace(p, min_fixation_duration_s=minimum_fixation_duration_s)
        c, starts, bad = remodnav_codes(r, p, max_intervals[k])
        o = int(b.starts[k])
        code[o:o + r.n_samples] = c
        breaks[o:o + r.n_samples] |= starts
        flags.append(bad)
    return code, breaks, flags


def _adaptive_params(r: Recording, adaptive: AdaptiveParams | None,
                     minimum_fixation_duration_s: float | None) -> AdaptiveParams:
    p = AdaptiveParams.for_rate(r.sampling_rate_hz) if adaptive is None else adaptive
    if minimum_fixation_duration_s is not None:
        p = replace(p, minimum_fixation_duration_s=minimum_fixation_duration_s)
    return p


def _detect_block(recs: list[Recording], *, method: str, velocity_threshold_deg_s: float,
                  minimum_fixation_duration_s: float | None, dispersion_threshold_deg: float,
                  max_interval_s: float | None, short_runs: str, metric: str,
                  adaptive: AdaptiveParams | None, remodnav: RemodnavParams | None = None,
                  ) -> tuple[pl.DataFrame, list[bool]]:
    """The events of ``recs`` and, per recording, whether the detector's own check (adaptive,
    REMoDNaV: threshold or noise share) finds it implausible."""
    check_in(options=METRICS, metric=metric)
    min_fix = 0.2 if minimum_fixation_duration_s is None else minimum_fixation_duration_s
    max_iv = [_check_params(r, method=method, velocity_threshold_deg_s=velocity_threshold_deg_s,
                            minimum_fixation_duration_s=min_fix,
                            dispersion_threshold_deg=dispersion_threshold_deg,
                            max_interval_s=max_interval_s, short_runs=short_runs) for r in recs]
    if not recs:
        return empty_event_table(), []
    b = _Block(recs, max_iv, metric)
    flags = [False] * len(recs)
    if method == "remodnav":
        code, breaks, flags = _remodnav_codes(b, max_iv, remodnav, minimum_fixation_duration_s)
    elif method == "adaptive":
        params = [_adaptive_params(r, adaptive, minimum_fixation_duration_s) for r in recs]
        code, breaks, flags = _adaptive_codes(b, max_iv, params, short_runs)
    elif method == "ivt":
        code = _ivt_codes(b, velocity_threshold_deg_s=velocity_threshold_deg_s,
                          minimum_fixation_duration_s=min_fix, short_runs=short_runs)
        breaks = b.breaks
    else:
        for r in recs:
            _idt_window(r, min_fix)
        code, breaks = _idt_codes(b, dispersion_threshold_deg=dispersion_threshold_deg,
                                  minimum_fixation_duration_s=min_fix)
    return _events(b, code, breaks), flags


def saccade_share(recordings: Recording | Dataset, events: pl.DataFrame) -> float:
    """Share of the valid (non-missing) samples of ``recordings`` that ``events`` label saccade
    (NaN when there is no valid sample).

    >>> r = Recording.from_arrays(recording="r", participant="p", x=np.r_[np.zeros(50), 5.0],
    ...                           y=np.zeros(51), sampling_rate_hz=200)
    >>> round(saccade_share(r, detect_events(r, method="ivt")), 4)
    0.0196
    """
    recs = [recordings] if isinstance(recordings, Recording) else list(recordings.recordings)
    n_valid = sum(int(np.count_nonzero(~r.missing)) for r in recs)
    ids = [r.recording for r in recs]
    sac = events.filter((pl.col("name") == "saccade") & pl.col("recording").is_in(ids))
    return float(sac["n_samples"].sum()) / n_valid if n_valid else math.nan


def _check_share(recordings: Recording | Dataset, events: pl.DataFrame, method: str,
                 max_saccade_share: float | None, n_implausible: int) -> None:
    """The plausibility warnings (see :func:`detect_events`)."""
    if max_saccade_share is None:
        return
    check_range(lo=0.0, hi=1.0, max_saccade_share=max_saccade_share)
    share = saccade_share(recordings, events)
    what = (f"recording {recordings.recording!r}" if isinstance(recordings, Recording)
            else f"dataset {recordings.name!r}")
    n = 1 if isinstance(recordings, Recording) else len(recordings)
    if n_implausible > _MAX_IMPLAUSIBLE_SHARE * n:
        warnings.warn(
            f"{what}: the {method} peak-velocity threshold exceeds implausible_threshold_deg_s, "
            "or > 10 % of the speeds exceed max_speed_deg_s, in "
            f"{n_implausible} of {n} recording(s): the speed noise is as fast as most "
            "saccades, so only the largest saccades are found and fixations are too long",
            ImplausibleEventsWarning, stacklevel=3)
    if share > max_saccade_share:
        hint = ("the data may be too noisy for saccade detection, or not gaze"
                if method in ("adaptive", "remodnav") else
                "the fixed thresholds do not fit these data; try method='adaptive'")
        warnings.warn(
            f"{what}: {share:.0%} of valid samples labelled saccade by method={method!r} "
            f"(> max_saccade_share={max_saccade_share:g}; human coders label 5-10 %); {hint}",
            ImplausibleEventsWarning, stacklevel=3)


def detect_events(recording: Recording, *, method: str = DEFAULT_METHOD,
                  velocity_threshold_deg_s: float | None = None,
                  minimum_fixation_duration_s: float | None = None,
                  dispersion_threshold_deg: float = 1.0,
                  max_interval_s: float | None = None, short_runs: str | None = None,
                  metric: str = "auto", adaptive: AdaptiveParams | None = None,
                  max_saccade_share: float | None = MAX_SACCADE_SHARE,
                  remodnav: RemodnavParams | None = None) -> pl.DataFrame:
    """Detect fixations, saccades and (REMoDNaV) smooth pursuit in one recording.

    Parameters
    ----------
    recording : Recording
    method : {"remodnav", "adaptive", "ivt", "idt"}
        REMoDNaV (Dar, Wagner & Hanke 2021; default; the only one with pursuit), adaptive
        peak-velocity threshold (Nystroem & Holmqvist 2010), fixed velocity threshold (seeds
        000 and 001; paper mode) or dispersion threshold.
    velocity_threshold_deg_s : float, deg/s, > 0, optional
        I-VT only: samples at or above it are saccade samples (default 30).
    minimum_fixation_duration_s : float, s, > 0, optional
        Shortest fixation: I-VT / I-DT default 0.2 (I-DT: minimum window, rounded up to whole
        samples); adaptive / REMoDNaV default from ``adaptive`` / ``remodnav`` (40 ms), given
        here it overrides it.
    dispersion_threshold_deg : float, deg, > 0
        I-DT: largest ``(max x - min x) + (max y - min y)`` of a fixation (default 1.0).
    max_interval_s : float, s, optional
        Longest time between two consecutive samples of one event; default 2.5 sample intervals.
    short_runs : {"saccade", "unclassified"}, optional
        What non-saccade runs shorter than the minimum fixation become (see module docs);
        default ``"saccade"`` for I-VT (the papers' complement rule), ``"unclassified"`` for
        the adaptive detector; REMoDNaV takes ``"unclassified"`` only.
    metric : {"auto", "euclidean", "great-circle"}
        Distance between samples; ``"auto"`` is great-circle for VR geometry, else Euclidean.
    adaptive : AdaptiveParams, optional
        Adaptive settings; default :meth:`AdaptiveParams.for_rate` of the recording's rate.
    max_saccade_share : float in [0, 1], optional
        Warn when a larger share of valid samples is labelled saccade (default 0.30);
        None turns both plausibility checks off. A dataset call warns on the threshold when
        more than 10 % of its recordings have an implausible one.
    remodnav : RemodnavParams, optional
        REMoDNaV settings; default :meth:`RemodnavParams.for_rate` of the recording's rate.

    Returns
    -------
    polars.DataFrame
        The event table (:data:`EVENT_SCHEMA`), one row per event, ordered by onset. A recording
        with fewer than two linked valid samples (e.g. one sample, or all NaN) gives no rows.

    Raises
    ------
    InvalidParameterError
        A parameter is out of range or does not apply to ``method`` (the message names it).

    Warns
    -----
    ImplausibleEventsWarning
        More than ``max_saccade_share`` of the valid samples are in saccades, or (adaptive,
        REMoDNaV) the peak threshold exceeds ``implausible_threshold_deg_s`` or more than 10 %
        of the speeds exceed the maximum speed.

    Examples
    --------
    Still for 50 samples, a 5-sample jump of 10 degrees, still for 50 samples (200 Hz):

    >>> x = np.r_[np.zeros(50), np.linspace(2, 10, 5), np.full(50, 10.0)]
    >>> rec = Recording.from_arrays(recording="r", participant="p", x=x, y=np.zeros(105),
    ...                             sampling_rate_hz=200)
    >>> ev = detect_events(rec, method="ivt")
    >>> ev.select("name", "onset", "offset", "n_samples").rows()
    [('fixation', 0, 50, 50), ('saccade', 50, 55, 5), ('fixation', 55, 105, 50)]
    >>> ev["duration_s"].round(6).to_list()
    [0.25, 0.025, 0.25]
    """
    kw = _resolve(method, velocity_threshold_deg_s, minimum_fixation_duration_s, short_runs,
                  adaptive, remodnav)
    ev, flags = _detect_block([recording], dispersion_threshold_deg=dispersion_threshold_deg,
                              max_interval_s=max_interval_s, metric=metric, **kw)
    _check_share(recording, ev, method, max_saccade_share, sum(flags))
    return ev


def detect_events_dataset(dataset: Dataset, *, progress: bool = False,
                          method: str = DEFAULT_METHOD,
                          velocity_threshold_deg_s: float | None = None,
                          minimum_fixation_duration_s: float | None = None,
                          dispersion_threshold_deg: float = 1.0,
                          max_interval_s: float | None = None, short_runs: str | None = None,
                          metric: str = "auto", adaptive: AdaptiveParams | None = None,
                          max_saccade_share: float | None = MAX_SACCADE_SHARE,
                          remodnav: RemodnavParams | None = None) -> pl.DataFrame:
    """:func:`detect_events` on every recording; one table in dataset order.

    The saccade-share check runs once, over all valid samples of the dataset.

    Parameters
    ----------
    dataset : Dataset
    progress : bool
        Show a Rich progress bar (on stderr).
    method, velocity_threshold_deg_s, minimum_fixation_duration_s, dispersion_threshold_deg, \
max_interval_s, short_runs, metric, adaptive, max_saccade_share, remodnav
        As in :func:`detect_events`.

    Examples
    --------
    >>> r = Recording.from_arrays(recording="r", participant="p", x=np.zeros(60),
    ...                           y=np.zeros(60), sampling_rate_hz=200)
    >>> detect_events_dataset(Dataset((r,)))["name"].to_list()
    ['fixation']
    """
    kw = _resolve(method, velocity_threshold_deg_s, minimum_fixation_duration_s, short_runs,
                  adaptive, remodnav)
    kw.update(dispersion_threshold_deg=dispersion_threshold_deg, max_interval_s=max_interval_s,
              metric=metric)
    ev, flags = _detect_with_flags(dataset, progress=progress, **kw)
    _check_share(dataset, ev, method, max_saccade_share, sum(flags))
    return ev


def _detect_with_flags(dataset: Dataset, *, progress: bool = False,
                       **kw: Any) -> tuple[pl.DataFrame, list[bool]]:
    """The events of ``dataset`` and, per recording, the detector's own implausibility flag
    (no warning); ``kw`` are :func:`_resolve`'s output plus the other detection options."""
    method = kw["method"]
    recs = list(dataset.recordings)
    # Recordings are processed in blocks of concatenated arrays (I-VT is vectorised over a block).
    blocks = [recs[i:i + _BLOCK] for i in range(0, len(recs), _BLOCK)]
    parts: list[tuple[pl.DataFrame, list[bool]]] = [(empty_event_table(), [])]
    if progress:
        from rich.progress import Progress

        with Progress(transient=True) as bar:
            task = bar.add_task(f"detecting events ({method})", total=len(recs))
            for blk in blocks:
                parts.append(_detect_block(blk, **kw))
                bar.advance(task, len(blk))
    else:
        parts.extend(_detect_block(blk, **kw) for blk in blocks)
    ev = pl.concat([p[0] for p in parts], how="vertical")
    return ev, [f for p in parts for f in p[1]]


def sample_labels(recording: Recording, events: pl.DataFrame) -> np.ndarray:
    """Per-sample event name of ``recording`` (``""`` for samples in no event).

    ``events`` may hold other recordings' events too; only this recording's rows are used.

    >>> r = Recording.from_arrays(recording="r", participant="p", x=np.r_[np.zeros(50), 5.0],
    ...                           y=np.zeros(51), sampling_rate_hz=200)
    >>> labels = sample_labels(r, detect_events(r, method="ivt"))
    >>> labels[0], labels[-1]
    ('fixation', 'saccade')
    """
    ev = events.filter(pl.col("recording") == recording.recording)
    out = np.full(recording.n_samples, "", dtype=object)
    for name, on, off in ev.select("name", "onset", "offset").iter_rows():
        out[on:off] = name
    return out
