# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Datasets too large for memory: a folder of Parquet partitions, read one at a time.

A *partitioned dataset* is a folder holding

* ``part-00000.parquet``, ``part-00001.parquet``, ... -- each an ordinary long-format Parquet
  file (:func:`gazeprivacy.data.io.write_dataset`) with whole recordings; a participant's
  recordings may span partitions;
* ``_gazeprivacy.json`` -- the manifest: dataset name and info, and for every partition its
  file, recordings, participants and sample count. It is written **last**, so a folder whose
  writer was interrupted has no manifest and is refused rather than read half.

Reading a partition costs memory for that partition only; the manifest answers questions about
the whole dataset (participants, recordings per participant, sample count) without reading any
samples. Recording ids must be unique across partitions.

>>> import tempfile
>>> import numpy as np
>>> from gazeprivacy.data.simulate import simulate_dataset
>>> ds = simulate_dataset(n_participants=3, tasks=("reading",), duration_s=2.0,
...                       sampling_rate_hz=100, rng=np.random.default_rng(0))
>>> with tempfile.TemporaryDirectory() as tmp:
...     pds = write_partitioned(ds, tmp, recordings_per_partition=2)
...     (pds.n_partitions, pds.n_recordings, pds.n_samples == ds.n_samples)
(2, 3, True)
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gazeprivacy._atomic import Output, atomic_dir, check_outputs
from gazeprivacy._paths import is_within
from gazeprivacy.data.io import read_dataset, write_dataset
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError

__all__ = [
    "MANIFEST",
    "PARTITIONED_MARKERS",
    "PartitionInfo",
    "PartitionWriter",
    "PartitionedDataset",
    "is_partitioned",
    "partition_file",
    "split_dataset",
    "write_manifest",
    "write_partition",
    "write_partitioned",
]

#: File name of the manifest inside a partitioned-dataset folder.
MANIFEST = "_gazeprivacy.json"
#: Names that show a folder holds a partitioned dataset (or a partition-wise release), so that
#: ``overwrite`` may replace it; a folder holding none of them is never replaced.
PARTITIONED_MARKERS = (MANIFEST, "part-00000.parquet", "guarantee.json")
_FORMAT = "gazeprivacy-partitioned"
_VERSION = 1


@dataclass(frozen=True)
class PartitionInfo:
    """What the manifest says of one partition."""

    file: str
    recordings: tuple[str, ...]
    participants: tuple[str, ...]  # one entry per recording, aligned with ``recordings``
    n_samples: int

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "recordings": list(self.recordings),
                "participants": list(self.participants), "n_samples": self.n_samples}


def is_partitioned(path: str | Path) -> bool:
    """Whether ``path`` is a folder with a partitioned-dataset manifest."""
    return (Path(path) / MANIFEST).is_file()


