# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Atomic writes of files and folders (standard library only): written beside the final name,
fsynced, renamed into place; an exception (Ctrl-C included) leaves the old content as it was
and no temporary behind. Used by the command line and by library functions that replace a
folder (``partition_data_file(overwrite=True)``)."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

__all__ = ["atomic_dir", "atomic_files"]


def _temp_name(final: Path) -> Path:
    # A prefix keeps the name's ending (.csv.gz, .png), which writers read the format from.
    final = final.absolute()
    return final.with_name(f".partial-{secrets.token_hex(4)}-{final.name}")


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not every file system can fsync a directory
        _fsync(folder)


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink()


@contextlib.contextmanager
def atomic_files(*finals: Path) -> Iterator[tuple[Path, ...]]:
    """Yield temporary paths beside ``finals``; on success fsync them and rename each into place.

    On any exception (including Ctrl-C) every temporary is deleted and nothing is renamed, so a
    final name holds either its old content or the complete new file. Files are renamed in the
    order given: put the data before its record.
    """
    temps = tuple(_temp_name(f) for f in finals)
    try:
        yield temps
        for t in temps:
            if not t.exists():
                raise OSError(f"the command did not write {t}")
            _fsync(t)
        for t, f in zip(temps, finals, strict=True):
            os.replace(t, f)
        for folder in {f.parent for f in finals}:
            _fsync_dir(folder)
    except BaseException:
        for t in temps:
            _remove(t)
        raise


@contextlib.contextmanager
def atomic_dir(final: Path) -> Iterator[Path]:
    """Yield a temporary folder beside ``final``; on success it replaces ``final``.

    Check ``final`` with :func:`check_output_dir` first. On any exception (including Ctrl-C) the
    temporary folder is deleted and ``final`` is left as it was.
    """
    tmp = _temp_name(final)
    tmp.mkdir()
    try:
        yield tmp
        for root, _dirs, files in os.walk(tmp):
            for name in files:
                _fsync(Path(root) / name)
        old = None
        if final.exists():
            old = _temp_name(final)
            os.replace(final, old)
        os.replace(tmp, final)
        _fsync_dir(final.parent)
        if old is not None:
            _remove(old)
    except BaseException:
        _remove(tmp)
        raise
