# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The command line's surface: one-line errors and exit codes, --version, lazy imports, the
mechanisms and datasets listings, paper-named reproductions, safe output, Ctrl-C.

Most cases run ``gazeprivacy.cli.app.run`` in-process (the console script's code path, with
stdout / stderr captured); the cases that need a fresh interpreter (no arguments, imports,
SIGINT) run a subprocess.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from gazeprivacy.cli.app import run

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from gazeprivacy.cli.app import main; main()",
                           *args], capture_output=True, text=True, check=False,
                          env=env or _env())


def _run(capsys, *args: str) -> tuple[int, str, str]:
    code = run(list(args))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def _one_error_line(err: str) -> str:
    """The error is one line (warnings printed before the failure are separate lines)."""
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("warning: ")]
    assert "Traceback" not in err
    assert len(lines) == 1, err
    assert lines[0].startswith("error: "), err
    return lines[0]


# ------------------------------------------------------------------------- exit codes, lines

def test_no_arguments_prints_help_and_exits_0():
    proc = _cli()
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "Usage: gazeprivacy" in proc.stdout
    # commands are grouped by workflow
    assert "Protect data:" in proc.stdout and "Look things up:" in proc.stdout


def test_version(capsys):
    from gazeprivacy import __version__

    code, out, err = _run(capsys, "--version")
    assert code == 0 and out.strip() == f"gazeprivacy {__version__}" and not err


@pytest.mark.parametrize(("args", "needle"), [
    (["info", "x.csv", "--time-unitt", "ms"], "No such option: --time-unitt"),
    (["info"], "Missing argument"),
    (["demo", "--seed", "-1"], "--seed"),
    (["protect", "a.csv", "b.csv", "--mechanism", "kaleido", "--epsilon", "abc"], "--epsilon"),
    (["mechanisms", "--format", "xml"], "--format"),
    (["nosuchcommand"], "No such command"),
], ids=["typo-option", "missing-argument", "negative-seed", "epsilon-abc", "bad-format",
        "typo-command"])
def test_usage_errors_are_one_line_and_exit_2(capsys, args, needle):
    code, _out, err = _run(capsys, *args)
    assert code == 2
    assert needle in _one_error_line(err)


