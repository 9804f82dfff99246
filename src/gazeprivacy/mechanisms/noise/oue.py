# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Optimized Unary Encoding (OUE): epsilon-LDP frequency oracle over a domain of size ``d``.

Wang, Blocki, Li, Jha. Locally differentially private protocols for frequency estimation.
USENIX Security 2017, section 4.3.

Client: one-hot encode the value, keep its bit at 1 with probability 1/2 and set every other bit
to 1 with probability ``q = 1 / (e^epsilon + 1)``. A report is *sparse*: the indices of its 1
bits. Curator: column sums ``g`` of ``n`` reports; unbiased estimate
``(g - n q) / (1/2 - q)``, variance ``n 4 e^eps / (e^eps - 1)^2`` for a value of count 0
(seed 000 eq. 5; the exact variance adds ``c (1/4 - q(1-q)) / (1/2 - q)^2`` for true count
``c``).

Two paths that agree in distribution (tested):

* :func:`oue_encode` / :func:`oue_aggregate`: real client reports, for deployment and tests.
  One report costs O(d) (each of the d bits is a Bernoulli draw).
* :func:`oue_curator_view`: the column sums sampled directly in O(d) from the true counts ``c``,
  ``Binomial(c, 1/2) + Binomial(n - c, q)`` -- exactly the distribution of the sums of ``n``
  independent reports, never an ``n x d`` matrix. Used for dataset-scale simulation.

Sampler status: ``Generator.random`` / ``Generator.binomial``; randomised response samples a
Bernoulli from a double compared with ``q``, which rounds ``q`` to the nearest ``2^-53`` -- a
negligible change of the budget (ratio error < 2^-50), not the Mironov issue of continuous noise.
OpenDP's ``make_randomized_response_bitvec`` flips bits symmetrically and is not OUE, so it is not
used. See ``docs/privacy/noise.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gazeprivacy._validation import check_int, check_positive
from gazeprivacy.exceptions import InvalidDataError

__all__ = [
    "OUEReports",
    "oue_aggregate",
    "oue_curator_view",
    "oue_encode",
    "oue_estimate",
    "oue_q",
    "oue_variance",
]


def oue_q(*, epsilon: float) -> float:
    """Probability ``q = 1 / (e^epsilon + 1)`` that a 0 bit is reported as 1.

    >>> round(oue_q(epsilon=math.log(3.0)), 6)
    0.25
    """
    check_positive(epsilon=epsilon)
    e = math.exp(-epsilon)  # the form e^-eps / (1 + e^-eps) cannot overflow
    return e / (1.0 + e)


def oue_variance(*, n: int, epsilon: float, true_count: float = 0.0) -> float:
    """Variance of one OUE estimate from ``n`` reports (exact, including the ``c`` term).

    With ``true_count = 0`` this is seed 000's eq. (5), ``n 4 e^eps / (e^eps - 1)^2``.

    >>> e = math.e
    >>> math.isclose(oue_variance(n=10, epsilon=1.0), 10 * 4 * e / (e - 1) ** 2)
    True
    """
    q = oue_q(epsilon=epsilon)
    p = 0.5
    return (true_count * p * (1 - p) + (n - true_count) * q * (1 - q)) / (p - q) ** 2


@dataclass(frozen=True, slots=True)
class OUEReports:
    """``n`` sparse OUE reports in CSR form: report ``i`` has 1 bits at
    ``indices[indptr[i]:indptr[i + 1]]``."""

    indptr: np.ndarray
    indices: np.ndarray
    domain_size: int
    epsilon: float

    @property
    def n(self) -> int:
        return int(self.indptr.shape[0] - 1)

    def report(self, i: int) -> np.ndarray:
        """The 1-bit indices of report ``i``."""
        return self.indices[self.indptr[i]:self.indptr[i + 1]]


