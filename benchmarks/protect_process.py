# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Whole-process ``gazeprivacy protect`` against a read-noise-write baseline process (issue 18).

Run: ``PYTHONPATH=src python benchmarks/protect_process.py [--scale 1] [--repeat 3]
[--profile kaleido] [--out FILE.md]`` (``make bench-protect``).

Workload: the simulator at EHTask's size (30 participants x 3 tasks x 600 s at 100 Hz = 5.4 M
samples, times ``--scale``) written once as one long-format Parquet file (cached in ``--tmp``).
Every run appends its ratios and peak RSS to ``benchmarks/history.csv`` (``--no-history`` to
skip; see ``benchmarks/history.py``). Each row is a fresh Python process, timed from outside
(wall clock, and the child's CPU time from ``os.wait4``), best of ``--repeat``:

* ``python -c pass``: the interpreter alone;
* baseline: a process that imports polars and numpy, reads the Parquet, adds Laplace noise to
  ``x`` and ``y`` and writes Parquet (the floor of any file-to-file mechanism);
* ``gazeprivacy --help`` and ``gazeprivacy protect --help``: start-up;
* ``gazeprivacy protect IN OUT --mechanism kaleido|dpgazesynth|event-synth-pd|participant-synth
  ...``: the whole command (start-up, reading, Recording construction, the mechanism, sealing,
  writing, the record); its peak RSS is the whole process's. participant-synth (epsilon 3,
  delta 1e-6 per participant, 60 s per synthetic recording) runs REMoDNaV on the first minute
  of every input recording (``event_seconds_per_recording``), which dominates its time;
  ``participant-synth-adaptive`` is the same with ``--param detector=adaptive``.

``--participants N`` spreads the same samples over N participants x 3 tasks (shorter
recordings): event-synth-PD's saccade test and C-VAE conditions grow with saccades x
participants, so ``--participants 6000 --mechanisms event-synth-pd`` is its memory check.

The package's bytecode is compiled once before timing (``compileall``, as ``pip install``
does), so that no row pays for compiling gazeprivacy's sources: with
``PYTHONDONTWRITEBYTECODE`` set (as on the project's build machine) every process would
otherwise compile them again, about 0.2 s that an installed package never costs.

The ratio column divides by the baseline measured in the same run. ``--profile MECH`` also runs
that mechanism's command phase by phase in a fresh process (imports, reading and Recording
construction, the mechanism, sealing, writing the release and its record).
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__: list[str] = []

BASELINE = """
import sys
import numpy as np
import polars as pl
t = pl.read_parquet(sys.argv[1])
rng = np.random.default_rng(0)
n = t.height
t = t.with_columns(pl.Series("x", t["x"].to_numpy() + rng.laplace(0.0, 1.0, n)),
                   pl.Series("y", t["y"].to_numpy() + rng.laplace(0.0, 1.0, n)))
t.write_parquet(sys.argv[2])
"""

ARGS = {
    "kaleido": ["--mechanism", "kaleido", "--epsilon", "2", "--radius-deg", "2",
                "--window-s", "0.5"],
    "dpgazesynth": ["--mechanism", "dpgazesynth", "--epsilon", "2", "--grid-size", "30"],
    "event-synth-pd": ["--mechanism", "event-synth-pd", "--k", "2", "--gamma", "2", "--param",
                       "epsilon0=1"],
    # a synthetic population: no mask to declare public (its rows are all new)
    "participant-synth": ["--mechanism", "participant-synth", "--per-participant-epsilon", "3",
                          "--per-participant-delta", "1e-6", "--output-length-s", "60"],
    # the same with the adaptive detector (REMoDNaV, the default, is most of its time)
    "participant-synth-adaptive": ["--mechanism", "participant-synth",
                                   "--per-participant-epsilon", "3", "--per-participant-delta",
                                   "1e-6", "--output-length-s", "60", "--param",
                                   "detector=adaptive"],
}
#: What each mechanism declares public (a synthetic population has no input mask to release).
PUBLIC = {"participant-synth": [], "participant-synth-adaptive": []}
#: Rows that run another row's mechanism with other parameters.
MECHANISM = {"participant-synth-adaptive": "participant-synth"}


