# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The Typer application. Commands are thin: parse options, call one library function, print.

Every command is registered here, explicitly. :func:`main` turns every failure into one line on
stderr and an exit code, never a traceback (``--verbose`` shows one for unexpected errors):

* 0: success (also ``gazeprivacy`` with no arguments, which prints the help);
* 1: a data or parameter error (:class:`GazePrivacyError`), a file-system error, or an
  unexpected error;
* 2: a usage error (unknown option, missing argument, a value of the wrong type);
* 130: interrupted (Ctrl-C); the command's partial output is removed;
* 143: stopped by SIGTERM, which takes the same clean-up path as Ctrl-C.

Command modules import their heavy dependencies (scikit-learn, matplotlib, torch) inside the
command bodies, so ``gazeprivacy --help`` stays fast.
"""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import Iterator, Sequence
from typing import Annotated

import typer
from typer.core import TyperGroup

from gazeprivacy.cli import audit as audit_cmd
from gazeprivacy.cli import client as client_cmd
from gazeprivacy.cli import curator as curator_cmd
from gazeprivacy.cli import datasets as datasets_cmd
from gazeprivacy.cli import demo as demo_cmd
from gazeprivacy.cli import evaluate as evaluate_cmd
from gazeprivacy.cli import heatmap as heatmap_cmd
from gazeprivacy.cli import info as info_cmd
from gazeprivacy.cli import ledger as ledger_cmd
from gazeprivacy.cli import mechanisms as mechanisms_cmd
from gazeprivacy.cli import partition as partition_cmd
from gazeprivacy.cli import protect as protect_cmd
from gazeprivacy.cli import reproduce as reproduce_cmd
from gazeprivacy.cli import sample as sample_cmd
from gazeprivacy.cli import stream as stream_cmd
from gazeprivacy.cli._common import STATE, cli_message, err
from gazeprivacy.exceptions import GazePrivacyError, InvalidParameterError, Terminated

__all__ = ["app", "cli_message", "main", "run"]

# Commands grouped by workflow in `gazeprivacy --help`; a command not listed goes under "Other".
_SECTIONS: dict[str, tuple[str, ...]] = {
    "Protect data": ("protect", "stream", "heatmap", "partition"),
    "Local DP on devices": ("client", "curator"),
    "Measure and audit": ("demo", "evaluate", "audit", "reproduce", "ledger"),
    "Look things up": ("info", "mechanisms", "datasets", "sample"),
}


class _WorkflowGroup(TyperGroup):
    """Lists the commands in workflow sections instead of one alphabetical block."""

    def format_commands(self, ctx, formatter) -> None:
        visible = {n: c for n in self.list_commands(ctx)
                   if (c := self.get_command(ctx, n)) is not None and not c.hidden}
        if not visible:
            return
        limit = formatter.width - 6 - max(len(n) for n in visible)
        listed: set[str] = set()
        for title, names in [*_SECTIONS.items(), ("Other commands", tuple(visible))]:
            rows = [(n, visible[n].get_short_help_str(limit)) for n in names
                    if n in visible and n not in listed]
            listed.update(n for n, _ in rows)
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


_HELP = """Release eye-tracking data with formal privacy guarantees, and measure what it cost.

Results go to stdout; progress, notes and errors to stderr. Exit codes: 0 success, 1 data or
parameter error, 2 usage error, 130 interrupted (partial output removed), 143 stopped by
SIGTERM (likewise).

Details of a command: gazeprivacy COMMAND --help.
"""

app = typer.Typer(
    name="gazeprivacy",
    help=_HELP,
    cls=_WorkflowGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # help text is shown as written: "[lo, hi]" and "gazeprivacy[deep]"
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        # The running package's version (its __init__ is loaded already, as our parent package;
        # modules inside the package do not import the facade by name).
        version = getattr(sys.modules["gazeprivacy"], "__version__", "unknown")
        typer.echo(f"gazeprivacy {version}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True,
        help="Print the version and exit.")] = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="Only results and errors: no progress lines or notes.")] = False,
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="More detail; a traceback for unexpected errors.")] = False,
) -> None:
    """The options every command shares."""
    STATE.quiet, STATE.verbose = quiet, verbose and not quiet
    if STATE.verbose:
        _log_to_stderr()


def _log_to_stderr() -> None:
    """The package's INFO log lines on stderr for this run (removed again by :func:`run`)."""
    import logging

    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    logger = logging.getLogger("gazeprivacy")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    _HANDLERS.append(handler)


