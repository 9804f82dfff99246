# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's generator: fixation sequences from the released model, rendered by the
simulator's oculomotor model (post-processing: it reads the released model and public values
only).

A synthetic recording of key ``k`` (its public label values) is drawn as follows (proof and
choices: ``docs/privacy/participant-synth.md#generate``):

1. a fixation rate ``r`` from the key's ``event_rate`` marginal and durations from its
   ``fixation_duration`` marginal (a bin, then log-uniform inside it), all durations scaled by
   one factor so that a fixation plus a 35 ms saccade lasts ``1 / r`` on average (the factor
   clipped to [0.5, 2]);
2. the first fixation's coarse cell from ``fixation_cell``, each next one from the row of the
   ``transition`` marginal (the marginal when the row is empty); inside the coarse cell a fine
   cell with probability proportional to the ``density`` marginal times the saccade
   ``amplitude`` density over the distance (the planar Jacobian) times the ``direction``
   marginal, from the previous fixation; a uniform position inside the fine cell;
3. the simulator (:func:`gazeprivacy.data.simulate.simulate_recording`, through its public
   task-model protocol) renders the sequence at the public rate with a synthetic participant's
   traits drawn from the population (:func:`~gazeprivacy.data.simulate.draw_traits`, no blinks):
   main-sequence saccades, drift, tremor, microsaccades, tracker noise.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Recording
from gazeprivacy.data.simulate import ParticipantTraits, ScanPath, draw_traits, simulate_recording
from gazeprivacy.mechanisms.samples._participant_synth_model import PublicBins

__all__ = ["KeyModel", "ModelTask", "render_population", "synthetic_pseudonyms"]

_SACCADE_S = 0.035  # mean saccade duration of the simulator's population (free viewing)
_MIN_DISTANCE_DEG = 0.5  # the amplitude density is not evaluated below this


@dataclass(frozen=True)
class KeyModel:
    """The released marginals of one key (probability vectors)."""

    marginals: Mapping[str, np.ndarray]


def _from_bins(p: np.ndarray, edges: np.ndarray, n: int, rng: np.random.Generator
               ) -> np.ndarray:
    """``n`` draws: a bin from ``p``, then log-uniform inside it (positive log-spaced edges)."""
    b = rng.choice(p.size, size=n, p=p)
    lo, hi = np.log(edges[b]), np.log(edges[b + 1])
    return np.exp(lo + (hi - lo) * rng.uniform(size=n))


@dataclass(frozen=True)
class ModelTask:
    """A task model (the simulator's protocol) whose scan paths come from a :class:`KeyModel`."""

    model: KeyModel
    bins: PublicBins
    name: str = "participant-synth"
    description: str = "fixation sequences drawn from a participant-level DP model"
    pupil_offset_mm: float = 0.0

    def expected_fixations(self, traits: ParticipantTraits, duration_s: float) -> int:
        p = self.model.marginals["event_rate"]
        centres = np.sqrt(self.bins.rate_edges[:-1] * self.bins.rate_edges[1:])
        return int(duration_s * float(p @ centres)) + 1

    def _durations(self, n: int, rng: np.random.Generator) -> np.ndarray:
        m = self.model.marginals
        rate = float(_from_bins(m["event_rate"], self.bins.rate_edges, 1, rng)[0])
        d = _from_bins(m["fixation_duration"], self.bins.duration_edges, n, rng)
        factor = float(np.clip((1.0 / rate - _SACCADE_S) / d.mean(), 0.5, 2.0))
        return np.maximum(d * factor, 0.04)

    def _weights(self, prev: np.ndarray, fine: np.ndarray, centres: np.ndarray) -> np.ndarray:
        """Fine-cell weights from ``prev``: density x amplitude density / distance x direction."""
        m, b = self.model.marginals, self.bins
        d = centres[fine] - prev
        dist = np.maximum(np.hypot(d[:, 0], d[:, 1]), _MIN_DISTANCE_DEG)
        a_edges = b.amplitude_edges
        a_bin = np.clip(np.searchsorted(a_edges, dist) - 1, 0, a_edges.size - 2)
        amp = m["saccade_amplitude"][a_bin] / np.diff(a_edges)[a_bin] / dist
        d_bin = np.clip(np.searchsorted(b.direction_edges, np.arctan2(d[:, 1], d[:, 0])) - 1,
                        0, b.direction_edges.size - 2)
        return m["density"][fine] * amp * m["saccade_direction"][d_bin]

    def plan(self, traits: ParticipantTraits, n_fixations: int, geometry: Geometry,
             rng: np.random.Generator) -> ScanPath:
        m, b = self.model.marginals, self.bins
        nc = b.coarse_grid[0] * b.coarse_grid[1]
        centres = b.cell_centres(b.grid)
        coarse_of = b.cell(centres[:, 0], centres[:, 1], b.coarse_grid)
        trans = m["transition"].reshape(nc, nc)
        half = np.array([geometry.width_deg / b.grid[0], geometry.height_deg / b.grid[1]]) / 2
        out = np.empty((n_fixations, 2))
        c = int(rng.choice(nc, p=m["fixation_cell"]))
        prev = None
        for i in range(n_fixations):
            fine = np.flatnonzero(coarse_of == c)
            w = m["density"][fine] if prev is None else self._weights(prev, fine, centres)
            w = w / w.sum() if w.sum() > 0 else np.full(fine.size, 1.0 / fine.size)
            f = int(fine[rng.choice(fine.size, p=w)])
            prev = centres[f] + half * rng.uniform(-1.0, 1.0, size=2)
            out[i] = prev
            row = trans[c]
            c = int(rng.choice(nc, p=row / row.sum() if row.sum() > 0 else m["fixation_cell"]))
        return ScanPath(centres=out, durations_s=self._durations(n_fixations, rng))


def render_population(models: Mapping[tuple[str, ...], KeyModel], bins: PublicBins, *,
                      public_labels: tuple[str, ...], participants: list[str],
                      recordings_per_participant: int, output_length_s: float,
                      sampling_rate_hz: float, rng: np.random.Generator) -> list[Recording]:
    """The synthetic recordings of ``participants`` (synthetic pseudonyms): for each, every key
    in sorted order, ``recordings_per_participant`` recordings of ``output_length_s`` at
    ``sampling_rate_hz``; only ``t`` (the public grid), ``x``, ``y``, the key's public labels
    and the public geometry. One child generator per synthetic participant."""
    keys = sorted(models)
    width = max(3, len(str(len(participants))))
    out: list[Recording] = []
    for pid, child in zip(participants, rng.spawn(len(participants)), strict=True):
        traits_rng, rec_rng = child.spawn(2)
        traits = draw_traits(1, rng=traits_rng, blink_rate_hz=0.0, prefix="S")[0]
        n_recs = len(keys) * recordings_per_participant
        for j, rng_j in enumerate(rec_rng.spawn(n_recs)):
            key = keys[j // recordings_per_participant]
            task = ModelTask(models[key], bins)
            sim = simulate_recording(traits=traits, task=task, duration_s=output_length_s,
                                     sampling_rate_hz=sampling_rate_hz, rng=rng_j,
                                     geometry=bins.geometry, recording="r")
            out.append(Recording(recording=f"{pid}-{j + 1:0{width}d}", participant=pid,
                                 t=sim.t, x=sim.x, y=sim.y, sampling_rate_hz=sampling_rate_hz,
                                 labels=dict(zip(public_labels, key, strict=True)),
                                 geometry=bins.geometry))
    return out


def synthetic_pseudonyms(n: int) -> list[str]:
    """``S001`` ... : ids of synthetic participants (they belong to no real person).

    >>> synthetic_pseudonyms(2)
    ['S001', 'S002']
    """
    width = max(3, len(str(n)))
    return [f"S{i + 1:0{width}d}" for i in range(n)]

