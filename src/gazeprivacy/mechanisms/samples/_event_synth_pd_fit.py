# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""event-synth-PD's model fitting: the saccade C-VAE's training set and schedule, and the
fixations' per-set sample statistics. Part of
:mod:`gazeprivacy.mechanisms.samples.event_synth_pd` (its module docstring has the citation and
the privacy argument); kept apart so that the mechanism's module stays readable whole.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gazeprivacy.data.recording import Dataset
from gazeprivacy.mechanisms.samples._event_synthesis import FittedEvents

__all__ = ["CVAE_FAST_PROFILES", "CVAE_PATIENCE", "CVAE_VALIDATION", "sample_stats",
           "train_cvae"]

CVAE_FAST_PROFILES = 30_000
CVAE_VALIDATION = 5_000
CVAE_PATIENCE = 5


def sample_stats(x: np.ndarray, y: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``(mean x, mean y, std x, std y)`` of consecutive sample sets of sizes ``n`` (NaN for
    sets with missing samples), as ``numpy.mean`` / ``numpy.std`` per set."""
    seg = np.repeat(np.arange(n.size), n)
    size = np.maximum(n, 1).astype(np.float64)
    out = []
    for v in (x, y):
        mean = np.bincount(seg, weights=v, minlength=n.size) / size
        out.append(mean)
    for v, mean in zip((x, y), out[:2], strict=True):
        out.append(np.sqrt(np.bincount(seg, weights=(v - mean[seg]) ** 2, minlength=n.size)
                           / size))
    return np.column_stack(out)


def train_cvae(dataset: Dataset, fitted: list[FittedEvents], params: Any,
                rng: np.random.Generator):
    from gazeprivacy.events.cvae import SaccadeCVAE

    prof = [f.saccade_profiles for f in fitted if f.n_saccades]
    if sum(p.shape[0] for p in prof) < 2:
        return None
    owners = np.concatenate([np.full(f.n_saccades, r.participant, dtype=object)
                             for r, f in zip(dataset.recordings, fitted, strict=True)])
    n = sum(p.shape[0] for p in prof)
    if params.cvae_training == "full":
        model = SaccadeCVAE(epochs=params.cvae_epochs, batch_size=256)
    else:  # the batch grows with the training set (16+ steps a pass), the step with the batch
        n_train = min(n - min(CVAE_VALIDATION, n // 5), CVAE_FAST_PROFILES)
        batch = int(np.clip(n_train // 16, 256, 1024))
        model = SaccadeCVAE(epochs=params.cvae_epochs, batch_size=batch,
                            learning_rate=3e-3 * math.sqrt(batch / 256),
                            max_profiles=CVAE_FAST_PROFILES, patience=CVAE_PATIENCE,
                            validation_size=CVAE_VALIDATION)
    return model.fit(
        np.vstack(prof), np.concatenate([f.saccade_amplitude_deg for f in fitted]),
        np.concatenate([f.saccade_duration_s for f in fitted]), owners, rng=rng)
