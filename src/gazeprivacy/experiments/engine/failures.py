# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Cells that fail: a cell that raises (anything but a documented refusal, which its cell records
as its outcome) no longer stops the grid. Its error is written to ``cells/<key>.failed.json``
(the one-line reason and the traceback), said on stderr as it happens, and gathered into the
run's ``failures.json``; the cell gets no meta, so it is not done: the results and the report
leave it out and say so, and a rerun computes it again. ``gazeprivacy evaluate`` ends with a
non-zero exit when any cell failed.

Every input passed the data model's checks when it was loaded, and every parameter point was
built before the run started, so a cell that fails is a fault of its mechanism or of an
evaluation, not of the user's data: the reason drops the data checks' advice about units,
which would blame the input (a release thrown 375 degrees off the screen is not "gaze in
pixels").
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from gazeprivacy.data.recording import GAZE_UNIT_HINT
from gazeprivacy.experiments.engine.cells import Cell, _atomic, _Context, _one_line

__all__ = ["FOLD_FOLDERS", "failure_lines", "failure_reason", "read_failures", "run_guarded"]

#: the folders of the pooled games' per-cell fold rows (``<folder>/<key>.parquet``)
FOLD_FOLDERS = ("membership", "attribute")


def failure_reason(exc: BaseException) -> str:
    """``Type: first line of the message``, without the data checks' unit advice."""
    if not str(exc):
        return type(exc).__name__
    return f"{type(exc).__name__}: {_one_line(exc).replace(GAZE_UNIT_HINT, '')}"


def _failed_path(out_dir: str | Path, key: str) -> Path:
    return Path(out_dir) / "cells" / f"{key}.failed.json"


def run_guarded(run: Callable[[Cell, _Context], dict[str, Any]], cell: Cell,
                ctx: _Context) -> dict[str, Any]:
    """``run(cell, ctx)``; when it raises an :class:`Exception`, the failure written (and the
    cell's fold rows removed: a failed cell must not pool part of its games) and ``{"cell",
    "failed"}`` returned instead; an earlier run's meta of the cell is removed too, so the cell
    is not done. Ctrl-C and other non-``Exception`` exits still stop the run. A cell that
    succeeds removes the failure an earlier run left for it."""
    failed = _failed_path(ctx.out_dir, cell.key)
    try:
        meta = run(cell, ctx)
    except Exception as exc:  # any error: written, said, and the exit is non-zero
        # an earlier run's meta of this cell (computed again: stale) would mark it done
        (Path(ctx.out_dir) / "cells" / f"{cell.key}.json").unlink(missing_ok=True)
        for folder in FOLD_FOLDERS:
            (Path(ctx.out_dir) / folder / f"{cell.key}.parquet").unlink(missing_ok=True)
        where = {**asdict(cell), "parameters": dict(cell.parameters)}
        record = {"key": cell.key, "cell": where, "error": failure_reason(exc),
                  "traceback": traceback.format_exc()}
        _atomic(failed, lambda p: Path(p).write_text(json.dumps(record, indent=2, default=str)))
        return {"cell": where, "failed": record["error"]}
    failed.unlink(missing_ok=True)
    return meta


def read_failures(out: Path, cells: Sequence[Cell]) -> list[dict[str, Any]]:
    """The failures of ``cells`` not finished since (a cell with a meta has succeeded): dataset,
    mechanism (its label), parameters, epsilon, seed, error; the tracebacks stay in the cells'
    ``.failed.json``."""
    rows = []
    for c in cells:
        path = _failed_path(out, c.key)
        if path.is_file() and not (out / "cells" / f"{c.key}.json").is_file():
            error = json.loads(path.read_text())["error"]
            rows.append({"dataset": c.dataset, "mechanism": c.label,
                         "parameters": dict(c.parameters), "epsilon": c.epsilon,
                         "seed": c.seed, "error": error, "file": str(path)})
    return rows


def failure_lines(failures: Sequence[dict[str, Any]]) -> list[str]:
    """One line per failed cell, for the command line."""
    return [f"failed: {f['dataset']} / {f['mechanism']} "
            f"{json.dumps(f['parameters'], sort_keys=True)} seed {f['seed']}: {f['error']}"
            for f in failures]
