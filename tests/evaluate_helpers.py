# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Shared test helpers for attacks, metrics, experiments and report tests.

Importable as ``evaluate_helpers``: the root ``tests/conftest.py`` puts ``tests/`` on
``sys.path`` (pytest runs in importlib mode); spawned worker processes inherit that path, so
they can unpickle the fake mechanism below by reference.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.guarantees import Guarantee, Kind, Release, Unit
from gazeprivacy.mechanisms.base import protect_recordings
from gazeprivacy.mechanisms.contract import Level, Mechanism

__all__ = ["FakeNoiseParams", "activity_dataset", "fake_featurizer", "fake_registry",
           "synthetic_events", "tiny_dataset", "wandering_people"]


def synthetic_events(*, n_participants: int = 6, n_stimuli: int = 6, n_events: int = 12,
                     n_features: int = 5, separation: float = 4.0, seed: int = 0,
                     noise: float = 1.0) -> pl.DataFrame:
    """A per-event feature table where each participant has its own feature mean.

    ``separation`` is the distance between participant means in units of the within-participant
    standard deviation ``noise``; recording ids are ``p{i}_s{j}``.
    """
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, separation, size=(n_participants, 2, n_features))
    rows = []
    for i in range(n_participants):
        for j in range(n_stimuli):
            for k, name in enumerate(("fixation", "saccade")):
                X = centres[i, k] + rng.normal(0.0, noise, size=(n_events, n_features))
                for e in range(n_events):
                    row = {"recording": f"p{i}_s{j}", "participant": f"p{i}", "name": name,
                           "onset_s": float(e), "n_samples": 10}
                    row.update({f"f{m}": float(X[e, m]) for m in range(n_features)})
                    rows.append(row)
    return pl.DataFrame(rows)


def synthetic_index(table: pl.DataFrame) -> pl.DataFrame:
    idx = table.select("recording", "participant").unique(maintain_order=True)
    return idx.with_columns(pl.col("recording").str.split("_").list.get(1).alias("group"))


def tiny_dataset(*, n_participants: int = 4, n_stimuli: int = 4, n_samples: int = 400,
                 rate_hz: float = 100.0, seed: int = 0, name: str = "tiny",
                 constant_task: bool = False) -> Dataset:
    """Random-walk gaze with participant-specific step size; labels stimulus, task, gender."""
    rng = np.random.default_rng(seed)
    geom = Geometry(x_min_deg=0.0, x_max_deg=30.0, y_min_deg=0.0, y_max_deg=20.0)
    recs = []
    for i in range(n_participants):
        step = 0.05 + 0.1 * i
        for j in range(n_stimuli):
            walk = np.cumsum(rng.normal(0.0, step, size=(n_samples, 2)), axis=0)
            xy = walk + np.array([15.0, 10.0])
            x = np.clip(xy[:, 0], 0, 30)
            y = np.clip(xy[:, 1], 0, 20)
            recs.append(Recording.from_arrays(
                recording=f"p{i}_s{j}", participant=f"p{i}", x=x, y=y, sampling_rate_hz=rate_hz,
                labels={"stimulus": f"s{j}", "task": "free" if constant_task else f"t{j % 2}",
                        "gender": "f" if i % 2 else "m"}, geometry=geom))
    return Dataset(tuple(recs), name=name)


def fake_featurizer(dataset: Dataset) -> pl.DataFrame:
    """Cheap per-'event' features: fixed 50-sample chunks alternate fixation / saccade."""
    rows = []
    for r in dataset.recordings:
        for k, start in enumerate(range(0, r.n_samples - 49, 50)):
            x = r.x[start:start + 50]
            y = r.y[start:start + 50]
            dx = np.diff(x)
            dy = np.diff(y)
            rows.append({"recording": r.recording, "participant": r.participant,
                         "name": "fixation" if k % 2 == 0 else "saccade",
                         "onset_s": float(r.t[start]), "n_samples": 50,
                         "step_mean": float(np.nanmean(np.hypot(dx, dy))),
                         "step_std": float(np.nanstd(np.hypot(dx, dy))),
                         "std_x": float(np.nanstd(x)), "std_y": float(np.nanstd(y))})
    return pl.DataFrame(rows)


@dataclass(frozen=True, kw_only=True)
class FakeNoiseParams:
    """Gaussian jitter with std ``1 / epsilon`` degrees (a test-only 'mechanism')."""

    epsilon: float
    mode: str = "sound"

    @classmethod
    def paper(cls, *, epsilon: float) -> FakeNoiseParams:
        return cls(epsilon=epsilon)


