# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Partition-wise plans: a mechanism cut into a client, a curator and a release phase.

A :class:`PartitionPlan` runs a mechanism over a partitioned dataset
(:class:`gazeprivacy.data.partitioned.PartitionedDataset`) without ever holding more than one
partition in memory:

1. **client** -- on each partition: whatever the mechanism's clients (devices) do with their
   own data, including all perturbation. Returns ``(state, message)``: the state stays with the
   partition (it may be O(samples)); the message goes to the curator and is small
   (O(model size)).
2. **curate** -- once: reduce all partitions' messages to a model (picklable, small).
3. **release** -- on each partition again: the released partition (same recordings, order and
   row counts) from its state and the model, with its guarantee record.

Engines (:mod:`gazeprivacy.engines.local`, ``gazeprivacy.engines.dask``) run the phases;
:func:`partition_streams` gives every phase of every partition its own deterministic random
stream, so the output depends only on the seed and the partitioning, not on the engine, the
worker count or the order partitions are processed in. A client phase may be recomputed (the
state not kept between the phases) by calling :meth:`PartitionPlan.client` again with a fresh
generator of the same stream: it returns the same state and message, so recomputing releases
nothing new.

Guarantees. Each partition's release carries the mechanism's record composed over that
partition's participants; :func:`combine_guarantees` adds every participant's units over **all**
partitions (a participant may span partitions) and composes once (basic sequential
composition), exactly as the in-memory mechanism does over the whole dataset.

Supported: ``dpgazesynth`` (a real two-phase job: clients perturb per partition -- planar
Laplace start points, Laplace run lengths and the OUE transition reports, summed to column
sums per report budget -- the curator adds the column sums and estimates the transition model,
then synthesis runs per partition; sums of per-partition OUE column sums are distributed
exactly as the column sums of one aggregate over the union), ``kaleido`` (per recording: client
and curator are no-ops) and ``k-same-synth`` (client: detect and fit events, message = each
recording's fitted event parameters and group label; curator: the random k-groups and their
mean parameters; release: render per partition). Other mechanisms raise
:class:`~gazeprivacy.exceptions.InvalidParameterError` with the reason and the way out.

>>> import numpy as np
>>> from gazeprivacy.data.simulate import simulate_dataset
>>> from gazeprivacy.mechanisms.samples.dpgazesynth import DPGazeSynthParams
>>> ds = simulate_dataset(n_participants=2, tasks=("reading",), duration_s=2.0,
...                       sampling_rate_hz=100, rng=np.random.default_rng(0))
>>> plan = plan_for("dpgazesynth", DPGazeSynthParams(epsilon=2.0, grid_size=10))
>>> streams = partition_streams(7, 1)
>>> state, msg = plan.client(ds, streams.client(0))
>>> model = plan.curate([msg], streams.curator())
>>> rel = plan.release(ds, state, model, streams.release(0))
>>> [r.n_samples for r in rel.output] == [r.n_samples for r in ds]
True
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

import numpy as np

from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import (
    InvalidDataError,
    InvalidParameterError,
    NotFormallyPrivateWarning,
)
from gazeprivacy.guarantees import Guarantee, Release
from gazeprivacy.mechanisms.protect import build_params
from gazeprivacy.rng import spawn

__all__ = [
    "DPGazeSynthPlan",
    "KSameSynthPlan",
    "PartitionPlan",
    "PartitionStreams",
    "PerRecordingPlan",
    "combine_guarantees",
    "partition_streams",
    "plan_for",
]


@runtime_checkable
class PartitionPlan(Protocol):
    """A mechanism in three phases (see the module docstring); one per (mechanism, params)."""

    mechanism: str
    #: False when client and curator do nothing (engines may then skip phase 1)
    two_phase: bool

    def client(self, part: Dataset, rng: np.random.Generator) -> tuple[Any, Any]:
        """Client phase on one partition -> ``(state, message)``."""
        ...

    def curate(self, messages: Sequence[Any], rng: np.random.Generator) -> Any:
        """Curator: reduce all partitions' messages (in partition order) to a model."""
        ...

    # Optional: ``merge(messages) -> message``, an associative reduction with
    # ``curate([merge(ms)]) == curate(ms)``; engines that find it may fold messages as they
    # arrive instead of keeping one per partition (DPGazeSynth has it).

    def release(self, part: Dataset, state: Any, model: Any,
                rng: np.random.Generator) -> Release[Dataset]:
        """Release phase on one partition (same recordings, order, row counts)."""
        ...


