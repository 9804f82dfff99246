# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Angular distances and sample velocities shared by event detection and event features.

Two metrics, chosen per recording from its geometry (``metric="auto"``):

* ``"euclidean"`` (screens, images, eye cameras): the distance between two gaze points is
  ``hypot(dx, dy)`` in degrees of visual angle, as the papers do for screen data (they convert
  pixels to degrees linearly).
* ``"great-circle"`` (``Geometry.kind == "vr"``): ``x`` and ``y`` are the horizontal and vertical
  angles of a gaze direction (SPEC section 1), read as longitude and latitude on the unit sphere;
  the distance is the haversine great-circle angle between the two directions (seed 001,
  section 4.3.1, "shortest angular distance ... computed with the haversine formula").

Velocity of a sample is the distance from the previous sample over the time between them
(``"preceding"`` in pymovements' naming), using the recorded timestamps.

:func:`smoothed_speed_deg_s` is the smoothed alternative used by the adaptive detector: a
Savitzky-Golay derivative (Savitzky & Golay 1964; Nystroem & Holmqvist 2010) of each gap-free
segment on its own. Missing samples and timestamp gaps split the signal (:func:`segments`); a
filter window never reaches across a gap, and nothing is interpolated.
"""

from __future__ import annotations

import functools

import numpy as np

from gazeprivacy._validation import check_in, check_int, check_positive
from gazeprivacy.data.recording import Recording
from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["METRICS", "angular_distance_deg", "interval_speed_deg_s", "mixed_distance_deg",
           "resolve_metric", "savgol_speed_deg_s", "segments", "smoothed_speed_deg_s",
           "window_samples"]

_TOL = 1e-9

METRICS = ("auto", "euclidean", "great-circle")


def resolve_metric(recording: Recording, metric: str = "auto") -> str:
    """The distance metric for ``recording``: ``"great-circle"`` for VR geometry, else Euclidean.

    >>> r = Recording.from_arrays(recording="r", participant="p", x=[0, 1], y=[0, 0],
    ...                           sampling_rate_hz=100)
    >>> resolve_metric(r)
    'euclidean'
    """
    check_in(options=METRICS, metric=metric)
    if metric != "auto":
        return metric
    geo = recording.geometry
    return "great-circle" if geo is not None and geo.kind == "vr" else "euclidean"


def angular_distance_deg(x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray, *,
                         metric: str) -> np.ndarray:
    """Distance in degrees between gaze points ``(x0, y0)`` and ``(x1, y1)`` (NaN propagates).

    Parameters
    ----------
    x0, y0, x1, y1 : array of float, degrees
        For ``"great-circle"``, ``x`` is the horizontal (azimuth) and ``y`` the vertical
        (elevation) angle.
    metric : {"euclidean", "great-circle"}

    Examples
    --------
    >>> float(angular_distance_deg(0.0, 0.0, 3.0, 4.0, metric="euclidean"))
    5.0
    >>> round(float(angular_distance_deg(0.0, 0.0, 90.0, 0.0, metric="great-circle")), 9)
    90.0
    >>> round(float(angular_distance_deg(0.0, 89.0, 180.0, 89.0, metric="great-circle")), 9)
    2.0
    """
    check_in(options=("euclidean", "great-circle"), metric=metric)
    x0, y0, x1, y1 = (np.asarray(a, dtype=np.float64) for a in (x0, y0, x1, y1))
    if metric == "euclidean":
        return np.hypot(x1 - x0, y1 - y0)
    lat0, lat1 = np.radians(y0), np.radians(y1)
    h = (np.sin((lat1 - lat0) / 2) ** 2
         + np.cos(lat0) * np.cos(lat1) * np.sin(np.radians(x1 - x0) / 2) ** 2)
    return np.degrees(2 * np.arcsin(np.sqrt(np.clip(h, 0.0, 1.0))))


def mixed_distance_deg(x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray,
                       great_circle: np.ndarray) -> np.ndarray:
    """Euclidean distance, great-circle where the boolean mask ``great_circle`` is set.

    For arrays that concatenate recordings of both kinds (screen and VR).

    >>> mixed_distance_deg(np.zeros(2), np.zeros(2), np.full(2, 90.0), np.zeros(2),
    ...                    np.array([False, True])).round(9).tolist()
    [90.0, 90.0]
    """
    d = angular_distance_deg(x0, y0, x1, y1, metric="euclidean")
    great_circle = np.asarray(great_circle, dtype=bool)
    if great_circle.any():
        d = np.where(great_circle,
                     angular_distance_deg(x0, y0, x1, y1, metric="great-circle"), d)
    return d


def interval_speed_deg_s(t: np.ndarray, x: np.ndarray, y: np.ndarray, *,
                         metric: str) -> np.ndarray:
    """Speed over each sample interval: ``d(p_i, p_{i+1}) / (t_{i+1} - t_i)``, ``n - 1`` values.

    pymovements' ``pos2vel(method="preceding")`` computes the same per-component differences
    but scales them by a constant sampling rate and knows no great-circle distance; this uses the
    recorded timestamps (dropped frames stay honest) and the recording's metric. A test checks
    that both agree on uniformly sampled screen data.

    >>> interval_speed_deg_s(np.array([0.0, 0.5, 1.5]), np.array([0.0, 1.0, 1.0]),
    ...                      np.array([0.0, 0.0, 2.0]), metric="euclidean").tolist()
    [2.0, 2.0]
    """
    d = angular_distance_deg(x[:-1], y[:-1], x[1:], y[1:], metric=metric)
    return d / np.diff(t)


def window_samples(window_s: float, sampling_rate_hz: float, *, polyorder: int = 2) -> int:
    """A Savitzky-Golay window of ``window_s`` seconds in samples: odd, and at least
    ``polyorder + 1`` (rounded up to odd), e.g. 20 ms is 21 samples at 1 kHz, 5 at 200 Hz and
    the minimum 3 at 30 or 60 Hz.

    >>> [window_samples(0.02, r) for r in (1000, 500, 200, 60, 30)]
    [21, 11, 5, 3, 3]
    """
    check_positive(window_s=window_s)
    check_positive(sampling_rate_hz=sampling_rate_hz)
    n = max(round(window_s * sampling_rate_hz), polyorder + 1)
    return n if n % 2 == 1 else n + 1


def segments(recording: Recording, max_interval_s: float | None = None,
             ) -> tuple[np.ndarray, np.ndarray]:
    """Gap-free segments of ``recording``: ``(starts, ends)`` (``ends`` exclusive).

    A segment is a maximal run of non-missing samples in which consecutive timestamps are at
    most ``max_interval_s`` apart (default 2.5 nominal sample intervals, as in event detection).

    >>> r = Recording.from_arrays(recording="r", participant="p", x=[0, 1, np.nan, 2, 3, 4],
    ...                           y=[0, 0, np.nan, 0, 0, 0], sampling_rate_hz=100)
    >>> [a.tolist() for a in segments(r)]
    [[0, 3], [2, 6]]
    """
    period = 1.0 / recording.sampling_rate_hz
    max_iv = 2.5 * period if max_interval_s is None else check_positive(
        max_interval_s=max_interval_s)
    valid = ~np.isnan(recording.x)
    link = valid[:-1] & valid[1:] & (np.diff(recording.t) <= max_iv + _TOL)
    start = valid.copy()
    start[1:] &= ~link
    end = valid.copy()
    end[:-1] &= ~link
    return np.flatnonzero(start), np.flatnonzero(end) + 1


def savgol_speed_deg_s(x: np.ndarray, y: np.ndarray, *, sampling_rate_hz: float,
                       window: int, polyorder: int = 2,
                       great_circle: bool = False) -> np.ndarray:
    """Angular speed (deg/s) of one gap-free, uniformly sampled segment from Savitzky-Golay
    derivatives of ``x`` and ``y``.

    pymovements offers the same filter (``pymovements.transforms.savitzky_golay`` and
    ``pos2vel(method="savitzky_golay")``), but as a polars expression over a whole column: it
    would run one window across blinks and gaps. It wraps :func:`scipy.signal.savgol_filter`,
    which is computed here on each segment (coefficients cached), with pymovements' default
    padding ``mode="nearest"`` (the edge value repeated). At a segment's outer half-window the
    speed is therefore underestimated, never inflated: ``mode="interp"`` (a polynomial fitted to
    the edge window) multiplies the noise of the edge samples by about 3.6 with a 3-sample
    window, and the adaptive threshold then finds false saccades at blink edges. On a gap-free
    segment the speeds equal pymovements' transform (tested). A segment shorter than ``window``
    uses the largest odd window that fits (at least ``polyorder + 1``); a segment of two samples
    uses their difference; one sample has no speed (NaN).

    For ``great_circle`` (VR: ``x`` azimuth, ``y`` elevation, degrees) the azimuth is unwrapped
    and its rate scaled by ``cos(elevation)``, the local metric of the sphere.

    >>> x = np.arange(10) * 0.1  # 0.1 deg per sample at 100 Hz: 10 deg/s
    >>> savgol_speed_deg_s(x, np.zeros(10), sampling_rate_hz=100, window=5).round(6).tolist()
    [5.0, 8.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 8.0, 5.0]
    """
    check_int(minimum=1, polyorder=polyorder)
    check_int(minimum=3, window=window)
    if window % 2 == 0 or window <= polyorder:
        raise InvalidParameterError(
            f"window must be odd and > polyorder ({polyorder}), got {window}")
    n = x.shape[0]
    if n < 2:
        return np.full(n, np.nan)
    if great_circle:
        x = np.unwrap(x, period=360.0)
    delta = 1.0 / sampling_rate_hz
    w = min(window, n if n % 2 == 1 else n - 1)
    if w <= polyorder:
        vx = np.gradient(x, delta)
        vy = np.gradient(y, delta)
    else:
        # scipy.signal.savgol_filter(x, w, polyorder, deriv=1, delta=delta, mode="nearest"),
        # with the coefficients computed once per (window, order, rate)
        from scipy.ndimage import convolve1d  # lazily: SciPy's signal and ndimage modules cost

        c = _derivative_coeffs(w, polyorder, delta)  # a second of start-up otherwise
        vx = convolve1d(x, c, mode="nearest")
        vy = convolve1d(y, c, mode="nearest")
    if great_circle:
        vx = vx * np.cos(np.radians(y))
    return np.hypot(vx, vy)


@functools.lru_cache(maxsize=64)
def _derivative_coeffs(window: int, polyorder: int, delta: float) -> np.ndarray:
    from gazeprivacy._scipy import scipy_signal

    return scipy_signal().savgol_coeffs(window, polyorder, deriv=1, delta=delta)


def smoothed_speed_deg_s(recording: Recording, *, window_s: float = 0.02, polyorder: int = 2,
                         max_interval_s: float | None = None, metric: str = "auto",
                         ) -> np.ndarray:
    """Per-sample Savitzky-Golay speed (deg/s) of ``recording``, NaN-aware.

    Each gap-free segment (:func:`segments`) is filtered on its own with a window of
    ``window_s`` (:func:`window_samples`: odd, at least ``polyorder + 1`` samples). Missing
    samples and samples alone in their segment get NaN; no value is interpolated across a gap.
    The filter assumes the nominal sampling interval inside a segment.

    >>> r = Recording.from_arrays(recording="r", participant="p",
    ...                           x=[0, .1, .2, .3, np.nan, 1, 1.1, 1.2],
    ...                           y=[0, 0, 0, 0, np.nan, 0, 0, 0],
    ...                           sampling_rate_hz=100)
    >>> smoothed_speed_deg_s(r).round(6).tolist()
    [5.0, 10.0, 10.0, 5.0, nan, 5.0, 10.0, 5.0]
    """
    rate = recording.sampling_rate_hz
    window = window_samples(window_s, rate, polyorder=polyorder)
    gc = resolve_metric(recording, metric) == "great-circle"
    out = np.full(recording.n_samples, np.nan)
    for a, e in zip(*segments(recording, max_interval_s), strict=True):
        out[a:e] = savgol_speed_deg_s(recording.x[a:e], recording.y[a:e], sampling_rate_hz=rate,
                                      window=window, polyorder=polyorder, great_circle=gc)
    return out
