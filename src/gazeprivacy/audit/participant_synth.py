# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's curator measurements, audited on the mechanism's own path.

participant-synth's privacy rests on one step: the curator's Gaussian measurements of the
participants' bounded statistics (everything after them -- shrinkage, projection, generation --
is post-processing, which can only hide a leak). So the audit draws the measurements through the
module's public :func:`~gazeprivacy.mechanisms.samples.participant_synth.measure`, on the real
client sums of two neighbouring datasets: the example dataset and the same with one participant
replaced by one who looks only at the screen's top-left corner, or only at its centre (extreme
contributions: far means and clipped spreads, or spreads 0; all of their weight in one cell),
or at the centre through another tracker (ten times the example's noise level, smoothed, a
heavy shoulder: its median step, step correlation and shoulder in other bins). Every marginal
the audited split measures differs in at least one of these pairs (a marginal no pair changes
would be audited with a constant feature and pass whatever its noise).

* ``participant-synth``: every measured marginal at once; the feature is the Gaussian
  likelihood-ratio statistic ``sum_m <y_m, d_m> / sigma_m^2`` (``d_m`` the difference of the two
  datasets' sums), against the record's epsilon and delta;
* ``participant-synth-<marginal>``: one measurement; the feature is ``<y_m, d_m> / ||d_m||``,
  against that measurement's own budget ``rho x share`` converted at the record's delta
  (Canonne, Kamath & Steinke 2020);
* ``participant-synth-label_contrast``: the label contrast, measured only with several public
  keys: on two simulated tasks at a user share of 0.3, with a participant replaced by one who
  looks at the centre under one task and all over the screen under the other (its contrasts at
  their clip), against ``rho x 0.3``;
* ``broken-participant-synth-eighth-noise``: the same measurements with the noise at an eighth
  of the stated sd (rho x 64), audited against the sound claim: it must fail.

Audited at epsilon 1 per participant (delta 1e-6, one population): the smaller the budget, the
easier a violation is to see.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from gazeprivacy.accounting.zcdp import rho_to_epsilon
from gazeprivacy.audit.auditor import Sampler, ThresholdSearch
from gazeprivacy.audit.cases import AuditCase, mechanism_module
from gazeprivacy.audit.neighbours import NeighbourPair, NeighbourStrategy

__all__ = ["DELTA", "EPSILON", "MEASURED", "MEASURED_LABELS", "measurement_case"]

EPSILON = 1.0
DELTA = 1e-6
#: the marginals the audited split measures with one public key (label_weight is not: its
#: weight is public; fixation_cell and transition have share 0 by default, nothing is drawn):
#: the default split with the centre share given (0.1, its rule would not spend it at n = 4;
#: the spreads lowered by 0.05 each to keep the total at 1)
MEASURED = ("mean_x", "mean_y", "spread_x", "spread_y", "density", "centre_share",
            "fixation_duration", "saccade_amplitude", "saccade_direction", "event_rate",
            "tracker_step", "tracker_smooth", "tracker_missing", "tracker_tail")
#: the measurements audited with two public keys (the ``task`` label): the label contrast, at
#: a user share of 0.3 (the spreads' shares lowered by 0.15 each to keep the total at 1)
MEASURED_LABELS = ("label_contrast",)


@dataclass(frozen=True)
class _View:
    params: Any
    setup: Any
    sums: dict[str, Any]  # "a" / "b" -> the client's per-key sums


def _replaced(ds: Any, where: str) -> Any:
    """``ds`` with its first participant replaced by one who looks only at the top-left corner
    (``where="corner"``: far means, clipped spreads) or at the screen centre (``"centre"``:
    spreads 0), or (``"contrast"``) at the centre under its first task and all over the screen
    under the others (label contrasts at their clip), or (``"tracker"``) at the centre through
    a tracker unlike the others (:func:`_tracker_noise`: its median step, step correlation and
    shoulder in other bins than theirs)."""
    from gazeprivacy.data.recording import Dataset, Recording

    first = ds.participants[0]
    out = []
    rng = np.random.default_rng(0)
    for r in ds:
        if r.participant != first:
            out.append(r)
            continue
        g = r.geometry
        x0, y0 = ((g.x_min_deg + 1.0, g.y_min_deg + 1.0) if where == "corner" else
                  ((g.x_min_deg + g.x_max_deg) / 2, (g.y_min_deg + g.y_max_deg) / 2))
        if where == "tracker":
            dx, dy = _tracker_noise(r.n_samples, rng)
            x, y = x0 + dx, y0 + dy
        else:
            x = x0 + 0.05 * rng.standard_normal(r.n_samples)
            y = y0 + 0.05 * rng.standard_normal(r.n_samples)
        if where == "contrast" and r.labels.get("task") != ds.recordings[0].labels.get("task"):
            x = rng.uniform(g.x_min_deg, g.x_max_deg, r.n_samples)
            y = g.y_min_deg + 0.5 * g.height_deg * (1 + np.sin(np.arange(r.n_samples) / 3))
        out.append(Recording(recording=r.recording, participant=first, t=r.t, x=x, y=y,
                             sampling_rate_hz=r.sampling_rate_hz, labels=r.labels,
                             geometry=g))
    return Dataset(tuple(out), name=where)


def _tracker_noise(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A tracker's noise (x, y) unlike the example dataset's (white, 0.05 deg): a Gaussian
    scale mixture ``0.5 exp(1.2 g) N(0, 1)`` (ten times the level, a heavy shoulder, each
    sample's scale shared by x and y) smoothed by a Gaussian kernel (steps correlated)."""
    from scipy.ndimage import gaussian_filter1d

    scale = 0.5 * np.exp(1.2 * rng.standard_normal(n))
    return tuple(gaussian_filter1d(scale * rng.standard_normal(n), _TRACKER_SMOOTH,
                                   mode="wrap") for _ in range(2))


_TRACKER_SMOOTH = 0.7  # samples: the kernel's sd


@functools.lru_cache(maxsize=2)
def _view(labels: bool = False) -> _View:
    """The neighbouring client sums: one population (``labels=False``), or the two ``task``
    keys with the label contrast measured at a user share (``labels=True``)."""
    from gazeprivacy.data.simulate import simulate_dataset
    from gazeprivacy.mechanisms.base import example_dataset

    mod = mechanism_module("participant-synth")
    split = (mod.ParticipantSynthSplit(spread_x=0.03, spread_y=0.03, label_contrast=0.3)
             if labels else mod.ParticipantSynthSplit(centre_share=0.1, spread_x=0.13,
                                                      spread_y=0.13))
    params = mod.ParticipantSynthParams(epsilon_per_participant=EPSILON, delta=DELTA,
                                        output_length_s=1.0, split=split,
                                        public_labels=("task",) if labels else ())
    ds = example_dataset(4, 2.0) if not labels else simulate_dataset(
        n_participants=4, tasks=("free-viewing", "reading"), duration_s=2.0,
        sampling_rate_hz=50, rng=np.random.default_rng(0))
    phases = mod.plan(params)
    msgs = {k: phases.client(d, np.random.default_rng(0))[1]
            for k, d in (("a", ds), *((w, _replaced(ds, w)) for w in _WHERE[labels]))}
    setup = msgs["a"].setup
    return _View(params, setup if labels else replace(setup, keys=((),)),
                 {k: mod.population_sums(m.parts) for k, m in msgs.items()})


_WHERE = {False: ("corner", "centre", "tracker"), True: ("corner", "centre", "contrast")}


def _stacked(view: _View, which: str, m: str) -> np.ndarray:
    """The sums of ``m`` over the view's keys, concatenated in key order (as measured)."""
    return np.concatenate([np.asarray(view.sums[which][k][m], dtype=np.float64).ravel()
                           for k in view.setup.keys])


def _sampler(view: _View, which: str, other: str, marginals: tuple[str, ...],
             noise_factor: float) -> Sampler:
    mod = mechanism_module("participant-synth")
    params = view.params
    if noise_factor != 1.0:  # the broken variant: the stated split, rho x 1 / factor^2
        rho = params.rho / noise_factor ** 2
        params = replace(params, epsilon_per_participant=rho_to_epsilon(rho, DELTA))
    weights = {m: (_stacked(view, other, m) - _stacked(view, "a", m)) for m in marginals}
    if len(marginals) == 1:  # (a pair that does not change the marginal: a constant feature)
        weights = {m: d / max(float(np.linalg.norm(d)), 1e-300) for m, d in weights.items()}
    else:
        weights = {m: d / mod.noise_sigma(view.params, m) ** 2 for m, d in weights.items()}

    def draw(n: int, rng: np.random.Generator) -> np.ndarray:
        out = np.empty(n)
        for i in range(n):
            y = mod.measure(params, view.setup, view.sums[which], rng)
            out[i] = sum(float(y[m].ravel() @ w) for m, w in weights.items())
        return out

    return draw


def measurement_case(marginal: str | None, mode: str, *, noise_factor: float = 1.0
                     ) -> AuditCase:
    """The audit of one measurement (``marginal``) or of all of them (None)."""
    view = _view(marginal in MEASURED_LABELS)
    mod = mechanism_module("participant-synth")
    record = mod.guarantee(view.params, _shape())
    marginals = MEASURED if marginal is None else (marginal,)
    if marginal is None:
        claim, claim_from = float(record.epsilon), "epsilon"
    else:
        share = view.params.split.shares()[marginal]
        claim = rho_to_epsilon(view.params.rho * share, DELTA)
        claim_from = f"parameters.rho x parameters.split.{marginal}, converted at delta"

    def samplers(pair: NeighbourPair) -> tuple[Sampler, Sampler]:
        return (_sampler(view, pair.a, pair.b, marginals, noise_factor),
                _sampler(view, pair.b, pair.b, marginals, noise_factor))

    pairs = [NeighbourPair("a", w, f"one participant replaced by a {w} looker")
             for w in _WHERE[marginal in MEASURED_LABELS]]
    # the pair that changes the audited measurements most first (the fast test audits it)
    pairs.sort(key=lambda pr: -sum(float(np.linalg.norm(_stacked(view, pr.b, m)
                                                        - _stacked(view, "a", m)))
                                   for m in marginals))

    name = "participant-synth" + (f"-{marginal}" if marginal else "")
    if noise_factor != 1.0:
        name = "broken-participant-synth-eighth-noise"
    return AuditCase(
        mechanism=name, mode=mode, unit="participant", claimed_epsilon=claim,
        claimed_delta=DELTA, neighbouring=record.neighbouring,
        strategy=NeighbourStrategy(tuple(pairs)),
        samplers=samplers, event_search=ThresholdSearch(), guarantee=record,
        claim_from=claim_from,
        notes=(f"noise at 1/{1 / noise_factor:g} of the stated sd (rho x "
               f"{1 / noise_factor ** 2:g})" if noise_factor != 1.0 else ""))


def _shape() -> Any:
    from gazeprivacy.mechanisms.base import example_dataset
    from gazeprivacy.mechanisms.contract import sample_shape

    return sample_shape(example_dataset(4, 2.0))

