# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Heatmap mechanisms (seed 003): noise levels, guarantees, and the non-privacy of baselines."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.features.gaze_maps import GazeMaps, MapGrid
from gazeprivacy.guarantees import FlagCode, Guarantee, Kind
from gazeprivacy.mechanisms import MECHANISMS
from gazeprivacy.mechanisms.heatmaps import analytic_gaussian as ag
from gazeprivacy.mechanisms.heatmaps import gaussian as gauss
from gazeprivacy.mechanisms.heatmaps import laplacian as lap
from gazeprivacy.mechanisms.heatmaps import noise_free as nf
from gazeprivacy.mechanisms.heatmaps import random_selection as rs
from gazeprivacy.mechanisms.noise.analytic_gaussian import analytic_gaussian_sigma, gaussian_delta


def _maps(counts) -> GazeMaps:
    c = np.asarray(counts)
    return GazeMaps(counts=c, observers=tuple(f"o{i}" for i in range(c.shape[0])),
                    stimulus="s", grid=MapGrid(width_px=c.shape[2], height_px=c.shape[1]))


def _neighbours(n: int) -> tuple[GazeMaps, GazeMaps]:
    """The proofs' pair: r = 1, everyone else 0; observer 0 looked (D) or did not (D')."""
    d = np.zeros((n, 1, 1), dtype=int)
    d_prime = d.copy()
    d[0] = 1
    return _maps(d), _maps(d_prime)


# --- baselines: exhibit the distinguishing event ------------------------------------------------

def test_noise_free_distinguishing_event():
    d, d_prime = _neighbours(10)
    params = nf.NoiseFreeParams(cap=1)
    out_d = nf.noise_free(d, params).output.values[0, 0]
    out_dp = nf.noise_free(d_prime, params).output.values[0, 0]
    # The event S = {1/n}: probability 1 under D, 0 under D' -> delta >= 1.
    assert out_d == pytest.approx(1 / 10)
    assert out_dp != pytest.approx(1 / 10)
    g = nf.guarantee(params, n_observers=10, n_cells=1)
    assert g.kind is Kind.NONE and not g.formally_private
    assert g.flags[0].code is FlagCode.NOT_PRIVATE


@pytest.mark.parametrize("which", ["rs1", "rs2"])
def test_random_selection_distinguishing_event(which):
    n, c, draws = 10, 0.2, 1500
    d, d_prime = _neighbours(n)
    if which == "rs1":
        params, fn = rs.RS1Params(cap=1, fraction=c), rs.rs1
    else:
        params, fn = rs.RS2Params(cap=1, fraction=c), rs.rs2
    k = rs.n_selected(c, n)
    gen = np.random.default_rng(7)
    hits_d = hits_dp = 0
    for _ in range(draws):
        v_d = fn(d, params, rng=gen).output.values[0, 0]
        v_dp = fn(d_prime, params, rng=gen).output.values[0, 0]
        hits_d += v_d >= 1 / k - 1e-12 if which == "rs2" else math.isclose(v_d, 1 / k)
        hits_dp += v_dp >= 1 / k - 1e-12 if which == "rs2" else math.isclose(v_dp, 1 / k)
    p = rs.distinguishing_probability(params, n_observers=n)
    assert p == pytest.approx(c if which == "rs1" else 1 - (1 - 1 / n) ** k)
    se = math.sqrt(p * (1 - p) / draws)
    assert abs(hits_d / draws - p) < 4 * se     # the event happens under D ...
    assert hits_dp == 0                          # ... and never under D': delta >= p
    g = rs.guarantee(params, n_observers=n, n_cells=1)
    assert g.kind is Kind.NONE and g.flags[0].code is FlagCode.NOT_PRIVATE
    assert f"{p:.3g}" in g.flags[0].message


def test_rs_fraction_validated():
    with pytest.raises(InvalidParameterError, match="fraction must be in"):
        rs.RS1Params(cap=1, fraction=0.0)


# --- noise levels equal the theorems' formulas -------------------------------------------------

@pytest.mark.parametrize("eps,delta,m,n,r", [(0.5, 1e-6, 1, 1000, 400), (2.0, 1e-4, 3, 50, 900),
                                             (3.0, 15 ** -1.5, 2, 15, 4800)])
