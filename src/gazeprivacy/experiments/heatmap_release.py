# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""One private heatmap release: fixations -> capped maps -> noisy aggregate -> heatmap.

The library function behind ``gazeprivacy heatmap``. The heatmap is post-processing of the
mechanism's output, so it carries the mechanism's guarantee record unchanged.

Before the release, :func:`expected_cc` predicts the heatmap's correlation with the true one
from public parameters only (n, cells, cap, epsilon, delta, the point spread) and a public
prior map (:func:`centre_bias_prior`), and :func:`release_heatmap` warns
(:class:`~gazeprivacy.exceptions.LowExpectedUtilityWarning`) when it is below
:data:`LOW_EXPECTED_CC`: a DP heatmap of few observers at fine cells is mostly noise that still
looks plausible. :func:`planned_guarantee` is the record of the privacy map with one budget per
observer id, what a privacy-budget ledger charges (:class:`gazeprivacy.accounting.ledger.Spend`).
"""

from __future__ import annotations

import importlib
import warnings
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from gazeprivacy._validation import check_in, check_int
from gazeprivacy.data.fixations import Fixations
from gazeprivacy.exceptions import InvalidParameterError, LowExpectedUtilityWarning
from gazeprivacy.features.gaze_maps import (
    GazeMaps,
    MapGrid,
    gaze_maps_from_fixations,
    point_spread_heatmap,
)
from gazeprivacy.guarantees import Flag, FlagCode, Guarantee, Release
from gazeprivacy.mechanisms import MECHANISMS, Level, Mode, names_at
from gazeprivacy.mechanisms.heatmaps import AggregateMap
from gazeprivacy.mechanisms.heatmaps.cap import choose_cap

__all__ = ["HEATMAP_MECHANISMS", "LOW_EXPECTED_CC", "HeatmapOutput", "centre_bias_prior",
           "expected_cc", "planned_guarantee", "release_heatmap"]

#: Below this predicted CC with the true heatmap, :func:`release_heatmap` warns.
LOW_EXPECTED_CC = 0.3
#: Fixations per observer the prior assumes when the caller gives none: free viewing of an
#: image for about 3 s at 3-4 fixations per second (OSIE, FIGRIM); an assumption, not data.
PRIOR_FIXATIONS_PER_OBSERVER = 10.0

#: The noisy (differentially private) heatmap mechanisms of the registry, without the
#: ``heatmap-`` prefix: every heatmap-level entry whose parameters have an ``epsilon``.
HEATMAP_MECHANISMS = tuple(
    n.removeprefix("heatmap-") for n in names_at(Level.HEATMAP)
    if "epsilon" in {f.name for f in fields(MECHANISMS[n].params_type)})


@dataclass(frozen=True, eq=False, kw_only=True)
class HeatmapOutput:
    """The released noisy aggregate and its rendered heatmap."""

    aggregate: AggregateMap
    heatmap: np.ndarray
    sigma_px: float


def _params(mechanism: str, *, epsilon: float, delta: float | None, cap: int,
            mode: Mode | str) -> Any:
    spec = MECHANISMS["heatmap-" + mechanism]
    names = {f.name for f in fields(spec.params_type)}
    if "delta" in names and delta is None:
        raise InvalidParameterError(f"mechanism {mechanism!r} needs delta (e.g. n^-1.5)")
    given = {"epsilon": epsilon, "delta": delta, "cap": cap, "mode": mode}
    return spec.params_type(**{k: v for k, v in given.items() if k in names})


def centre_bias_prior(grid: MapGrid, *, fixations_per_observer: float,
                      sd_frac: float = 0.25) -> np.ndarray:
    """A public prior of one observer's expected fixation counts per cell: an isotropic
    Gaussian centre bias (sd ``sd_frac`` of each image side) holding ``fixations_per_observer``.

    >>> p = centre_bias_prior(MapGrid(width_px=40, height_px=30, cell_px=10),
    ...                       fixations_per_observer=10.0)
    >>> p.shape, round(float(p.sum()), 6), bool(p[1, 1] > p[0, 0])
    ((3, 4), 10.0, True)
    """
    rows, cols = grid.shape
    y = (np.arange(rows) + 0.5) / rows - 0.5
    x = (np.arange(cols) + 0.5) / cols - 0.5
    dens = np.exp(-(y[:, None] ** 2 + x[None, :] ** 2) / (2 * sd_frac ** 2))
    return fixations_per_observer * dens / dens.sum()


def expected_cc(prior: np.ndarray, *, noise_std: float, sigma_px: float, cell_px: int = 1,
                n_draws: int = 4) -> float:
    """Predicted correlation (CC) of the released heatmap with the true one, from public values.

    The true aggregate is taken to be ``prior`` (expected counts per observer and cell; capping
    ignored) and the release adds independent noise of ``noise_std`` per cell, both smoothed by
    the same point spread, so CC = sd(S prior) / sqrt(var(S prior) + var(S noise)). var(S noise)
    is estimated from ``n_draws`` smoothed white-noise maps of a fixed public seed (no data).
    The observers' own scatter around the prior adds signal, so the prediction is conservative.
    """
    signal = point_spread_heatmap(prior, sigma_px=sigma_px, cell_px=cell_px)
    white = np.random.default_rng(0).standard_normal((n_draws, *prior.shape))
    var_noise = noise_std ** 2 * float(
        point_spread_heatmap(white, sigma_px=sigma_px, cell_px=cell_px).var(axis=(-2, -1)).mean())
    var_signal = float(signal.var())
    return float(np.sqrt(var_signal / (var_signal + var_noise))) if var_signal > 0 else 0.0


def _noise_std(mechanism: str, params: Any, maps: GazeMaps) -> float:
    module = importlib.import_module(MECHANISMS["heatmap-" + mechanism].run.__module__)
    return float(module.noise_std(params, n_observers=maps.n_observers, n_cells=maps.n_cells))


def planned_guarantee(maps: GazeMaps, *, mechanism: str, epsilon: float, delta: float | None,
                      cap: int | str, mode: Mode | str = Mode.SOUND) -> Guarantee:
    """The record of the privacy map (no data beyond the public n and cells), with one budget
    per observer id: what a ledger charges each observer for this heatmap. ``cap="auto"``
    (Algorithm 1 reads the private maps) is planned with its guarantee-breaking flag."""
    from gazeprivacy.mechanisms.contract import HeatmapShape

    params = _params(mechanism, epsilon=epsilon, delta=delta, cap=1 if cap == "auto" else cap,
                     mode=mode)
    shape = HeatmapShape(n_observers=maps.n_observers, n_cells=maps.n_cells, grid=maps.grid)
    g = MECHANISMS["heatmap-" + mechanism].guarantee(params, shape)
    if cap == "auto":
        g = g.with_flags(Flag(FlagCode.TUNED_ON_PRIVATE_DATA, "cap 'auto': Algorithm 1 will "
                              "choose the cap from the private gaze maps"))
    return g.compose({o: 1 for o in maps.observers})


def release_heatmap(fixations: Fixations, stimulus: str, *, mechanism: str, epsilon: float,
                    delta: float | None, cap: int | str, sigma_px: float,
                    rng: np.random.Generator, cell_px: int = 1, mode: Mode | str = Mode.SOUND,
                    off_image: str = "raise",
                    fixations_per_observer: float = PRIOR_FIXATIONS_PER_OBSERVER
                    ) -> Release[HeatmapOutput]:
    """Release a private heatmap of one stimulus.

    Parameters
    ----------
    fixations : Fixations
        Private fixation table.
    stimulus : str
        Stimulus id.
    mechanism : {"gaussian", "laplace", "analytic-gaussian"}
        Noise mechanism (Theorem 3.4, Theorem 3.5, Balle & Wang 2018).
    epsilon, delta : float
        Privacy parameters (delta unused by ``laplace``).
    cap : int or "auto"
        Per-observer cap m; ``"auto"`` runs Algorithm 1 on the private maps (flagged).
    sigma_px : float
        Point-spread sigma of the heatmap in pixels.
    rng : numpy.random.Generator
        Noise source.
    cell_px : int
        Cell size of the gaze maps (1 = pixels).
    mode : {"sound", "paper"}
        For ``gaussian`` only (see :mod:`gazeprivacy.mechanisms.heatmaps.gaussian`).
    off_image : {"raise", "clamp", "exclude"}
        Policy for fixations outside the image.
    fixations_per_observer : float
        The public prior's fixations per observer, for the utility forecast only
        (:func:`expected_cc`; a warning below :data:`LOW_EXPECTED_CC`).

    Raises
    ------
    InvalidParameterError
        Unknown mechanism, missing delta, bad cap; ``Theorem34RangeError`` when Theorem 3.4 does
        not hold for this shape in sound mode.
    """
    check_in(mechanism=mechanism, options=HEATMAP_MECHANISMS)
    maps = gaze_maps_from_fixations(fixations, stimulus, cell_px=cell_px, off_image=off_image)
    choice = None
    if cap == "auto":
        unit = _params(mechanism, epsilon=epsilon, delta=delta, cap=1, mode=mode)
        choice = choose_cap(maps, sigma_star=_noise_std(mechanism, unit, maps))
        cap_m = choice.cap
    elif isinstance(cap, int) and not isinstance(cap, bool):
        cap_m = check_int(cap=cap)
    else:
        raise InvalidParameterError(f"cap must be a positive integer or 'auto', got {cap!r}")
    params = _params(mechanism, epsilon=epsilon, delta=delta, cap=cap_m, mode=mode)
    _warn_low_cc(maps, _noise_std(mechanism, params, maps), sigma_px=sigma_px, cell_px=cell_px,
                 fixations_per_observer=fixations_per_observer)
    rel = MECHANISMS["heatmap-" + mechanism].protect(maps, params, rng=rng)
    if choice is not None:
        rel = choice.flag_release(rel)
    heat = point_spread_heatmap(rel.output.values, sigma_px=sigma_px, cell_px=cell_px)
    out = HeatmapOutput(aggregate=rel.output, heatmap=heat, sigma_px=float(sigma_px))
    return Release(out, rel.guarantee)


def _warn_low_cc(maps: GazeMaps, noise_std: float, *, sigma_px: float, cell_px: int,
                 fixations_per_observer: float) -> None:
    prior = centre_bias_prior(maps.grid, fixations_per_observer=fixations_per_observer)
    cc = expected_cc(prior, noise_std=noise_std, sigma_px=sigma_px, cell_px=cell_px)
    if cc < LOW_EXPECTED_CC:
        warnings.warn(
            f"predicted correlation of this heatmap with the true one is about {cc:.2f} "
            f"({maps.n_observers} observers, {maps.n_cells} cells, noise sd {noise_std:.3g} "
            f"per cell; centre-bias prior of {fixations_per_observer:g} fixations per observer): "
            "it will mostly show noise. Larger cells (--cell-px), a larger epsilon or more "
            "observers help.", LowExpectedUtilityWarning, stacklevel=3)
