# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy evaluate CONFIG --out DIR``: run an experiment grid and write its report.

The run is resumable: each finished cell is cached under ``DIR/cells``, so an interrupted run
(Ctrl-C) keeps the finished cells and the same command with ``--overwrite`` resumes it. An
existing, non-empty DIR is refused without ``--overwrite`` (the one output policy,
:func:`gazeprivacy._atomic.check_outputs`).

A release its mechanism refuses by a documented rule about the data
(:class:`~gazeprivacy.exceptions.ReleaseRefusedError`, e.g. implausible detected events) does
not stop the run: it is recorded (``DIR/refusals.json``, a ``refused`` row in the results, and
"refused" in the report's tables), and one line per refused release names it and the reason.

A cell that fails (any other error: a fault of a mechanism or an evaluation, since the data
passed its checks when loaded) does not stop the run either: one line names it as it happens,
the results and the report leave it out and list it, ``DIR/failures.json`` and
``DIR/cells/<key>.failed.json`` keep the error and traceback, the command ends with exit code 1,
and a rerun with ``--overwrite`` computes the failed cells again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from gazeprivacy.cli._common import STATE, Output, check_outputs, progress_wanted, say
from gazeprivacy.cli._common import out as out_console

__all__ = ["evaluate", "refusal_lines"]


def refusal_lines(refusals: list[dict[str, Any]]) -> list[str]:
    """One line per refused release (its seeds together), from
    :attr:`~gazeprivacy.experiments.engine.ExperimentResult.refusals`.

    >>> refusal_lines([{"dataset": "d", "mechanism": "m", "parameters": {"k": 2}, "seed": s,
    ...                 "reason": "m refuses to release: too few people"} for s in (1, 0)])
    ['refused: d / m {"k": 2} on seed(s) 0, 1: m refuses to release: too few people']
    """
    groups: dict[tuple[str, str, str, str], list[int]] = {}
    for r in refusals:
        key = (r["dataset"], r["mechanism"], json.dumps(r["parameters"], sort_keys=True),
               r["reason"])
        groups.setdefault(key, []).append(int(r["seed"]))
    return [f"refused: {ds} / {mech} {params} on seed(s) {', '.join(map(str, sorted(seeds)))}: "
            f"{reason}" for (ds, mech, params, reason), seeds in groups.items()]


def evaluate(
    config: Annotated[Path, typer.Argument(help="Experiment config (TOML).")],
    out: Annotated[Path, typer.Option(
        "--out", help="Output folder (a rerun with --overwrite resumes).")],
    workers: Annotated[int | None, typer.Option(help="Worker processes (default: the "
                                                     "config's, 2).", min=1)] = None,
    progress: Annotated[bool, typer.Option(help="Report progress on stderr (a bar on a "
                                           "terminal, one line per cell otherwise).")] = True,
    report: Annotated[bool, typer.Option(help="Write report.html.")] = True,
    overwrite: Annotated[bool, typer.Option(
        help="Write into an existing --out: finished cells are reused (this resumes an "
             "interrupted run), the results and report replaced.")] = False,
) -> None:
    """Run the grid (resumable with --overwrite: finished cells are skipped), write
    results.parquet, guarantees.json and report.html."""
    from gazeprivacy.experiments.config import load_config
    from gazeprivacy.experiments.engine import run_experiment

    check_outputs([Output(out, "--out", folder=True)], inputs=[config], overwrite=overwrite)
    cfg = load_config(config)
    STATE.on_interrupt = (f"finished cells are kept in {out}; rerun the same command with "
                          "--overwrite to resume")
    res = run_experiment(cfg, out, workers=workers, progress=progress_wanted(progress))
    console = out_console()
    failed = f", {len(res.failures)} failed" if res.failures else ""
    console.print(f"{cfg.name}: {res.n_cells} cells ({res.n_run} run, "
                  f"{res.n_skipped} reused{failed}) in {res.seconds:.1f} s; "
                  f"{res.results.height} result rows -> {out / 'results.parquet'}", markup=False)
    for line in refusal_lines(res.refusals):
        say(line)
    for note in res.notes[:10]:
        say(f"note: {note}")
    if report:
        from gazeprivacy.report.html import build_report

        say("writing the report")
        console.print(f"report: {build_report(out)}", markup=False)
    if res.failures:
        from gazeprivacy.exceptions import GazePrivacyError
        from gazeprivacy.experiments.engine.failures import failure_lines

        for line in failure_lines(res.failures):
            say(line)
        raise GazePrivacyError(
            f"{len(res.failures)} cell(s) failed and are left out of the results and the report "
            "(a fault of a mechanism or an evaluation: the data passed its checks when loaded); "
            f"tracebacks in {out / 'cells'}/*.failed.json; the same command with --overwrite "
            "computes them again")
