# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Data-free baselines: reference releases that read no participant data.

A utility or fidelity number means little alone: a release whose RMSE is 3.4 deg is no use when
always answering the screen centre gives 3.67 deg. The runner therefore runs, beside the
mechanisms, releases built from the public shape of the input only (recording ids, participant
ids for scoring, timestamps, sampling rate and screen geometry) -- never from gaze, pupil,
missing-sample masks (one named exception below) or extra channels:

* ``baseline-centre``: every sample at the centre of the screen;
* ``baseline-uniform``: independent uniform random points on the screen;
* ``baseline-centre-gaussian``: independent points from N(screen centre, (W/6, H/6)), clipped to
  the screen: the centre-bias prior of saliency benchmarks (Tatler 2007; Judd et al. 2012), the
  strongest data-free density guess we know (on a hidden hold-out of 60 Hz scene-camera gaze its
  density error was 0.049, against 0.146 for uniform points and 0.153 for the simulator prior);
* ``baseline-prior``: the simulator (:mod:`gazeprivacy.data.simulate`, free-viewing task) at the
  recording's rate, length and geometry, with fresh participant traits drawn *per recording*
  (so the release carries no stable identity across recordings -- but one within a recording:
  where an attack puts segments of one recording on both sides, as on the VR set, it links
  them, 6.8x chance there);
* ``baseline-prior-chunks``: the same with fresh traits every 5 s (a public chunk length), so no
  stretch longer than 5 s shares simulated traits.

