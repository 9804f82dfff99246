# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""event-synth-PD sound mode's randomised threshold (mutation gate, issue 14).

Bindschaedler et al.'s privacy test passes when the count of records in the seed's
gamma-interval reaches ``k + Lap(1 / epsilon0)``; a halved threshold noise survived every other
test. This reads the test function directly (``_passes_batch``): re-target it if the sound mode
is rebuilt. Fixed seed; tolerance 4 standard errors.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from gazeprivacy.mechanisms.samples import _event_synth_pd_privacy as privacy_test
from gazeprivacy.mechanisms.samples import event_synth_pd as espd


@pytest.mark.parametrize("offset", [1, 2])
def test_threshold_noise_is_laplace_one_over_epsilon0(offset):
    """Every candidate has ``k + offset`` records in its interval (the seed's own included), so
    it passes with probability ``P(Lap(1 / eps0) <= offset) = 1 - e^(-eps0 offset) / 2``
    (counts above k, so a floor of the threshold at k does not matter); halved noise gives
    0.93 instead of 0.82 at offset 1 (40 standard errors)."""
    k, eps0, c = 4, 1.0, 20_000
    params = espd.EventSynthPDParams(k=k, gamma=2.0, mode="sound", epsilon0=eps0)
    count = k + offset
    group = np.repeat(np.arange(c), count)
    lps = np.full(group.size, -0.1)
    passed = privacy_test._passes_batch(lps, np.zeros(group.size, dtype=np.int64), group,
                                np.full(c, -0.1), np.zeros(c, dtype=np.int64), params,
                                np.random.default_rng(41))
    p = 1.0 - 0.5 * math.exp(-eps0 * offset)
    assert abs(passed.mean() - p) < 4.0 * math.sqrt(p * (1 - p) / c), (passed.mean(), p)
