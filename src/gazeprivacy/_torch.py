# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""A small, deterministic PyTorch minibatch training loop for every layer's learned models.

Training runs in a forked torch RNG seeded from the caller's numpy generator, with one thread, so
the same seed gives the same model and the caller's global torch state is left alone; PyTorch is
imported lazily (extra ``deep``). The loop is hand-written because it is a dozen lines and the
candidates (Lightning, skorch) would add a dependency and their own RNG handling.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gazeprivacy._optional import import_optional

__all__ = ["train_loop"]


def train_loop(build: Callable[[Any], Any], arrays: Sequence[np.ndarray],
               batch_loss: Callable[..., Any], *, epochs: int, batch_size: int,
               learning_rate: float, rng: np.random.Generator) -> tuple[Any, list[float]]:
    """Fit ``build(torch)`` with Adam on minibatches of ``arrays`` (one row per example).

    Parameters
    ----------
    build : callable
        ``build(torch)`` returns the ``torch.nn.Module``; called inside the seeded RNG.
    arrays : sequence of numpy arrays
        Training arrays with equal first dimension, already in the dtype torch should see.
    batch_loss : callable
        ``batch_loss(net, *batch)`` returns the minibatch's mean loss (a scalar tensor).
    epochs, batch_size, learning_rate
        Passes over the data (reshuffled each pass), minibatch size, Adam step size.
    rng : numpy.random.Generator
        Source of the one torch seed (one draw).

    Returns
    -------
    net, history
        The model in eval mode and the mean training loss per epoch.
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
            tensors = [torch.from_numpy(np.ascontiguousarray(a)) for a in arrays]
            gen = torch.Generator().manual_seed(seed)
            history: list[float] = []
            n = tensors[0].shape[0]
            for _ in range(epochs):
                net.train()
                perm = torch.randperm(n, generator=gen)
                total = 0.0
                for start in range(0, n, batch_size):
                    idx = perm[start:start + batch_size]
                    loss = batch_loss(net, *(t[idx] for t in tensors))
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    total += loss.item() * len(idx)
                history.append(total / max(n, 1))
    finally:
        torch.set_num_threads(threads)
    return net.eval(), history
