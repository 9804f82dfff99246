# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Protected pupil for a sealed release: :func:`protect_pupil` (block-mean Laplace at the
mechanism's unit) and the pupil policy that :func:`~gazeprivacy.mechanisms.release.seal` checks
and adds to the record. Part of :mod:`gazeprivacy.mechanisms.release`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.guarantees import Budget, Guarantee, Kind, Unit

__all__ = ["protect_pupil"]

_PUPIL_KINDS = (Kind.PURE_DP, Kind.APPROX_DP, Kind.LOCAL_DP, Kind.W_EVENT_DP)
#: How many pupil blocks (of one unit's length, aligned at row 0) one privacy unit can touch.
_BLOCKS_TOUCHED = {Unit.WINDOW: 1, Unit.W_WINDOW: 2}


def protect_pupil(pupil: np.ndarray, *, block_samples: int, epsilon_per_block: float,
                  pupil_range: tuple[float, float], rng: np.random.Generator) -> np.ndarray:
    """Block-mean Laplace release of a pupil series: epsilon_per_block-DP per block.

    Rows are cut into blocks of ``block_samples`` from row 0. Each block's value is the mean of
    its non-missing samples clipped to ``pupil_range = (lo, hi)`` (``(lo + hi) / 2`` when it has
    none), which lies in ``[lo, hi]`` whatever the block holds, so its sensitivity to any change
    inside one block (values or missing rows) is ``hi - lo``; Laplace noise of scale
    ``(hi - lo) / epsilon_per_block`` makes it epsilon_per_block-DP. The noisy mean, clipped to
    the range (post-processing), is written on every row of the block: no row is missing, so the
    pupil column carries no missing-sample mask.

    >>> out = protect_pupil(np.array([3.0, 3.2, np.nan, 9.0]), block_samples=2,
    ...                     epsilon_per_block=1.0, pupil_range=(2.0, 6.0),
    ...                     rng=np.random.default_rng(0))
    >>> out.shape, bool(np.isnan(out).any()), bool(((out >= 2) & (out <= 6)).all())
    ((4,), False, True)
    """
    lo, hi = pupil_range
    n = pupil.shape[0]
    n_blocks = -(-n // block_samples)
    padded = np.full(n_blocks * block_samples, np.nan)
    padded[:n] = np.clip(pupil, lo, hi)
    blocks = padded.reshape(n_blocks, block_samples)
    valid = ~np.isnan(blocks)
    counts = valid.sum(axis=1)
    sums = np.where(valid, blocks, 0.0).sum(axis=1)
    means = np.where(counts > 0, sums / np.maximum(counts, 1), (lo + hi) / 2)
    noisy = np.clip(means + rng.laplace(0.0, (hi - lo) / epsilon_per_block, n_blocks), lo, hi)
    return np.repeat(noisy, block_samples)[:n]


def _block_samples(g: Guarantee, sampling_rate_hz: float) -> int:
    """The mechanism's unit length in samples (its window), from the record's parameters."""
    p = g.parameters
    if p.get("window_s") is not None:
        return max(1, round(float(p["window_s"]) * sampling_rate_hz))
    if p.get("window_samples") is not None:
        return int(p["window_samples"])
    raise InvalidParameterError(f"{g.mechanism}'s record names no window (window_s or "
                                "window_samples); pupil_epsilon needs the unit's length")


@dataclass(frozen=True, slots=True)
class _Pupil:
    epsilon: float
    lo: float
    hi: float

    @classmethod
    def check(cls, g: Guarantee, epsilon: float | None, value_range: Sequence[float] | None,
              public: frozenset[str]) -> _Pupil | None:
        if epsilon is None:
            if value_range is not None:
                raise InvalidParameterError("pupil_range is given without pupil_epsilon; give "
                                            "both to protect pupil, or neither to drop it")
            return None
        if "pupil" in public:
            raise InvalidParameterError("pupil is declared public and given a pupil_epsilon; "
                                        "choose one")
        if not (math.isfinite(epsilon) and epsilon > 0):
            raise InvalidParameterError(f"pupil_epsilon must be > 0, got {epsilon!r}")
        if value_range is None or len(value_range) != 2:
            raise InvalidParameterError("pupil_epsilon needs pupil_range=(lo, hi), the declared "
                                        f"range of pupil diameters; got {value_range!r}")
        lo, hi = (float(v) for v in value_range)
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise InvalidParameterError(f"pupil_range must be finite with lo < hi, got "
                                        f"({lo!r}, {hi!r})")
        if g.kind not in _PUPIL_KINDS or g.unit not in _BLOCKS_TOUCHED:
            raise InvalidParameterError(
                f"pupil_epsilon applies to window or w-window DP mechanisms; {g.mechanism} is "
                f"{g.kind.value} per {g.unit.value}: drop pupil (the default) or declare it "
                "public (public=['pupil'])")
        return cls(float(epsilon), lo, hi)

    def record(self, g: Guarantee, blocks: Mapping[str, int]) -> Guarantee:
        touched = _BLOCKS_TOUCHED[g.unit]
        per_block = self.epsilon / touched
        rule = (f"pupil: block-mean Laplace, {per_block:g} per block of one {g.unit.value}'s "
                f"length; one {g.unit.value} touches at most {touched} block(s)")
        per_part = None
        if g.per_participant is not None:
            per_part = {pid: Budget(None if b.epsilon is None
                                    else b.epsilon + blocks.get(pid, 0) * per_block,
                                    b.delta, b.units, f"{b.rule}; + {blocks.get(pid, 0)} pupil "
                                    f"blocks at {per_block:g} (sequential composition)")
                        for pid, b in g.per_participant.items()}
        note = (f"pupil protected at pupil_epsilon = {self.epsilon:g} per {g.unit.value} "
                f"({rule}; declared range [{self.lo:g}, {self.hi:g}], clipped); the per-unit "
                "epsilon is gaze + pupil by sequential composition")
        return replace(g, epsilon=(g.epsilon or 0.0) + self.epsilon, per_participant=per_part,
                       parameters={**g.parameters, "pupil_epsilon": self.epsilon,
                                   "pupil_range": [self.lo, self.hi],
                                   "pupil_epsilon_per_block": per_block},
                       notes=(*g.notes, note))
