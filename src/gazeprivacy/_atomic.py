# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The one output policy of every command and library function that writes.

:func:`check_outputs` runs *before any work*: it refuses an output that is (or resolves to,
through symbolic links) an input, the privacy ledger or its key, or another output of the same
call; an existing output without ``overwrite``; a file output that is a folder; a folder that a
command did not write. :func:`atomic_files` / :func:`atomic_dir` then write beside the final
name (a hidden ``.partial-*`` name), fsync and rename into place: an exception (Ctrl-C, SIGTERM,
a full disk) leaves the old content whole and no temporary behind, and a full disk is reported
as :class:`~gazeprivacy.exceptions.DiskFullError`. Standard library only.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from gazeprivacy.exceptions import DiskFullError, InvalidParameterError

__all__ = ["Output", "atomic_dir", "atomic_files", "check_outputs", "ledger_files",
           "raise_if_disk_full", "sidecars"]


# ------------------------------------------------------------------------------------ policy

@dataclass(frozen=True)
class Output:
    """One output of a command: its path (None: not asked for), the flag that names it, and
    whether it is a file or a folder.

    ``suffixes``: the endings a file must have (empty: any). ``markers``: a non-empty folder is
    replaced (with ``overwrite``) only when it holds one of these names, so ``--overwrite`` never
    deletes a folder the command did not write.
    """

    path: Path | str | None
    option: str
    folder: bool = False
    suffixes: tuple[str, ...] = ()
    markers: tuple[str, ...] = ()
    holds: str = ""  # what the markers show, in the refusal ("a partitioned dataset")


def ledger_files(ledger: Path | str | None) -> tuple[Path, ...]:
    """The files of a privacy ledger that no output may replace: the SQLite file, its key
    (``LEDGER.key``, see :func:`gazeprivacy.accounting.ledger.key_path`) and SQLite's journals."""
    if ledger is None:
        return ()
    p = Path(ledger)
    return (p, *(p.with_name(p.name + s) for s in (".key", "-journal", "-wal", "-shm")))


def sidecars(path: Path | str, *, record: bool = True, meta: bool | None = None
             ) -> tuple[Path, ...]:
    """The files written beside a data file ``path``: ``PATH.guarantee.json`` (the record) and,
    for CSV (``meta`` None: told by the suffix), ``PATH.meta.json``."""
    p = Path(path)
    if meta is None:
        meta = not p.name.lower().endswith((".parquet", ".pq"))
    return ((p.with_name(p.name + ".guarantee.json"),) if record else ()) + \
        ((p.with_name(p.name + ".meta.json"),) if meta else ())


def _real(p: Path) -> Path:
    return Path(os.path.realpath(p))


