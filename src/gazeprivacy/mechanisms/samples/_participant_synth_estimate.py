# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's estimation: the noisy sums turned into released marginals, all
post-processing. Shrinkage toward the data-free prior and projection onto the simplex
(:func:`shrink_to_prior`), the spatial moments (:func:`shrink_moment`, :func:`shrink_spread`,
:func:`moments_gaussian`) and the event marginals as binned log-normals
(:func:`fit_lognormal`). Re-exported by
:mod:`gazeprivacy.mechanisms.samples._participant_synth_model`; the proof is
``docs/privacy/participant-synth.md``."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from scipy.special import ndtr  # scipy.stats' normal uses it

from gazeprivacy.mechanisms.samples._participant_synth_centre import CENTRE
from gazeprivacy.mechanisms.samples._participant_synth_centre import TAU as CENTRE_TAU

__all__ = ["KEY_SD", "LOGNORMAL_PRIOR", "MOMENT_TAU", "SPREAD_CLIP", "SPREAD_LOG_SD",
           "event_keys_pooled", "fit_lognormal", "lognormal_bins", "moments_gaussian",
           "project_simplex", "shrink_moment", "shrink_spread", "shrink_to_prior"]

#: The spread moments' clip: a participant's second moment about the public centre is clipped
#: to [0, 1/16] of the screen box and scaled by 16 (``MOMENTS`` of the model).
SPREAD_CLIP = 1.0 / 16.0


# --------------------------------------------------------------------------------------------
# estimation (post-processing of the noisy sums)


