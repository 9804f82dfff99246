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
  label values), the bounded contribution that the Gaussian noise covers. It is
  :func:`normalise_parts` of :func:`participant_parts`: the *raw parts* (counts, and per
  recording the moment sums) add up exactly over any split of a participant's recordings
  (:func:`merge_parts`), so a participant spanning partitions is normalised once, whole;
* :func:`shrink_to_prior`: positive-part James-Stein shrinkage of a noisy average toward the
  prior, then Euclidean projection onto the simplex (post-processing); it and the other
  estimates live in :mod:`gazeprivacy.mechanisms.samples._participant_synth_estimate`,
  re-exported here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy.special import gammainc, gammaincinv, ndtr  # scipy.stats' gamma / normal use these

from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Recording
from gazeprivacy.mechanisms.samples._participant_synth_centre import (
    CENTRE,
    FINE,
    centre_counts,
    disc_mask,
)
from gazeprivacy.mechanisms.samples._participant_synth_estimate import (  # re-exported
    KEY_SD,
    LOGNORMAL_PRIOR,
    MOMENT_TAU,
    SPREAD_CLIP,
    SPREAD_LOG_SD,
    event_keys_pooled,
    fit_lognormal,
    lognormal_bins,
    moments_gaussian,
    project_simplex,
    shrink_moment,
    shrink_spread,
    shrink_to_prior,
)
from gazeprivacy.mechanisms.samples._participant_synth_events import (
    event_sample_count,
    saccade_shifts,
)
from gazeprivacy.mechanisms.samples._participant_synth_labels import (
    CONTRAST,
    participant_contrast,
)
from gazeprivacy.mechanisms.samples._participant_synth_quality import (
    QUALITY,
    QUALITY_PARTS,
    QUALITY_PRIOR,
    QUALITY_SIZES,
    quality_parts,
    quality_statistics,
)

__all__ = [
    "KEY_SD",
    "LOGNORMAL_PRIOR",
    "MARGINALS",
    "MOMENTS",
    "MOMENT_TAU",
    "POOLED",
    "RECORDING_SUMS",
    "SPREAD_LOG_SD",
    "Key",
    "PublicBins",
    "disc_mass",
    "event_keys_pooled",
    "fit_lognormal",
    "fixation_intervals",
    "gaussian_cells",
    "lognormal_bins",
    "merge_parts",
    "merge_sums",
    "moments_gaussian",
    "normalise_parts",
    "participant_parts",
    "participant_statistics",
    "priors",
    "project_simplex",
    "shrink_moment",
    "shrink_spread",
    "shrink_to_prior",
    "spatial_priors",
]

#: The measured marginals, in the order of the budget split.
MARGINALS = ("mean_x", "mean_y", "spread_x", "spread_y", "density", CENTRE, "fixation_cell",
             "transition", "fixation_duration", "saccade_amplitude", "saccade_direction",
             "event_rate", *QUALITY, "label_weight")

#: The spatial moments, each measured as a two-bin histogram ``(v, 1 - v)`` with ``v`` in
#: [0, 1]: the participant's mean x and y in screen-box units, and their second moments about
#: the public centre, clipped to [0, 1/16] and scaled by 16.
MOMENTS = ("mean_x", "mean_y", "spread_x", "spread_y")

#: The marginals measured once over all public keys together (a participant's histograms summed
#: over its keys: still L1 norm at most 1) and shared by every key: the spatial ones and the
#: saccade geometry. The frontier's density is the population's, and with ``L`` keys a pooled
#: measurement has ``L`` times less noise variance than the sum of ``L`` per-key ones; at the
#: participant counts of eye-tracking studies (``n / L`` of a few people) per-key spatial
#: estimates are noise.
POOLED = (*MOMENTS, "density", CENTRE, "fixation_cell", "transition", "saccade_amplitude",
          "saccade_direction", *QUALITY)

Key = tuple[str, ...]
"""The values of the public labels of a recording, in the order of ``public_labels``."""

