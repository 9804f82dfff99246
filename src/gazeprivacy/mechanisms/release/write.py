# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Writing a sealed release: the data, its record, and on request the id map and the data
holder's report, atomically (written beside, then renamed). Part of
:mod:`gazeprivacy.mechanisms.release`.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy._atomic import Output, atomic_files, check_outputs, sidecars
from gazeprivacy.accounting.ledger import file_sha256
from gazeprivacy.data.io import write_dataset
from gazeprivacy.data.recording import Dataset
from gazeprivacy.guarantees import Guarantee, Release
from gazeprivacy.mechanisms.release.sealing import SealedRelease, seal
from gazeprivacy.rng import make_rng

__all__ = [
    "RECORD_KEY",
    "guarantee_path",
    "record_json",
    "release_outputs",
    "write_release",
    "write_sealed",
    "write_sealed_table",
]

def _atomic_write(files: Mapping[Path, Any]) -> None:
    """Write each ``path -> writer(tmp_path)`` beside its target, then rename all in the order
    given (write_sealed: the record, the id map, the data, then the report that hashes it), with
    :func:`gazeprivacy._atomic.atomic_files`: an exception in any writer (Ctrl-C, SIGTERM, a full
    disk) renames nothing and removes every temporary."""
    for path in files:
        path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_files(*files) as temps:
        for writer, tmp in zip(files.values(), temps, strict=True):
            writer(tmp)


def release_outputs(path: str | Path, *, id_map_path: str | Path | None = None,
                    report_path: str | Path | None = None,
                    names: tuple[str, str, str] = ("path", "id_map_path", "report_path")
                    ) -> list[Output]:
    """What a sealed release at ``path`` writes, for :func:`gazeprivacy._atomic.check_outputs`:
    the data (and a CSV's metadata file), its record, the id map and the report; ``names`` are
    the options that name the last three (the command line passes its flags)."""
    return [Output(path, names[0]),
            *(Output(p, "the record" if p.name.endswith(".guarantee.json")
                     else f"{names[0]}'s metadata file") for p in sidecars(path)),
            Output(id_map_path, names[1]), Output(report_path, names[2])]


def _write_table(table: pl.DataFrame, path: Path,
                 metadata: dict[str, str] | None = None) -> None:
    if path.name.lower().endswith((".parquet", ".pq")):
        if metadata:
            import pyarrow.parquet as pq

            arrow = table.to_arrow()
            pq.write_table(arrow.replace_schema_metadata(
                {**(arrow.schema.metadata or {}), **metadata}), path)
        else:
            table.write_parquet(path)
    else:
        table.write_csv(path)


def write_sealed_table(table: pl.DataFrame, path: str | Path) -> Path:
    """Write a table (e.g. an id map) atomically, CSV or Parquet by suffix."""
    path = Path(path)
    _atomic_write({path: lambda p: _write_table(table, p)})
    return path


def guarantee_path(output: str | Path) -> Path:
    """Where the record of ``output`` goes: ``OUTPUT.guarantee.json``."""
    output = Path(output)
    return output.with_name(output.name + ".guarantee.json")


#: Parquet schema-metadata key of the record embedded in a written release.
RECORD_KEY = "gazeprivacy.guarantee"


def _software() -> dict[str, str]:
    import sys

    version = getattr(sys.modules.get("gazeprivacy"), "__version__", "unknown")
    return {"software": "gazeprivacy", "version": str(version),
            "at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")}


def record_json(guarantee: Guarantee) -> str:
    """The written record: the guarantee plus ``written`` (package, version, UTC time).
    :meth:`Guarantee.from_json` reads it back (ignoring ``written``)."""
    return json.dumps({**guarantee.to_dict(), "written": _software()}, indent=2,
                      allow_nan=False)


def write_sealed(sealed: SealedRelease, path: str | Path, *, id_map_path: str | Path | None = None,
                 report_path: str | Path | None = None,
                 input_path: str | Path | None = None, overwrite: bool = False) -> Path:
    """Write a sealed release (format by suffix) and its record, atomically; the id map and the
    data holder's report only when their paths are given. Every output is checked first
    (:func:`gazeprivacy._atomic.check_outputs`: none may be ``input_path`` or another output; an
    existing one needs ``overwrite``).

    The record goes to ``PATH.guarantee.json`` and, for Parquet, also into the file's schema
    metadata (key :data:`RECORD_KEY`), each with the package version and the time. The SHA-256
    of the output (and of ``input_path``) goes only to the data holder's report: a hash of the
    raw input identifies it, so it is never written into the release or its record.
    """
    path = Path(path)
    check_outputs(release_outputs(path, id_map_path=id_map_path, report_path=report_path),
                  inputs=[input_path], overwrite=overwrite)
    text = record_json(sealed.guarantee)
    files: dict[Path, Any] = {guarantee_path(path): lambda p: p.write_text(text)}
    if id_map_path is not None:
        files[Path(id_map_path)] = lambda p: _write_table(sealed.id_map, p)
    written: dict[str, Path] = {}

    def write_data(p: Path) -> None:
        if sealed.dataset is not None:
            write_dataset(sealed.dataset, p, metadata={RECORD_KEY: text}, table=sealed.table)
        else:
            _write_table(sealed.table, p, metadata={RECORD_KEY: text})
        written["data"] = p

    files[path] = write_data
    if report_path is not None:
        files[Path(report_path)] = lambda p: p.write_text(json.dumps(
            {**dict(sealed.report), "files": _hashes(path, written["data"], input_path)},
            indent=2, default=str))
    _atomic_write(files)
    return path


def _hashes(out: Path, written: Path, input_path: str | Path | None) -> dict[str, Any]:
    files: dict[str, Any] = {"output": str(out), "output_sha256": file_sha256(written)}
    side = written.with_name(written.name + ".meta.json")
    if side.is_file():
        files["output_meta_sha256"] = file_sha256(side)
    if input_path is not None and Path(input_path).is_file():
        files["input"] = str(input_path)
        files["input_sha256"] = file_sha256(input_path)
    return files


def write_release(release: Release[Dataset], path: str | Path, *, public: Iterable[str] = (),
                  pupil_epsilon: float | None = None, pupil_range: Sequence[float] | None = None,
                  source: Dataset | None = None, id_map_path: str | Path | None = None,
                  report_path: str | Path | None = None,
                  rng: np.random.Generator | None = None,
                  overwrite: bool = False) -> SealedRelease:
    """:func:`seal` ``release`` and write it with :func:`write_sealed` (every output checked
    before the sealing; an existing one needs ``overwrite``); returns the sealed release.
    Without ``rng`` the pseudonym key and pupil noise come from OS entropy."""
    check_outputs(release_outputs(path, id_map_path=id_map_path, report_path=report_path),
                  overwrite=overwrite)
    sealed = seal(release, public=public, pupil_epsilon=pupil_epsilon, pupil_range=pupil_range,
                  source=source, rng=rng if rng is not None else make_rng(None))
    write_sealed(sealed, path, id_map_path=id_map_path, report_path=report_path,
                 overwrite=overwrite)
    return sealed
