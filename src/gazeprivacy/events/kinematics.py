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
"""

from __future__ import annotations

import numpy as np

from gazeprivacy._validation import check_in
from gazeprivacy.data.recording import Recording

__all__ = ["METRICS", "angular_distance_deg", "interval_speed_deg_s", "mixed_distance_deg",
           "resolve_metric"]

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
