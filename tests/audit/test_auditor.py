# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The audit engine on toy mechanisms written here: sound ones pass, broken ones fail."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from gazeprivacy.audit.auditor import (
    AutoSearch,
    ClassifierSearch,
    HistogramSearch,
    ThresholdSearch,
    audit,
    clopper_pearson_lower,
    clopper_pearson_upper,
    epsilon_lower_bound,
)
from gazeprivacy.exceptions import InvalidParameterError

EPS = 1.0


def laplace(mu: float, scale: float):
    return lambda n, rng: rng.laplace(mu, scale, size=n)


def gaussian(mu, sigma: float):
    mu = np.atleast_1d(np.asarray(mu, dtype=float))
    return lambda n, rng: mu + sigma * rng.standard_normal((n, mu.size))


def randomised_response(bit: int, epsilon: float, *, biased: bool = False):
    """Binary randomised response: report the true bit with p = e^eps / (1 + e^eps).

    ``biased`` adds the flaw of keeping the true bit with p + (1 - p) q (q = 1 - p) before the
    flip, i.e. the client applies the "other bit" rule on top of the "true bit" rule.
    """
    p = math.exp(epsilon) / (1 + math.exp(epsilon))
    keep = p + (1 - p) * (1 - p) if biased else p

    def sample(n, rng):
        kept = rng.random(n) < keep
        return np.where(kept, bit, 1 - bit)

    return sample


def classical_gaussian_sigma(sensitivity, epsilon, delta):
    return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / epsilon


@pytest.mark.parametrize(("k", "n"), [(0, 50), (1, 50), (25, 50), (49, 50), (50, 50)])
def test_clopper_pearson_bounds_are_exact_binomial_tail_inversions(k, n):
    alpha = 0.005
    lo, hi = float(clopper_pearson_lower(k, n, alpha)), float(clopper_pearson_upper(k, n, alpha))
    if k == 0:
        assert lo == 0.0
    else:  # P(Binom(n, lo) >= k) = alpha
        assert stats.binom.sf(k - 1, n, lo) == pytest.approx(alpha, rel=1e-6)
    if k == n:
        assert hi == 1.0
    else:  # P(Binom(n, hi) <= k) = alpha
        assert stats.binom.cdf(k, n, hi) == pytest.approx(alpha, rel=1e-6)


def test_epsilon_lower_bound_subtracts_delta_and_is_zero_without_evidence():
    base = float(epsilon_lower_bound(500, 1000, 100, 1000))
    with_delta = float(epsilon_lower_bound(500, 1000, 100, 1000, delta=0.1))
    assert 0 < with_delta < base < math.log(5)
    assert float(epsilon_lower_bound(1, 1000, 0, 1000)) == 0.0  # p_a_lower ~ 0
    assert float(epsilon_lower_bound(500, 1000, 100, 1000, delta=0.6)) == 0.0


def test_sound_laplace_passes_and_the_bound_is_close_to_epsilon():
    r = audit(laplace(0.0, 1 / EPS), laplace(1.0, 1 / EPS), n_trials=40_000,
              claimed_epsilon=EPS, rng=np.random.default_rng(1))
    assert r.passed
    assert r.epsilon_lower_bound > 0.8 * EPS  # the search finds a tight event


def test_half_scale_laplace_fails_at_high_confidence():
    r = audit(laplace(0.0, 0.5 / EPS), laplace(1.0, 0.5 / EPS), n_trials=20_000,
              claimed_epsilon=EPS, rng=np.random.default_rng(2))
    assert not r.passed
    assert r.p_value < 1e-6
    assert r.epsilon_lower_bound > 1.5 * EPS  # the true value is 2 epsilon


def test_sound_randomised_response_passes_and_biased_one_fails():
    eps = 0.5
    good = audit(randomised_response(0, eps), randomised_response(1, eps), n_trials=40_000,
                 claimed_epsilon=eps, rng=np.random.default_rng(3))
    assert good.passed and good.epsilon_lower_bound > 0.35
    bad = audit(randomised_response(0, eps, biased=True), randomised_response(1, eps, biased=True),
                n_trials=40_000, claimed_epsilon=eps, rng=np.random.default_rng(3))
    p = math.exp(eps) / (1 + math.exp(eps))
    keep = p + (1 - p) ** 2
    true_eps = math.log(keep / (1 - keep))
    assert not bad.passed and bad.p_value < 0.01
    assert bad.epsilon_lower_bound <= true_eps + 1e-9  # a lower bound, not an over-estimate


def test_false_alarm_rate_of_a_sound_mechanism_is_at_most_one_minus_confidence():
    # 40 audits of a tight, sound randomised response at its true epsilon: each fails with
    # probability <= 1 %, so >= 5 failures would have probability < 1e-4.
    eps = 1.0
    rng = np.random.default_rng(4)
    fails = sum(not audit(randomised_response(0, eps), randomised_response(1, eps),
                          n_trials=4000, claimed_epsilon=eps, rng=child).passed
                for child in rng.spawn(40))
    assert fails <= 4


