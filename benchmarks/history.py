# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The benchmark history: every benchmark run appends its rows to ``benchmarks/history.csv``.

One CSV line per measured row: ``run`` (UTC time of the run), ``git`` (short commit, ``-dirty``
with uncommitted changes), ``machine`` (CPU model and logical CPUs), ``load`` (1-minute load
average at the start), ``benchmark`` (``run.py``, ``protect_process.py``, ...), ``row``,
``metric`` and ``value``. Metrics are ratios against a baseline measured in the same run (or
times where no baseline applies); for every metric **lower is better**.

Check: ``python benchmarks/history.py check [--threshold 0.2] [--file F]`` compares, for each
benchmark, its latest run with the one before on the same machine and prints every row that got
more than ``threshold`` (20 %) worse, and exits 1 when there is one (``make bench-check``). A
shared or loaded machine makes single runs noisy: compare runs made at a similar load.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import os
import platform
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

__all__ = ["HISTORY", "append", "check", "cpu_model", "machine_id"]

HISTORY = Path(__file__).resolve().parent / "history.csv"
FIELDS = ("run", "git", "machine", "load", "benchmark", "row", "metric", "value")


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo where there is one)."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(line.split(":", 1)[1].strip() for line in fh if "model name" in line)
    except (OSError, StopIteration):
        pass
    return cpu


def machine_id() -> str:
    """CPU model and logical CPU count (what makes two runs comparable)."""
    return f"{cpu_model()} x{os.cpu_count()}"


def _git() -> str:
    root = Path(__file__).resolve().parents[1]
    try:
        sha = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, check=True,
                             capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=root, check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return sha + ("-dirty" if dirty.strip() else "")


def append(benchmark: str, rows: Iterable[tuple[str, str, float]], *,
           load: float | None = None, path: str | Path = HISTORY) -> Path:
    """Append ``(row, metric, value)`` rows of one run of ``benchmark`` to the history."""
    path = Path(path)
    new = not path.exists()
    run = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    load = os.getloadavg()[0] if load is None and hasattr(os, "getloadavg") else load
    with path.open("a", newline="") as fh:
        w = csv.writer(fh)
        if new:
            w.writerow(FIELDS)
        for row, metric, value in rows:
            w.writerow([run, _git(), machine_id(), f"{load:.2f}", benchmark, row, metric,
                        f"{value:.6g}"])
    return path


def _runs(path: Path) -> dict[tuple[str, str], list[tuple[str, dict[tuple[str, str], float]]]]:
    """``(benchmark, machine) -> [(run, {(row, metric): value})]`` in file order."""
    out: dict[tuple[str, str], dict[str, dict[tuple[str, str], float]]] = {}
    with path.open(newline="") as fh:
        for r in csv.DictReader(fh):
            runs = out.setdefault((r["benchmark"], r["machine"]), {})
            label = f"{r['run']} {r['git']} (load {r['load']})"
            runs.setdefault(label, {})[(r["row"], r["metric"])] = float(r["value"])
    return {k: list(v.items()) for k, v in out.items()}


def check(path: str | Path = HISTORY, threshold: float = 0.2) -> list[str]:
    """Rows of each benchmark's latest run more than ``threshold`` worse than the run before
    (same machine); one line each."""
    path = Path(path)
    if not path.exists():
        return []
    worse = []
    for (bench, mach), runs in _runs(path).items():
        if len(runs) < 2:
            continue
        (prev_label, prev), (last_label, last) = runs[-2], runs[-1]
        for key, value in last.items():
            before = prev.get(key)
            if before is not None and before > 0 and value > before * (1 + threshold):
                worse.append(f"{bench} [{mach}] {key[0]} / {key[1]}: {before:.4g} -> {value:.4g}"
                             f" (+{100 * (value / before - 1):.0f} %; {prev_label} -> "
                             f"{last_label})")
    return worse


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["check"])
    ap.add_argument("--threshold", type=float, default=0.2)
    ap.add_argument("--file", default=str(HISTORY))
    a = ap.parse_args()
    worse = check(a.file, a.threshold)
    for line in worse:
        print("REGRESSION", line)
    if not worse:
        print(f"no row of the latest runs is more than {100 * a.threshold:.0f} % worse than "
              "the run before (same benchmark, same machine)")
    sys.exit(1 if worse else 0)


if __name__ == "__main__":
    main()