def test_data_error_is_one_line_and_exit_1(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("participant,recording,t\np,r,0\n")
    code, _out, err = _run(capsys, "info", str(bad))
    assert code == 1
    assert "missing required column" in _one_error_line(err)


def test_hints_name_cli_flags_not_python_arguments(tmp_path, capsys):
    f = tmp_path / "ms.csv"
    pl.DataFrame({"participant": ["p"] * 3, "recording": ["r"] * 3, "t": [0.0, 4.0, 8.0],
                  "x": [0.0, 1.0, 2.0], "y": [0.0, 1.0, 2.0]}).write_csv(f)
    code, _out, err = _run(capsys, "info", str(f))
    line = _one_error_line(err)
    assert code == 1
    assert "--time-unit ms" in line and "time_unit=" not in line


def test_heatmap_on_an_empty_file_is_a_data_error(tmp_path, capsys):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    code, _out, err = _run(capsys, "-q", "heatmap", str(empty), "--stimulus", "a", "--epsilon",
                           "1", "--width-px", "10", "--height-px", "10", "--cap", "1",
                           "--out", str(tmp_path / "h.png"))
    assert code == 1
    _one_error_line(err)
    assert not (tmp_path / "h.png").exists()


def test_missing_extra_keeps_its_brackets(capsys, monkeypatch):
    from gazeprivacy.cli import mechanisms as mech_cmd
    from gazeprivacy.exceptions import MissingDependencyError

    def boom(name):
        raise MissingDependencyError(
            "torch is needed here; install it with: pip install 'gazeprivacy[deep]'")

    monkeypatch.setattr(mech_cmd, "describe_mechanism", boom)
    code, _out, err = _run(capsys, "mechanisms", "kaleido")
    assert code == 1
    assert "pip install 'gazeprivacy[deep]'" in _one_error_line(err)


def test_help_keeps_bracketed_text():
    from typer.testing import CliRunner

    from gazeprivacy.cli.app import app

    res = CliRunner().invoke(app, ["protect", "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0
    assert "[lo, hi]" in res.output


def test_unexpected_errors_are_one_line_without_traceback(capsys, monkeypatch):
    from gazeprivacy.cli import mechanisms as mech_cmd

    monkeypatch.setattr(mech_cmd, "describe_mechanism", lambda name: 1 / 0)
    code, _out, err = _run(capsys, "mechanisms", "kaleido")
    assert code == 1 and "Traceback" not in err
    assert err.strip().startswith("internal error: ZeroDivisionError")
    code, _out, err = _run(capsys, "--verbose", "mechanisms", "kaleido")
    assert code == 1 and "Traceback" in err


# ----------------------------------------------------------------------------- lazy imports

def test_importing_the_cli_does_not_import_heavy_libraries():
    code = ("import sys, gazeprivacy.cli.app\n"
            "heavy = [m for m in ('sklearn', 'matplotlib', 'torch') if m in sys.modules]\n"
            "print(','.join(heavy))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env=_env())
    assert proc.stdout.strip() == "", f"imported at CLI import time: {proc.stdout}"


# ---------------------------------------------------------------------------- listings

def test_mechanisms_lists_every_registered_mechanism(capsys):
    from gazeprivacy.mechanisms import MECHANISMS

    code, out, _err = _run(capsys, "mechanisms", "--format", "json")
    assert code == 0
    listed = json.loads(out)
    assert [d["name"] for d in listed] == list(MECHANISMS)
    kaleido = next(d for d in listed if d["name"] == "kaleido")
    params = {p["name"]: p for p in kaleido["parameters"]}
    assert params["epsilon"]["required"] and params["radius_deg"]["required"]
    assert params["mode"] == {**params["mode"], "required": False, "default": "sound"}
    assert params["radius_deg"]["unit"] == "degrees"
    assert kaleido["partition_phases"] is True and "Kaleido" in kaleido["citation"]
    assert [p["name"] for p in kaleido["presets"]] == ["paper"]
    assert "radius_deg: float" in kaleido["presets"][0]["signature"]


def test_mechanism_detail_table_and_csv(capsys):
    code, out, _err = _run(capsys, "mechanisms", "heatmap-gaussian")
    assert code == 0
    assert "REQUIRED" in out and "citation: Liu" in out and "partition phases: no" in out
    code, out, _err = _run(capsys, "mechanisms", "kaleido", "--format", "csv")
    rows = out.strip().splitlines()
    assert rows[0].startswith("mechanism,name,type,required,default")
    assert any(r.startswith("kaleido,epsilon,float,True") for r in rows[1:])
    code, _out, err = _run(capsys, "mechanisms", "nope")
    assert code == 1 and "registered: dpgazesynth" in _one_error_line(err)


def test_datasets_never_truncates_names(tmp_path):
    # A narrow terminal: the names users type must still appear whole on one line.
    proc = _cli("datasets", "--data-dir", str(tmp_path), env={**_env(), "COLUMNS": "60"})
    assert proc.returncode == 0, proc.stderr
    assert "vr_selfcalib_office_supermarket" in proc.stdout
    assert "gazegraph_desktop_activity" in proc.stdout
    proc = _cli("datasets", "--data-dir", str(tmp_path), "--format", "csv")
    names = pl.read_csv(proc.stdout.encode())["name"].to_list()
    assert "vr_selfcalib_office_supermarket" in names


# ------------------------------------------------------------------------- reproductions

def test_reproductions_are_named_by_paper_and_old_names_still_work(capsys):
    code, out, _err = _run(capsys, "reproduce", "--help")
    assert code == 0
    for name in ("ren-2025-dpgazesynth", "david-john-2023", "bozkir-2021", "liu-2019",
                 "steil-2019"):
        assert name in out
    assert "seed000" not in out  # hidden alias
    code, out, _err = _run(capsys, "reproduce", "seed003", "--help")
    assert code == 0 and "Liu et al." in out


def test_reproduce_liu_2019_keeps_stimulus_files_inside_out(tmp_path, monkeypatch, capsys):
    from gazeprivacy.experiments.fixation_tables import read_fixation_table
    from gazeprivacy.experiments.reproduce import seed003

    rows = [{"participant": f"p{i}", "stimulus": "../../escape", "fixation": j,
             "x_px": 10.0 + 3 * i + j, "y_px": 20.0 + j, "duration_ms": 200.0}
            for i in range(6) for j in range(4)]
    table = tmp_path / "fix.csv"
    pl.DataFrame(rows).write_csv(table)
    monkeypatch.setitem(seed003.DATASETS, "osie",
                        lambda _d: read_fixation_table(table, width_px=64, height_px=48))
    out = tmp_path / "a" / "b" / "out"
    code, _o, err = _run(capsys, "-q", "reproduce", "seed003", "--out", str(out),
                         "--data-dir", str(tmp_path), "--dataset", "osie", "--n-draws", "1",
                         "--n-stimuli", "1", "--epsilon", "1", "--cell-px", "16",
                         "--n-simulated", "50")
    assert code == 0, err
    assert "deprecated" not in err  # -q silences the note
    pngs = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.png"))
    assert pngs and all(p.parts[:3] == ("a", "b", "out") for p in pngs), pngs
    assert any("escape" in p.name for p in pngs)
    assert (out / "results.parquet").is_file()  # the one format of every reproduction
    # --out exists now: a second run needs --overwrite.
    code, _o, err = _run(capsys, "reproduce", "liu-2019", "--out", str(out), "--data-dir",
                         str(tmp_path), "--dataset", "osie", "--n-draws", "1")
    assert code == 1 and "--overwrite" in _one_error_line(err)
    # The old name still works and says what the new one is.
    code, _o, err = _run(capsys, "reproduce", "seed003", "--out", str(out), "--data-dir",
                         str(tmp_path), "--dataset", "osie", "--n-draws", "1")
    note, error = err.strip().splitlines()
    assert note == "note: 'reproduce seed003' is deprecated; it is now 'reproduce liu-2019'"
    assert code == 1 and "--overwrite" in error


# ------------------------------------------------------------------------------ safe output

def _fixations(tmp_path: Path) -> Path:
    rows = [{"participant": f"p{i}", "stimulus": "img", "fixation": j,
             "x_px": 10.0 + 3 * i + j, "y_px": 20.0 + j, "duration_ms": 200.0}
            for i in range(6) for j in range(4)]
    p = tmp_path / "fix.csv"
    pl.DataFrame(rows).write_csv(p)
    return p


def _heatmap(tmp_path: Path, out: Path, *extra: str) -> list[str]:
    return ["-q", "heatmap", str(_fixations(tmp_path)), "--stimulus", "img", "--width-px", "64",
            "--height-px", "48", "--epsilon", "1", "--cap", "1", "--mechanism", "laplace",
            "--out", str(out), "--seed", "3", *extra]


def test_heatmap_output_is_checked_before_the_work(tmp_path, capsys, monkeypatch):
    from gazeprivacy.experiments import heatmap_release

    def never(*a, **k):
        raise AssertionError("the release ran before the output was checked")

    monkeypatch.setattr(heatmap_release, "release_heatmap", never)
    for out, needle in ((tmp_path / "x.txt", "must end in .png"),
                        (tmp_path / "no" / "such" / "h.png", "does not exist")):
        code, _o, err = _run(capsys, *_heatmap(tmp_path, out))
        assert code == 1 and needle in _one_error_line(err)


def test_heatmap_refuses_the_input_and_an_existing_output(tmp_path, capsys):
    fix = _fixations(tmp_path)
    before = fix.read_bytes()
    code, _o, err = _run(capsys, *_heatmap(tmp_path, tmp_path / "fix.png",
                                           "--stimulus-image", str(tmp_path / "fix.png")))
    assert code == 1 and "input" in _one_error_line(err)
    out = tmp_path / "h.png"
    code, _o, err = _run(capsys, *_heatmap(tmp_path, out))
    assert code == 0, err
    first = out.read_bytes()
    code, _o, err = _run(capsys, *_heatmap(tmp_path, out))
    assert code == 1 and "--overwrite" in _one_error_line(err)
    assert out.read_bytes() == first
    code, _o, err = _run(capsys, *_heatmap(tmp_path, out, "--overwrite"))
    assert code == 0, err
    assert fix.read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".partial")]


def test_atomic_files_leave_nothing_on_interrupt(tmp_path):
    from gazeprivacy.cli._common import atomic_files

    final = tmp_path / "data.csv"
    final.write_text("old")
    with pytest.raises(KeyboardInterrupt), atomic_files(final) as (tmp,):
        tmp.write_text("half")
        raise KeyboardInterrupt
    assert final.read_text() == "old" and sorted(tmp_path.iterdir()) == [final]
    with atomic_files(final) as (tmp,):
        tmp.write_text("new")
    assert final.read_text() == "new" and sorted(tmp_path.iterdir()) == [final]


def test_demo_refuses_a_non_empty_folder_without_overwrite(tmp_path, capsys, monkeypatch):
    (tmp_path / "mine.txt").write_text("keep me")
    code, _o, err = _run(capsys, "demo", "--out", str(tmp_path))
    assert code == 1 and "--overwrite" in _one_error_line(err)
    code, _o, err = _run(capsys, "demo", "--out", str(tmp_path), "--overwrite")
    assert code == 1 and "did not write" in _one_error_line(err)
    assert (tmp_path / "mine.txt").read_text() == "keep me"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results.parquet").write_bytes(b"")
    code, _o, err = _run(capsys, "demo", "--out", ".", "--overwrite")
    assert code == 1 and "current folder" in _one_error_line(err)
    assert (tmp_path / "mine.txt").read_text() == "keep me"


def test_partition_manifest_pointing_outside_its_folder_is_refused(tmp_path):
    from gazeprivacy.data import partitioned
    from gazeprivacy.data.partitioned import MANIFEST, PartitionedDataset
    from gazeprivacy.exceptions import InvalidDataError

    folder = tmp_path / "parts"
    folder.mkdir()
    (tmp_path / "secret.parquet").write_bytes(b"x")
    for file in ("../secret.parquet", str(tmp_path / "secret.parquet")):
        (folder / MANIFEST).write_text(json.dumps({
            "format": partitioned._FORMAT, "name": "d",
            "partitions": [{"file": file, "recordings": ["r"], "participants": ["p"],
                            "n_samples": 1}]}))
        with pytest.raises(InvalidDataError, match="outside the dataset's folder"):
            PartitionedDataset(folder)


# ------------------------------------------------------------------------------------ Ctrl-C

def test_importing_the_data_model_loads_numpys_c_api_for_polars():
    # polars loads NumPy's C API on its first to_numpy by running NumPy Python code; a Ctrl-C
    # there became a Rust panic instead of exit 130 (seen once in CI). After the data model is
    # imported, a conversion runs no NumPy Python code (a fresh process: this one converted).
    code = (
        "import sys\n"
        "import gazeprivacy.data.recording\n"
        "import polars as pl\n"
        "calls = []\n"
        "sys.setprofile(lambda f, e, a: calls.append(f.f_code.co_filename) if e == 'call' "
        "else None)\n"
        "pl.Series([1.0]).to_numpy()\n"
        "sys.setprofile(None)\n"
        "print(sum('numpy' in c and 'polars' not in c for c in calls))\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=_env(), check=True)
    assert res.stdout.strip() == "0", res.stdout + res.stderr


def test_ctrl_c_exits_130_and_removes_the_partial_output(tmp_path):
    out = tmp_path / "demo"
    proc = subprocess.Popen(
        [sys.executable, "-c", "from gazeprivacy.cli.app import main; main()", "demo",
         "--out", str(out), "--seed", "1", "--workers", "2", "--n-splits", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
        cwd=tmp_path)
    try:
        deadline = time.monotonic() + 300
        partial: list[Path] = []
        # Wait until the run has started writing (its temporary folder has content).
        while time.monotonic() < deadline and proc.poll() is None:
            partial = [p for p in tmp_path.iterdir() if p.name.startswith(".partial")]
            if partial and any(partial[0].rglob("*")):
                break
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()
        assert partial, "the demo never started writing"
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        _out, err = proc.communicate(timeout=300)
        # Running cells are stopped, not waited for (generous bound for a loaded machine).
        assert time.monotonic() - sent < 60
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("interrupted:")
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".partial")]


def test_a_full_disk_is_one_line_and_leaves_no_partial_file(tmp_path, capsys, monkeypatch):
    import errno

    from gazeprivacy.report import heatmap_render

    def full(heatmap, path, **kw):
        Path(path).write_bytes(b"\x89PNG half")
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(heatmap_render, "render_heatmap_png", full)
    out = tmp_path / "h.png"
    code, _o, err = _run(capsys, *_heatmap(tmp_path, out))
    assert code == 1 and "No space left on device" in _one_error_line(err)
    assert not out.exists() and not (tmp_path / "h.guarantee.json").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".partial")]


