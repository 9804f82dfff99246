# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Feature-series mechanisms: reconstruction, noise scales, clipping, records, errors."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

from gazeprivacy.exceptions import InvalidParameterError, NotFormallyPrivateWarning
from gazeprivacy.features.ranges import FeatureRange
from gazeprivacy.features.window_features import FeatureSeries, feature_table
from gazeprivacy.guarantees import FlagCode, Guarantee, Kind, Unit
from gazeprivacy.mechanisms import MECHANISMS
from gazeprivacy.mechanisms.series import _core, protect_series
from gazeprivacy.mechanisms.series.cfpa import CFPAParams, cfpa
from gazeprivacy.mechanisms.series.dcfpa import DCFPAParams, dcfpa
from gazeprivacy.mechanisms.series.dct import DCTParams, dct
from gazeprivacy.mechanisms.series.fpa import FPAParams, fpa
from gazeprivacy.mechanisms.series.fpa import noise_scale as fpa_scale
from gazeprivacy.mechanisms.series.lpa import LPAParams, lpa, noise_scales
from gazeprivacy.mechanisms.series.steil_exponential import SteilParams, steil_exponential

NAMES = ("a", "b")
RANGES = {"a": FeatureRange(0.0, 1.0, "natural", ""), "b": FeatureRange(-2.0, 2.0, "cap", "")}


def _series(rng: np.random.Generator, lengths=(100, 70), participants=("p1", "p2")):
    out = []
    for i, (n, p) in enumerate(zip(lengths, participants, strict=True)):
        v = np.column_stack([0.5 + 0.3 * np.sin(np.arange(n) / 7.0 + i),
                             np.cumsum(rng.normal(0, 0.05, n))])
        out.append(FeatureSeries(recording=f"r{i}", participant=p, t_start=0.5 * np.arange(n),
                                 values=v, labels={"document": "comic" if i % 2 else "news"},
                                 feature_names=NAMES))
    return out


