# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy ledger show FILE`` and ``gazeprivacy ledger export FILE OUT.csv``.

Read a privacy-budget ledger (:mod:`gazeprivacy.accounting.ledger`, written by ``gazeprivacy protect
--ledger FILE``): spent and remaining epsilon per participant (a keyed hash; the ledger holds no
raw id), with the composition method, or every charge as CSV. The library is imported inside
the commands, so ``gazeprivacy --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["export", "ledger_app", "show"]

ledger_app = typer.Typer(help="Read a privacy-budget ledger (gazeprivacy protect --ledger).",
                         no_args_is_help=True)

_FIELDS = ("participant", "releases", "unaccounted", "reserved", "epsilon_basic", "delta_basic",
           "epsilon", "delta", "rho", "remaining", "method")


@ledger_app.command("show")
def show(
    file: Annotated[Path, typer.Argument(help="The ledger file.")],
    format: Annotated[str, typer.Option("--format", help="table, json or csv.")] = "table",
    delta: Annotated[float | None, typer.Option(
        help="delta target of the tighter (zCDP) accounting; without it, basic composition "
             "only.")] = None,
    max_epsilon_per_participant: Annotated[float | None, typer.Option(
        help="Lifetime cap for 'remaining' (default: the last cap the ledger recorded).")
    ] = None,
) -> None:
    """Spent and remaining privacy budget per participant (keyed hash)."""
    import csv
    import json
    import sys

    from gazeprivacy.accounting.ledger import Ledger
    from gazeprivacy.exceptions import InvalidParameterError

    if format not in ("table", "json", "csv"):
        raise InvalidParameterError(f"--format must be table, json or csv, got {format!r}")
    rows = [b.to_dict() for b in Ledger(file).balances(
        delta=delta, max_epsilon_per_participant=max_epsilon_per_participant)]
    if format == "json":
        typer.echo(json.dumps({"ledger": str(file), "delta_target": delta,
                               "participants": rows}, indent=2))
    elif format == "csv":
        writer = csv.DictWriter(sys.stdout, fieldnames=_FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: r[k] for k in _FIELDS} for r in rows)
    else:
        _table(file, rows)


def _table(file: Path, rows: list[dict]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if not rows:
        console.print(f"{file}: no releases yet", highlight=False)
        return
    table = Table(title=f"{file}: {len(rows)} participants")
    for name in ("participant", "releases", "epsilon (basic)", "delta (basic)", "epsilon",
                 "delta", "remaining"):
        table.add_column(name, justify="left" if name == "participant" else "right",
                         no_wrap=True, min_width=16 if name == "participant" else None)
    for r in rows:
        extra = f" +{r['unaccounted']} unacc." if r["unaccounted"] else ""
        extra += f" ({r['reserved']} reserved)" if r["reserved"] else ""
        table.add_row(r["participant"][:16], f"{r['releases']}{extra}",
                      f"{r['epsilon_basic']:.4g}", f"{r['delta_basic']:.3g}",
                      f"{r['epsilon']:.4g}", f"{r['delta']:.3g}",
                      "-" if r["remaining"] is None else f"{r['remaining']:.4g}")
    console.print(table)
    for method in dict.fromkeys(r["method"] for r in rows):
        n = sum(r["method"] == method for r in rows)
        console.print(f"method ({n} participants): {method}", highlight=False, soft_wrap=True)


@ledger_app.command("export")
def export(
    file: Annotated[Path, typer.Argument(help="The ledger file.")],
    out: Annotated[Path, typer.Argument(help="CSV file to write (one row per release and "
                                             "participant hash).")],
    overwrite: Annotated[bool, typer.Option(help="Replace an existing OUT.")] = False,
) -> None:
    """Write every charge of the ledger as CSV (participant hashes, never raw ids)."""
    import csv

    from gazeprivacy._atomic import Output, atomic_files, check_outputs
    from gazeprivacy.accounting.ledger import Ledger

    check_outputs([Output(out, "OUT")], ledger=file, overwrite=overwrite)
    rows = Ledger(file).entries()
    fields = list(rows[0]) if rows else ["release_id", "participant"]
    with atomic_files(out) as (tmp,), open(tmp, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    typer.echo(f"{out}: {len(rows)} charges from {file}")