@pytest.mark.filterwarnings("default")
def test_library_warnings_are_one_line_with_cli_flags(capsys, monkeypatch):
    import warnings

    from gazeprivacy.cli import mechanisms as mech_cmd
    from gazeprivacy.exceptions import DataPolicyWarning

    real = mech_cmd.describe_mechanism

    def warn(name):
        warnings.warn("timestamps look like ms: pass time_unit='ms'", DataPolicyWarning,
                      stacklevel=1)
        return real(name)

    monkeypatch.setattr(mech_cmd, "describe_mechanism", warn)
    code, _out, err = _run(capsys, "mechanisms", "kaleido")
    assert code == 0
    assert err.strip() == ("warning (DataPolicyWarning): timestamps look like ms: "
                           "pass --time-unit ms")


def test_info_shows_the_record_of_a_release(tmp_path, capsys):
    import numpy as np

    from gazeprivacy.data.io import write_dataset
    from gazeprivacy.mechanisms import MECHANISMS, Mode

    data, params = MECHANISMS["kaleido"].example(Mode.SOUND)
    rel = MECHANISMS["kaleido"].protect(data, params, rng=np.random.default_rng(0))
    path = write_dataset(rel.output, tmp_path / "released.parquet")
    code, out, _err = _run(capsys, "info", str(path))
    assert code == 0 and "record: none found" in out
    (tmp_path / "released.parquet.guarantee.json").write_text(rel.guarantee.to_json())
    code, out, _err = _run(capsys, "info", str(path))
    assert code == 0
    assert f"released.parquet.guarantee.json): {rel.guarantee.summary()}" in out


def test_a_run_collects_garbage_less_often_and_restores_the_thresholds(tmp_path, monkeypatch):
    """Start-up makes many long-lived objects: a run raises the young generation's threshold
    (issue 18) and puts the caller's thresholds back, also after an error."""
    import gc

    seen = []
    monkeypatch.setattr("gazeprivacy.cli.app._check_utf8",
                        lambda a: seen.append(gc.get_threshold()))
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        assert run(["--version"]) == 0
        assert seen[-1] == (10_000, 10, 10)  # during the run
        assert gc.get_threshold() == (700, 10, 10)
        assert run(["protect", str(tmp_path / "missing.parquet"), str(tmp_path / "o.parquet"),
                    "--mechanism", "kaleido"]) != 0
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*before)
