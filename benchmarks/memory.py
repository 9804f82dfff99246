# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Peak memory and time of partition-wise ``protect`` and featurization at 1x, 10x, 50x EHTask.

Run: ``make bench-memory`` or ``PYTHONPATH=src python benchmarks/memory.py [--scales 1 10 50]
[--tmp DIR] [--out FILE.md]``.

Workload: EHTask's size (30 participants, 15 h at 100 Hz = 5.4 M samples) times the scale,
simulated and written partition by partition into a temporary partitioned folder (deleted at the
end): every partition holds 3 participants x 3 tasks x 600 s (540 k samples), so 1x is 10
partitions, 10x 100 and 50x 500 (each participant then has 50 sessions, spread over 50
partitions). Each step runs in its own subprocess and is measured from outside: peak resident
set size (``os.wait4``'s ``ru_maxrss`` of that child) and wall time.

Steps: ``generate`` (simulate + write), ``protect dpgazesynth`` and ``protect kaleido``
(:func:`gazeprivacy.engines.protect_partitioned`, engine ``local``: read, protect and write every
partition; DPGazeSynth reads every partition twice), ``featurize`` (I-VT events and their
features, partition by partition, appended to one Parquet file: what ``evaluate`` does to a raw
or protected partitioned dataset), ``partition`` (what ``gazeprivacy partition`` runs:
:func:`gazeprivacy.data.partitioning.partition_data_file` streams one long-format Parquet file of
the same rows, without gazeprivacy metadata, into partitions of 9 recordings), and ``idle``
(interpreter and imports only, the floor; the other steps' seconds exclude the imports; each
step imports only what its command needs: the partition engines for protect, the experiment
runner's featurizer for featurize). Bounded memory means peak RSS stays flat as the scale grows
while time grows linearly.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__: list[str] = []

FULL_SAMPLES = 15 * 3600 * 100
HEADER = ("| scale | step | samples | peak RSS (MB) | seconds | CPU s | samples/s (CPU) |\n"
          "|---|---|---|---|---|---|---|")


# --------------------------------------------------------------------------------------------
# child steps (run in a fresh interpreter each)
# --------------------------------------------------------------------------------------------


def _generate(path: str, scale: float, single: str | None = None) -> dict:
    from _workload import write_workload  # benchmarks/ is the script's folder

    n = write_workload(path, scale)
    if single:  # the same rows as one long-format file (the input of ``partition``)
        import pyarrow.parquet as pq

        from gazeprivacy.data.partitioned import PartitionedDataset

        pds = PartitionedDataset(path)
        writer = None
        for p in pds.partitions:  # one partition's table at a time
            tab = pq.read_table(pds.path / p.file).replace_schema_metadata(None)
            if writer is None:
                writer = pq.ParquetWriter(single, tab.schema)
            writer.write_table(tab)
            del tab
        writer.close()
    return {"samples": n}


def _partition(path: str, dest: str) -> dict:
    from gazeprivacy.data.partitioning import partition_data_file

    pds = partition_data_file(path, dest, 9, overwrite=True)
    return {"samples": pds.n_samples, "partitions": pds.n_partitions}


def _protect(path: str, dest: str, mechanism: str) -> dict:
    import warnings

    from gazeprivacy.engines import protect_partitioned

    kw = ({"epsilon": 2.0, "grid_size": 30} if mechanism == "dpgazesynth"
          else {"epsilon": 2.0, "radius_deg": 2.0, "window_s": 0.5})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rel = protect_partitioned(path, dest, mechanism=mechanism, seed=0, overwrite=True,
                                  public=["mask"], **kw)
    return {"samples": rel.output.n_samples}


def _featurize(path: str, dest: str) -> dict:
    from gazeprivacy.data.partitioned import PartitionedDataset

    # I-VT, as measured in docs/scale.md; the runner's default (REMoDNaV) costs 40-200x the
    # CPU per sample (docs/events.md), with the same per-recording memory
    from gazeprivacy.experiments.featurize import ivt_event_features_of
    from gazeprivacy.experiments.streaming import featurize_partitions

    pds = PartitionedDataset(path)
    rows = featurize_partitions(pds, ivt_event_features_of, dest)
    return {"samples": pds.n_samples, "events": rows}


def _imports(step: str) -> None:
    """What the step's command imports: ``protect`` the engines (as ``gazeprivacy protect``
    on a partitioned folder), ``featurize`` the experiment runner's featurizer and its
    partition-wise streaming (neither imports the runner, the attacks or the report)."""
    if step == "partition":
        import gazeprivacy.data.partitioning

        return
    import gazeprivacy.engines

    if step in ("featurize", "idle-featurize"):
        import gazeprivacy.experiments.featurize
        import gazeprivacy.experiments.streaming  # noqa: F401


def child(a: argparse.Namespace) -> None:
    t0 = time.perf_counter()
    _imports(a.child)  # not timed (but its memory counts): "idle" shows it
    if a.child.startswith("idle"):
        print("RESULT " + json.dumps({"samples": 0, "seconds": time.perf_counter() - t0}))
        return
    import resource

    ru = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    if a.child == "generate":
        out = _generate(a.path, a.scale, a.dest)
    elif a.child == "partition":
        out = _partition(a.path, a.dest)
    elif a.child == "protect":
        out = _protect(a.path, a.dest, a.mechanism)
    else:
        out = _featurize(a.path, a.dest)
    out["seconds"] = time.perf_counter() - t0
    out["import_cpu"] = ru.ru_utime + ru.ru_stime
    print("RESULT " + json.dumps(out), flush=True)


# --------------------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------------------


def measure(args: list[str]) -> dict:
    """Run this script as a child with ``args``; its result, peak RSS (MB) and wall time."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    with tempfile.TemporaryFile("w+") as fout, tempfile.TemporaryFile("w+") as ferr:
        t0 = time.perf_counter()
        p = subprocess.Popen([sys.executable, __file__, *args], stdout=fout, stderr=ferr,
                             text=True, env=env)
        # wait4 reaps this child and returns ITS resource usage (RUSAGE_CHILDREN would be the
        # maximum over every child so far)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        fout.seek(0)
        ferr.seek(0)
        out, err = fout.read(), ferr.read()
    line = next((s for s in out.splitlines() if s.startswith("RESULT ")), None)
    if line is None:
        raise RuntimeError(f"child {args} failed:\n{err[-3000:]}")
    res = json.loads(line[len("RESULT "):])
    res["peak_rss_mb"] = usage.ru_maxrss / 1024.0
    res["cpu"] = usage.ru_utime + usage.ru_stime - res.pop("import_cpu", 0.0)
    res["wall"] = wall
    return res


def _machine() -> str:
    cpu = platform.processor() or "?"
    try:
        for ln in Path("/proc/cpuinfo").read_text().splitlines():
            if ln.startswith("model name"):
                cpu = ln.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} CPU(s) ({cpu}), Python {platform.python_version()}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--scales", nargs="*", type=float, default=[1, 10, 50])
    ap.add_argument("--steps", nargs="*",
                    default=["dpgazesynth", "kaleido", "featurize", "partition"])
    ap.add_argument("--tmp", default=None, help="parent folder of the temporary data")
    ap.add_argument("--out", default=None, help="also write the table to this file")
    ap.add_argument("--no-history", action="store_true",
                    help="do not append this run to benchmarks/history.csv")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--path", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--dest", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--mechanism", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--scale", type=float, default=1.0, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a)
        return
    rows = []
    history: list[tuple[str, str, float]] = []  # peak RSS and CPU per sample, for the history
    load = os.getloadavg()[0]

    def row(scale: float, step: str, r: dict) -> None:
        n = r["samples"]
        rate = f"{n / r['cpu']:,.0f}" if n else "-"
        label = f"{scale:g}x" if scale else "-"
        history.append((f"{label} {step}", "peak RSS MB", r["peak_rss_mb"]))
        if n:
            history.append((f"{label} {step}", "us per sample (CPU)", 1e6 * r["cpu"] / n))
        rows.append(f"| {label} | {step} | {n:,} | {r['peak_rss_mb']:,.0f} | "
                    f"{r['seconds']:.1f} | {r['cpu']:.1f} | {rate} |")
        print(rows[-1], flush=True)

    print(HEADER, flush=True)
    row(0, "idle (imports of protect only)", measure(["--child", "idle"]))
    row(0, "idle (imports of featurize only)", measure(["--child", "idle-featurize"]))
    for scale in a.scales:
        tmp = Path(tempfile.mkdtemp(prefix=f"gp-mem-{scale:g}x-", dir=a.tmp))
        try:
            data = tmp / "data"
            single = ["--dest", str(tmp / "data.parquet")] if "partition" in a.steps else []
            row(scale, "generate", measure(["--child", "generate", "--path", str(data),
                                            "--scale", str(scale), *single]))
            for step in a.steps:
                if step == "partition":
                    r = measure(["--child", "partition", "--path", str(tmp / "data.parquet"),
                                 "--dest", str(tmp / "parts")])
                    row(scale, "partition (one Parquet file -> 9 recordings per partition)", r)
                    shutil.rmtree(tmp / "parts", ignore_errors=True)
                elif step == "featurize":
                    r = measure(["--child", "featurize", "--path", str(data), "--dest",
                                 str(tmp / "features.parquet")])
                    row(scale, "featurize (I-VT events + features)", r)
                else:
                    r = measure(["--child", "protect", "--path", str(data), "--dest",
                                 str(tmp / step), "--mechanism", step])
                    row(scale, f"protect {step} (engine local)", r)
                    shutil.rmtree(tmp / step, ignore_errors=True)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    table = "\n".join([
        f"Machine: {_machine()}. Partitions of 540 k samples (3 participants x 3 tasks x "
        "600 s at 100 Hz); 1x = EHTask's 5.4 M samples. Peak RSS of each step's own process.",
        "Seconds are wall time; CPU s (user + system of the step's process, imports "
        "excluded) and samples/s per CPU second are less sensitive to other load.",
        "",
        HEADER,
        *rows])
    print()
    print(table)
    if a.out:
        Path(a.out).write_text(table + "\n")
    if not a.no_history:
        from history import append  # benchmarks/ is the script's folder

        print(f"\nappended to {append('memory.py', history, load=load)}")


if __name__ == "__main__":
    main()
