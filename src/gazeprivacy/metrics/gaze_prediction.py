# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Gaze prediction utility (DGaze-style; seed 001, section 4.5.3).

From the past ``history_s`` (default 0.5 s) of gaze — and head pose channels where the dataset has
them — predict the gaze position ``horizon_s`` (default 0.1 s) ahead. A small GRU (PyTorch, CPU)
is trained on one dataset (e.g. the protected release) and tested on held-out participants of
another (e.g. the raw data): the mean angular error in degrees is compared with the
constant-position baseline (predict no movement) and with the same model trained on raw data.

Inputs are positions relative to the last observed sample (translation invariance) and the
target is the displacement to the future sample; extra channels (e.g. head yaw / pitch) enter
relative to their last value too, angles (channel names ending in ``_deg``) wrapped to
[-180, 180) so a head turn through +-180 deg is a small change; windows that contain a missing
sample (NaN) are skipped and counted. Angular error is the great-circle distance between
(azimuth, elevation) pairs in degrees (for screen data the two are x/y in degrees: a close
approximation near the centre).

On saccadic free viewing the constant-position baseline is hard to beat 100 ms ahead: gaze stays
put most of the time and saccade onsets are not predictable from gaze alone (on the simulator a
GRU gains about 0.2 %). Smooth movements (pursuit, head-driven gaze in VR) are where prediction
pays; DGaze also used head and scene information.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gazeprivacy._validation import check_int, check_positive
from gazeprivacy.data.recording import Dataset
from gazeprivacy.events.kinematics import angular_distance_deg
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.metrics._torch_training import predict, train

__all__ = [
    "GazePredictionResult",
    "GazePredictor",
    "gaze_prediction_utility",
    "gaze_prediction_windows",
    "subsample_windows",
    "wrap_deg",
]


def wrap_deg(angle: np.ndarray) -> np.ndarray:
    """Angle differences wrapped to [-180, 180) degrees.

    >>> wrap_deg(np.array([350.0, -190.0, 10.0]))
    array([-10., 170.,  10.])
    """
    return (np.asarray(angle, dtype=float) + 180.0) % 360.0 - 180.0


