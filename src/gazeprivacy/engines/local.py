# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Engine ``local``: run a partition-wise plan in one process, one partition in memory at a time.

Two passes over the partitions: phase 1 runs the client step of every partition and keeps only
the (small) messages; the curator reduces them; phase 2 reads every partition again, recomputes
its client state from the same random stream (same state, nothing new released) and releases it.
Plans without a curator (per-recording mechanisms such as Kaleido) skip phase 1.
Participant-grouped plans (``grouped = True``: DPGazeSynth ``unit="participant"``,
participant-synth) add a public pass before phase 1 (``shape`` of every partition, then
``assign`` on the driver) and release from the curator's model and each partition's own piece,
without recomputing a client state (see :mod:`gazeprivacy.engines.plan`). Peak memory is one
partition and its client state plus the messages -- it does not grow with the number of
partitions (``benchmarks/memory.py`` measures it; docs/scale.md).

* :func:`protect_partitioned` -- partitioned folder in, partitioned folder out
  (``dest/part-*.parquet``, manifest, ``dest/guarantee.json``); ``engine="dask"`` hands the plan
  to ``gazeprivacy.engines.dask.run_plan``.
* :func:`iter_protected` -- the protected partitions as an iterator (for ``evaluate``), the
  combined guarantee once it is exhausted.
* :func:`run_plan_local` -- the engine itself. ``engines.dask.run_plan(source_path, plan,
  streams, *, scheduler, write_to)`` mirrors it: it writes ``write_to/part-%05d.parquet`` (as
  :class:`~gazeprivacy.data.partitioned.PartitionWriter` does) and the manifest last
  (:func:`~gazeprivacy.data.partitioned.write_manifest`), and returns the partitions' guarantee
  records in partition order; :func:`protect_partitioned` combines them and writes
  ``guarantee.json``. Plans may have ``two_phase = False`` (skip phase 1) and ``merge``
  (associative reduction of messages).

The output depends only on the seed and the partitioning (streams from
:func:`~gazeprivacy.engines.plan.partition_streams`), not on the engine or the order of work.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from gazeprivacy._atomic import Output, atomic_dir, atomic_files, check_outputs
from gazeprivacy._memory import trim
from gazeprivacy.data.partitioned import (
    PARTITIONED_MARKERS,
    PartitionedDataset,
    PartitionWriter,
    is_partitioned,
)
from gazeprivacy.data.recording import Dataset
from gazeprivacy.engines.plan import (
    PartitionPlan,
    PartitionStreams,
    combine_records,
    partition_streams,
    plan_for,
    same_recordings,
)
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.guarantees import Guarantee, Release
from gazeprivacy.mechanisms.contract import SampleShape, sample_shape
from gazeprivacy.mechanisms.release import (
    SealPolicy,
    merge_columns,
    planned_guarantee,
    sealed_name_info,
    write_sealed_table,
)

__all__ = [
    "ENGINES",
    "GUARANTEE_FILE",
    "ProtectedPartitions",
    "iter_protected",
    "iter_release",
    "protect_partitioned",
    "read_guarantee",
    "run_plan_local",
]

#: The guarantee record of a partitioned release, inside its folder.
GUARANTEE_FILE = "guarantee.json"
#: Engine names accepted by :func:`protect_partitioned`.
ENGINES = ("local", "dask")

Source = PartitionedDataset | str | Path | Sequence[Dataset]


class _Parts:
    """A partitioned folder or an in-memory sequence of partitions, read on demand."""

    def __init__(self, source: Source) -> None:
        if isinstance(source, str | Path):
            source = PartitionedDataset(source)
        if isinstance(source, PartitionedDataset):
            self.pds: PartitionedDataset | None = source
            self.n = source.n_partitions
            self.name, self.info = source.name, dict(source.info)
            self._get: Callable[[int], Dataset] = source.partition
        elif isinstance(source, Sequence) and all(isinstance(p, Dataset) for p in source):
            self.pds = None
            self.n = len(source)
            self.name = source[0].name if source else "dataset"
            self.info = dict(source[0].info) if source else {}
            self._get = source.__getitem__
        else:
            raise InvalidParameterError(
                "source must be a PartitionedDataset, the path of a partitioned folder or a "
                f"sequence of Dataset partitions, got {type(source).__name__}")
        if self.n == 0:
            raise InvalidDataError("the partitioned dataset has no partitions")

    def __getitem__(self, i: int) -> Dataset:
        return self._get(i)


