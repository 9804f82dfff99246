# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy audit --mechanism NAME --trials N``: the empirical privacy audit table.

``NAME-release`` (e.g. ``dpgazesynth-release``) audits every column of a whole release on
neighbouring datasets and prints one line per column.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from gazeprivacy.cli._common import echo_table, make_rng, say
from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["audit"]


def _verdict(v: str) -> str:
    return "[green]pass[/]" if v == "pass" else "[bold red]FAIL[/]"


def _release_table(res: Any, trials: int, confidence: float) -> Table:
    row = res.row()
    table = Table("column", "status", "verdict", "audited lower bound", "p-value",
                  "raw-equal rows", "note",
                  title=f"{row['mechanism']}: every released column (claim {row['claim']} per "
                        f"{row['unit']}; {confidence:.0%} confidence over the audited columns, "
                        f"{trials} releases per dataset)")
    for c in res.column_rows():
        lb = "" if c["lower_bound"] is None else f"{c['lower_bound']:.3f}"
        p = "" if c["p_value"] is None else f"{c['p_value']:.2g}"
        table.add_row(c["column"], c["status"], _verdict(c["verdict"]), lb, p,
                      str(c["raw_equal_rows"]), Text(c["note"]))
    return table


def audit(
    mechanism: Annotated[str, typer.Option(help="Audit adapter / mechanism name "
                                           "(e.g. laplace, dpgazesynth, dpgazesynth-runs, "
                                           "dpgazesynth-release, broken-oue).")],
    trials: Annotated[int, typer.Option(help="Draws per neighbouring input in the "
                                        "confirmation run (more = tighter bound).")] = 20_000,
    mode: Annotated[str, typer.Option(help="sound, paper or both (the modes the mechanism "
                                      "has).")] = "both",
    seed: Annotated[int | None, typer.Option(help="Fix the seed (research run; >= 0); "
                                             "default: OS entropy.", min=0)] = None,
    confidence: Annotated[float, typer.Option(help="Confidence of the epsilon lower "
                                              "bound.")] = 0.99,
    explore: Annotated[bool, typer.Option(help="Search random neighbouring pairs as well "
                                          "as the hand-picked extremes.")] = True,
) -> None:
    """Audit one mechanism: claimed epsilon, audited lower bound, pass / FAIL per mode."""
    from gazeprivacy.audit.adapters import ADAPTERS, audit_mechanism

    if mechanism not in ADAPTERS:
        raise InvalidParameterError(f"--mechanism must be one of {', '.join(ADAPTERS)}, got "
                                    f"{mechanism!r}")
    adapter = ADAPTERS[mechanism]
    if mode == "both":
        modes = adapter.modes
    elif mode in adapter.modes:
        modes = (mode,)
    else:
        raise InvalidParameterError(f"mode must be one of {', '.join(adapter.modes)} or both "
                                    f"for {mechanism!r}, got {mode!r}")
    rng = make_rng(seed)
    table = Table("mechanism", "mode", "unit", "claimed epsilon", "delta", "audited lower bound",
                  "estimate", "verdict", "p-value", "worst pair",
                  title=f"privacy audit ({confidence:.0%} confidence, {trials} draws per input)")
    for m, child in zip(modes, rng.spawn(len(modes)), strict=True):
        say(f"auditing {mechanism} ({m} mode)")
        res = audit_mechanism(mechanism, mode=m, n_trials=trials, rng=child,
                              confidence=confidence, explore=explore)
        row = res.row()
        if adapter.kind == "release":
            echo_table(_release_table(res, trials, confidence))
        table.add_row(row["mechanism"], row["mode"], row["unit"], row.get(
            "claim", f"{row['claimed_epsilon']:.4g}"), f"{row['claimed_delta']:.3g}",
            f"{row['epsilon_lower_bound']:.3f}", f"{row['epsilon_estimate']:.3f}",
            _verdict(row["verdict"]), f"{row['p_value']:.2g}", Text(str(row["pair"])))
    echo_table(table)
    say(f"seed: {seed if seed is not None else 'OS entropy'}; a FAIL means the claim "
        "is violated at the stated confidence for this pair and event.")