@pytest.mark.parametrize("n", [8, 9, 64])
def test_fpa_kernel_reconstructs_exactly_without_noise(n: int) -> None:
    X = np.random.default_rng(n).normal(size=(3, n))
    np.testing.assert_allclose(_core.dft_release(X, n, np.zeros(3), None), X, atol=1e-12)
    # Hermitian completion: k = n // 2 + 1 already reconstructs a real signal exactly
    np.testing.assert_allclose(_core.dft_release(X, n // 2 + 1, np.zeros(3), None), X,
                               atol=1e-12)
    np.testing.assert_allclose(_core.dct_release(X, n, np.zeros(3), None), X, atol=1e-12)


def test_dcfpa_reconstruction_from_noiseless_differences_is_exact() -> None:
    rng = np.random.default_rng(1)
    values = [rng.normal(size=(100, 2)), rng.normal(size=(45, 2))]
    out, blocks, _ks, _ = _core.run_blocks(
        values, chunk=32, sens_of=lambda b: np.ones(b.X.shape[0]), k_rule=1.0,
        transform="dft", scale_fn=lambda L, k, s: np.zeros_like(s), difference=True, rng=rng)
    for a, b in zip(values, out, strict=True):
        np.testing.assert_allclose(b, a, atol=1e-12)
    assert sorted({b.L for b in blocks}) == [4, 13, 32]  # 100 = 3*32 + 4, 45 = 32 + 13


def test_noise_scales_equal_their_formulas(rng) -> None:
    S = _series(rng)
    w = np.array([1.0, 4.0])
    eps = 0.7
    # LPA: n (hi - lo) / eps
    for s, lam in zip(S, noise_scales(S, LPAParams(epsilon=eps, ranges=RANGES)), strict=True):
        np.testing.assert_allclose(lam, s.n_windows * w / eps)
    # FPA: sqrt(n) sqrt(2k - 1) Delta_2 / eps with Delta_2 = sqrt(n) (hi - lo)
    _, d = _core.transform_release(S, epsilon=eps, k=5, mode="sound", ranges=RANGES,
                                   sensitivity_group=None, chunk=None, difference=False,
                                   transform="dft", rng=rng, name="series-fpa")
    for scale, sens, L in zip(d["scale"], d["sensitivity"], (70, 100), strict=True):
        np.testing.assert_allclose(sens, np.sqrt(L) * np.tile(w, 1))
        np.testing.assert_allclose(scale, [fpa_scale(L, 5, x, eps) for x in sens])
        np.testing.assert_allclose(scale, L * np.sqrt(9) * w / eps)
    # DCT: sqrt(k) Delta_2 / eps
    _, d = _core.transform_release(S, epsilon=eps, k=4, mode="sound", ranges=RANGES,
                                   sensitivity_group=None, chunk=None, difference=False,
                                   transform="dct", rng=rng, name="series-dct")
    np.testing.assert_allclose(d["scale"][0], 2.0 * np.sqrt(70) * w / eps)
    # CFPA per chunk and DCFPA with the difference sensitivity (hi - lo) sqrt(4L - 3)
    for diff in (False, True):
        _, d = _core.transform_release(S, epsilon=eps, k=3, mode="sound", ranges=RANGES,
                                       sensitivity_group=None, chunk=32, difference=diff,
                                       transform="dft", rng=rng, name="c")
        for scale, L in zip(d["scale"], (4, 6, 32), strict=True):  # 100 = 3*32+4, 70 = 2*32+6
            g = np.sqrt(4 * L - 3) if diff else np.sqrt(L)
            expect = np.sqrt(L) * np.sqrt(5) * g * w / eps
            np.testing.assert_allclose(np.unique(scale), np.unique(expect))


def test_lpa_noise_has_the_laplace_variance() -> None:
    n = 4000
    s = FeatureSeries(recording="r", participant="p", t_start=np.arange(n * 1.0),
                      values=np.full((n, 1), 0.5), feature_names=("a",))
    rel = lpa([s], LPAParams(epsilon=n * 1.0, ranges={"a": RANGES["a"]}),
              rng=np.random.default_rng(5))
    noise = rel.output[0].values[:, 0] - 0.5  # lambda = n * 1 / (n) = 1
    var = 2.0  # 2 lambda^2
    se = np.sqrt((24.0 - var**2) / n)  # Laplace: E[X^4] = 24 lambda^4
    assert abs(noise.var() - var) < 4 * se


def test_fpa_and_dct_noise_energy_matches_the_scale() -> None:
    rng = np.random.default_rng(8)
    n, runs, lam = 16, 4000, 0.5
    X = np.zeros((runs, n))
    e_dft = (_core.dft_release(X, n, np.full(runs, lam), rng) ** 2).sum(axis=1)
    e_dct = (_core.dct_release(X, n, np.full(runs, lam), rng) ** 2).sum(axis=1)
    # sum_t Var = 2 lambda^2 (DFT with noise on 2n - 1 reals, real part of the inverse) and
    # 2 n lambda^2 for the orthonormal DCT; tolerance 4 standard errors of the mean
    for e, expect in ((e_dft, 2 * lam**2), (e_dct, 2 * n * lam**2)):
        assert abs(e.mean() - expect) < 4 * e.std() / np.sqrt(runs)


def test_sound_mode_clips_into_declared_ranges() -> None:
    v = np.column_stack([np.linspace(-3, 3, 64), np.linspace(-9, 9, 64)])
    s = FeatureSeries(recording="r", participant="p", t_start=np.arange(64.0), values=v,
                      feature_names=NAMES)
    clipped = np.column_stack([np.clip(v[:, 0], 0, 1), np.clip(v[:, 1], -2, 2)])
    huge = 1e12  # noise negligible: the output is the clipped input (k = n keeps it exact)
    for rel in (lpa([s], LPAParams(epsilon=huge, ranges=RANGES), rng=np.random.default_rng(0)),
                fpa([s], FPAParams(epsilon=huge, k=1.0, ranges=RANGES),
                    rng=np.random.default_rng(0)),
                dcfpa([s], DCFPAParams(epsilon=huge, chunk_size=32, k=1.0, ranges=RANGES),
                      rng=np.random.default_rng(0))):
        np.testing.assert_allclose(rel.output[0].values, clipped, atol=1e-6)


def test_guarantee_composes_chunks_features_recordings(rng) -> None:
    S = _series(rng, lengths=(100, 70, 40), participants=("p1", "p1", "p2"))
    rel = cfpa(S, CFPAParams(epsilon=0.5, chunk_size=32, k=2, ranges=RANGES), rng=rng)
    g = rel.guarantee
    assert g.kind is Kind.LOCAL_DP and g.unit is Unit.CHUNK and g.formally_private
    # p1: (4 + 3) chunks x 2 features; p2: 2 chunks x 2 features
    assert g.per_participant["p1"].epsilon == pytest.approx(0.5 * 14)
    assert g.per_participant["p2"].epsilon == pytest.approx(0.5 * 4)
    assert "parallel composition" in g.paper_claim
    assert Guarantee.from_json(g.to_json()) == g
    again = cfpa(S, CFPAParams(epsilon=0.5, chunk_size=32, k=2, ranges=RANGES),
                 rng=np.random.default_rng(1)).guarantee
    assert again == g  # the record depends on the public shape only


def test_paper_mode_warns_and_flags(rng) -> None:
    S = _series(rng)
    with pytest.warns(NotFormallyPrivateWarning):
        rel = dcfpa(S, DCFPAParams.paper(epsilon=1.0, chunk_size=32, mode="paper"), rng=rng)
    codes = {f.code for f in rel.guarantee.flags}
    assert {FlagCode.DATA_DEPENDENT_SENSITIVITY, FlagCode.TUNED_ON_PRIVATE_DATA} <= codes
    assert not rel.guarantee.formally_private
    with pytest.warns(NotFormallyPrivateWarning):
        rel = steil_exponential(S, SteilParams.paper(epsilon=1.0, mode="paper"), rng=rng)
    assert FlagCode.PROOF_GAP in {f.code for f in rel.guarantee.flags}


def test_same_seed_same_output(rng) -> None:
    S = _series(rng)
    for fn, params in ((fpa, FPAParams(epsilon=1.0, k=3, ranges=RANGES)),
                       (dct, DCTParams(epsilon=1.0, k=3, ranges=RANGES, chunk_size=16)),
                       (steil_exponential, SteilParams(epsilon=1.0, ranges=RANGES))):
        a = fn(S, params, rng=np.random.default_rng(9)).output
        b = fn(S, params, rng=np.random.default_rng(9)).output
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x.values, y.values)
            assert x.recording == y.recording