def write_input(path: Path, scale: float, participants: int = 30) -> int:
    """The simulated workload as one long-format Parquet file (kept when it exists), written
    by a child process so that this one stays small (a forked child's peak RSS counts the
    parent's pages); returns its row count. ``participants`` x 3 tasks share the same total
    (15 h x ``scale``): more participants, shorter recordings."""
    if not path.exists():
        code = ("import sys, numpy as np\n"
                "from gazeprivacy.data.io import write_dataset\n"
                "from gazeprivacy.data.simulate import simulate_dataset\n"
                "ds = simulate_dataset(n_participants=int(sys.argv[3]), tasks=('reading', "
                "'free-viewing', 'random-dot'), duration_s=float(sys.argv[2]), "
                "sampling_rate_hz=100, rng=np.random.default_rng(0))\n"
                "write_dataset(ds, sys.argv[1])\n")
        subprocess.run([sys.executable, "-c", code, str(path),
                        str(scale * 15 * 3600 / (3 * participants)), str(participants)],
                       check=True, env=_env())
    rows = subprocess.run([sys.executable, "-c", "import sys, pyarrow.parquet as pq; "
                           "print(pq.read_metadata(sys.argv[1]).num_rows)", str(path)],
                          check=True, capture_output=True, text=True, env=_env()).stdout
    return int(rows)


def compile_sources() -> None:
    """Bytecode for ``src/`` (written even under ``PYTHONDONTWRITEBYTECODE``, read by every
    child), as an installed package has it."""
    src = Path(__file__).resolve().parents[1] / "src"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], check=True,
                   stdout=subprocess.DEVNULL)


