# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Small recordings with known fixations and saccades, and their event table."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from gazeprivacy.data import Dataset, Recording
from gazeprivacy.events.models import gaussian_profile, integrate_profile

RATE = 100.0


def event_dataset(n_participants: int, n_stimuli: int, *, rng: np.random.Generator,
                  n_fixations: int = 5) -> tuple[Dataset, pl.DataFrame]:
    """Alternating fixations (25 samples) and saccades (6 samples); a per-participant offset."""
    recs, rows = [], []
    for p in range(n_participants):
        bias = np.array([1.0 + p, 1.0 + 0.5 * p])
        for s in range(n_stimuli):
            xs, ys, t0 = [], [], 0
            centres = bias + rng.uniform(0, 8, (n_fixations, 2))
            rid = f"p{p}-s{s}"
            for f in range(n_fixations):
                n = 25
                xs.append(rng.normal(centres[f, 0], 0.1 + 0.02 * p, n))
                ys.append(rng.normal(centres[f, 1], 0.1, n))
                rows.append((rid, "fixation", t0, t0 + n))
                t0 += n
                if f < n_fixations - 1:
                    prof = gaussian_profile([300.0 + 40 * p, 0.45, 0.05])
                    sx, sy = integrate_profile(prof, 6, centres[f], centres[f + 1])
                    xs.append(sx)
                    ys.append(sy)
                    rows.append((rid, "saccade", t0, t0 + 6))
                    t0 += 6
            x, y = np.concatenate(xs), np.concatenate(ys)
            recs.append(Recording.from_arrays(recording=rid, participant=f"p{p}", x=x, y=y,
                                              sampling_rate_hz=RATE,
                                              labels={"stimulus": f"s{s}"}))
    events = pl.DataFrame(rows, schema=["recording", "name", "onset", "offset"], orient="row")
    return Dataset(tuple(recs), name="events-toy"), events


@pytest.fixture(scope="session")
def make_event_dataset():
    """Factory: ``make_event_dataset(n_participants, n_stimuli, rng=...)``."""
    return event_dataset
