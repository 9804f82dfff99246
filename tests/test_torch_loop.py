# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The shared torch training loop is deterministic for a seed and leaves torch's state alone."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

import torch

from gazeprivacy._torch import train_loop


def _fit(seed: int, epochs: int = 3):
    x = np.linspace(-1, 1, 40, dtype=np.float32)[:, None]
    y = 3 * x - 1

    def build(torch_):
        return torch_.nn.Sequential(torch_.nn.Linear(1, 8), torch_.nn.Dropout(0.2),
                                    torch_.nn.Linear(8, 1))

    return train_loop(build, [x, y], lambda net, xb, yb: ((net(xb) - yb) ** 2).mean(),
                      epochs=epochs, batch_size=16, learning_rate=0.05,
                      rng=np.random.default_rng(seed))


def test_same_seed_same_model_and_history() -> None:
    net_a, hist_a = _fit(1)
    net_b, hist_b = _fit(1)
    _, hist_c = _fit(2)
    assert hist_a == hist_b and hist_a != hist_c
    for pa, pb in zip(net_a.parameters(), net_b.parameters(), strict=True):
        assert torch.equal(pa, pb)
    assert len(hist_a) == 3 and not net_a.training


def test_training_reduces_the_loss() -> None:
    _, hist = _fit(0, epochs=40)
    assert hist[-1] < 0.5 * hist[0]


def test_global_torch_rng_and_threads_untouched() -> None:
    threads = torch.get_num_threads()
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    _fit(0)
    assert torch.equal(torch.rand(3), expected)
    assert torch.get_num_threads() == threads


def test_large_data_is_gathered_per_minibatch_with_the_same_result(monkeypatch) -> None:
    """Above ``_GATHER_BYTES`` no shuffled copy of the whole data is made each epoch (the
    C-VAE's one-hot conditions of thousands of participants are GBs); same batches, same
    model."""
    import gazeprivacy._torch as loop

    net_a, hist_a = _fit(1)
    gathered: list[int] = []
    take = torch.Tensor.__getitem__

    def spy(t, idx):
        if isinstance(idx, torch.Tensor):
            gathered.append(int(idx.numel()))
        return take(t, idx)

    monkeypatch.setattr(loop, "_GATHER_BYTES", 0)
    monkeypatch.setattr(torch.Tensor, "__getitem__", spy)
    net_b, hist_b = _fit(1)
    monkeypatch.undo()
    assert gathered and max(gathered) == 16  # minibatches only, never all 40 rows
    assert hist_a == hist_b
    for pa, pb in zip(net_a.parameters(), net_b.parameters(), strict=True):
        assert torch.equal(pa, pb)