# --------------------------------------------------------------------------------------------
# random streams
# --------------------------------------------------------------------------------------------

_CURATOR, _CLIENT, _RELEASE = 0, 1, 2


@dataclass(frozen=True)
class PartitionStreams:
    """Deterministic random streams for a partition-wise run (picklable).

    Children of ``SeedSequence(seed)``: spawn key ``(0,)`` is the curator's, ``(1, i)`` the
    client stream and ``(2, i)`` the release stream of partition ``i``. Each call returns a
    *fresh* generator, so a client phase recomputed from ``client(i)`` draws the same numbers.
    """

    entropy: int
    n_partitions: int
    spawn_key: tuple[int, ...] = ()

    def _child(self, *key: int) -> np.random.Generator:
        ss = np.random.SeedSequence(self.entropy, spawn_key=(*self.spawn_key, *key))
        return np.random.default_rng(ss)

    def _check(self, i: int) -> int:
        if not 0 <= int(i) < self.n_partitions:
            raise IndexError(f"partition {i} out of range (0..{self.n_partitions - 1})")
        return int(i)

    def curator(self) -> np.random.Generator:
        return self._child(_CURATOR)

    def client(self, i: int) -> np.random.Generator:
        return self._child(_CLIENT, self._check(i))

    def release(self, i: int) -> np.random.Generator:
        return self._child(_RELEASE, self._check(i))


def partition_streams(seed: int | np.random.SeedSequence | None,
                      n_partitions: int) -> PartitionStreams:
    """The streams of a run over ``n_partitions`` partitions.

    ``seed=None`` draws the entropy from the OS once (a release run); the returned object then
    carries it, so every engine and worker still gets the same streams.

    >>> s = partition_streams(3, 2)
    >>> float(s.client(1).random()) == float(partition_streams(3, 2).client(1).random())
    True
    >>> float(s.client(0).random()) == float(s.client(1).random())
    False
    """
    if int(n_partitions) < 1:
        raise InvalidParameterError(f"n_partitions must be >= 1, got {n_partitions}")
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    if not isinstance(ss.entropy, int):
        raise InvalidParameterError("seed must be an int, a SeedSequence with int entropy, or "
                                    "None")
    return PartitionStreams(entropy=int(ss.entropy), n_partitions=int(n_partitions),
                            spawn_key=tuple(ss.spawn_key))


# --------------------------------------------------------------------------------------------
# guarantees
# --------------------------------------------------------------------------------------------


def combine_guarantees(records: Sequence[Guarantee],
                       units_per_participant: Mapping[str, int] | None = None) -> Guarantee:
    """One record for a whole partitioned release.

    Parameters
    ----------
    records : sequence of Guarantee
        The partitions' records (same mechanism, kind, unit, budgets and mode).
    units_per_participant : mapping, optional
        Units (windows, recordings, ...) of every participant over the whole dataset. Default:
        the sum over ``records`` of each participant's ``per_participant[pid].units`` (so a
        participant spanning partitions gets all of its units).

    Returns
    -------
    Guarantee
        The first record with the union of all flags and notes, and per-participant budgets by
        basic sequential composition over all units.

    Raises
    ------
    InvalidParameterError
        No records, or records that disagree on the headline (they come from different runs).

    Examples
    --------
    >>> from gazeprivacy.guarantees import Kind, Unit
    >>> g = Guarantee(mechanism="m", kind=Kind.LOCAL_DP, unit=Unit.WINDOW, epsilon=0.5)
    >>> a, b = g.compose({"p": 3, "q": 1}), g.compose({"p": 2})
    >>> combine_guarantees([a, b]).per_participant["p"].epsilon
    2.5
    """
    if not records:
        raise InvalidParameterError("combine_guarantees needs at least one record")
    first = records[0]
    head = ("mechanism", "kind", "unit", "epsilon", "delta", "k", "gamma", "mode", "seed")
    for r in records[1:]:
        diff = [h for h in head if getattr(r, h) != getattr(first, h)]
        if diff:
            raise InvalidParameterError(
                f"partition records disagree on {', '.join(diff)} ({first.summary()!r} vs "
                f"{r.summary()!r}); combine only the records of one run")
    flags = tuple(dict.fromkeys(f for r in records for f in r.flags))
    notes = list(dict.fromkeys(n for r in records for n in r.notes))
    if any(dict(r.parameters) != dict(first.parameters) for r in records[1:]):
        notes.append("partitions differ in derived parameters (e.g. sampling rate, window "
                     "samples); 'parameters' are those of the first partition")
    if units_per_participant is None:
        totals: dict[str, int] = {}
        for r in records:
            if r.per_participant is None:
                raise InvalidParameterError(
                    f"a partition record of {r.mechanism!r} has no per-participant budgets; "
                    "pass units_per_participant")
            for pid, b in r.per_participant.items():
                totals[pid] = totals.get(pid, 0) + int(b.units)
    else:
        totals = {str(k): int(v) for k, v in units_per_participant.items()}
    base = replace(first, flags=flags, notes=tuple(notes), per_participant=None)
    return base.compose(totals)


