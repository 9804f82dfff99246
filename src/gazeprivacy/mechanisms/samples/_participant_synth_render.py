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
2. fixation positions from a Markov chain whose stationary density is the released one
   (:func:`position_model`): the first from the density, each next one of
   ``_CANDIDATES`` displacements drawn from the saccade amplitude x (symmetrised) direction
   marginals, chosen in proportion to importance weights that solve ``w (w * g) = d``;
3. the simulator (:func:`gazeprivacy.data.simulate.simulate_recording`, through its public
   task-model protocol) renders the sequence at the public rate with a synthetic participant's
   traits drawn from the population (:func:`~gazeprivacy.data.simulate.draw_traits`, no blinks):
   main-sequence saccades (with post-saccadic oscillations at 100 Hz and above), drift,
   tremor, microsaccades (no tracker noise of its own);
4. the tracker (:func:`~._participant_synth_track.track`, from the released tracker
   marginals; each synthetic participant's centres drawn from their posterior,
   :func:`~._participant_synth_quality.participant_tracker`): white noise and a (circular)
   smoothing kernel matching the drawn median step and step correlation, and gaps covering
   the drawn missing share.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gazeprivacy._scipy import scipy_signal
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Recording
from gazeprivacy.data.simulate import ParticipantTraits, ScanPath, draw_traits, simulate_recording
from gazeprivacy.mechanisms.samples._participant_synth_centre import CENTRE, FINE, with_centre
from gazeprivacy.mechanisms.samples._participant_synth_model import (
    PublicBins,
    disc_mass,
    gaussian_cells,
    moments_gaussian,
)
from gazeprivacy.mechanisms.samples._participant_synth_quality import participant_tracker
from gazeprivacy.mechanisms.samples._participant_synth_track import track

__all__ = ["KeyModel", "ModelTask", "PositionModel", "Visits", "choice", "choice_cdf",
           "position_model", "render_population", "synthetic_pseudonyms"]

_SACCADE_S = 0.035  # mean saccade duration of the simulator's population (free viewing)
_FINE = FINE  # the fixation positions' sampling grid, cells per side of the screen box (public)
_CANDIDATES = 128  # candidate saccades per fixation (the chain's kernel; see position_model)
_FIXED_POINT_STEPS = 60
_HERDING = 1.0  # strength of the pull toward the released density's expected visit counts
#: the synthetic population's median post-saccadic oscillation gain (a first overshoot of about
#: 9 % of the saccade; data-free: a constant of the generator, picked among 0.08, 0.15 and 0.3
#: on DOVES' development loop, docs/results/frontier.md), rendered at public rates of at least
#: _PSO_MIN_RATE_HZ only: below, its 25-ms first swing is a sample's offset after the landing,
#: which the event detectors read as a longer saccade (MPIIDPEye at 60 Hz: fixation-duration W1
#: 0.08 -> 0.12 s at epsilon 10, the discriminator unchanged)
_PSO_GAIN = 0.15
_PSO_MIN_RATE_HZ = 100.0


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
    positions: PositionModel | None = None
    visits: Visits | None = None

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

    def plan(self, traits: ParticipantTraits, n_fixations: int, geometry: Geometry,
             rng: np.random.Generator) -> ScanPath:
        pos = self.positions or position_model(self.model, self.bins)
        visits = self.visits or Visits(np.zeros(pos.weight.size))
        out = _chain(pos, self.model.marginals["saccade_amplitude"], self.bins, visits,
                     n_fixations, rng)
        return ScanPath(centres=out, durations_s=self._durations(n_fixations, rng))


