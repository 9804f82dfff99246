# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The planned record of a written release: what the privacy-budget ledger reserves before any
work. Part of :mod:`gazeprivacy.mechanisms.release`.

:func:`planned_guarantee` is the data-free privacy map on the public shape plus every budget the
written release spends on top of it (the pupil budget of ``pupil_epsilon``, block by block at
each recording's own unit length), with the seed policy of a written release
(:meth:`~gazeprivacy.guarantees.Guarantee.as_seeded_release`). The single-file writer
(:func:`~gazeprivacy.mechanisms.release.protect_file`) and the partition-wise engines use the
same function, so the plan and the written record are computed by one rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gazeprivacy.guarantees import Guarantee
from gazeprivacy.mechanisms.release.pupil import _block_samples, _Pupil

__all__ = ["planned_guarantee"]


def planned_guarantee(mechanism: str, params: Any, param_kwargs: Mapping[str, Any], shape: Any,
                      *, seed: int | None, pupil_epsilon: float | None = None,
                      pupil_range: Sequence[float] | None = None,
                      public: Iterable[str] = ()) -> tuple[Guarantee, list[str]]:
    """The record a written release will carry, from public parameters and shape only, and the
    participants it charges.

    Returns ``(record, participants)``: ``record.per_participant`` is keyed by raw id and
    includes the pupil budget (one block of each recording's own unit length per unit,
    sequential composition), exactly as :func:`~gazeprivacy.mechanisms.release.seal` adds it.

    >>> import numpy as np
    >>> from gazeprivacy.mechanisms.contract import sample_shape
    >>> from gazeprivacy.mechanisms.base import example_dataset
    >>> g, who = planned_guarantee("kaleido", None, {"epsilon": 1.0, "radius_deg": 1.0,
    ...     "window_samples": 50}, sample_shape(example_dataset(2)), seed=None,
    ...     pupil_epsilon=0.5, pupil_range=(2.0, 8.0))
    >>> g.epsilon, sorted(who) == sorted(g.per_participant)
    (1.5, True)
    """
    from gazeprivacy.mechanisms import MECHANISMS, build_params

    spec = MECHANISMS[mechanism]
    g = spec.guarantee(build_params(mechanism, params, **param_kwargs), shape)
    recordings = getattr(shape, "recordings", ())
    participants = list(getattr(shape, "participants", None) or
                        [r.participant for r in recordings])
    pupil = _Pupil.check(g, pupil_epsilon, pupil_range, frozenset(str(p) for p in public))
    if pupil is not None:
        blocks: dict[str, int] = {}
        for r in recordings:
            b = _block_samples(g, r.sampling_rate_hz)
            blocks[r.participant] = blocks.get(r.participant, 0) + -(-r.n_samples // b)
        g = pupil.record(g, blocks)
    return g.as_seeded_release(seed is not None), participants
