# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Activity / task recognition with a sequence model (EHTask-style; seed 001, section 4.5.2).

Windows of ``window_s`` seconds of gaze (and head channels where present) are classified into a
recording label (activity, task, environment) by 1-D convolutions followed by a bidirectional GRU
and a linear read-out (PyTorch, CPU). Per sample the model sees the gaze velocity (deg/s, first
differences times the rate) — position-free, so it cannot shortcut on where a stimulus sits on a
screen — and a missing-sample indicator (missing samples enter as zero velocity); extra
channels (head pose) enter as velocities too, angle channels (``*_deg``) wrapped to
[-180, 180). Train and test participants are disjoint; the result is window accuracy against
the majority-class chance level.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gazeprivacy._validation import check_positive
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.metrics._torch_training import predict, train
from gazeprivacy.metrics.gaze_prediction import subsample_windows, wrap_deg

__all__ = ["ActivityClassifier", "ActivityResult", "activity_recognition", "activity_windows"]


def activity_windows(dataset: Dataset, label: str, *, window_s: float = 5.0,
                     stride_s: float | None = None, channels: tuple[str, ...] = (),
                     max_missing: float = 0.5,
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """``(inputs (n, T, 3 + c), labels (n,), participants (n,), skipped)`` for one rate.

    Windows with more than ``max_missing`` missing samples are skipped and counted.
    """
    check_positive(window_s=window_s)
    rate = dataset.sampling_rate_hz
    t_len = max(4, round(window_s * rate))
    step = max(1, round((stride_s or window_s / 2) * rate))
    xs, ys, owners = [], [], []
    skipped = 0
    for rec in dataset:
        if rec.n_samples < t_len + 1:
            continue
        value = rec.label(label)
        pos = np.column_stack([rec.x, rec.y, *(rec.channels[c] for c in channels)])
        step_diff = np.diff(pos, axis=0)
        for j, c in enumerate(channels):
            if c.endswith("_deg"):
                step_diff[:, 2 + j] = wrap_deg(step_diff[:, 2 + j])
        vel = step_diff * rate
        miss = np.isnan(vel).any(axis=1)
        vel = np.nan_to_num(vel, nan=0.0)
        feats = np.column_stack([vel, miss.astype(np.float64)])
        starts = np.arange(0, feats.shape[0] - t_len + 1, step)
        idx = starts[:, None] + np.arange(t_len)[None, :]
        win = feats[idx]
        ok = win[:, :, -1].mean(axis=1) <= max_missing
        skipped += int((~ok).sum())
        xs.append(win[ok])
        ys.append(np.full(int(ok.sum()), value, dtype=object))
        owners.append(np.full(int(ok.sum()), rec.participant, dtype=object))
    if not xs or sum(len(y) for y in ys) == 0:
        raise InvalidDataError(f"dataset {dataset.name!r}: no {window_s} s windows to classify")
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(owners), skipped


@dataclass
class ActivityClassifier:
    """Conv1d -> BiGRU -> linear classifier of gaze windows (scikit-learn style)."""

    conv_channels: int = 16
    hidden: int = 32
    epochs: int = 10
    batch_size: int = 64
    learning_rate: float = 3e-3
    classes_: np.ndarray = field(default=None, init=False, repr=False)  # type: ignore[assignment]
    scale_: np.ndarray = field(default=None, init=False, repr=False)  # type: ignore[assignment]
    net_: Any = field(default=None, init=False, repr=False)
    loss_: list[float] = field(default_factory=list, init=False, repr=False)

    def fit(self, x: np.ndarray, y: np.ndarray, *, rng: np.random.Generator,
            ) -> ActivityClassifier:
        self.classes_, codes = np.unique(y.astype(str), return_inverse=True)
        self.scale_ = np.maximum(x.reshape(-1, x.shape[2]).std(axis=0), 1e-9)
        n_in, n_out = x.shape[2], len(self.classes_)
        conv, hidden = self.conv_channels, self.hidden

        def build(torch: Any) -> Any:
            nn = torch.nn

            class _Net(nn.Module):
                def __init__(self) -> None:
                    super().__init__()
                    self.conv = nn.Sequential(
                        nn.Conv1d(n_in, conv, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
                        nn.Conv1d(conv, conv, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2))
                    self.gru = nn.GRU(conv, hidden, batch_first=True, bidirectional=True)
                    self.out = nn.Linear(2 * hidden, n_out)

                def forward(self, v: Any) -> Any:
                    h = self.conv(v.transpose(1, 2)).transpose(1, 2)
                    _, last = self.gru(h)
                    return self.out(torch.cat([last[0], last[1]], dim=1))

            return _Net()

        self.net_, self.loss_ = train(build, x / self.scale_, codes, loss="cross-entropy",
                                      epochs=self.epochs, batch_size=self.batch_size,
                                      learning_rate=self.learning_rate, rng=rng)
        return self

    def predict(self, x: np.ndarray) -> np.ndarray:
        return self.classes_[np.argmax(predict(self.net_, x / self.scale_), axis=1)]


@dataclass(frozen=True)
class ActivityResult:
    """Window accuracy on the test participants and the chance level."""

    accuracy: float
    chance: float
    n_classes: int
    n_train_windows: int
    n_test_windows: int
    skipped_windows: int


def activity_recognition(train_data: Dataset, test_data: Dataset, label: str, *,
                         rng: np.random.Generator, model: ActivityClassifier | None = None,
                         channels: tuple[str, ...] = (), max_train_windows: int | None = None,
                         **window_kw: float) -> ActivityResult:
    """Train on ``train_data`` and test on ``test_data`` (disjoint participants).

    The chance level is the share of the most frequent test label (majority guess);
    ``max_train_windows`` caps the training windows (a random subset drawn from ``rng``).
    """
    shared = set(train_data.participants) & set(test_data.participants)
    if shared:
        raise InvalidDataError(f"activity recognition: participants {sorted(shared)[:5]} are in "
                               "both train and test data; split by participant")
    xtr, ytr, _, s1 = activity_windows(train_data, label, channels=channels, **window_kw)
    xte, yte, _, s2 = activity_windows(test_data, label, channels=channels, **window_kw)
    keep = subsample_windows(len(ytr), max_train_windows, rng=rng)
    xtr, ytr = xtr[keep], ytr[keep]
    model = (model or ActivityClassifier()).fit(xtr, ytr, rng=rng)
    pred = model.predict(xte)
    _, counts = np.unique(yte.astype(str), return_counts=True)
    return ActivityResult(accuracy=float(np.mean(pred == yte.astype(str))),
                          chance=float(counts.max() / counts.sum()),
                          n_classes=len(model.classes_), n_train_windows=len(ytr),
                          n_test_windows=len(yte), skipped_windows=s1 + s2)
