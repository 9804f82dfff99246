# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy protect --ledger`` and ``gazeprivacy ledger``: two processes racing for one
budget, processes killed mid-release, show / export, and a corrupt ledger."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import gazeprivacy.accounting.ledger
from gazeprivacy.accounting.ledger import Ledger
from gazeprivacy.cli.app import app
from gazeprivacy.data import Dataset, Geometry, Recording, write_dataset

GEO = Geometry(x_min_deg=0.0, x_max_deg=16.0, y_min_deg=0.0, y_max_deg=12.0)
NAMES = ("alice-raw-id", "bob-raw-id", "carol-raw-id")
SRC = str(Path(gazeprivacy.accounting.ledger.__file__).resolve().parents[2])
# per participant: 1.5, 1.5, 2.5 (w-windows of 1 s at epsilon 0.5); a cap of 4 admits one
KALEIDO = ["--mechanism", "kaleido", "--epsilon", "0.5", "--radius-deg", "1", "--window-s", "1"]
CLI = "import sys; from gazeprivacy.cli.app import main; sys.argv[0] = 'gazeprivacy'; main()"
# Runs `gazeprivacy ARGS...` with a pause at a named point: argv[1] is a file the process
# writes when it gets there; then it sleeps until killed (or, for slow-reservation, 1.5 s).
PAUSED = """
import pathlib, sys, time
import gazeprivacy.accounting.ledger as L
import gazeprivacy.mechanisms.release.files as R
ready, where = pathlib.Path(sys.argv[1]), sys.argv[2]
def pause():
    ready.write_text(where)
    time.sleep(300)
if where == "slow-reservation":    # hold the write lock 1.5 s inside the reservation
    check = L.Ledger._check_cap
    def slow(self, *a):
        ready.write_text(where)
        time.sleep(1.5)
        return check(self, *a)
    L.Ledger._check_cap = slow
elif where == "after-reservation": # the work: the write never happens
    R.write_sealed = lambda *a, **k: pause()
else:                              # inside the reservation transaction, one charge inserted
    insert = L._insert_charges
    def half(conn, rid, charges):
        insert(conn, rid, charges[:1])
        pause()
    L._insert_charges = half
from gazeprivacy.cli.app import main
sys.argv = ["gazeprivacy", *sys.argv[3:]]
main()
"""
runner = CliRunner()


def gaze_file(path: Path) -> Path:
    g = np.random.default_rng(0)
    recs = []
    for name, n in zip(NAMES, (300, 300, 500), strict=True):
        x = np.clip(8 + np.cumsum(g.normal(0, 0.2, n)), 0, 16)
        y = np.clip(6 + np.cumsum(g.normal(0, 0.2, n)), 0, 12)
        recs.append(Recording.from_arrays(recording=f"rec-{name}", participant=name, x=x, y=y,
                                          sampling_rate_hz=100, geometry=GEO))
    return write_dataset(Dataset(tuple(recs), name="ledger-test"), path)


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}


def spawn(code: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code, *args], env=env(), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def protect_args(src: Path, out: Path, led: Path, *extra: str) -> list[str]:
    return ["protect", str(src), str(out), *KALEIDO, "--ledger", str(led), *extra]


def invoke(*args: str, code: int = 0):
    """In process (an error is ``res.exception``; `main` makes it one line and exit 1)."""
    res = runner.invoke(app, list(args))
    assert res.exit_code == code, res.output + repr(res.exception)
    return res


