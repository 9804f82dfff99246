# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth client / curator protocol: message size per window and curator throughput.

Run: ``PYTHONPATH=src python benchmarks/protocol.py [--seconds 10] [--devices 40]``.

Sizes: one device with one simulated reading recording of ``--seconds`` s, encoded
(frame + Arrow IPC), divided by its windows, at G = 30 / 60 and W = 100 (200 Hz) / 125
(250 Hz), both transition modes, both OUE paths (sound mode, epsilon = 2).
Throughput: the curator's decode + validation + column sums + model + synthesis over
``--devices`` such messages (G = 30, W = 100), in messages per second (one core).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.deploy.protocol import curator_release, encode_client_message
from gazeprivacy.mechanisms.samples.dpgazesynth import DPGazeSynthParams
from gazeprivacy.mechanisms.samples.dpgazesynth.protocol_phases import client_message

__all__: list[str] = []


def _device(seconds: float, rate: float, seed: int):
    return simulate_dataset(n_participants=1, tasks=("reading",), duration_s=seconds,
                            sampling_rate_hz=rate, rng=np.random.default_rng(seed))


def sizes(seconds: float) -> None:
    print("| G | W | transitions | OUE path | windows | bytes | bytes / window | encode s |")
    print("|---|---|---|---|---|---|---|---|")
    for g in (30, 60):
        for w, rate in ((100, 200.0), (125, 250.0)):
            ds = _device(seconds, rate, 1)
            for tr in ("all", "one-per-window"):
                for path in ("client-reports", "curator-view"):
                    p = DPGazeSynthParams(epsilon=2.0, grid_size=g, transitions=tr,
                                          oue_path=path)
                    t0 = time.perf_counter()
                    msg = client_message(ds.recordings, p, rng=np.random.default_rng(0))
                    data = encode_client_message(msg)
                    dt = time.perf_counter() - t0
                    print(f"| {g} | {w} | {tr} | {path} | {msg.n_windows} | {len(data):,} | "
                          f"{len(data) / msg.n_windows:,.0f} | {dt:.2f} |", flush=True)


def throughput(seconds: float, devices: int) -> None:
    print("\n| transitions | OUE path | messages | MB | curator s | messages / s |")
    print("|---|---|---|---|---|---|")
    for tr in ("all", "one-per-window"):
        for path in ("client-reports", "curator-view"):
            p = DPGazeSynthParams(epsilon=2.0, grid_size=30, transitions=tr, oue_path=path)
            wire = []
            for i in range(devices):
                ds = _device(seconds, 200.0, 100 + i).map(
                    lambda r, i=i: r.with_gaze(r.x, r.y, recording=f"d{i}", participant=f"p{i}"))
                wire.append(encode_client_message(
                    client_message(ds.recordings, p, rng=np.random.default_rng(i))))
            t0 = time.perf_counter()
            rel = curator_release(wire, rng=np.random.default_rng(0))
            dt = time.perf_counter() - t0
            assert len(rel.output) == devices
            mb = sum(len(w) for w in wire) / 1e6
            print(f"| {tr} | {path} | {devices} | {mb:.1f} | {dt:.2f} | {devices / dt:,.0f} |",
                  flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=10.0, help="recording length per device")
    ap.add_argument("--devices", type=int, default=40)
    a = ap.parse_args()
    sizes(a.seconds)
    throughput(a.seconds, a.devices)


if __name__ == "__main__":
    main()