def _fake_protect(dataset: Dataset, params: FakeNoiseParams, *, rng: np.random.Generator,
                  progress: bool = False) -> Release[Dataset]:
    def one(rec: Recording, child: np.random.Generator) -> Release[Recording]:
        sd = 1.0 / params.epsilon
        out = rec.with_gaze(rec.x + child.normal(0, sd, rec.n_samples),
                            rec.y + child.normal(0, sd, rec.n_samples))
        g = Guarantee(mechanism="fake-noise", kind=Kind.LOCAL_DP, unit=Unit.WINDOW,
                      epsilon=params.epsilon, mode=params.mode,
                      parameters={"epsilon": params.epsilon})
        return Release(out, g)

    return protect_recordings(dataset, one, rng=rng, units=lambda r: r.n_samples // 50,
                              progress=progress)


def _fake_guarantee(params, shape):
    g = Guarantee(mechanism="fake-noise", kind=Kind.LOCAL_DP, unit=Unit.WINDOW,
                  epsilon=params.epsilon, mode=params.mode, parameters={"epsilon": params.epsilon})
    return g.compose(shape.units_per_participant(lambda r: r.n_samples // 50))


def fake_registry() -> dict[str, Mechanism]:
    spec = Mechanism(name="fake-noise", level=Level.SAMPLES, params_type=FakeNoiseParams,
                     run=_fake_protect, guarantee=_fake_guarantee,
                     summary="test-only Gaussian jitter")
    return {"fake-noise": spec}


def activity_dataset(*, n_participants: int = 6, duration_s: float = 30.0, rate_hz: float = 30.0,
                     seed: int = 0, name: str = "activities") -> Dataset:
    """Two activities per participant: 'pursuit' (slow sines: predictable 100 ms ahead) and
    'saccadic' (a new position every 600 ms), labels ``activity`` and ``gender``; a short blink
    gap (NaN) in each recording. The learned utilities must learn both from raw data."""
    rng = np.random.default_rng(seed)
    geom = Geometry(x_min_deg=-15.0, x_max_deg=15.0, y_min_deg=-10.0, y_max_deg=10.0)
    t = np.arange(0, duration_s, 1 / rate_hz)
    recs = []
    for p in range(n_participants):
        for act in ("pursuit", "saccadic"):
            if act == "pursuit":
                x = 10 * np.sin(2 * np.pi * rng.uniform(0.3, 0.6) * t + rng.uniform(0, 6))
                y = 6 * np.cos(2 * np.pi * rng.uniform(0.3, 0.6) * t + rng.uniform(0, 6))
            else:
                jumps = np.repeat(rng.uniform(-3, 3, (t.size // 18 + 1, 2)), 18, axis=0)[:t.size]
                x, y = jumps[:, 0], jumps[:, 1]
            x = x + rng.normal(0, 0.1, t.size)
            y = y + rng.normal(0, 0.1, t.size)
            x[40:44] = np.nan
            y[40:44] = np.nan
            recs.append(Recording.from_arrays(
                recording=f"p{p}-{act}", participant=f"p{p}", t=t, x=x, y=y, geometry=geom,
                labels={"activity": act, "gender": "f" if p % 2 else "m"}))
    return Dataset(tuple(recs), name=name)


def wandering_people(n: int, seed: int = 0, *, groups: bool = False) -> Dataset:
    """Each participant looks around a centre of their own (40 x 30 deg screen, 60 Hz, two
    recordings of 4 s) with their own spread and pace. ``groups``: the label ``group`` ("a":
    the centre in the left half of the screen, "b": the right half) follows the centre, and
    one person in three is "a" (chance 2/3, not 1/2); the random stream is the same either
    way apart from where the centre's x falls."""
    geo = Geometry(x_min_deg=0, x_max_deg=40, y_min_deg=0, y_max_deg=30)
    rng = np.random.default_rng(seed)
    out = []
    for p in range(n):
        group = "a" if p % 3 == 0 else "b"
        labels = {"labels": {"group": group}} if groups else {}
        lo, hi = ((5, 18) if group == "a" else (22, 35)) if groups else (5, 35)
        cx = rng.uniform(lo, hi)
        cy, spread, step = rng.uniform(5, 25), rng.uniform(0.3, 3.0), rng.uniform(0.02, 0.6)
        for r in range(2):
            z = np.zeros((240, 2))
            for i in range(1, 240):
                z[i] = (1 - step) * z[i - 1] + np.sqrt(1 - (1 - step) ** 2) * rng.normal(0, 1, 2)
            out.append(Recording.from_arrays(
                recording=f"p{p}-r{r}", participant=f"p{p}",
                x=np.clip(cx + spread * z[:, 0], 0, 40), y=np.clip(cy + spread * z[:, 1], 0, 30),
                sampling_rate_hz=60, geometry=geo, **labels))
    return Dataset(tuple(out), name="people")