def _two_phase(plan: PartitionPlan) -> bool:
    return getattr(plan, "two_phase", True)


def iter_release(source: Source, plan: PartitionPlan, streams: PartitionStreams
                 ) -> Iterator[tuple[int, Dataset, Release[Dataset]]]:
    """Run ``plan`` and yield ``(i, raw partition, release of partition i)`` in order.

    Phase 1 (all client messages, then the curator) runs before the first item. Only the
    current partition (raw and released) is held.
    """
    parts = _Parts(source)
    if streams.n_partitions != parts.n:
        raise InvalidParameterError(f"streams are for {streams.n_partitions} partitions, the "
                                    f"source has {parts.n}")
    if getattr(plan, "grouped", False):
        yield from _iter_grouped(parts, plan, streams)
        return
    if _two_phase(plan):
        merge = getattr(plan, "merge", None)
        messages: list[Any] = []
        for i in range(parts.n):
            # the message only: the client state is not alive while the next partition is read
            msg = plan.client(parts[i], streams.client(i))[1]
            messages.append(msg)
            del msg
            trim()
            if merge is not None:  # fold as we go: memory O(model), not O(partitions)
                messages = [merge(messages)]
        model = plan.curate(messages, streams.curator())
        del messages
    else:
        model = plan.curate([], streams.curator())
    for i in range(parts.n):
        part = parts[i]
        state, _ = plan.client(part, streams.client(i))
        rel = plan.release(part, state, model, streams.release(i))
        del state
        if not same_recordings(plan, part, rel.output):
            raise AssertionError(f"{plan.mechanism} changed recordings or row counts of "
                                 f"partition {i}")
        yield i, part, rel
        del part, rel  # before the next read: hold one partition at a time, not two
        trim()  # and give its freed pages back (gazeprivacy._memory)


def _iter_grouped(parts: _Parts, plan: Any, streams: PartitionStreams
                  ) -> Iterator[tuple[int, Dataset, Release[Dataset]]]:
    """:func:`iter_release` of a participant-grouped plan: the public pass (``shape`` of every
    partition, ``assign`` on the driver), the clients' messages, the curator, the releases."""
    shapes = []
    for i in range(parts.n):
        shapes.append(plan.shape(parts[i]))
        trim()
    bound = plan.assign(shapes, streams.root())
    del shapes
    merge = getattr(bound, "merge", None)
    messages: list[Any] = []
    for i in range(parts.n):
        messages.append(bound.client(i, parts[i], streams.client(i)))
        trim()
        if merge is not None:
            messages = [merge(messages)]
    model, pieces = bound.curate(messages, streams.curator())
    del messages
    for i in range(parts.n):
        part = parts[i]
        rel = bound.release(i, part, model, pieces[i], streams.release(i))
        if not same_recordings(plan, part, rel.output, rows=False):
            raise AssertionError(f"{plan.mechanism} changed the recordings of partition {i}")
        yield i, part, rel
        del part, rel
        trim()


