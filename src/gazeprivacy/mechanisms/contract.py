# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The one mechanism contract: what every registered mechanism is, whatever its level.

A mechanism is a :class:`Mechanism` entry in :data:`gazeprivacy.mechanisms.MECHANISMS`. It
names

* its **level** (:class:`Level`): what it takes and returns -- a :class:`~gazeprivacy.data.
  Dataset` of gaze samples (``samples``, ``events``), feature series (``series``) or per-observer
  gaze maps (``heatmap``);
* its **parameters**: a frozen keyword-only dataclass whose ``mode`` is a :class:`Mode` (sound by
  default; ``paper`` only when asked for) and whose privacy parameters have no defaults;
* its **privacy map** ``guarantee(params, shape)``: the record, composed per participant, from
  the parameters and the input's *public shape* (:meth:`Level.shape_of`) alone -- never the data;
* its **run** ``run(data, params, *, rng, progress) -> Release``;
* optionally its **phases** ``plan(params) -> PartitionPlan``: the public client / curate /
  release split that the partition-wise engines run (and that a device / curator deployment
  runs); a mechanism without phases says why in ``partition_refusal``;
* optionally an **audit** ``audit_case(mode) -> AuditCase`` (built in ``gazeprivacy.audit``
  from the mechanism's own neighbouring relation and the real ``run``).

``protect``, the engines, the auditor, the experiment runner and the CLI reach a mechanism only
through this entry; no module outside ``mechanisms/`` imports a private name of a mechanism.
See ``docs/architecture.md`` for the checklist of adding one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

import numpy as np

from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.guarantees import Guarantee, Release

__all__ = [
    "Level",
    "Mechanism",
    "Mode",
    "PartitionPlan",
    "RecordingShape",
    "SampleShape",
    "sample_shape",
]

InputT = TypeVar("InputT")
ParamsT = TypeVar("ParamsT")


class Mode(StrEnum):
    """How a mechanism follows its paper.

    ``SOUND`` (every mechanism's default): the paper's method with its gaps fixed.
    ``PAPER``: as printed, with the gaps flagged in the record. ``BASELINE``: a reference release
    that is not private at all (the noise-free and random-selection heatmaps).
    """

    SOUND = "sound"
    PAPER = "paper"
    BASELINE = "baseline"


class Level(StrEnum):
    """What a mechanism protects: the type of its input and output."""

    SAMPLES = "samples"   # Dataset of gaze samples -> Dataset, same recordings and rows
    EVENTS = "events"     # Dataset -> Dataset, via fitted fixation / saccade models
    SERIES = "series"     # feature series (list or table) -> the same kind
    HEATMAP = "heatmap"   # GazeMaps of one stimulus -> AggregateMap


@dataclass(frozen=True, slots=True)
class RecordingShape:
    """The public shape of one recording: what a privacy map may read about it."""

    recording: str
    participant: str
    n_samples: int
    sampling_rate_hz: float
    geometry: Geometry | None
    labels: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SampleShape:
    """The public shape of a sample-level dataset (ids, lengths, rates, geometry, labels)."""

    recordings: tuple[RecordingShape, ...]

    def units_per_participant(self, per_recording: Callable[[RecordingShape], int]
                              ) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.recordings:
            out[r.participant] = out.get(r.participant, 0) + int(per_recording(r))
        return out


def sample_shape(dataset: Dataset) -> SampleShape:
    """The public shape of ``dataset`` (no gaze value is read)."""
    return SampleShape(tuple(
        RecordingShape(r.recording, r.participant, r.n_samples, r.sampling_rate_hz, r.geometry,
                       dict(r.labels)) for r in dataset.recordings))


@runtime_checkable
class PartitionPlan(Protocol):
    """A mechanism in three public phases; engines and deployments run these and nothing else.

    1. ``client(part, rng) -> (state, message)`` on each partition (a device's own data): all
       perturbation happens here; the state stays with the partition, the message (small,
       already private) goes to the curator.
    2. ``curate(messages, rng) -> model`` once, over all messages in partition order.
    3. ``release(part, state, model, rng) -> Release[Dataset]`` on each partition again.

    ``two_phase`` is False when client and curator do nothing (engines may skip phase 1). An
    optional ``merge(messages) -> message`` with ``curate([merge(ms)]) == curate(ms)`` lets
    engines fold messages as they arrive.
    """

    mechanism: str
    two_phase: bool

    def client(self, part: Dataset, rng: np.random.Generator) -> tuple[Any, Any]: ...

    def curate(self, messages: Sequence[Any], rng: np.random.Generator) -> Any: ...

    def release(self, part: Dataset, state: Any, model: Any,
                rng: np.random.Generator) -> Release[Dataset]: ...


@dataclass(frozen=True, kw_only=True)
class Mechanism(Generic[InputT, ParamsT]):
    """A registry entry; see the module docstring for what each field promises."""

    name: str
    level: Level
    params_type: type[ParamsT]
    run: Callable[..., Release[Any]]
    guarantee: Callable[[ParamsT, Any], Guarantee]
    summary: str
    citation: str = ""
    plan: Callable[[ParamsT], PartitionPlan] | None = None
    partition_refusal: str = ""
    audit_case: Callable[[Mode], Any] | None = None

    def protect(self, data: InputT, params: ParamsT, *, rng: np.random.Generator,
                progress: bool = False) -> Release[Any]:
        """Run the mechanism after checking that ``params`` is this mechanism's type."""
        if not isinstance(params, self.params_type):
            raise InvalidParameterError(
                f"params for {self.name!r} must be a {self.params_type.__name__}, got "
                f"{type(params).__name__}")
        return self.run(data, params, rng=rng, progress=progress)
