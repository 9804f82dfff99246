# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy info`` and the CLI's error contract."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from gazeprivacy.cli.app import app
from gazeprivacy.data import Dataset, Recording, write_dataset


def test_info_summarises_a_file(tmp_path):
    r = Recording.from_arrays(recording="a", participant="p1", x=[1.0, 2.0], y=[1.0, 2.0],
                              sampling_rate_hz=50, labels={"task": "read"})
    path = write_dataset(Dataset((r,)), tmp_path / "d.parquet")
    res = CliRunner().invoke(app, ["info", str(path)])
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())
    assert "1 recordings, 1 participants, 2 samples" in out
    assert "task" in out


def test_info_reads_an_eye_tracker_export_as_protect_does(tmp_path):
    from export_helpers import tobii_file

    path = tobii_file(tmp_path)
    res = CliRunner().invoke(app, ["info", str(path), "--px-per-deg", "40"])
    assert res.exit_code == 0, res.output
    assert "2 recordings, 2 participants, 80 samples" in " ".join(res.output.split())
    res = CliRunner().invoke(app, ["info", str(path), "--input-format", "neon"])
    # the declared format is used, not the detected one
    assert "a Neon gaze.csv needs" in str(res.exception)


def test_library_errors_become_one_line_and_exit_code_1(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("participant,recording,t\np,r,0\n")
    proc = subprocess.run([sys.executable, "-c", "from gazeprivacy.cli.app import main; main()",
                           "info", str(bad)], capture_output=True, text=True, check=False)
    assert proc.returncode == 1  # a data error; 2 is for usage errors
    assert "error:" in proc.stderr and "missing required column" in proc.stderr
    assert "Traceback" not in proc.stderr