# Public bin ranges (constants, not data): fixation durations 40 ms - 8 s, saccade amplitudes
# 0.5 deg - the screen diagonal, fixation rates 0.1 - 8 per second; values outside are clipped
# into the end bins (bounded contribution). The long ends are for head-free and VR recordings,
# where a detector without a pursuit class finds fixations of seconds (VR: median 1.1 s, 0.5 per
# second, the adaptive detector at 50 Hz).
_DURATION_S = (0.04, 8.0, 16)
_AMPLITUDE_MIN_DEG = 0.5
_AMPLITUDE_BINS = 12
_DIRECTION_BINS = 12
_RATE_HZ = (0.1, 8.0, 14)

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
        return {"mean_x": 2, "mean_y": 2, "spread_x": 2, "spread_y": 2,
                "density": nf, CENTRE: 2, "fixation_cell": nc, "transition": nc * nc,
                "fixation_duration": _DURATION_S[2], "saccade_amplitude": _AMPLITUDE_BINS,
                "saccade_direction": _DIRECTION_BINS, "event_rate": _RATE_HZ[2],
                **QUALITY_SIZES, "label_weight": n_keys}

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


#: The raw part that is not a count: one row per recording, ``(valid samples, sum fx, sum fy,
#: sum (fx - 1/2)^2, sum (fy - 1/2)^2)`` with ``fx``, ``fy`` the box coordinates clipped to
#: [0, 1]. Rows are stacked when parts merge and added by :func:`math.fsum` (exactly rounded,
#: so the same whatever the order or the partitioning).
RECORDING_SUMS = "recording_sums"


def _box(r: Recording, g: Geometry) -> tuple[np.ndarray, np.ndarray]:
    """A recording's valid samples in box coordinates, clipped to [0, 1]."""
    ok = np.isfinite(r.x) & np.isfinite(r.y)
    return (np.clip((r.x[ok] - g.x_min_deg) / g.width_deg, 0.0, 1.0),
            np.clip((r.y[ok] - g.y_min_deg) / g.height_deg, 0.0, 1.0))


def _moment_sums(r: Recording, g: Geometry) -> list[float]:
    """A recording's row of :data:`RECORDING_SUMS`."""
    fx, fy = _box(r, g)
    return [float(fx.size), float(fx.sum()), float(fy.sum()), float(((fx - 0.5) ** 2).sum()),
            float(((fy - 0.5) ** 2).sum())]


def _moments(rows: np.ndarray) -> dict[str, np.ndarray]:
    """The participant's spatial moments as two-bin histograms ``(v, 1 - v)`` (zeros when it
    has no valid sample) from its :data:`RECORDING_SUMS` rows: ``v`` the mean of the clipped box
    coordinate, or its second moment about the public centre clipped to ``SPREAD_CLIP`` and
    divided by it."""
    n, sx, sy, qx, qy = (math.fsum(rows[:, j]) for j in range(5))
    if n == 0:
        return {m: np.zeros(2) for m in MOMENTS}
    vals = {"mean_x": sx / n, "mean_y": sy / n,
            "spread_x": min(qx / n, SPREAD_CLIP) / SPREAD_CLIP,
            "spread_y": min(qy / n, SPREAD_CLIP) / SPREAD_CLIP}
    return {m: np.array([v, 1.0 - v]) for m, v in vals.items()}


