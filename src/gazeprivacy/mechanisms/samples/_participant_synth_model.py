# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's model: public bins, data-free priors, bounded statistics, estimation.

The mathematics of :mod:`gazeprivacy.mechanisms.samples.participant_synth` (privacy map,
phases and registry entry live there; the proof is ``docs/privacy/participant-synth.md``):

* :class:`PublicBins`: every bin edge is a function of the parameters and the public geometry,
  never of the data;
* :func:`priors`: the data-free prior of every marginal (the centre Gaussian N(screen centre,
  (W/6, H/6)) for the spatial ones, the simulator's population parameters for the event ones);
* :func:`participant_statistics`: one participant's normalised histograms (weight 1 per
  marginal whatever their number or length of recordings, split equally over their public
  label values), the bounded contribution that the Gaussian noise covers;
* :func:`shrink_to_prior`: positive-part James-Stein shrinkage of a noisy average toward the
  prior, then Euclidean projection onto the simplex (post-processing).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy.special import ndtr
from scipy.stats import gamma as gamma_dist
from scipy.stats import norm

from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Recording

__all__ = [
    "MARGINALS",
    "Key",
    "PublicBins",
    "merge_sums",
    "participant_statistics",
    "priors",
    "project_simplex",
    "shrink_to_prior",
]

#: The measured marginals, in the order of the budget split.
MARGINALS = ("density", "fixation_cell", "transition", "fixation_duration",
             "saccade_amplitude", "saccade_direction", "event_rate", "label_weight")

Key = tuple[str, ...]
"""The values of the public labels of a recording, in the order of ``public_labels``."""

# Public bin ranges (constants, not data): fixation durations 40 ms - 2 s, saccade amplitudes
# 0.5 deg - the screen diagonal, fixation rates 0.5 - 8 per second; values outside are clipped
# into the end bins (bounded contribution).
_DURATION_S = (0.04, 2.0, 12)
_AMPLITUDE_MIN_DEG = 0.5
_AMPLITUDE_BINS = 12
_DIRECTION_BINS = 12
_RATE_HZ = (0.5, 8.0, 10)

# Data-free event priors: the simulator's population (gazeprivacy.data.simulate, free viewing):
# fixation durations gamma with median 0.235 s x 1.15 and shape 4.5 (the middle of the drawn
# 2.5 - 6.5), saccade amplitudes gamma with shape 2.5 and mean 8 deg, directions half near the
# horizontal (von Mises, kappa 8) and half uniform, a fixation every 0.27 s + 35 ms of saccade.
_PRIOR_DURATION = (4.5, 0.235 * 1.15)
_PRIOR_AMPLITUDE = (2.5, 8.0)
_PRIOR_HORIZONTAL = (0.5, 8.0)
_PRIOR_RATE = (1.0 / (0.235 * 1.15 + 0.035), 0.3)


@dataclass(frozen=True)
class PublicBins:
    """Every bin of every marginal, from the parameters and the public geometry only."""

    geometry: Geometry
    grid: tuple[int, int]
    coarse_grid: tuple[int, int]

    @property
    def duration_edges(self) -> np.ndarray:
        lo, hi, n = _DURATION_S
        return np.geomspace(lo, hi, n + 1)

    @property
    def amplitude_edges(self) -> np.ndarray:
        diag = math.hypot(self.geometry.width_deg, self.geometry.height_deg)
        return np.geomspace(_AMPLITUDE_MIN_DEG, max(diag, 2 * _AMPLITUDE_MIN_DEG),
                            _AMPLITUDE_BINS + 1)

    @property
    def direction_edges(self) -> np.ndarray:
        return np.linspace(-math.pi, math.pi, _DIRECTION_BINS + 1)

    @property
    def rate_edges(self) -> np.ndarray:
        lo, hi, n = _RATE_HZ
        return np.geomspace(lo, hi, n + 1)

    def sizes(self, n_keys: int) -> dict[str, int]:
        """Bins per marginal (``label_weight``: one per public key)."""
        nf = self.grid[0] * self.grid[1]
        nc = self.coarse_grid[0] * self.coarse_grid[1]
        return {"density": nf, "fixation_cell": nc, "transition": nc * nc,
                "fixation_duration": _DURATION_S[2], "saccade_amplitude": _AMPLITUDE_BINS,
                "saccade_direction": _DIRECTION_BINS, "event_rate": _RATE_HZ[2],
                "label_weight": n_keys}

    def cell(self, x: np.ndarray, y: np.ndarray, grid: tuple[int, int]) -> np.ndarray:
        """Cell index ``iy * nx + ix`` of points clipped into the screen box (clipping: a point
        off the screen counts in the nearest border cell)."""
        g = self.geometry
        nx, ny = grid
        fx = np.clip((np.asarray(x) - g.x_min_deg) / g.width_deg, 0.0, 1.0 - 1e-12)
        fy = np.clip((np.asarray(y) - g.y_min_deg) / g.height_deg, 0.0, 1.0 - 1e-12)
        return (np.floor(fy * ny).astype(np.int64) * nx + np.floor(fx * nx).astype(np.int64))

    def cell_centres(self, grid: tuple[int, int]) -> np.ndarray:
        """(nx * ny, 2) centres in degrees, in cell-index order."""
        g = self.geometry
        nx, ny = grid
        cx = g.x_min_deg + (np.arange(nx) + 0.5) * g.width_deg / nx
        cy = g.y_min_deg + (np.arange(ny) + 0.5) * g.height_deg / ny
        xx, yy = np.meshgrid(cx, cy)
        return np.column_stack([xx.ravel(), yy.ravel()])


