# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""What every command shares: verbosity, consoles, progress lines, output checks, atomic writes.

Results go to stdout; progress, notes and errors go to stderr. ``--quiet`` silences progress and
notes (never results or errors); ``--verbose`` adds detail and shows a traceback for unexpected
errors.

Output is written safely (:mod:`gazeprivacy._atomic`, one policy for every command):
:func:`check_outputs` validates every output *before* the work (suffix, folder, not an input,
not the ledger or its key, not another output, no silent overwrite) and :func:`atomic_files` /
:func:`atomic_dir` write beside the final name, ``fsync`` and rename, and delete the temporary on
any exception, Ctrl-C or SIGTERM, so an interrupted command leaves nothing under the final name.
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

from gazeprivacy._atomic import Output, atomic_dir, atomic_files, check_outputs
from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["STATE", "Format", "Output", "atomic_dir", "atomic_files", "check_output",
           "check_output_dir", "check_outputs", "cli_message", "echo_table", "err", "make_rng",
           "open_ledger", "out", "progress_wanted", "say", "write_text_atomic"]


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
    # The signal that stopped the command (set by the SIGTERM handler of cli/app.py).
    stopped_by: str = "Ctrl-C"


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
_HINTS: tuple[tuple[re.Pattern[str], Any], ...] = tuple((re.compile(p), r) for p, r in (
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
    # the reader options (cli/_reading.py)
    (r"sampling_rate_hz=\.\.\.", "--rate HZ"),
    (r"\bcolumns=(participant=)", r"--columns \1"),
    (r"screen=ScreenSetup\(\.\.\., width_px=\.\.\., height_px=\.\.\.\)", "--screen-px W,H"),
    (r"screen=ScreenSetup\(\.\.\.\)", "--screen-cm W,H --distance-cm D"),
    (r"\(screen=\.\.\.\)", "(--screen-cm, --distance-cm)"),
    (r"\beye=(left|right|mean|both)\b", r"--eye \1"),
    (r"\beye=\.\.\.", "--eye"),
    (r"\btrial_message\b", "--trial-message"),
    (r"input_format=([a-z][\w-]*)", r"--input-format \1"),
    (r"input_format=\.\.\.", "--input-format FORMAT"),
    (r"participant=\.\.\.", "--participant NAME"),
    (r"\bpx_per_deg\b", "--px-per-deg"),
    (r"\bxy_unit\b", "--xy-unit"),
    (r"\btime_unit\b", "--time-unit"),
    (r"label column\(s\) ", "--label "),
    (r"off_image='(\w+)'", r"--off-image \1"),
    (r"\boff_image\b", "--off-image"),
    (r"^seed must be", "--seed must be"),
    # a privacy or output parameter's own check, as its flag (``delta`` is left: it is
    # --delta of heatmap and --per-participant-delta of participant-synth)
    (r"^(grid_size|radius_deg|window_s|windows_per_participant|output_length_s|"
     r"recordings_per_participant|gamma|k|pupil_epsilon|max_epsilon_per_participant|width_px|"
     r"height_px|cell_px|sigma_px|distance_cm) must\b",
     lambda m: "--" + m.group(1).replace("_", "-") + " must"),
    (r"^n_participants must\b", "--participants must"),
    (r"^epsilon_per_participant must\b", "--per-participant-epsilon must"),
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
    >>> cli_message("grid_size must be at most 1000, got 5000")
    '--grid-size must be at most 1000, got 5000'
    """
    for pattern, repl in _HINTS:
        text = pattern.sub(repl, text)
    return " ".join(text.split())


# ----------------------------------------------------------------------------------- checks
# Thin forms of the one output policy (gazeprivacy._atomic.check_outputs); a command with more
# than one output, an input or a ledger calls check_outputs itself with all of them at once.

def check_output(path: Path, *, suffixes: Iterable[str], inputs: Iterable[Path | None] = (),
                 overwrite: bool = False, option: str = "OUTPUT") -> Path:
    """:func:`~gazeprivacy._atomic.check_outputs` for one output file; returns ``path``."""
    check_outputs([Output(path, option, suffixes=tuple(suffixes))], inputs=inputs,
                  overwrite=overwrite)
    return path


def check_output_dir(path: Path, *, overwrite: bool = False, option: str = "--out",
                     marker: str | None = None, inputs: Iterable[Path | None] = ()) -> Path:
    """:func:`~gazeprivacy._atomic.check_outputs` for one output folder that a command creates
    whole (e.g. ``demo --out``): a missing or empty folder is fine; a non-empty one needs
    ``overwrite``, and then only if it holds ``marker``."""
    check_outputs([Output(path, option, folder=True, markers=(marker,) if marker else ())],
                  inputs=inputs, overwrite=overwrite)
    return path


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
