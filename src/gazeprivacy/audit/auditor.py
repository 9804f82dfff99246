# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""A black-box statistical privacy auditor in the style of DP-Sniper and DP-Auditorium.

Bichsel, Steffen, Bogunovic, Vechev. DP-Sniper: black-box discovery of differential privacy
violations using classifiers. IEEE S&P 2021. Kong, Muñoz Medina, Ribero, Syed. DP-Auditorium: a
large-scale library for auditing differential privacy. IEEE S&P 2024. Neither is installable
here, so this module is a small re-implementation of their common core.

For two neighbouring inputs ``a`` and ``b`` of a mechanism ``M``, an ``(epsilon, delta)``
guarantee promises ``P[M(a) in E] <= exp(epsilon) P[M(b) in E] + delta`` for *every* event
``E`` (and with ``a`` and ``b`` swapped). :func:`audit` draws ``n_trials`` outputs from each
input, chooses a distinguishing event ``E`` on the first half of the draws (an *event search*:
thresholds on a 1-D statistic, likelihood-ratio-ordered unions of histogram bins, or a logistic
regression score as in DP-Sniper), and counts ``E`` on the second, untouched half. One-sided
Clopper-Pearson bounds, each at ``1 - (1 - confidence) / 2`` (Bonferroni), give with probability at
least ``confidence``

    epsilon >= ln((p_a_lower - delta) / p_b_upper) =: epsilon_lower_bound.

The audit *passes* when ``epsilon_lower_bound <= claimed_epsilon``; a failure means the claim is
violated at the stated confidence (the false-alarm rate of a sound mechanism is at most
``1 - confidence``). A pass is no proof of privacy: it only says that this event, on this pair,
found no violation.

Samplers are vectorised: ``sample(n, rng)`` returns ``n`` outputs at once as an array whose first
axis indexes draws (any trailing shape), or already-reduced *features* ``(n,)`` / ``(n, k)``;
a ``features`` map can reduce raw outputs batch by batch so that large outputs never pile up.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from scipy import stats

from gazeprivacy._validation import check_int, check_range
from gazeprivacy.exceptions import InvalidParameterError

__all__ = [
    "AuditResult",
    "AutoSearch",
    "BestOfSearch",
    "ClassifierSearch",
    "Event",
    "EventSearch",
    "HistogramSearch",
    "ThresholdSearch",
    "audit",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "epsilon_lower_bound",
]

Sampler = Callable[[int, np.random.Generator], np.ndarray]


# --------------------------------------------------------------------------------------------
# Clopper-Pearson bounds and the epsilon lower bound


def clopper_pearson_lower(k: Any, n: Any, alpha: float) -> np.ndarray:
    """One-sided ``1 - alpha`` Clopper-Pearson lower bound on a binomial proportion.

    Examples
    --------
    >>> round(float(clopper_pearson_lower(50, 100, 0.05)), 4)
    0.4136
    >>> float(clopper_pearson_lower(0, 100, 0.05))
    0.0
    """
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = stats.beta.ppf(alpha, np.maximum(k, 1e-300), n - k + 1)
    return np.where(k <= 0, 0.0, lo)


def clopper_pearson_upper(k: Any, n: Any, alpha: float) -> np.ndarray:
    """One-sided ``1 - alpha`` Clopper-Pearson upper bound on a binomial proportion.

    Examples
    --------
    >>> round(float(clopper_pearson_upper(0, 100, 0.05)), 4)
    0.0295
    """
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        hi = stats.beta.isf(alpha, k + 1, np.maximum(n - k, 1e-300))
    return np.where(k >= n, 1.0, hi)


def epsilon_lower_bound(k_a: Any, n_a: Any, k_b: Any, n_b: Any, *, delta: float = 0.0,
                        confidence: float = 0.99) -> np.ndarray:
    """``ln((p_a_lower - delta) / p_b_upper)``, clipped at 0, holding with ``confidence``.

    ``k_a`` of ``n_a`` draws from input ``a`` fell in the event, ``k_b`` of ``n_b`` from ``b``.
    The two one-sided bounds each take half of ``1 - confidence`` (Bonferroni).

    Examples
    --------
    >>> round(float(epsilon_lower_bound(5000, 10000, 1000, 10000)), 3)  # true ln 5 = 1.609
    1.507
    >>> float(epsilon_lower_bound(10, 10000, 10, 10000))
    0.0
    """
    return _eps_lb(k_a, n_a, k_b, n_b, delta, (1.0 - confidence) / 2.0)