def run_plan_local(source: Source, plan: PartitionPlan, streams: PartitionStreams, *,
                   write_to: str | Path | None = None, overwrite: bool = False,
                   progress: bool = False, sealing: SealPolicy | None = None,
                   check: Callable[[Guarantee], None] | None = None) -> list[Guarantee]:
    """Engine "local": run ``plan`` over ``source``; write the released partitions to
    ``write_to`` (``part-%05d.parquet`` and the manifest, last) when given.

    ``check(record)`` is called with each partition's (sealed) record before the partition is
    written (the ledger's running check against its plan): when it raises, nothing more is
    written.

    With ``sealing`` each released partition is sealed (:mod:`gazeprivacy.mechanisms.release`:
    pseudonyms consistent across partitions, only declared columns) before it is written, and
    the records returned are the sealed ones.

    Returns
    -------
    list of Guarantee
        Each partition's record (composed over its own participants), in partition order;
        :func:`~gazeprivacy.engines.plan.combine_guarantees` makes them one.
    """
    parts = _Parts(source)
    name, info = sealed_name_info(sealing, parts.name, parts.info)
    writer = None if write_to is None else PartitionWriter(
        write_to, name=name, info=info, overwrite=overwrite)
    records: list[Guarantee] = []
    items = iter_release(source if not isinstance(source, str | Path) else parts.pds,
                         plan, streams)
    if progress:
        from rich.progress import track

        items = track(items, total=parts.n, description=f"{plan.mechanism} (local)",
                      transient=True)
    try:
        for i, part, rel in items:
            record = rel.guarantee
            out = rel.output
            if sealing is not None:
                sealed = sealing.seal(rel, source=part, index=i)
                out, record = sealed.dataset, sealed.guarantee
            if check is not None:
                check(record)
            if writer is not None:
                writer.write(out)
            records.append(record)
            del part, rel, out  # before the next partition is read (peak memory: one, not two)
            sealed = None
    except BaseException:
        if writer is not None:  # the partitions written so far go; write_to keeps its old data
            writer.abort()
        raise
    if writer is not None:
        writer.close()
    return records


def _run_dask(source: Source, plan: PartitionPlan, streams: PartitionStreams,
              scheduler: str | None, dest: Path, progress: bool, sealing: SealPolicy
              ) -> list[Guarantee]:
    from gazeprivacy.engines import dask as dask_engine  # optional extra: imported on use

    if not isinstance(source, PartitionedDataset | str | Path):
        raise InvalidParameterError("engine 'dask' reads partitions from a folder: give the "
                                    "path of a partitioned dataset")
    src = source.path if isinstance(source, PartitionedDataset) else Path(source)
    return dask_engine.run_plan(src, plan, streams, scheduler=scheduler, write_to=dest,
                                progress=progress, sealing=sealing)