def fixation_intervals(events: pl.DataFrame) -> pl.DataFrame:
    """The intervals between saccades: maximal runs of contiguous non-saccade events (fixation,
    pursuit) of one recording, as ``recording, duration_s``.

    The generator renders fixations and saccades only, and a detector without a pursuit class
    (the adaptive one) calls pursuit fixation; so a fixation here is the time between two
    saccades (or a gap), whatever the detector (REMoDNaV splits a slow drift into fixation and
    pursuit pieces: on VR recordings 0.13 s pieces where the interval lasts about a second).

    >>> ev = pl.DataFrame({"recording": ["a"] * 4, "name": ["fixation", "pursuit", "saccade",
    ...                    "fixation"], "onset": [0, 10, 30, 33], "offset": [10, 30, 33, 40],
    ...                    "duration_s": [0.1, 0.2, 0.03, 0.07]})
    >>> fixation_intervals(ev)["duration_s"].to_list()
    [0.30000000000000004, 0.07]
    """
    ev = events.filter(pl.col("name") != "saccade").sort("recording", "onset")
    if ev.height == 0:
        return pl.DataFrame({"recording": [], "duration_s": []},
                            schema={"recording": pl.String, "duration_s": pl.Float64})
    new = ((pl.col("recording") != pl.col("recording").shift(1))
           | (pl.col("onset") != pl.col("offset").shift(1))).fill_null(True)
    return (ev.with_columns(new.cum_sum().alias("_run"))
            .group_by("_run", maintain_order=True)
            .agg(pl.col("recording").first(), pl.col("duration_s").sum())
            .select("recording", "duration_s"))


def _key_parts(recs: Sequence[Recording], events: pl.DataFrame, bins: PublicBins,
               event_seconds: float | None) -> dict[str, np.ndarray]:
    """One participant's raw parts under one key (some of its recordings): every histogram as
    counts (integers, so sums over any split of the recordings are exact) and the
    :data:`RECORDING_SUMS` rows; :func:`normalise_parts` turns them into the bounded
    statistics. ``events`` were measured on each recording's event window (its first
    :func:`event_sample_count` samples), over which the event rate's valid seconds run."""
    nf = bins.grid[0] * bins.grid[1]
    nc = bins.coarse_grid[0] * bins.coarse_grid[1]
    x = np.concatenate([r.x for r in recs])
    y = np.concatenate([r.y for r in recs])
    ok = np.isfinite(x) & np.isfinite(y)
    out = {"density": np.bincount(bins.cell(x[ok], y[ok], bins.grid),
                                  minlength=nf).astype(np.float64)}
    out[CENTRE] = sum((centre_counts(*_box(r, bins.geometry)) for r in recs), np.zeros(2))
    out[RECORDING_SUMS] = np.array([_moment_sums(r, bins.geometry) for r in recs],
                                   dtype=np.float64).reshape(-1, 5)
    fix = events.filter(pl.col("name") == "fixation").sort("recording", "onset")
    cells = bins.cell(fix["centroid_x"].to_numpy(), fix["centroid_y"].to_numpy(),
                      bins.coarse_grid)
    out["fixation_cell"] = np.bincount(cells, minlength=nc).astype(np.float64)
    same = fix["recording"].to_numpy()
    pairs = (cells[:-1] * nc + cells[1:])[same[:-1] == same[1:]] if cells.size > 1 else cells[:0]
    out["transition"] = np.bincount(pairs, minlength=nc * nc).astype(np.float64)
    intervals = fixation_intervals(events)
    out["fixation_duration"] = _hist(intervals["duration_s"].to_numpy(), bins.duration_edges)
    # the gaze shift across each saccade, one sample either side (saccade_shifts: right at 30 Hz)
    dx, dy = saccade_shifts(recs, events, event_seconds)
    out["saccade_amplitude"] = _hist(np.hypot(dx, dy), bins.amplitude_edges)
    out["saccade_direction"] = _hist(np.arctan2(dy, dx), bins.direction_edges)
    per_rec = intervals["recording"].to_numpy()
    counts = dict(zip(*np.unique(per_rec, return_counts=True), strict=True)) if per_rec.size \
        else {}
    # per second of valid samples: the generator renders no gaps, and 1 / rate sets the mean
    # interval (MPIIDPEye: a quarter of the samples missing)
    valid_s = []
    for r in recs:
        n = event_sample_count(r, event_seconds)
        valid_s.append(float(np.sum(np.isfinite(r.x[:n]) & np.isfinite(r.y[:n])))
                       / r.sampling_rate_hz)
    rates = np.array([counts.get(r.recording, 0) / v if v > 0 else np.nan
                      for r, v in zip(recs, valid_s, strict=True)])
    out["event_rate"] = _hist(rates, bins.rate_edges)
    out.update(quality_parts(recs))  # the tracker's counts (_participant_synth_quality)
    return out


