# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Wall time of partition-wise ``protect``: engine ``local`` (one process) vs engine ``dask``.

Run: ``PYTHONPATH=src python benchmarks/dask_engine.py [--workers 2] [--scale 1]
[--mechanisms dpgazesynth kaleido] [--tmp DIR] [--out FILE.md]``.

Workload: EHTask's size times ``--scale`` (30 participants, 15 h at 100 Hz = 5.4 M samples at
1x), simulated into a temporary partitioned folder of 10 partitions per 1x (3 participants x 3
tasks x 600 s = 540 k samples each), deleted at the end. For each mechanism:

* ``local`` -- :func:`gazeprivacy.engines.protect_partitioned`, engine ``local``;
* ``dask`` (end to end) -- the same with engine ``dask`` and no scheduler: what ``gazeprivacy
  protect IN OUT --engine dask`` costs, including starting and closing a local cluster of
  ``--workers`` worker processes (one thread each) and the workers' first imports;
* ``dask`` (warm cluster) -- on a cluster started beforehand that has already run the mechanism
  once (``--scheduler ADDRESS`` on a running cluster), with the CPU seconds of the driver (which
  hosts the local cluster's scheduler) and of the workers, and, in a second run, split into its
  phases.

Every dask output is compared with the local one, partition by partition, bit for bit. The
ratio local / dask is the speed-up; with ``W`` workers on ``W`` free cores the ideal is ``W``.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _workload import write_workload  # benchmarks/ is the script's folder

__all__: list[str] = []

PARAMS = {"dpgazesynth": {"epsilon": 2.0, "grid_size": 30},
          "kaleido": {"epsilon": 1.0, "radius_deg": 2.0, "window_s": 0.5}}


def same(a: Path, b: Path) -> bool:
    from gazeprivacy.data.partitioned import PartitionedDataset

    pa, pb = PartitionedDataset(a), PartitionedDataset(b)
    if pa.partitions != pb.partitions:
        return False
    return all(np.array_equal(ra.x, rb.x, equal_nan=True)
               and np.array_equal(ra.y, rb.y, equal_nan=True)
               for da, db in zip(pa, pb, strict=True) for ra, rb in zip(da, db, strict=True))


def _warm() -> int:
    import gazeprivacy.engines.dask
    import gazeprivacy.mechanisms.samples.dpgazesynth  # noqa: F401

    return os.getpid()


def phases(src: Path, dest: Path, mechanism: str, scheduler: str) -> dict[str, float]:
    """The dask engine's phases on a warm cluster: submit + client tasks, curate + broadcast
    (on the driver), release tasks, manifest."""
    from gazeprivacy.engines import dask as engine
    from gazeprivacy.engines import partition_streams, plan_for

    plan = plan_for(mechanism, **PARAMS[mechanism])
    n = len(list(src.glob("part-*.parquet")))
    marks: list[tuple[str, float]] = []
    collect = engine._collect

    def timed_collect(client, futures, job, phase, *args):  # type: ignore[no-untyped-def]
        marks.append((f"{phase} start", time.perf_counter()))
        collect(client, futures, job, phase, *args)
        marks.append((f"{phase} end", time.perf_counter()))

    engine._collect = timed_collect
    try:
        t0 = time.perf_counter()
        engine.run_plan(src, plan, partition_streams(1, n), scheduler=scheduler, write_to=dest,
                        overwrite=True)
        t_end = time.perf_counter()
    finally:
        engine._collect = collect
    m = dict(marks)
    out = {}
    if "client end" in m:
        out["phase 1 (client tasks)"] = m["client end"] - t0
        out["curate + broadcast (driver)"] = m["release start"] - m["client end"]
    else:
        out["curate + broadcast (driver)"] = m["release start"] - t0
    out["phase 2 (release tasks)"] = m["release end"] - m["release start"]
    out["manifest + close"] = t_end - m["release end"]
    out["total"] = t_end - t0
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--mechanisms", nargs="+", default=list(PARAMS), choices=list(PARAMS))
    ap.add_argument("--tmp", type=Path, default=None, help="scratch folder (default: system)")
    ap.add_argument("--out", type=Path, default=None, help="also write the table here")
    args = ap.parse_args()

    import warnings

    from gazeprivacy.engines import protect_partitioned
    from gazeprivacy.engines.dask import local_cluster
    from gazeprivacy.exceptions import NotFormallyPrivateWarning

    warnings.simplefilter("ignore", NotFormallyPrivateWarning)
    tmp = Path(tempfile.mkdtemp(prefix="gp-dask-bench-", dir=args.tmp))
    lines = [f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
             f"{platform.python_version()}, load average at start "
             f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}; {args.workers} dask workers "
             "(processes, 1 thread each)", ""]
    try:
        t = time.perf_counter()
        n = write_workload(tmp / "in", args.scale)
        lines.append(f"workload: {n:,} samples in {len(list((tmp / 'in').glob('*.parquet')))} "
                     f"partitions (generated in {time.perf_counter() - t:.1f} s)")
        lines += ["", "| mechanism | engine | wall s | CPU s (all processes) | local wall / this "
                  "| Msamples/s | same output |", "|---|---|---|---|---|---|---|"]
        detail: list[str] = []
        for mech in args.mechanisms:
            kw = PARAMS[mech]
            t, c = time.perf_counter(), time.process_time()
            protect_partitioned(tmp / "in", tmp / "local", mechanism=mech, seed=1, public=["mask"],
                                overwrite=True, **kw)
            t_local, c_local = time.perf_counter() - t, time.process_time() - c
            lines.append(f"| {mech} | local | {t_local:.1f} | {c_local:.1f} | 1.00 | "
                         f"{n / t_local / 1e6:.2f} | - |")
            # end to end: engine dask starts (and closes) its own local cluster
            t = time.perf_counter()
            protect_partitioned(tmp / "in", tmp / "dask", mechanism=mech, seed=1, public=["mask"],
                                engine="dask", overwrite=True, **kw)
            t_e2e = time.perf_counter() - t
            ok = same(tmp / "local", tmp / "dask")
            lines.append(f"| {mech} | dask, end to end (cluster start + run + close) | "
                         f"{t_e2e:.1f} | - | {t_local / t_e2e:.2f} | {n / t_e2e / 1e6:.2f} | "
                         f"{ok} |")
            # warm cluster: started and imported beforehand; CPU of driver and workers
            from distributed import Client

            t = time.perf_counter()
            with local_cluster(args.workers) as cluster, Client(cluster) as client:
                t_start = time.perf_counter() - t
                t = time.perf_counter()
                client.run(_warm)
                t_import = time.perf_counter() - t
                t = time.perf_counter()  # warm-up run: the mechanism's own lazy imports
                protect_partitioned(tmp / "in", tmp / "warm", mechanism=mech, seed=1,
                                    public=["mask"], engine="dask",
                                    scheduler=cluster.scheduler_address, overwrite=True, **kw)
                t_first = time.perf_counter() - t
                w0 = client.run(time.process_time)
                t, c = time.perf_counter(), time.process_time()
                protect_partitioned(tmp / "in", tmp / "warm", mechanism=mech, seed=1,
                                    public=["mask"], engine="dask",
                                    scheduler=cluster.scheduler_address, overwrite=True, **kw)
                t_warm, c_driver = time.perf_counter() - t, time.process_time() - c
                w1 = client.run(time.process_time)
                c_workers = sum(w1[k] - w0[k] for k in w0)
                marks = phases(tmp / "in", tmp / "warm2", mech, cluster.scheduler_address)
                t = time.perf_counter()
            t_close = time.perf_counter() - t
            ok = same(tmp / "local", tmp / "warm")
            lines.append(f"| {mech} | dask, warm cluster | {t_warm:.1f} | "
                         f"{c_driver + c_workers:.1f} | {t_local / t_warm:.2f} | "
                         f"{n / t_warm / 1e6:.2f} | {ok} |")
            detail.append(f"- {mech}: cluster start {t_start:.1f} s, workers' first imports "
                          f"{t_import:.1f} s, first run {t_first:.1f} s, close {t_close:.1f} s; "
                          f"warm run: CPU driver {c_driver:.1f} s (scheduler included), "
                          f"workers {c_workers:.1f} s; "
                          "phases of a second warm run_plan: "
                          + ", ".join(f"{k} {v:.2f} s" for k, v in marks.items()))
        lines += ["", *detail]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    sys.exit(main())