def protect_partitioned(source: Source, dest: str | Path, *, mechanism: str,
                        params: Any = None, seed: int | None = None, engine: str = "local",
                        scheduler: str | None = None, overwrite: bool = False,
                        progress: bool = False, public: Sequence[str] = (),
                        pupil_epsilon: float | None = None,
                        pupil_range: Sequence[float] | None = None,
                        id_map_path: str | Path | None = None, ledger: Any = None,
                        pseudonym_key: bytes | None = None,
                        **param_kwargs: Any) -> Release[PartitionedDataset]:
    """Protect a partitioned dataset partition by partition into the folder ``dest``.

    Every partition is sealed before it is written, as :func:`gazeprivacy.mechanisms.release.
    seal` seals an in-memory release: ids become pseudonyms (one key per run, so a participant
    spanning partitions keeps one pseudonym; the manifest lists pseudonyms), recordings are in
    pseudonym order within each partition (which recordings share a partition is the input's
    partitioning, public by design), and only the protected gaze, the sampling grid and the
    ``public`` columns are written. The id map (from the source's manifest) goes only to
    ``id_map_path``.

    Parameters
    ----------
    source : PartitionedDataset or path
        The input (see :mod:`gazeprivacy.data.partitioned`).
    dest : path
        Output folder: ``part-*.parquet`` with the same recordings, order and row counts, the
        manifest, and ``guarantee.json`` (the combined record). Must be empty unless
        ``overwrite``.
    mechanism : str
        ``"dpgazesynth"``, ``"kaleido"`` or ``"k-same-synth"`` (see
        :func:`~gazeprivacy.engines.plan.plan_for`).
    params : parameter object, optional
        The mechanism's ``*Params``, or its fields as keyword arguments.
    seed : int, optional
        Research run: fixes the noise (never the pseudonym key, from OS entropy); the written
        record is then not formally private (a guarantee-breaking flag without the seed's
        value) and a ledger refuses it unless it allows unaccounted releases. None draws OS
        entropy once for all partitions.
    engine : {"local", "dask"}
        Where the plan runs; the output for a seed is the same.
    scheduler : str, optional
        Dask scheduler address (engine "dask"; default a local cluster).
    overwrite : bool
    progress : bool
    public, pupil_epsilon, pupil_range
        As in :func:`~gazeprivacy.mechanisms.release.seal`.
    id_map_path : path, optional
        Write the raw -> pseudonym map here (CSV or Parquet), ordered by pseudonym.
    ledger : Ledger or path, optional
        Charge each participant in this privacy-budget ledger
        (:mod:`gazeprivacy.accounting.ledger`). The spend comes from the privacy map on the
        public shape of every partition (one read pass over the partitions before the work)
        plus the pupil budget, and is reserved before any release; engine "local" checks each
        partition's record against it (running totals per participant) before writing the
        partition; a failure anywhere cancels the reservation; it is committed with the
        SHA-256 of the written ``guarantee.json``.
    pseudonym_key : bytes, optional
        Test-only fixed pseudonym key (the record then says it is not formally private).

    Returns
    -------
    Release[PartitionedDataset]
        The written dataset and the guarantee (per-participant budgets over all partitions).

    Raises
    ------
    InvalidParameterError
        Unknown engine, mechanism that cannot run partition-wise, ``dest`` not empty, or engine
        "dask" unavailable.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from gazeprivacy.data.partitioned import write_partitioned
    >>> from gazeprivacy.data.simulate import simulate_dataset
    >>> ds = simulate_dataset(n_participants=2, tasks=("reading",), duration_s=2.0,
    ...                       sampling_rate_hz=100, rng=np.random.default_rng(0))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     src = write_partitioned(ds, f"{tmp}/in", recordings_per_partition=1)
    ...     rel = protect_partitioned(src, f"{tmp}/out", mechanism="dpgazesynth", epsilon=2.0,
    ...                               grid_size=10, seed=1, public=["mask"])
    ...     rel.output.n_partitions, rel.output.n_samples == ds.n_samples
    (2, True)
    """
    if engine not in ENGINES:
        raise InvalidParameterError(f"engine must be one of {', '.join(ENGINES)}, got "
                                    f"{engine!r}")
    if scheduler is not None and engine != "dask":
        raise InvalidParameterError("scheduler is an option of engine 'dask'; pass "
                                    "engine='dask' (CLI: --engine dask)")
    if isinstance(source, str | Path) and not is_partitioned(source):
        raise InvalidParameterError(
            f"{str(source)!r} is not a partitioned dataset (no manifest); make one with "
            "`gazeprivacy partition INPUT OUTDIR` or protect the file in memory")
    dest = Path(dest)
    check_outputs([Output(dest, "dest", folder=True, markers=PARTITIONED_MARKERS,
                          holds="partitioned release"),
                   Output(id_map_path, "id_map_path", suffixes=(".csv", ".parquet", ".pq"))],
                  inputs=[_source_path(source)], ledger=getattr(ledger, "path", ledger),
                  overwrite=overwrite)
    parts = _Parts(source)
    plan = plan_for(mechanism, params, **param_kwargs)
    sealing = SealPolicy.create(seed=seed, public=public, pupil_epsilon=pupil_epsilon,
                                pupil_range=pupil_range, pseudonym_key=pseudonym_key)
    spend, ids = _reserve(ledger, parts, mechanism, params, param_kwargs, seed,
                          (pupil_epsilon, pupil_range, tuple(public)), sealing)
    maps = () if id_map_path is None else (Path(id_map_path),)
    # The release is written into a hidden folder that replaces dest only when complete (its
    # record included), then the id map: an error, Ctrl-C or a full disk leaves dest as it was
    # and cancels the reservation. Each partition's record is checked against the ledger's plan
    # before the partition is written.
    with spend.guard(), atomic_files(*maps) as map_tmps, atomic_dir(dest) as tmp:
        record = _run(parts, source, plan, tmp, sealing, seed=seed, engine=engine,
                      scheduler=scheduler, progress=progress,
                      check=lambda g: spend.check(g, ids=ids, partial=True))
        spend.check(record, ids=ids)
        (tmp / GUARANTEE_FILE).write_text(record.to_json())
        if map_tmps:
            raw_ids = [(q, r) for k in range(parts.n) for r, q in _raw_ids(parts, k)]
            write_sealed_table(sealing.id_map([q for q, _ in raw_ids],
                                              [r for _, r in raw_ids]), map_tmps[0])
    spend.commit(dest / GUARANTEE_FILE)
    return Release(PartitionedDataset(dest), record)