def test_gaussian_with_delta_passes_at_the_classical_sigma_and_fails_at_a_third_of_it():
    eps, delta = 1.0, 1e-3
    sigma = classical_gaussian_sigma(1.0, eps, delta)
    good = audit(gaussian(0.0, sigma), gaussian(1.0, sigma), n_trials=40_000,
                 claimed_epsilon=eps, claimed_delta=delta, rng=np.random.default_rng(5))
    assert good.passed
    bad = audit(gaussian(0.0, sigma / 4), gaussian(1.0, sigma / 4), n_trials=40_000,
                claimed_epsilon=eps, claimed_delta=delta, rng=np.random.default_rng(5))
    assert not bad.passed and bad.p_value < 0.01


def test_classifier_search_finds_a_leak_spread_over_several_coordinates():
    # Each coordinate alone leaks little; the sum leaks sqrt(8) times more (L2 geometry).
    d, sigma = 8, 0.6
    a, b = np.zeros(d), np.ones(d)
    r = audit(gaussian(a, sigma), gaussian(b, sigma), n_trials=20_000, claimed_epsilon=2.0,
              event_search=ClassifierSearch(), rng=np.random.default_rng(6))
    assert not r.passed and r.event.startswith("logistic score")
    single = audit(gaussian(a[:1], sigma), gaussian(b[:1], sigma), n_trials=20_000,
                   claimed_epsilon=2.0, rng=np.random.default_rng(6))
    assert single.epsilon_lower_bound < r.epsilon_lower_bound


def test_auto_search_finds_a_two_sided_event_for_a_variance_difference():
    # Same mean, different spread: no one-sided threshold separates them well.
    r = audit(gaussian(0.0, 1.0), gaussian(0.0, 3.0), n_trials=20_000, claimed_epsilon=0.5,
              rng=np.random.default_rng(7), event_search=AutoSearch())
    assert not r.passed
    th = audit(gaussian(0.0, 1.0), gaussian(0.0, 3.0), n_trials=20_000, claimed_epsilon=0.5,
               rng=np.random.default_rng(7), event_search=ThresholdSearch())
    assert r.epsilon_lower_bound > th.epsilon_lower_bound


def test_histogram_search_on_discrete_rows_picks_the_rarer_pattern():
    def bits(p1):
        return lambda n, rng: (rng.random((n, 2)) < [p1, 0.5]).astype(float)
    r = audit(bits(0.9), bits(0.1), n_trials=10_000, claimed_epsilon=1.0,
              event_search=HistogramSearch(), rng=np.random.default_rng(8))
    assert not r.passed  # true epsilon ln 9 = 2.2
    assert r.epsilon_lower_bound <= math.log(9) + 1e-9


def test_features_map_reduces_raw_outputs_batch_by_batch():
    seen = []

    def sampler(mu):
        def s(n, rng):
            seen.append(n)
            return rng.laplace(mu, 1.0, size=(n, 50))
        return s

    r = audit(sampler(0.0), sampler(1.0), n_trials=1000, claimed_epsilon=50.0,
              features=lambda out: out[:, 0], batch_size=200, rng=np.random.default_rng(9))
    assert max(seen) == 200 and r.passed


@pytest.mark.parametrize(("kwargs", "match"), [
    pytest.param({"n_trials": 10}, "n_trials must be an integer >= 20", id="too_few_trials"),
    pytest.param({"confidence": 1.0}, "confidence must be in", id="confidence_one"),
    pytest.param({"claimed_epsilon": -1.0}, "claimed_epsilon must be >= 0",
                 id="negative_epsilon"),
    pytest.param({"claimed_delta": 1.0}, "claimed_delta must be in", id="delta_one"),
])
def test_bad_parameters_raise_named_errors(kwargs, match):
    args = {"n_trials": 100, "claimed_epsilon": 1.0} | kwargs
    with pytest.raises(InvalidParameterError, match=match):
        audit(laplace(0, 1), laplace(1, 1), rng=np.random.default_rng(0), **args)


def test_a_sampler_returning_the_wrong_number_of_draws_is_refused():
    with pytest.raises(InvalidParameterError, match="sampler must return"):
        audit(lambda n, rng: np.zeros(n + 1), laplace(1, 1), n_trials=100, claimed_epsilon=1.0,
              rng=np.random.default_rng(0))


def test_same_seed_same_result():
    kw = {"n_trials": 2000, "claimed_epsilon": 1.0}
    r1 = audit(laplace(0, 1), laplace(1, 1), rng=np.random.default_rng(11), **kw)
    r2 = audit(laplace(0, 1), laplace(1, 1), rng=np.random.default_rng(11), **kw)
    assert r1 == r2
