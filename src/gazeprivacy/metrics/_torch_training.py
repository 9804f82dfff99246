# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Supervised training and prediction for the learned utility models.

The loop itself is :func:`gazeprivacy._torch.train_loop` (deterministic: forked torch RNG seeded
from the caller's numpy generator, one thread); PyTorch is imported lazily (extra ``deep``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from gazeprivacy._optional import import_optional
from gazeprivacy._torch import train_loop

__all__ = ["predict", "train"]


def train(build: Callable[[Any], Any], x: np.ndarray, y: np.ndarray, *, loss: str,
          epochs: int, batch_size: int, learning_rate: float,
          rng: np.random.Generator) -> tuple[Any, list[float]]:
    """Fit ``build(torch)`` on ``(x, y)`` with Adam and ``loss`` "mse", "l1" or "cross-entropy".

    Returns the model in eval mode and the mean training loss per epoch.
    """
    torch = import_optional("torch")
    xa = np.ascontiguousarray(x, dtype=np.float32)
    if loss in ("mse", "l1"):
        ya = np.ascontiguousarray(y, dtype=np.float32)
        crit = torch.nn.MSELoss() if loss == "mse" else torch.nn.L1Loss()
    else:
        ya = np.ascontiguousarray(y, dtype=np.int64)
        crit = torch.nn.CrossEntropyLoss()
    return train_loop(build, (xa, ya), lambda net, xb, yb: crit(net(xb), yb), epochs=epochs,
                      batch_size=batch_size, learning_rate=learning_rate, rng=rng)


def predict(net: Any, x: np.ndarray, batch_size: int = 4096) -> np.ndarray:
    """Model outputs for ``x`` as a numpy array (no gradients)."""
    torch = import_optional("torch")
    outs = []
    with torch.no_grad():
        for start in range(0, x.shape[0], batch_size):
            xb = torch.from_numpy(np.ascontiguousarray(x[start:start + batch_size],
                                                       dtype=np.float32))
            outs.append(net(xb).numpy())
    return np.concatenate(outs) if outs else np.zeros((0,))
