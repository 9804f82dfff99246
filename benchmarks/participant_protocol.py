# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Participant-level DPGazeSynth on devices: message bytes and curator CPU per message and per
sample, the inputs of docs/scale.md's "Internet scale" projection.

Run: ``PYTHONPATH=src python benchmarks/participant_protocol.py [--seconds 60] [--rate 1000]
[--devices 20]``.

``--devices`` devices of one simulated reading recording of ``--seconds`` s at ``--rate`` Hz
each (W = rate / 2), G = 30, 3 per participant, m = 2, sound mode; the curator's plan drawn
from their public row counts. Measured (CPU seconds of this process, one core): the devices'
client step and encoding, the message bytes (both OUE paths), and the curator's step split
into ingest (decode, validation against the plan, column sums) and the whole
``curator_release`` (plus the model and the population synthesis of every row).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.deploy.protocol import (
    curate_messages,
    curator_release,
    decode_client_message,
    encode_client_message,
)
from gazeprivacy.mechanisms.samples.dpgazesynth import DPGazeSynthParams
from gazeprivacy.mechanisms.samples.dpgazesynth.protocol_phases import (
    Announcement,
    client_message,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.protocol_plan import ParticipantPlan

__all__: list[str] = []


def _cpu() -> float:
    return time.process_time()


def run(seconds: float, rate: float, n: int) -> dict[str, float]:
    devices = [simulate_dataset(n_participants=1, tasks=("reading",), duration_s=seconds,
                                sampling_rate_hz=rate, rng=np.random.default_rng(i))
               for i in range(n)]
    recs = [(f"p{i}", d.recordings) for i, d in enumerate(devices)]
    out: dict[str, float] = {"samples": float(sum(d.n_samples for d in devices))}
    for path in ("curator-view", "client-reports"):
        p = DPGazeSynthParams(epsilon=3.0, grid_size=30, unit="participant",
                              windows_per_participant=2, oue_path=path, missing="fill")
        geo = devices[0].recordings[0].geometry
        a = Announcement.of(p, sampling_rate_hz=rate, geometry=geo)
        counts = [(f"{pid}/{r.recording}", pid, r.n_samples) for pid, rs in recs for r in rs]
        plan = ParticipantPlan.draw(a, counts, rng=np.random.default_rng(0))
        t0 = _cpu()
        wire = []
        for i, (pid, rs) in enumerate(recs):
            mine = [r.__class__.from_arrays(recording=f"{pid}/{r.recording}", participant=pid,
                                            x=r.x, y=r.y, sampling_rate_hz=rate, geometry=geo)
                    for r in rs]
            wire.append(encode_client_message(client_message(
                mine, a, rng=np.random.default_rng(100 + i), plan=plan)))
        out[f"{path}: device CPU s per message"] = (_cpu() - t0) / n
        out[f"{path}: bytes per message"] = float(np.mean([len(w) for w in wire]))
        t0 = _cpu()
        msgs = [decode_client_message(w, plan=plan) for w in wire]
        curate_messages(msgs, plan=plan)
        out[f"{path}: curator ingest CPU s per message"] = (_cpu() - t0) / n
        t0 = _cpu()
        curator_release(wire, rng=np.random.default_rng(1), plan=plan)
        total = _cpu() - t0
        out[f"{path}: curator release CPU s per message"] = total / n
        out[f"{path}: curator release CPU us per sample"] = 1e6 * total / out["samples"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--rate", type=float, default=1000.0)
    ap.add_argument("--devices", type=int, default=20)
    ap.add_argument("--no-history", action="store_true")
    a = ap.parse_args()
    res = run(a.seconds, a.rate, a.devices)
    print(f"{a.devices} devices x {a.seconds:g} s at {a.rate:g} Hz (W = {a.rate / 2:g}), G = 30, "
          "m = 2, sound")
    print("| quantity | value |\n|---|---|")
    for k, v in res.items():
        print(f"| {k} | {v:,.6g} |")
    if not a.no_history:
        from history import append  # benchmarks/ is the script's folder

        rows = [(f"{a.seconds:g} s at {a.rate:g} Hz", k, v) for k, v in res.items()]
        print(f"\nappended to {append('participant_protocol.py', rows)}")


if __name__ == "__main__":
    main()
