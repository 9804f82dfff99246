# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's estimates from the curator's noisy measurements (post-processing: the
noisy sums, the public weights and the public priors only;
``docs/privacy/participant-synth.md#prior``).

:func:`fit_marginals` shrinks each histogram and moment toward its prior, :func:`event_fits`
fits the binned log-normals of the event marginals (the population, then each key around it),
and :func:`pooled_events` is the public rule that measures an event marginal once for all keys.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from gazeprivacy.mechanisms.samples._participant_synth_model import (
    KEY_SD,
    LOGNORMAL_PRIOR,
    MOMENT_TAU,
    MOMENTS,
    PublicBins,
    event_keys_pooled,
    fit_lognormal,
    moments_gaussian,
    shrink_moment,
    shrink_spread,
    shrink_to_prior,
    spatial_priors,
)
from gazeprivacy.mechanisms.samples._participant_synth_params import (
    ParticipantSynthParams,
    noise_sigma,
)
from gazeprivacy.mechanisms.samples._participant_synth_quality import QUALITY, fit_quality

if TYPE_CHECKING:  # annotations only: participant_synth imports this module
    from gazeprivacy.mechanisms.samples.participant_synth import PublicSetup

__all__ = ["event_fits", "fit_marginals", "pooled_events"]


def fit_marginals(params: ParticipantSynthParams, bins: PublicBins,
                  noisy: Mapping[str, np.ndarray], prior: Mapping[str, np.ndarray], row: int,
                  weight: float, marginals: Sequence[str]
                  ) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """Row ``row`` of the noisy ``marginals`` (in
    :data:`~gazeprivacy.mechanisms.samples._participant_synth_model.MARGINALS` order), each
    shrunk toward its prior (the spatial ones toward the Gaussian of the released moments)."""
    marg: dict[str, np.ndarray] = {}
    factors: dict[str, float] = {}
    prior = dict(prior)
    for m in marginals:
        sigma = noise_sigma(params, m) or 0.0
        if m not in noisy:
            marg[m], factors[m] = prior[m], 0.0
        elif m in QUALITY:  # the tracker: a posterior centre (_participant_synth_quality)
            marg[m], factors[m] = fit_quality(m, noisy[m][row], weight, sigma)
        elif m in ("spread_x", "spread_y"):
            marg[m], factors[m] = shrink_spread(noisy[m][row], weight, sigma)
        elif m in MOMENT_TAU:  # the means and the centre share: a precision weight
            marg[m], factors[m] = shrink_moment(noisy[m][row], weight, sigma, prior[m],
                                                MOMENT_TAU[m])
        else:
            marg[m], factors[m] = shrink_to_prior(noisy[m][row], weight, sigma, prior[m])
        if m == MOMENTS[-1]:  # the spatial prior: the Gaussian of the released moments
            prior.update(spatial_priors(bins, *moments_gaussian(marg)))
    return marg, factors


def _event_edges(bins: PublicBins) -> dict[str, np.ndarray]:
    """The bin edges of each :data:`LOGNORMAL_PRIOR` marginal (public)."""
    return {"fixation_duration": bins.duration_edges, "event_rate": bins.rate_edges}


def pooled_events(params: ParticipantSynthParams, setup: PublicSetup) -> set[str]:
    """The log-normal event marginals measured once for all keys (public rule:
    :func:`~gazeprivacy.mechanisms.samples._participant_synth_model.event_keys_pooled`)."""
    edges = _event_edges(setup.bins(params))
    out = set()
    for m, prior in LOGNORMAL_PRIOR.items():
        sigma = noise_sigma(params, m)
        if sigma is not None and event_keys_pooled(edges[m], prior, sigma, setup.n_input,
                                                   len(setup.keys)):
            out.add(m)
    return out


def event_fits(params: ParticipantSynthParams, setup: PublicSetup,
               noisy: Mapping[str, np.ndarray], weights: np.ndarray
               ) -> dict[str, list[tuple[np.ndarray, float]]]:
    """Per :data:`LOGNORMAL_PRIOR` marginal with a measurement, per key: the released binned
    log-normal and its factor. First the population's, from the keys' noisy sums added (weight
    ``n``, public; noise variance ``L sigma^2``) under the data-free prior; then each key's from
    its own noisy sum (its weight) under a prior centred on the population's fit with the public
    between-key sds :data:`KEY_SD` -- keys differ where their measurements say so, and a key of
    few participants stays near the population instead of near the data-free prior. (The key's
    measurement also enters the population's fit: the key prior is slightly over-confident,
    which costs nothing in privacy.) Post-processing: docs/privacy/participant-synth.md#prior.
    """
    edges = _event_edges(setup.bins(params))
    n = float(setup.n_input)
    out: dict[str, list[tuple[np.ndarray, float]]] = {}
    for m, prior in LOGNORMAL_PRIOR.items():
        sigma = noise_sigma(params, m)
        if m not in noisy or sigma is None:
            continue
        rows = np.asarray(noisy[m], dtype=np.float64)
        pooled, (mu, ls), f = fit_lognormal(rows.sum(axis=0) / n, rows.shape[0] * sigma ** 2
                                            / n ** 2, edges[m], prior)
        if rows.shape[0] == 1:  # one key, or measured once for all keys
            out[m] = [(pooled, f)] * len(setup.keys)
            continue
        key_prior = ((mu, KEY_SD[0]), (ls, KEY_SD[1]))
        out[m] = []
        for i in range(rows.shape[0]):
            w = max(float(weights[i]), 1.0)
            p, _, fk = fit_lognormal(rows[i] / w, sigma ** 2 / w ** 2, edges[m], key_prior)
            out[m].append((p, fk))
    return out
