# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""benchmarks/history.py: runs are appended, and a row 20 % worse than the run before is named."""

from __future__ import annotations

import importlib.util
from pathlib import Path

spec = importlib.util.spec_from_file_location(
    "bench_history", Path(__file__).resolve().parents[1] / "benchmarks" / "history.py")
history = importlib.util.module_from_spec(spec)
spec.loader.exec_module(history)


def test_a_twenty_percent_slowdown_is_reported(tmp_path):
    f = tmp_path / "h.csv"
    assert history.check(f) == []  # no file yet
    history.append("run.py", [("kaleido", "x baseline", 2.0), ("dpgazesynth", "x baseline", 3.0)],
                   load=0.5, path=f)
    assert history.check(f) == []  # a single run
    history.append("run.py", [("kaleido", "x baseline", 2.3), ("dpgazesynth", "x baseline", 3.7)],
                   load=0.5, path=f)
    worse = history.check(f, threshold=0.2)
    assert len(worse) == 1 and "dpgazesynth" in worse[0] and "+23 %" in worse[0]
    # another benchmark's runs are compared among themselves only
    history.append("protect", [("kaleido", "x baseline", 9.0)], load=0.5, path=f)
    assert len(history.check(f, threshold=0.2)) == 1
    lines = f.read_text().splitlines()
    assert lines[0] == ",".join(history.FIELDS) and len(lines) == 6
