# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""What sample-level mechanisms share: the per-recording driver and a tiny example dataset.

The registry entry itself is :class:`gazeprivacy.mechanisms.contract.Mechanism`.

A sample-level mechanism module provides a frozen ``*Params`` dataclass, a ``guarantee(params,
...)`` privacy map that never reads the data, and a function ``(recording, params, *, rng) ->
Release[Recording]``. :func:`protect_recordings` runs such a function over a dataset with one
independent child generator per recording (so serial and parallel runs agree for one seed),
keeps the recordings, their order and row counts, and composes the per-participant guarantee.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.guarantees import Guarantee, Release
from gazeprivacy.rng import spawn

__all__ = ["example_dataset", "protect_recordings"]


def protect_recordings(
    dataset: Dataset,
    per_recording: Callable[[Recording, np.random.Generator], Release[Recording]],
    *,
    rng: np.random.Generator,
    units: Callable[[Recording], int],
    progress: bool = False,
    description: str = "protecting",
) -> Release[Dataset]:
    """Run a per-recording mechanism over ``dataset``; compose the guarantee per participant.

    ``units(recording)`` is the public count of privacy units in a recording (e.g. windows); the
    records of all recordings must agree apart from their per-participant part.
    """
    if len(dataset) == 0:
        raise InvalidDataError(f"dataset {dataset.name!r} has no recordings")
    rngs = spawn(rng, len(dataset))
    out: list[Recording] = []
    record: Guarantee | None = None
    iterator = _track(dataset.recordings, progress, description)
    for rec, child in zip(iterator, rngs, strict=True):
        rel = per_recording(rec, child)
        if rel.output.n_samples != rec.n_samples:
            raise AssertionError(f"{rel.guarantee.mechanism} changed the row count of "
                                 f"{rec.recording!r}")
        out.append(rel.output)
        # the first record, with every flag that any recording raised (a flag raised only by
        # a later recording, e.g. for its sampling rate, must not be dropped)
        record = rel.guarantee if record is None else record.with_flags(*rel.guarantee.flags)
    assert record is not None
    record = record.compose(dataset.units_per_participant(units))
    return Release(Dataset(tuple(out), name=dataset.name, info=dataset.info), record)


def example_dataset(n_participants: int = 4, duration_s: float = 2.0) -> Dataset:
    """A tiny simulated dataset (one reading recording per participant, 100 Hz, with geometry)
    for examples and the common contract test."""
    from gazeprivacy.data.simulate import simulate_dataset

    return simulate_dataset(n_participants=n_participants, tasks=("reading",),
                            duration_s=duration_s, sampling_rate_hz=100,
                            rng=np.random.default_rng(0))


def _track(items: Any, progress: bool, description: str) -> Any:
    if not progress:
        return items
    from rich.progress import track

    return track(items, description=description, transient=True)
