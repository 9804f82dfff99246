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
* optionally an **example** ``example(mode) -> (data, params)``: a tiny input that the common
  contract test runs and from which ``gazeprivacy.audit`` derives a whole-release audit;
* whether its output is a **synthetic population** (``synthetic_population=True``): a new set
  of synthetic participants and recordings whose structure (ids, counts, lengths, labels) is
  set by the parameters and the public shape, instead of the input's recordings with their row
  counts (the common contract test checks the one or the other).

``protect``, the engines, the auditor, the experiment runner and the CLI reach a mechanism only
through this entry; no module outside ``mechanisms/`` imports a private name of a mechanism.
See ``docs/architecture.md`` for the checklist of adding one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, runtime_checkable

import numpy as np
import polars as pl

from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.guarantees import Guarantee, Release

if TYPE_CHECKING:  # imported where used: a sample-level run needs neither (issue 18)
    from gazeprivacy.features.gaze_maps import MapGrid
    from gazeprivacy.features.window_features import FeatureSeries

__all__ = [
    "HeatmapShape",
    "Level",
    "Mechanism",
    "Mode",
    "PartitionPlan",
    "PerRecordingPlan",
    "RecordingShape",
    "SampleShape",
    "SeriesShape",
    "check_partition",
    "coerce_option",
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


E = TypeVar("E", bound=StrEnum)


def coerce_option(name: str, value: Any, enum: type[E], allowed: Sequence[E] | None = None) -> E:
    """``value`` (a member or its string) as a member of ``enum``; the error lists valid values.

    Parameter dataclasses call it in ``__post_init__`` (``object.__setattr__(self, name,
    coerce_option(name, self.<name>, Enum))``), so old string options keep working.

    >>> coerce_option("mode", "paper", Mode) is Mode.PAPER
    True
    """
    options = tuple(allowed) if allowed is not None else tuple(enum)
    try:
        member = enum(value)
    except ValueError:
        member = None
    if member is None or member not in options:
        valid = ", ".join(repr(str(o)) for o in options)
        raise InvalidParameterError(f"{name} must be one of {valid}, got {value!r}")
    return member


class Level(StrEnum):
    """What a mechanism protects: the type of its input and output."""

    SAMPLES = "samples"   # Dataset of gaze samples -> Dataset, same recordings and rows
    EVENTS = "events"     # Dataset -> Dataset, via fitted fixation / saccade models
    SERIES = "series"     # feature series (list or table) -> the same kind
    HEATMAP = "heatmap"   # GazeMaps of one stimulus -> AggregateMap

    @property
    def takes_samples(self) -> bool:
        """True for the levels whose input and output are a :class:`Dataset` of gaze samples."""
        return self in (Level.SAMPLES, Level.EVENTS)

    @property
    def input_kind(self) -> str:
        """What this level takes, in words (for error messages)."""
        return _INPUT_KIND[self]

    def check_input(self, data: Any, mechanism: str = "") -> None:
        """Raise :class:`InvalidDataError` when ``data`` is not this level's input type."""
        if self.takes_samples:
            ok = isinstance(data, Dataset)
        else:
            from gazeprivacy.features.gaze_maps import GazeMaps
            from gazeprivacy.features.window_features import FeatureSeries

            ok = (isinstance(data, GazeMaps) if self is Level.HEATMAP else
                  isinstance(data, pl.DataFrame) or (
                      isinstance(data, list | tuple)
                      and all(isinstance(s, FeatureSeries) for s in data)))
        if not ok:
            who = f"{mechanism!r} is a {self.value}-level mechanism: it" if mechanism else "it"
            raise InvalidDataError(f"{who} takes {self.input_kind}, got "
                                   f"{type(data).__name__}")

    def shape_of(self, data: Any) -> SampleShape | SeriesShape | HeatmapShape:
        """The public shape of this level's input ``data`` (what a privacy map may read)."""
        self.check_input(data)
        if self.takes_samples:
            return sample_shape(data)
        if self is Level.HEATMAP:
            return HeatmapShape(n_observers=data.n_observers, n_cells=data.n_cells,
                                grid=data.grid)
        from gazeprivacy.features.window_features import series_from_table

        series = series_from_table(data) if isinstance(data, pl.DataFrame) else list(data)
        return SeriesShape.of(series)


_INPUT_KIND = {
    Level.SAMPLES: "a Dataset of gaze samples",
    Level.EVENTS: "a Dataset of gaze samples",
    Level.SERIES: "feature series (a list of FeatureSeries or a feature table)",
    Level.HEATMAP: "the GazeMaps of one stimulus",
}


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


@dataclass(frozen=True, slots=True)
class SeriesShape:
    """Public shape of a feature-series collection: ids, participants, lengths, features."""

    recordings: tuple[str, ...]
    participants: tuple[str, ...]
    n_windows: tuple[int, ...]
    feature_names: tuple[str, ...]

    @classmethod
    def of(cls, series: Sequence[FeatureSeries]) -> SeriesShape:
        if not series:
            raise InvalidDataError("no feature series given; extract features first")
        return cls(tuple(s.recording for s in series), tuple(s.participant for s in series),
                   tuple(s.n_windows for s in series), tuple(series[0].feature_names))

    def units_per_participant(self, units: Callable[[int], int]) -> dict[str, int]:
        """Units per participant: ``units(n_windows)`` per feature of each series, summed."""
        out: dict[str, int] = {}
        for p, n in zip(self.participants, self.n_windows, strict=True):
            out[p] = out.get(p, 0) + units(n) * len(self.feature_names)
        return out


@dataclass(frozen=True, slots=True)
class HeatmapShape:
    """Public shape of one stimulus's gaze maps: observer count, cell count and the grid."""

    n_observers: int
    n_cells: int
    grid: MapGrid | None = None


def sample_shape(dataset: Dataset) -> SampleShape:
    """The public shape of ``dataset`` (no gaze value is read)."""
    return SampleShape(tuple(
        RecordingShape(r.recording, r.participant, r.n_samples, r.sampling_rate_hz, r.geometry,
                       dict(r.labels)) for r in dataset.recordings))


def check_partition(part: Any) -> None:
    """Refuse what is not a non-empty :class:`Dataset` as a partition (every plan's phases)."""
    if not isinstance(part, Dataset):
        raise InvalidDataError(f"a partition must be a Dataset, got {type(part).__name__}")
    if len(part) == 0:
        raise InvalidDataError(f"partition of {part.name!r} has no recordings")


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
    """A registry entry; see the module docstring for what each field promises.

    ``example(mode) -> (data, params) | None`` gives a tiny input of this level and parameters
    in ``mode`` (None when the mechanism has no such mode); the common contract test
    (``tests/test_common.py``) and the docs run every registered mechanism on it.
    """

    name: str
    level: Level
    params_type: type[ParamsT]
    run: Callable[..., Release[Any]]
    guarantee: Callable[[ParamsT, Any], Guarantee]
    summary: str
    citation: str = ""
    plan: Callable[[ParamsT], PartitionPlan] | None = None
    partition_refusal: str = ""
    example: Callable[[Mode], tuple[Any, ParamsT] | None] | None = None
    synthetic_population: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "level", coerce_option("level", self.level, Level))

    def check_params(self, params: Any) -> None:
        """Raise :class:`InvalidParameterError` unless ``params`` is this mechanism's type."""
        if not isinstance(params, self.params_type):
            raise InvalidParameterError(
                f"params for {self.name!r} must be a {self.params_type.__name__}, got "
                f"{type(params).__name__}")

    def shape_of(self, data: InputT) -> Any:
        """The public shape of ``data`` at this mechanism's level (checks the input type)."""
        self.level.check_input(data, self.name)
        return self.level.shape_of(data)

    def protect(self, data: InputT, params: ParamsT, *, rng: np.random.Generator,
                progress: bool = False) -> Release[Any]:
        """Run the mechanism after checking the parameter type and the level's input type."""
        self.check_params(params)
        self.level.check_input(data, self.name)
        return self.run(data, params, rng=rng, progress=progress)


def _check_part(part: Any) -> None:
    if not isinstance(part, Dataset):
        raise InvalidDataError(f"a partition must be a Dataset, got {type(part).__name__}")
    if len(part) == 0:
        raise InvalidDataError(f"partition of {part.name!r} has no recordings")


@dataclass(frozen=True)
class PerRecordingPlan:
    """The plan of a mechanism that protects each recording on its own (e.g. Kaleido).

    Client and curator do nothing; release runs the registered mechanism on the partition (one
    child generator per recording, spawned from the partition's release stream). Register it as
    ``plan=functools.partial(PerRecordingPlan, "<name>")``.
    """

    mechanism: str
    params: Any
    two_phase: bool = False  # nothing to curate: engines may skip phase 1

    def client(self, part: Dataset, rng: np.random.Generator) -> tuple[None, None]:
        _check_part(part)
        return None, None

    def curate(self, messages: Sequence[Any], rng: np.random.Generator) -> None:
        return None

    def release(self, part: Dataset, state: Any, model: Any,
                rng: np.random.Generator) -> Release[Dataset]:
        from gazeprivacy.mechanisms import MECHANISMS

        _check_part(part)
        return MECHANISMS[self.mechanism].protect(part, self.params, rng=rng)
