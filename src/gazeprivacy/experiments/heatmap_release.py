# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""One private heatmap release: fixations -> capped maps -> noisy aggregate -> heatmap.

The library function behind ``gazeprivacy heatmap``. The heatmap is post-processing of the
mechanism's output, so it carries the mechanism's guarantee record unchanged.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from gazeprivacy._validation import check_in, check_int
from gazeprivacy.data.fixations import Fixations
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.features.gaze_maps import gaze_maps_from_fixations, point_spread_heatmap
from gazeprivacy.guarantees import Release
from gazeprivacy.mechanisms import MECHANISMS, Level, Mode, names_at
from gazeprivacy.mechanisms.heatmaps import AggregateMap
from gazeprivacy.mechanisms.heatmaps.cap import choose_cap

__all__ = ["HEATMAP_MECHANISMS", "HeatmapOutput", "release_heatmap"]

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


def release_heatmap(fixations: Fixations, stimulus: str, *, mechanism: str, epsilon: float,
                    delta: float | None, cap: int | str, sigma_px: float,
                    rng: np.random.Generator, cell_px: int = 1, mode: Mode | str = Mode.SOUND,
                    off_image: str = "raise") -> Release[HeatmapOutput]:
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
        module = importlib.import_module(MECHANISMS["heatmap-" + mechanism].run.__module__)
        sigma_star = module.noise_std(unit, n_observers=maps.n_observers, n_cells=maps.n_cells)
        choice = choose_cap(maps, sigma_star=sigma_star)
        cap_m = choice.cap
    elif isinstance(cap, int) and not isinstance(cap, bool):
        cap_m = check_int(cap=cap)
    else:
        raise InvalidParameterError(f"cap must be a positive integer or 'auto', got {cap!r}")
    params = _params(mechanism, epsilon=epsilon, delta=delta, cap=cap_m, mode=mode)
    rel = MECHANISMS["heatmap-" + mechanism].protect(maps, params, rng=rng)
    if choice is not None:
        rel = choice.flag_release(rel)
    heat = point_spread_heatmap(rel.output.values, sigma_px=sigma_px, cell_px=cell_px)
    out = HeatmapOutput(aggregate=rel.output, heatmap=heat, sigma_px=float(sigma_px))
    return Release(out, rel.guarantee)