def _same(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name one file (through links and hard links)."""
    with contextlib.suppress(OSError):
        if a.exists() and b.exists():
            return a.samefile(b)
    return _real(a) == _real(b)


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` resolves to ``folder`` or lies inside it."""
    p, f = _real(path), _real(folder)
    return p == f or f in p.parents


# long: one rule after the other, each with its own message
def check_outputs(outputs: Iterable[Output], *, inputs: Iterable[Path | str | None] = (),
                  ledger: Path | str | None = None, overwrite: bool = False) -> None:
    """Refuse, before any work, outputs that would write over something to keep.

    Raises :class:`~gazeprivacy.exceptions.InvalidParameterError` (naming the flag) when an
    output is an input or an input's metadata sidecar (``INPUT.meta.json``, written beside a
    CSV: without it the input no longer reads as it did), the ledger (``LEDGER``,
    ``LEDGER.key``) or another output (through symbolic links; a folder output also when it
    holds one of them); when a file output is a
    folder or a folder output is a file; when an output exists and ``overwrite`` is False (an
    empty folder is not an existing output); when a non-empty folder holds none of its
    ``markers`` or holds the current folder; when the parent folder is missing or read-only.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     data = Path(tmp, "in.csv"); _ = data.write_text("x")
    ...     try:
    ...         check_outputs([Output(data, "OUTPUT")], inputs=[data], overwrite=True)
    ...     except InvalidParameterError as exc:
    ...         "is the input" in str(exc)
    True
    """
    outs = [o for o in outputs if o.path is not None]
    keep = [(Path(p), "the input") for p in inputs if p is not None]
    keep += [(_sidecar(p), "the input's metadata sidecar") for p, _ in list(keep)
             if _sidecar(p).exists()]
    keep += [(p, "the privacy ledger" if i == 0 else "the privacy ledger's key" if i == 1
              else "the privacy ledger's journal")
             for i, p in enumerate(ledger_files(ledger))]
    for i, o in enumerate(outs):  # first what an output must never be, then its own state
        path = Path(o.path)  # type: ignore[arg-type]
        for other, what in keep:
            if _same(path, other) or (o.folder and _inside(other, path)):
                how = "is" if _same(path, other) else "holds"
                raise InvalidParameterError(f"{o.option} {str(path)!r} {how} {what} "
                                            f"({str(other)!r}); refusing to write over it; "
                                            "choose another name")
        for o2 in outs[:i]:
            p2 = Path(o2.path)  # type: ignore[arg-type]
            if _same(path, p2) or (o.folder and _inside(p2, path)) or \
                    (o2.folder and _inside(path, p2)):
                raise InvalidParameterError(f"{o.option} {str(path)!r} and {o2.option} name the "
                                            "same file; give each output its own name")
    for o in outs:
        path = Path(o.path)  # type: ignore[arg-type]
        if o.suffixes and not path.name.lower().endswith(o.suffixes):
            raise InvalidParameterError(f"{o.option} must end in {' or '.join(o.suffixes)}, got "
                                        f"{str(path)!r}")
        _check_existing(path, o, f"{o.option} {str(path)!r}", overwrite)
        parent = path.parent if str(path.parent) else Path(".")
        if not parent.is_dir():
            raise InvalidParameterError(f"{o.option}: folder {str(parent)!r} does not exist")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise InvalidParameterError(f"{o.option}: folder {str(parent)!r} is not writable")


def _sidecar(path: Path) -> Path:
    """A data file's metadata sidecar (:mod:`gazeprivacy.data.io`: ``FILE.meta.json``)."""
    return path.with_name(path.name + ".meta.json")


def _check_existing(path: Path, o: Output, name: str, overwrite: bool) -> None:
    if not o.folder:
        if path.is_dir():
            raise InvalidParameterError(f"{name} is a folder, not a file; name a file")
        if (path.exists() or path.is_symlink()) and not overwrite:
            raise InvalidParameterError(f"{name} already exists; pass overwrite=True (CLI: "
                                        "--overwrite) to replace it")
        return
    if path.exists() and not path.is_dir():
        raise InvalidParameterError(f"{name} exists and is not a folder")
    if not path.is_dir() or not any(path.iterdir()):
        return
    if _inside(Path.cwd(), path):
        raise InvalidParameterError(f"{name} is the current folder or holds it; name a "
                                    "sub-folder")
    if not overwrite:
        raise InvalidParameterError(f"{name} is not empty; pass overwrite=True (CLI: "
                                    "--overwrite) to replace it")
    if o.markers and not any((path / m).exists() for m in o.markers):
        raise InvalidParameterError(f"{name} is not empty and holds no "
                                    f"{o.holds or ' or '.join(o.markers)}; refusing to replace "
                                    "a folder this command did not write")


# ------------------------------------------------------------------------------ atomic writes

_PREFIX = ".partial-"
_META = ".meta.json"


def _temp_name(final: Path) -> Path:
    # A prefix keeps the name's ending (.csv.gz, .png), which writers read the format from.
    final = final.absolute()
    return final.with_name(f"{_PREFIX}{secrets.token_hex(4)}-{final.name}")


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
    """Remove a temporary and whatever a writer put beside it (``TMP.meta.json``)."""
    for p in (path, *path.parent.glob(_glob_escape(path.name) + "?*")):
        with contextlib.suppress(FileNotFoundError):
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink()


def _glob_escape(name: str) -> str:
    """``name`` with glob's special characters escaped."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


_FULL = (errno.ENOSPC, errno.EDQUOT) if hasattr(errno, "EDQUOT") else (errno.ENOSPC,)


def _disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) is a full disk or quota, also as wrapped by a writer
    (polars and pyarrow report it as their own error whose text names OS error 28)."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, OSError) and e.errno in _FULL:
            return True
        text = str(e)
        if "No space left on device" in text or "os error 28" in text or \
                "Disk quota exceeded" in text:
            return True
        e = e.__cause__ or e.__context__
    return False


def _full_error(exc: BaseException, final: Path) -> DiskFullError:
    error = DiskFullError(f"disk full (No space left on device) while writing {str(final)!r}; "
                          "nothing was written and an earlier output is unchanged; free space "
                          "or write elsewhere")
    error.errno = errno.ENOSPC
    return error


def raise_if_disk_full(exc: BaseException, final: Path | str) -> None:
    """Raise :class:`~gazeprivacy.exceptions.DiskFullError` (from ``exc``) when ``exc`` is a
    full disk, for code that would otherwise report it as something else (a read error)."""
    if not isinstance(exc, DiskFullError) and _disk_full(exc):
        raise _full_error(exc, Path(final)) from exc


@contextlib.contextmanager
def _cleanup(temps: Iterable[Path], final: Path) -> Iterator[None]:
    """Remove ``temps`` on any exception (Ctrl-C and SIGTERM included); a full disk becomes
    :class:`DiskFullError`."""
    try:
        yield
    except BaseException as exc:
        for t in temps:
            _remove(t)
        if isinstance(exc, Exception):
            raise_if_disk_full(exc, final)
        raise


@contextlib.contextmanager
def atomic_files(*finals: Path | str) -> Iterator[tuple[Path, ...]]:
    """Yield temporary paths beside ``finals``; on success fsync them and rename each into place.

    On any exception (including Ctrl-C) every temporary (and a ``TMP.meta.json`` a writer put
    beside it) is deleted and nothing is renamed, so a final name holds either its old content
    or the complete new file. Files are renamed in the order given: put the data before its
    record. A ``TMP.meta.json`` that a writer put beside a temporary (a CSV's metadata,
    :func:`gazeprivacy.data.io.write_dataset`) goes to ``FINAL.meta.json``, just before its
    file. A full disk raises :class:`~gazeprivacy.exceptions.DiskFullError`.
    """
    paths = tuple(Path(f) for f in finals)
    temps = tuple(_temp_name(f) for f in paths)
    with _cleanup(temps, paths[0] if paths else Path(".")):
        yield temps
        for t in temps:
            if not t.exists():
                raise OSError(f"the command did not write {t}")
            _fsync(t)
        for t, f in zip(temps, paths, strict=True):
            side = t.with_name(t.name + _META)
            if side.exists():
                _fsync(side)
                os.replace(side, f.with_name(f.name + _META))
            os.replace(t, f)
        for folder in {f.absolute().parent for f in paths}:
            _fsync_dir(folder)


@contextlib.contextmanager
def atomic_dir(final: Path | str) -> Iterator[Path]:
    """Yield a temporary folder beside ``final``; on success it replaces ``final``.

    Check ``final`` with :func:`check_outputs` first. On any exception (including Ctrl-C) the
    temporary folder is deleted and ``final`` is left as it was: the old folder stays whole until
    the new one is complete (it is moved aside only for the two renames of the swap, and moved
    back if they are interrupted).
    """
    final = Path(final)
    tmp = _temp_name(final)
    old: Path | None = None
    try:
        with _cleanup((tmp,), final):
            tmp.mkdir()
            yield tmp
            for root, _dirs, files in os.walk(tmp):
                for name in files:
                    _fsync(Path(root) / name)
            if final.exists():
                old = _temp_name(final)
                os.replace(final, old)
            os.replace(tmp, final)
    except BaseException:
        if old is not None and old.exists() and not final.exists():
            os.replace(old, final)  # interrupted between the renames: the old folder back
        raise
    _fsync_dir(final.absolute().parent)
    if old is not None:
        try:
            _remove(old)
        except BaseException:  # interrupted while deleting the old folder: finish first
            _remove(old)
            raise
