# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""event-synth-PD's privacy test (:mod:`gazeprivacy.mechanisms.samples.event_synth_pd`): what
every candidate is compared against (:class:`_Population`: every fixation model and every
participant's saccade PMFs) and the vectorised tests of every fixation and saccade, one try per
round (:func:`_test_fixations`, :func:`_test_saccades`), with the scalar test they must equal
(:func:`_passes`). Moved here unchanged from ``event_synth_pd.py`` (839 lines), which keeps the
parameters, the guarantee and the release.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from gazeprivacy.data.recording import Dataset
from gazeprivacy.events.models import (
    BOX_HALF_WIDTH_DEG,
    MIN_SIGMA_DEG,
    PROFILE_STEPS,
    log_box_mass_1d,
)
from gazeprivacy.mechanisms.samples._event_synthesis import FittedEvents, _segments

if TYPE_CHECKING:
    from gazeprivacy.mechanisms.samples.event_synth_pd import EventSynthPDParams


PMF_BINS = 50
PMF_MAX_DEG_S = 1000.0
#: Most (candidate, participant) scores the saccade test holds at once (about 10 arrays of
#: that many 8-byte values): it runs in chunks of ``_PAIR_BUDGET // participants`` candidates,
#: so its memory no longer grows with saccades x participants (one batch reached 22.5 GB on
#: 5.4 M simulated samples of thousands of participants).
_PAIR_BUDGET = 1 << 21
#: Prefilter margin (nats) for the fast fixation probabilities; candidates within
#: ``ln(gamma) + margin`` of the seed's log-probability are recomputed exactly.
_PREFILTER_MARGIN = 5.0


@dataclass(frozen=True)
class _Population:
    """What the privacy test compares against: every fixation model and every participant PMF."""

    fix_params: np.ndarray  # (M, 4)
    fix_owner: np.ndarray  # (M,) participant index
    log_pmf: np.ndarray  # (P, 30, 50)
    participants: tuple[str, ...]


@dataclass(frozen=True)
class _FixationEvents:
    """Every fixation of the dataset: its fitted normal (the seed), row count and participant."""

    params: np.ndarray  # (F, 4)
    n: np.ndarray  # (F,) rows (candidates have as many samples)
    owner: np.ndarray  # (F,) participant index


def _build_population(dataset: Dataset, fitted: list[FittedEvents],
                      params: EventSynthPDParams) -> _Population:
    parts = dataset.participants
    index = {p: i for i, p in enumerate(parts)}
    owners = [index[r.participant] for r in dataset.recordings]
    fix = np.vstack([f.fixation_params for f in fitted]) if fitted else np.zeros((0, 4))
    fix_owner = np.concatenate([np.full(f.n_fixations, o) for f, o in zip(fitted, owners,
                                                                           strict=True)])
    counts = np.zeros((len(parts), PROFILE_STEPS, PMF_BINS))
    n_sacc = np.zeros(len(parts))
    for f, o in zip(fitted, owners, strict=True):
        if f.n_saccades == 0:
            continue
        bins = _bins(f.saccade_profiles)
        for step in range(PROFILE_STEPS):
            np.add.at(counts[o, step], bins[:, step], 1.0)
        n_sacc[o] += f.n_saccades
    counts += params.pmf_pseudocount
    denom = n_sacc[:, None, None] + params.pmf_pseudocount * PMF_BINS
    with np.errstate(divide="ignore"):
        log_pmf = np.log(counts) - np.log(np.maximum(denom, 1e-300))
    return _Population(fix, fix_owner.astype(np.int64), log_pmf, parts)


def _bins(profiles: np.ndarray) -> np.ndarray:
    b = np.floor(np.asarray(profiles) / (PMF_MAX_DEG_S / PMF_BINS)).astype(np.int64)
    return np.clip(b, 0, PMF_BINS - 1)


def _passes(lps: np.ndarray, owners: np.ndarray, seed_lp: float, seed_owner: int,
            params: EventSynthPDParams, rng: np.random.Generator) -> bool:
    """The privacy test; ``lps`` covers every record near the seed, the seed's own included."""
    ln_gamma = math.log(params.gamma)
    if params.mode == "paper":
        ok = np.isfinite(lps) & (np.abs(lps - seed_lp) <= ln_gamma) & (owners != seed_owner)
        return np.unique(owners[ok]).size >= params.k - 1
    # Sound: the partition test counts records in the same gamma-interval (seed included).
    if not np.isfinite(seed_lp):
        return False
    if ln_gamma == 0.0:
        same = lps == seed_lp
    else:
        i_seed = math.floor(-seed_lp / ln_gamma)
        with np.errstate(invalid="ignore"):
            same = np.isfinite(lps) & (np.floor(-lps / ln_gamma) == i_seed)
    count = int(same.sum())
    # Bindschaedler's noisy threshold, floored at k so that the (k, gamma)-PD claim holds
    return count >= max(params.k, params.k + rng.laplace(0.0, 1.0 / params.epsilon0))


def _passes_batch(lps: np.ndarray, owners: np.ndarray, group: np.ndarray, seed_lp: np.ndarray,
                  seed_owner: np.ndarray, params: EventSynthPDParams,
                  rng: np.random.Generator) -> np.ndarray:
    """:func:`_passes` for many candidates at once.

    ``lps, owners, group`` list (record, candidate) pairs: the record's log-probability, its
    participant and the candidate's index; ``seed_lp, seed_owner`` are per candidate. Pairs of
    records far from the seed may be left out (they can never count). Sound mode draws one
    Laplace threshold per candidate, in candidate order, floored at ``k``.
    """
    c = seed_lp.shape[0]
    ln_gamma = math.log(params.gamma)
    if params.mode == "paper":
        ok = (np.isfinite(lps) & (np.abs(lps - seed_lp[group]) <= ln_gamma)
              & (owners != seed_owner[group]))
        # distinct participants per candidate
        n_owner = int(owners.max()) + 1 if owners.size else 1
        key = np.unique(group[ok] * n_owner + owners[ok])
        count = np.bincount(key // n_owner, minlength=c)
        return count >= params.k - 1
    if ln_gamma == 0.0:
        same = lps == seed_lp[group]
    else:
        with np.errstate(invalid="ignore"):
            i_seed = np.floor(-seed_lp / ln_gamma)
            same = np.isfinite(lps) & (np.floor(-lps / ln_gamma) == i_seed[group])
    count = np.bincount(group[same], minlength=c)
    noise = rng.laplace(0.0, 1.0 / params.epsilon0, c)
    return np.isfinite(seed_lp) & (count >= np.maximum(params.k, params.k + noise))


# Lower bound of the (0.5 - e^2 / 6) factor of fixation_log_prob_approx for sigma >= MIN_SIGMA.
_C0 = 0.5 - (BOX_HALF_WIDTH_DEG / MIN_SIGMA_DEG) ** 2 / 6


def _axis_bound(n: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Upper bound, over every model sigma >= MIN_SIGMA_DEG, of one axis's term of
    :func:`fixation_log_prob_approx` for ``n`` samples with mean squared distance ``q`` from
    the model's mean (``q = sample variance + (sample mean - mu)^2``)."""
    h = BOX_HALF_WIDTH_DEG
    s2 = np.maximum(2 * _C0 * q, MIN_SIGMA_DEG ** 2)  # the maximising sigma^2, floored
    return n * (math.log(2 * h) - 0.5 * math.log(2 * math.pi)) - 0.5 * n * np.log(s2) \
        - _C0 * n * q / s2


def _axis_radius(n: np.ndarray, var: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Smallest ``d >= 0`` beyond which ``_axis_bound(n, var + d^2) < target`` (bound is
    decreasing in ``q``); inverts both branches of the sigma floor."""
    h = BOX_HALF_WIDTH_DEG
    k0 = n * (math.log(2 * h) - 0.5 * math.log(2 * math.pi))
    q_thr = MIN_SIGMA_DEG ** 2 / (2 * _C0)
    at_thr = _axis_bound(n, np.full_like(var, q_thr))
    # floored branch (q <= q_thr): k0 - n log(s_min) - C0 n q / s_min^2 = target
    q_lo = (k0 - n * math.log(MIN_SIGMA_DEG) - target) * MIN_SIGMA_DEG ** 2 / (_C0 * n)
    # free branch: k0 - n/2 log(2 C0 q) - n/2 = target
    q_hi = np.exp(2 * (k0 - target) / n - 1.0) / (2 * _C0)
    q = np.where(target >= at_thr, q_lo, q_hi)
    return np.sqrt(np.clip(q - var, 0.0, None))


#: Widest query, in grid cells per axis, looked up cell by cell; wider queries scan every model.
_GRID_REACH = 9
#: Most cells of the grid's dense lookup table (the cell size grows for a wider spread of means).
_GRID_CELLS = 1 << 22


class _ModelGrid:
    """Model means in a uniform grid: all models within a per-query Chebyshev radius.

    Hand-written (not :class:`scipy.spatial.cKDTree`) because the queries come in vectorised
    batches of tens of thousands with tiny radii, where the tree's per-query Python lists cost
    more than the whole test: here the models are sorted by cell, a dense table gives each
    cell's slice, and a query batch visits only the cells its square overlaps (one gather per
    cell offset). ``pairs`` returns every ``(query, model)`` with
    ``max(|dx|, |dy|) <= radius[query]``, as ``cKDTree.query_ball_point(p=inf)`` would.
    """

    def __init__(self, xy: np.ndarray, cell: float = 0.1) -> None:
        self.xy = np.asarray(xy, dtype=np.float64)
        self.origin = self.xy.min(axis=0) if self.xy.size else np.zeros(2)
        span = (self.xy.max(axis=0) - self.origin) if self.xy.size else np.zeros(2)
        # enough cells to hold the spread, at most _GRID_CELLS of them
        self.cell = max(cell, float(math.sqrt((span[0] + cell) * (span[1] + cell)
                                              / _GRID_CELLS)))
        ix, iy = self._index(self.xy[:, 0], self.xy[:, 1])
        self.nx = int(ix.max()) + 1 if ix.size else 1
        self.ny = int(iy.max()) + 1 if iy.size else 1
        key = ix * self.ny + iy
        self.order = np.argsort(key, kind="stable")
        # models of cell c: self.order[self.start[c]:self.start[c + 1]]
        self.start = np.concatenate([[0], np.cumsum(np.bincount(key, minlength=self.nx
                                                                * self.ny))])

    def _index(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (np.floor((x - self.origin[0]) / self.cell).astype(np.int64),
                np.floor((y - self.origin[1]) / self.cell).astype(np.int64))

    def pairs(self, x: np.ndarray, y: np.ndarray, radius: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
        """``(query, model)`` index pairs within each query's radius (Chebyshev)."""
        # the cells each query's square overlaps (widened by a rounding margin), clipped
        r = radius + 1e-9 * (1.0 + np.abs(x) + np.abs(y) + radius)
        x0, y0 = self._index(x - r, y - r)
        x1, y1 = self._index(x + r, y + r)
        x0, y0 = np.maximum(x0, 0), np.maximum(y0, 0)
        x1, y1 = np.minimum(x1, self.nx - 1), np.minimum(y1, self.ny - 1)
        wx, wy = x1 - x0, y1 - y0  # cells beyond the first (negative: outside the grid)
        out_q: list[np.ndarray] = []
        out_m: list[np.ndarray] = []
        far = np.flatnonzero((wx >= _GRID_REACH) | (wy >= _GRID_REACH))
        for a in range(0, far.size, 256):  # wide radii (rare): against every model
            q = far[a:a + 256]
            d = np.maximum(np.abs(self.xy[None, :, 0] - x[q, None]),
                           np.abs(self.xy[None, :, 1] - y[q, None]))
            qi, mi = np.nonzero(d <= radius[q, None])
            out_q.append(q[qi])
            out_m.append(mi)
        near = np.flatnonzero((wx >= 0) & (wy >= 0) & (wx < _GRID_REACH) & (wy < _GRID_REACH))
        for dx in range(int(wx[near].max()) + 1 if near.size else 0):
            near = near[wx[near] >= dx]
            for dy in range(int(wy[near].max()) + 1 if near.size else 0):
                q = near[wy[near] >= dy]
                c = (x0[q] + dx) * self.ny + y0[q] + dy
                lo = self.start[c]
                cnt = self.start[c + 1] - lo
                hit = cnt > 0
                q, lo, cnt = q[hit], lo[hit], cnt[hit]
                if q.size == 0:
                    continue
                rep = np.repeat(np.arange(q.size), cnt)
                pos = lo[rep] + np.arange(rep.size) - (np.cumsum(cnt) - cnt)[rep]
                out_q.append(q[rep])
                out_m.append(self.order[pos])
        qq = np.concatenate(out_q) if out_q else np.zeros(0, dtype=np.int64)
        mm = np.concatenate(out_m) if out_m else np.zeros(0, dtype=np.int64)
        d = np.maximum(np.abs(self.xy[mm, 0] - x[qq]), np.abs(self.xy[mm, 1] - y[qq]))
        keep = d <= radius[qq]
        return qq[keep], mm[keep]


def _fixation_round(cx: np.ndarray, cy: np.ndarray, seg: np.ndarray, n: np.ndarray,
                    p: np.ndarray, owner: np.ndarray, pop: _Population, tree: _ModelGrid,
                    params: EventSynthPDParams, rng: np.random.Generator) -> np.ndarray:
    """Which candidates pass: candidate ``i`` has the samples ``cx[seg == i], cy[seg == i]``
    (``n[i]`` of them, contiguous), seed model ``p[i]`` and participant ``owner[i]``; ``tree``
    indexes the population's model means (:class:`_ModelGrid`).

    The same decision as scoring every model exactly and calling :func:`_passes` per candidate:
    the spatial index returns a superset of the models the prefilter keeps (an upper bound of the
    prefilter's value over every sigma, see :func:`_axis_radius`), the prefilter keeps every
    model within ``ln(gamma) + margin`` of the seed, and the survivors are scored exactly.
    """
    ln_gamma = math.log(params.gamma)
    band = ln_gamma + _PREFILTER_MARGIN
    h = BOX_HALF_WIDTH_DEG
    m = n.shape[0]
    seed_lp = np.bincount(seg, weights=log_box_mass_1d(cx, p[seg, 0], p[seg, 2], h)
                          + log_box_mass_1d(cy, p[seg, 1], p[seg, 3], h),
                          minlength=m)
    nf = n.astype(np.float64)
    s1x = np.bincount(seg, weights=cx, minlength=m)
    s1y = np.bincount(seg, weights=cy, minlength=m)
    s2x = np.bincount(seg, weights=cx * cx, minlength=m)
    s2y = np.bincount(seg, weights=cy * cy, minlength=m)
    mx, my = s1x / nf, s1y / nf
    vx = np.bincount(seg, weights=(cx - mx[seg]) ** 2, minlength=m) / nf
    vy = np.bincount(seg, weights=(cy - my[seg]) ** 2, minlength=m) / nf
    # models whose prefilter value can reach seed_lp - band: bound over sigma on each axis,
    # the other axis at its best (mean distance 0); slack against rounding
    target = seed_lp - band
    rx = _axis_radius(nf, vx, target - _axis_bound(nf, vy))
    ry = _axis_radius(nf, vy, target - _axis_bound(nf, vx))
    radius = np.maximum(rx, ry) * (1 + 1e-9) + 1e-12
    cand, model = tree.pairs(mx, my, radius)
    # the prefilter: fixation_log_prob_approx from sufficient statistics, per pair
    q = pop.fix_params[model]
    approx = np.zeros(cand.size)
    for s1, s2, mu, sd in ((s1x, s2x, q[:, 0], q[:, 2]), (s1y, s2y, q[:, 1], q[:, 3])):
        nn = nf[cand]
        sum_z2 = (s2[cand] - 2 * mu * s1[cand] + nn * mu * mu) / (sd * sd)
        e2 = (h / sd) ** 2
        approx += (nn * np.log(2 * h / sd) - 0.5 * nn * math.log(2 * math.pi)
                   - (0.5 - e2 / 6) * sum_z2 - nn * e2 / 6)
    near = np.abs(approx - seed_lp[cand]) <= band
    if params.mode == "paper":  # records of the seed's own participant never count
        near &= pop.fix_owner[model] != owner[cand]
    cand, model = cand[near], model[near]
    # exact log-probabilities of the near pairs (every sample of the candidate)
    start = np.cumsum(n) - n
    prow, pseg, _ = _segments(start[cand], start[cand] + n[cand])
    qm = pop.fix_params[model][pseg]
    lp = np.bincount(pseg, weights=log_box_mass_1d(cx[prow], qm[:, 0], qm[:, 2], h)
                     + log_box_mass_1d(cy[prow], qm[:, 1], qm[:, 3], h),
                     minlength=cand.size)
    return _passes_batch(lp, pop.fix_owner[model], cand, seed_lp, owner, params, rng)


def _approx_axis(n: np.ndarray, s1: np.ndarray, s2: np.ndarray, mu: np.ndarray,
                 sd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One axis of :func:`fixation_log_prob_approx` from sufficient statistics (``n`` samples
    with sum ``s1`` and sum of squares ``s2``) under the normal ``(mu, sd)``, and the sum of
    squared standardised distances ``sum z^2`` it uses."""
    h = BOX_HALF_WIDTH_DEG
    sum_z2 = (s2 - 2 * mu * s1 + n * mu * mu) / (sd * sd)
    e2 = (h / sd) ** 2
    return (n * np.log(2 * h / sd) - 0.5 * n * math.log(2 * math.pi)
            - (0.5 - e2 / 6) * sum_z2 - n * e2 / 6), sum_z2


@dataclass(frozen=True)
class _Draw:
    """Sufficient statistics of candidates drawn from their seeds' normals (per candidate)."""

    n: np.ndarray
    mean: np.ndarray  # (c, 2)
    ss: np.ndarray  # (c, 2) sums of squared deviations from the sample mean

    @classmethod
    def from_seeds(cls, p: np.ndarray, n: np.ndarray, rng: np.random.Generator) -> _Draw:
        """The sample mean and sum of squares of ``n`` i.i.d. draws from each seed normal
        ``p = (mu_x, mu_y, sigma_x, sigma_y)``: independent, ``N(mu, sigma^2 / n)`` and
        ``sigma^2 chi^2_{n-1}`` per axis."""
        nf = n.astype(np.float64)[:, None]
        mean = p[:, :2] + p[:, 2:] / np.sqrt(nf) * rng.standard_normal((n.size, 2))
        chi2 = 2.0 * rng.standard_gamma(np.repeat((nf - 1.0) / 2.0, 2, axis=1))
        return cls(n, mean, p[:, 2:] ** 2 * chi2)

    def samples(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Samples with exactly these statistics, distributed as i.i.d. normal samples given
        them: ``mean + sqrt(ss) w / |w|`` with ``w`` a centred standard normal vector (uniform
        on the sphere of centred vectors, independent of the mean and the sum of squares).
        Returns ``(x, y, seg)``, flat in candidate order."""
        seg = np.repeat(np.arange(self.n.size), self.n)
        out = []
        for a in range(2):
            w = rng.standard_normal(seg.size)
            w -= (np.bincount(seg, weights=w, minlength=self.n.size) / self.n)[seg]
            norm = np.sqrt(np.bincount(seg, weights=w * w, minlength=self.n.size))
            scale = np.sqrt(self.ss[:, a]) / np.where(norm > 0, norm, 1.0)
            out.append(self.mean[seg, a] + w * scale[seg])
        return out[0], out[1], seg


def _prescreen(draw: _Draw, p: np.ndarray, owner: np.ndarray, pop: _Population,
               tree: _ModelGrid, params: EventSynthPDParams) -> np.ndarray:
    """Which candidates can pass, from their sufficient statistics alone (no samples).

    Per sample and axis, with ``z`` the standardised distance to a model and ``e = h / sigma``,
    the exact log box mass minus the prefilter's approximation lies in
    ``[-e^2 z^2 / 6, e^2 / 6]`` (lower bound by Jensen's inequality on the box average of the
    density, upper by ``sinh(t) / t <= exp(t^2 / 6)``); summed, it brackets every exact
    log-probability of a candidate, its seed's included, from ``n, sum v, sum v^2``. A record
    counts in the test only if its exact value is within ``ln(gamma)`` of the seed's, so only
    if the brackets come that close; a candidate with fewer such records than the test needs
    (``k - 1`` other participants in paper mode, ``k`` records in sound mode) fails whatever
    its samples. Returns a mask that keeps every candidate that could pass (a superset)."""
    ln_gamma = math.log(params.gamma)
    nf = draw.n.astype(np.float64)
    s1 = nf[:, None] * draw.mean
    s2 = draw.ss + nf[:, None] * draw.mean ** 2

    def bracket(i: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper bounds of the exact log-probability of candidates ``i`` under
        models ``q`` (rows of ``(mu_x, mu_y, sigma_x, sigma_y)``)."""
        lo = np.zeros(i.size)
        hi = np.zeros(i.size)
        for a in range(2):
            val, sum_z2 = _approx_axis(nf[i], s1[i, a], s2[i, a], q[:, a], q[:, 2 + a])
            e2 = (BOX_HALF_WIDTH_DEG / q[:, 2 + a]) ** 2 / 6
            lo += val - e2 * sum_z2
            hi += val + nf[i] * e2
        slack = 1e-6 * (1.0 + np.abs(lo) + np.abs(hi))  # rounding of sums and box masses
        return lo - slack, hi + slack

    seed_lo, seed_hi = bracket(np.arange(nf.size), p)
    lo, hi = seed_lo - ln_gamma, seed_hi + ln_gamma
    # a model's approximation exceeds its exact value by at most sum e^2 z^2 / 6 and falls
    # short by at most n e^2 / 6 <= n (h / MIN_SIGMA)^2 / 6 per axis
    target = lo - nf * (BOX_HALF_WIDTH_DEG / MIN_SIGMA_DEG) ** 2 / 3
    v = draw.ss / nf[:, None]
    rx = _axis_radius(nf, v[:, 0], target - _axis_bound(nf, v[:, 1]))
    ry = _axis_radius(nf, v[:, 1], target - _axis_bound(nf, v[:, 0]))
    cand, model = tree.pairs(draw.mean[:, 0], draw.mean[:, 1],
                             np.maximum(rx, ry) * (1 + 1e-9) + 1e-12)
    if params.mode == "paper":  # records of the seed's own participant never count
        keep = pop.fix_owner[model] != owner[cand]
        cand, model = cand[keep], model[keep]
    m_lo, m_hi = bracket(cand, pop.fix_params[model])
    ok = (m_hi >= lo[cand]) & (m_lo <= hi[cand])
    if params.mode == "paper":  # distinct other participants
        n_owner = int(pop.fix_owner.max()) + 1
        key = np.unique(cand[ok] * n_owner + pop.fix_owner[model[ok]])
        return np.bincount(key // n_owner, minlength=nf.size) >= params.k - 1
    return np.bincount(cand[ok], minlength=nf.size) >= params.k


def _test_fixations(events: _FixationEvents, pop: _Population, params: EventSynthPDParams,
                    rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                       np.ndarray]:
    """The privacy test of every fixation, vectorised over events, one try per round.

    Round ``j`` draws the ``j``-th candidate of every event that has not passed yet, so each
    event releases its first passing candidate, as a loop over tries would. A candidate is
    drawn in two steps with the distribution of i.i.d. samples from the seed's normal: first
    its sufficient statistics (sample mean and sum of squares per axis), which
    :func:`_prescreen` uses to drop the candidates that cannot pass; then, for the rest, the
    samples given those statistics, which :func:`_fixation_round` tests exactly (its spatial
    index, prefilter and exact scores as before). Returns per event: the winning try (-1:
    none), the released samples (flat, in event order, for winners) and the number of tries.
    """
    n_ev = events.params.shape[0]
    winner = np.full(n_ev, -1, dtype=np.int64)
    tries = np.zeros(n_ev, dtype=np.int64)
    out_x = np.full(int(events.n.sum()), np.nan)
    out_y = np.full_like(out_x, np.nan)
    ev_start = np.cumsum(events.n) - events.n
    tree = _ModelGrid(pop.fix_params[:, :2]) if pop.fix_params.shape[0] else None
    active = np.arange(n_ev)
    for j in range(params.max_tries):
        if active.size == 0 or tree is None:
            break
        tries[active] += 1
        p, n, owner = events.params[active], events.n[active], events.owner[active]
        draw = _Draw.from_seeds(p, n, rng)
        live = np.flatnonzero(_prescreen(draw, p, owner, pop, tree, params))
        sub = _Draw(n[live], draw.mean[live], draw.ss[live])
        cx, cy, seg = sub.samples(rng)
        ok = np.zeros(active.size, dtype=bool)
        ok[live] = _fixation_round(cx, cy, seg, n[live], p[live], owner[live], pop, tree,
                                   params, rng)
        won = active[ok]
        winner[won] = j
        # keep the winners' samples
        start = np.cumsum(n[live]) - n[live]
        wl = ok[live]
        wrow, wseg, wrank = _segments(start[wl], start[wl] + n[live][wl])
        dst = ev_start[won][wseg] + wrank
        out_x[dst] = cx[wrow]
        out_y[dst] = cy[wrow]
        active = active[~ok]
    return winner, out_x, out_y, tries


def _test_saccades(amplitude: np.ndarray, duration: np.ndarray, owner: np.ndarray,
                   pop: _Population, cvae, params: EventSynthPDParams,
                   rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The privacy test of every saccade, vectorised over events, one try per round (as
    :func:`_test_fixations`; one C-VAE decoder call per round). Returns per saccade the winning
    try (-1: none), the released profile (winners) and the tries used."""
    n_ev = amplitude.shape[0]
    winner = np.full(n_ev, -1, dtype=np.int64)
    tries = np.zeros(n_ev, dtype=np.int64)
    profiles = np.zeros((n_ev, PROFILE_STEPS))
    if cvae is None:
        tries[:] = params.max_tries
        return winner, profiles, tries
    by_step = np.ascontiguousarray(pop.log_pmf.transpose(1, 2, 0))  # (steps, bins, P)
    names = np.asarray(pop.participants, dtype=object)
    chunk = max(1, _PAIR_BUDGET // len(pop.participants))
    active = np.arange(n_ev)
    for j in range(params.max_tries):
        if active.size == 0:
            break
        tries[active] += 1
        cands = cvae.sample(amplitude[active], duration[active], names[owner[active]], rng=rng)
        # the test in chunks of candidates, in order (the same draws as one batch)
        ok = np.zeros(active.size, dtype=bool)
        for a in range(0, active.size, chunk):
            ok[a:a + chunk] = _saccade_round(_bins(cands[a:a + chunk]),
                                             owner[active[a:a + chunk]], by_step, params, rng)
        winner[active[ok]] = j
        profiles[active[ok]] = cands[ok]
        active = active[~ok]
    return winner, profiles, tries


def _saccade_round(bins: np.ndarray, owner: np.ndarray, by_step: np.ndarray,
                   params: EventSynthPDParams, rng: np.random.Generator) -> np.ndarray:
    """Which candidates pass: their binned profiles ``(c, steps)``, their seeds' participants,
    and the PMFs by step ``(steps, bins, P)``; scores every candidate under every participant
    (``c x P`` log-probabilities, summed over the steps)."""
    c, n_part = bins.shape[0], by_step.shape[2]
    lp = by_step[0][bins[:, 0]]
    for step in range(1, PROFILE_STEPS):
        lp += by_step[step][bins[:, step]]
    group = np.repeat(np.arange(c), n_part)
    everyone = np.tile(np.arange(n_part), c)
    seed_lp = lp[np.arange(c), owner]
    return _passes_batch(lp.ravel(), everyone, group, seed_lp, owner, params, rng)
