# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""A small, deterministic PyTorch minibatch training loop for every layer's learned models.

Training runs in a forked torch RNG seeded from the caller's numpy generator, with one thread, so
the same seed gives the same model and the caller's global torch state is left alone; PyTorch is
imported lazily (extra ``deep``). The loop is hand-written because it is a dozen lines and the
candidates (Lightning, skorch) would add a dependency and their own RNG handling.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gazeprivacy._optional import import_optional

__all__ = ["train_loop"]

#: Above this many bytes of training arrays, minibatches are gathered one by one instead of
#: copying the whole shuffled data each epoch.
_GATHER_BYTES = 64 << 20


def train_loop(build: Callable[[Any], Any], arrays: Sequence[np.ndarray],
               batch_loss: Callable[..., Any], *, epochs: int, batch_size: int,
               learning_rate: float, rng: np.random.Generator,
               validate: Callable[[Any], float] | None = None,
               patience: int | None = None,
               anneal: bool = False) -> tuple[Any, list[float]]:
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
    validate : callable, optional
        ``validate(net)`` returns a validation loss after each epoch (called in eval mode
        without gradients); the weights of the epoch with the lowest one are returned.
    patience : int, optional
        With ``validate``: stop after this many epochs without a lower validation loss
        (early stopping); ``epochs`` is then the most passes.
    anneal : bool
        Anneal the learning rate to zero along a cosine over the ``epochs`` passes (one step
        per minibatch) instead of keeping it constant.

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
            sched = (torch.optim.lr_scheduler.CosineAnnealingLR(
                opt, T_max=epochs * math.ceil(n / batch_size)) if anneal else None)
            best, best_state, stale = math.inf, None, 0
            # one gather per epoch, then slices; per minibatch when a shuffled copy of the
            # data would be large (the same batches either way)
            per_batch = sum(t.element_size() * t.nelement() for t in tensors) > _GATHER_BYTES
            for _ in range(epochs):
                net.train()
                perm = torch.randperm(n, generator=gen)
                shuffled = tensors if per_batch else [t[perm] for t in tensors]
                total = 0.0
                for start in range(0, n, batch_size):
                    rows = perm[start:start + batch_size] if per_batch else slice(
                        start, start + batch_size)
                    batch = [t[rows] for t in shuffled]
                    loss = batch_loss(net, *batch)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    if sched is not None:
                        sched.step()
                    total += loss.item() * len(batch[0])
                history.append(total / max(n, 1))
                if validate is None:
                    continue
                net.eval()
                with torch.no_grad():
                    val = float(validate(net))
                if val < best:
                    best, stale = val, 0
                    best_state = {k: v.detach().clone() for k, v in net.state_dict().items()}
                else:
                    stale += 1
                    if patience is not None and stale >= patience:
                        break
            if best_state is not None:
                net.load_state_dict(best_state)
    finally:
        torch.set_num_threads(threads)
    return net.eval(), history