def _source_path(source: Source) -> Path | None:
    if isinstance(source, PartitionedDataset):
        return Path(source.path)
    return Path(source) if isinstance(source, str | Path) else None


def _reserve(ledger: Any, parts: _Parts, mechanism: str, params: Any,
             param_kwargs: dict[str, Any], seed: int | None, pupil: tuple[Any, Any, Any],
             sealing: SealPolicy) -> tuple[Any, dict[str, str]]:
    """The ledger's reservation for a partition-wise release (nothing without a ledger): the
    privacy map plus the pupil budget (:func:`planned_guarantee`), and the raw id -> released
    id map its checks use."""
    from gazeprivacy.accounting.ledger import Spend

    if ledger is None:
        return Spend(None, None), {}
    shape = SampleShape(tuple(r for k in range(parts.n)
                              for r in sample_shape(parts[k]).recordings))
    g, participants = planned_guarantee(mechanism, params, param_kwargs, shape, seed=seed,
                                        pupil_epsilon=pupil[0], pupil_range=pupil[1],
                                        public=pupil[2])
    pseudo = sealing.pseudonymiser
    ids = {p: p if "participant" in sealing.public else pseudo("participant", p)
           for p in participants}
    return Spend(ledger, g, participants=participants), ids


def _run(parts: _Parts, source: Source, plan: PartitionPlan, dest: Path, sealing: SealPolicy,
         *, seed: int | None, engine: str, scheduler: str | None, progress: bool,
         check: Callable[[Guarantee], None] | None = None) -> Guarantee:
    """Run ``plan`` over the partitions into ``dest``; the combined record (not yet written)."""
    streams = partition_streams(seed, parts.n)
    if engine == "local":
        records = run_plan_local(parts.pds if parts.pds is not None else source, plan,
                                 streams, write_to=dest, progress=progress, sealing=sealing,
                                 check=check)
    else:
        records = _run_dask(source, plan, streams, scheduler, dest, progress, sealing)
    record = replace(combine_records(plan, records).as_seeded_release(seed is not None),
                     columns=merge_columns(records))
    if record.parameters.get("pupil_epsilon") is not None:
        record = replace(record, per_participant=_summed_budgets(records))
    return _with_engine_note(_rate_free(record, records), engine, parts.n)


def _summed_budgets(records: Sequence[Guarantee]) -> dict[str, Any]:
    """Per participant, the partitions' budgets added up (basic sequential composition). With
    protected pupil a partition's budget is its gaze units plus its pupil blocks, which
    re-composing the per-unit epsilon over units (combine_guarantees) would overstate."""
    from gazeprivacy.guarantees import Budget

    out: dict[str, Budget] = {}
    for r in records:
        for pid, b in (r.per_participant or {}).items():
            if pid not in out:
                out[pid] = b
                continue
            a = out[pid]
            out[pid] = Budget(None if a.epsilon is None or b.epsilon is None
                              else a.epsilon + b.epsilon,
                              None if a.delta is None and b.delta is None
                              else min(1.0, (a.delta or 0.0) + (b.delta or 0.0)),
                              a.units + b.units, "basic sequential composition over "
                              "partitions: " + a.rule)
    return out


