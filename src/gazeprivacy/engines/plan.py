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

Which mechanisms run partition-wise is the mechanism's own business: its registry entry's
``plan(params)`` (:attr:`gazeprivacy.mechanisms.contract.Mechanism.plan`) gives its phases --
``dpgazesynth`` (clients perturb per partition, the curator sums the OUE column sums and
estimates the transition model, synthesis runs per partition), ``kaleido`` (per recording:
client and curator are no-ops; :class:`~gazeprivacy.mechanisms.contract.PerRecordingPlan`) and
``k-same-synth`` (client: detect and fit events; curator: the random k-groups and their mean
parameters; release: render per partition). :func:`plan_for` looks the plan up; a mechanism
without one raises :class:`~gazeprivacy.exceptions.InvalidParameterError` with the reason its
entry gives (``partition_refusal``) and the way out.

**Participant-grouped plans** (``grouped = True``: DPGazeSynth's ``unit="participant"`` and
participant-synth, whose participants may span partitions) add a public pass:
``shape(part)`` on every partition (public shape only), then on the driver ``assign(shapes,
streams.root())`` (the one-process generator) returns the plan bound to the public
assignment. The bound plan's ``client(i, part,
rng)`` gives partition ``i``'s message (``merge`` may fold them), ``curate(messages, rng)``
gives ``(model, pieces)`` (the model goes to every partition, ``pieces[i]`` to partition ``i``
only) and ``release(i, part, model, pieces[i], rng)`` the released partition. The unbound
plan's optional ``combined(record)`` finishes the record :func:`combine_guarantees` makes
(:func:`combine_records`). The engines run the same steps (:mod:`gazeprivacy.engines.local`,
``gazeprivacy.engines.dask``).

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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.guarantees import Guarantee
from gazeprivacy.mechanisms.contract import PartitionPlan, PerRecordingPlan
from gazeprivacy.mechanisms.protect import build_params

__all__ = [
    "PartitionPlan",
    "PartitionStreams",
    "PerRecordingPlan",
    "combine_guarantees",
    "combine_records",
    "partition_streams",
    "plan_for",
    "same_recordings",
]


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

    def root(self) -> np.random.Generator:
        """The generator a one-process file release at this seed gives its mechanism
        (:func:`~gazeprivacy.mechanisms.release.protect_file`: ``make_rng(seed).spawn(2)[0]``,
        spawn key ``(0,)``): for grouped plans, which reproduce the one-process run. It is the
        curator's stream too; a plan uses one or the other."""
        return self._child(_CURATOR)


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


def same_recordings(plan: Any, part: Any, released: Any, *, rows: bool = True) -> bool:
    """Whether a released partition keeps the input's recordings and row counts (``rows=False``:
    its number of recordings only, as participant-grouped plans must), as every plan must --
    except a synthetic population's (its entry's ``synthetic_population``), whose recordings
    are set by its parameters."""
    from gazeprivacy.mechanisms import MECHANISMS

    if plan.mechanism in MECHANISMS and MECHANISMS[plan.mechanism].synthetic_population:
        return True
    if not rows:
        return len(released) == len(part)
    return [r.n_samples for r in released] == [r.n_samples for r in part]


def combine_records(plan: Any, records: Sequence[Guarantee]) -> Guarantee:
    """:func:`combine_guarantees` of a run of ``plan``, finished by the plan's own
    ``combined(record)`` when it has one (participant-grouped plans)."""
    record = combine_guarantees(records)
    finish = getattr(plan, "combined", None)
    return record if finish is None else finish(record)


# --------------------------------------------------------------------------------------------
# plans
# --------------------------------------------------------------------------------------------


def plan_for(mechanism: str, params: Any = None, /, **param_kwargs: Any) -> PartitionPlan:
    """The partition-wise plan of a registered mechanism (its entry's ``plan(params)``).

    Parameters
    ----------
    mechanism : str
        A name in :data:`gazeprivacy.mechanisms.MECHANISMS` whose entry has a ``plan`` (e.g.
        ``"dpgazesynth"``, ``"kaleido"``, ``"k-same-synth"``).
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
    if spec.plan is not None:
        return spec.plan(build_params(mechanism, params, **param_kwargs))
    why = spec.partition_refusal or f"{mechanism!r} declares no partition plan"
    able = ", ".join(n for n, m in MECHANISMS.items() if m.plan is not None)
    raise InvalidParameterError(
        f"mechanism {mechanism!r} cannot run partition-wise: {why}. Way out: protect an "
        f"in-memory dataset (`gazeprivacy protect` on a single file), or use one of {able}")