def _hist(values: np.ndarray, edges: np.ndarray, weights: np.ndarray | None = None
          ) -> np.ndarray:
    """Histogram with values clipped into the end bins (NaN dropped)."""
    v = np.asarray(values, dtype=np.float64)
    ok = np.isfinite(v)
    w = None if weights is None else np.asarray(weights)[ok]
    v = np.clip(v[ok], edges[0], edges[-1])
    return np.histogram(v, bins=edges, weights=w)[0].astype(np.float64)


def _normalised(h: np.ndarray) -> np.ndarray:
    total = h.sum()
    return h / total if total > 0 else np.zeros_like(h)


def _key_statistics(recs: Sequence[Recording], events: pl.DataFrame, bins: PublicBins
                    ) -> dict[str, np.ndarray]:
    """One participant's histograms under one key, each normalised to total 1 (or all zero
    when it has nothing to count): every sample, event and recording of the participant shares
    that weight, whatever their number or length."""
    nf = bins.grid[0] * bins.grid[1]
    nc = bins.coarse_grid[0] * bins.coarse_grid[1]
    x = np.concatenate([r.x for r in recs])
    y = np.concatenate([r.y for r in recs])
    ok = np.isfinite(x) & np.isfinite(y)
    out = {"density": _normalised(np.bincount(bins.cell(x[ok], y[ok], bins.grid),
                                              minlength=nf).astype(np.float64))}
    fix = events.filter(pl.col("name") == "fixation").sort("recording", "onset")
    sac = events.filter(pl.col("name") == "saccade")
    cells = bins.cell(fix["centroid_x"].to_numpy(), fix["centroid_y"].to_numpy(),
                      bins.coarse_grid)
    out["fixation_cell"] = _normalised(np.bincount(cells, minlength=nc).astype(np.float64))
    same = fix["recording"].to_numpy()
    pairs = (cells[:-1] * nc + cells[1:])[same[:-1] == same[1:]] if cells.size > 1 else cells[:0]
    out["transition"] = _normalised(np.bincount(pairs, minlength=nc * nc).astype(np.float64))
    out["fixation_duration"] = _normalised(_hist(fix["duration_s"].to_numpy(),
                                                 bins.duration_edges))
    dx = (sac["end_x"] - sac["start_x"]).to_numpy()
    dy = (sac["end_y"] - sac["start_y"]).to_numpy()
    out["saccade_amplitude"] = _normalised(_hist(np.hypot(dx, dy), bins.amplitude_edges))
    out["saccade_direction"] = _normalised(_hist(np.arctan2(dy, dx), bins.direction_edges))
    counts = dict(zip(*np.unique(same, return_counts=True), strict=True)) if same.size else {}
    rates = np.array([counts.get(r.recording, 0) / r.duration_s if r.duration_s > 0 else np.nan
                      for r in recs])
    out["event_rate"] = _normalised(_hist(rates, bins.rate_edges))
    return out


def participant_statistics(recs: Sequence[Recording], events: pl.DataFrame,
                           keys: Sequence[Key], bins: PublicBins
                           ) -> dict[Key, dict[str, np.ndarray]]:
    """One participant's bounded contribution: per public key, every marginal's histogram.

    ``recs`` are all the participant's recordings, ``keys[i]`` the public key of ``recs[i]``,
    ``events`` their event table. Each key's histograms are normalised to total 1 and scaled by
    ``1 / (number of distinct keys)``, so that the participant's total weight over all keys is
    at most 1 in every marginal (exactly 1 where it has something to count); ``label_weight`` is
    ``1 / (number of keys)`` at each of its keys. Hence the L1 norm -- and so the L2 norm -- of
    its concatenated contribution to each marginal is at most 1.
    """
    distinct = list(dict.fromkeys(keys))
    share = 1.0 / len(distinct)
    out: dict[Key, dict[str, np.ndarray]] = {}
    for key in distinct:
        mine = [r for r, k in zip(recs, keys, strict=True) if k == key]
        ids = [r.recording for r in mine]
        stats = _key_statistics(mine, events.filter(pl.col("recording").is_in(ids)), bins)
        stats = {name: share * v for name, v in stats.items()}
        stats["label_weight"] = np.array([share])  # placed at this key's index by the curator
        out[key] = stats
    return out