def test_theorem_3_4_and_3_5_noise_levels(eps, delta, m, n, r):
    want_n = (m / (n * eps)) * math.sqrt(r * (eps / 2 + math.log(r / delta)))
    assert gauss.theorem_3_4_sigma(epsilon=eps, delta=delta, cap=m, n_observers=n,
                                   n_cells=r) == pytest.approx(want_n, rel=1e-12)
    p = gauss.GaussianParams(epsilon=eps, delta=delta, cap=m)
    assert gauss.guarantee(p, n_observers=n, n_cells=r).parameters["noise_std"] == \
        pytest.approx(want_n, rel=1e-12)
    lp = lap.LaplacianParams(epsilon=eps, cap=m)
    assert lap.noise_std(lp, n_observers=n, n_cells=r) == \
        pytest.approx(math.sqrt(2) * m * r / (eps * n), rel=1e-12)
    assert lap.guarantee(lp, n_observers=n, n_cells=r).parameters["laplace_scale"] == \
        pytest.approx(m * r / (n * eps), rel=1e-12)
    ap = ag.AnalyticGaussianParams(epsilon=eps, delta=delta, cap=m)
    assert ag.noise_std(ap, n_observers=n, n_cells=r) == pytest.approx(
        analytic_gaussian_sigma(epsilon=eps, delta=delta, sensitivity=m * math.sqrt(r) / n))


def test_paper_sigma_for_figure_3_setting():
    """The paper quotes sigma = 0.0986 at epsilon 1.5 (n = 50 000, 1050 x 1680, m = 1)."""
    s = gauss.theorem_3_4_sigma(epsilon=1.5, delta=50_000 ** -1.5, cap=1, n_observers=50_000,
                                n_cells=1050 * 1680)
    assert s == pytest.approx(0.0986, rel=0.01)


@pytest.mark.parametrize("n,r", [(50_000, 480_000), (15, 480_000), (1000, 100), (100, 1),
                                 (50_000, 1)])
@pytest.mark.parametrize("eps", [0.5, 1.0, 1.5, 2.0, 3.0, 10.0])
def test_analytic_sigma_meets_condition_and_never_exceeds_theorem_3_4(n, r, eps):
    delta = n ** -1.5
    sens = math.sqrt(r) / n
    s_ag = ag.noise_std(ag.AnalyticGaussianParams(epsilon=eps, delta=delta, cap=1),
                        n_observers=n, n_cells=r)
    assert gaussian_delta(epsilon=eps, sigma=s_ag, sensitivity=sens) <= delta * (1 + 1e-9)
    s_34 = gauss.theorem_3_4_sigma(epsilon=eps, delta=delta, cap=1, n_observers=n, n_cells=r)
    p = gauss.GaussianParams(epsilon=eps, delta=delta, cap=1)
    holds = gaussian_delta(epsilon=eps, sigma=s_34, sensitivity=sens) <= delta
    if holds:
        # wherever Theorem 3.4 is (exactly) valid, the analytic sigma is no larger
        assert s_ag <= s_34
        assert gauss.guarantee(p, n_observers=n, n_cells=r).formally_private
    else:
        # where it is not, Theorem 3.4 undershoots the noise: sound mode refuses
        assert s_ag > s_34
        with pytest.raises(gauss.Theorem34RangeError, match="analytic-gaussian"):
            gauss.guarantee(p, n_observers=n, n_cells=r)


def test_theorem_3_4_fails_for_one_pixel_and_paper_mode_flags_it():
    n = 50_000
    p = gauss.GaussianParams(epsilon=1.0, delta=n ** -1.5, cap=1, mode="paper")
    g = gauss.guarantee(p, n_observers=n, n_cells=1)
    assert not g.formally_private
    assert g.flags[0].code is FlagCode.PROOF_GAP
    assert g.parameters["exact_delta"] > 10 * n ** -1.5


def test_theorem_3_4_holds_beyond_epsilon_one_for_images():
    """The epsilon < 1 condition of the classical Gaussian mechanism is not needed here."""
    n = 50_000
    g = gauss.guarantee(gauss.GaussianParams(epsilon=3.0, delta=n ** -1.5, cap=1),
                        n_observers=n, n_cells=800 * 600)
    assert g.formally_private and g.parameters["exact_delta"] < n ** -1.5