class PartitionedDataset:
    """A partitioned dataset on disk (see the module docstring). Iterating yields the partitions
    as :class:`~gazeprivacy.data.Dataset` objects, one in memory at a time.

    Raises
    ------
    InvalidDataError
        ``path`` has no manifest (not a partitioned dataset, or its writer did not finish), the
        manifest is corrupt, or a partition file it lists is missing.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        manifest = self.path / MANIFEST
        if not manifest.is_file():
            raise InvalidDataError(
                f"{str(self.path)!r} is not a partitioned dataset: it has no {MANIFEST} (write "
                "one with write_partitioned; a folder whose writer was interrupted has none)")
        try:
            meta = json.loads(manifest.read_text())
            if meta.get("format") != _FORMAT:
                raise ValueError(f"format is {meta.get('format')!r}, not {_FORMAT!r}")
            self.partitions = tuple(
                PartitionInfo(file=p["file"], recordings=tuple(p["recordings"]),
                              participants=tuple(p["participants"]),
                              n_samples=int(p["n_samples"]))
                for p in meta["partitions"])
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidDataError(f"{str(manifest)!r} is corrupt: {exc}") from None
        self.name: str = meta.get("name", self.path.name)
        self.info: dict[str, Any] = meta.get("info", {})
        for p in self.partitions:
            # A manifest names files inside its own folder only: an absolute path or "../"
            # (or a link leading out) could make a reader load any file on the machine.
            if Path(p.file).is_absolute() or not is_within(p.file, self.path):
                raise InvalidDataError(
                    f"{str(manifest)!r} lists partition file {p.file!r}, which is outside the "
                    "dataset's folder; refusing to read it")
            if not (self.path / p.file).is_file():
                raise InvalidDataError(f"{str(self.path)!r}: partition file {p.file!r} listed "
                                       "in the manifest is missing")

    def __len__(self) -> int:
        return len(self.partitions)

    @property
    def n_partitions(self) -> int:
        return len(self.partitions)

    @property
    def n_recordings(self) -> int:
        return sum(len(p.recordings) for p in self.partitions)

    @property
    def n_samples(self) -> int:
        return sum(p.n_samples for p in self.partitions)

    @property
    def participants(self) -> tuple[str, ...]:
        """Participant ids in order of first appearance."""
        return tuple(dict.fromkeys(q for p in self.partitions for q in p.participants))

    def recordings_per_participant(self) -> dict[str, int]:
        """Number of recordings of each participant over all partitions (for composing a
        per-recording guarantee into a per-participant one)."""
        return dict(Counter(q for p in self.partitions for q in p.participants))

    def partition(self, i: int) -> Dataset:
        """Read partition ``i`` into memory."""
        if not 0 <= i < len(self.partitions):
            raise IndexError(f"partition {i} out of range (0..{len(self.partitions) - 1})")
        return read_dataset(self.path / self.partitions[i].file, name=self.name)

    def __iter__(self) -> Iterator[Dataset]:
        for i in range(len(self.partitions)):
            yield self.partition(i)

    def __repr__(self) -> str:
        return (f"PartitionedDataset({str(self.path)!r}: {self.n_partitions} partitions, "
                f"{self.n_recordings} recordings, {len(self.participants)} participants, "
                f"{self.n_samples:,} samples)")


class PartitionWriter:
    """Write a partitioned dataset one partition at a time, atomically: the partitions and the
    manifest go to a hidden folder beside ``path`` that replaces it in :meth:`close` (or on
    leaving a ``with`` block without an exception), so an earlier dataset at ``path`` stays whole
    until the new one is complete. :meth:`abort` (or an exception in the ``with`` block) deletes
    the hidden folder and leaves ``path`` as it was.

    Parameters
    ----------
    path
        Target folder; created if missing. It must be empty, or hold a partitioned dataset and
        ``overwrite`` be True (:func:`gazeprivacy._atomic.check_outputs`).
    name, info
        Dataset name and info stored in the manifest.
    overwrite
        Replace an earlier partitioned dataset at ``path`` (on :meth:`close`).
    """

    def __init__(self, path: str | Path, *, name: str = "dataset",
                 info: dict[str, Any] | None = None, overwrite: bool = False) -> None:
        self.final = Path(path)
        self.name = name
        self.info = dict(info or {})
        self._parts: list[PartitionInfo] = []
        self._seen: set[str] = set()
        self._closed = False
        check_outputs([Output(self.final, "path", folder=True, markers=PARTITIONED_MARKERS,
                              holds="partitioned dataset")], overwrite=overwrite)
        self.final.parent.mkdir(parents=True, exist_ok=True)
        self._swap = atomic_dir(self.final)
        #: where the partitions are written until :meth:`close` (then ``final``)
        self.path = self._swap.__enter__()

    def write(self, part: Dataset) -> PartitionInfo:
        """Append one partition (a whole-recordings :class:`Dataset`)."""
        if self._closed:
            raise InvalidParameterError("this PartitionWriter is closed")
        ids = [r.recording for r in part]
        if not ids:
            raise InvalidDataError("cannot write an empty partition (it has no recordings)")
        clash = self._seen.intersection(ids)
        if clash:
            raise InvalidDataError(f"recording id(s) {sorted(clash)[:5]} already written to an "
                                   "earlier partition; recording ids must be unique")
        self._seen.update(ids)
        info = write_partition(self.path, len(self._parts), part, name=self.name,
                               info=self.info)
        self._parts.append(info)
        return info

    def close(self) -> PartitionedDataset:
        """Write the manifest, put the folder in place and return the finished dataset."""
        if not self._closed:
            try:
                write_manifest(self.path, self._parts, name=self.name, info=self.info)
            except BaseException:
                self.abort()
                raise
            self._closed = True
            self._swap.__exit__(None, None, None)
            self.path = self.final
        return PartitionedDataset(self.path)

    def abort(self) -> None:
        """Delete what was written; ``path`` keeps what it held before."""
        if not self._closed:
            self._closed = True
            stop = InvalidParameterError("the partitioned write was aborted")
            with contextlib.suppress(InvalidParameterError):
                self._swap.__exit__(type(stop), stop, None)
            self.path = self.final

    def __enter__(self) -> PartitionWriter:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


def partition_file(index: int) -> str:
    """File name of partition ``index`` inside a partitioned-dataset folder.

    >>> partition_file(3)
    'part-00003.parquet'
    """
    return f"part-{int(index):05d}.parquet"


def write_partition(path: str | Path, index: int, part: Dataset, *, name: str = "dataset",
                    info: dict[str, Any] | None = None) -> PartitionInfo:
    """Write partition ``index`` (a whole-recordings :class:`Dataset`) as
    ``path/part-%05d.parquet`` and return its manifest entry.

    The building block of :class:`PartitionWriter`, usable where partitions are written by
    parallel workers (e.g. ``gazeprivacy.engines.dask``); the driver then calls
    :func:`write_manifest` with every partition's entry, last. Uniqueness of recording ids across
    partitions is checked by the writer of the manifest.
    """
    if not len(part):
        raise InvalidDataError("cannot write an empty partition (it has no recordings)")
    file = partition_file(index)
    # written beside, then renamed: a reader (or a second worker re-running the same task after
    # a lost heartbeat) never sees a half-written partition file
    tmp = Path(path) / f".{file}.{uuid.uuid4().hex[:12]}.parquet"
    try:
        write_dataset(Dataset(part.recordings, name=name, info=dict(info or {})), tmp)
        os.replace(tmp, Path(path) / file)
    finally:
        tmp.unlink(missing_ok=True)
    return PartitionInfo(file=file, recordings=tuple(r.recording for r in part),
                         participants=tuple(r.participant for r in part),
                         n_samples=part.n_samples)


def write_manifest(path: str | Path, partitions: Iterable[PartitionInfo], *,
                   name: str = "dataset", info: dict[str, Any] | None = None
                   ) -> PartitionedDataset:
    """Write the manifest of partition files already in ``path`` (e.g. written by parallel
    workers with :func:`~gazeprivacy.data.io.write_dataset`), last, and open the result."""
    parts = list(partitions)
    ids = [r for p in parts for r in p.recordings]
    if len(set(ids)) != len(ids):
        raise InvalidDataError("recording ids must be unique across partitions")
    meta = {"format": _FORMAT, "version": _VERSION, "name": name, "info": dict(info or {}),
            "partitions": [p.to_dict() for p in parts]}
    (Path(path) / MANIFEST).write_text(json.dumps(meta, indent=1, default=str))
    return PartitionedDataset(path)


def split_dataset(ds: Dataset, recordings_per_partition: int) -> list[Dataset]:
    """Cut ``ds`` into consecutive partitions of at most ``recordings_per_partition``
    recordings (order kept)."""
    if recordings_per_partition < 1:
        raise InvalidParameterError(
            f"recordings_per_partition must be >= 1, got {recordings_per_partition}")
    recs = ds.recordings
    return [Dataset(recs[i:i + recordings_per_partition], name=ds.name, info=ds.info)
            for i in range(0, len(recs), recordings_per_partition)]


def write_partitioned(data: Dataset | Iterable[Dataset], path: str | Path, *,
                      recordings_per_partition: int | None = None,
                      overwrite: bool = False) -> PartitionedDataset:
    """Write a dataset (cut into partitions of ``recordings_per_partition`` recordings) or an
    iterable of partitions (written as given, e.g. generated one at a time) to ``path``."""
    if isinstance(data, Dataset):
        if recordings_per_partition is None:
            raise InvalidParameterError(
                "recordings_per_partition is required when writing a whole Dataset")
        name, info = data.name, data.info
        parts: Iterable[Dataset] = split_dataset(data, recordings_per_partition)
    else:
        name, info, parts = None, None, data
    writer: PartitionWriter | None = None
    try:
        for part in parts:
            if writer is None:
                writer = PartitionWriter(path, name=name or part.name, info=info or part.info,
                                         overwrite=overwrite)
            writer.write(part)
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    if writer is None:
        raise InvalidDataError("nothing to write: no partitions (or no recordings)")
    return writer.close()

