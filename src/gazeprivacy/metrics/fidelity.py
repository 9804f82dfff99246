# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Fidelity of protected gaze against the original (seed 000, section 5.1; SPEC section 2).

* :func:`rmse`: per recording ``sqrt(mean_i ((x_i - x'_i)^2 + (y_i - y'_i)^2))`` in degrees,
  averaged over recordings -- the proper root *mean* squared error.
* :func:`rss_distance`: seed 000 eq. (15) exactly as printed, ``sqrt(sum_i (...))`` (no ``1/N``),
  averaged over recordings. It grows with recording length; tables must say which they use.
* :func:`density_error`: Jensen-Shannon divergence (base 2, so in [0, 1]) between the spatial
  densities of all original and all protected points on a ``60 x 60`` grid over the screen,
  on-screen points only (eq. 16).
* :func:`suppressed_fraction`: share of the originally valid samples that the release leaves
  missing (e.g. events event-synth-pd could not make plausibly deniable); the pairwise metrics
  above skip those samples, so read them together.

Samples missing (NaN) in either dataset are left out of the pairwise metrics; a recording with no
pair of valid samples is left out of the average (and counted in ``n_recordings``).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import jensenshannon

from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["density_error", "gaze_density", "rmse", "rss_distance", "suppressed_fraction"]


def _matched(original: Dataset, protected: Dataset):
    if len(original) != len(protected):
        raise InvalidDataError(f"original has {len(original)} recordings, protected has "
                               f"{len(protected)}")
    for a, b in zip(original, protected, strict=True):
        if a.recording != b.recording or a.n_samples != b.n_samples:
            raise InvalidDataError(
                f"recording {a.recording!r} ({a.n_samples} rows) does not match "
                f"{b.recording!r} ({b.n_samples} rows); compare a dataset with its own release")
        yield a, b


def _pairs(original: Dataset, protected: Dataset):
    for a, b in _matched(original, protected):
        ok = ~(np.isnan(a.x) | np.isnan(b.x))
        yield (a.x[ok] - b.x[ok]) ** 2 + (a.y[ok] - b.y[ok]) ** 2


def rmse(original: Dataset, protected: Dataset) -> float:
    """Mean over recordings of the per-recording root mean squared distance (degrees).

    >>> from gazeprivacy.data import Recording
    >>> a = Dataset((Recording.from_arrays(recording="r", participant="p", x=[0.0, 0.0],
    ...                                    y=[0.0, 0.0], sampling_rate_hz=10),))
    >>> b = a.map(lambda r: r.with_gaze(r.x + 3.0, r.y + 4.0))
    >>> rmse(a, b)
    5.0
    """
    vals = [float(np.sqrt(d.mean())) for d in _pairs(original, protected) if d.size]
    return float(np.mean(vals)) if vals else float("nan")


def rss_distance(original: Dataset, protected: Dataset) -> float:
    """Seed 000 eq. (15) as printed: ``sqrt(sum_i d_i^2)`` per recording, averaged.

    >>> from gazeprivacy.data import Recording
    >>> a = Dataset((Recording.from_arrays(recording="r", participant="p", x=[0.0] * 4,
    ...                                    y=[0.0] * 4, sampling_rate_hz=10),))
    >>> rss_distance(a, a.map(lambda r: r.with_gaze(r.x + 1.0, r.y)))
    2.0
    """
    vals = [float(np.sqrt(d.sum())) for d in _pairs(original, protected) if d.size]
    return float(np.mean(vals)) if vals else float("nan")


def suppressed_fraction(original: Dataset, protected: Dataset) -> float:
    """Share of samples valid in ``original`` that are missing (NaN) in ``protected``.

    >>> from gazeprivacy.data import Recording
    >>> a = Dataset((Recording.from_arrays(recording="r", participant="p", x=[0.0] * 4,
    ...                                    y=[0.0] * 4, sampling_rate_hz=10),))
    >>> gone = np.array([np.nan, 1.0, 1.0, 1.0])
    >>> suppressed_fraction(a, a.map(lambda r: r.with_gaze(gone, gone)))
    0.25
    """
    valid = lost = 0
    for a, b in _matched(original, protected):
        ok = ~(np.isnan(a.x) | np.isnan(a.y))
        valid += int(ok.sum())
        lost += int((ok & (np.isnan(b.x) | np.isnan(b.y))).sum())
    return lost / valid if valid else float("nan")


def _geometry(ds: Dataset, geometry: Geometry | None) -> Geometry:
    if geometry is not None:
        return geometry
    geos = {r.geometry for r in ds if r.geometry is not None}
    if len(geos) != 1:
        raise InvalidParameterError(
            f"density_error needs one screen geometry; dataset {ds.name!r} has "
            f"{len(geos)} distinct ones: pass geometry=Geometry(...)")
    return geos.pop()


def gaze_density(ds: Dataset, *, geometry: Geometry, grid_size: int = 60) -> np.ndarray:
    """Counts of on-screen points per cell of a ``grid_size x grid_size`` grid (rows = y)."""
    x = np.concatenate([r.x for r in ds])
    y = np.concatenate([r.y for r in ds])
    on = geometry.contains(x, y)
    h, _, _ = np.histogram2d(y[on], x[on], bins=grid_size,
                             range=[[geometry.y_min_deg, geometry.y_max_deg],
                                    [geometry.x_min_deg, geometry.x_max_deg]])
    return h


def density_error(original: Dataset, protected: Dataset, *, geometry: Geometry | None = None,
                  grid_size: int = 60, base: float = 2.0) -> float:
    """Jensen-Shannon divergence of the on-screen spatial densities (seed 000 eq. 16).

    Parameters
    ----------
    original, protected : Dataset
    geometry : Geometry, optional
        The screen; default the datasets' (single) geometry.
    grid_size : int
        Cells per side (paper: 60).
    base : float
        Logarithm base (2: divergence in [0, 1]).

    Raises
    ------
    InvalidDataError
        A dataset has no on-screen point.

    Examples
    --------
    >>> from gazeprivacy.data import Recording
    >>> geo = Geometry(x_min_deg=0, x_max_deg=1, y_min_deg=0, y_max_deg=1)
    >>> a = Dataset((Recording.from_arrays(recording="r", participant="p", x=[0.1, 0.9],
    ...                                    y=[0.1, 0.9], sampling_rate_hz=10, geometry=geo),))
    >>> density_error(a, a)
    0.0
    """
    geo = _geometry(original, geometry)
    p = gaze_density(original, geometry=geo, grid_size=grid_size).ravel()
    q = gaze_density(protected, geometry=geo, grid_size=grid_size).ravel()
    for name, h in (("original", p), ("protected", q)):
        if h.sum() == 0:
            raise InvalidDataError(f"the {name} dataset has no on-screen point")
    return float(jensenshannon(p, q, base=base) ** 2)