# --- releases -----------------------------------------------------------------------------------

def _random_maps(rng, n=12, rows=6, cols=8):
    return _maps(rng.poisson(0.7, size=(n, rows, cols)))


@pytest.mark.parametrize("module,fn,params", [
    (gauss, gauss.gaussian, gauss.GaussianParams(epsilon=1.0, delta=1e-3, cap=2)),
    (lap, lap.laplacian, lap.LaplacianParams(epsilon=1.0, cap=2)),
    (ag, ag.analytic_gaussian, ag.AnalyticGaussianParams(epsilon=1.0, delta=1e-3, cap=2)),
], ids=["gaussian", "laplace", "analytic"])
def test_noise_has_the_stated_std(rng, module, fn, params):
    maps = _random_maps(rng, n=40, rows=60, cols=80)
    rel = fn(maps, params, rng=np.random.default_rng(3))
    noise = rel.output.values - maps.aggregate(2)
    sigma = module.noise_std(params, n_observers=40, n_cells=4800)
    assert rel.output.noise_std == pytest.approx(sigma)
    # sample variance: SE of s^2 is s^2 sqrt(2/(N-1)) (Gaussian), sqrt(5/N) (Laplace, kurtosis 6)
    k = 5.0 if module is lap else 2.0
    assert abs(noise.var() / sigma ** 2 - 1) < 4 * math.sqrt(k / noise.size)
    assert abs(noise.mean()) < 4 * sigma / math.sqrt(noise.size)


@pytest.mark.parametrize("name", ["heatmap-noise-free", "heatmap-rs1", "heatmap-rs2",
                                  "heatmap-gaussian", "heatmap-laplace",
                                  "heatmap-analytic-gaussian"])
def test_registry_contract(rng, name):
    spec = MECHANISMS[name]
    assert spec.level == "heatmap"
    kw = {"cap": 2}
    if "rs" in name:
        kw["fraction"] = 0.5
    if name in ("heatmap-gaussian", "heatmap-laplace", "heatmap-analytic-gaussian"):
        kw["epsilon"] = 1.0
    if name in ("heatmap-gaussian", "heatmap-analytic-gaussian"):
        kw["delta"] = 1e-3
    params = spec.params_type(**kw)
    maps = _random_maps(rng)
    a = spec.protect(maps, params, rng=np.random.default_rng(5))
    b = spec.protect(maps, params, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(a.output.values, b.output.values)   # same seed, same output
    assert a.output.values.shape == maps.grid.shape
    other = _random_maps(np.random.default_rng(99))                    # same public shape
    c = spec.protect(other, params, rng=np.random.default_rng(5))
    assert c.guarantee == a.guarantee
    assert Guarantee.from_json(a.guarantee.to_json()) == a.guarantee
    assert a.guarantee.mechanism == name
    with pytest.raises(InvalidParameterError, match="cap must be an integer >= 1"):
        spec.params_type(**{**kw, "cap": 0})


def test_privacy_parameters_have_no_defaults():
    with pytest.raises(TypeError):
        gauss.GaussianParams(cap=1)  # type: ignore[call-arg]
    with pytest.raises(InvalidParameterError, match="epsilon must be > 0"):
        lap.LaplacianParams(epsilon=-1.0, cap=1)
    with pytest.raises(InvalidParameterError, match="delta must be in"):
        ag.AnalyticGaussianParams(epsilon=1.0, delta=0.0, cap=1)


def test_privacy_level_presets():
    g = gauss.GaussianParams.good(n_observers=100, cap=1)
    o = ag.AnalyticGaussianParams.okay(n_observers=100, cap=1)
    assert (g.epsilon, g.delta) == (1.0, pytest.approx(1e-3))
    assert (o.epsilon, o.delta) == (3.0, pytest.approx(1e-3))
    # presets set values only: the mode stays sound unless asked for
    assert gauss.GaussianParams.paper(epsilon=2.0, n_observers=100).mode == "sound"
    assert gauss.GaussianParams.paper(epsilon=2.0, n_observers=100, mode="paper").mode == "paper"
