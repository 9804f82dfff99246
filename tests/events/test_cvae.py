# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The saccade C-VAE learns condition-dependent profiles, deterministically for a seed."""

from __future__ import annotations

import numpy as np
import pytest

from gazeprivacy.events.models import gaussian_profile
from gazeprivacy.exceptions import InvalidParameterError

pytest.importorskip("torch")

from gazeprivacy.events.cvae import SaccadeCVAE


def _training(rng, n=1500):
    amp = rng.uniform(2, 20, n)
    dur = 0.021 + 0.0022 * amp
    parts = rng.integers(0, 3, n)
    peak = 500 * (1 - np.exp(-amp / 14)) * (1 + 0.25 * parts)
    prof = np.array([gaussian_profile([p, 0.45, 0.04]) for p in peak]) + rng.normal(0, 8, (n, 30))
    return prof, amp, dur, parts.astype(str)


@pytest.fixture(scope="module")
def model():
    rng = np.random.default_rng(0)
    prof, amp, dur, parts = _training(rng)
    return SaccadeCVAE(epochs=40, batch_size=128).fit(prof, amp, dur, parts,
                                                      rng=np.random.default_rng(1))


@pytest.mark.parametrize(("amplitude", "participant"), [(5.0, "0"), (15.0, "2")])
def test_decoded_profiles_resemble_real_ones(model, amplitude, participant):
    n = 300
    out = model.sample(np.full(n, amplitude), np.full(n, 0.021 + 0.0022 * amplitude),
                       np.full(n, participant), rng=np.random.default_rng(2))
    true_peak = 500 * (1 - np.exp(-amplitude / 14)) * (1 + 0.25 * int(participant))
    # peak height within 15 %, peak position within 3 of 30 steps of the true 0.45
    assert abs(out.max(axis=1).mean() - true_peak) < 0.15 * true_peak
    assert abs(np.argmax(out, axis=1).mean() / 29 - 0.45) < 3 / 29


def test_training_loss_falls(model):
    assert model.loss_[-1] < 0.2 * model.loss_[0]


def test_same_seed_same_model_and_samples():
    rng = np.random.default_rng(0)
    prof, amp, dur, parts = _training(rng, n=200)
    a = SaccadeCVAE(epochs=3).fit(prof, amp, dur, parts, rng=np.random.default_rng(9))
    b = SaccadeCVAE(epochs=3).fit(prof, amp, dur, parts, rng=np.random.default_rng(9))
    cond = (np.full(4, 8.0), np.full(4, 0.04), np.full(4, "1"))
    np.testing.assert_array_equal(a.sample(*cond, rng=np.random.default_rng(3)),
                                  b.sample(*cond, rng=np.random.default_rng(3)))


def test_unknown_participant_is_named(model):
    with pytest.raises(InvalidParameterError, match=r"participant\(s\) \['zz'\] were not"):
        model.sample(np.array([5.0]), np.array([0.03]), np.array(["zz"]),
                     rng=np.random.default_rng(0))


def test_early_stopping_returns_the_best_epoch_and_stops():
    """train_loop with a validation loss: the weights of the best epoch come back, and it
    stops ``patience`` epochs after it (a learning rate that diverges makes later epochs
    worse)."""
    import torch

    from gazeprivacy._torch import train_loop

    g = np.random.default_rng(0)
    x = g.normal(size=(400, 3)).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5]) + g.normal(0, 0.1, 400)).astype(np.float32)[:, None]
    xv, yv = torch.from_numpy(x[:100]), torch.from_numpy(y[:100])
    seen: list[float] = []

    def validate(net):
        seen.append(float(((net(xv) - yv) ** 2).mean()))
        return seen[-1]

    net, hist = train_loop(lambda t: t.nn.Linear(3, 1), (x[100:], y[100:]),
                           lambda net, xb, yb: ((net(xb) - yb) ** 2).mean(), epochs=200,
                           batch_size=32, learning_rate=0.3, rng=np.random.default_rng(1),
                           validate=validate, patience=3)
    best = int(np.argmin(seen))
    assert len(seen) == len(hist) == best + 4 < 200
    with torch.no_grad():
        assert float(((net(xv) - yv) ** 2).mean()) == pytest.approx(seen[best], rel=1e-6)


def test_subsample_with_early_stopping_and_annealing_is_deterministic_and_learns():
    rng = np.random.default_rng(0)
    prof, amp, dur, parts = _training(rng)
    kw = {"epochs": 30, "batch_size": 128, "max_profiles": 800, "patience": 5,
          "validation_size": 300, "anneal": True}
    a = SaccadeCVAE(**kw).fit(prof, amp, dur, parts, rng=np.random.default_rng(4))
    b = SaccadeCVAE(**kw).fit(prof, amp, dur, parts, rng=np.random.default_rng(4))
    assert a.val_loss_ == b.val_loss_ and 1 <= len(a.val_loss_) <= 30
    assert min(a.val_loss_) < 0.3 * a.val_loss_[0]
    out = a.sample(np.full(300, 15.0), np.full(300, 0.054), np.full(300, "2"),
                   rng=np.random.default_rng(2))
    true_peak = 500 * (1 - np.exp(-15.0 / 14)) * 1.5
    assert abs(out.max(axis=1).mean() - true_peak) < 0.15 * true_peak