@pytest.mark.slow
def test_two_processes_racing_for_one_budget_never_overspend(tmp_path):
    src = gaze_file(tmp_path / "in.csv")
    led = tmp_path / "budget.sqlite"
    # each holds the write lock 1.5 s while it checks the cap: the second waits for the first
    procs = [spawn(PAUSED, str(tmp_path / f"in-reservation-{i}"), "slow-reservation",
                   *protect_args(src, tmp_path / f"o{i}.csv", led,
                                 "--max-epsilon-per-participant", "4")) for i in range(2)]
    outs = [(p.wait(timeout=300), *p.communicate()) for p in procs]
    codes = sorted(rc for rc, _, _ in outs)
    assert codes == [0, 1], outs
    assert all((tmp_path / f"in-reservation-{i}").exists() for i in range(2))  # both checked
    loser = next(err for rc, _, err in outs if rc == 1)
    assert "refused before any work" in loser and "1 of 3 participants" in loser
    assert sum((tmp_path / f"o{i}.csv").exists() for i in range(2)) == 1
    rows = Ledger(led).entries()
    assert len({r["release_id"] for r in rows}) == 1 and {r["status"] for r in rows} == {
        "committed"}
    assert max(b.epsilon_basic for b in Ledger(led).balances()) <= 4.0


def wait_for(path: Path, proc: subprocess.Popen, timeout_s: float = 120.0) -> None:
    end = time.monotonic() + timeout_s
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < end, "the process never reached the pause"
        time.sleep(0.05)


def kill(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    proc.communicate()


def test_a_run_killed_after_its_reservation_stays_spent(tmp_path):
    src = gaze_file(tmp_path / "in.csv")
    led = tmp_path / "budget.sqlite"
    ready = tmp_path / "ready"
    proc = spawn(PAUSED, str(ready), "after-reservation",
                 *protect_args(src, tmp_path / "o.csv", led))
    wait_for(ready, proc)
    kill(proc)
    assert not (tmp_path / "o.csv").exists()
    rows = Ledger(led).entries()
    assert len(rows) == 3 and {r["status"] for r in rows} == {"reserved"}
    assert {r["output_sha256"] for r in rows} == {None}
    bal = Ledger(led).balances()
    assert sorted(b.epsilon_basic for b in bal) == [1.5, 1.5, 2.5]
    assert all(b.reserved == 1 for b in bal)
    # the killed run's spend counts: a second release under a cap of 4 is refused
    res = invoke(*protect_args(src, tmp_path / "o2.csv", led,
                               "--max-epsilon-per-participant", "4"), code=1)
    assert "1 of 3 participants" in str(res.exception)


def test_a_run_killed_inside_its_reservation_leaves_no_half_entry(tmp_path):
    src = gaze_file(tmp_path / "in.csv")
    led = tmp_path / "budget.sqlite"
    invoke(*protect_args(src, tmp_path / "o1.csv", led))
    ready = tmp_path / "ready"
    proc = spawn(PAUSED, str(ready), "inside-reservation",
                 *protect_args(src, tmp_path / "o2.csv", led))
    wait_for(ready, proc)
    kill(proc)
    assert not (tmp_path / "o2.csv").exists()
    rows = Ledger(led).entries()  # the interrupted transaction is rolled back on open
    assert len(rows) == 3 and len({r["release_id"] for r in rows}) == 1
    assert {r["status"] for r in rows} == {"committed"}
    invoke(*protect_args(src, tmp_path / "o3.csv", led))  # the ledger still works
    assert len(Ledger(led).entries()) == 6


def test_show_and_export_in_every_format(tmp_path):
    src = gaze_file(tmp_path / "in.csv")
    led = tmp_path / "budget.sqlite"
    for i in range(2):
        invoke(*protect_args(src, tmp_path / f"o{i}.csv", led,
                             "--max-epsilon-per-participant", "10"))
    data = json.loads(invoke("ledger", "show", str(led), "--format", "json").stdout)
    spent = sorted(p["epsilon_basic"] for p in data["participants"])
    assert spent == [3.0, 3.0, 5.0]
    assert sorted(p["remaining"] for p in data["participants"]) == [5.0, 7.0, 7.0]
    table = invoke("ledger", "show", str(led), "--delta", "1e-6").stdout
    assert "3 participants" in table and "basic composition" in table
    assert "zCDP not applicable" in table  # w-event records: basic composition only
    rows = list(csv.DictReader(invoke("ledger", "show", str(led), "--format", "csv")
                               .stdout.splitlines()))
    assert len(rows) == 3 and all(len(r["participant"]) == 64 for r in rows)
    out = tmp_path / "ledger.csv"
    invoke("ledger", "export", str(led), str(out))
    exported = list(csv.DictReader(out.read_text().splitlines()))
    assert len(exported) == 6 and {r["mechanism"] for r in exported} == {"kaleido"}
    assert not any(n in out.read_text() for n in NAMES)


def test_a_corrupt_ledger_is_refused_with_its_name(tmp_path):
    bad = tmp_path / "corrupt.sqlite"
    bad.write_bytes(np.random.default_rng(7).bytes(4096))
    proc = spawn(CLI, *protect_args(gaze_file(tmp_path / "in.csv"), tmp_path / "o.csv", bad))
    rc, (_, err) = proc.wait(timeout=300), proc.communicate()
    assert rc == 1 and "corrupt.sqlite" in err and "not a usable gazeprivacy ledger" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "o.csv").exists()
    for args in (["show", str(bad)], ["export", str(bad), str(tmp_path / "x.csv")]):
        res = invoke("ledger", *args, code=1)
        assert "corrupt.sqlite" in str(res.exception) and "not a usable" in str(res.exception)


