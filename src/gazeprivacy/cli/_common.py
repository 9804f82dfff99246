# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""What every command shares: verbosity, consoles, progress lines, output checks, atomic writes.

Results go to stdout; progress, notes and errors go to stderr. ``--quiet`` silences progress and
notes (never results or errors); ``--verbose`` adds detail and shows a traceback for unexpected
errors.

Output is written safely: :func:`check_output` validates a path *before* the work (suffix,
folder, not the input, no silent overwrite) and :func:`atomic_files` / :func:`atomic_dir` write
beside the final name, ``fsync`` and rename, and delete the temporary on any exception or Ctrl-C,
so an interrupted command leaves nothing under the final name.
"""

from __future__ import annotations

import enum
import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from gazeprivacy._atomic import atomic_dir, atomic_files
from gazeprivacy._paths import is_within
from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["STATE", "Format", "atomic_dir", "atomic_files", "check_output", "check_output_dir",
           "cli_message", "echo_table", "err", "make_rng", "open_ledger", "out", "progress_wanted",
           "say",
           "write_text_atomic"]


class Format(enum.StrEnum):
    """``--format`` of the commands that list things."""

    table = "table"
    json = "json"
    csv = "csv"


@dataclass
class _State:
    quiet: bool = False
    verbose: bool = False
    # What an interrupted command leaves behind, said in the Ctrl-C line.
    on_interrupt: str = "partial output removed"


STATE = _State()


def out() -> Console:
    """Console for results (stdout). Never markup-interpreting by default: print with markup=False
    anything that holds user text."""
    piped = not sys.stdout.isatty() and "COLUMNS" not in os.environ
    return Console(highlight=False, soft_wrap=True, width=160 if piped else None)


def err() -> Console:
    """Console for progress, notes and errors (stderr)."""
    return Console(stderr=True, highlight=False, soft_wrap=True)


def say(message: str, *, verbose_only: bool = False) -> None:
    """One progress / status line on stderr (plain text, no markup), unless ``--quiet``."""
    if STATE.quiet or (verbose_only and not STATE.verbose):
        return
    err().print(cli_message(message), markup=False)


def make_rng(seed: int | None) -> Any:
    """:func:`gazeprivacy.rng.make_rng`, imported when a command runs (NumPy is not needed for
    ``--help``)."""
    from gazeprivacy.rng import make_rng as _make_rng

    return _make_rng(seed)


def parse_geometry(text: str) -> Any:
    """``--geometry X_MIN,X_MAX,Y_MIN,Y_MAX`` (degrees) -> :class:`~gazeprivacy.data.Geometry`."""
    from gazeprivacy.data.geometry import Geometry

    try:
        x0, x1, y0, y1 = (float(v) for v in text.split(","))
    except ValueError:
        raise InvalidParameterError(
            f"--geometry must be X_MIN,X_MAX,Y_MIN,Y_MAX in degrees, got {text!r}") from None
    return Geometry(x_min_deg=x0, x_max_deg=x1, y_min_deg=y0, y_max_deg=y1)


def progress_wanted(flag: bool = True) -> bool:
    """Whether a command should report progress (its own ``--progress`` flag and not quiet)."""
    return flag and not STATE.quiet


# Library messages name Python arguments; on the command line the hint names the flag.
_HINTS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), r) for p, r in (
    (r"time_unit='(\w+)'", r"--time-unit \1"),
    (r"pass geometry=Geometry\(\.\.\.\)", "pass --geometry X_MIN,X_MAX,Y_MIN,Y_MAX (degrees)"),
    (r"overwrite=True(?: \(CLI: --overwrite\))?", "--overwrite"),
    (r"pass data_dir=\.\.\.", "pass --data-dir DIR"),
    (r"use mode='(\w+)'", r"use --mode \1"),
    (r"missing='(\w+)'", r"--param missing=\1"),
    (r"pass ranges=default_ranges\(params\) \(gazeprivacy\.features\.ranges\) or your own",
     "pass --ranges catalogue:NAME or --ranges FILE.json"),
    (r"convert with gazeprivacy\.data\.px_to_deg\(values, px_per_deg=\.\.\.\)",
     "convert x and y to degrees of visual angle first, or pass --xy-unit px --px-per-deg N"),
    (r"xy_unit='(\w+)'", r"--xy-unit \1"),
    (r"px_per_deg=\.\.\.", "--px-per-deg N"),
    (r"input_format=\.\.\.", "--input-format FORMAT"),
    (r"participant=\.\.\.", "--participant NAME"),
    (r"\bpx_per_deg\b", "--px-per-deg"),
    (r"\bxy_unit\b", "--xy-unit"),
    (r"\btime_unit\b", "--time-unit"),
    (r"label column\(s\) ", "--label "),
    (r"off_image='(\w+)'", r"--off-image \1"),
    (r"\boff_image\b", "--off-image"),
    (r"^seed must be", "--seed must be"),
    (r"^n_trials must be", "--trials must be"),
    (r"mode='sound' needs epsilon0", "--mode sound needs --param epsilon0=VALUE"),
    (r"(\S+) needs (.+?) \(privacy parameters have no defaults; use \w+\.paper\(\.\.\.\) for a "
     r"paper's values\)",
     r"\1 needs \2 (privacy parameters have no defaults; `gazeprivacy mechanisms \1` lists "
     r"the papers' values)"),
))


def cli_message(text: str) -> str:
    """A library message as the command line should say it: flags instead of Python arguments,
    on one line.

    >>> cli_message("timestamps are probably in milliseconds: pass time_unit='ms'")
    'timestamps are probably in milliseconds: pass --time-unit ms'
    """
    for pattern, repl in _HINTS:
        text = pattern.sub(repl, text)
    return " ".join(text.split())


# ----------------------------------------------------------------------------------- checks

def _same_file(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return a.samefile(b)
    except OSError:
        pass
    return a.resolve() == b.resolve()


def check_output(path: Path, *, suffixes: Iterable[str], inputs: Iterable[Path | None] = (),
                 overwrite: bool = False, option: str = "OUTPUT") -> Path:
    """Validate an output file before any work; returns ``path``.

    Refuses a name without one of ``suffixes``, a folder that does not exist or is not writable,
    a path that is one of ``inputs``, an existing folder, and an existing file unless
    ``overwrite``. Raises :class:`InvalidParameterError` naming ``option``.
    """
    suffixes = tuple(suffixes)
    if not path.name.lower().endswith(suffixes):
        raise InvalidParameterError(
            f"{option} must end in {' or '.join(suffixes)}, got {str(path)!r}")
    for inp in inputs:
        if inp is not None and _same_file(path, inp):
            raise InvalidParameterError(
                f"{option} {str(path)!r} is the input file; refusing to write over it")
    if path.is_dir():
        raise InvalidParameterError(f"{option} {str(path)!r} is a folder, not a file")
    if path.exists() and not overwrite:
        raise InvalidParameterError(
            f"{option} {str(path)!r} already exists; pass --overwrite to replace it")
    _check_folder(path.parent if str(path.parent) else Path("."), option)
    return path


def check_output_dir(path: Path, *, overwrite: bool = False, option: str = "--out",
                     marker: str | None = None) -> Path:
    """Validate an output folder that a command creates whole (e.g. ``demo --out``).

    A missing or empty folder is fine; a non-empty one needs ``overwrite``, and then only if it
    holds ``marker`` (a file the command writes), so ``--overwrite`` never deletes an unrelated
    folder.
    """
    if path.exists() and not path.is_dir():
        raise InvalidParameterError(f"{option} {str(path)!r} exists and is not a folder")
    if path.is_dir() and is_within(Path.cwd(), path):
        raise InvalidParameterError(
            f"{option} {str(path)!r} is the current folder or holds it; name a sub-folder")
    if path.is_dir() and any(path.iterdir()):
        if not overwrite:
            raise InvalidParameterError(
                f"{option} {str(path)!r} is not empty; pass --overwrite to replace it")
        if marker is not None and not (path / marker).exists():
            raise InvalidParameterError(
                f"{option} {str(path)!r} is not empty and holds no {marker}; refusing to "
                "replace a folder this command did not write")
    _check_folder(path.parent if str(path.parent) else Path("."), option)
    return path


def _check_folder(folder: Path, option: str) -> None:
    if not folder.is_dir():
        raise InvalidParameterError(f"{option}: folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InvalidParameterError(f"{option}: folder {str(folder)!r} is not writable")


# ----------------------------------------------------------------------------- atomic writes

def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (write beside, fsync, rename)."""
    with atomic_files(path) as (tmp,):
        tmp.write_text(text)


def interactive() -> bool:
    """Whether stderr is a terminal (progress bars there, progress lines otherwise)."""
    return sys.stderr.isatty()


def echo_table(table: Any) -> None:
    """Print a Rich table on stdout without truncating cells (long names fold)."""
    for col in table.columns:
        col.overflow = "fold"
        col.no_wrap = False
    out().print(table)


def open_ledger(path: Path | None, cap: float | None, allow_unaccounted: bool) -> Any:
    """The :class:`~gazeprivacy.accounting.ledger.Ledger` of ``--ledger`` (None without it),
    checking that ``--max-epsilon-per-participant`` and ``--allow-unaccounted`` come with it."""
    if path is None:
        if cap is not None or allow_unaccounted:
            raise InvalidParameterError("--max-epsilon-per-participant and --allow-unaccounted "
                                        "need --ledger FILE")
        return None
    from gazeprivacy.accounting.ledger import Ledger

    return Ledger(path, max_epsilon_per_participant=cap, allow_unaccounted=allow_unaccounted)