def gaze_prediction_windows(dataset: Dataset, *, history_s: float = 0.5, horizon_s: float = 0.1,
                            stride_s: float = 0.1, channels: tuple[str, ...] = (),
                            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Cut ``dataset`` into prediction windows.

    Returns ``(inputs (n, T, 2 + c), targets (n, 2), last (n, 2), participants (n,), skipped)``:
    inputs relative to the last observed position, targets the displacement ``horizon_s`` ahead,
    ``last`` the absolute last position, and the number of windows skipped for missing samples.
    """
    check_positive(history_s=history_s)
    check_positive(horizon_s=horizon_s)
    check_positive(stride_s=stride_s)
    xs, ys, lasts, owners = [], [], [], []
    skipped = 0
    for rec in dataset:
        rate = rec.sampling_rate_hz
        t_len = max(2, round(history_s * rate))
        h = max(1, round(horizon_s * rate))
        step = max(1, round(stride_s * rate))
        n = rec.n_samples
        if n < t_len + h:
            continue
        cols = [rec.x, rec.y, *(rec.channels[c] for c in channels)]
        data = np.column_stack(cols)
        starts = np.arange(0, n - t_len - h + 1, step)
        idx = starts[:, None] + np.arange(t_len)[None, :]
        win = data[idx]  # (m, T, 2 + c)
        fut = data[starts + t_len - 1 + h, :2]
        ok = ~(np.isnan(win).any(axis=(1, 2)) | np.isnan(fut).any(axis=1))
        skipped += int((~ok).sum())
        win, fut = win[ok], fut[ok]
        last = win[:, -1, :2].copy()
        win -= win[:, -1:, :]
        for j, c in enumerate(channels):
            if c.endswith("_deg"):
                win[:, :, 2 + j] = wrap_deg(win[:, :, 2 + j])
        xs.append(win)
        ys.append(fut - last)
        lasts.append(last)
        owners.append(np.full(win.shape[0], rec.participant, dtype=object))
    if not xs:
        raise InvalidDataError(f"dataset {dataset.name!r} has no recording long enough for a "
                               f"{history_s} s history and a {horizon_s} s horizon")
    return (np.concatenate(xs), np.concatenate(ys), np.concatenate(lasts),
            np.concatenate(owners), skipped)


@dataclass
class GazePredictor:
    """A GRU that predicts the future displacement of gaze (scikit-learn style)."""

    hidden: int = 32
    epochs: int = 8
    batch_size: int = 256
    learning_rate: float = 3e-3
    net_: Any = field(default=None, init=False, repr=False)
    scale_: float = field(default=1.0, init=False)
    channel_scale_: np.ndarray = field(default=None, init=False,  # type: ignore[assignment]
                                       repr=False)
    loss_: list[float] = field(default_factory=list, init=False, repr=False)

    def fit(self, x: np.ndarray, y: np.ndarray, *, rng: np.random.Generator) -> GazePredictor:
        check_int(epochs=self.epochs)
        n_in = x.shape[2]
        hidden = self.hidden
        # Gaze inputs and targets share one scale so the network sees numbers near 1; extra
        # channels (head pose) get their own.
        self.scale_ = float(np.std(x[:, :, :2])) or 1.0
        self.channel_scale_ = np.ones(0)
        if n_in > 2:
            sd = x[:, :, 2:].reshape(-1, n_in - 2).std(axis=0)
            self.channel_scale_ = np.where(sd > 0, sd, 1.0)

        def build(torch: Any) -> Any:
            class _Net(torch.nn.Module):
                def __init__(self) -> None:
                    super().__init__()
                    self.gru = torch.nn.GRU(n_in, hidden, batch_first=True)
                    self.out = torch.nn.Linear(hidden, 2)

                def forward(self, v: Any) -> Any:
                    _, h = self.gru(v)
                    return self.out(h[-1])

            return _Net()

        # L1 loss: the metric is the mean angular error, whose minimiser is a median, and gaze
        # mostly stays put for 100 ms; a squared loss would smear saccades into every prediction.
        self.net_, self.loss_ = train(build, self._scaled(x), y / self.scale_, loss="l1",
                                      epochs=self.epochs, batch_size=self.batch_size,
                                      learning_rate=self.learning_rate, rng=rng)
        return self

    def _scaled(self, x: np.ndarray) -> np.ndarray:
        out = x.astype(np.float32).copy()
        out[:, :, :2] /= self.scale_
        if out.shape[2] > 2:
            out[:, :, 2:] /= self.channel_scale_.astype(np.float32)
        return out

    def predict(self, x: np.ndarray) -> np.ndarray:
        return predict(self.net_, self._scaled(x)) * self.scale_


@dataclass(frozen=True)
class GazePredictionResult:
    """Mean angular errors (deg) on the test windows."""

    model_error_deg: float
    baseline_error_deg: float
    n_train_windows: int
    n_test_windows: int
    skipped_windows: int


def _angular_error(pred: np.ndarray, target: np.ndarray, last: np.ndarray) -> float:
    p = last + pred
    t = last + target
    return float(np.mean(angular_distance_deg(p[:, 0], p[:, 1], t[:, 0], t[:, 1],
                                              metric="great-circle")))


def subsample_windows(n: int, max_windows: int | None, *,
                      rng: np.random.Generator) -> np.ndarray:
    """Indices of at most ``max_windows`` of ``n`` windows (a sorted random subset; all if None).

    >>> subsample_windows(5, None, rng=np.random.default_rng(0))
    array([0, 1, 2, 3, 4])
    >>> len(subsample_windows(100, 10, rng=np.random.default_rng(0)))
    10
    """
    if max_windows is None or n <= max_windows:
        return np.arange(n)
    return np.sort(rng.choice(n, size=max_windows, replace=False))


def gaze_prediction_utility(train_data: Dataset, test_data: Dataset, *,
                            rng: np.random.Generator, model: GazePredictor | None = None,
                            channels: tuple[str, ...] = (), max_train_windows: int | None = None,
                            **window_kw: float) -> GazePredictionResult:
    """Train on ``train_data`` and report errors on ``test_data`` (participants must differ).

    ``max_train_windows`` caps the training windows (a random subset drawn from ``rng``).

    Raises
    ------
    InvalidDataError
        A participant is in both sets (the test would leak), or no usable (complete) training
        or test window.
    """
    shared = set(train_data.participants) & set(test_data.participants)
    if shared:
        raise InvalidDataError(f"gaze prediction: participants {sorted(shared)[:5]} are in both "
                               "train and test data; split by participant")
    xtr, ytr, _, _, s1 = gaze_prediction_windows(train_data, channels=channels, **window_kw)
    xte, yte, lte, _, s2 = gaze_prediction_windows(test_data, channels=channels, **window_kw)
    for what, n, skipped in (("training", xtr.shape[0], s1), ("test", xte.shape[0], s2)):
        if n == 0:
            raise InvalidDataError(f"gaze prediction: no complete {what} window ({skipped} "
                                   "skipped for missing samples); the data are too sparse")
    keep = subsample_windows(xtr.shape[0], max_train_windows, rng=rng)
    xtr, ytr = xtr[keep], ytr[keep]
    model = (model or GazePredictor()).fit(xtr, ytr, rng=rng)
    return GazePredictionResult(
        model_error_deg=_angular_error(model.predict(xte), yte, lte),
        baseline_error_deg=_angular_error(np.zeros_like(yte), yte, lte),
        n_train_windows=int(xtr.shape[0]), n_test_windows=int(xte.shape[0]),
        skipped_windows=s1 + s2)