def participant_parts(recs: Sequence[Recording], events: pl.DataFrame,
                      keys: Sequence[Key], bins: PublicBins, *,
                      event_seconds: float | None = None) -> dict[Key, dict[str, np.ndarray]]:
    """A participant's raw parts per public key, from some or all of its recordings (``recs``,
    ``keys[i]`` the public key of ``recs[i]``, ``events`` their event table, measured on each
    recording's first ``event_seconds`` (None: all of it; :func:`event_sample_count`); every
    recording whole). Parts of disjoint sets of recordings merge (:func:`merge_parts`) into
    the parts of their union, exactly; only then are they normalised (:func:`normalise_parts`).

    Raises
    ------
    AssertionError
        A histogram part that is not a count (its sums would depend on the merge order).
    """
    out: dict[Key, dict[str, np.ndarray]] = {}
    for key in dict.fromkeys(keys):
        mine = [r for r, k in zip(recs, keys, strict=True) if k == key]
        ids = [r.recording for r in mine]
        out[key] = _key_parts(mine, events.filter(pl.col("recording").is_in(ids)), bins,
                              event_seconds)
        bad = [n for n, v in out[key].items() if n != RECORDING_SUMS and
               not np.array_equal(v, np.floor(v))]
        if bad:
            raise AssertionError(f"raw part {bad[0]!r} is not a count: keep raw parts integer "
                                 "(normalise in normalise_parts) so merges are exact")
    return out


def merge_parts(into: dict[Key, dict[str, np.ndarray]],
                more: Mapping[Key, Mapping[str, np.ndarray]]) -> None:
    """Add one participant's raw parts ``more`` into ``into`` (in place): counts added (exact),
    :data:`RECORDING_SUMS` rows stacked."""
    for key, raw in more.items():
        mine = into.setdefault(key, {})
        for name, v in raw.items():
            if name not in mine:
                mine[name] = np.array(v, dtype=np.float64)
            elif name == RECORDING_SUMS:
                mine[name] = np.concatenate([mine[name], v])
            else:
                mine[name] = mine[name] + v


def normalise_parts(parts: Mapping[Key, Mapping[str, np.ndarray]]
                    ) -> dict[Key, dict[str, np.ndarray]]:
    """One participant's bounded contribution from its raw parts over all its recordings.

    Each key's histograms are normalised to total 1 and scaled by ``1 / (number of distinct
    keys)``, so that the participant's total weight over all keys is at most 1 in every
    marginal (exactly 1 where it has something to count); ``label_weight`` is
    ``1 / (number of keys)`` at each of its keys. Hence the L1 norm -- and so the L2 norm -- of
    its concatenated contribution to each marginal is at most 1.
    """
    share = 1.0 / len(parts)
    out: dict[Key, dict[str, np.ndarray]] = {}
    contrast = participant_contrast(parts)
    for key in sorted(parts):
        mine = parts[key][RECORDING_SUMS]  # one row per recording under this key
        stats = {name: _normalised(v) for name, v in parts[key].items()
                 if name != RECORDING_SUMS and name not in QUALITY_PARTS}
        stats.update(_moments(mine))
        stats.update(quality_statistics(parts[key]))  # one-hot each
        stats = {name: share * v for name, v in stats.items()}
        stats["label_weight"] = np.array([share])  # placed at this key's index by the curator
        stats[CONTRAST] = contrast[key]  # weighted by the share already; L2 norm <= 1/sqrt(2)
        out[key] = stats
    return out


