# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy audit --mechanism NAME --trials N``: the empirical privacy audit table.

``NAME-release`` (e.g. ``dpgazesynth-release``) audits every column of a whole release on
neighbouring datasets and prints one line per column.

The command is a gate: it exits with status 1 when an audit fails that its adapter does not
expect to fail (the expected violations are the paper modes known to be broken, the
deliberately broken ``broken-*`` variants and the not-private heatmap baselines), after a
one-line summary.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from gazeprivacy.cli._common import echo_table, make_rng, out, say
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


def _gate(adapter: Any, outcomes: list[tuple[str, dict[str, Any]]]) -> None:
    """Print the one-line summary; exit 1 on a FAIL that the adapter does not expect."""
    unexpected = [(m, row) for m, row in outcomes
                  if row["verdict"] != "pass" and not adapter.expected_to_fail(m)]
    missed = [m for m, row in outcomes if row["verdict"] == "pass" and
              adapter.expected_to_fail(m)]
    if unexpected:
        what = "; ".join(f"{row['mechanism']} [{m}]: lower bound "
                         f"{row['epsilon_lower_bound']:.3f} vs claim {row['claim']}, "
                         f"p = {row['p_value']:.2g}" + (
                             f" (failing: {row['pair'].split('failing: ')[-1]})"
                             if "failing: " in row["pair"] else "")
                         for m, row in unexpected)
        out().print(f"audit gate: FAIL -- unexpected violation: {what}", markup=False)
        raise typer.Exit(1)
    note = (f" (expected violation not shown in {', '.join(missed)}: more --trials?)"
            if missed else "")
    out().print(f"audit gate: ok -- {len(outcomes)} audit(s) as expected{note}", markup=False)


def audit(
    mechanism: Annotated[str, typer.Option(help="Audit adapter / mechanism name "
                                           "(e.g. laplace, dpgazesynth, dpgazesynth-runs, "
                                           "dpgazesynth-release, broken-oue).")],
    trials: Annotated[int | None, typer.Option(
        help="Draws per neighbouring input in the confirmation run (releases per dataset for "
             "NAME-release); more = tighter bound. Default: the adapter's (20000 per input; "
             "10000 releases; 500 for event-synth-pd-release).")] = None,
    mode: Annotated[str, typer.Option(help="sound, paper or both (the modes the mechanism "
                                      "has).")] = "both",
    seed: Annotated[int | None, typer.Option(help="Fix the seed (research run; >= 0); "
                                             "default: OS entropy.", min=0)] = None,
    confidence: Annotated[float, typer.Option(help="Confidence of the epsilon lower "
                                              "bound.")] = 0.99,
    explore: Annotated[bool, typer.Option(help="Search random neighbouring pairs as well "
                                          "as the hand-picked extremes.")] = True,
) -> None:
    """Audit one mechanism: claimed epsilon, audited lower bound, pass / FAIL per mode.

    Exits 1 when an audit fails that the adapter does not expect to fail."""
    from gazeprivacy.audit.adapters import ADAPTERS, MAX_TRIALS_FACTOR, audit_mechanism

    adapter = ADAPTERS[mechanism]
    trials = trials if trials is not None else adapter.default_trials
    if trials > adapter.max_trials:  # before any work: a huge count runs until killed
        raise InvalidParameterError(
            f"--trials must be at most {adapter.max_trials:,} for {mechanism} "
            f"({MAX_TRIALS_FACTOR} x its default of {adapter.default_trials:,}; a larger audit "
            f"runs for hours), got {trials:,}")
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
    outcomes = []
    for m, child in zip(modes, rng.spawn(len(modes)), strict=True):
        say(f"auditing {mechanism} ({m} mode)")
        res = audit_mechanism(mechanism, mode=m, n_trials=trials, rng=child,
                              confidence=confidence, explore=explore)
        row = res.row()
        outcomes.append((m, row))
        if adapter.kind == "release":
            echo_table(_release_table(res, trials, confidence))
        table.add_row(row["mechanism"], row["mode"], row["unit"], row.get(
            "claim", f"{row['claimed_epsilon']:.4g}"), f"{row['claimed_delta']:.3g}",
            f"{row['epsilon_lower_bound']:.3f}", f"{row['epsilon_estimate']:.3f}",
            _verdict(row["verdict"]), f"{row['p_value']:.2g}", Text(str(row["pair"])))
    echo_table(table)
    say(f"seed: {seed if seed is not None else 'OS entropy'}; a FAIL means the claim "
        "is violated at the stated confidence for this pair and event.")
    _gate(adapter, outcomes)
