# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's centre share: how much of the gaze sits on the public screen centre.

Trial-based viewing (an image after a central fixation cross, a display that starts at its
centre) puts a sharp peak at the centre that the Gaussian of the released moments misses: on
DOVES 19 % of the samples lie within 0.05 of the screen box of its centre, against 5 % for a
Gaussian of the same sd (the held-out density error of the moments' Gaussian with this share
corrected, noise-free, 0.249 to 0.212). One more pooled measurement carries it (proof:
``docs/privacy/participant-synth.md#centre-share``):

* **statistic** (:func:`centre_counts`): per participant, the two-bin histogram ``(v, 1 - v)``
  with ``v`` the share of its valid samples whose box coordinates (clipped to [0, 1]) lie
  within :data:`RADIUS` of the centre (0.5, 0.5); non-negative, L1 norm 1 (split over its keys
  and summed back, as every pooled marginal): sensitivity ``sqrt(2)``, the noise of every
  marginal;
* **share** (:func:`centre_share`): a public rule of ``n`` and ``rho``: :data:`SHARE` of rho when
  the measurement's public precision weight ``tau^2 / (tau^2 + s^2)`` at that share is at least
  :data:`MIN_WEIGHT` (``s^2 = 1 / (2 rho SHARE n^2)``, the variance of ``v``'s estimate), else 0;
  the other shares are scaled by ``1 - share`` (:func:`resolve_centre`);
* **estimate**: ``v`` shrunk toward the released Gaussian's mass on the disc with the public
  :data:`TAU` (the precision weight of the spatial means, ``shrink_moment``);
* **use** (:func:`with_centre`): the released density on the sampling grid is scaled inside
  and outside the disc so that its mass on the disc is the released ``v`` (unchanged when the
  estimate is its prior, i.e. nothing was measured); a key moved by its label contrast gets the
  population's odds ratio on its own Gaussian's disc mass (:func:`key_share`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

__all__ = ["CENTRE", "FINE", "MIN_WEIGHT", "RADIUS", "SHARE", "TAU", "centre_counts",
           "centre_share", "disc_mask", "key_share", "resolve_centre", "with_centre"]

#: The name of the measurement (a marginal of the split, the sums and the model).
CENTRE = "centre_share"
#: The disc's radius in screen-box units (public): about the extent of a central fixation.
RADIUS = 0.05
#: The sampling grid of the released density (the renderer's, cells per side).
FINE = 60
#: The share of rho the rule spends, the smallest precision weight for spending it, and the
#: public prior sd of ``v`` around the Gaussian's disc mass (about 0.05 for the centre prior).
SHARE = 0.2
MIN_WEIGHT = 0.2
TAU = 0.1


def centre_counts(fx: np.ndarray, fy: np.ndarray) -> np.ndarray:
    """``(inside, outside)`` counts of valid box coordinates (clipped to [0, 1]).

    >>> centre_counts(np.array([0.5, 0.52, 0.9]), np.array([0.5, 0.5, 0.1])).tolist()
    [2.0, 1.0]
    """
    inside = int(np.count_nonzero(np.hypot(fx - 0.5, fy - 0.5) < RADIUS))
    return np.array([inside, fx.size - inside], dtype=np.float64)


def disc_mask(fine: int = FINE) -> np.ndarray:
    """The sampling grid's cells (rows = y) whose centres lie within :data:`RADIUS`."""
    c = (np.arange(fine) + 0.5) / fine - 0.5
    xx, yy = np.meshgrid(c, c)
    return np.hypot(xx, yy) < RADIUS


def _weight(n: int, rho: float, share: float) -> float:
    s2 = 1.0 / (2.0 * rho * share * max(n, 1) ** 2)
    return TAU ** 2 / (TAU ** 2 + s2)


def centre_share(n: int, rho: float) -> float:
    """The share of rho the centre share gets (public rule of ``n`` and ``rho``).

    >>> centre_share(20, 0.185), centre_share(12, 0.185), centre_share(6, 1.54)
    (0.2, 0.0, 0.0)
    """
    return SHARE if _weight(n, rho, SHARE) >= MIN_WEIGHT else 0.0


def resolve_centre(split: Any, n: int, rho: float) -> Any:
    """``split`` with its ``centre_share`` set by :func:`centre_share` (when None) and every
    other share scaled by ``1 - share`` (``label_contrast`` left to its own rule when None)."""
    if split.centre_share is not None:
        return split
    s = centre_share(n, rho)
    scaled = {m: v * (1.0 - s) for m, v in split.shares().items()
              if m not in (CENTRE, "label_contrast")}
    if split.label_contrast is not None:
        scaled["label_contrast"] = split.label_contrast * (1.0 - s)
    return replace(split, centre_share=s, **scaled)


def key_share(v: float, v_pop: float, v_key: float) -> float:
    """The centre share of a key whose Gaussian puts ``v_key`` on the disc, when the released
    share is ``v`` and the population's Gaussian (the estimate's prior) puts ``v_pop`` there:
    the population's odds ratio ``odds(v) / odds(v_pop)`` applied to the key's Gaussian (a key
    moved by its label contrast keeps the measured central excess, not the share); exactly
    ``v_key`` when ``v == v_pop`` (nothing measured: :func:`with_centre` is then not applied).

    >>> key_share(0.05, 0.05, 0.03), round(key_share(0.2, 0.05, 0.05), 3)
    (0.03, 0.2)
    """
    if v == v_pop or not (0.0 < v_pop < 1.0 and 0.0 < v_key < 1.0):
        return v_key
    if not 0.0 < v < 1.0:
        return v
    odds = v / (1.0 - v) * (1.0 - v_pop) / v_pop * v_key / (1.0 - v_key)
    return odds / (1.0 + odds)


def with_centre(d: np.ndarray, v: float) -> np.ndarray:
    """The density ``d`` (fine x fine, total 1) scaled inside and outside the disc so that its
    mass on the disc is ``v``: the disc mass ``d`` already has (its Gaussian's and whatever the
    released ``density`` ratio puts there) is replaced, not multiplied, so a central peak the
    grid carries is not counted twice.

    >>> d = np.full((60, 60), 1 / 3600)
    >>> round(float(with_centre(d, 0.2)[disc_mask()].sum()), 6)
    0.2
    """
    inside = disc_mask(d.shape[0])
    m = float(d[inside].sum())
    if not 0.0 < m < 1.0:
        return d
    out = d * np.where(inside, v / m, (1.0 - v) / (1.0 - m))
    return out / out.sum()
