# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The Typer application. Commands are thin: parse options, call one library function, print.

Every command is registered here, explicitly; a :class:`GazePrivacyError` becomes one red line on
stderr and exit code 2.
"""

from __future__ import annotations

import sys

import typer
from rich.console import Console

from gazeprivacy.cli import audit as audit_cmd
from gazeprivacy.cli import datasets as datasets_cmd
from gazeprivacy.cli import demo as demo_cmd
from gazeprivacy.cli import evaluate as evaluate_cmd
from gazeprivacy.cli import heatmap as heatmap_cmd
from gazeprivacy.cli import info as info_cmd
from gazeprivacy.cli import ledger as ledger_cmd
from gazeprivacy.cli import partition as partition_cmd
from gazeprivacy.cli import protect as protect_cmd
from gazeprivacy.cli import reproduce as reproduce_cmd
from gazeprivacy.exceptions import GazePrivacyError

__all__ = ["app", "main"]

app = typer.Typer(
    name="gazeprivacy",
    help="Release eye-tracking data with formal privacy guarantees, and measure what it cost.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
err = Console(stderr=True)


@app.callback()
def _root() -> None:
    """Release eye-tracking data with formal privacy guarantees, and measure what it cost."""

app.command("info")(info_cmd.info)
app.command("evaluate")(evaluate_cmd.evaluate)
app.command("demo")(demo_cmd.demo)
app.command("datasets")(datasets_cmd.datasets)
app.command("audit")(audit_cmd.audit)
app.command("protect")(protect_cmd.protect)
app.command("heatmap")(heatmap_cmd.heatmap)
app.command("partition")(partition_cmd.partition)
app.command("client")(__import__("gazeprivacy.cli.client", fromlist=["client"]).client)
app.command("curator")(__import__("gazeprivacy.cli.curator", fromlist=["curator"]).curator)
app.command("stream")(__import__("gazeprivacy.cli.stream", fromlist=["stream"]).stream)

# `gazeprivacy reproduce <paper>`: one subcommand per seed paper's experiment.
reproduce_cmd.reproduce_app.command("seed000")(reproduce_cmd.seed000)
reproduce_cmd.reproduce_app.command("seed001")(reproduce_cmd.seed001)
reproduce_cmd.reproduce_app.command("seed002")(reproduce_cmd.seed002)
reproduce_cmd.reproduce_app.command("seed003")(reproduce_cmd.seed003)
reproduce_cmd.reproduce_app.command("seed004")(reproduce_cmd.seed004)
app.add_typer(reproduce_cmd.reproduce_app, name="reproduce")
app.add_typer(ledger_cmd.ledger_app, name="ledger")


def main() -> None:
    """Console-script entry point."""
    try:
        app(standalone_mode=False)
    except GazePrivacyError as exc:
        err.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except typer.Exit as exc:  # pragma: no cover - typer's own exit path
        sys.exit(exc.exit_code)
    except Exception as exc:  # click usage errors arrive here in non-standalone mode
        import click

        if isinstance(exc, click.ClickException):
            exc.show()
            sys.exit(exc.exit_code)
        if isinstance(exc, click.exceptions.Abort):
            sys.exit(1)
        raise
