# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Measure the deep (EKYT-style) and aware-rf re-identification attackers on a DOVES subset.

Raw data, and the Kaleido and DPGazeSynth releases at one epsilon (the demo's other settings),
each attacker raw-trained (train raw, probe the release) and aware (train and probe the
release); splits by image (``group_label="stimulus"``), so probes are images the attacker never
saw. One JSON line per (condition, attacker) goes to ``--out`` as soon as it is done.

    OMP_NUM_THREADS=1 nice -n 10 python scripts/measure_deep_attack.py --out deep.jsonl

Needs the DOVES folder under ``$GAZEPRIVACY_DATA`` (or ``--data``) and PyTorch.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from gazeprivacy.attacks.aware import aware_reidentification
from gazeprivacy.attacks.deep import deep_reidentification
from gazeprivacy.attacks.splits import recording_index
from gazeprivacy.data.loaders.doves import load_doves
from gazeprivacy.mechanisms.protect import protect


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--data", default="/work/shared/data")
    ap.add_argument("--observers", type=int, default=16)
    ap.add_argument("--images", type=int, default=24)
    ap.add_argument("--epsilon", type=float, default=2.0)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--deep-splits", type=int, default=2)
    ap.add_argument("--rf-splits", type=int, default=10)
    ap.add_argument("--window-s", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--conditions", nargs="+", default=["raw", "kaleido", "dpgazesynth"],
                    choices=["raw", "kaleido", "dpgazesynth"])
    ap.add_argument("--modes", nargs="+", default=["raw", "aware", "raw-trained"],
                    choices=["raw", "aware", "raw-trained"])
    ap.add_argument("--attackers", nargs="+", default=["deep", "aware-rf"],
                    choices=["deep", "aware-rf"])
    args = ap.parse_args()
    full = load_doves(args.data, images=range(1, args.images + 1))
    keep = sorted(full.participants)[:args.observers]
    raw = full.select(lambda r: r.participant in keep)
    idx = recording_index(raw, group_label="stimulus")
    settings = {"kaleido": ({"radius_deg": 2.0, "window_s": 0.5}, 1),
                "dpgazesynth": ({"grid_size": 60}, 2)}
    runs = [("raw", "raw", raw, raw)] if "raw" in args.conditions else []
    for name, (fixed, offset) in settings.items():
        if name in args.conditions:
            rel = protect(raw, mechanism=name, epsilon=args.epsilon, **fixed,
                          rng=np.random.default_rng(args.seed + offset)).output
            runs += [(name, "aware", rel, rel), (name, "raw-trained", raw, rel)]
    runs = [r for r in runs if r[1] in args.modes]
    for cond, mode, train, test in runs:
        for attacker in args.attackers:
            t0 = time.monotonic()
            if attacker == "deep":
                res = deep_reidentification(train, test, idx,
                                            rng=np.random.default_rng(args.seed),
                                            n_splits=args.deep_splits, epochs=args.epochs,
                                            window_s=args.window_s)
                extra = {"eer": res.eer, "n_probes": res.n_probes,
                         "n_train_windows": res.n_train_windows}
            else:
                res = aware_reidentification(train, test, idx,
                                             rng=np.random.default_rng(args.seed),
                                             n_splits=args.rf_splits)
                extra = {}
            row = {"condition": cond, "mode": mode, "attacker": attacker, "seed": args.seed,
                   "epsilon": None if cond == "raw" else args.epsilon,
                   "observers": len(keep), "images": args.images, **res.metrics(), **extra,
                   "seconds": round(time.monotonic() - t0, 1)}
            with args.out.open("a") as fh:
                fh.write(json.dumps(row) + "\n")
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
