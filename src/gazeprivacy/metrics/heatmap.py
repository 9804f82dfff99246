# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Heatmap similarity: Pearson correlation (CC) and mean squared error (Liu et al. 2019, Fig. 3).

Both compare a (noisy) heatmap with the original, cell by cell, over the whole image. Batches:
the last two axes are the map; leading axes (e.g. 100 noisy draws) are kept.
"""

from __future__ import annotations

import numpy as np

from gazeprivacy.exceptions import InvalidDataError

__all__ = ["correlation_coefficient", "mean_squared_error"]


def _pair(estimate: np.ndarray, reference: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(estimate, dtype=np.float64)
    b = np.asarray(reference, dtype=np.float64)
    if a.ndim < 2 or a.shape[-2:] != b.shape[-2:]:
        raise InvalidDataError(f"heatmaps must share their last two axes, got {a.shape} and "
                               f"{b.shape}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise InvalidDataError("heatmaps contain NaN or inf")
    return a, b


def correlation_coefficient(estimate: np.ndarray, reference: np.ndarray) -> np.ndarray | float:
    """Pearson correlation over cells (CC), per map of a batch.

    Raises
    ------
    InvalidDataError
        Shapes differ, non-finite values, or a constant map (CC undefined).

    Examples
    --------
    >>> a = np.array([[0.0, 1.0], [2.0, 3.0]])
    >>> round(float(correlation_coefficient(a, 2 * a + 1)), 12)
    1.0
    """
    a, b = _pair(estimate, reference)
    a = a - a.mean(axis=(-2, -1), keepdims=True)
    b = b - b.mean(axis=(-2, -1), keepdims=True)
    na = np.sqrt((a * a).sum(axis=(-2, -1)))
    nb = np.sqrt((b * b).sum(axis=(-2, -1)))
    if np.any(na == 0) or np.any(nb == 0):
        raise InvalidDataError("CC is undefined for a constant heatmap")
    cc = (a * b).sum(axis=(-2, -1)) / (na * nb)
    return float(cc) if np.ndim(cc) == 0 else cc


def mean_squared_error(estimate: np.ndarray, reference: np.ndarray) -> np.ndarray | float:
    """Mean over cells of the squared difference, per map of a batch.

    >>> float(mean_squared_error(np.zeros((2, 2)), np.ones((2, 2))))
    1.0
    """
    a, b = _pair(estimate, reference)
    mse = ((a - b) ** 2).mean(axis=(-2, -1))
    return float(mse) if np.ndim(mse) == 0 else mse