def _eps_lb(k_a: Any, n_a: Any, k_b: Any, n_b: Any, delta: float, alpha: float) -> np.ndarray:
    pa = clopper_pearson_lower(k_a, n_a, alpha) - delta
    pb = clopper_pearson_upper(k_b, n_b, alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.log(np.where(pa > 0, pa, 1.0) / pb)
    return np.where(pa > 0, np.maximum(eps, 0.0), 0.0)


# --------------------------------------------------------------------------------------------
# Events and event searches


@dataclass(frozen=True, slots=True)
class Event:
    """A set of outputs, given by its indicator over a feature array.

    ``favours`` names the input under which the event is (empirically) more likely: the
    epsilon bound is ``P_favoured(E) / P_other(E)``.
    """

    description: str
    contains: Callable[[np.ndarray], np.ndarray]
    favours: str = "a"


class EventSearch(Protocol):
    """Choose an event from selection draws ``xa``, ``xb`` (2-D feature arrays)."""

    def __call__(self, xa: np.ndarray, xb: np.ndarray, *, delta: float,
                 confidence: float) -> Event: ...


def _score(ev: Event, xa: np.ndarray, xb: np.ndarray, delta: float, confidence: float) -> float:
    ka, kb = int(ev.contains(xa).sum()), int(ev.contains(xb).sum())
    if ev.favours == "b":
        ka, kb = kb, ka
    return float(epsilon_lower_bound(ka, len(xa), kb, len(xb), delta=delta,
                                     confidence=confidence))


@dataclass(frozen=True)
class ThresholdSearch:
    """Events ``{s > t}`` and ``{s <= t}`` on one column ``s`` of the features, for ``t`` at
    ``n_thresholds`` pooled quantiles, either input favoured; keep the one with the largest
    epsilon lower bound on the selection draws (DP-Sniper's threshold step)."""

    column: int = 0
    n_thresholds: int = 256

    def __call__(self, xa: np.ndarray, xb: np.ndarray, *, delta: float,
                 confidence: float) -> Event:
        col = self.column
        sa, sb = np.sort(xa[:, col]), np.sort(xb[:, col])
        qs = np.linspace(0.0, 1.0, self.n_thresholds + 2)[1:-1]
        pooled = np.concatenate([sa, sb])
        distinct = np.unique(pooled)
        ts = distinct if len(distinct) <= self.n_thresholds else np.unique(
            np.quantile(pooled, qs))
        na, nb = len(sa), len(sb)
        ga = na - np.searchsorted(sa, ts, side="right")  # counts of s > t
        gb = nb - np.searchsorted(sb, ts, side="right")
        cands = {
            ("gt", "a"): epsilon_lower_bound(ga, na, gb, nb, delta=delta, confidence=confidence),
            ("gt", "b"): epsilon_lower_bound(gb, nb, ga, na, delta=delta, confidence=confidence),
            ("le", "a"): epsilon_lower_bound(na - ga, na, nb - gb, nb, delta=delta,
                                             confidence=confidence),
            ("le", "b"): epsilon_lower_bound(nb - gb, nb, na - ga, na, delta=delta,
                                             confidence=confidence),
        }
        (side, fav), vals = max(cands.items(), key=lambda kv: float(np.max(kv[1])))
        t = float(ts[int(np.argmax(vals))])
        if side == "gt":
            return Event(f"feature[{col}] > {t:.6g}", lambda x: x[:, col] > t, fav)
        return Event(f"feature[{col}] <= {t:.6g}", lambda x: x[:, col] <= t, fav)


def _row_keys(x: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(x, dtype=np.float64)
    x = np.where(x == 0.0, 0.0, x)  # -0.0 and 0.0 are one category
    return x.view(np.dtype((np.void, x.dtype.itemsize * x.shape[1]))).ravel()


@dataclass(frozen=True)
class HistogramSearch:
    """Likelihood-ratio-ordered unions of histogram cells (a Neyman-Pearson style event).

    Discrete features (at most ``max_categories`` distinct rows among the selection draws) use
    their distinct rows as cells; otherwise column ``column`` is cut at ``n_bins`` pooled
    quantiles. Cells are sorted by the empirical ratio ``(c_a + 1/2) / (c_b + 1/2)``; every prefix
    (and every prefix of the reverse order, favouring ``b``) is a candidate; the candidate with the
    largest epsilon lower bound on the selection draws wins. Cells never seen in the selection
    draws are outside the event.
    """

    n_bins: int = 32
    max_categories: int = 64
    column: int = 0

    def __call__(self, xa: np.ndarray, xb: np.ndarray, *, delta: float,
                 confidence: float) -> Event:
        ka, kb = _row_keys(xa), _row_keys(xb)
        cats = np.unique(np.concatenate([ka, kb]))
        if len(cats) <= self.max_categories:
            ia, ib = np.searchsorted(cats, ka), np.searchsorted(cats, kb)
            ncat = len(cats)
            rows = np.concatenate([xa, xb])[np.unique(np.concatenate([ka, kb]),
                                                      return_index=True)[1]]

            def cell(x: np.ndarray) -> np.ndarray:
                k = _row_keys(x)
                i = np.clip(np.searchsorted(cats, k), 0, ncat - 1)
                return np.where(cats[i] == k, i, -1)

            def name(i: int) -> str:
                return "(" + ", ".join(f"{v:.4g}" for v in rows[i]) + ")"
        else:
            col = self.column
            pooled = np.concatenate([xa[:, col], xb[:, col]])
            edges = np.unique(np.quantile(pooled, np.linspace(0, 1, self.n_bins + 1)[1:-1]))
            ncat = len(edges) + 1

            def cell(x: np.ndarray) -> np.ndarray:
                return np.searchsorted(edges, x[:, col], side="right")

            ia, ib = cell(xa), cell(xb)
            lo = np.concatenate([[-np.inf], edges])
            hi = np.concatenate([edges, [np.inf]])

            def name(i: int) -> str:
                return f"feature[{col}] in ({lo[i]:.4g}, {hi[i]:.4g}]"

        ca = np.bincount(ia[ia >= 0], minlength=ncat).astype(float)
        cb = np.bincount(ib[ib >= 0], minlength=ncat).astype(float)
        ratio = (ca + 0.5) / (cb + 0.5)
        best: tuple[float, str, np.ndarray] = (-1.0, "a", np.array([0]))
        for fav, order in (("a", np.argsort(-ratio, kind="stable")),
                           ("b", np.argsort(ratio, kind="stable"))):
            cum_a, cum_b = np.cumsum(ca[order]), np.cumsum(cb[order])
            if fav == "a":
                vals = epsilon_lower_bound(cum_a, len(xa), cum_b, len(xb), delta=delta,
                                           confidence=confidence)
            else:
                vals = epsilon_lower_bound(cum_b, len(xb), cum_a, len(xa), delta=delta,
                                           confidence=confidence)
            j = int(np.argmax(vals))
            if vals[j] > best[0]:
                best = (float(vals[j]), fav, order[: j + 1].copy())
        _, fav, chosen = best
        member = np.zeros(ncat, dtype=bool)
        member[chosen] = True
        names = [name(int(i)) for i in chosen[:4]]
        desc = "union of cells " + ", ".join(names) + (
            f" and {len(chosen) - 4} more" if len(chosen) > 4 else "")

        def contains(x: np.ndarray) -> np.ndarray:
            c = cell(x)
            return (c >= 0) & member[np.maximum(c, 0)]

        return Event(desc, contains, fav)


@dataclass(frozen=True)
class ClassifierSearch:
    """DP-Sniper's classifier step: a logistic regression learns ``P(input = a | features)`` on
    one part of the selection draws, and a :class:`ThresholdSearch` on its score on the other
    part picks the event."""

    train_fraction: float = 0.5
    n_thresholds: int = 256

    def __call__(self, xa: np.ndarray, xb: np.ndarray, *, delta: float,
                 confidence: float) -> Event:
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        ma, mb = int(len(xa) * self.train_fraction), int(len(xb) * self.train_fraction)
        x = np.concatenate([xa[:ma], xb[:mb]])
        y = np.concatenate([np.ones(ma), np.zeros(mb)])
        model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=500))
        model.fit(x, y)

        def score(z: np.ndarray) -> np.ndarray:
            return model.decision_function(z)[:, None]

        inner = ThresholdSearch(n_thresholds=self.n_thresholds)(
            score(xa[ma:]), score(xb[mb:]), delta=delta, confidence=confidence)
        return Event("logistic score: " + inner.description.replace("feature[0]", "score"),
                     lambda z: inner.contains(score(z)), inner.favours)