_HANDLERS: list = []


app.command("info")(info_cmd.info)
app.command("evaluate")(evaluate_cmd.evaluate)
app.command("demo")(demo_cmd.demo)
app.command("datasets")(datasets_cmd.datasets)
app.command("mechanisms")(mechanisms_cmd.mechanisms)
app.command("audit")(audit_cmd.audit)
app.command("protect")(protect_cmd.protect)
app.command("heatmap")(heatmap_cmd.heatmap)
app.command("partition")(partition_cmd.partition)
app.command("client")(client_cmd.client)
app.command("curator")(curator_cmd.curator)
app.command("stream")(stream_cmd.stream)
app.command("sample")(sample_cmd.sample)

# `gazeprivacy reproduce <paper>`: one subcommand per paper, named author-year (reproduce.py).
reproduce_cmd.register(reproduce_cmd.reproduce_app)
app.add_typer(reproduce_cmd.reproduce_app, name="reproduce")
app.add_typer(ledger_cmd.ledger_app, name="ledger")


# ------------------------------------------------------------------------------ error lines

def _line(kind: str, message: str) -> None:
    err().print(f"{kind}: {cli_message(message)}", markup=False)


def _usage_line(exc: Exception) -> None:
    ctx = getattr(exc, "ctx", None)
    hint = ""
    if ctx is not None:
        hint = f" (see '{ctx.command_path} --help')"
    _line("error", exc.format_message() + hint)  # type: ignore[attr-defined]


def _is_click(exc: BaseException, name: str) -> bool:
    """Whether ``exc`` is typer's (vendored) or click's exception class ``name``."""
    from typer._click import exceptions as typer_click

    classes = [getattr(typer_click, name, None)]
    if "click" in sys.modules:  # a command may have raised the real click's exceptions
        classes.append(getattr(sys.modules["click"].exceptions, name, None))
    return any(c is not None and isinstance(exc, c) for c in classes)


def _interrupted() -> int:
    err().print(f"interrupted: stopped on {STATE.stopped_by}; {STATE.on_interrupt}",
                markup=False)
    return 143 if STATE.stopped_by == "SIGTERM" else 130