def _rate_free(record: Guarantee, records: Sequence[Guarantee]) -> Guarantee:
    """Parameters that differ between partitions' records and derive from a sampling rate
    (``sampling_rate_hz``, ``window_samples`` when ``window_s`` sets it) are dropped from the
    combined record, not taken from the first partition: each recording's own rate is in its
    metadata."""
    drop = {k for k in ("sampling_rate_hz", "window_samples")
            if len({repr(r.parameters.get(k)) for r in records}) > 1}
    if "window_s" not in record.parameters:
        drop.discard("window_samples")
    if not drop:
        return record
    return replace(record, parameters={k: v for k, v in record.parameters.items()
                                       if k not in drop})


def _raw_ids(parts: _Parts, k: int) -> list[tuple[str, str]]:
    """(recording, participant) of partition ``k``, from the manifest when there is one."""
    if parts.pds is not None:
        p = parts.pds.partitions[k]
        return list(zip(p.recordings, p.participants, strict=True))
    return [(r.recording, r.participant) for r in parts[k]]


def _with_engine_note(g: Guarantee, engine: str, n: int) -> Guarantee:
    note = (f"released partition-wise ({n} partition(s), engine {engine!r}); per-participant "
            "budgets compose every participant's units over all partitions")
    return replace(g, notes=(*g.notes, note))


class ProtectedPartitions:
    """The protected partitions of a source, computed lazily (see :func:`iter_protected`).

    Iterate once to get ``(raw partition, protected partition)`` pairs; afterwards
    :attr:`guarantee` is the combined record.
    """

    def __init__(self, source: Source, plan: PartitionPlan, streams: PartitionStreams,
                 seed: int | None = None) -> None:
        self._source, self._plan, self._streams, self._seed = source, plan, streams, seed
        self._records: list[Guarantee] | None = None

    def __len__(self) -> int:
        return self._streams.n_partitions

    def __iter__(self) -> Iterator[tuple[Dataset, Dataset]]:
        records: list[Guarantee] = []
        for _, part, rel in iter_release(self._source, self._plan, self._streams):
            records.append(rel.guarantee)
            yield part, rel.output
        self._records = records

    @property
    def guarantee(self) -> Guarantee:
        if self._records is None:
            raise InvalidParameterError("the guarantee is known once every partition has been "
                                        "released: iterate over all partitions first")
        return combine_records(self._plan, self._records).with_seed(self._seed)


def iter_protected(source: Source, *, mechanism: str, params: Any = None,
                   seed: int | np.random.SeedSequence | None = None,
                   **param_kwargs: Any) -> ProtectedPartitions:
    """The protected partitions of ``source`` as a lazy iterable (one partition in memory).

    ``seed`` may be a :class:`numpy.random.SeedSequence` (e.g. a cell's protection stream); the
    record notes an ``int`` seed only.

    >>> import numpy as np
    >>> from gazeprivacy.data.partitioned import split_dataset
    >>> from gazeprivacy.data.simulate import simulate_dataset
    >>> ds = simulate_dataset(n_participants=2, tasks=("reading",), duration_s=2.0,
    ...                       sampling_rate_hz=100, rng=np.random.default_rng(0))
    >>> stream = iter_protected(split_dataset(ds, 1), mechanism="kaleido", epsilon=1.0,
    ...                         radius_deg=2.0, window_samples=25, seed=3)
    >>> [prot.n_samples for _, prot in stream] == [p.n_samples for p in split_dataset(ds, 1)]
    True
    >>> stream.guarantee.seed
    3
    """
    parts = _Parts(source)
    plan = plan_for(mechanism, params, **param_kwargs)
    streams = partition_streams(seed, parts.n)
    return ProtectedPartitions(parts.pds if parts.pds is not None else source, plan, streams,
                               seed if isinstance(seed, int) else None)


def read_guarantee(path: str | Path) -> Guarantee:
    """The guarantee record of a partitioned release folder."""
    f = Path(path) / GUARANTEE_FILE
    if not f.is_file():
        raise InvalidDataError(f"{str(path)!r} has no {GUARANTEE_FILE}")
    return Guarantee.from_dict(json.loads(f.read_text()))
