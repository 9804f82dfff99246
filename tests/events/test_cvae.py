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