def _on_sigterm(signum: int, frame: object) -> None:
    """SIGTERM as Ctrl-C: an exception at the next Python instruction, so every ``except`` /
    ``finally`` that removes a partial output runs (exit code 143)."""
    STATE.stopped_by = "SIGTERM"
    raise Terminated("SIGTERM")


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Install :func:`_on_sigterm` for one run (main thread only; restored afterwards)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _handle(exc: BaseException) -> int:
    """The exit code of ``exc``, after printing its one line."""
    if isinstance(exc, KeyboardInterrupt):
        if isinstance(exc, Terminated):
            STATE.stopped_by = "SIGTERM"
        return _interrupted()
    if isinstance(exc, typer.Exit):
        return exc.exit_code
    if isinstance(exc, typer.Abort) or _is_click(exc, "Abort"):
        return _interrupted() if isinstance(exc.__context__, KeyboardInterrupt) else 1
    if _is_click(exc, "NoArgsIsHelpError"):
        typer.echo(exc.ctx.get_help())  # type: ignore[attr-defined]
        return 0
    if _is_click(exc, "UsageError"):
        _usage_line(exc)  # type: ignore[arg-type]
        return 2
    if _is_click(exc, "ClickException") or isinstance(exc, typer.TyperException):
        _line("error", exc.format_message())  # type: ignore[attr-defined]
        return int(getattr(exc, "exit_code", 1))
    if isinstance(exc, GazePrivacyError):
        _line("error", str(exc))
        return 1
    if isinstance(exc, BrokenPipeError):  # e.g. `gazeprivacy mechanisms | head`
        _silence_stdout()
        return 1
    if isinstance(exc, OSError):
        where = f": {exc.filename}" if exc.filename else ""
        _line("error", f"{exc.strerror or exc}{where}")
        return 1
    if type(exc).__module__.split(".")[0] in ("polars", "pyarrow"):
        # A reader's error (empty file, bad CSV, not Parquet): a data error, not a bug.
        _line("error", f"could not read the data: {exc}")
        return 1
    if isinstance(exc, MemoryError):
        _line("error", "out of memory: check the sizes the options ask for (a grid, an output "
                       "length, an image); for data larger than memory, protect reads a "
                       "partitioned folder (gazeprivacy partition)")
        return 1
    if STATE.verbose:
        import traceback

        traceback.print_exception(exc)
    _line("internal error", f"{type(exc).__name__}: {exc} (run with --verbose for the "
          "traceback, and please report it)")
    return 1


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Library warnings as one line each (never silenced by --quiet: they concern privacy)."""
    err().print(f"warning ({category.__name__}): {cli_message(str(message))}", markup=False)


def _check_utf8(args: list[str]) -> None:
    """Refuse an argument that is not valid UTF-8 (a file name's bytes, which Python keeps as
    surrogates): the readers, the writers and the JSON records need text file names."""
    for a in args:
        try:
            a.encode("utf-8")
        except UnicodeEncodeError:
            raw = a.encode("utf-8", "surrogateescape")
            raise InvalidParameterError(
                f"argument '{raw.decode('utf-8', 'backslashreplace')}' is not valid UTF-8; "
                "gazeprivacy takes UTF-8 file names and values only (rename the file)") from None


#: Allocations between two young-generation garbage collections during a run (Python: 700).
_GC_ALLOCATIONS = 10_000


def run(argv: Sequence[str] | None = None) -> int:
    """Run the command line on ``argv`` (default ``sys.argv[1:]``); returns the exit code."""
    import warnings

    STATE.quiet = STATE.verbose = False
    STATE.on_interrupt = "partial output removed"
    STATE.stopped_by = "Ctrl-C"
    shown = warnings.showwarning
    warnings.showwarning = _show_warning
    args = list(argv) if argv is not None else sys.argv[1:]
    thresholds = gc.get_threshold()
    # the parsing and a command's imports (typer's pydantic adapters, numpy, polars) make many
    # long-lived objects: at the default 700 allocations per collection they cost ~0.05 s of
    # collections that free nothing (issue 18); cycles are still collected, 14x less often
    gc.set_threshold(max(thresholds[0], _GC_ALLOCATIONS), *thresholds[1:])
    try:
        _check_utf8(args)
        with _sigterm_as_interrupt():
            rv = app(args=args, prog_name="gazeprivacy", standalone_mode=False)
    except BaseException as exc:  # the one place that turns errors into lines
        if isinstance(exc, SystemExit):
            return exc.code if isinstance(exc.code, int) else 1
        return _handle(exc)
    finally:
        gc.set_threshold(*thresholds)
        warnings.showwarning = shown
        if _HANDLERS:
            import logging

            logger = logging.getLogger("gazeprivacy")
            while _HANDLERS:
                logger.removeHandler(_HANDLERS.pop())
            logger.setLevel(logging.NOTSET)
    if rv == 130:  # typer turns Ctrl-C into Exit(130), returned in non-standalone mode
        return _interrupted()
    return rv if isinstance(rv, int) else 0


def main() -> None:
    """Console-script entry point."""
    try:
        code = run()
        sys.stdout.flush()
    except KeyboardInterrupt:  # a second Ctrl-C while printing
        code = 130
    except BrokenPipeError:
        _silence_stdout()
        code = 1
    sys.exit(code)


def _silence_stdout() -> None:
    """Nothing more is read from a closed pipe: keep the interpreter's final flush from failing."""
    import os

    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


if __name__ == "__main__":
    main()