def project_simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection onto the probability simplex (Duchi et al., ICML 2008, Fig. 1).

    >>> project_simplex(np.array([0.5, 0.8, -0.3])).round(3).tolist()
    [0.35, 0.65, 0.0]
    """
    v = np.asarray(v, dtype=np.float64)
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    idx = np.arange(1, v.size + 1)
    r = idx[u - css / idx > 0][-1]
    return np.maximum(v - css[r - 1] / r, 0.0)


def shrink_to_prior(noisy_sum: np.ndarray, n_weight: float, sigma: float,
                    prior: np.ndarray) -> tuple[np.ndarray, float]:
    """The released probability vector of one marginal under one key, and its factor ``c``.

    ``z = noisy_sum / n`` estimates the average participant histogram ``p`` with per-cell noise
    variance ``s^2 = sigma^2 / n^2``. Positive-part James-Stein toward the prior ``q``,
    ``c_JS = max(0, 1 - (k - 2) s^2 / ||z - q||^2)``, capped by the public linear weight
    ``lambda = tau^2 / (tau^2 + s^2)`` with ``tau^2 = ||q||^2 / k`` (the prior's mean squared
    cell mass: noise far above it cannot move a cell by more than about ``tau^2 / s``);
    ``q + c (z - q)`` with ``c = min(c_JS, lambda)``, projected onto the simplex. Every input is
    the noisy measurement or public (``n``: the key's public or noisy weight; ``sigma``: the
    noise scale), so this is post-processing. See docs/privacy/participant-synth.md#prior.

    >>> q = np.full(4, 0.25)
    >>> p, c = shrink_to_prior(np.array([40.0, 30, 20, 10]), 100.0, 1e-9, q)
    >>> p.round(3).tolist(), round(c, 3)
    ([0.4, 0.3, 0.2, 0.1], 1.0)
    """
    k = prior.size
    n = max(float(n_weight), 1.0)
    z = np.asarray(noisy_sum, dtype=np.float64) / n
    s2 = (sigma / n) ** 2
    tau2 = float(prior @ prior) / k
    d = z - prior
    dist2 = float(d @ d)
    c = max(0.0, 1.0 - (k - 2) * s2 / dist2) if dist2 > 0 else 0.0
    c = min(c, tau2 / (tau2 + s2))
    return project_simplex(prior + c * d), c


#: Public prior sd of each spatial moment (box units; spreads scaled by 1 / SPREAD_CLIP), the
#: precision weights' scale: the population's mean 0.03 of the screen off centre (the four
#: frontier data sets' participant averages are within 0.06 of it), a second moment 0.02 off the
#: centre prior's.
MOMENT_TAU = {"mean_x": 0.03, "mean_y": 0.03, "spread_x": 0.02 / SPREAD_CLIP,
              "spread_y": 0.02 / SPREAD_CLIP, CENTRE: CENTRE_TAU}

#: The public prior of a spread: the population's sd per axis (box units) is log-normal around
#: the centre prior's 1/6 with log-sd 0.4 (a factor 1.5 either way at one sd).
SPREAD_LOG_SD = (math.log(1.0 / 6.0), 0.4)
_LOG_SD_GRID = np.linspace(math.log(0.01), math.log(2.0), 801)


def shrink_moment(noisy_sum: np.ndarray, n_weight: float, sigma: float, prior: np.ndarray,
                  tau: float) -> tuple[np.ndarray, float]:
    """A spatial moment from its two-bin measurement ``(sum v, sum (1 - v)) + noise``.

    ``v_hat = (z_0 - z_1 + 1) / 2`` averages the two noisy estimates (variance
    ``s^2 / 2``); the release is ``v0 + w (v_hat - v0)`` with the precision weight
    ``w = tau^2 / (tau^2 + s^2 / 2)`` for the public ``tau``, clipped to [0, 1].

    >>> v, w = shrink_moment(np.array([30.0, 70.0]), 100.0, 1e-9, np.array([0.5, 0.5]), 0.1)
    >>> v.round(3).tolist(), round(w, 3)
    ([0.3, 0.7], 1.0)
    """
    n = max(float(n_weight), 1.0)
    z = np.asarray(noisy_sum, dtype=np.float64) / n
    v_hat = (z[0] - z[1] + 1.0) / 2.0
    var = (sigma / n) ** 2 / 2.0
    w = tau ** 2 / (tau ** 2 + var)
    v = float(np.clip(prior[0] + w * (v_hat - prior[0]), 0.0, 1.0))
    return np.array([v, 1.0 - v]), w


def shrink_spread(noisy_sum: np.ndarray, n_weight: float, sigma: float,
                  prior: tuple[float, float] = SPREAD_LOG_SD) -> tuple[np.ndarray, float]:
    """A spread from its two-bin measurement: the posterior mean of its (clipped) log sd.

    ``v_hat`` is read as for :func:`shrink_moment` (variance ``s^2 / 2``); the public prior puts
    the sd ``t`` (box units) log-normal, ``log t ~ N(mu, kappa^2)`` (:data:`SPREAD_LOG_SD`), and
    the measurement is ``v_hat ~ N(min(t^2, SPREAD_CLIP) / SPREAD_CLIP, s^2 / 2)``. The release
    is ``exp(E[log min(t, t_c) | v_hat])``, ``t_c = sqrt(SPREAD_CLIP)`` (on a grid of log sd;
    the measurement cannot tell sds beyond the clip apart, so the prior's tail there does not
    push the release up), as the two-bin ``(v, 1 - v)`` of its scaled second moment; the
    factor is ``1 - Var[log t | v_hat] / kappa^2``, the share of the prior's variance the
    measurement removed. Reading: the error is on the log scale, where a
    too-narrow density costs as much as a too-wide one (additive noise on ``t^2`` does not).
    Post-processing of the noisy measurement and public values
    (docs/privacy/participant-synth.md#prior).

    >>> v, f = shrink_spread(np.array([0.16, 0.84]), 1.0, 1e-6)
    >>> round(math.sqrt(v[0] / 16), 3), round(f, 3)
    (0.1, 1.0)
    >>> v, f = shrink_spread(np.array([5.0, -5.0]), 10.0, 1e6)  # no information: the
    >>> round(math.sqrt(v[0] / 16), 4), round(f, 3)  # prior's log-mean of min(t, t_c)
    (0.1613, 0.0)
    """
    n = max(float(n_weight), 1.0)
    z = np.asarray(noisy_sum, dtype=np.float64) / n
    v_hat = (z[0] - z[1] + 1.0) / 2.0
    var = max((sigma / n) ** 2 / 2.0, 1e-18)
    mu, kappa = prior
    v = np.minimum(np.exp(2.0 * _LOG_SD_GRID), SPREAD_CLIP) / SPREAD_CLIP
    logp = -0.5 * ((_LOG_SD_GRID - mu) / kappa) ** 2 - 0.5 * (v_hat - v) ** 2 / var
    post = np.exp(logp - logp.max())
    post /= post.sum()
    m = float(post @ _LOG_SD_GRID)
    factor = max(0.0, 1.0 - float(post @ (_LOG_SD_GRID - m) ** 2) / kappa ** 2)
    # the release: the posterior mean of the log of the clipped sd, the part the measurement
    # identifies (the prior's tail beyond the clip would push it up without the data's say)
    clipped = float(post @ np.minimum(_LOG_SD_GRID, 0.5 * math.log(SPREAD_CLIP)))
    v_rel = min(math.exp(2.0 * clipped), SPREAD_CLIP) / SPREAD_CLIP
    return np.array([v_rel, 1.0 - v_rel]), factor


def moments_gaussian(moments: Mapping[str, np.ndarray]) -> tuple[tuple[float, float],
                                                                 tuple[float, float]]:
    """Mean and sd (box units) of the Gaussian with the released moments (sd at least 0.02)."""
    mean = (float(moments["mean_x"][0]), float(moments["mean_y"][0]))
    sd = tuple(math.sqrt(max(float(moments[f"spread_{a}"][0]) * SPREAD_CLIP
                             - (mean[i] - 0.5) ** 2, 0.02 ** 2))
               for i, a in enumerate("xy"))
    return mean, (sd[0], sd[1])


# --------------------------------------------------------------------------------------------
# the event marginals as binned log-normals (post-processing)

#: The event marginals released as a binned log-normal, and the public prior of its two
#: parameters: ``((mean, sd) of the log median, (mean, sd) of the log of the log-sd)``. The
#: centres are the simulator's population (fixations: median 0.27 s and log-sd 0.5, about its
#: gamma's of shape 4.5; rates: one fixation per 0.27 + 0.035 s); the sds are wide (a factor
#: e on the median, 1.65 on the log-sd) because detected fixations of real recordings range
#: from the simulator's to seconds (VR). Under noise the fit falls back on the simulator's.
LOGNORMAL_PRIOR = {
    "fixation_duration": ((math.log(0.235 * 1.15), 1.0), (math.log(0.5), 0.5)),
    "event_rate": ((math.log(1.0 / (0.235 * 1.15 + 0.035)), 1.0), (math.log(0.4), 0.5)),
}
#: The public prior sd of a key's log median and log log-sd around the population's fit.
KEY_SD = (0.3, 0.2)
_MU_STEPS, _SIGMA_STEPS = 161, 41


def lognormal_bins(edges: np.ndarray, mu: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """Bin masses (last axis) of log-normals with log median ``mu`` and log-sd ``sigma``
    (broadcast), the tails folded into the end bins.

    >>> lognormal_bins(np.array([0.5, 1.0, 2.0]), np.array(0.0), np.array(1.0)).round(3).tolist()
    [0.5, 0.5]
    """
    z = (np.log(edges) - np.asarray(mu)[..., None]) / np.asarray(sigma)[..., None]
    cdf = ndtr(z)
    m = np.diff(cdf, axis=-1)
    m[..., 0] += cdf[..., 0]
    m[..., -1] += 1.0 - cdf[..., -1]
    return m


def fit_lognormal(z: np.ndarray, var: float, edges: np.ndarray,
                  prior: tuple[tuple[float, float], tuple[float, float]]
                  ) -> tuple[np.ndarray, tuple[float, float], float]:
    """The posterior-mean binned log-normal of a noisy histogram.

    ``z`` estimates a probability vector over the bins of ``edges`` with independent Gaussian
    noise of variance ``var`` per bin (the noisy sum over its public or noisy weight); the
    model is a log-normal with log median ``mu`` and log-sd ``s``, with the public prior
    ``mu ~ N(m0, t0^2)``, ``log s ~ N(l0, u0^2)`` (``prior = ((m0, t0), (l0, u0))``). On a grid
    of ``(mu, log s)`` (``mu`` within 4 prior sds, clipped to the bins' range) the posterior is
    prior x Gaussian likelihood of ``z``; the release is the bins of the log-normal at the
    posterior means, the parameters, and the factor ``1 - Var[mu | z] / Var[mu]`` on the grid
    (the share of the prior's uncertainty on the median the measurement removed). Two
    parameters fitted to all bins: the noise of a bin averages out over the others, where a
    histogram shrunk bin by bin keeps it (or keeps the prior). Post-processing of the noisy
    measurement and public values (docs/privacy/participant-synth.md#prior).

    >>> e = np.geomspace(0.04, 8.0, 17)
    >>> p, (mu, s), f = fit_lognormal(lognormal_bins(e, np.log(1.0), 1.2), 1e-8, e,
    ...                               ((np.log(0.27), 1.0), (np.log(0.8), 0.5)))
    >>> round(float(np.exp(mu)), 1), round(float(np.exp(s)), 1), round(f, 2)
    (1.0, 1.2, 1.0)
    """
    (m0, t0), (l0, u0) = prior
    lo, hi = math.log(edges[0]), math.log(edges[-1])
    mu = np.linspace(max(m0 - 4 * t0, lo), min(m0 + 4 * t0, hi), _MU_STEPS)
    ls = np.linspace(l0 - 4 * u0, l0 + 4 * u0, _SIGMA_STEPS)
    mm, ll = np.meshgrid(mu, ls, indexing="ij")
    resid = lognormal_bins(edges, mm, np.exp(ll)) - np.asarray(z, dtype=np.float64)
    log_prior = -0.5 * ((mm - m0) / t0) ** 2 - 0.5 * ((ll - l0) / u0) ** 2
    logp = log_prior - 0.5 * np.sum(resid ** 2, axis=-1) / max(var, 1e-18)
    post = np.exp(logp - logp.max())
    post /= post.sum()
    mu_hat, ls_hat = float(np.sum(post * mm)), float(np.sum(post * ll))
    pri = np.exp(log_prior - log_prior.max())
    pri /= pri.sum()
    pri_var = float(np.sum(pri * (mm - np.sum(pri * mm)) ** 2))  # the prior on the grid
    factor = max(0.0, 1.0 - float(np.sum(post * (mm - mu_hat) ** 2)) / pri_var)
    p = lognormal_bins(edges, np.array(mu_hat), np.array(math.exp(ls_hat)))
    return p, (mu_hat, ls_hat), factor


def _median_information(edges: np.ndarray, prior: tuple[tuple[float, float],
                                                         tuple[float, float]]) -> float:
    """The Fisher information on the log median of one unit-variance measurement of the
    binned log-normal at the prior's centre: ``||d p / d mu||^2`` (public)."""
    (m0, _), (l0, _) = prior
    h = 1e-4
    d = (lognormal_bins(edges, np.array(m0 + h), np.array(math.exp(l0)))
         - lognormal_bins(edges, np.array(m0 - h), np.array(math.exp(l0)))) / (2 * h)
    return float(d @ d)


def event_keys_pooled(edges: np.ndarray, prior: tuple[tuple[float, float], tuple[float, float]],
                      sigma: float, n: int, n_keys: int) -> bool:
    """Whether a log-normal event marginal is measured once for all keys (True) or per key.

    Per key, with about ``n / L`` participants' weight, the key's log median would have noise sd
    about ``sigma L / (n sqrt(I))`` (``I``: :func:`_median_information` at the prior's centre);
    when that exceeds the between-key prior sd ``KEY_SD[0]`` the key's own measurement cannot
    move its fit off the population's, and one measurement of the keys' sum (the same share,
    ``L`` times less noise variance on the population) is better. A function of public values
    only (``sigma`` from rho and the share; ``n``; ``L``; the bins and prior).

    >>> e = np.geomspace(0.04, 8.0, 17)
    >>> p = LOGNORMAL_PRIOR["fixation_duration"]
    >>> event_keys_pooled(e, p, 2.7, 14, 3), event_keys_pooled(e, p, 0.1, 1000, 3)
    (True, False)
    """
    if n_keys < 2:
        return False
    return sigma * n_keys / (max(n, 1) * math.sqrt(_median_information(edges, prior))) \
        > KEY_SD[0]