def test_cap_options_need_a_ledger(tmp_path):
    src = gaze_file(tmp_path / "in.csv")
    res = invoke("protect", str(src), str(tmp_path / "o.csv"), *KALEIDO,
                 "--max-epsilon-per-participant", "1", code=1)
    assert "need --ledger" in str(res.exception)


def test_a_partitioned_release_charges_each_participant_over_all_partitions(tmp_path):
    src = gaze_file(tmp_path / "in.parquet")
    invoke("partition", str(src), str(tmp_path / "parts"), "--recordings-per-partition", "2")
    led = tmp_path / "l.sqlite"
    invoke(*protect_args(tmp_path / "parts", tmp_path / "out", led))
    record = json.loads((tmp_path / "out" / "guarantee.json").read_text())
    spent = sorted(b.epsilon_basic for b in Ledger(led).balances())
    assert spent == sorted(b["epsilon"] for b in record["per_participant"].values())
    assert spent == [1.5, 1.5, 2.5]
    (entry,) = {e["release_id"]: e for e in Ledger(led).entries()}.values()
    assert entry["status"] == "committed" and entry["output"].endswith("guarantee.json")
    # a cap of 4 now refuses a second partition-wise release before any work
    res = invoke(*protect_args(tmp_path / "parts", tmp_path / "out2", led,
                               "--max-epsilon-per-participant", "4"), code=1)
    assert "past the lifetime cap" in str(res.exception)
    assert not (tmp_path / "out2").exists()


def _fixations(path: Path) -> Path:
    rows = ["participant,stimulus,fixation,x_px,y_px,duration_ms"]
    rows += [f"{name},img,{j},{10 + 3 * i + j},{20 + j},200" for i, name in enumerate(NAMES)
             for j in range(4)]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_a_heatmap_release_charges_each_observer_and_a_cap_refuses_the_next(tmp_path):
    fx, led = _fixations(tmp_path / "fix.csv"), tmp_path / "l.sqlite"
    base = ["heatmap", str(fx), "--stimulus", "img", "--width-px", "64", "--height-px", "48",
            "--epsilon", "2", "--cap", "1", "--mechanism", "laplace", "--ledger", str(led)]
    invoke(*base, "--out", str(tmp_path / "a.png"))
    assert [b.epsilon_basic for b in Ledger(led).balances()] == [2.0, 2.0, 2.0]
    res = invoke(*base, "--out", str(tmp_path / "b.png"), "--max-epsilon-per-participant", "3",
                 code=1)
    assert "3 of 3 participants past the lifetime cap" in str(res.exception)
    assert not (tmp_path / "b.png").exists()
    res = invoke(*base[:-2], "--out", str(tmp_path / "c.png"), "--cap", "auto", "--ledger",
                 str(led), "--max-epsilon-per-participant", "10", code=1)
    assert "unaccounted" in str(res.exception) and not (tmp_path / "c.png").exists()