**Structure.** Every baseline keeps the input's *structure*: recordings, their lengths and the
raw clock ``t`` (see :attr:`Baseline.keeps`). That structure alone identifies people: on DOVES
a constant path is one I-VT fixation as long as the recording, and the mechanism-aware forest
re-identifies ``baseline-centre`` at 4x chance from that duration (docs/results/honest.md).
The runner's ``[release_view]`` (:mod:`gazeprivacy.experiments.release_view`) removes it: the
sealed clock and a public recording length for every release. One baseline reads more than the
shape: ``baseline-centre-mask`` writes NaN where the input is missing (the missing-sample mask,
as DPGazeSynth's ``missing="keep"`` releases it), so the table shows what the mask alone gives.

Why here and not in :data:`gazeprivacy.mechanisms.MECHANISMS`: they are not privacy mechanisms
(no parameters, no guarantee, nothing to audit or to run partition-wise), and registering them
there would let ``protect`` and the CLI hand them out as releases. The runner treats a
:data:`BASELINES` name like a mechanism without a guarantee record: its cells have mode
``baseline`` and no epsilon, and every evaluation runs on them. Their releases drop the pupil and
extra channels (both are participant data); the labels stay, since the runner's splits and
tasks read them from the raw side anyway.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import InvalidDataError

__all__ = ["BASELINES", "BASELINE_PREFIX", "DEFAULT_BASELINES", "Baseline", "is_baseline"]

BASELINE_PREFIX = "baseline-"


def is_baseline(name: str) -> bool:
    """Whether ``name`` is a data-free baseline's name (they all start with ``baseline-``)."""
    return name.startswith(BASELINE_PREFIX)


def _geometry(rec: Recording) -> Geometry:
    if rec.geometry is None:
        raise InvalidDataError(
            f"recording {rec.recording!r} has no geometry: the data-free baselines draw on the "
            "screen's bounds (public), and reading them from the gaze would use participant "
            "data; give the dataset a Geometry")
    return rec.geometry


def _centre(rec: Recording, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    g = _geometry(rec)
    n = rec.n_samples
    return (np.full(n, (g.x_min_deg + g.x_max_deg) / 2),
            np.full(n, (g.y_min_deg + g.y_max_deg) / 2))


def _centre_mask(rec: Recording, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The centre, NaN where the input is missing (reads the missing-sample mask)."""
    x, y = _centre(rec, rng)
    gap = rec.missing
    return np.where(gap, np.nan, x), np.where(gap, np.nan, y)


def _uniform(rec: Recording, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    g = _geometry(rec)
    n = rec.n_samples
    return (rng.uniform(g.x_min_deg, g.x_max_deg, n), rng.uniform(g.y_min_deg, g.y_max_deg, n))


def _centre_gaussian(rec: Recording,
                     rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """N(centre, (W/6, H/6)) per sample, clipped to the screen (0.27 % of draws per axis)."""
    g = _geometry(rec)
    n = rec.n_samples
    cx, cy = (g.x_min_deg + g.x_max_deg) / 2, (g.y_min_deg + g.y_max_deg) / 2
    x = rng.normal(cx, (g.x_max_deg - g.x_min_deg) / 6, n)
    y = rng.normal(cy, (g.y_max_deg - g.y_min_deg) / 6, n)
    return np.clip(x, g.x_min_deg, g.x_max_deg), np.clip(y, g.y_min_deg, g.y_max_deg)


def _prior(rec: Recording, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    from gazeprivacy.data.simulate import draw_traits, simulate_recording

    g = _geometry(rec)
    n = rec.n_samples
    if n < 2:  # the simulator needs two samples; one point is the centre
        return _centre(rec, rng)
    rate = float(rec.sampling_rate_hz)
    traits = draw_traits(1, rng=rng)[0]
    sim = simulate_recording(traits=traits, task="free-viewing", duration_s=n / rate,
                             sampling_rate_hz=rate, rng=rng, geometry=g)
    x, y = sim.x[:n], sim.y[:n]
    if x.size < n:  # rounding of n / rate * rate; pad with the last point
        x = np.concatenate([x, np.full(n - x.size, x[-1])])
        y = np.concatenate([y, np.full(n - y.size, y[-1])])
    return x, y


_CHUNK_S = 5.0  # baseline-prior-chunks: fresh simulated traits every 5 s (public)


def _prior_chunks(rec: Recording, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    n = rec.n_samples
    step = max(2, round(_CHUNK_S * float(rec.sampling_rate_hz)))
    parts = [_prior(replace(rec, t=rec.t[a:a + step], x=rec.x[a:a + step],
                            y=rec.y[a:a + step], pupil=None, channels={}, extras={}), child)
             for a, child in zip(range(0, n, step), rng.spawn(-(-n // step)), strict=True)]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


_SHAPE = ("recordings", "recording lengths", "raw clock t")


@dataclass(frozen=True)
class Baseline:
    """A data-free reference release: ``draw(recording, rng) -> (x, y)`` per recording."""

    name: str
    description: str
    draw: Callable[[Recording, np.random.Generator], tuple[np.ndarray, np.ndarray]]
    #: what of the input the release keeps (its structure; never gaze)
    keeps: tuple[str, ...] = _SHAPE

    def release(self, dataset: Dataset, *, rng: np.random.Generator) -> Dataset:
        """The reference release of ``dataset``: same recordings, ids, timestamps and labels;
        gaze from :attr:`draw`; no pupil, no extra channels, no per-sample extras columns.

        >>> from gazeprivacy.data.simulate import simulate_dataset
        >>> ds = simulate_dataset(n_participants=2, tasks="reading", duration_s=1.0,
        ...                       sampling_rate_hz=60, rng=np.random.default_rng(0))
        >>> out = BASELINES["baseline-centre"].release(ds, rng=np.random.default_rng(1))
        >>> float(out.recordings[0].x[0]) == ds.recordings[0].geometry.width_deg / 2
        True
        """
        children = rng.spawn(len(dataset))
        recs = []
        for rec, child in zip(dataset.recordings, children, strict=True):
            x, y = self.draw(rec, child)
            recs.append(replace(rec, x=np.asarray(x, dtype=np.float64),
                                y=np.asarray(y, dtype=np.float64), pupil=None, channels={},
                                extras={}))
        return Dataset(tuple(recs), name=f"{dataset.name}:{self.name}")


#: The data-free baselines by name (see the module docstring).
BASELINES: dict[str, Baseline] = {
    b.name: b for b in (
        Baseline("baseline-centre", "every sample at the screen centre", _centre),
        Baseline("baseline-uniform", "uniform random points on the screen", _uniform),
        Baseline("baseline-centre-gaussian", "points from a Gaussian at the screen centre "
                 "(standard deviations a sixth of the screen's width and height), the "
                 "centre-bias prior of saliency benchmarks", _centre_gaussian),
        Baseline("baseline-prior", "the simulator (free viewing, fresh traits per recording) "
                 "at the recording's rate, length and geometry", _prior),
        Baseline("baseline-prior-chunks", "the simulator with fresh traits every 5 s",
                 _prior_chunks),
        Baseline("baseline-centre-mask", "the screen centre, NaN where the input is missing",
                 _centre_mask, keeps=(*_SHAPE, "missing-sample mask")),
    )
}

#: What ``baselines = true`` in a config runs: the four that read nothing but the shape. The
#: structure variants (``baseline-prior-chunks``, ``baseline-centre-mask``) are named explicitly.
DEFAULT_BASELINES: tuple[str, ...] = ("baseline-centre", "baseline-uniform",
                                      "baseline-centre-gaussian", "baseline-prior")
