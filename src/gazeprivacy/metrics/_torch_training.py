# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""A small, deterministic PyTorch training loop shared by the learned utility models.

Training runs in a forked torch RNG seeded from the caller's numpy generator, with one thread, so
the same seed gives the same model; PyTorch is imported lazily (extra ``deep``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from gazeprivacy._optional import import_optional

__all__ = ["predict", "train"]


def train(build: Callable[[Any], Any], x: np.ndarray, y: np.ndarray, *, loss: str,
          epochs: int, batch_size: int, learning_rate: float,
          rng: np.random.Generator) -> tuple[Any, list[float]]:
    """Fit ``build(torch)`` on ``(x, y)`` with Adam and ``loss`` "mse", "l1" or "cross-entropy".

    Returns the model in eval mode and the mean training loss per epoch.
    """
    torch = import_optional("torch")
    seed = int(rng.integers(0, 2**31 - 1))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            net = build(torch)
            opt = torch.optim.Adam(net.parameters(), lr=learning_rate)
            xt = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))
            if loss in ("mse", "l1"):
                yt = torch.from_numpy(np.ascontiguousarray(y, dtype=np.float32))
                crit = torch.nn.MSELoss() if loss == "mse" else torch.nn.L1Loss()
            else:
                yt = torch.from_numpy(np.ascontiguousarray(y, dtype=np.int64))
                crit = torch.nn.CrossEntropyLoss()
            gen = torch.Generator().manual_seed(seed)
            history: list[float] = []
            n = xt.shape[0]
            for _ in range(epochs):
                net.train()
                perm = torch.randperm(n, generator=gen)
                total = 0.0
                for start in range(0, n, batch_size):
                    idx = perm[start:start + batch_size]
                    out = crit(net(xt[idx]), yt[idx])
                    opt.zero_grad()
                    out.backward()
                    opt.step()
                    total += out.item() * len(idx)
                history.append(total / max(n, 1))
    finally:
        torch.set_num_threads(threads)
    return net.eval(), history


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
