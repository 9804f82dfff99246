# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Cap choice (Algorithm 1): the cap m of least expected MSE. Reads the private data.

Liu, Xia, Duchowski, Bailey, Holmqvist, Jain. Differential privacy for eye-tracking data.
ETRA 2019, https://doi.org/10.1145/3314111.3319823, section 4.2, Algorithm 1 and Theorem 4.1:
with per-cell noise ``sigma_N = m sigma*``,

    E[MSE(m)] = m^2 sigma*^2 + (1/r) sum_j (G^(m)_j - G^(inf)_j)^2,   m = 1 .. g_max,

and the algorithm returns the minimiser. ``sigma*`` is the noise std of the chosen mechanism at
cap 1 (all three noise mechanisms scale linearly in m; Laplace: ``sigma* = sqrt(2) r / (n eps)``).

The bias term is a function of the private maps, so a cap chosen this way is tuned on the private
data: the result carries a ``tuned-on-private-data`` flag (apply it to the release's record with
:meth:`CapChoice.flag_release`) and :func:`choose_cap` emits a
:class:`~gazeprivacy.exceptions.NotFormallyPrivateWarning`. A formally private alternative is a
cap declared in advance (or chosen on public / other data).

Deviations: the paper's loop recomputes the capped aggregate for every m (``O(g_max n r)``,
Theorem 4.2). Only the (observer, cell) entries above ``m`` add bias at cap m, so we loop over
those entries: total work ``O(n r + sum_ij G_ij)``, linear in the input. Same result. See
docs/privacy/heatmap-cap.md.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from gazeprivacy._validation import check_int, check_positive
from gazeprivacy.exceptions import NotFormallyPrivateWarning
from gazeprivacy.features.gaze_maps import GazeMaps
from gazeprivacy.guarantees import Flag, FlagCode, Guarantee, Release

__all__ = ["CapChoice", "choose_cap", "expected_mse"]


@dataclass(frozen=True, eq=False, kw_only=True)
class CapChoice:
    """Result of Algorithm 1.

    Attributes
    ----------
    cap : int
        The m of least expected MSE (smallest such m on ties).
    expected_mse : ndarray
        ``E[MSE(m)]`` for ``m = 1 .. len(expected_mse)``.
    g_max : int
        Largest per-observer count in one cell.
    sigma_star : float
        Noise std per unit of cap used.
    flag : Flag
        ``tuned-on-private-data``.
    """

    cap: int
    expected_mse: np.ndarray
    g_max: int
    sigma_star: float
    flag: Flag

    def flag_release(self, release: Release) -> Release:
        """The same release with the tuning flag on its record."""
        return Release(release.output, self.flag_guarantee(release.guarantee))

    def flag_guarantee(self, g: Guarantee) -> Guarantee:
        """The record with the tuning flag added."""
        return g.with_flags(self.flag)


def expected_mse(maps: GazeMaps, *, sigma_star: float, m_max: int | None = None) -> np.ndarray:
    """``E[MSE(m)]`` of Theorem 4.1 for ``m = 1 .. m_max`` (default ``g_max``), linear time.

    Examples
    --------
    >>> from gazeprivacy.features.gaze_maps import MapGrid
    >>> maps = GazeMaps(counts=np.array([[[5]]]), observers=("a",), stimulus="s",
    ...                 grid=MapGrid(width_px=1, height_px=1))
    >>> expected_mse(maps, sigma_star=1.0).tolist()  # m^2 + (5 - m)^2
    [17.0, 13.0, 13.0, 17.0, 25.0]
    """
    check_positive(sigma_star=sigma_star, allow_zero=True)
    g_max = max(1, maps.g_max)
    m_max = g_max if m_max is None else check_int(m_max=m_max)
    n, r = maps.n_observers, maps.n_cells
    flat = maps.counts.reshape(n, r)
    # Only entries above 1 can ever be cut by a cap m >= 1: keep them as a sparse list.
    obs_idx, cell_idx = np.nonzero(flat > 1)
    vals = flat[obs_idx, cell_idx].astype(np.int64)
    order = np.argsort(-vals, kind="stable")
    vals, cell_idx = vals[order], cell_idx[order]
    out = np.empty(m_max, dtype=np.float64)
    for m in range(1, m_max + 1):
        k = int(np.searchsorted(-vals, -m, side="left"))  # entries with value > m come first
        if k:
            bias = np.bincount(cell_idx[:k], weights=vals[:k] - m) / n
            sq = float(np.dot(bias, bias))
        else:
            sq = 0.0
        out[m - 1] = m * m * sigma_star ** 2 + sq / r
    return out


def choose_cap(maps: GazeMaps, *, sigma_star: float, m_max: int | None = None) -> CapChoice:
    """Algorithm 1: the cap of least expected MSE (reads the private maps; flagged).

    Parameters
    ----------
    maps : GazeMaps
        The private per-observer maps.
    sigma_star : float
        Noise std per unit of cap of the mechanism to be used (e.g. ``noise_std`` of its
        parameters with ``cap=1``).
    m_max : int, optional
        Largest cap tried (default ``g_max``, as in the paper).

    Warns
    -----
    NotFormallyPrivateWarning
        Always: the choice depends on the private data.
    """
    mse = expected_mse(maps, sigma_star=sigma_star, m_max=m_max)
    cap = int(np.argmin(mse)) + 1
    flag = Flag(FlagCode.TUNED_ON_PRIVATE_DATA,
                f"cap m={cap} was chosen by Algorithm 1 (Liu et al. 2019) from the private gaze "
                "maps of this stimulus; the released cap and the noise level depend on the data")
    warnings.warn(f"choose_cap reads the private gaze maps of {maps.stimulus!r} (cap m={cap}); "
                  "a release using this cap is not formally private", NotFormallyPrivateWarning,
                  stacklevel=2)
    return CapChoice(cap=cap, expected_mse=mse, g_max=maps.g_max, sigma_star=float(sigma_star),
                     flag=flag)
