# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""What the tracker adds and loses: white measurement noise, blinks (NaN gaps) and the pupil
channel."""

from __future__ import annotations

import math

import numpy as np

from gazeprivacy._scipy import scipy_signal
from gazeprivacy._validation import check_positive
from gazeprivacy.data.simulate.tasks import TaskModel
from gazeprivacy.data.simulate.traits import ParticipantTraits

__all__ = ["default_measurement_noise_deg"]


def default_measurement_noise_deg(sampling_rate_hz: float) -> float:
    """Default white measurement noise (deg, per axis): ``0.03 * min(1, 100 / rate)``.

    High-rate research trackers are more precise per sample than 30-120 Hz consumer and VR
    trackers; this rule keeps sample-to-sample velocity noise near 4 deg/s per axis at any rate
    of at least 100 Hz, so a 30 deg/s I-VT threshold behaves alike across rates.

    >>> default_measurement_noise_deg(100.0), default_measurement_noise_deg(1000.0)
    (0.03, 0.003)
    """
    check_positive(sampling_rate_hz=sampling_rate_hz)
    return round(0.03 * min(1.0, 100.0 / sampling_rate_hz), 12)


def _blink_mask(traits: ParticipantTraits, duration_s: float, rate: float, n: int,
                rng: np.random.Generator) -> np.ndarray:
    count = int(rng.poisson(traits.blink_rate_hz * duration_s))
    starts = rng.uniform(0.0, duration_s, size=count)
    sd = 0.25
    lengths = traits.blink_duration_s * np.exp(rng.normal(-sd * sd / 2, sd, size=count))
    i0 = np.minimum(np.ceil(starts * rate).astype(np.int64), n)
    i1 = np.minimum(np.ceil((starts + lengths) * rate).astype(np.int64), n)
    diff = np.zeros(n + 1, dtype=np.int64)
    np.add.at(diff, i0, 1)
    np.add.at(diff, i1, -1)
    return np.cumsum(diff[:-1]) > 0


def _pupil(traits: ParticipantTraits, task: TaskModel, n: int, rate: float,
           rng: np.random.Generator) -> np.ndarray:
    phi = math.exp(-1.0 / (2.0 * rate))  # AR(1) with a 2 s time constant
    sd = traits.pupil_variability_mm
    e = rng.normal(0.0, sd * math.sqrt(1.0 - phi * phi), size=n)
    slow = scipy_signal().lfilter([1.0], [1.0, -phi], e, zi=[phi * rng.normal(0.0, sd)])[0]
    return (traits.pupil_baseline_mm + task.pupil_offset_mm + slow
            + rng.normal(0.0, 0.02, size=n))
