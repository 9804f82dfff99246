# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy info`` and the CLI's error contract."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest
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


def test_info_says_what_a_release_would_rest_on(tmp_path):
    import json

    import numpy as np

    t = np.arange(200) / 60.0
    t[100:] += 0.5  # one gap of half a second
    x = np.linspace(-2.0, 18.0, 200)  # 10 % left of the screen, 10 % right of it
    r = Recording.from_arrays(recording="a", participant="p1", t=t, x=x, y=np.full(200, 5.0))
    path = tmp_path / "d.csv"
    r_table = Dataset((r,)).to_table()
    r_table.write_csv(path)
    res = CliRunner().invoke(app, ["info", str(path)])
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())
    assert "60 Hz (source: clock, snapped to a standard rate)" in out
    assert "geometry: missing; mechanisms bounded by the screen" in out
    assert "--geometry X_MIN,X_MAX,Y_MIN,Y_MAX" in out
    assert "gaps: 1 (intervals over 1.5 samples; 0.5 s in all)" in out
    assert "coordinates: x -2 to 18, y 5 to 5 deg" in out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the reader warns of the off-screen samples too)
        res = CliRunner().invoke(app, ["info", str(path), "--geometry", "0,16,0,12", "--json"])
    assert res.exit_code == 0, res.output
    facts = json.loads(res.output)
    assert facts["geometry"]["x_max_deg"] == 16 and facts["geometry_source"] is None
    assert facts["clamped_share"] == pytest.approx(0.2, abs=0.01)
    assert facts["sampling_rate_hz"] == [60.0] and facts["gaps"] == 1
    assert facts["rate_source"] == "clock, snapped to a standard rate"


def test_info_takes_the_reader_options_of_protect(tmp_path):
    from export_helpers import asc_trials_file

    path = asc_trials_file(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the dropped samples are counted in a warning)
        res = CliRunner().invoke(app, ["info", str(path), "--participant", "s", "--eye",
                                       "both", "--screen-cm", "53,30", "--distance-cm", "60",
                                       "--json"])
    assert res.exit_code == 0, res.output
    facts = __import__("json").loads(res.output.splitlines()[-1])
    assert facts["recordings"] == 6 and facts["rate_source"] == "export (EyeLink RATE)"
    assert facts["geometry_source"] == "the screen in physical units"
    assert facts["geometry"]["width_px"] == 1920
    assert facts["reading"]["rows"] == {"samples outside every trial dropped": 15}
    assert facts["reading"]["trials"] == 3
