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
runner's featurizer for featurize). ``dpgazesynth-participant-dask`` (not in the default steps:
``--steps dpgazesynth-participant-dask``) protects at the participant level (3 per participant,
m = 2) on a local Dask cluster of 2 worker processes, and reports the driver's and every
worker's peak RSS and CPU seconds of the protect call (measured in each process);
``participant-synth`` and ``participant-synth-dask`` (not default either) protect with
participant-synth (I-VT events; at 10x and 50x every participant spans 10 or 50 partitions) on
engine local and on the same 2-worker cluster. Bounded memory
means peak RSS stays flat as the scale grows
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
from typing import Any

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


#: Parameters and public columns per protect step (engine local, or ``-dask``). participant-synth
#: detects events with I-VT here (REMoDNaV, its default, costs 40-200x the CPU per sample with
#: the same per-recording memory; docs/events.md) and writes 5.4 M samples at every scale: at
#: least one synthetic participant per partition (``_synthetic``), 3 tasks each.
_PROTECT = {
    "dpgazesynth": ({"epsilon": 2.0, "grid_size": 30}, ["mask"]),
    "kaleido": ({"epsilon": 2.0, "radius_deg": 2.0, "window_s": 0.5}, ["mask"]),
    "dpgazesynth-participant": ({"epsilon": 3.0, "unit": "participant",
                                 "windows_per_participant": 2, "grid_size": 30}, ["mask"]),
    "participant-synth": ({"epsilon_per_participant": 3.0, "delta": 1e-6,
                           "output_length_s": 600.0, "public_labels": ("task",),
                           "detector": "ivt"}, ["task"]),
}


def _protect(path: str, dest: str, mechanism: str) -> dict:
    import warnings

    from gazeprivacy.engines import protect_partitioned

    kw, public = _synthetic(path, *_PROTECT[mechanism])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rel = protect_partitioned(path, dest, mechanism=mechanism, seed=0, overwrite=True,
                                  public=public, **kw)
    return {"samples": rel.output.n_samples}


def _synthetic(path: str, kw: dict, public: list[str]) -> tuple[dict, list[str]]:
    """participant-synth's population for the folder: one synthetic participant per partition
    (at least 30), recordings shortened so the output stays 30 x 3 x 600 s of samples."""
    if "output_length_s" not in kw:
        return kw, public
    from gazeprivacy.data.partitioned import PartitionedDataset

    n = max(30, PartitionedDataset(path).n_partitions)
    return {**kw, "n_participants": n, "output_length_s": 600.0 * 30 / n}, public


def _usage() -> tuple[float, float]:
    """(CPU seconds, peak RSS in MB) of the calling process."""
    import resource

    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def _warm() -> tuple[float, float]:
    """On a worker: the imports a task needs, then its usage so far."""
    import gazeprivacy.engines.dask
    import gazeprivacy.mechanisms.samples.dpgazesynth
    import gazeprivacy.mechanisms.samples.participant_synth  # noqa: F401

    return _usage()


def _protect_dask(path: str, dest: str, step: str) -> dict:
    """``step`` (a key of ``_PROTECT``) on a 2-worker local cluster (worker processes). CPU:
    the driver's (it hosts the scheduler) and every worker's during the protect call, after the
    cluster is up and the workers have imported gazeprivacy (fixed costs, reported apart)."""
    import warnings

    import distributed

    from gazeprivacy.engines import protect_partitioned
    from gazeprivacy.engines.dask import local_cluster

    kw, public = _synthetic(path, *_PROTECT[step])
    mechanism = step.removesuffix("-participant")
    t0 = time.perf_counter()
    with local_cluster(2) as cluster, distributed.Client(cluster) as client:
        client.run(_warm)  # first imports on the workers: not part of the run
        start = time.perf_counter() - t0
        before, cpu0 = client.run(_usage), _usage()[0]
        t1 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rel = protect_partitioned(path, dest, mechanism=mechanism, seed=0,
                                      overwrite=True, engine="dask", scheduler=client,
                                      public=public, **kw)
        seconds = time.perf_counter() - t1
        driver_cpu = _usage()[0] - cpu0
        after = client.run(_usage)
    workers = [{"cpu": after[w][0] - before[w][0], "peak_rss_mb": after[w][1]}
               for w in sorted(after)]
    return {"samples": rel.output.n_samples, "seconds": seconds, "cluster_start": start,
            "driver_cpu": driver_cpu, "driver_rss_mb": _usage()[1], "workers": workers}


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
    elif a.child == "protect" and a.mechanism.endswith("-dask"):
        out = _protect_dask(a.path, a.dest, a.mechanism.removesuffix("-dask"))
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


def _dask_rows(scale: float, step: str, r: dict, row: Any) -> None:
    """A Dask run as rows: the driver, each worker, and all processes (CPU summed, the largest
    peak)."""
    name = {"dpgazesynth-participant-dask": "protect dpgazesynth participant-level"}.get(
        step, f"protect {step.removesuffix('-dask')}") + " (dask, 2 workers)"
    n = r["samples"]
    row(scale, f"{name}: driver (+ scheduler)", {"samples": 0, "peak_rss_mb": r["driver_rss_mb"],
                                                 "seconds": r["seconds"],
                                                 "cpu": r["driver_cpu"]})
    for k, w in enumerate(r["workers"]):
        row(scale, f"{name}: worker {k + 1}", {"samples": 0, "peak_rss_mb": w["peak_rss_mb"],
                                              "seconds": r["seconds"], "cpu": w["cpu"]})
    total = r["driver_cpu"] + sum(w["cpu"] for w in r["workers"])
    peak = max([r["driver_rss_mb"], *(w["peak_rss_mb"] for w in r["workers"])])
    row(scale, f"{name}: all (cluster start {r['cluster_start']:.1f} s apart)",
        {"samples": n, "peak_rss_mb": peak, "seconds": r["seconds"], "cpu": total})


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
                    if "workers" in r:
                        _dask_rows(scale, step, r, row)
                    else:
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