# --------------------------------------------------------------------------------------------
# plans
# --------------------------------------------------------------------------------------------


def _check_part(part: Dataset) -> None:
    if not isinstance(part, Dataset):
        raise InvalidParameterError(f"a partition must be a Dataset, got {type(part).__name__}")
    if len(part) == 0:
        raise InvalidDataError(f"partition of {part.name!r} has no recordings")


@dataclass(frozen=True)
class PerRecordingPlan:
    """A mechanism that protects each recording on its own (e.g. Kaleido): client and curator
    do nothing; release runs the registered mechanism on the partition (one child generator
    per recording, spawned from the partition's release stream)."""

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


@dataclass(frozen=True)
class DPGazeSynthPlan:
    """DPGazeSynth as a two-phase job (see the module docstring).

    client: ``_clients`` (start points, run lengths, transition values; all noised on the
    client) and ``_perturb`` (the OUE reports, summed per budget) -> state ``_Clients``,
    message ``{eps: (column sums, n)}``. curate: ``_estimate`` on all messages. release:
    ``_synthesise`` with the model.
    """

    params: Any
    mechanism: str = "dpgazesynth"
    two_phase: bool = True

    def client(self, part: Dataset, rng: np.random.Generator) -> tuple[Any, Any]:
        from gazeprivacy.mechanisms.samples import dpgazesynth as m

        _check_part(part)
        rng_clients, rng_perturb = rng.spawn(2)
        state = m._clients(part.recordings, self.params, rng_clients)
        return state, m._perturb(state, self.params, rng_perturb)

    def merge(self, messages: Sequence[Any]) -> Any:
        """Several messages as one (column sums and counts added per budget): ``curate`` of
        the merged message equals ``curate`` of the parts exactly (integer-valued sums), so
        engines may reduce messages as they arrive, in any grouping."""
        out: dict[float, tuple[np.ndarray, int]] = {}
        for msg in messages:
            for eps, (s, n) in msg.items():
                if eps in out:
                    out[eps] = (out[eps][0] + s, out[eps][1] + int(n))
                else:
                    out[eps] = (np.array(s, dtype=np.float64), int(n))
        return out

    def curate(self, messages: Sequence[Any], rng: np.random.Generator) -> Any:
        from gazeprivacy.mechanisms.samples import dpgazesynth as m

        return m._estimate(list(messages), self.params)

    def release(self, part: Dataset, state: Any, model: Any,
                rng: np.random.Generator) -> Release[Dataset]:
        from gazeprivacy.mechanisms.samples import dpgazesynth as m

        _check_part(part)
        p = self.params
        recs = part.recordings
        if p.mode == "paper":
            warnings.warn("DPGazeSynth paper mode releases the number of runs per window; see "
                          "the guarantee's flags", NotFormallyPrivateWarning, stacklevel=2)
        if state.valid_rows.size and int(state.valid_rows[-1]) >= part.n_samples:
            raise InvalidDataError("client state does not belong to this partition (its rows "
                                   "exceed the partition's); recompute the client phase")
        out = m._synthesise_recordings(recs, state, model, p, rng)
        record = m._with_note(m._record(part, p), "run partition-wise: clients perturbed per "
                              "partition, the curator summed the OUE column sums of all "
                              "partitions")
        return Release(Dataset(tuple(out), name=part.name, info=part.info), record)


@dataclass(frozen=True)
class _KSameMessage:
    recordings: tuple[str, ...]
    participants: tuple[str, ...]
    keys: tuple[str, ...]
    fixation_params: tuple[np.ndarray, ...]
    saccade_profiles: tuple[np.ndarray, ...]


