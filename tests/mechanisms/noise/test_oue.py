# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""OUE: report probabilities, unbiased estimator, client and curator paths agree."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.mechanisms.noise.oue import (
    oue_aggregate,
    oue_curator_view,
    oue_encode,
    oue_estimate,
    oue_q,
    oue_variance,
)


def test_client_bits_have_the_oue_probabilities(rng):
    eps, d, n = 1.0, 6, 20000
    rep = oue_encode(np.zeros(n, dtype=int), domain_size=d, epsilon=eps, rng=rng)
    sums = np.bincount(rep.indices, minlength=d)
    q = oue_q(epsilon=eps)
    assert abs(sums[0] / n - 0.5) < 4 * math.sqrt(0.25 / n)
    assert np.all(np.abs(sums[1:] / n - q) < 4 * math.sqrt(q * (1 - q) / n))


@pytest.mark.parametrize("eps", [0.05, 1.0])
def test_estimator_is_unbiased_within_4_standard_errors(eps, rng):
    counts = np.array([500, 0, 120, 30, 0, 350])
    reps = 400
    est = np.array([oue_estimate(oue_curator_view(counts, epsilon=eps, rng=rng),
                                 n=int(counts.sum()), epsilon=eps) for _ in range(reps)])
    var = np.array([oue_variance(n=int(counts.sum()), epsilon=eps, true_count=c)
                    for c in counts])
    assert np.all(np.abs(est.mean(0) - counts) < 4 * np.sqrt(var / reps))
    # the empirical variance matches the analytic one (chi-square 4-sigma band)
    assert np.all(np.abs(est.var(0, ddof=1) / var - 1) < 4 * math.sqrt(2 / (reps - 1)))


def test_client_reports_and_curator_view_agree_in_distribution(rng):
    eps, d = 0.8, 12
    values = np.repeat(np.arange(d), [40, 0, 10, 5, 0, 0, 25, 0, 0, 3, 0, 17])
    counts = np.bincount(values, minlength=d)
    reps = 300
    client = np.array([oue_aggregate(oue_encode(values, domain_size=d, epsilon=eps, rng=rng))
                       for _ in range(reps)])
    curator = np.array([oue_estimate(oue_curator_view(counts, epsilon=eps, rng=rng),
                                     n=values.size, epsilon=eps) for _ in range(reps)])
    for j in (0, 1, 6, 11):
        assert stats.ks_2samp(client[:, j], curator[:, j]).pvalue > 1e-3
    var = np.array([oue_variance(n=values.size, epsilon=eps, true_count=c) for c in counts])
    assert np.all(np.abs(client.mean(0) - counts) < 4 * np.sqrt(var / reps))


def test_value_outside_domain_raises(rng):
    with pytest.raises(InvalidDataError, match=r"OUE values must be in \[0, 4\)"):
        oue_encode(np.array([4]), domain_size=4, epsilon=1.0, rng=rng)


def test_reports_are_sparse_index_lists(rng):
    rep = oue_encode(np.array([2, 0, 1]), domain_size=5, epsilon=3.0, rng=rng)
    assert rep.n == 3
    for i in range(3):
        r = rep.report(i)
        assert np.all(np.diff(r) > 0) and np.all((r >= 0) & (r < 5))