def participant_statistics(recs: Sequence[Recording], events: pl.DataFrame,
                           keys: Sequence[Key], bins: PublicBins, *,
                           event_seconds: float | None = None
                           ) -> dict[Key, dict[str, np.ndarray]]:
    """One participant's bounded contribution: per public key, every marginal's histogram
    (:func:`normalise_parts` of :func:`participant_parts` over all its recordings ``recs``,
    ``keys[i]`` the public key of ``recs[i]``, ``events`` their event table within
    ``event_seconds``)."""
    return normalise_parts(participant_parts(recs, events, keys, bins,
                                             event_seconds=event_seconds))


# --------------------------------------------------------------------------------------------
# data-free priors


def gaussian_cells(grid: tuple[int, int], mean: tuple[float, float] = (0.5, 0.5),
                   sd: tuple[float, float] = (1 / 6, 1 / 6)) -> np.ndarray:
    """Cell masses of a Gaussian with ``mean`` and ``sd`` in screen-box units, truncated to
    the box; the defaults are the centre prior N(centre, (W/6, H/6))."""
    nx, ny = grid
    px = np.diff(ndtr((np.linspace(0.0, 1.0, nx + 1) - mean[0]) / sd[0]))
    py = np.diff(ndtr((np.linspace(0.0, 1.0, ny + 1) - mean[1]) / sd[1]))
    m = np.outer(py, px).ravel() + 1e-12  # no cell exactly 0 (a far-off mean)
    return m / m.sum()


def disc_mass(mean: tuple[float, float], sd: tuple[float, float]) -> float:
    """The Gaussian's mass on the centre disc, on the sampling grid (the centre share's prior).

    >>> round(disc_mass((0.5, 0.5), (1 / 6, 1 / 6)), 3)
    0.05
    """
    return float(gaussian_cells((FINE, FINE), mean, sd)[disc_mask().ravel()].sum())


def spatial_priors(bins: PublicBins, mean: tuple[float, float] = (0.5, 0.5),
                   sd: tuple[float, float] = (1 / 6, 1 / 6)) -> dict[str, np.ndarray]:
    """The spatial marginals of a Gaussian (``density``, ``fixation_cell`` and independent
    ``transition``): of the centre prior by default, or of the released spatial moments."""
    coarse = gaussian_cells(bins.coarse_grid, mean, sd)
    v0 = disc_mass(mean, sd)
    return {"density": gaussian_cells(bins.grid, mean, sd), CENTRE: np.array([v0, 1.0 - v0]),
            "fixation_cell": coarse,
            "transition": np.outer(coarse, coarse).ravel()}


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
    k_dur, med = _PRIOR_DURATION
    scale = med / float(gammaincinv(k_dur, 0.5))  # the gamma's median
    k_amp, mean_amp = _PRIOR_AMPLITUDE
    rate, sd = _PRIOR_RATE
    centre = (1.0 / 6.0) ** 2 / SPREAD_CLIP  # the centre prior's scaled second moment
    return {
        "mean_x": np.array([0.5, 0.5]), "mean_y": np.array([0.5, 0.5]),
        "spread_x": np.array([centre, 1.0 - centre]),
        "spread_y": np.array([centre, 1.0 - centre]),
        **spatial_priors(bins),
        "fixation_duration": _binned(gammainc(k_dur, bins.duration_edges / scale)),
        "saccade_amplitude": _binned(gammainc(k_amp, bins.amplitude_edges / (mean_amp / k_amp))),
        "saccade_direction": _direction_prior(bins.direction_edges),
        "event_rate": _binned(ndtr((np.log(bins.rate_edges) - math.log(rate)) / sd)),
        **QUALITY_PRIOR,  # centres, not histograms: the data-free tracker
        "label_weight": np.full(n_keys, 1.0 / n_keys),
    }


def merge_sums(into: dict[Key, dict[str, np.ndarray]],
               more: Mapping[Key, Mapping[str, np.ndarray]]) -> None:
    """Add ``more``'s per-key sums into ``into`` (in place; the curator's and client's sum)."""
    for key, stats in more.items():
        mine = into.setdefault(key, {})
        for name, v in stats.items():
            mine[name] = mine[name] + v if name in mine else np.array(v, dtype=np.float64)