@dataclass(frozen=True)
class KSameSynthPlan:
    """k-same-synth partition-wise: client = detect and fit events per recording (message: the
    fitted parameters and the group label, O(events)); curator = random k-groups over all
    partitions and their padded means; release = render each recording with its group's
    parameters (one child generator per recording from the partition's release stream).

    Its grouping covers the whole dataset, as in memory; only the random draws differ from an
    in-memory run with the same seed (other streams), not their distribution.
    """

    params: Any
    mechanism: str = "k-same-synth"
    two_phase: bool = True

    def client(self, part: Dataset, rng: np.random.Generator) -> tuple[Any, Any]:
        from gazeprivacy.mechanisms.samples._event_synthesis import fit_dataset_events

        _check_part(part)
        fitted = fit_dataset_events(part)
        msg = _KSameMessage(
            recordings=tuple(r.recording for r in part),
            participants=tuple(r.participant for r in part),
            keys=tuple(r.label(self.params.group_by) for r in part),
            fixation_params=tuple(f.fixation_params for f in fitted),
            saccade_profiles=tuple(f.saccade_profiles for f in fitted))
        return fitted, msg

    def curate(self, messages: Sequence[Any], rng: np.random.Generator) -> Any:
        from gazeprivacy.mechanisms.samples import k_same_synth as m

        rec_ids = [r for msg in messages for r in msg.recordings]
        pids = [p for msg in messages for p in msg.participants]
        keys = [k for msg in messages for k in msg.keys]
        fix = [f for msg in messages for f in msg.fixation_params]
        sac = [s for msg in messages for s in msg.saccade_profiles]
        # _group_members reads only labels and participants: hand it stand-in recordings
        stand_in = Dataset(tuple(
            Recording.from_arrays(recording=r, participant=p, x=np.zeros(1), y=np.zeros(1),
                                  sampling_rate_hz=1.0, labels={self.params.group_by: k})
            for r, p, k in zip(rec_ids, pids, keys, strict=True)))
        model: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for members in m._group_members(stand_in, self.params, rng):
            fmean = m._padded_mean([fix[i] for i in members])
            smean = m._padded_mean([sac[i] for i in members])
            for i in members:
                model[rec_ids[i]] = (fmean[:fix[i].shape[0]], smean[:sac[i].shape[0]])
        return model

    def release(self, part: Dataset, state: Any, model: Any,
                rng: np.random.Generator) -> Release[Dataset]:
        from gazeprivacy.mechanisms.samples import k_same_synth as m
        from gazeprivacy.mechanisms.samples._event_synthesis import render

        _check_part(part)
        recs: list[Recording] = []
        for rec, fit, child in zip(part, state, spawn(rng, len(part)), strict=True):
            if rec.recording not in model:
                raise InvalidDataError(f"recording {rec.recording!r} is not in the curator's "
                                       "model; run the client phase on every partition")
            fix, sac = model[rec.recording]
            x, y = render(rec, fit, fix, sac, rng=child)
            recs.append(rec.with_gaze(x, y))
        record = m.guarantee(self.params).compose(part.units_per_participant(lambda r: 1))
        return Release(Dataset(tuple(recs), name=part.name, info=part.info), record)


_PER_RECORDING = ("kaleido",)
_WHY_NOT = {
    "event-synth-pd": "its curator trains a C-VAE on all events and tests every candidate "
                      "against the whole population, which needs all events in one place",
}


def plan_for(mechanism: str, params: Any = None, /, **param_kwargs: Any) -> PartitionPlan:
    """The partition-wise plan of a registered mechanism.

    Parameters
    ----------
    mechanism : str
        ``"dpgazesynth"``, ``"kaleido"`` or ``"k-same-synth"``.
    params : parameter object, optional
        The mechanism's ``*Params`` (or its fields as keyword arguments).

    Raises
    ------
    InvalidParameterError
        The mechanism cannot run partition-wise (the message says why and the way out), or bad
        parameters.
    """
    from gazeprivacy.mechanisms import MECHANISMS

    spec = MECHANISMS[mechanism]
    p = build_params(mechanism, params, **param_kwargs)
    if mechanism == "dpgazesynth":
        return DPGazeSynthPlan(params=p)
    if mechanism in _PER_RECORDING:
        return PerRecordingPlan(mechanism=mechanism, params=p)
    if mechanism == "k-same-synth":
        return KSameSynthPlan(params=p)
    why = _WHY_NOT.get(mechanism) or (
        f"it is a {spec.level}-level mechanism (series and heatmap releases are not supported "
        "partition-wise)")
    raise InvalidParameterError(
        f"mechanism {mechanism!r} cannot run partition-wise: {why}. Way out: protect an "
        "in-memory dataset (`gazeprivacy protect` on a single file), or use one of "
        "dpgazesynth, kaleido, k-same-synth")
