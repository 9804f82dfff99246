# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The one output policy (``gazeprivacy._atomic.check_outputs``), run through the command line
for EVERY command that writes, against EACH refusal: the output is the input, a link to the
input, the ledger, the ledger's key, another output of the same command, or an existing output
without ``--overwrite``. Every refused run leaves every file in the folder as it was (bytes)
and writes nothing.

Then the faults, injected in-process into each command's writer: Ctrl-C (KeyboardInterrupt),
SIGTERM (a real signal to this process, which the command line's handler turns into the Ctrl-C
path) and a full disk (``OSError(ENOSPC)``): exit 130 / 143 / 1 with one line ("disk full"),
the old output intact and no hidden partial file left.

Runs go through :func:`gazeprivacy.cli.app.run`, the console script's code path, so the exit
codes and error lines are the ones a user sees.
"""

from __future__ import annotations

import csv
import errno
import os
import re
import shutil
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from gazeprivacy.cli.app import run
from gazeprivacy.data import Dataset, Geometry, Recording, write_dataset
from gazeprivacy.data.partitioned import MANIFEST, write_partitioned

GEO = Geometry(x_min_deg=0.0, x_max_deg=16.0, y_min_deg=0.0, y_max_deg=12.0)
KALEIDO = ["--mechanism", "kaleido", "--epsilon", "0.5", "--radius-deg", "1", "--window-s", "1"]
DPGS = ["--epsilon", "2", "--grid-size", "8"]


# ------------------------------------------------------------------------------ the inputs

def _dataset() -> Dataset:
    g = np.random.default_rng(0)
    recs = []
    for i in range(3):
        x = np.clip(8 + np.cumsum(g.normal(0, 0.2, 300)), 0, 16)
        y = np.clip(6 + np.cumsum(g.normal(0, 0.2, 300)), 0, 12)
        recs.append(Recording.from_arrays(recording=f"rec{i}", participant=f"person{i}", x=x,
                                          y=y, sampling_rate_hz=100, geometry=GEO))
    return Dataset(tuple(recs), name="policy")


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    """Every command's inputs, made once: a data file, a partitioned folder, a fixation table,
    a client message, a ledger (with its key) that holds one release, a config, a data folder."""
    w = tmp_path_factory.mktemp("world")
    ds = _dataset()
    write_dataset(ds, w / "data.parquet")
    write_partitioned(ds, w / "parts", recordings_per_partition=1)
    rows = [{"participant": f"p{i}", "stimulus": "img", "fixation": j, "x_px": 10.0 + 3 * i + j,
             "y_px": 20.0 + j, "duration_ms": 200.0} for i in range(6) for j in range(4)]
    pl.DataFrame(rows).write_csv(w / "fix.csv")
    assert run(["-q", "client", str(w / "data.parquet"), str(w / "msg.reports"), *DPGS]) == 0
    assert run(["-q", "protect", str(w / "data.parquet"), str(w / "first.parquet"), *KALEIDO,
                "--ledger", str(w / "l.sqlite")]) == 0
    (w / "first.parquet").unlink()
    (w / "first.parquet.guarantee.json").unlink()
    (w / "cfg.toml").write_text('name = "x"\n')
    (w / "data").mkdir()
    return w


@pytest.fixture
def w(world, tmp_path) -> Path:
    """A private copy of the inputs for one test (a refused run must leave it as it was)."""
    shutil.copytree(world, tmp_path / "w", symlinks=True)
    return tmp_path / "w"


# ------------------------------------------------------------------------------ the commands

@dataclass(frozen=True)
class Command:
    """How to run one writing command with output ``out``."""

    argv: Callable[[Path, Path], list[str]]  # (inputs folder, output) -> arguments
    input: str | None = None  # the input a link / the same name points at (relative to w)
    folder: bool = False  # the output is a folder
    ledger: bool = False  # takes --ledger (which argv adds)
    second: Callable[[Path, Path], list[str]] | None = None  # a second output = the output
    suffix: str = ".csv"  # of a fresh output file name


def _led(w: Path) -> list[str]:
    return ["--ledger", str(w / "l.sqlite")]


COMMANDS: dict[str, Command] = {
    "protect": Command(lambda w, o: ["protect", str(w / "data.parquet"), str(o), *KALEIDO,
                                     *_led(w)],
                       input="data.parquet", ledger=True,
                       second=lambda w, o: ["--id-map", str(o)]),
    "protect --report": Command(lambda w, o: ["protect", str(w / "data.parquet"),
                                              str(w / "rel.parquet"), *KALEIDO, "--report",
                                              str(o)],
                                input="data.parquet",
                                second=lambda w, o: ["--id-map", str(o)], suffix=".json"),
    "protect PARTS": Command(lambda w, o: ["protect", str(w / "parts"), str(o), *KALEIDO,
                                           *_led(w)],
                             input="parts", folder=True, ledger=True,
                             second=lambda w, o: ["--id-map", str(o / "map.csv")]),
    "client": Command(lambda w, o: ["client", str(w / "data.parquet"), str(o), *DPGS],
                      input="data.parquet", suffix=".reports"),
    "curator": Command(lambda w, o: ["curator", str(w / "msg.reports"), str(o), "--seed", "1"],
                       input="msg.reports", second=lambda w, o: ["--id-map", str(o)]),
    "ledger export": Command(lambda w, o: ["ledger", "export", str(w / "l.sqlite"), str(o)],
                             input="l.sqlite", ledger=True),
    "heatmap": Command(lambda w, o: ["heatmap", str(w / "fix.csv"), "--stimulus", "img",
                                     "--width-px", "64", "--height-px", "48", "--epsilon", "1",
                                     "--cap", "1", "--mechanism", "laplace", "--out", str(o),
                                     *_led(w)],
                       input="fix.csv", ledger=True,
                       second=lambda w, o: ["--stimulus-image", str(o)], suffix=".png"),
    "evaluate": Command(lambda w, o: ["evaluate", str(w / "cfg.toml"), "--out", str(o)],
                        input="cfg.toml", folder=True),
    "demo": Command(lambda w, o: ["demo", "--out", str(o)], folder=True),
    "reproduce liu-2019": Command(lambda w, o: ["reproduce", "liu-2019", "--out", str(o),
                                                "--data-dir", str(w / "data")],
                                  input="data", folder=True),
    "reproduce steil-2019": Command(lambda w, o: ["reproduce", "steil-2019", "--out", str(o),
                                                  "--data-dir", str(w / "data")],
                                    input="data", folder=True),
    "stream --record": Command(lambda w, o: ["stream", "--inlet", "gaze", "--outlet", "safe",
                                             "--mechanism", "kaleido", "--epsilon", "1",
                                             "--radius-deg", "1", "--window-s", "1",
                                             "--lsl-config", str(w / "cfg.toml"),
                                             "--record", str(o)],
                               input="cfg.toml", suffix=".json"),
    "sample": Command(lambda w, o: ["sample", str(o)]),
    "partition": Command(lambda w, o: ["partition", str(w / "data.parquet"), str(o),
                                       "--recordings-per-partition", "1"],
                         input="data.parquet", folder=True),
}


# ------------------------------------------------------------------------------ the refusals

def _is_input(w: Path, c: Command) -> tuple[Path, list[str]] | None:
    return None if c.input is None else (w / c.input, [])


def _links_input(w: Path, c: Command) -> tuple[Path, list[str]] | None:
    if c.input is None:
        return None
    link = w / f"link{'' if c.folder else c.suffix}"
    link.symlink_to(w / c.input)
    return link, []


def _is_sidecar(w: Path, c: Command) -> tuple[Path, list[str]] | None:
    """The input's metadata sidecar (``INPUT.meta.json``, beside a CSV): without it the input
    no longer reads as it did. For the commands that read a data table (:data:`TABLES`)."""
    if c.input not in TABLES:
        return None
    side = w / f"{c.input}.meta.json"
    side.write_text("{}")
    return side, ["--overwrite"]  # refused even so


#: the inputs that are data tables (a sidecar may sit beside them)
TABLES = ("data.parquet", "fix.csv", "msg.reports")


def _is_ledger(w: Path, c: Command) -> tuple[Path, list[str]] | None:
    return (w / "l.sqlite", []) if c.ledger else None


def _is_ledger_key(w: Path, c: Command) -> tuple[Path, list[str]] | None:
    return (w / "l.sqlite.key", []) if c.ledger else None


def _two_outputs(w: Path, c: Command) -> tuple[Path, list[str]] | None:
    if c.second is None:
        return None
    out = w / ("fresh" if c.folder else f"fresh{c.suffix}")
    return out, c.second(w, out)


def _exists(w: Path, c: Command) -> tuple[Path, list[str]] | None:
    out = w / ("old" if c.folder else f"old{c.suffix}")
    if c.folder:
        out.mkdir()
        for marker in (MANIFEST, "results.parquet", "guarantee.json"):
            (out / marker).write_text("OLD")
    else:
        out.write_text("OLD")
    return out, []


RULES: dict[str, tuple[Callable[[Path, Command], tuple[Path, list[str]] | None], str]] = {
    "output is the input": (_is_input, r"is the (input|privacy ledger)"),
    "output links to the input": (_links_input, r"is the (input|privacy ledger)"),
    "output is the input's sidecar": (_is_sidecar,
                                      r"is the (input's metadata sidecar|privacy ledger)"),
    "output is the ledger": (_is_ledger, r"is the privacy ledger \("),
    "output is the ledger's key": (_is_ledger_key, r"is the privacy ledger's key"),
    "two outputs are one": (_two_outputs, r"name the same file|is the input"),
    "existing output, no --overwrite": (_exists, r"pass --overwrite"),
}
#: every (command, rule) that applies: a command without an input, a ledger or a second output
#: has nothing for those rules to name
CASES = [(name, rule) for name, c in COMMANDS.items() for rule, (make, _) in RULES.items()
         if (make not in (_is_input, _links_input) or c.input is not None)
         and (make not in (_is_ledger, _is_ledger_key) or c.ledger)
         and (make is not _two_outputs or c.second is not None)
         and (make is not _is_sidecar or c.input in TABLES)]


def _snapshot(root: Path) -> dict[str, bytes | str]:
    """Every file under ``root`` (links as their target) with its bytes."""
    snap: dict[str, bytes | str] = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if p.is_symlink():
            snap[rel] = f"-> {os.readlink(p)}"
        elif p.is_file():
            snap[rel] = p.read_bytes()
        else:
            snap[rel] = "dir"
    return snap


def _error_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("warning")]
    assert "Traceback" not in err and len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize("command, rule", CASES)
def test_every_writer_refuses_before_any_work(command, rule, w, capsys, monkeypatch):
    c = COMMANDS[command]
    make, expected = RULES[rule]
    case = make(w, c)
    assert case is not None
    out, extra = case
    before = _snapshot(w)
    import gazeprivacy.mechanisms.release as release

    def never(*a, **k):
        raise AssertionError("the work ran before the output was checked")

    monkeypatch.setattr(release, "protect_file", never)  # single-file protect's work
    code = run(["-q", *c.argv(w, out), *extra])
    err = capsys.readouterr().err
    assert code == 1, err
    assert re.search(expected, _error_line(err)), err
    assert _snapshot(w) == before  # the input, ledger, key and old output are as they were


@pytest.mark.parametrize("extra, expected", [
    (["--id-map", "{w}/data.parquet"], "--id-map .* is the input"),
    (["--report", "{w}/data.parquet"], "--report .* is the input"),
    (["--id-map", "{w}/l.sqlite.key"], "--id-map .* is the privacy ledger's key"),
    (["--id-map", "{w}/x.csv", "--report", "{w}/x.csv"], "name the same file"),
    (["--report", "{w}/out.parquet.guarantee.json"], "name the same file"),
    (["--ranges", "{w}/out.parquet"], "is the input"),
])
def test_protect_refuses_every_other_output_over_what_it_keeps(extra, expected, w, capsys):
    if "--ranges" in extra:
        (w / "out.parquet").write_text("{}")  # a ranges file named as the output
    before = _snapshot(w)
    mech = KALEIDO if "--ranges" not in extra else ["--mechanism", "series-fpa", "--epsilon", "1"]
    code = run(["-q", "protect", str(w / "data.parquet"), str(w / "out.parquet"), *mech,
                *_led(w), *(e.format(w=w) for e in extra)])
    err = capsys.readouterr().err
    assert code == 1
    assert re.search(expected, _error_line(err)), err
    assert _snapshot(w) == before


def test_a_file_output_that_is_a_folder_leaves_no_record(w, capsys):
    (w / "out.csv").mkdir()
    code = run(["-q", "protect", str(w / "data.parquet"), str(w / "out.csv"), *KALEIDO,
                "--overwrite"])
    assert code == 1 and "is a folder, not a file" in capsys.readouterr().err
    assert not (w / "out.csv.guarantee.json").exists() and not any((w / "out.csv").iterdir())


def test_overwrite_replaces_and_resumes(w, capsys):
    """--overwrite is the way past the refusal (client and ledger export gained it)."""
    for argv in (COMMANDS["client"].argv(w, w / "m.reports"),
                 COMMANDS["ledger export"].argv(w, w / "e.csv")):
        Path(argv[argv.index("client") + 2 if argv[0] == "client" else 3]).write_text("OLD")
        assert run(["-q", *argv]) == 1
        assert run(["-q", *argv, "--overwrite"]) == 0, capsys.readouterr().err
    assert (w / "m.reports").read_bytes() != b"OLD"
    with (w / "e.csv").open() as f:
        assert next(csv.reader(f))[0] == "release_id"


# --------------------------------------------------------------------------------- the faults

def _fault(kind: str) -> None:
    if kind == "Ctrl-C":
        raise KeyboardInterrupt
    if kind == "SIGTERM":
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(100):  # the handler raises at the next instruction
            time.sleep(0.01)
        raise AssertionError("SIGTERM was not turned into an exception")
    raise OSError(errno.ENOSPC, "No space left on device")


def _half_then(kind: str, path_arg: int = 1, *, after: int = 0,
               real: Callable[..., object] | None = None) -> Callable[..., None]:
    """A writer that writes half a file at its ``path_arg``-th argument, then fails; the first
    ``after`` calls go to the ``real`` writer (e.g. two partitions written, then Ctrl-C)."""
    calls = []

    def writer(*args, **kwargs):
        calls.append(1)
        if len(calls) <= after and real is not None:
            return real(*args, **kwargs)
        if path_arg >= 0:  # -1: the writer fails before it opens its file
            target = Path(args[path_arg])
            if target.is_dir():
                target = target / "results.parquet"
            target.write_bytes(b"half")
        _fault(kind)
    return writer


# (patched module, attribute, index of the path argument, command, --overwrite needed)
FAULTS: dict[str, tuple[str, str, int]] = {
    "sample": ("gazeprivacy.data.io", "write_dataset", 1),
    "protect": ("gazeprivacy.mechanisms.release.write", "write_dataset", 1),
    "protect PARTS": ("gazeprivacy.data.partitioned", "write_dataset", 1),
    "partition": ("gazeprivacy.data.partitioned", "write_dataset", 1),
    "client": ("gazeprivacy.deploy.protocol_files", "encode_client_message",
               -1),
    "curator": ("gazeprivacy.mechanisms.release.write", "write_dataset", 1),
    "heatmap": ("gazeprivacy.report.heatmap_render", "render_heatmap_png", 1),
    "demo": ("gazeprivacy.experiments.demo", "run_demo", 0),
    "reproduce liu-2019": ("gazeprivacy.experiments.reproduce.seed003", "reproduce_seed003", 0),
}


def _fault_argv(command: str, w: Path, out: Path) -> list[str]:
    argv = COMMANDS[command].argv(w, out)
    if "--ledger" in argv:  # the faults are about files; the ledger has its own tests
        i = argv.index("--ledger")
        argv = argv[:i] + argv[i + 2:]
    return [*argv, "--overwrite"]


@pytest.mark.parametrize("kind, code", [("Ctrl-C", 130), ("SIGTERM", 143), ("disk full", 1)])
@pytest.mark.parametrize("command", list(FAULTS))
def test_a_fault_while_writing_leaves_the_old_output_whole(command, kind, code, w, capsys,
                                                           monkeypatch):
    import importlib

    module, attr, path_arg = FAULTS[command]
    c = COMMANDS[command]
    out = w / ("old" if c.folder else f"old{c.suffix}")
    _exists(w, c)
    mod = importlib.import_module(module)
    # partition-wise: two partitions are written before the fault (of three)
    after = 2 if command in ("protect PARTS", "partition") else 0
    monkeypatch.setattr(mod, attr, _half_then(kind, path_arg, after=after,
                                              real=getattr(mod, attr)))
    before = _snapshot(w)
    got = run(["-q", *_fault_argv(command, w, out)])
    err = capsys.readouterr().err
    assert got == code, err
    line = _error_line(err)
    if kind == "disk full":
        assert line.startswith("error: disk full"), err
    else:
        assert line.startswith(f"interrupted: stopped on {kind}"), err
    assert _snapshot(w) == before  # the old output whole, no hidden .partial-* file
    assert not [p for p in w.parent.rglob(".*")], "a hidden partial file survived"


@pytest.mark.parametrize("command, module", [
    ("protect", "gazeprivacy.mechanisms.release.write"),
    ("protect PARTS", "gazeprivacy.data.partitioned"),
])
def test_a_failed_write_cancels_its_ledger_reservation(command, module, w, capsys,
                                                       monkeypatch):
    """A release whose write fails (a full disk) is not charged: the next one, under a cap that
    admits exactly one more (1.5 spent per participant, 1.5 more, cap 3), is not refused."""
    import importlib

    from gazeprivacy.accounting.ledger import Ledger

    def spent() -> list[tuple[int, int]]:
        return [(b.releases, b.reserved) for b in Ledger(w / "l.sqlite").balances()]

    before = spent()
    out = w / ("out" if COMMANDS[command].folder else "out.parquet")
    monkeypatch.setattr(importlib.import_module(module), "write_dataset",
                        _half_then("disk full"))
    assert run(["-q", *COMMANDS[command].argv(w, out)]) == 1
    assert "disk full" in capsys.readouterr().err
    assert spent() == before and not out.exists()
    monkeypatch.undo()
    assert run(["-q", *COMMANDS[command].argv(w, out),
                "--max-epsilon-per-participant", "3"]) == 0, capsys.readouterr().err
