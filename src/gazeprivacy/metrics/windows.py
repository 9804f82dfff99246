# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Per-window kinematic features of gaze (:func:`window_feature_table`): what the realism
discriminator (:mod:`gazeprivacy.metrics.realism`), its train-on-release task forest and the
membership attacker (:mod:`gazeprivacy.attacks.membership`) read of each window.

Each recording is cut into non-overlapping windows (1 s by default); every window gets the 17
:data:`WINDOW_FEATURES` (speed, acceleration, dispersion, position, direction and missing-data
summaries; :data:`WINDOW_FEATURE_GROUPS` sorts them by what they describe). Speeds use the
adaptive detector's filter at the recording's rate (:func:`sample_speed_deg_s`). Moved here
from :mod:`gazeprivacy.metrics.realism`, which re-exports every public name.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import polars as pl

from gazeprivacy._validation import check_positive
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.events import (
    AdaptiveParams,
    angular_distance_deg,
    resolve_metric,
    smoothed_speed_deg_s,
)
from gazeprivacy.events.kinematics import segments
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["WINDOW_FEATURES", "WINDOW_FEATURE_GROUPS", "sample_speed_deg_s",
           "window_feature_table"]

#: Per-window features of :func:`window_feature_table` (units in the names; deg, s).
WINDOW_FEATURES = (
    "missing_fraction", "speed_mean_deg_s", "speed_median_deg_s", "speed_std_deg_s",
    "speed_p10_deg_s", "speed_p90_deg_s", "speed_max_deg_s", "accel_mean_deg_s2",
    "accel_median_deg_s2", "accel_p90_deg_s2", "fast_fraction", "dispersion_deg",
    "x_std_deg", "y_std_deg", "x_mean_deg", "y_mean_deg", "horizontal_share",
)
#: The window features by what they describe (every feature in one group): for reading a
#: discriminator by parts (``discriminator_auc(..., features=...)``,
#: ``scripts/realism_features.py --groups``).
WINDOW_FEATURE_GROUPS: Mapping[str, tuple[str, ...]] = {
    "missing data": ("missing_fraction",),
    "speed": ("speed_mean_deg_s", "speed_median_deg_s", "speed_std_deg_s", "speed_p10_deg_s",
              "speed_p90_deg_s", "speed_max_deg_s", "fast_fraction"),
    "acceleration": ("accel_mean_deg_s2", "accel_median_deg_s2", "accel_p90_deg_s2"),
    "spread": ("dispersion_deg", "x_std_deg", "y_std_deg", "horizontal_share"),
    "position": ("x_mean_deg", "y_mean_deg"),
}
_FAST_DEG_S = 30.0  # fast_fraction: share of valid samples faster than this (I-VT's threshold)
_MIN_WINDOW_SAMPLES = 4


def sample_speed_deg_s(recording: Recording) -> np.ndarray:
    """Per-sample speed (deg/s) with the adaptive detector's filter at the recording's rate:
    Savitzky-Golay (``AdaptiveParams.for_rate``) at >= 100 Hz, else the two-point speed of the
    preceding interval (the first sample of a segment takes its following interval's). NaN for
    missing samples and samples alone in their segment; nothing crosses a gap.

    >>> r = Recording.from_arrays(recording="r", participant="p", x=np.arange(6) * 0.5,
    ...                           y=np.zeros(6), sampling_rate_hz=50)
    >>> sample_speed_deg_s(r).round(6).tolist()
    [25.0, 25.0, 25.0, 25.0, 25.0, 25.0]
    """
    p = AdaptiveParams.for_rate(recording.sampling_rate_hz)
    if p.window_s is not None:
        return smoothed_speed_deg_s(recording, window_s=p.window_s, polyorder=p.polyorder)
    out = np.full(recording.n_samples, np.nan)
    metric = resolve_metric(recording)
    t, x, y = recording.t, recording.x, recording.y
    for a, e in zip(*segments(recording), strict=True):
        if e - a < 2:
            continue
        d = angular_distance_deg(x[a:e - 1], y[a:e - 1], x[a + 1:e], y[a + 1:e], metric=metric)
        v = d / np.diff(t[a:e])
        out[a + 1:e] = v
        out[a] = v[0]
    return out


def _nanquantiles(a: np.ndarray, qs: Sequence[float]) -> list[np.ndarray]:
    """Row-wise quantiles (linear interpolation, as :func:`numpy.nanpercentile`) of a 2-D
    array, ignoring NaN; NaN for rows without a finite value. Sorts once for all ``qs``."""
    srt = np.sort(a, axis=1)  # NaN sorts last
    cnt = np.isfinite(a).sum(axis=1)
    rows = np.arange(a.shape[0])
    out = []
    for q in qs:
        pos = q * np.maximum(cnt - 1, 0)
        lo = np.floor(pos).astype(int)
        hi = np.minimum(lo + 1, np.maximum(cnt - 1, 0))
        frac = pos - lo
        val = srt[rows, lo] * (1 - frac) + srt[rows, hi] * frac
        out.append(np.where(cnt > 0, val, np.nan))
    return out


