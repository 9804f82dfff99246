# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's density error against the data-free centre-Gaussian prior.

Protocol: the participants are split at random (per seed) into halves; participant-synth is fit
on the training half (one population, one synthetic recording of ``--length-s`` per training
participant at the input's rate) at per-participant epsilon 1 / 3 / 10 (delta 1e-6, and a
noise-free reference at epsilon 1e6); its ``density_error`` (Jensen-Shannon, 60 x 60 grid) is
scored against the training participants' raw gaze and against the held-out participants' raw
gaze, beside the centre-Gaussian prior N(centre, (W/6, H/6)) drawn with the same number of
points. The client phase (event detection and bounded statistics) runs once per split.

Usage::

    python benchmarks/participant_synth_density.py --data simulated --seeds 3
    python benchmarks/participant_synth_density.py --data doves --seeds 3
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.metrics.fidelity import density_error

__all__ = ["main"]

EPSILONS = (1.0, 3.0, 10.0, 1e6)


def _load(name: str) -> Dataset:
    if name == "doves":
        from gazeprivacy.data.loaders import load_doves

        return load_doves("/work/shared/data")
    from gazeprivacy.data.simulate import simulate_dataset

    return simulate_dataset(n_participants=30, tasks=("free-viewing",), duration_s=30.0,
                            sampling_rate_hz=100, rng=np.random.default_rng(0))


def _prior_sample(like: Dataset, rng: np.random.Generator) -> Dataset:
    g = like[0].geometry
    n = like.n_samples
    x = np.clip(rng.normal((g.x_min_deg + g.x_max_deg) / 2, g.width_deg / 6, n),
                g.x_min_deg, g.x_max_deg)
    y = np.clip(rng.normal((g.y_min_deg + g.y_max_deg) / 2, g.height_deg / 6, n),
                g.y_min_deg, g.y_max_deg)
    return Dataset((Recording.from_arrays(recording="prior", participant="prior", x=x, y=y,
                                          sampling_rate_hz=100.0, geometry=g),))


def main() -> None:
    from gazeprivacy.mechanisms.samples.participant_synth import ParticipantSynthParams, plan

    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="simulated", choices=("simulated", "doves"))
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--length-s", type=float, default=60.0)
    args = ap.parse_args()
    ds = _load(args.data)
    pids = list(ds.participants)
    print(f"{args.data}: {len(pids)} participants, {len(ds)} recordings, {ds.n_samples} samples")
    rows: dict[tuple[float, str], list[float]] = {}
    for seed in range(args.seeds):
        rng = np.random.default_rng(seed)
        perm = rng.permutation(len(pids))
        train_ids = {pids[i] for i in perm[: len(pids) // 2]}
        train = ds.select(lambda r, ids=train_ids: r.participant in ids)
        test = ds.select(lambda r, ids=train_ids: r.participant not in ids)
        t0 = time.time()
        base = ParticipantSynthParams(epsilon_per_participant=1.0, delta=1e-6,
                                      output_length_s=args.length_s)
        _, msg = plan(base).client(train, rng)
        t_client = time.time() - t0
        for eps in EPSILONS:
            p = ParticipantSynthParams(epsilon_per_participant=eps, delta=1e-6,
                                       output_length_s=args.length_s)
            phases = plan(p)
            model = phases.curate([msg], np.random.default_rng(100 + seed))
            rel = phases.release(train, None, model, np.random.default_rng(200 + seed))
            for who, raw in (("train", train), ("held-out", test)):
                rows.setdefault((eps, who), []).append(density_error(raw, rel.output))
        prior = _prior_sample(rel.output, np.random.default_rng(300 + seed))
        for who, raw in (("train", train), ("held-out", test)):
            rows.setdefault((0.0, who), []).append(density_error(raw, prior))
        print(f"seed {seed}: client {t_client:.1f} s, total {time.time() - t0:.1f} s")
    print("| epsilon | vs training (release) | vs held-out (release) |")
    print("|---|---|---|")
    for eps in (0.0, *EPSILONS):
        cells = []
        for who in ("train", "held-out"):
            v = np.array(rows[(eps, who)])
            cells.append(f"{v.mean():.4f} +- {v.std(ddof=1) / np.sqrt(v.size):.4f}"
                         if v.size > 1 else f"{v.mean():.4f}")
        label = "centre-Gaussian prior" if eps == 0.0 else f"{eps:g}"
        print(f"| {label} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
