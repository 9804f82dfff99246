# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Engine ``dask``: run a partition-wise plan on a Dask cluster (optional extra ``distributed``).

What runs where (see docs/distributed.md):

* **workers, phase 1** -- one task per partition: read the partition from disk, run the plan's
  client phase (all perturbation happens here) on the partition's client stream, return only
  the *message* (for DPGazeSynth: the OUE column sums and report counts per budget --
  O(grid), not O(samples)). Sample arrays never travel through the driver.
* **driver (curator)** -- gather the messages in partition order, ``plan.curate`` with the
  curator stream, scatter the (small) model to every worker.
* **workers, phase 2** -- one task per partition: read the partition again, recompute its
  client state from the *same* client stream (same state, nothing new is released), release it
  with the model on the partition's release stream, write ``part-%05d.parquet`` into the
  output folder and return its manifest entry and guarantee record.
* **driver** -- write the manifest last (a folder without one is refused by readers).

Participant-grouped plans (``grouped = True``) run three task phases: the public pass (each
partition's public shape), the clients (under the driver's public assignment) and the releases
(each with the broadcast model and its own piece); the driver assigns and curates in between.

Every partition gets the streams of :func:`~gazeprivacy.engines.plan.partition_streams`, so
the output for a seed equals engine ``local``'s bit for bit, whatever the number of workers,
the order tasks finish in, or a task re-run after a lost worker. Warnings raised in a task
(e.g. paper mode's ``NotFormallyPrivateWarning``) are re-raised on the driver, once each
(worker processes with one thread each, as :func:`local_cluster` starts and docs/distributed.md
recommends; see :func:`_capture`). An error in a task is re-raised on the driver naming the
partition, its file and the phase, with the original message and the worker's traceback
chained.

Input and output folders must be visible at the same path to the driver and every worker (one
machine, or a shared file system). Workers need the same gazeprivacy version installed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import uuid
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gazeprivacy._atomic import Output, atomic_dir, check_outputs
from gazeprivacy._optional import import_optional
from gazeprivacy.data.io import read_dataset
from gazeprivacy.data.partitioned import (
    PARTITIONED_MARKERS,
    PartitionedDataset,
    PartitionInfo,
    write_manifest,
    write_partition,
)
from gazeprivacy.data.recording import Dataset
from gazeprivacy.engines.plan import PartitionPlan, PartitionStreams, same_recordings
from gazeprivacy.exceptions import GazePrivacyError, InvalidParameterError
from gazeprivacy.guarantees import Guarantee, Release
from gazeprivacy.mechanisms.release import SealPolicy, sealed_name_info

__all__ = ["PartitionTaskError", "local_cluster", "run_plan"]

_Warnings = list[tuple[type[Warning], str]]


class PartitionTaskError(GazePrivacyError, RuntimeError):
    """A partition's task failed on a worker with an error that is not one of gazeprivacy's
    own; the message names the partition, its file and the phase, the cause is chained."""


@dataclass(frozen=True)
class _Job:
    """What every task needs to know (small, pickled with each task)."""

    source: str  # absolute path of the partitioned input folder
    name: str
    info: dict[str, Any]
    files: tuple[str, ...]
    plan: PartitionPlan
    streams: PartitionStreams
    write_to: str | None
    driver_pid: int
    sealing: SealPolicy | None = None

    def read(self, i: int) -> Dataset:
        # exactly what PartitionedDataset.partition(i) reads (without re-parsing the manifest)
        return read_dataset(Path(self.source) / self.files[i], name=self.name)


def _capture(job: _Job, fn: Callable[[], Any]) -> tuple[Any, _Warnings]:
    """Run ``fn``; in a worker process with one thread, record its warnings (returned, to be
    re-raised on the driver).

    ``warnings.catch_warnings`` changes process-global state and is not thread-safe: with several
    task threads in one process (``dask worker --nthreads 2``, or in-process workers) concurrent
    captures would corrupt each other's and the driver's warning filters. There warnings are
    left alone: in-process workers emit them into the driver's process directly, worker processes
    with several threads into their own logs.
    """
    distributed = import_optional("distributed")
    try:
        nthreads = distributed.get_worker().state.nthreads
    except ValueError:  # not on a worker (called directly)
        nthreads = 0
    if nthreads != 1 or os.getpid() == job.driver_pid:
        return fn(), []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [(w.category, str(w.message)) for w in caught]


def _client_task(job: _Job, i: int) -> tuple[Any, _Warnings]:
    """Phase 1 on a worker: the partition's client message."""
    def run() -> Any:
        _, message = job.plan.client(job.read(i), job.streams.client(i))
        return message

    return _capture(job, run)


def _write(job: _Job, i: int, part: Dataset, rel: Release[Dataset]
           ) -> tuple[PartitionInfo | Release[Dataset], Guarantee]:
    """Seal and write a released partition (or hand it back without ``write_to``)."""
    if job.write_to is None:
        return rel, rel.guarantee
    out, record = rel.output, rel.guarantee
    if job.sealing is not None:  # pseudonyms agree across workers: one key per run
        sealed = job.sealing.seal(rel, source=part, index=i)
        out, record = sealed.dataset, sealed.guarantee
    name, info = sealed_name_info(job.sealing, job.name, job.info)
    entry = write_partition(job.write_to, i, out, name=name, info=info)
    return entry, record


def _release_task(job: _Job, i: int, model: Any
                  ) -> tuple[PartitionInfo | Release[Dataset], Guarantee, _Warnings]:
    """Phase 2 on a worker: recompute the client state, release, write the partition file."""
    def run() -> tuple[PartitionInfo | Release[Dataset], Guarantee]:
        part = job.read(i)
        state, _ = job.plan.client(part, job.streams.client(i))
        rel = job.plan.release(part, state, model, job.streams.release(i))
        del state
        if not same_recordings(job.plan, part, rel.output):
            raise AssertionError(f"{job.plan.mechanism} changed recordings or row counts")
        return _write(job, i, part, rel)

    (out, record), caught = _capture(job, run)
    return out, record, caught


def _shape_task(job: _Job, i: int) -> tuple[Any, _Warnings]:
    """Grouped plans, the public pass on a worker: the partition's public shape."""
    return _capture(job, lambda: job.plan.shape(job.read(i)))


def _grouped_client_task(job: _Job, i: int) -> tuple[Any, _Warnings]:
    """Grouped plans, phase 1 on a worker: the partition's message under the assignment."""
    return _capture(job, lambda: job.plan.client(i, job.read(i), job.streams.client(i)))


def _grouped_release_task(job: _Job, i: int, model: Any, piece: Any
                          ) -> tuple[PartitionInfo | Release[Dataset], Guarantee, _Warnings]:
    """Grouped plans, phase 2 on a worker: release with the model and the partition's piece,
    write the partition file."""
    def run() -> tuple[PartitionInfo | Release[Dataset], Guarantee]:
        part = job.read(i)
        rel = job.plan.release(i, part, model, piece, job.streams.release(i))
        if not same_recordings(job.plan, part, rel.output, rows=False):
            raise AssertionError(f"{job.plan.mechanism} changed the recordings")
        return _write(job, i, part, rel)

    (out, record), caught = _capture(job, run)
    return out, record, caught


def local_cluster(n_workers: int | None = None, *, processes: bool = True,
                  **kwargs: Any) -> Any:
    """A ``distributed.LocalCluster`` as this engine starts it: one thread per worker (the
    kernels are numpy; processes sidestep the GIL), ``n_workers`` default one per core, the
    dashboard on a free port (never the fixed 8787 that a second cluster would clash on).
    ``kwargs`` go to ``LocalCluster`` (e.g. ``protocol="tcp://"`` with ``processes=False``)."""
    distributed = import_optional("distributed")
    opts: dict[str, Any] = {"threads_per_worker": 1, "dashboard_address": ":0"} | kwargs
    return distributed.LocalCluster(n_workers=n_workers, processes=processes, **opts)


class _DropSlowClose(logging.Filter):
    """Drops the nanny's "Worker process still alive after 4.0 seconds, killing" while our own
    local cluster closes: on a busy machine a worker takes longer than the nanny's fixed grace
    to exit, after every result is in; the kill is harmless and the warning would alarm."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Worker process still alive after")


@contextmanager
def _client(scheduler: Any, n_workers: int | None) -> Iterator[Any]:
    distributed = import_optional("distributed")
    if isinstance(scheduler, distributed.Client):
        yield scheduler  # the caller's client: theirs to close
        return
    if scheduler is None:
        nanny = logging.getLogger("distributed.nanny")
        quiet = _DropSlowClose()
        try:
            with local_cluster(n_workers) as cluster:
                with distributed.Client(cluster) as client:
                    yield client
                nanny.addFilter(quiet)  # from here on the cluster is closing
        finally:
            nanny.removeFilter(quiet)
        return
    if not isinstance(scheduler, str):
        raise InvalidParameterError(
            "scheduler must be a Dask scheduler address such as 'tcp://10.0.0.5:8786', a "
            f"distributed.Client, or None (a local cluster), got {type(scheduler).__name__}")
    try:
        client = distributed.Client(scheduler)
    except (OSError, TimeoutError) as exc:
        raise InvalidParameterError(
            f"cannot reach the Dask scheduler at {scheduler!r} ({exc}); start one with "
            "`dask scheduler` and workers with `dask worker ADDRESS`, or leave out the "
            "scheduler for a local cluster") from None
    with client:
        yield client


def _partition_error(exc: BaseException, i: int, file: str, phase: str) -> BaseException:
    """The task's exception, its message prefixed with the partition (type kept where ours)."""
    msg = f"partition {i} ({file}), {phase} phase: {exc}"
    if isinstance(exc, ModuleNotFoundError) and (exc.name or "").startswith("gazeprivacy"):
        msg += " -- install the same gazeprivacy version on every Dask worker"
    if isinstance(exc, GazePrivacyError):
        try:
            return type(exc)(msg)
        except TypeError:
            pass
    return PartitionTaskError(f"{msg} ({type(exc).__name__})")


def _collect(client: Any, futures: Sequence[Any], job: _Job, phase: str,
              advance: Callable[[], None], consume: Callable[[int, Any], None]) -> None:
    """Hand every partition's result to ``consume(i, result)`` in partition order (results that
    finish early wait until their predecessors have been consumed, so reductions happen in the
    same order as in engine ``local``). The first failure cancels the rest and is raised naming
    its partition."""
    distributed = import_optional("distributed")
    index = {f.key: i for i, f in enumerate(futures)}
    pending: dict[int, Any] = {}
    next_i = 0
    for fut in distributed.as_completed(futures):
        i = index[fut.key]
        try:
            pending[i] = fut.result()
        except Exception as exc:
            client.cancel(list(futures))
            raise _partition_error(exc, i, job.files[i], phase) from exc
        fut.release()
        advance()
        while next_i in pending:
            consume(next_i, pending.pop(next_i))
            next_i += 1


def _reraise(caught: Sequence[_Warnings]) -> None:
    for category, message in dict.fromkeys(w for ws in caught for w in ws):
        warnings.warn(message, category, stacklevel=3)


@contextmanager
def _progress(show: bool, mechanism: str, n: int, phases: Sequence[str]
              ) -> Iterator[dict[str, Callable[[], None]]]:
    if not show:
        yield {p: (lambda: None) for p in phases}
        return
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        tasks = {p: bar.add_task(f"{mechanism} (dask) {p}", total=n) for p in phases}
        yield {p: (lambda t=t: bar.advance(t)) for p, t in tasks.items()}


def run_plan(source: PartitionedDataset | str | Path, plan: PartitionPlan,
             streams: PartitionStreams, *, scheduler: Any = None,
             write_to: str | Path | None = None, overwrite: bool = False,
             progress: bool = False, n_workers: int | None = None,
             sealing: SealPolicy | None = None
             ) -> list[Guarantee] | list[Release[Dataset]]:
    """Engine "dask": run ``plan`` over the partitioned dataset ``source`` on a Dask cluster.

    Parameters
    ----------
    source : PartitionedDataset or path
        The partitioned input folder (every worker reads its partitions from it).
    plan : PartitionPlan
        From :func:`~gazeprivacy.engines.plan.plan_for`.
    streams : PartitionStreams
        From :func:`~gazeprivacy.engines.plan.partition_streams` for ``source``'s partitions.
    scheduler : str or distributed.Client, optional
        Scheduler address (``"tcp://host:8786"``) or a connected client; default: a local
        cluster (:func:`local_cluster`) started and closed by this call.
    write_to : path, optional
        Output folder: each task writes its ``part-%05d.parquet``, the driver the manifest last.
        Must be empty or, with ``overwrite``, hold a partitioned dataset, which stays whole
        until the new one is complete (written into a hidden folder beside it).
    overwrite : bool
        Replace an earlier partitioned dataset in ``write_to``.
    progress : bool
        Show a progress bar per phase (rich).
    n_workers : int, optional
        Workers of the local cluster (default one per core); ignored with ``scheduler``.
    sealing : SealPolicy, optional
        Seal each partition before its task writes it (as engine local does); the records
        returned are then the sealed ones.

    Returns
    -------
    list of Guarantee, or list of Release
        With ``write_to``: each partition's record (composed over its own participants) in
        partition order, as :func:`~gazeprivacy.engines.local.run_plan_local` returns;
        :func:`~gazeprivacy.engines.plan.combine_guarantees` makes them one. Without: the
        released partitions, gathered to the driver (small data only).

    Raises
    ------
    GazePrivacyError
        A task failed: the message names the partition, its file and the phase (the worker's
        exception is chained); or the scheduler cannot be reached, or ``write_to`` is taken.
    """
    pds = source if isinstance(source, PartitionedDataset) else PartitionedDataset(source)
    if streams.n_partitions != pds.n_partitions:
        raise InvalidParameterError(f"streams are for {streams.n_partitions} partitions, the "
                                    f"source has {pds.n_partitions}")
    out = None if write_to is None else Path(write_to).resolve()
    name, info = sealed_name_info(sealing, pds.name, dict(pds.info))
    with contextlib.ExitStack() as swap:
        if out is not None:
            # checked as the local engine's writer does; tasks write into a hidden folder that
            # replaces write_to once the manifest is written (an error leaves it as it was)
            check_outputs([Output(out, "write_to", folder=True, markers=PARTITIONED_MARKERS,
                                  holds="partitioned dataset")], inputs=[pds.path],
                          overwrite=overwrite)
            out = swap.enter_context(atomic_dir(out))
        return _run_plan(pds, plan, streams, out, (name, info), scheduler=scheduler,
                         n_workers=n_workers, progress=progress, sealing=sealing)


def _run_plan(pds: PartitionedDataset, plan: PartitionPlan, streams: PartitionStreams,
              out: Path | None, name_info: tuple[str, dict[str, Any]], *, scheduler: Any,
              n_workers: int | None, progress: bool, sealing: Any) -> list[Any]:
    """:func:`run_plan` once ``out`` (a hidden folder, or None) is known."""
    name, info = name_info
    job = _Job(source=str(pds.path.resolve()), name=pds.name, info=dict(pds.info),
               files=tuple(p.file for p in pds.partitions), plan=plan, streams=streams,
               write_to=None if out is None else str(out), driver_pid=os.getpid(),
               sealing=sealing)
    n = pds.n_partitions
    run = uuid.uuid4().hex[:8]
    if getattr(plan, "grouped", False):
        results = _run_grouped(job, scheduler, n_workers, progress, run)
        return _finish(results, out, name, info)
    two_phase = getattr(plan, "two_phase", True)
    phases = ("client", "release") if two_phase else ("release",)
    with _client(scheduler, n_workers) as client, \
            _progress(progress, plan.mechanism, n, phases) as advance:
        job_ref = _shared(client, job)
        if two_phase:
            futures = [client.submit(_client_task, job_ref, i, key=f"gp-client-{run}-{i:05d}",
                                     pure=False) for i in range(n)]
            merge = getattr(plan, "merge", None)
            messages: list[Any] = []
            caught: list[_Warnings] = []

            def take(i: int, result: tuple[Any, _Warnings]) -> None:
                messages.append(result[0])
                caught.append(result[1])
                if merge is not None:  # fold as they arrive, in order (as engine local does)
                    messages[:] = [merge(messages)]

            _collect(client, futures, job, "client", advance["client"], take)
            _reraise(caught)
            model = plan.curate(messages, streams.curator())
            del messages
        else:
            model = plan.curate([], streams.curator())
        # in a list: scatter would otherwise split a dict or list model into parts
        [model_ref] = client.scatter([model], broadcast=True, hash=False)
        futures = [client.submit(_release_task, job_ref, i, model_ref,
                                 key=f"gp-release-{run}-{i:05d}", pure=False)
                   for i in range(n)]
        results: list[Any] = []
        _collect(client, futures, job, "release", advance["release"],
                 lambda i, result: results.append(result))
        client.cancel([model_ref, job_ref])
    return _finish(results, out, name, info)


def _shared(client: Any, obj: Any) -> Any:
    """``obj`` sent once to every worker; tasks take the reference. The job names every
    partition's file (and a grouped plan every partition's assignment), so pickling it into
    each task would cost O(partitions) per task and O(partitions^2) in the scheduler."""
    [ref] = client.scatter([obj], broadcast=True, hash=False)  # a list: never split
    return ref


def _finish(results: list[Any], out: Path | None, name: str, info: dict[str, Any]
            ) -> list[Any]:
    """Re-raise the tasks' warnings; write the manifest last; the records (or releases)."""
    _reraise([w for *_, w in results])
    if out is None:
        return [r for r, _, _ in results]
    write_manifest(out, [e for e, _, _ in results], name=name, info=info)
    return [g for _, g, _ in results]


def _gather(client: Any, job: _Job, fn: Callable[..., Any], phase: str, run: str,
            advance: Callable[[], None], *args: Any) -> list[Any]:
    """Submit ``fn(job, i, *args)`` for every partition; the results in partition order (the
    tasks' warnings re-raised)."""
    job_ref = _shared(client, job)
    futures = [client.submit(fn, job_ref, i, *args, key=f"gp-{phase}-{run}-{i:05d}",
                             pure=False) for i in range(len(job.files))]
    results: list[Any] = []
    _collect(client, futures, job, phase, advance, lambda i, r: results.append(r))
    client.cancel(job_ref)
    _reraise([r[1] for r in results])
    return [r[0] for r in results]


def _run_grouped(job: _Job, scheduler: Any, n_workers: int | None, progress: bool,
                 run: str) -> list[Any]:
    """A participant-grouped plan on the cluster: the public pass (workers), assign (driver),
    the clients (workers), curate (driver), the releases (workers)."""
    plan, streams, n = job.plan, job.streams, len(job.files)
    phases = ("shape", "client", "release")
    with _client(scheduler, n_workers) as client, \
            _progress(progress, plan.mechanism, n, phases) as advance:
        shapes = _gather(client, job, _shape_task, "shape", run, advance["shape"])
        bound = plan.assign(shapes, streams.root())
        del shapes
        job = replace(job, plan=bound)
        messages = _gather(client, job, _grouped_client_task, "client", run, advance["client"])
        merge = getattr(bound, "merge", None)
        model, pieces = bound.curate([merge(messages)] if merge else messages,
                                     streams.curator())
        del messages
        [model_ref] = client.scatter([model], broadcast=True, hash=False)
        job_ref = _shared(client, job)
        futures = [client.submit(_grouped_release_task, job_ref, i, model_ref, pieces[i],
                                 key=f"gp-release-{run}-{i:05d}", pure=False)
                   for i in range(n)]
        results: list[Any] = []
        _collect(client, futures, job, "release", advance["release"],
                 lambda i, result: results.append(result))
        client.cancel([model_ref, job_ref])
    return results