def _window_rows(rec: Recording, n: int) -> dict[str, np.ndarray] | None:
    """The features of ``rec``'s full windows of ``n`` samples (None when it has none)."""
    k = rec.n_samples // n
    if k == 0:
        return None
    m = k * n
    speed = sample_speed_deg_s(rec)
    accel = np.full(rec.n_samples, np.nan)
    accel[1:] = np.abs(np.diff(speed)) / np.diff(rec.t)
    x, y = rec.x[:m].reshape(k, n), rec.y[:m].reshape(k, n)
    v, acc = speed[:m].reshape(k, n), accel[:m].reshape(k, n)
    dx, dy = np.abs(np.diff(x, axis=1)), np.abs(np.diff(y, axis=1))
    with warnings.catch_warnings():  # all-NaN windows give NaN features, by design
        warnings.simplefilter("ignore", RuntimeWarning)
        sx, sy = np.nansum(dx, axis=1), np.nansum(dy, axis=1)
        vq = _nanquantiles(v, (0.1, 0.5, 0.9))
        aq = _nanquantiles(acc, (0.5, 0.9))
        valid = np.isfinite(v)
        feats = {
            "missing_fraction": np.isnan(x).mean(axis=1),
            "speed_mean_deg_s": np.nanmean(v, axis=1), "speed_median_deg_s": vq[1],
            "speed_std_deg_s": np.nanstd(v, axis=1), "speed_p10_deg_s": vq[0],
            "speed_p90_deg_s": vq[2], "speed_max_deg_s": np.nanmax(v, axis=1),
            "accel_mean_deg_s2": np.nanmean(acc, axis=1), "accel_median_deg_s2": aq[0],
            "accel_p90_deg_s2": aq[1],
            "fast_fraction": ((v > _FAST_DEG_S).sum(axis=1)
                              / np.maximum(valid.sum(axis=1), 1)),
            "dispersion_deg": (np.nanmax(x, axis=1) - np.nanmin(x, axis=1)
                               + np.nanmax(y, axis=1) - np.nanmin(y, axis=1)),
            "x_std_deg": np.nanstd(x, axis=1), "y_std_deg": np.nanstd(y, axis=1),
            "x_mean_deg": np.nanmean(x, axis=1), "y_mean_deg": np.nanmean(y, axis=1),
            "horizontal_share": np.where(sx + sy > 0, sx / np.where(sx + sy > 0, sx + sy, 1),
                                         np.nan),
        }
    return feats


def window_feature_table(dataset: Dataset, *, window_s: float = 1.0) -> pl.DataFrame:
    """Per-window features (:data:`WINDOW_FEATURES`) of every recording.

    Each recording is cut into non-overlapping windows of ``round(window_s * rate)`` samples
    from its first sample; a last, shorter window is dropped. Features are NaN-aware (a window
    with no valid sample has NaN features and ``missing_fraction`` 1).

    Returns
    -------
    polars.DataFrame
        ``recording, participant, window`` (0-based index in the recording) and the features.

    Raises
    ------
    InvalidParameterError
        ``window_s`` is not > 0, or holds fewer than 4 samples at some recording's rate.

    >>> from gazeprivacy.data.simulate import simulate_dataset
    >>> ds = simulate_dataset(n_participants=1, tasks="reading", duration_s=3.0,
    ...                       sampling_rate_hz=60, rng=np.random.default_rng(0))
    >>> window_feature_table(ds, window_s=1.0).height
    3
    """
    check_positive(window_s=window_s)
    cols: dict[str, list[np.ndarray]] = {c: [] for c in ("recording", "participant", "window",
                                                          *WINDOW_FEATURES)}
    for rec in dataset.recordings:
        n = round(window_s * rec.sampling_rate_hz)
        if n < _MIN_WINDOW_SAMPLES:
            raise InvalidParameterError(
                f"window_s must hold at least {_MIN_WINDOW_SAMPLES} samples, got {window_s} s "
                f"= {n} at {rec.sampling_rate_hz} Hz (recording {rec.recording!r}); choose a "
                "longer window_s")
        f = _window_rows(rec, n)
        if f is None:
            continue
        k = f["missing_fraction"].size
        cols["recording"].append(np.full(k, rec.recording, dtype=object))
        cols["participant"].append(np.full(k, rec.participant, dtype=object))
        cols["window"].append(np.arange(k))
        for c in WINDOW_FEATURES:
            cols[c].append(np.asarray(f[c], dtype=np.float64))
    if not cols["window"]:
        raise InvalidDataError(f"no recording of {dataset.name!r} is at least {window_s} s "
                               "long; choose a shorter window_s")
    data = {c: np.concatenate(v) for c, v in cols.items()}
    return pl.DataFrame({"recording": data["recording"].astype(str),
                         "participant": data["participant"].astype(str),
                         "window": data["window"].astype(np.int64),
                         **{c: data[c] for c in WINDOW_FEATURES}})