def test_steil_paper_moves_every_element_by_one_magnitude() -> None:
    consts = [(0.2, 1.0), (0.8, -1.0)]
    S = [FeatureSeries(recording=f"r{i}", participant=f"p{i}", t_start=np.arange(n * 1.0),
                       values=np.tile(c, (n, 1)), feature_names=NAMES)
         for i, (c, n) in enumerate(zip(consts, (100, 70), strict=True))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotFormallyPrivateWarning)
        rel = steil_exponential(S, SteilParams.paper(epsilon=2.0, mode="paper"),
                                rng=np.random.default_rng(3))
    assert [s.n_windows for s in rel.output] == [10, 7]  # ceil(n / 10)
    signs = []
    for s, c in zip(rel.output, consts, strict=True):
        moved = s.values - np.array(c)
        # eq. 8: one y per (recording, feature), so one magnitude |ln y| / (lambda t_max)
        np.testing.assert_allclose(np.abs(moved), np.broadcast_to(np.abs(moved[:1]), moved.shape),
                                   rtol=1e-12)
        signs.append(np.sign(moved))
    assert len(np.unique(np.concatenate(signs))) == 2  # independent random signs


@pytest.mark.parametrize(("make", "message"), [
    (lambda: LPAParams(epsilon=0.0), "epsilon must be > 0, got 0.0"),
    (lambda: FPAParams(epsilon=1.0, k=0), "k must be >= 1"),
    (lambda: FPAParams(epsilon=1.0, k=1.5), "k must be in \\(0, 1\\]"),
    (lambda: CFPAParams(epsilon=1.0, chunk_size=1), "chunk_size must be an integer >= 2"),
    (lambda: DCFPAParams(epsilon=1.0, chunk_size=32, mode="exact"), "mode must be"),
    (lambda: SteilParams(epsilon=1.0, subsample_w=0), "subsample_w must be an integer >= 1"),
], ids=["epsilon_zero", "k_zero", "k_fraction_above_one", "chunk_one", "bad_mode", "w_zero"])
def test_bad_parameters_raise_named_errors(make, message) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        make()


def test_sound_mode_without_ranges_says_how_to_fix(rng) -> None:
    with pytest.raises(InvalidParameterError, match="default_ranges"):
        fpa(_series(rng), FPAParams(epsilon=1.0), rng=rng)


def test_protect_series_on_tables_and_registry(rng) -> None:
    S = _series(rng)
    tab = feature_table(S)
    rel = protect_series(tab, "series-cfpa", CFPAParams(epsilon=1.0, chunk_size=32, ranges=RANGES),
                         rng=rng)
    assert isinstance(rel.output, pl.DataFrame) and rel.output.shape == tab.shape
    assert rel.output["recording"].to_list() == tab["recording"].to_list()
    assert all(MECHANISMS[n].level == "series" for n in
               ("series-lpa", "series-fpa", "series-dct", "series-cfpa", "series-dcfpa",
                "series-steil-exponential"))
    with pytest.raises(InvalidParameterError, match="params for 'series-fpa' must be a FPAParams"):
        protect_series(S, "series-fpa", LPAParams(epsilon=1.0), rng=rng)


def test_paper_sensitivity_is_eq_7_with_zero_padding() -> None:
    values = [np.array([[0.0], [1.0]]), np.array([[3.0], [1.0]]), np.array([[0.0]])]
    l2 = _core.paper_block_sensitivity(values, [[0, 1, 2]], None, 2, False)
    l1 = _core.paper_block_sensitivity(values, [[0, 1, 2]], None, 1, False)
    # worst pair: recording 1 vs recording 2 padded to [0, 0]
    assert l2[0][0, 0] == pytest.approx(np.sqrt(10.0)) and l1[1][0, 0] == pytest.approx(4.0)
    assert l2[2].shape == (1, 1)


def test_steil_sound_mode_is_laplace_with_the_subsampled_sensitivity() -> None:
    n, w = 8000, 2
    s = FeatureSeries(recording="r", participant="p", t_start=np.arange(n * 1.0),
                      values=np.full((n, 1), 0.5), feature_names=("a",))
    # n_sub = 4000 windows, width 1: scale = 4000 / epsilon = 1 for epsilon = 4000
    rel = steil_exponential([s], SteilParams(epsilon=4000.0, subsample_w=w,
                                             ranges={"a": RANGES["a"]}),
                            rng=np.random.default_rng(11))
    noise = rel.output[0].values[:, 0] - 0.5
    assert noise.shape == (4000,)
    assert abs(noise.var() - 2.0) < 4 * np.sqrt((24.0 - 4.0) / 4000)
    assert rel.guarantee.formally_private and rel.guarantee.mode == "sound"
