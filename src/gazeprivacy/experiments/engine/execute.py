# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Running the grid's unfinished cells: in this process or a pool of spawned worker processes,
with a progress bar (Rich on a terminal, one line per cell otherwise), a line per refused
release and per failed cell (:mod:`~gazeprivacy.experiments.engine.failures`: the run goes on),
and Ctrl-C stopping the workers.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from functools import partial
from multiprocessing import get_context
from typing import Any

from gazeprivacy.experiments.engine.cells import Cell, _Context
from gazeprivacy.experiments.engine.failures import run_guarded

__all__ = ["execute"]


def _worker_init() -> None:
    # Ctrl-C in a terminal reaches the whole process group: the parent stops the run, so the
    # workers ignore it (no traceback per worker) and are shut down by the parent.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # One BLAS / OpenMP thread per worker process: the pool already uses the cores, and
    # oversubscribed BLAS threads slow small least-squares problems down by 10x or more.
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except ImportError:  # threadpoolctl comes with scikit-learn; keep going without it
        pass


class _Lines:
    """Progress without a terminal (a log file, CI): one line per finished cell on stderr."""

    def __init__(self, total: int) -> None:
        self.total, self.done = total, 0

    def advance(self, _task: object = None) -> None:
        self.done += 1
        print(f"cells: {self.done}/{self.total} done", file=sys.stderr, flush=True)

    def stop(self) -> None:
        pass


def _progress(total: int) -> tuple[Any, Any]:
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal:
        return _Lines(total), None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    bar = Progress("[progress.description]{task.description}", BarColumn(),
                   MofNCompleteColumn(), TimeElapsedColumn(), console=console, transient=False)
    bar.start()
    return bar, bar.add_task("cells", total=total)


def _tell(bar: Any, meta: Mapping[str, Any]) -> None:
    """One line on stderr, beside the progress, when a cell failed (always: the run goes on
    past it) or its release was refused (with progress only: the caller gets the refusals in
    :class:`~gazeprivacy.experiments.engine.runner.ExperimentResult`)."""
    what = "failed" if meta.get("failed") else "refused"
    if not meta.get(what) or (bar is None and what == "refused"):
        return
    c = meta["cell"]
    text = (f"{what}: {c['dataset']} / {c['label']} {Cell(**c).parameters_json} seed "
            f"{c['seed']}: {meta[what]}")
    console = getattr(bar, "console", None)  # a Rich bar; _Lines prints plain lines
    if console is not None:
        console.print(text, markup=False, highlight=False)
    else:
        print(text, file=sys.stderr, flush=True)


def execute(todo: list[Cell], ctx: _Context, n_workers: int, progress: bool,
            run: Callable[[Cell, _Context], dict[str, Any]]) -> None:
    """Run ``todo`` with ``run`` (a module-level function: the workers unpickle it), in this
    process or a pool of ``n_workers`` spawned processes; a progress bar when ``progress``. A
    cell that raises is written as failed and the others go on
    (:func:`~gazeprivacy.experiments.engine.failures.run_guarded`)."""
    if not todo:
        return
    run = partial(run_guarded, run)
    bar, task = _progress(len(todo)) if progress else (None, None)
    try:
        if n_workers <= 1 or len(todo) == 1:
            for c in todo:
                _tell(bar, run(c, ctx))
                if bar is not None:
                    bar.advance(task)
        else:
            with ProcessPoolExecutor(max_workers=min(n_workers, len(todo)),
                                     mp_context=get_context("spawn"),
                                     initializer=_worker_init) as pool:
                pending = {pool.submit(run, c, ctx) for c in todo}
                try:
                    while pending:
                        # A short timeout: Ctrl-C may be delivered to a helper thread, and the
                        # main thread only notices it when it wakes up.
                        done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                        for fut in done:
                            _tell(bar, fut.result())
                            if bar is not None:
                                bar.advance(task)
                except BaseException as exc:
                    # Queued cells are cancelled. On Ctrl-C the running ones are terminated too
                    # (cells are written atomically, so a resumed run recomputes them); after a
                    # lost worker they finish and are cached for the rerun.
                    if isinstance(exc, KeyboardInterrupt):
                        for proc in list((getattr(pool, "_processes", None) or {}).values()):
                            proc.terminate()
                    pool.shutdown(wait=True, cancel_futures=True)
                    raise
    finally:
        if bar is not None:
            bar.stop()
