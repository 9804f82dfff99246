# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Hashes of releases at fixed seeds, for refactors that must not change any output.

Runs the CLI on the bundled sample (every sample mechanism, participant level, pupil, baselines
through ``evaluate``'s release path is not covered: see the list below), a partitioned folder,
the client / curator protocol and a small simulated dataset, and prints one line per output:
``name  sha256`` of the data (polars rows, column names and types) and of the record with its
volatile fields removed. Compare two runs with ``diff``.

A seed fixes the noise but never the pseudonym key (always from OS entropy), so the runs set
the test-only environment variable ``GAZEPRIVACY_TEST_ONLY_PSEUDONYM_KEY`` (a fixed key; every
release made under it is flagged not formally private): equal code gives equal hashes.

    python scripts/release_hashes.py OUTDIR > hashes.txt
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl

#: The test-only fixed pseudonym key (gazeprivacy.mechanisms.release.TEST_ONLY_KEY_ENV).
KEY_ENV = "GAZEPRIVACY_TEST_ONLY_PSEUDONYM_KEY"
TEST_KEY = bytes(range(32)).hex()

VOLATILE = {"created", "created_at", "written_at", "time", "timestamp", "path", "source", "at",
            "output", "input", "output_sha256"}


TINY = """
name = "tiny"
seeds = [0]
workers = 1
fidelity = ["rmse", "density_error"]
baselines = ["baseline-centre", "baseline-uniform", "baseline-prior"]

[[datasets]]
name = "doves-sample"
source = "sample"
group_label = "stimulus"

[[mechanisms]]
name = "dpgazesynth"
grid = { epsilon = [2.0] }

[[attacks]]
kind = "aware-rf"
threat = "seed004"
n_splits = 2
"""


def _clean(obj):
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in sorted(obj.items()) if k not in VOLATILE}
    if isinstance(obj, list):
        return [_clean(v) for v in obj]
    return obj


def digest(path: Path) -> str:
    h = hashlib.sha256()
    if path.is_dir():
        for p in sorted(path.rglob("*")):
            # a cell's .json (16 hex digits) holds its timings
            if p.is_file() and not p.name.startswith(".") and p.suffix in {".parquet", ".json"} \
                    and not (p.suffix == ".json" and len(p.stem) == 16):
                h.update(p.name.encode())
                h.update(digest(p).encode())
        return h.hexdigest()[:16]
    if path.suffix == ".parquet":
        df = pl.read_parquet(path)
        df = df.select([c for c in df.columns if not any(v in c for v in ("second", "time_s"))])
        h.update(str(df.schema).encode())
        h.update(df.hash_rows(seed=0).to_numpy().tobytes())
    elif path.suffix == ".json":
        h.update(json.dumps(_clean(json.loads(path.read_text())), sort_keys=True).encode())
    else:
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    exe = str(Path(sys.executable).with_name("gazeprivacy"))

    env = {**os.environ, KEY_ENV: TEST_KEY}

    def run(*args: str) -> None:
        r = subprocess.run([exe, *args], capture_output=True, text=True, env=env)
        if r.returncode != 0:
            print(f"FAILED {' '.join(args)}: {r.stderr.strip()[-300:]}", file=sys.stderr)

    s = out / "s.parquet"
    if not s.exists():
        run("sample", str(s))
    # the simulator, through the library
    import numpy as np

    from gazeprivacy.data.simulate import simulate_dataset

    sim = simulate_dataset(n_participants=3, duration_s=3.0, sampling_rate_hz=100.0,
                           rng=np.random.default_rng(11), ground_truth=True)
    sim.to_table().write_parquet(out / "simulated.parquet")
    cases = {
        "dpgazesynth": ["--mechanism", "dpgazesynth", "--epsilon", "2"],
        "dpgazesynth-paper": ["--mechanism", "dpgazesynth", "--epsilon", "2", "--mode", "paper"],
        "dpgazesynth-pp": ["--mechanism", "dpgazesynth", "--per-participant-epsilon", "3",
                           "--windows-per-participant", "2"],
        "dpgazesynth-pp-len": ["--mechanism", "dpgazesynth", "--per-participant-epsilon", "3",
                               "--windows-per-participant", "2", "--param", "missing=fill",
                               "--output-length-s", "4"],
        "kaleido": ["--mechanism", "kaleido", "--epsilon", "1", "--radius-deg", "2",
                    "--window-s", "0.5"],
        "k-same-synth": ["--mechanism", "k-same-synth", "--k", "4"],
        "event-synth-pd": ["--mechanism", "event-synth-pd", "--k", "2", "--gamma", "2",
                           "--mode", "paper"],
    }
    for name, args in cases.items():
        o = out / f"{name}.parquet"
        run("protect", str(s), str(o), *args, "--seed", "7", "--overwrite",
            "--id-map", str(out / f"{name}.idmap.parquet"), "--report",
            str(out / f"{name}.report.json"))
    parts = out / "parts"
    if not parts.exists():
        run("partition", str(s), str(parts), "--recordings-per-partition", "40")
    for name in ("dpgazesynth", "kaleido"):
        run("protect", str(parts), str(out / f"parts-{name}"), *cases[name], "--seed", "7",
            "--overwrite")
    sim_path = out / "simulated.parquet"
    run("protect", str(sim_path), str(out / "kaleido-pupil.parquet"), "--mechanism", "kaleido",
        "--epsilon", "1", "--radius-deg", "2", "--window-s", "0.5", "--pupil-epsilon", "1",
        "--pupil-range", "0", "10", "--geometry", "0,50,0,30", "--public", "mask", "--seed", "7",
        "--overwrite")
    cfg = out / "tiny.toml"
    cfg.write_text(TINY)
    run("evaluate", str(cfg), "--out", str(out / "evaluate"))
    msg = out / "client.msg"
    run("client", str(s), str(msg), "--epsilon", "2", "--grid-size", "40", "--seed", "7")
    run("curator", str(msg), str(out / "curated.parquet"), "--epsilon", "2", "--grid-size",
        "40", "--seed", "7")
    for p in sorted(out.iterdir()):
        if p.name in {"s.parquet", "parts", "tiny.toml"} or p.suffix == ".msg":
            continue
        print(f"{p.name:40s} {digest(p)}")
    if msg.exists():
        print(f"{'client.msg (bytes)':40s} {hashlib.sha256(msg.read_bytes()).hexdigest()[:16]}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
