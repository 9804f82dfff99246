# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Per-event features of George & Routray (2016), the input of the RBFN re-identification attack.

George, A., Routray, A. A score level fusion method for eye movement biometrics. Pattern
Recognition Letters 82:207-215, 2016 (used by seeds 000 and 001; SPEC section 6).

One row per event of at least ``min_samples`` (4) samples; shorter events are left out (SPEC
section 6), and the output keeps ``onset``/``offset`` so it joins back to the event table. Every
feature is computed for every event; SPEC section 6 lists them without splitting them by event
type, so a consumer picks columns by ``name``. Features (units: deg, s, deg/s, deg/s^2):

* ``duration_s`` (from the event table), ``std_x_deg``, ``std_y_deg`` (population, ddof 0),
  ``skew_x``, ``skew_y``, ``kurtosis_x``, ``kurtosis_y`` (biased moments, excess kurtosis: scipy's
  defaults) of the positions;
* ``path_length_deg``: sum of distances between consecutive samples; ``amplitude_deg``: distance
  from the first to the last sample; ``dispersion_deg``: ``(max x - min x) + (max y - min y)``
  (Salvucci & Goldberg, as in I-DT); ``mean_velocity_deg_s``: path length / duration;
* ``distance_prev_deg``, ``angle_prev_deg``: distance and direction (``atan2(dy, dx)`` in
  degrees, (-180, 180], in the data's own axes: screen ``y`` grows downwards) from the centroid
  of the previous event *of the same type* in the same recording to this event's centroid. The
  first fixation and the first saccade of a recording have none: NaN, or ``fill_undefined``.
* For each of ``velocity_x``, ``velocity_y`` (component derivatives, deg/s), ``velocity_ang``
  (angular speed: the sample-to-sample distance over time, deg/s), ``acceleration_x``,
  ``acceleration_y``, ``acceleration_ang`` (derivatives of those, deg/s^2): ``_mean``,
  ``_median``, ``_max``, ``_min``, ``_std``, ``_var``, ``_skew``, ``_kurtosis``. Velocities are
  taken over the ``n - 1`` intervals inside the event, accelerations between consecutive interval
  velocities divided by the time between the interval midpoints (``n - 2`` values), all from the
  recorded timestamps and never across the event's edges.

Distances use the recording's metric (:func:`~gazeprivacy.events.kinematics.resolve_metric`):
Euclidean degrees on screens, great-circle for VR; component derivatives are of the angles.

NaN policy: events never contain missing samples (see :mod:`gazeprivacy.events.detection`), so
only two things are undefined. (1) Skewness and kurtosis of a constant series (standard
deviation <= ``1e-9 * (1 + |mean|)``, far below any tracker's noise) are set to 0, so constant
signals give finite values. (2) The ``*_prev`` features of a recording's first event of each type
(see above). Everything else is finite for events of >= 4 samples.

Computed for all events at once over the concatenated samples with ``np.*.reduceat`` (polars'
group-by costs ~0.2 s per aggregation at this size, and there are ~60): all of DOVES (3.0 M
samples, 59.7 k events of >= 4 samples) takes 3-7 s on the shared 2-core machine under a load
average of 12-14, where I-VT detection takes 0.9-1.8 s (``benchmarks/bench_events.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from gazeprivacy._validation import check_int
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.events.kinematics import mixed_distance_deg, resolve_metric
from gazeprivacy.exceptions import InvalidDataError

__all__ = ["EVENT_FEATURE_COLUMNS", "SERIES", "STATISTICS", "event_features",
           "event_features_dataset"]

SERIES = ("velocity_x", "velocity_y", "velocity_ang", "acceleration_x", "acceleration_y",
          "acceleration_ang")
STATISTICS = ("mean", "median", "max", "min", "std", "var", "skew", "kurtosis")
_SCALARS = ("duration_s", "std_x_deg", "std_y_deg", "path_length_deg", "angle_prev_deg",
            "distance_prev_deg", "skew_x", "skew_y", "kurtosis_x", "kurtosis_y",
            "dispersion_deg", "mean_velocity_deg_s", "amplitude_deg")
EVENT_FEATURE_COLUMNS: tuple[str, ...] = _SCALARS + tuple(
    f"{s}_{stat}" for s in SERIES for stat in STATISTICS)
_KEYS = ("recording", "participant", "name", "onset", "offset")


def _group_stats(v: np.ndarray, gid: np.ndarray, starts: np.ndarray, counts: np.ndarray,
                 prefix: str, *, median: bool = True,
                 work: tuple[np.ndarray, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Mean, median, max, min, std, var, skew, kurtosis of contiguous, non-empty groups.

    Hand-written with ``np.*.reduceat`` because polars' group-by costs ~0.2 s per aggregation on
    DOVES-sized input (48 of them here) against a few ms for a reduceat; the two ``work``
    buffers (at least ``len(v)`` long) are reused so that no large array is allocated per
    statistic. Moments are two-pass and biased (population std/var, scipy's default skew and
    excess kurtosis); a (near-)constant group (std <= 1e-9 (1 + |mean|)) gets skew = kurtosis =
    0. The median sorts the values by the composite key ``group + 0.5 (v - min) / (max - min)``
    in one in-place ``np.sort`` and reads the value back from the key, exact to ~1e-10 of the
    group's range.
    """
    size = v.shape[0]
    w1, w2 = (np.empty(size), np.empty(size)) if work is None else (work[0][:size],
                                                                    work[1][:size])
    mean = np.add.reduceat(v, starts) / counts
    np.take(mean, gid, out=w1)
    np.subtract(v, w1, out=w1)                      # d
    np.multiply(w1, w1, out=w2)                     # d^2
    m2 = np.add.reduceat(w2, starts) / counts
    np.multiply(w1, w2, out=w1)                     # d^3
    m3 = np.add.reduceat(w1, starts) / counts
    np.multiply(w2, w2, out=w2)                     # d^4
    m4 = np.add.reduceat(w2, starts) / counts
    std = np.sqrt(m2)
    const = std <= 1e-9 * (1.0 + np.abs(mean))
    safe = np.where(const, 1.0, m2)
    vmax = np.maximum.reduceat(v, starts)
    vmin = np.minimum.reduceat(v, starts)
    out = {f"{prefix}_mean": mean}
    if median:
        rng = vmax - vmin
        scale = np.where(rng > 0, rng, 1.0)
        np.take(vmin, gid, out=w1)
        np.subtract(v, w1, out=w1)
        np.take(scale * 2.0, gid, out=w2)
        np.divide(w1, w2, out=w1)
        np.add(w1, gid, out=w1)
        w1.sort()
        lo = starts + (counts - 1) // 2
        hi = starts + counts // 2
        groups = np.arange(counts.shape[0])
        med = (vmin + (w1[lo] - groups) * 2.0 * scale + vmin + (w1[hi] - groups) * 2.0 * scale) / 2
        out[f"{prefix}_median"] = np.clip(med, vmin, vmax)
    out.update({
        f"{prefix}_max": vmax, f"{prefix}_min": vmin, f"{prefix}_std": std, f"{prefix}_var": m2,
        f"{prefix}_skew": np.where(const, 0.0, m3 / safe ** 1.5),
        f"{prefix}_kurtosis": np.where(const, 0.0, m4 / safe ** 2 - 3.0),
    })
    return out


def event_features_dataset(dataset: Dataset, events: pl.DataFrame, *, min_samples: int = 4,
                           fill_undefined: float | None = None) -> pl.DataFrame:
    """George & Routray per-event features of every event of ``dataset``.

    Parameters
    ----------
    dataset : Dataset
    events : polars.DataFrame
        Event table (:data:`gazeprivacy.events.EVENT_SCHEMA`), e.g. from
        :func:`~gazeprivacy.events.detect_events_dataset`. Its recordings must be in ``dataset``.
    min_samples : int, >= 3
        Events with fewer samples are left out (default 4, SPEC section 6).
    fill_undefined : float, optional
        Value for ``distance_prev_deg`` / ``angle_prev_deg`` of a recording's first event of each
        type (default NaN).

    Returns
    -------
    polars.DataFrame
        ``recording, participant, name, onset, offset`` then :data:`EVENT_FEATURE_COLUMNS`, one
        row per kept event, in the events' order.

    Raises
    ------
    InvalidDataError
        An event names a recording not in ``dataset``, or lies outside it, or covers a missing
        sample.

    Examples
    --------
    >>> from gazeprivacy.events import detect_events_dataset
    >>> x = np.r_[np.zeros(50), np.linspace(2, 10, 5), np.full(50, 10.0)]
    >>> rec = Recording.from_arrays(recording="r", participant="p", x=x, y=np.zeros(105),
    ...                             sampling_rate_hz=200)
    >>> ds = Dataset((rec,))
    >>> f = event_features_dataset(ds, detect_events_dataset(ds, method="ivt"))
    >>> f.select("name", "amplitude_deg", pl.col("velocity_ang_max").round(6)).rows()
    [('fixation', 0.0, 0.0), ('saccade', 8.0, 400.0), ('fixation', 0.0, 0.0)]
    """
    check_int(minimum=3, min_samples=min_samples)
    ev = events.select(*_KEYS).with_row_index("_event")
    ev = ev.filter(pl.col("offset") - pl.col("onset") >= min_samples)
    if ev.height == 0:
        return pl.DataFrame(schema={**{k: events.schema[k] for k in _KEYS},
                                    **{c: pl.Float64 for c in EVENT_FEATURE_COLUMNS}})
    s = _gather_event_samples(dataset, ev)
    cols, (cx, cy) = _shape_features(s)
    cols.update(_kinematic_features(s))
    cols.update(_previous_event_features(ev, cx, cy, s.great_circle, fill_undefined))
    keys = ev.select("recording", "participant", "name", "onset", "offset")
    out = keys.with_columns([pl.Series(c, cols[c], dtype=pl.Float64)
                             for c in EVENT_FEATURE_COLUMNS])
    return out.select(*_KEYS, *EVENT_FEATURE_COLUMNS)


@dataclass(frozen=True)
class _EventSamples:
    """The samples of every kept event, concatenated event after event.

    ``eid`` is each sample's event number; event ``k`` has ``n[k]`` samples, from ``first[k]``
    to ``last[k]`` (inclusive) in the concatenated arrays.
    """

    t: np.ndarray
    x: np.ndarray
    y: np.ndarray
    eid: np.ndarray
    n: np.ndarray
    first: np.ndarray
    last: np.ndarray
    duration: np.ndarray  # per event: last minus first timestamp plus one sampling period, s
    great_circle: np.ndarray  # per event: whether its recording uses the great-circle metric
    work: tuple[np.ndarray, np.ndarray]  # scratch buffers for _group_stats


def _gather_event_samples(dataset: Dataset, ev: pl.DataFrame) -> _EventSamples:
    """Check that the events fit ``dataset`` and cut their samples out of the recordings."""
    index = {r.recording: i for i, r in enumerate(dataset.recordings)}
    missing = set(ev["recording"].unique().to_list()) - set(index)
    if missing:
        raise InvalidDataError(
            f"events name recordings that are not in dataset {dataset.name!r}: "
            f"{sorted(missing)[:5]}; pass the dataset the events were detected on")
    recs = dataset.recordings
    used = sorted({index[r] for r in ev["recording"].unique().to_list()})
    lengths = np.array([recs[i].n_samples for i in used])
    start_of = dict(zip(used, np.concatenate(([0], np.cumsum(lengths)[:-1])), strict=True))
    t_all = np.concatenate([recs[i].t for i in used])
    x_all = np.concatenate([recs[i].x for i in used])
    y_all = np.concatenate([recs[i].y for i in used])

    rec_idx = np.array([index[r] for r in ev["recording"].to_list()])
    onset = ev["onset"].to_numpy()
    offset = ev["offset"].to_numpy()
    n_rec = np.array([recs[i].n_samples for i in rec_idx])
    if (onset < 0).any() or (offset > n_rec).any():
        bad = int(np.flatnonzero((onset < 0) | (offset > n_rec))[0])
        raise InvalidDataError(
            f"event {bad} ({ev['recording'][bad]!r}, onset {onset[bad]}, offset {offset[bad]}) "
            "lies outside its recording")
    first = np.array([start_of[i] for i in rec_idx]) + onset
    n = offset - onset
    total = int(n.sum())
    eid = np.repeat(np.arange(n.shape[0]), n)
    within = np.arange(total) - np.repeat(np.cumsum(n) - n, n)
    gidx = np.repeat(first, n) + within
    t, x, y = t_all[gidx], x_all[gidx], y_all[gidx]
    if np.isnan(x).any():
        bad = int(eid[np.flatnonzero(np.isnan(x))[0]])
        raise InvalidDataError(
            f"event {bad} ({ev['recording'][bad]!r}, onset {onset[bad]}) covers a missing "
            "sample; detect events with gazeprivacy.events.detect_events, which never does")
    great_circle = {i: resolve_metric(recs[i]) == "great-circle" for i in used}
    last = np.cumsum(n) - 1
    return _EventSamples(
        t=t, x=x, y=y, eid=eid, n=n, first=last - n + 1, last=last,
        duration=t[last] - t[last - n + 1] + np.array([1.0 / recs[i].sampling_rate_hz
                                                        for i in rec_idx]),
        great_circle=np.array([great_circle[i] for i in rec_idx], dtype=bool),
        work=(np.empty(total), np.empty(total)))


def _shape_features(s: _EventSamples
                    ) -> tuple[dict[str, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Event-level scalars straight from the sample arrays, and the events' centroids."""
    px = _group_stats(s.x, s.eid, s.first, s.n, "x", median=False, work=s.work)
    py = _group_stats(s.y, s.eid, s.first, s.n, "y", median=False, work=s.work)
    cols: dict[str, np.ndarray] = {"duration_s": s.duration}
    cols["std_x_deg"], cols["std_y_deg"] = px["x_std"], py["y_std"]
    cols["skew_x"], cols["skew_y"] = px["x_skew"], py["y_skew"]
    cols["kurtosis_x"], cols["kurtosis_y"] = px["x_kurtosis"], py["y_kurtosis"]
    cols["dispersion_deg"] = (px["x_max"] - px["x_min"]) + (py["y_max"] - py["y_min"])
    cols["amplitude_deg"] = mixed_distance_deg(s.x[s.first], s.y[s.first], s.x[s.last],
                                               s.y[s.last], s.great_circle)
    return cols, (px["x_mean"], py["y_mean"])


def _kinematic_features(s: _EventSamples) -> dict[str, np.ndarray]:
    """Path length, mean velocity and the statistics of the velocity and acceleration series.

    Intervals are pairs of samples (k, k+1) inside one event, never across its edges.
    """
    eid, x, y, t, n = s.eid, s.x, s.y, s.t, s.n
    same = eid[1:] == eid[:-1]
    dt = np.diff(t)[same]
    dist = mixed_distance_deg(x[:-1], y[:-1], x[1:], y[1:], np.repeat(s.great_circle, n)[1:])[same]
    vx, vy, vang = np.diff(x)[same] / dt, np.diff(y)[same] / dt, dist / dt
    veid = eid[1:][same]  # event id of each interval
    tmid = ((t[:-1] + t[1:]) / 2)[same]
    same_a = veid[1:] == veid[:-1]
    dtm = np.diff(tmid)[same_a]
    ax, ay, aang = (np.diff(v)[same_a] / dtm for v in (vx, vy, vang))
    m = n.shape[0]
    vstart = s.first - np.arange(m)            # event k has n_k - 1 intervals
    astart = s.first - 2 * np.arange(m)        # and n_k - 2 accelerations
    aeid = veid[1:][same_a]
    path = np.add.reduceat(dist, vstart)
    cols = {"path_length_deg": path, "mean_velocity_deg_s": path / s.duration}
    for name, v in (("velocity_x", vx), ("velocity_y", vy), ("velocity_ang", vang)):
        cols.update(_group_stats(v, veid, vstart, n - 1, name, work=s.work))
    for name, v in (("acceleration_x", ax), ("acceleration_y", ay), ("acceleration_ang", aang)):
        cols.update(_group_stats(v, aeid, astart, n - 2, name, work=s.work))
    return cols


def _previous_event_features(ev: pl.DataFrame, cx: np.ndarray, cy: np.ndarray,
                             great_circle: np.ndarray,
                             fill_undefined: float | None) -> dict[str, np.ndarray]:
    """Distance and direction from the previous event of the same type in the same recording.

    The table is ordered by onset within a recording; sort to be safe, then restore order.
    """
    m = ev.height
    order = (ev.select("recording", "name", "onset").with_row_index("_i")
             .sort("recording", "name", "onset")["_i"].to_numpy())
    rec_s = ev["recording"].to_numpy()[order]
    name_s = ev["name"].to_numpy()[order]
    has_prev = np.zeros(m, dtype=bool)
    has_prev[1:] = (rec_s[1:] == rec_s[:-1]) & (name_s[1:] == name_s[:-1])
    prev = np.full(m, -1)
    prev[order[1:][has_prev[1:]]] = order[:-1][has_prev[1:]]
    ok = prev >= 0
    pxv = np.where(ok, cx[prev], np.nan)
    pyv = np.where(ok, cy[prev], np.nan)
    dprev = mixed_distance_deg(pxv, pyv, cx, cy, great_circle)
    aprev = np.degrees(np.arctan2(cy - pyv, cx - pxv))
    if fill_undefined is not None:
        dprev = np.where(ok, dprev, fill_undefined)
        aprev = np.where(ok, aprev, fill_undefined)
    return {"distance_prev_deg": dprev, "angle_prev_deg": aprev}


def event_features(recording: Recording, events: pl.DataFrame, *, min_samples: int = 4,
                   fill_undefined: float | None = None) -> pl.DataFrame:
    """George & Routray per-event features of one recording's events.

    ``events`` may hold other recordings' rows; only ``recording``'s are used. See
    :func:`event_features_dataset` for the columns and policies.

    >>> from gazeprivacy.events import detect_events
    >>> rec = Recording.from_arrays(recording="r", participant="p", x=np.zeros(60),
    ...                             y=np.zeros(60), sampling_rate_hz=200)
    >>> f = event_features(rec, detect_events(rec))
    >>> f.height, f["skew_x"].item(), f["dispersion_deg"].item()
    (1, 0.0, 0.0)
    """
    ev = events.filter(pl.col("recording") == recording.recording)
    return event_features_dataset(Dataset((recording,), name=recording.recording), ev,
                                  min_samples=min_samples, fill_undefined=fill_undefined)