def _chain(pos: PositionModel, amplitude: np.ndarray, b: PublicBins, visits: Visits, n: int,
           rng: np.random.Generator) -> np.ndarray:  # long: the chain's loop, kept in one piece
    """``n`` fixation positions of the chain (:func:`position_model`): the first from the
    density, each next one of ``_CANDIDATES`` displacements (amplitude x direction) chosen by
    its cell's weight times the herding factor of ``visits`` (updated). Per step one block of
    uniforms for the candidates (the generator's stream of two ``choice`` and two ``uniform``
    draws of ``_CANDIDATES`` each, in that order: the same numbers), then one for the choice;
    x and y kept apart (the same arithmetic per coordinate as on the pairs)."""
    g = b.geometry
    nx, ny = pos.weight.shape[1], pos.weight.shape[0]
    sx, sy = g.width_deg / nx, g.height_deg / ny
    size = np.array([sx, sy])
    origin = np.array([g.x_min_deg, g.y_min_deg])
    flat_w = pos.weight.ravel()
    a_edges, d_edges = b.amplitude_edges, b.direction_edges  # (computed on every access)
    a_cdf, d_cdf = choice_cdf(amplitude), choice_cdf(pos.direction)
    a_lo, a_wd = a_edges[:-1], a_edges[1:] - a_edges[:-1]
    d_lo, d_wd = d_edges[:-1], d_edges[1:] - d_edges[:-1]
    target = pos.density.ravel()
    k = _CANDIDATES

    def from_density() -> np.ndarray:
        c = int(rng.choice(flat_w.size, p=target))
        return origin + (np.array([c % nx, c // nx]) + rng.uniform(size=2)) * size

    out = np.empty((n, 2))
    prev = from_density()
    for i in range(n):
        if i:
            u = rng.random(4 * k)
            ab, db = a_cdf.searchsorted(u[:k], side="right"), \
                d_cdf.searchsorted(u[2 * k:3 * k], side="right")
            amp = a_lo[ab] + a_wd[ab] * u[k:2 * k]
            theta = d_lo[db] + d_wd[db] * u[3 * k:]
            cx, cy = prev[0] + amp * np.cos(theta), prev[1] + amp * np.sin(theta)
            ix = np.floor((cx - origin[0]) / sx).astype(np.int64)
            iy = np.floor((cy - origin[1]) / sy).astype(np.int64)
            inside = (ix.view(np.uint64) < nx) & (iy.view(np.uint64) < ny)  # (< 0: huge)
            idx = iy[inside] * nx + ix[inside]
            w = np.zeros(k)
            w[inside] = flat_w[idx] * np.exp(-_HERDING * np.minimum(np.maximum(
                visits.counts[idx] - visits.total * target[idx], -20.0), 20.0))
            total = w.sum()
            if total > 0:
                j = choice(rng, choice_cdf(w / total))
                prev = np.array([cx[j], cy[j]])
            else:
                prev = from_density()
        out[i] = prev
        visits.add(prev, origin, size, nx, ny)
    return out


def choice_cdf(p: np.ndarray) -> np.ndarray:
    """What ``Generator.choice(p.size, size, p=p)`` draws from: ``p``'s cumulative sums over
    their total (NumPy's own steps)."""
    cdf = np.asarray(p, dtype=np.float64).cumsum()
    cdf /= cdf[-1]
    return cdf


def choice(rng: np.random.Generator, cdf: np.ndarray, size: int | None = None) -> Any:
    """``rng.choice(p.size, size, p=p)`` with ``cdf = choice_cdf(p)``: the same uniforms and
    the same indices, without its checks of ``p`` on every call (35 of the 40 us of a draw;
    the generator draws three per fixation). ``p`` is a released marginal or the chain's
    normalised weights: non-negative, total 1."""
    return cdf.searchsorted(rng.random(size), side="right")


@dataclass
class Visits:
    """Fixations drawn so far per sampling cell, shared by the recordings of one synthetic
    participant under keys with the same density (the pooled one; a key whose density the
    label contrast moved counts its own; per participant, so that a partition rendering a
    block of participants gives the one-process release): each candidate's weight is multiplied by
    ``exp(-(visits - expected))`` (expected: the fixations so far times the released density),
    a pull toward the released density's counts (herding) that removes part of the sampling
    noise of a few hundred fixations (independent draws of that many points score well above
    the density itself on a 60 x 60 grid). Post-processing: it reads the generator's own draws
    only."""

    counts: np.ndarray
    total: int = 0

    def add(self, xy: np.ndarray, origin: np.ndarray, size: np.ndarray, nx: int, ny: int
            ) -> None:
        ix = min(max(math.floor((float(xy[0]) - float(origin[0])) / float(size[0])), 0), nx - 1)
        iy = min(max(math.floor((float(xy[1]) - float(origin[1])) / float(size[1])), 0), ny - 1)
        self.counts[iy * nx + ix] += 1
        self.total += 1


@dataclass(frozen=True)
class PositionModel:
    """The fixation-position chain of a key on the public sampling grid (rows = y): the
    released spatial ``density`` (its target), the chain's importance ``weight`` and the
    symmetrised saccade ``direction`` marginal it draws candidates from."""

    density: np.ndarray
    weight: np.ndarray
    direction: np.ndarray


def _target_density(model: KeyModel, bins: PublicBins) -> np.ndarray:
    """The released density on the sampling grid: the Gaussian of the released moments times
    the released ``density`` marginal's ratio to that Gaussian's cell masses (1 where it was
    shrunk all the way), its disc mass then set to the released centre share
    (:func:`~._participant_synth_centre.with_centre`; a key moved by its label contrast keeps
    the population's central excess: :func:`~._participant_synth_centre.key_share`)."""
    m = model.marginals
    mean, sd = moments_gaussian(m)
    fine = gaussian_cells((_FINE, _FINE), mean, sd)
    ratio = m["density"] / gaussian_cells(bins.grid, mean, sd)
    g = bins.geometry
    centres = (np.arange(_FINE) + 0.5) / _FINE
    xx, yy = np.meshgrid(g.x_min_deg + centres * g.width_deg,
                         g.y_min_deg + centres * g.height_deg)
    d = fine * ratio[bins.cell(xx.ravel(), yy.ravel(), bins.grid)]
    d = (d / d.sum()).reshape(_FINE, _FINE)
    if CENTRE not in m:
        return d
    # the released centre share; equal to its prior, the Gaussian's disc mass, when nothing
    # was measured (share 0 or shrunk all the way): the density is then left as it is
    v = float(m[CENTRE][0])
    return d if v == disc_mass(mean, sd) else with_centre(d, v)


def _saccade_kernel(model: KeyModel, bins: PublicBins, direction: np.ndarray) -> np.ndarray:
    """The probability of a saccade from one sampling cell to another at each cell offset
    ((2F - 1) x (2F - 1), centred): amplitude density / distance x direction density (the
    planar density of the displacement), averaged over 6 x 6 points per offset cell."""
    g = bins.geometry
    a_edges, d_edges = bins.amplitude_edges, bins.direction_edges
    sub = (np.arange(6) + 0.5) / 6 - 0.5
    off = (np.arange(-_FINE + 1, _FINE)[:, None] + sub[None, :]).ravel()
    dx, dy = np.meshgrid(off * g.width_deg / _FINE, off * g.height_deg / _FINE)
    r = np.hypot(dx, dy)
    a_bin = np.searchsorted(a_edges, r) - 1
    ok = (a_bin >= 0) & (a_bin < a_edges.size - 1)
    a_bin = np.clip(a_bin, 0, a_edges.size - 2)
    amp = np.where(ok, model.marginals["saccade_amplitude"][a_bin] / np.diff(a_edges)[a_bin],
                   0.0)
    d_bin = np.clip(np.searchsorted(d_edges, np.arctan2(dy, dx)) - 1, 0, d_edges.size - 2)
    dens = amp / np.maximum(r, 1e-9) * direction[d_bin] / np.diff(d_edges)[d_bin]
    k = dens.reshape(2 * _FINE - 1, 6, 2 * _FINE - 1, 6).mean(axis=(1, 3))
    return k / k.sum()


def position_model(model: KeyModel, bins: PublicBins) -> PositionModel:
    """The chain whose fixations are distributed as the released density.

    Each next fixation is one of ``_CANDIDATES`` displacements drawn from the saccade amplitude
    x (symmetrised) direction marginals, chosen with probability proportional to the weight
    ``w`` of the cell it lands in: as the candidates grow, the kernel ``K(x, y) ~ w(y) g(y - x)``
    with ``g`` symmetric, a reversible chain whose stationary density is ``w (w * g)``. ``w``
    solves ``w (w * g) = d`` for the released density ``d`` (fixed point, damped by a square
    root), so the fixations follow ``d`` whatever the amplitudes: with ``w = d`` (the earlier
    product of experts) short saccades would give ``d^2`` (a narrower cloud) and long ones
    ``d``. The taken saccades then have density ``g(e) sum_x w(x) w(x + e)``, shorter than
    the released amplitudes where ``d`` is peaked: a coupling kept on purpose, since under DP
    the released amplitudes lean on their prior and rendering them faithfully measured worse
    (docs/privacy/participant-synth.md#generate). Post-processing of the released model.
    """
    fftconvolve = scipy_signal().fftconvolve

    raw = np.asarray(model.marginals["saccade_direction"], dtype=np.float64)
    half = raw.size // 2  # the direction marginal folded onto theta and theta + pi
    direction = 0.5 * (raw + np.roll(raw, half)) if raw.size % 2 == 0 else raw
    d = _target_density(model, bins)
    kernel = _saccade_kernel(model, bins, direction)
    w = d.copy()
    for _ in range(_FIXED_POINT_STEPS):
        z = np.maximum(fftconvolve(w, kernel, mode="same"), 1e-300)
        w = np.sqrt(w * d / z)
        w /= w.sum()
    return PositionModel(d, w, direction / direction.sum())


#: How far off the public screen a rendered sample may lie, in screen sizes: beyond, the tracker
#: has lost the eye (NaN). A tracker drawn from a wide posterior (a barely measured step of a few
#: degrees, heavy-shouldered and smoothed) otherwise throws samples hundreds of degrees away.
_TRACKING_MARGIN = 0.5


def _in_range(x: np.ndarray, y: np.ndarray, g: Geometry) -> tuple[np.ndarray, np.ndarray]:
    """``x``, ``y`` with the samples beyond :data:`_TRACKING_MARGIN` screens off the public
    screen set missing (in both coordinates). Post-processing of the rendered samples.

    >>> g = Geometry(x_min_deg=-10, x_max_deg=10, y_min_deg=-5, y_max_deg=5)
    >>> _in_range(np.array([0.0, 19.0, 21.0]), np.array([0.0, 0.0, 0.0]), g)[0].tolist()
    [0.0, 19.0, nan]
    """
    mx, my = _TRACKING_MARGIN * g.width_deg, _TRACKING_MARGIN * g.height_deg
    lost = ((x < g.x_min_deg - mx) | (x > g.x_max_deg + mx)
            | (y < g.y_min_deg - my) | (y > g.y_max_deg + my))
    if not lost.any():
        return x, y
    x, y = x.copy(), y.copy()
    x[lost] = np.nan
    y[lost] = np.nan
    return x, y


def render_population(models: Mapping[tuple[str, ...], KeyModel], bins: PublicBins, *,
                      public_labels: tuple[str, ...], participants: list[str],
                      recordings_per_participant: int, output_length_s: float,
                      sampling_rate_hz: float, rng: np.random.Generator,
                      trackers: Sequence[Mapping[str, np.ndarray]] = ()) -> list[Recording]:
    """The synthetic recordings of ``participants`` (synthetic pseudonyms): for each, every key
    in sorted order, ``recordings_per_participant`` recordings of ``output_length_s`` at
    ``sampling_rate_hz``; only ``t`` (the public grid), ``x``, ``y``, the key's public labels
    and the public geometry. One child generator per synthetic participant. ``trackers``: a
    declared population's centres (``DeclaredTracker.centres``); with more than one, each
    synthetic participant takes one of them at random (its tracker stream)."""
    keys = sorted(models)
    positions = {k: position_model(models[k], bins) for k in keys}
    # the recording index's width from the public recordings per participant (not from this
    # block of participants: a partition renders a block, and its ids must be the one-process ids)
    width = max(3, len(str(len(keys) * recordings_per_participant)))
    out: list[Recording] = []
    pso = _PSO_GAIN if sampling_rate_hz >= _PSO_MIN_RATE_HZ else 0.0
    for pid, child in zip(participants, rng.spawn(len(participants)), strict=True):
        # one visit count per synthetic participant, shared by its keys with the pooled
        # density: no state crosses participants, so a partition that renders
        # a block of them gives the one-process release bit for bit
        shared = Visits(np.zeros(positions[keys[0]].weight.size)) if keys else None
        # a key whose density differs (label contrasts) keeps its own count: herding toward
        # its density must not compensate another key's fixations
        visits = {k: shared if np.array_equal(positions[k].density, positions[keys[0]].density)
                  else Visits(np.zeros(positions[k].weight.size)) for k in keys}
        # (a third child for the tracker: the first two are those of ``spawn(2)``)
        traits_rng, rec_rng, tracker_rng = child.spawn(3)
        traits = draw_traits(1, rng=traits_rng, blink_rate_hz=0.0, pso_gain=pso, prefix="S")[0]
        # the tracker is pooled over the keys: one per synthetic participant
        tracker = participant_tracker(models[keys[0]].marginals, tracker_rng) if keys else {}
        if len(trackers) > 1:  # a declared population (one tracker: already the model's)
            tracker = dict(trackers[int(tracker_rng.integers(len(trackers)))])
        n_recs = len(keys) * recordings_per_participant
        for j, rng_j in enumerate(rec_rng.spawn(n_recs)):
            key = keys[j // recordings_per_participant]
            task = ModelTask(models[key], bins, positions=positions[key], visits=visits[key])
            sim = simulate_recording(traits=traits, task=task, duration_s=output_length_s,
                                     sampling_rate_hz=sampling_rate_hz, rng=rng_j,
                                     geometry=bins.geometry, recording="r",
                                     measurement_noise_deg=0.0, ground_truth=True)
            x, y = track(sim.x, sim.y, tracker, sampling_rate_hz, rng_j,
                         code=sim.channels["event_code"])
            x, y = _in_range(x, y, bins.geometry)
            out.append(Recording(recording=f"{pid}-{j + 1:0{width}d}", participant=pid,
                                 t=sim.t, x=x, y=y, sampling_rate_hz=sampling_rate_hz,
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