def oue_encode(values: np.ndarray, *, domain_size: int, epsilon: float,
               rng: np.random.Generator, chunk: int = 64) -> OUEReports:
    """Client side: one sparse OUE report per value (what each client would send).

    Parameters
    ----------
    values : array of int in ``[0, domain_size)``
    domain_size : int, >= 2
    epsilon : float, > 0
        Budget of each report.
    rng : numpy.random.Generator
    chunk : int
        Reports perturbed per vectorised block (memory ``chunk x domain_size``). The output
        does not depend on it (the uniforms are consumed row by row); 64 keeps a block in
        cache and is about 1.5 x faster than 256 at ``d = 7201``.

    Raises
    ------
    InvalidDataError
        A value outside the domain.

    Examples
    --------
    >>> rep = oue_encode(np.array([0, 3]), domain_size=4, epsilon=50.0,
    ...                  rng=np.random.default_rng(0))
    >>> rep.n, [int(i) for i in rep.report(1) if i != 3]
    (2, [])
    """
    d = check_int(domain_size=domain_size, minimum=2)
    q = oue_q(epsilon=epsilon)
    values = np.asarray(values, dtype=np.int64).ravel()
    if values.size and (values.min() < 0 or values.max() >= d):
        raise InvalidDataError(
            f"OUE values must be in [0, {d}), got range [{values.min()}, {values.max()}]")
    parts: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    for start in range(0, values.size, chunk):
        v = values[start:start + chunk]
        u = rng.random((v.size, d))
        bits = u < q
        rows = np.arange(v.size)
        bits[rows, v] = u[rows, v] < 0.5
        r, c = np.nonzero(bits)
        parts.append(c.astype(np.int64))
        counts.append(np.bincount(r, minlength=v.size))
    indices = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    per = np.concatenate(counts) if counts else np.zeros(0, np.int64)
    indptr = np.concatenate([[0], np.cumsum(per)]).astype(np.int64)
    return OUEReports(indptr=indptr, indices=indices, domain_size=d, epsilon=float(epsilon))


def oue_aggregate(reports: OUEReports) -> np.ndarray:
    """Curator side: unbiased frequency estimates from real reports.

    >>> rep = oue_encode(np.zeros(5, int), domain_size=3, epsilon=1.0, rng=np.random.default_rng(0))
    >>> oue_aggregate(rep).shape
    (3,)
    """
    sums = np.bincount(reports.indices, minlength=reports.domain_size).astype(np.float64)
    return oue_estimate(sums, n=reports.n, epsilon=reports.epsilon)


def oue_curator_view(true_counts: np.ndarray, *, epsilon: float,
                     rng: np.random.Generator) -> np.ndarray:
    """Column sums of ``n = sum(true_counts)`` OUE reports, sampled in O(d).

    Exactly distributed as the column sums of :func:`oue_encode` on values with these counts:
    ``Binomial(c, 1/2) + Binomial(n - c, q)`` per index.

    >>> s = oue_curator_view(np.array([3, 0, 1]), epsilon=1.0, rng=np.random.default_rng(0))
    >>> s.shape, bool((s >= 0).all() and (s <= 4).all())
    ((3,), True)
    """
    c = np.asarray(true_counts, dtype=np.int64)
    if c.size and c.min() < 0:
        raise InvalidDataError("OUE true counts must be >= 0")
    n = int(c.sum())
    q = oue_q(epsilon=epsilon)
    return (rng.binomial(c, 0.5) + rng.binomial(n - c, q)).astype(np.float64)


def oue_estimate(column_sums: np.ndarray, *, n: int, epsilon: float) -> np.ndarray:
    """Unbiased estimate ``(g - n q) / (1/2 - q)`` (seed 000 eq. 4) from column sums ``g``.

    >>> oue_estimate(np.array([5.0]), n=10, epsilon=800.0).round(6).tolist()
    [10.0]
    """
    q = oue_q(epsilon=epsilon)
    return (np.asarray(column_sums, dtype=np.float64) - n * q) / (0.5 - q)