@dataclass(frozen=True)
class BestOfSearch:
    """Choose among several searches by an inner hold-out, then rerun the winner.

    Each search picks an event on the first half of the selection draws; the events are scored
    on the second half (so that a flexible search cannot win by over-fitting noise); the winning
    search is then rerun on all selection draws.
    """

    searches: tuple[EventSearch, ...]

    def __call__(self, xa: np.ndarray, xb: np.ndarray, *, delta: float,
                 confidence: float) -> Event:
        if len(self.searches) == 1:
            return self.searches[0](xa, xb, delta=delta, confidence=confidence)
        ha, hb = len(xa) // 2, len(xb) // 2
        scores = [_score(s(xa[:ha], xb[:hb], delta=delta, confidence=confidence),
                         xa[ha:], xb[hb:], delta, confidence) for s in self.searches]
        best = self.searches[int(np.argmax(scores))]
        return best(xa, xb, delta=delta, confidence=confidence)


@dataclass(frozen=True)
class AutoSearch:
    """The default: a histogram over distinct rows for discrete features; thresholds and
    quantile histograms on each column of continuous features, plus a logistic score when there
    are several columns."""

    max_categories: int = 64

    def __call__(self, xa: np.ndarray, xb: np.ndarray, *, delta: float,
                 confidence: float) -> Event:
        n_distinct = len(np.unique(np.concatenate([_row_keys(xa), _row_keys(xb)])))
        if n_distinct <= self.max_categories:
            return HistogramSearch(max_categories=self.max_categories)(
                xa, xb, delta=delta, confidence=confidence)
        searches: list[EventSearch] = []
        for c in range(xa.shape[1]):
            searches += [ThresholdSearch(column=c), HistogramSearch(column=c, max_categories=0)]
        if xa.shape[1] > 1:
            searches.append(ClassifierSearch())
        return BestOfSearch(tuple(searches))(xa, xb, delta=delta, confidence=confidence)


