# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth's curator: the clients' OUE randomisation aggregated, and the transition model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gazeprivacy.mechanisms.noise.oue import oue_curator_view, oue_encode, oue_estimate
from gazeprivacy.mechanisms.samples.dpgazesynth.grid import _DCOL, _DROW, ClientReport
from gazeprivacy.mechanisms.samples.dpgazesynth.params import DPGazeSynthParams

__all__ = [
    "TransitionModel",
    "curate",
    "perturb_reports",
    "transition_model_from_estimates",
]


@dataclass(frozen=True)
class TransitionModel:
    """Estimated 8-neighbour transition probabilities, ``probs[cell, direction]``."""

    grid_size: int
    probs: np.ndarray
    n_reports: int

    @property
    def cumulative(self) -> np.ndarray:
        c = np.cumsum(self.probs, axis=1)
        return c / c[:, -1:]


def _valid_directions(g: int) -> np.ndarray:
    cells = np.arange(g * g)
    col, row = cells % g, cells // g
    nc = col[:, None] + _DCOL[None, :]
    nr = row[:, None] + _DROW[None, :]
    return (nc >= 0) & (nc < g) & (nr >= 0) & (nr < g)


def transition_model_from_estimates(estimates: np.ndarray, g: int, n_reports: int
                                    ) -> TransitionModel:
    """Post-process OUE estimates (length ``8 G^2``): clip, zero off-grid, normalise per cell."""
    valid = _valid_directions(g)
    est = np.clip(np.asarray(estimates, dtype=np.float64).reshape(g * g, 8), 0.0, None)
    est = np.where(valid, est, 0.0)
    tot = est.sum(axis=1, keepdims=True)
    uniform = valid / valid.sum(axis=1, keepdims=True)
    probs = np.where(tot > 0, est / np.where(tot > 0, tot, 1.0), uniform)
    return TransitionModel(grid_size=g, probs=probs, n_reports=n_reports)


def perturb_reports(clients: ClientReport, params: DPGazeSynthParams,
                    rng: np.random.Generator) -> dict[float, tuple[np.ndarray, int]]:
    """The clients' OUE randomisation of their transition reports (eps3 share), aggregated:
    per report budget the column sums of the ``n`` perturbed reports (length ``8 G^2 + 1``) and
    ``n``. ``oue_path="curator-view"`` samples the sums in O(d), exact in distribution;
    ``"client-reports"`` encodes every report. Column sums of disjoint groups of clients add up
    to those of the union, so partitions may each run this step and the curator sums the
    results (:func:`curate`)."""
    d = 8 * params.grid_size ** 2
    out: dict[float, tuple[np.ndarray, int]] = {}
    for eps in sorted(clients.reports):
        values = clients.reports[eps]
        if values.size == 0:
            out[eps] = (np.zeros(d + 1), 0)
        elif params.oue_path == "curator-view":
            counts = np.bincount(values, minlength=d + 1)
            out[eps] = (oue_curator_view(counts, epsilon=eps, rng=rng), int(values.size))
        else:
            rep = oue_encode(values, domain_size=d + 1, epsilon=eps, rng=rng)
            sums = np.bincount(rep.indices, minlength=d + 1).astype(np.float64)
            out[eps] = (sums, int(rep.n))
    return out


def curate(messages: Sequence[dict[float, tuple[np.ndarray, int]]],
           params: DPGazeSynthParams) -> TransitionModel:
    """Curator: add the column sums of all :func:`perturb_reports` messages per budget,
    estimate each count without bias and post-process into a :class:`TransitionModel`."""
    g = params.grid_size
    d = 8 * g * g
    sums: dict[float, np.ndarray] = {}
    counts: dict[float, int] = {}
    for msg in messages:
        for eps, (s, n) in msg.items():
            sums[eps] = sums.get(eps, 0.0) + np.asarray(s, dtype=np.float64)
            counts[eps] = counts.get(eps, 0) + int(n)
    est = np.zeros(d + 1)
    for eps in sorted(sums):
        if counts[eps]:
            est += oue_estimate(sums[eps], n=counts[eps], epsilon=eps)
    return transition_model_from_estimates(est[:d], g, sum(counts.values()))
