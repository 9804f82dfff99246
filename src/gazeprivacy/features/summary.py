# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Light per-window summary features of raw gaze, for quick biometric and task baselines.

Per window of ``window_s`` seconds: percentiles (10, 50, 90, 99) of the sample-to-sample speed
(deg/s), the fraction of samples above 30 deg/s (an I-VT saccade proxy), horizontal and vertical
dispersion (standard deviation), the mean absolute horizontal and vertical velocity, the mean
signed horizontal velocity (reading direction), the fraction of missing samples and the median
gaze position. No event detection: cheap enough for thousands of windows, and a floor against
which the George & Routray event features of the RBFN attack can be compared.
"""

from __future__ import annotations

import warnings

import numpy as np

from gazeprivacy._validation import check_positive
from gazeprivacy.data.recording import Dataset, Recording

__all__ = ["SUMMARY_FEATURES", "window_summary_features"]

SUMMARY_FEATURES = (
    "speed_p10", "speed_p50", "speed_p90", "speed_p99", "saccadic_fraction", "std_x", "std_y",
    "mean_abs_vx", "mean_abs_vy", "mean_vx", "missing_fraction", "median_x", "median_y",
)


def _one(rec: Recording, window: int) -> np.ndarray:
    n_win = rec.n_samples // window
    if n_win == 0:
        return np.zeros((0, len(SUMMARY_FEATURES)))
    x = rec.x[: n_win * window].reshape(n_win, window)
    y = rec.y[: n_win * window].reshape(n_win, window)
    vx = np.diff(x, axis=1) * rec.sampling_rate_hz
    vy = np.diff(y, axis=1) * rec.sampling_rate_hz
    speed = np.hypot(vx, vy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN windows give NaN, kept below
        cols = [*np.nanpercentile(speed, [10, 50, 90, 99], axis=1),
                np.nanmean(speed > 30, axis=1) if speed.size else np.zeros(n_win),
                np.nanstd(x, axis=1), np.nanstd(y, axis=1),
                np.nanmean(np.abs(vx), axis=1), np.nanmean(np.abs(vy), axis=1),
                np.nanmean(vx, axis=1), np.isnan(x).mean(axis=1),
                np.nanmedian(x, axis=1), np.nanmedian(y, axis=1)]
    return np.column_stack(cols)


def window_summary_features(dataset: Dataset, *, window_s: float = 10.0,
                            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(features (n, 13), participants (n,), recordings (n,))`` over all full windows.

    Windows whose samples are all missing give NaN features and are dropped here (their number is
    the difference to ``sum(n_samples // window)``); partial trailing windows are not used.
    """
    check_positive(window_s=window_s)
    feats, owners, recs = [], [], []
    for rec in dataset:
        f = _one(rec, max(2, round(window_s * rec.sampling_rate_hz)))
        ok = ~np.isnan(f).any(axis=1)
        feats.append(f[ok])
        owners.append(np.full(int(ok.sum()), rec.participant, dtype=object))
        recs.append(np.full(int(ok.sum()), rec.recording, dtype=object))
    if not feats:
        return np.zeros((0, len(SUMMARY_FEATURES))), np.zeros(0, object), np.zeros(0, object)
    return np.vstack(feats), np.concatenate(owners), np.concatenate(recs)
