# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Shared kernels of the feature-series mechanisms (seeds 002 and 004; SPEC section 5).

Private to ``mechanisms/series``: the public mechanisms are one per module (lpa, fpa, dct, cfpa,
dcfpa, steil_exponential). This module holds what they share: input checks, range clipping,
the data-driven sensitivities of paper mode, chunking, the truncated-transform kernels, the
choice of ``k`` and the guarantee-record builder.

Laplace noise is drawn with ``rng.laplace`` on float64. Floating-point status: this is the
textbook continuous Laplace mechanism on doubles; it is subject to the known floating-point
attacks (Mironov 2012) and is not hardened (no snapping). The lead may route it through
``mechanisms/noise/laplace`` later; the distribution and scale stay the same.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Self

import numpy as np
import polars as pl
import scipy.fft

from gazeprivacy._validation import check_int, check_positive
from gazeprivacy.exceptions import (
    InvalidDataError,
    InvalidParameterError,
    NotFormallyPrivateWarning,
)
from gazeprivacy.features.ranges import FeatureRange, ranges_array
from gazeprivacy.features.window_features import FeatureSeries, feature_table, series_from_table
from gazeprivacy.guarantees import Flag, FlagCode, Guarantee, Kind, Release, Unit
from gazeprivacy.mechanisms.contract import Level, Mechanism, Mode, SeriesShape, coerce_option

__all__: list[str] = []  # private module

K_CANDIDATES = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024)


def check_series(series: Sequence[FeatureSeries]) -> list[FeatureSeries]:
    series = list(series)
    if not series:
        raise InvalidDataError("no feature series given; extract features first")
    names = series[0].feature_names
    for s in series:
        if s.feature_names != names:
            raise InvalidDataError(f"recording {s.recording!r} has other features than "
                                   f"{series[0].recording!r}; select the same feature columns")
        if s.n_windows < 1:
            raise InvalidDataError(f"recording {s.recording!r} has no windows")
        bad = np.argwhere(~np.isfinite(s.values))
        if bad.size:
            r, f = bad[0]
            raise InvalidDataError(f"recording {s.recording!r}: feature {names[f]!r} is not "
                                   f"finite in window {r}; impute or drop before protecting")
    return series


def check_mode(params: object) -> None:
    """Coerce ``params.mode`` (a frozen dataclass field) to :class:`Mode` (sound or paper)."""
    object.__setattr__(params, "mode", coerce_option("mode", params.mode, Mode,
                                                     (Mode.SOUND, Mode.PAPER)))


def check_k(k: object) -> None:
    if k == "tuned":
        return
    if isinstance(k, bool) or not isinstance(k, int | float):
        raise InvalidParameterError(f"k must be an int >= 1, a fraction in (0, 1] or 'tuned', "
                                    f"got {k!r}")
    if isinstance(k, int) and k < 1:
        raise InvalidParameterError(f"k must be >= 1 when an integer, got {k}")
    if isinstance(k, float) and not (0 < k <= 1):
        raise InvalidParameterError(f"k must be in (0, 1] when a fraction, got {k}")


def k_for_length(k: int | float, length: int) -> int:
    """Coefficients kept for a block of ``length`` (an int is capped at the length)."""
    if isinstance(k, float):
        return max(1, math.ceil(k * length))
    return min(int(k), length)


def bounds_for(series: Sequence[FeatureSeries], ranges: Mapping[str, FeatureRange] | None
               ) -> tuple[np.ndarray, np.ndarray]:
    if ranges is None:
        raise InvalidParameterError(
            "sound mode needs declared per-feature ranges: pass ranges=default_ranges(params) "
            "(gazeprivacy.features.ranges) or your own, or use mode='paper'")
    return ranges_array(dict(ranges), series[0].feature_names)