# --------------------------------------------------------------------------------------------
# data-free priors


def _gaussian_cells(bins: PublicBins, grid: tuple[int, int]) -> np.ndarray:
    """Cell masses of N(centre, (W/6, H/6)) truncated to the screen box."""
    nx, ny = grid
    ex = np.linspace(-3.0, 3.0, nx + 1)  # (edge - centre) / (W / 6): the box is +-3 sd
    ey = np.linspace(-3.0, 3.0, ny + 1)
    px = np.diff(ndtr(ex))
    py = np.diff(ndtr(ey))
    m = np.outer(py, px).ravel()
    return m / m.sum()


def _binned(cdf: np.ndarray) -> np.ndarray:
    """Bin masses from a CDF at the edges, tails folded into the end bins."""
    m = np.diff(cdf)
    m[0] += cdf[0]
    m[-1] += 1.0 - cdf[-1]
    return m / m.sum()


def _direction_prior(edges: np.ndarray) -> np.ndarray:
    share, kappa = _PRIOR_HORIZONTAL
    theta = np.linspace(-math.pi, math.pi, 20001)
    vm = np.exp(kappa * np.cos(theta)) + np.exp(kappa * np.cos(theta - math.pi))
    vm /= np.trapezoid(vm, theta)
    pdf = share * vm + (1 - share) / (2 * math.pi)
    cdf = np.concatenate([[0.0], np.cumsum(0.5 * (pdf[1:] + pdf[:-1]) * np.diff(theta))])
    at = np.interp(edges, theta, cdf)
    m = np.diff(at)
    return m / m.sum()


def priors(bins: PublicBins, n_keys: int) -> dict[str, np.ndarray]:
    """The data-free prior of every marginal (each a probability vector); see the module
    constants for where the event priors come from."""
    coarse = _gaussian_cells(bins, bins.coarse_grid)
    k_dur, med = _PRIOR_DURATION
    scale = med / float(gamma_dist.ppf(0.5, k_dur))
    k_amp, mean_amp = _PRIOR_AMPLITUDE
    rate, sd = _PRIOR_RATE
    return {
        "density": _gaussian_cells(bins, bins.grid),
        "fixation_cell": coarse,
        "transition": np.outer(coarse, coarse).ravel(),
        "fixation_duration": _binned(gamma_dist.cdf(bins.duration_edges, k_dur, scale=scale)),
        "saccade_amplitude": _binned(gamma_dist.cdf(bins.amplitude_edges, k_amp,
                                                    scale=mean_amp / k_amp)),
        "saccade_direction": _direction_prior(bins.direction_edges),
        "event_rate": _binned(norm.cdf(np.log(bins.rate_edges), math.log(rate), sd)),
        "label_weight": np.full(n_keys, 1.0 / n_keys),
    }


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
    """The released probability vector of one marginal under one key, and its shrink factor.

    ``z = noisy_sum / n`` estimates the average participant histogram ``p`` with per-cell noise
    variance ``s^2 = sigma^2 / n^2``; positive-part James-Stein toward the prior ``q``:
    ``c = max(0, 1 - (k - 2) s^2 / ||z - q||^2)``, ``q + c (z - q)``, projected onto the simplex.
    Every input is the noisy measurement or public (``n``: the public or noisy weight of the
    key; ``sigma``: the noise scale), so this is post-processing.

    >>> q = np.full(4, 0.25)
    >>> p, c = shrink_to_prior(np.array([40.0, 30, 20, 10]), 100.0, 1e-9, q)
    >>> p.round(3).tolist(), round(c, 3)
    ([0.4, 0.3, 0.2, 0.1], 1.0)
    """
    k = prior.size
    n = max(float(n_weight), 1.0)
    z = np.asarray(noisy_sum, dtype=np.float64) / n
    s2 = (sigma / n) ** 2
    d = z - prior
    dist2 = float(d @ d)
    c = max(0.0, 1.0 - (k - 2) * s2 / dist2) if dist2 > 0 else 0.0
    return project_simplex(prior + c * d), c


def merge_sums(into: dict[Key, dict[str, np.ndarray]],
               more: Mapping[Key, Mapping[str, np.ndarray]]) -> None:
    """Add ``more``'s per-key sums into ``into`` (in place; the curator's and client's sum)."""
    for key, stats in more.items():
        mine = into.setdefault(key, {})
        for name, v in stats.items():
            mine[name] = mine[name] + v if name in mine else np.array(v, dtype=np.float64)