# --------------------------------------------------------------------------------------------
# The audit


@dataclass(frozen=True, kw_only=True)
class AuditResult:
    """The outcome of one audit of one neighbouring pair.

    ``epsilon_lower_bound`` holds with probability ``confidence``; ``passed`` is
    ``epsilon_lower_bound <= claimed_epsilon``. ``p_value`` is the smallest ``1 - confidence`` at
    which the bound would exceed the claim (1 when it never does): the significance of a failure.
    """

    claimed_epsilon: float
    claimed_delta: float
    epsilon_lower_bound: float
    epsilon_estimate: float
    confidence: float
    n_trials: int
    n_test: int
    count_favoured: int
    count_other: int
    p_favoured_lower: float
    p_other_upper: float
    event: str
    favours: str
    p_value: float
    label: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.epsilon_lower_bound <= self.claimed_epsilon

    def to_row(self) -> dict[str, Any]:
        """A flat dict for tables."""
        return {
            "label": self.label, "claimed_epsilon": self.claimed_epsilon,
            "claimed_delta": self.claimed_delta,
            "epsilon_lower_bound": round(self.epsilon_lower_bound, 4),
            "epsilon_estimate": round(self.epsilon_estimate, 4),
            "passed": self.passed, "p_value": self.p_value, "n_trials": self.n_trials,
            "confidence": self.confidence, "event": self.event,
        }


def _draw(sample: Sampler, n: int, rng: np.random.Generator,
          features: Callable[[np.ndarray], np.ndarray] | None, batch_size: int) -> np.ndarray:
    parts: list[np.ndarray] = []
    done = 0
    while done < n:
        m = min(batch_size, n - done)
        out = np.asarray(sample(m, rng))
        if out.shape[:1] != (m,):
            raise InvalidParameterError(
                f"sampler must return {m} draws along axis 0, got shape {out.shape}")
        f = np.asarray(features(out) if features is not None else out, dtype=np.float64)
        parts.append(f.reshape(m, -1))
        done += m
    return np.concatenate(parts)


def _p_value(ka: int, na: int, kb: int, nb: int, delta: float, claimed: float) -> float:
    """Smallest alpha with ``epsilon_lower_bound(confidence = 1 - alpha) > claimed``."""
    def violates(alpha: float) -> bool:
        return bool(_eps_lb(ka, na, kb, nb, delta, alpha / 2.0) > claimed)

    if not violates(1.0):
        return 1.0
    lo, hi = -300.0, 0.0  # log10 alpha: bisection on a monotone predicate
    if violates(10.0 ** lo):
        return 0.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if violates(10.0**mid):
            hi = mid
        else:
            lo = mid
    return float(10.0**hi)