def clip(values: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Sound mode's clipping into the declared ranges (a public, data-independent map)."""
    return np.clip(values, lo, hi)


def warn_paper(mechanism: str) -> None:
    warnings.warn(f"{mechanism} mode='paper' reads sensitivities from the private data (and may "
                  "tune k on it); the guarantee record is flagged", NotFormallyPrivateWarning,
                  stacklevel=3)


# --------------------------------------------------------------------------- sensitivities

def groups_of(series: Sequence[FeatureSeries], group_by: str | None) -> list[list[int]]:
    """Index lists of recordings that share the label ``group_by`` (one group when None)."""
    if group_by is None:
        return [list(range(len(series)))]
    out: dict[str, list[int]] = {}
    for i, s in enumerate(series):
        if group_by not in s.labels:
            raise InvalidParameterError(f"sensitivity_group={group_by!r} is not a label of "
                                        f"recording {s.recording!r} (labels: {sorted(s.labels)})")
        out.setdefault(s.labels[group_by], []).append(i)
    return list(out.values())


def pairwise_max(blocks: np.ndarray, w: int) -> np.ndarray:
    """``max_{p,q} ||B_p - B_q||_w`` over axis 0, for blocks of shape (P, ..., L, F).

    Returns shape (..., F). Seed 002 eq. 7 (participants padded with zeros to one length).
    """
    P = blocks.shape[0]
    best = np.zeros(blocks.shape[1:-2] + blocks.shape[-1:])
    for p in range(P - 1):
        d = np.abs(blocks[p + 1:] - blocks[p])
        norm = d.sum(axis=-2) if w == 1 else np.sqrt((d * d).sum(axis=-2))
        best = np.maximum(best, norm.max(axis=0))
    return best


def padded(values: Sequence[np.ndarray], length: int) -> np.ndarray:
    F = values[0].shape[1]
    out = np.zeros((len(values), length, F))
    for i, v in enumerate(values):
        out[i, :v.shape[0]] = v
    return out


def to_differences(x: np.ndarray, axis: int = -2) -> np.ndarray:
    """Seed 002 eq. 16 within a block: first element kept, then consecutive differences."""
    return np.diff(x, axis=axis, prepend=0.0)


def paper_block_sensitivity(values: Sequence[np.ndarray], groups: list[list[int]],
                            chunk: int | None, w: int, difference: bool) -> list[np.ndarray]:
    """Per recording, an array (n_chunks, F) of data-driven Delta_w (seed 002 eq. 7, per chunk)."""
    out: list[np.ndarray] = [np.zeros(0)] * len(values)
    for g in groups:
        n = max(values[i].shape[0] for i in g)
        c = n if chunk is None else chunk
        n_chunks = math.ceil(n / c)
        X = padded([values[i] for i in g], n_chunks * c)
        B = X.reshape(len(g), n_chunks, c, X.shape[2])
        if difference:
            B = to_differences(B, axis=2)
        if len(g) > 1:
            sens = pairwise_max(B, w)
        else:  # one recording: its distance to the all-zero padding series
            sens = (np.abs(B).sum(axis=2) if w == 1 else np.sqrt((B * B).sum(axis=2)))[0]
        for i in g:
            out[i] = sens[: math.ceil(values[i].shape[0] / c)]
    return out


# --------------------------------------------------------------------------- kernels

def laplace(rng: np.random.Generator, scale: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Laplace noise of per-row ``scale`` (broadcast over trailing axes); scale 0 -> no noise."""
    scale = np.asarray(scale, np.float64)
    return rng.laplace(0.0, 1.0, size=shape) * scale.reshape(scale.shape + (1,) * (
        len(shape) - scale.ndim))


def dft_release(X: np.ndarray, k: int, scale: np.ndarray, rng: np.random.Generator | None,
                *, runs: int = 1) -> np.ndarray:
    """FPA kernel on rows of ``X`` (m, n): DFT, keep ``k`` lowest coefficients, Laplace noise,
    zero-pad, inverse DFT; returns (runs, m, n) (or (m, n) when ``runs == 1``).

    Noise of scale ``scale[row]`` goes on the real parts of the k kept coefficients and on the
    imaginary parts of coefficients 1..k-1 (the DC imaginary part is 0 for real input): 2k - 1
    reals. Coefficients that were not kept but whose mirror ``n - j`` was are filled with the
    mirror's conjugate (Hermitian completion, pure post-processing), so for ``k <= n // 2 + 1``
    the output is the real low-pass reconstruction; the real part is returned.
    """
    m, n = X.shape
    F = np.fft.fft(X, axis=1)[:, :k]
    G = np.zeros((runs, m, n), np.complex128)
    G[:, :, :k] = F
    if rng is not None and np.any(scale > 0):
        G[:, :, :k] += laplace(rng, np.broadcast_to(scale, (runs, m)), (runs, m, k))
        if k > 1:
            G[:, :, 1:k] += 1j * laplace(rng, np.broadcast_to(scale, (runs, m)),
                                          (runs, m, k - 1))
    lo = max(k, n - k + 1)
    if lo < n:
        G[:, :, lo:] = np.conj(G[:, :, n - np.arange(lo, n)])
    out = np.fft.ifft(G, axis=2).real
    return out[0] if runs == 1 else out


def dct_release(X: np.ndarray, k: int, scale: np.ndarray, rng: np.random.Generator | None,
                *, runs: int = 1) -> np.ndarray:
    """Orthonormal DCT-II kernel: keep ``k`` coefficients, Laplace noise on each, inverse."""
    m, n = X.shape
    C = scipy.fft.dct(X, type=2, norm="ortho", axis=1)
    G = np.zeros((runs, m, n))
    G[:, :, :k] = C[:, :k]
    if rng is not None and np.any(scale > 0):
        G[:, :, :k] += laplace(rng, np.broadcast_to(scale, (runs, m)), (runs, m, k))
    out = scipy.fft.idct(G, type=2, norm="ortho", axis=2)
    return out[0] if runs == 1 else out


def nmse(x: np.ndarray, x_tilde: np.ndarray, axis: int = -1) -> np.ndarray:
    """Seed 002 eq. 4: ``mean((x - x~)^2) / (mean(x) mean(x~))`` along ``axis``.

    A zero denominator gives inf (or nan for 0/0); callers aggregate with care.
    """
    num = np.mean((x - x_tilde) ** 2, axis=axis)
    den = np.mean(x, axis=axis) * np.mean(x_tilde, axis=axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        return num / den


# --------------------------------------------------------------------------- the block driver

@dataclass(slots=True)
class Blocks:
    """All blocks of one length ``L``: rows of ``X`` with their recording, chunk and feature."""

    L: int
    X: np.ndarray  # (m, L) block values (before differencing)
    rec: np.ndarray
    chunk: np.ndarray
    feat: np.ndarray
    start: np.ndarray  # first window of the block


def make_blocks(values: Sequence[np.ndarray], chunk: int | None) -> list[Blocks]:
    """Cut every recording's (n, F) values into (recording, feature, chunk) blocks, vectorised."""
    parts: dict[int, list[tuple[np.ndarray, ...]]] = {}
    for r, v in enumerate(values):
        n, F = v.shape
        c = n if chunk is None else min(chunk, n)
        nfull, tail = divmod(n, c)
        if nfull:
            B = v[: nfull * c].reshape(nfull, c, F).transpose(0, 2, 1).reshape(-1, c)
            ci = np.repeat(np.arange(nfull), F)
            parts.setdefault(c, []).append((B, np.full(B.shape[0], r), ci,
                                            np.tile(np.arange(F), nfull), ci * c))
        if tail:
            parts.setdefault(tail, []).append((v[nfull * c:].T, np.full(F, r),
                                               np.full(F, nfull), np.arange(F),
                                               np.full(F, nfull * c)))
    return [Blocks(L, *(np.concatenate([p[i] for p in ps]) for i in range(5)))
            for L, ps in sorted(parts.items())]


def write_blocks(out: list[np.ndarray], blocks: Blocks, Y: np.ndarray) -> None:
    """Put released rows back into the per-recording arrays (inverse of :func:`make_blocks`)."""
    cols = blocks.start[:, None] + np.arange(blocks.L)[None, :]
    for r in np.unique(blocks.rec):
        sel = blocks.rec == r
        out[r][cols[sel], blocks.feat[sel][:, None]] = Y[sel]


def _lowpass(X: np.ndarray, k: int, transform: str) -> np.ndarray:
    return TRANSFORMS[transform](X, k, np.zeros(X.shape[0]), None)


@functools.lru_cache(maxsize=4096)
def _noise_gain(L: int, k: int, transform: str, difference: bool) -> float:
    """``||C A||_F^2``: expected output error energy per unit Laplace variance, where ``A`` maps
    the noised reals to the output block and ``C`` is the cumulative sum (DCFPA) or identity.

    Without differences it is analytic: ``k`` for the orthonormal DCT; for the DFT with
    Hermitian completion (k <= L // 2 + 1) the DC real part gives 1/L, each other kept
    coefficient 2/L per real and imaginary part, and the Nyquist coefficient 1/L (real only).
    """
    if not difference:
        if transform == "dct":
            return float(k)
        nyq = L % 2 == 0 and k == L // 2 + 1
        return (1.0 + 4.0 * (k - 1 - nyq) + nyq) / L
    if transform == "dct":
        A = scipy.fft.idct(np.eye(L)[:k], type=2, norm="ortho", axis=1)  # (k, L)
    else:
        cols = []
        for j in range(k):
            for part in ((1.0,) if j == 0 else (1.0, 1j)):
                G = np.zeros((1, L), np.complex128)
                G[0, j] = part
                lo = max(k, L - k + 1)
                if lo < L:
                    G[:, lo:] = np.conj(G[:, L - np.arange(lo, L)])
                cols.append(np.fft.ifft(G, axis=1).real[0])
        A = np.array(cols)
    if difference:
        A = np.cumsum(A, axis=1)
    return float((A * A).sum())


def tune_k(blocks: Blocks, sens: np.ndarray, scale_fn: Callable[..., np.ndarray],
           transform: str, difference: bool) -> np.ndarray:
    """Seed 002's choice of ``k`` per block: the candidate with the least expected error.

    Seed 002 averages |NMSE| over 100 noisy runs. Its denominator ``mean(X) mean(X~)`` has the
    same expectation for every ``k`` (the DC coefficient is always kept), so this takes the
    expectation of the numerator exactly: truncation error ``||X - lowpass_k(X)||^2`` plus noise
    energy ``2 lambda^2 ||C A||_F^2``; deterministic and ~1000x cheaper than Monte Carlo. It reads
    the private block (flagged ``tuned-on-private-data``).
    """
    L = blocks.L
    m = blocks.X.shape[0]
    X = to_differences(blocks.X, axis=1) if difference else blocks.X
    cands = [c for c in K_CANDIDATES if c <= (L // 2 + 1 if transform == "dft" else L)] or [1]
    best = np.full(m, np.inf)
    best_k = np.full(m, cands[0])
    for c in cands:
        Y = _lowpass(X, c, transform)
        if difference:
            Y = np.cumsum(Y, axis=1)
        trunc = ((blocks.X - Y) ** 2).sum(axis=1)
        lam = scale_fn(np.full(m, L), np.full(m, c), sens)
        err = trunc + 2.0 * lam**2 * _noise_gain(L, c, transform, difference)
        better = err < best
        best[better] = err[better]
        best_k[better] = c
    return best_k


def run_blocks(values: Sequence[np.ndarray], *, chunk: int | None,
               sens_of: Callable[[Blocks], np.ndarray], k_rule: int | float | str,
               transform: str, scale_fn: Callable[..., np.ndarray], difference: bool,
               rng: np.random.Generator) -> tuple[list[np.ndarray], list[Blocks], list[np.ndarray],
                                                  list[np.ndarray]]:
    """Release every block; returns (new values, blocks, k per block, scale per block)."""
    out = [np.array(v, dtype=np.float64, copy=True) for v in values]
    all_blocks = make_blocks(values, chunk)
    ks_all, scales_all = [], []
    for blocks in all_blocks:
        m, L = blocks.X.shape
        sens = sens_of(blocks)
        if k_rule == "tuned":
            ks = tune_k(blocks, sens, scale_fn, transform, difference)
        else:
            ks = np.full(m, k_for_length(k_rule, L))  # type: ignore[arg-type]
        scales = scale_fn(np.full(m, L), ks, sens)
        Y = np.empty_like(blocks.X)
        X = to_differences(blocks.X, axis=1) if difference else blocks.X
        for k in np.unique(ks):
            idx = np.flatnonzero(ks == k)
            Z = TRANSFORMS[transform](X[idx], int(k), scales[idx], rng)
            Y[idx] = np.cumsum(Z, axis=1) if difference else Z
        write_blocks(out, blocks, Y)
        ks_all.append(ks)
        scales_all.append(scales)
    return out, all_blocks, ks_all, scales_all


# --------------------------------------------------------------------------- guarantee records

def series_guarantee(*, mechanism: str, params: object, shape: SeriesShape, unit: Unit,
                     units_per_series: Callable[[int], int], epsilon: float, mode: Mode,
                     parameters: Mapping[str, object], paper_claim: str,
                     extra_flags: Sequence[Flag] = (), notes: Sequence[str] = ()) -> Guarantee:
    """Record for a feature-series release: per block epsilon-LDP, composed per participant.

    Each block (one feature of one recording, or one chunk of it) is released from that
    recording alone with the sensitivity of the whole declared domain, so the per-block
    statement is local: any two inputs of the block are eps-indistinguishable. Blocks of one
    participant (chunks, features, recordings) compose sequentially.
    """
    flags = list(extra_flags)
    mode = Mode(mode)
    if mode is Mode.PAPER:
        flags.append(Flag(FlagCode.DATA_DEPENDENT_SENSITIVITY,
                          "paper mode: sensitivities are the largest distances between "
                          "participants' actual series (seed 002 eq. 7) or the data's own "
                          "min/max (seed 004); the noise scale reveals the data"))
    g = Guarantee(
        mechanism=mechanism, kind=Kind.LOCAL_DP, unit=unit, epsilon=float(epsilon), mode=mode,
        neighbouring=(f"one {unit.value} of one feature of one recording replaced by any other "
                      "in the declared ranges" if mode is Mode.SOUND else
                      f"one {unit.value} of one feature of one recording replaced by another "
                      "participant's (the data-driven sensitivity)"),
        parameters=dict(parameters), flags=tuple(flags), paper_claim=paper_claim,
        notes=tuple(notes))
    return g.compose(shape.units_per_participant(units_per_series))


# ------------------------------------------------------------- chunked FPA (CFPA, DCFPA)

@dataclass(frozen=True, kw_only=True)
class ChunkParams:
    """Fields and checks shared by ``CFPAParams`` and ``DCFPAParams`` (documented there)."""

    epsilon: float
    chunk_size: int
    k: int | float | str = 0.1
    mode: Mode = Mode.SOUND
    ranges: Mapping[str, FeatureRange] | None = None
    sensitivity_group: str | None = None

    def __post_init__(self) -> None:
        check_positive(epsilon=self.epsilon)
        check_int(minimum=2, chunk_size=self.chunk_size)
        check_mode(self)
        check_k(self.k)

    @classmethod
    def paper(cls, *, epsilon: float, chunk_size: int, **kw: Any) -> Self:
        """Seed 002's values: k tuned per chunk, sensitivities per document type.

        Sets values only; seed 002's data-driven sensitivities need ``mode="paper"`` too."""
        return cls(epsilon=epsilon, chunk_size=chunk_size, **{"k": "tuned",
                   "sensitivity_group": "document", **kw})


def n_chunks(n_windows: int, chunk_size: int) -> int:
    """Chunks of a series (the last may be shorter).

    >>> n_chunks(100, 32)
    4
    """
    return -(-n_windows // chunk_size)


def chunk_guarantee(params: ChunkParams, shape: SeriesShape, *, mechanism: str,
                    difference: bool, paper_claim: str) -> Guarantee:
    """The CFPA / DCFPA privacy map (reads only the public shape)."""
    c = params.chunk_size
    return series_guarantee(
        mechanism=mechanism, params=params, shape=shape, unit=Unit.CHUNK,
        units_per_series=lambda n: n_chunks(n, c), epsilon=params.epsilon, mode=params.mode,
        parameters={"epsilon": params.epsilon, "chunk_size": c, "k": params.k,
                    "differences": difference, "scale": "sqrt(L) sqrt(2k-1) Delta_2 / epsilon",
                    "sensitivity_group": params.sensitivity_group},
        extra_flags=k_flags(params.k), paper_claim=paper_claim,
        notes=("per participant the chunks, features and recordings compose sequentially: "
               "epsilon x chunks x features x recordings",))


# --------------------------------------------------------------------------- transform family

TRANSFORMS: dict[str, Callable[..., np.ndarray]] = {"dft": dft_release, "dct": dct_release}


def transform_scale(transform: str, epsilon: float) -> Callable[..., np.ndarray]:
    """Laplace scale per block for a Delta_2 bound ``sens`` of the block's input.

    DFT (non-unitary, numpy's ``fft``): the kept coefficients' L2 change is at most
    ``sqrt(n) Delta_2`` (Parseval) and the noise goes on ``2k - 1`` reals, so their L1 change is at
    most ``sqrt(2k - 1) sqrt(n) Delta_2``. Orthonormal DCT-II: ``sqrt(k) Delta_2``.
    """
    if transform == "dft":
        return lambda L, k, sens: np.sqrt(L) * np.sqrt(2.0 * k - 1.0) * sens / epsilon
    return lambda L, k, sens: np.sqrt(k) * sens / epsilon


def transform_release(series: Sequence[FeatureSeries], *, epsilon: float, k: int | float | str,
                      mode: Mode, ranges: Mapping[str, FeatureRange] | None,
                      sensitivity_group: str | None, chunk: int | None, difference: bool,
                      transform: str, rng: np.random.Generator, name: str
                      ) -> tuple[list[FeatureSeries], dict[str, list[np.ndarray]]]:
    """Run the FPA family (FPA, DCT, CFPA, DCFPA); returns (series, details).

    ``details`` has, per block length, the blocks' ``k``, ``scale``, ``sensitivity`` (Delta_2).
    """
    series = check_series(series)
    values = [s.values for s in series]
    mode = Mode(mode)
    if mode is Mode.SOUND:
        lo, hi = bounds_for(series, ranges)
        values = [clip(v, lo, hi) for v in values]
        width = hi - lo

        def sens_of(b: Blocks) -> np.ndarray:
            g = np.sqrt(4.0 * b.L - 3.0) if difference else np.sqrt(b.L)
            return width[b.feat] * g
    else:
        warn_paper(name)
        groups = groups_of(series, sensitivity_group)
        sens = paper_block_sensitivity(values, groups, chunk, 2, difference)

        def sens_of(b: Blocks) -> np.ndarray:
            return np.array([sens[r][c, f] for r, c, f in zip(b.rec, b.chunk, b.feat,
                                                                strict=True)])
    senses: list[np.ndarray] = []

    def recorded(b: Blocks) -> np.ndarray:
        v = sens_of(b)
        senses.append(v)
        return v
    out, _, ks, scales = run_blocks(values, chunk=chunk, sens_of=recorded, k_rule=k,
                                    transform=transform, scale_fn=transform_scale(
                                        transform, epsilon), difference=difference, rng=rng)
    details = {"k": ks, "scale": scales, "sensitivity": senses}
    return [s.with_values(v) for s, v in zip(series, out, strict=True)], details


def k_flags(k: object) -> list[Flag]:
    if k == "tuned":
        return [Flag(FlagCode.TUNED_ON_PRIVATE_DATA,
                     "k chosen per block as the lowest mean |NMSE| over noisy runs of the private "
                     "block itself (seed 002); the choice leaks information not counted in "
                     "epsilon")]
    return []


# ------------------------------------------------------------------------ registry entries

SEED002 = ("Bozkir, Günlü, Fuhl, Schaefer, Kasneci. Differential privacy for eye tracking with "
           "temporal correlations. PLOS ONE 2021")
SEED004 = ("Steil, Hagestedt, Huang, Bulling. Privacy-aware eye tracking using differential "
           "privacy. ETRA 2019")

#: Why no series mechanism has a partition plan.
SERIES_REFUSAL = ("it is a series-level mechanism (feature-series releases are not supported "
                  "partition-wise; protect the feature table in memory)")


def _wrap(fn: Callable[..., Release[list[FeatureSeries]]]) -> Callable[..., Release[Any]]:
    def protect(data: Sequence[FeatureSeries] | pl.DataFrame, params: Any, *,
                rng: np.random.Generator, progress: bool = False) -> Release[Any]:
        del progress  # vectorised; nothing to report per recording
        if isinstance(data, pl.DataFrame):
            rel = fn(series_from_table(data), params, rng=rng)
            return Release(feature_table(rel.output), rel.guarantee)
        return fn(list(data), params, rng=rng)
    protect.__doc__ = f"Run ``{fn.__name__}`` on feature series or a feature table."
    protect.__module__ = fn.__module__  # the implementing module (audit adapters)
    return protect


def example_series(n_participants: int = 3, n_windows: int = 40) -> list[FeatureSeries]:
    """Tiny feature series in [0, 1] (two features, one recording per participant)."""
    rng = np.random.default_rng(0)
    return [FeatureSeries(recording=f"r{i}", participant=f"p{i}",
                          t_start=np.arange(n_windows) * 0.5,
                          values=rng.uniform(0.2, 0.8, (n_windows, 2)),
                          labels={"document": "comic"}, feature_names=("a", "b"))
            for i in range(n_participants)]


def _example(params_type: type, **kw: Any) -> Callable[[Mode], tuple[Any, Any] | None]:
    def example(mode: Mode) -> tuple[Any, Any] | None:
        if mode is Mode.BASELINE:
            return None
        ranges = {n: FeatureRange(0.0, 1.0, "natural", "") for n in ("a", "b")}
        extra = {"ranges": ranges} if mode is Mode.SOUND else {}
        return example_series(), params_type(epsilon=1.0, mode=mode, **extra, **kw)
    return example


def series_entry(name: str, guarantee: Callable[..., Any], params_type: type,
                 fn: Callable[..., Any], summary: str, citation: str,
                 **example_kw: Any) -> Mechanism:
    """The registry entry of a series mechanism (each module's ``SPEC``)."""
    return Mechanism(name=name, level=Level.SERIES, params_type=params_type, run=_wrap(fn),
                     guarantee=guarantee, summary=summary, citation=citation,
                     partition_refusal=SERIES_REFUSAL,
                     example=_example(params_type, **example_kw))