def _env() -> dict[str, str]:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run_child(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (MB) of one child process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode() if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def best(cmd: list[str], env: dict[str, str], repeat: int) -> tuple[float, float, float]:
    runs = [run_child(cmd, env) for _ in range(repeat)]
    return (min(r[0] for r in runs), min(r[1] for r in runs), max(r[2] for r in runs))


def table(inp: Path, out_dir: Path, repeat: int, mechanisms: list[str],
          results: list[tuple[str, str, float]]) -> list[str]:
    env = _env()
    py = sys.executable
    cli = [py, "-m", "gazeprivacy"]
    rows: list[tuple[str, tuple[float, float, float]]] = []
    rows.append(("python -c pass", best([py, "-c", "pass"], env, repeat)))
    base = best([py, "-c", BASELINE, str(inp), str(out_dir / "baseline.parquet")], env, repeat)
    rows.append(("baseline: read Parquet, Laplace noise on x and y, write Parquet", base))
    rows.append(("gazeprivacy --help", best([*cli, "--help"], env, repeat)))
    rows.append(("gazeprivacy protect --help", best([*cli, "protect", "--help"], env, repeat)))
    for mech in mechanisms:
        out = out_dir / f"{mech}.parquet"
        public = [a for p in PUBLIC.get(mech, ["mask"]) for a in ("--public", p)]
        cmd = [*cli, "protect", str(inp), str(out), *ARGS[mech], *public,
               "--seed", "0", "--overwrite"]  # every repeat replaces the last one's file
        rows.append((f"gazeprivacy protect --mechanism {mech}", best(cmd, env, repeat)))
    lines = ["| process | wall s (best) | CPU s (best) | peak RSS MB | x baseline (wall) "
             "| x baseline (CPU) |", "|---|---|---|---|---|---|"]
    for name, (wall, cpu, rss) in rows:
        if not name.startswith("baseline"):
            results += [(name, "x baseline (wall)", wall / base[0]),
                        (name, "x baseline (CPU)", cpu / base[1]), (name, "peak RSS MB", rss)]
        lines.append(f"| {name} | {wall:.2f} | {cpu:.2f} | {rss:.0f} | {wall / base[0]:.2f} | "
                     f"{cpu / base[1]:.2f} |")
    return lines


PHASES = """
import sys, time, json
marks = [("start", time.process_time(), time.perf_counter())]
def mark(name):
    marks.append((name, time.process_time(), time.perf_counter()))
from gazeprivacy.cli.app import app
from gazeprivacy.data.io import read_dataset
from gazeprivacy.mechanisms import protect
from gazeprivacy.guarantees import Release
from gazeprivacy.mechanisms.release import seal, write_sealed
from gazeprivacy.rng import make_rng
mark("imports (CLI, mechanisms, release)")
ds = read_dataset(sys.argv[1]); mark("read_dataset (Parquet + Recording construction)")
mech_rng, seal_rng = make_rng(0).spawn(2)
rel = protect(ds, mechanism=sys.argv[3], rng=mech_rng, **json.loads(sys.argv[4]))
mark("mechanism")
rel = Release(rel.output, rel.guarantee.with_seed(0))
sealed = seal(rel, public=tuple(json.loads(sys.argv[5])), source=ds, rng=seal_rng)
mark("seal")
del ds, rel  # as protect_file: the input is dropped before the table is built and written
write_sealed(sealed, sys.argv[2], overwrite=True); mark("write_sealed (release + record)")
for (name, c, w), (_, c0, w0) in zip(marks[1:], marks[:-1]):
    print(f"| {name} | {c - c0:.2f} | {w - w0:.2f} |")
"""
KW = {"kaleido": {"epsilon": 2.0, "radius_deg": 2.0, "window_s": 0.5},
      "dpgazesynth": {"epsilon": 2.0, "grid_size": 30},
      "event-synth-pd": {"k": 2, "gamma": 2.0, "epsilon0": 1.0},
      "participant-synth": {"epsilon_per_participant": 3.0, "delta": 1e-6,
                            "output_length_s": 60.0},
      "participant-synth-adaptive": {"epsilon_per_participant": 3.0, "delta": 1e-6,
                                     "output_length_s": 60.0, "detector": "adaptive"}}


def profile(inp: Path, out_dir: Path, mech: str) -> list[str]:
    """Where the time of ``protect`` goes, phase by phase, in a fresh process (the calls of
    :func:`~gazeprivacy.mechanisms.release.protect_file`, timed without a profiler: cProfile's
    per-call overhead inflates Kaleido's sequential loop tenfold)."""
    import json

    out = subprocess.run([sys.executable, "-c", PHASES, str(inp),
                          str(out_dir / f"{mech}-phases.parquet"), MECHANISM.get(mech, mech),
                          json.dumps(KW[mech]),
                          json.dumps(PUBLIC.get(mech, ["mask"]))],
                         check=True, capture_output=True, text=True, env=_env()).stdout
    return [f"Phases of `protect --mechanism {mech}` (one fresh process):", "",
            "| phase | CPU s | wall s |", "|---|---|---|", *out.strip().splitlines()]


def machine() -> str:
    from history import cpu_model  # benchmarks/ is the script's folder

    cpu = cpu_model()
    return (f"Machine: {cpu}, {os.cpu_count()} logical CPUs, Python "
            f"{platform.python_version()}; load average {os.getloadavg()[0]:.2f} at the start.")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--participants", type=int, default=30,
                    help="participants of the workload (x 3 tasks; same total samples)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--mechanisms", nargs="*", default=list(ARGS))
    ap.add_argument("--profile", nargs="*", default=[], help="mechanisms to profile in-process")
    ap.add_argument("--tmp", default=tempfile.gettempdir(), help="where the input is cached")
    ap.add_argument("--out", default=None, help="also write the tables to this file")
    ap.add_argument("--no-history", action="store_true",
                    help="do not append this run to benchmarks/history.csv")
    a = ap.parse_args()
    load = os.getloadavg()[0]
    results: list[tuple[str, str, float]] = []
    who = "" if a.participants == 30 else f"-p{a.participants}"
    inp = Path(a.tmp) / f"gazeprivacy-protect-bench-{a.scale:g}{who}.parquet"
    n = write_input(inp, a.scale, a.participants)
    compile_sources()
    with tempfile.TemporaryDirectory(dir=a.tmp) as d:
        lines = [machine(), "", f"Input: {inp} ({n:,} samples, {inp.stat().st_size / 1e6:.0f} "
                 f"MB Parquet); best of {a.repeat} fresh processes each.", "",
                 *table(inp, Path(d), a.repeat, a.mechanisms, results)]
        for mech in a.profile:
            lines += ["", *profile(inp, Path(d), mech)]
    text = "\n".join(lines)
    print(text)
    if a.out:
        Path(a.out).write_text(text + "\n")
    if not a.no_history:
        from history import append  # benchmarks/ is the script's folder

        where = append(f"protect_process.py scale={a.scale:g}"
                       + (f" participants={a.participants}" if who else ""), results, load=load)
        print(f"\nappended to {where}")


if __name__ == "__main__":
    main()