def audit(sample_a: Sampler, sample_b: Sampler, *, n_trials: int, claimed_epsilon: float,
          claimed_delta: float = 0.0, event_search: EventSearch | None = None,
          features: Callable[[np.ndarray], np.ndarray] | None = None,
          confidence: float = 0.99, rng: np.random.Generator, batch_size: int = 100_000,
          label: str = "", selection_fraction: float = 0.5) -> AuditResult:
    """Audit one neighbouring pair: is ``claimed_epsilon`` (with ``claimed_delta``) violated?

    Parameters
    ----------
    sample_a, sample_b : callable ``(n, rng) -> array``
        ``n`` independent outputs of the mechanism on input ``a`` and on its neighbour ``b``.
    n_trials : int
        Draws per input (>= 20); ``selection_fraction`` of them choose the event, the rest test.
    claimed_epsilon, claimed_delta : float
        The guarantee to test, from the mechanism's own guarantee record.
    event_search : EventSearch, optional
        How to choose the event; default :class:`AutoSearch`.
    features : callable, optional
        Reduces a batch of raw outputs to a ``(n,)`` or ``(n, k)`` feature array.
    confidence : float in (0, 1)
        Confidence of the lower bound (Bonferroni-split over the two Clopper-Pearson bounds).
    rng : numpy.random.Generator
        Source of the draws; four independent child streams are spawned from it.

    Returns
    -------
    AuditResult

    Raises
    ------
    InvalidParameterError
        For ``n_trials < 20``, a confidence outside (0, 1), or a sampler that returns the wrong
        number of draws.

    Examples
    --------
    >>> import numpy as np
    >>> def lap(mu):  # epsilon-DP for |mu_a - mu_b| <= 1 at scale 1 / epsilon
    ...     return lambda n, rng: rng.laplace(mu, 1.0, size=n)
    >>> r = audit(lap(0.0), lap(1.0), n_trials=20_000, claimed_epsilon=1.0,
    ...           rng=np.random.default_rng(0))
    >>> r.passed, 0.7 < r.epsilon_lower_bound <= 1.0
    (True, True)
    """
    check_int(n_trials=n_trials, minimum=20)
    check_range(confidence=confidence, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    check_range(selection_fraction=selection_fraction, lo=0.0, hi=1.0, lo_open=True,
                hi_open=True)
    if not (math.isfinite(claimed_epsilon) and claimed_epsilon >= 0):
        raise InvalidParameterError(f"claimed_epsilon must be >= 0 and finite, "
                                    f"got {claimed_epsilon!r}")
    check_range(claimed_delta=claimed_delta, lo=0.0, hi=1.0, hi_open=True)
    search = event_search if event_search is not None else AutoSearch()
    n_sel = max(10, int(n_trials * selection_fraction))
    n_test = n_trials - n_sel
    if n_test < 10:
        raise InvalidParameterError(f"n_trials={n_trials} leaves {n_test} test draws; use more")
    ra_sel, rb_sel, ra_test, rb_test = rng.spawn(4)
    xa = _draw(sample_a, n_sel, ra_sel, features, batch_size)
    xb = _draw(sample_b, n_sel, rb_sel, features, batch_size)
    event = search(xa, xb, delta=claimed_delta, confidence=confidence)
    ta = _draw(sample_a, n_test, ra_test, features, batch_size)
    tb = _draw(sample_b, n_test, rb_test, features, batch_size)
    ka, kb = int(event.contains(ta).sum()), int(event.contains(tb).sum())
    if event.favours == "b":
        ka, kb = kb, ka
    alpha = (1.0 - confidence) / 2.0
    eps_lb = float(epsilon_lower_bound(ka, n_test, kb, n_test, delta=claimed_delta,
                                       confidence=confidence))
    num = ka / n_test - claimed_delta
    with np.errstate(divide="ignore"):
        est = float(np.log(np.float64(num) / np.float64(kb / n_test))) if num > 0 else 0.0
    return AuditResult(
        claimed_epsilon=float(claimed_epsilon), claimed_delta=float(claimed_delta),
        epsilon_lower_bound=eps_lb, epsilon_estimate=est, confidence=confidence,
        n_trials=n_trials, n_test=n_test, count_favoured=ka, count_other=kb,
        p_favoured_lower=float(clopper_pearson_lower(ka, n_test, alpha)),
        p_other_upper=float(clopper_pearson_upper(kb, n_test, alpha)),
        event=event.description, favours=event.favours,
        p_value=_p_value(ka, n_test, kb, n_test, claimed_delta, claimed_epsilon), label=label,
    )
