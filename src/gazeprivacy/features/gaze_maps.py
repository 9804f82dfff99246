# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Per-observer gaze maps and caps (SPEC section 7; Liu et al., ETRA 2019, section 3.1).

A gaze map ``G_i`` counts, per pixel (or per cell of ``cell_px x cell_px`` pixels), how often
observer ``i`` looked there on one stimulus: one count per fixation (fixation maps) or per valid
gaze sample (sample maps). The cap ``m`` saturates every count at ``m``; the aggregate is
``G = (1/n) sum_i min(G_i, m)``. Everything here is deterministic; the randomised releases live
in :mod:`gazeprivacy.mechanisms.heatmaps`.

Policies (never silent):

- Points outside the image: ``off_image="raise"`` (default) names how many there are;
  ``"clamp"`` moves them to the nearest border cell, ``"exclude"`` leaves them out of the counts.
  The number affected is kept in ``GazeMaps.info`` and said in a ``DataPolicyWarning`` (the
  data holder's, never the release's). A point with an infinite coordinate is refused under
  every policy (no border cell stands for it).
- Missing samples (NaN gaze) contribute no count; their number is kept in ``GazeMaps.info``.
- ``n`` is the number of observers who have data on the stimulus. The privacy analysis treats
  ``n`` as public (neighbouring maps replace one observer's map, they do not add or remove one).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy._validation import check_in, check_int
from gazeprivacy.data.fixations import Fixations
from gazeprivacy.data.recording import Recording
from gazeprivacy.exceptions import DataPolicyWarning, InvalidDataError, InvalidParameterError

__all__ = [
    "OFF_IMAGE_POLICIES",
    "GazeMaps",
    "MapGrid",
    "gaze_maps_from_fixations",
    "gaze_maps_from_recordings",
    "point_spread_heatmap",
]

OFF_IMAGE_POLICIES = ("raise", "clamp", "exclude")


@dataclass(frozen=True, slots=True, kw_only=True)
class MapGrid:
    """The cell grid of a gaze map: an image of ``width_px x height_px`` in cells of ``cell_px``.

    ``cell_px = 1`` is the paper's per-pixel map (``r = width x height``); larger cells are the
    "down-sampling" the paper recommends when ``n`` is small (section 4.1). Edge cells may cover
    fewer pixels.

    Examples
    --------
    >>> g = MapGrid(width_px=800, height_px=600, cell_px=8)
    >>> g.shape, g.n_cells
    ((75, 100), 7500)
    """

    width_px: int
    height_px: int
    cell_px: int = 1

    def __post_init__(self) -> None:
        check_int(width_px=self.width_px)
        check_int(height_px=self.height_px)
        check_int(cell_px=self.cell_px)

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, columns) of the cell grid."""
        return (math.ceil(self.height_px / self.cell_px), math.ceil(self.width_px / self.cell_px))

    @property
    def n_cells(self) -> int:
        """``r`` in the paper: the number of cells (pixels when ``cell_px = 1``)."""
        rows, cols = self.shape
        return rows * cols

    def cell_index(self, x_px: np.ndarray, y_px: np.ndarray, *, off_image: str,
                   what: str) -> tuple[np.ndarray, int]:
        """Flat cell index of each point and the number of off-image points.

        Pixel ``p`` covers ``[p, p + 1)``; a point exactly on the right/bottom edge
        (``x == width``) belongs to the last pixel. Under ``"exclude"`` excluded points get -1.
        """
        check_in(off_image=off_image, options=OFF_IMAGE_POLICIES)
        x = np.asarray(x_px, dtype=np.float64)
        y = np.asarray(y_px, dtype=np.float64)
        inf = np.isinf(x) | np.isinf(y)
        if inf.any():  # not a point near the image: no border cell stands for it
            raise InvalidDataError(f"{what}: {int(inf.sum())} point(s) have an infinite "
                                   "coordinate; drop or fix those fixations first")
        off = (x < 0) | (x > self.width_px) | (y < 0) | (y > self.height_px)
        n_off = int(off.sum())
        if n_off and off_image == "raise":
            raise InvalidDataError(
                f"{what}: {n_off} point(s) lie outside the {self.width_px} x {self.height_px} px "
                "image; pass off_image='clamp' (nearest border cell) or off_image='exclude'")
        if n_off:  # the data holder is told (a warning, never the release or its record)
            warnings.warn(f"{what}: {n_off} point(s) outside the {self.width_px} x "
                          f"{self.height_px} px image " + ("moved to the nearest border cell"
                                                           if off_image == "clamp" else
                                                           "left out") +
                          f" (off_image='{off_image}')", DataPolicyWarning, stacklevel=3)
        col = np.clip(np.floor(x / self.cell_px), 0, self.shape[1] - 1).astype(np.int64)
        row = np.clip(np.floor(y / self.cell_px), 0, self.shape[0] - 1).astype(np.int64)
        idx = row * self.shape[1] + col
        if off_image == "exclude":
            idx = np.where(off, -1, idx)
        return idx, n_off


@dataclass(frozen=True, eq=False, kw_only=True)
class GazeMaps:
    """Uncapped per-observer count maps of one stimulus.

    Parameters
    ----------
    counts : int array, shape (n_observers, rows, cols)
        ``counts[i]`` is observer ``i``'s map ``G_i`` before capping.
    observers : tuple of str
        Observer (participant) ids, in the order of ``counts``.
    stimulus : str
        Stimulus id.
    grid : MapGrid
        Cell grid.
    source : str
        ``"fixations"`` or ``"samples"``.
    info : dict
        Policy counts (off-image points, missing samples).

    Examples
    --------
    >>> maps = GazeMaps(counts=np.array([[[2, 0]], [[1, 1]]]), observers=("a", "b"),
    ...                 stimulus="s", grid=MapGrid(width_px=2, height_px=1))
    >>> maps.g_max, maps.aggregate(cap=1).tolist()
    (2, [[1.0, 0.5]])
    """

    counts: np.ndarray
    observers: tuple[str, ...]
    stimulus: str
    grid: MapGrid
    source: str = "fixations"
    info: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "observers", tuple(map(str, self.observers)))
        c = np.asarray(self.counts)
        if c.ndim != 3 or c.shape[1:] != self.grid.shape:
            raise InvalidDataError(f"gaze maps of {self.stimulus!r}: counts must have shape "
                                   f"(n_observers, {self.grid.shape[0]}, {self.grid.shape[1]}), "
                                   f"got {c.shape}")
        if c.shape[0] == 0:
            raise InvalidDataError(f"gaze maps of {self.stimulus!r}: no observers")
        if c.shape[0] != len(self.observers):
            raise InvalidDataError(f"gaze maps of {self.stimulus!r}: {c.shape[0]} maps but "
                                   f"{len(self.observers)} observer ids")
        if not np.issubdtype(c.dtype, np.integer) or (c < 0).any():
            raise InvalidDataError(f"gaze maps of {self.stimulus!r}: counts must be "
                                   "non-negative integers")
        c = c.copy()
        c.flags.writeable = False
        object.__setattr__(self, "counts", c)

    @property
    def n_observers(self) -> int:
        """``n`` in the paper."""
        return int(self.counts.shape[0])

    @property
    def n_cells(self) -> int:
        """``r`` in the paper."""
        return self.grid.n_cells

    @property
    def g_max(self) -> int:
        """The largest count of one observer in one cell (Algorithm 1's ``g_max``)."""
        return int(self.counts.max())

    def capped(self, cap: int) -> np.ndarray:
        """``min(G_i, m)`` for every observer, shape (n, rows, cols)."""
        check_int(cap=cap)
        return np.minimum(self.counts, cap)

    def aggregate(self, cap: int | None) -> np.ndarray:
        """``G = (1/n) sum_i min(G_i, m)``; ``cap=None`` gives the uncapped ``G^(inf)``."""
        c = self.counts if cap is None else self.capped(cap)
        return c.sum(axis=0, dtype=np.float64) / self.n_observers

    def subset(self, observers: Sequence[int]) -> GazeMaps:
        """The maps of the observers at the given positions (e.g. to build neighbours)."""
        idx = np.asarray(observers, dtype=np.int64)
        return GazeMaps(counts=self.counts[idx], observers=tuple(self.observers[i] for i in idx),
                        stimulus=self.stimulus, grid=self.grid, source=self.source,
                        info=dict(self.info))


def _maps_from_points(groups: Iterable[tuple[str, np.ndarray]], *, grid: MapGrid,
                      stimulus: str, source: str, info: dict[str, Any]) -> GazeMaps:
    observers: list[str] = []
    maps: list[np.ndarray] = []
    for obs, idx in groups:
        observers.append(obs)
        idx = idx[idx >= 0]
        maps.append(np.bincount(idx, minlength=grid.n_cells).reshape(grid.shape))
    if not maps:
        raise InvalidDataError(f"stimulus {stimulus!r}: no observer has data")
    counts = np.stack(maps).astype(np.int32)
    return GazeMaps(counts=counts, observers=tuple(observers), stimulus=stimulus, grid=grid,
                    source=source, info=info)


def gaze_maps_from_fixations(fixations: Fixations, stimulus: str, *, cell_px: int = 1,
                             off_image: str = "raise") -> GazeMaps:
    """Fixation maps of one stimulus: one count per fixation in its cell.

    Parameters
    ----------
    fixations : Fixations
        Fixation table with the image size.
    stimulus : str
        Stimulus id (``Fixations.stimuli``).
    cell_px : int
        Cell size in pixels (1 = per-pixel maps as in the paper).
    off_image : {"raise", "clamp", "exclude"}
        Policy for fixations outside the image (see the module docstring).

    Returns
    -------
    GazeMaps
        One map per participant with at least one fixation on ``stimulus``, in order of first
        appearance.

    Raises
    ------
    InvalidDataError
        Unknown stimulus, or off-image fixations under ``off_image="raise"``.

    Examples
    --------
    >>> tab = pl.DataFrame({"participant": ["a", "a", "b"], "stimulus": ["s"] * 3,
    ...                     "fixation": [0, 1, 0], "x_px": [0.5, 0.7, 3.2],
    ...                     "y_px": [0.1, 0.2, 1.9], "duration_ms": [None] * 3})
    >>> fx = Fixations(tab, width_px=4, height_px=2)
    >>> gaze_maps_from_fixations(fx, "s").counts[:, :, :].tolist()
    [[[2, 0, 0, 0], [0, 0, 0, 0]], [[0, 0, 0, 0], [0, 0, 0, 1]]]
    """
    grid = MapGrid(width_px=fixations.width_px, height_px=fixations.height_px, cell_px=cell_px)
    tab = fixations.for_stimulus(stimulus)
    idx, n_off = grid.cell_index(tab["x_px"].to_numpy(), tab["y_px"].to_numpy(),
                                 off_image=off_image, what=f"fixations on {stimulus!r}")
    tab = tab.select("participant").with_columns(pl.Series("cell", idx))
    groups = [(str(key[0]), part["cell"].to_numpy())
              for key, part in tab.group_by("participant", maintain_order=True)]
    return _maps_from_points(groups, grid=grid, stimulus=stimulus, source="fixations",
                             info={"n_points": len(idx), "off_image": n_off,
                                   "off_image_policy": off_image})


def gaze_maps_from_recordings(recordings: Iterable[Recording], *, stimulus: str,
                              cell_px: int = 1, off_image: str = "raise") -> GazeMaps:
    """Sample maps: one count per valid gaze sample, from recordings of one stimulus.

    Every recording needs a :class:`~gazeprivacy.data.Geometry` with a pixel grid
    (``width_px``, ``height_px``); degrees map linearly onto it. Recordings of the same
    participant are summed into one observer map (the unit of privacy is the observer).
    Missing samples (NaN) are not counted; how many there were is kept in ``info``.

    Raises
    ------
    InvalidDataError
        A recording without a pixel grid, grids that differ, or off-image samples under
        ``off_image="raise"``.

    Examples
    --------
    >>> from gazeprivacy.data import Geometry
    >>> geo = Geometry.screen_px(width_px=4, height_px=2, px_per_deg=1.0)
    >>> r = Recording.from_arrays(recording="r", participant="p", x=[0.5, 0.6, np.nan],
    ...                           y=[0.5, 0.5, np.nan], sampling_rate_hz=100, geometry=geo)
    >>> m = gaze_maps_from_recordings([r], stimulus="s")
    >>> int(m.counts.sum()), m.info["missing_samples"]
    (2, 1)
    """
    per_obs: dict[str, list[np.ndarray]] = {}
    grid: MapGrid | None = None
    n_missing = n_off = n_points = 0
    for rec in recordings:
        geo = rec.geometry
        if geo is None or geo.width_px is None or geo.height_px is None:
            raise InvalidDataError(f"recording {rec.recording!r} has no pixel grid; give it a "
                                   "Geometry with width_px and height_px (Geometry.screen_px)")
        g = MapGrid(width_px=geo.width_px, height_px=geo.height_px, cell_px=cell_px)
        if grid is None:
            grid = g
        elif g != grid:
            raise InvalidDataError(f"recording {rec.recording!r}: pixel grid {g} differs from "
                                   f"the first recording's {grid}")
        ok = ~rec.missing
        n_missing += int((~ok).sum())
        x_px = (rec.x[ok] - geo.x_min_deg) / geo.width_deg * geo.width_px
        y_px = (rec.y[ok] - geo.y_min_deg) / geo.height_deg * geo.height_px
        idx, off = g.cell_index(x_px, y_px, off_image=off_image,
                                what=f"recording {rec.recording!r}")
        n_off += off
        n_points += int(ok.sum())
        per_obs.setdefault(rec.participant, []).append(idx)
    if grid is None:
        raise InvalidParameterError("recordings must not be empty")
    groups = [(obs, np.concatenate(parts)) for obs, parts in per_obs.items()]
    return _maps_from_points(groups, grid=grid, stimulus=stimulus, source="samples",
                             info={"n_points": n_points, "missing_samples": n_missing,
                                   "off_image": n_off, "off_image_policy": off_image})


def _gaussian_kernel(sigma_cells: float) -> tuple[np.ndarray, int]:
    """scipy.ndimage's sampled Gaussian (``truncate=4``), normalised to sum 1."""
    radius = int(4.0 * sigma_cells + 0.5)
    offs = np.arange(-radius, radius + 1)
    w = np.exp(-0.5 * (offs / sigma_cells) ** 2)
    return w / w.sum(), radius


def point_spread_heatmap(values: np.ndarray, *, sigma_px: float, cell_px: int = 1) -> np.ndarray:
    """Gaussian point-spread heatmap of an aggregate map (post-processing).

    Each cell's value is spread with a Gaussian of ``sigma_px`` pixels (``sigma_px / cell_px``
    cells); the kernel is normalised to sum 1 (so the heatmap keeps the aggregate's mass, apart
    from what spreads past the image border, which is lost: zero padding). Liu et al. (2019)
    write the unnormalised ``exp(-d^2 / (2 sigma^2))``; the factor ``2 pi sigma^2`` changes MSE
    scales, not correlations. Works on batches: ``values`` of shape (..., rows, cols).

    The result equals ``scipy.ndimage.gaussian_filter(values, sigma, mode="constant")`` to
    round-off; it is computed as a separable FFT convolution because the direct filter takes
    about 0.3 s per 800 x 600 map, which the 100-draw experiments repeat thousands of times.

    Examples
    --------
    >>> h = point_spread_heatmap(np.pad(np.ones((1, 1)), 10), sigma_px=2.0)
    >>> round(float(h.sum()), 6), h.shape
    (1.0, (21, 21))
    """
    from scipy import fft as sfft

    from gazeprivacy._validation import check_positive

    check_positive(sigma_px=sigma_px)
    out = np.asarray(values, dtype=np.float64)
    w, radius = _gaussian_kernel(sigma_px / cell_px)
    for ax in (out.ndim - 2, out.ndim - 1):
        n = out.shape[ax]
        size = sfft.next_fast_len(n + 2 * radius, real=True)
        kernel = sfft.rfft(w, size)
        shape = [1] * out.ndim
        shape[ax] = -1
        y = sfft.irfft(sfft.rfft(out, size, axis=ax, workers=-1) * kernel.reshape(shape), size,
                       axis=ax, workers=-1)
        out = np.take(y, np.arange(radius, radius + n), axis=ax)
    return out
