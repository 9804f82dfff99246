# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth participant-level mode vs per-window mode at equal per-participant epsilon (DOVES).

For each per-participant budget ``E``:

* ``unit="window"`` at ``epsilon = E / T`` per window, ``T`` the largest number of windows any
  participant has (so the record's per-participant epsilon is at most ``E``);
* ``unit="participant"`` at ``epsilon = E`` with ``m`` windows per participant (``E / m`` each);

plus the raw data (the attacker's ceiling), the per-window mode at ``epsilon = 1`` per window
(the paper's setting; per participant ``T``) and the data-free baselines. Per release: the
aware attacker (:func:`gazeprivacy.attacks.aware.aware_reidentification`, a random forest
trained on the release, tested on held-out recordings of the same people, whole recordings as
units) and utility (RMSE per recording and the Jensen-Shannon density error on a 60 x 60
grid, both against the raw data). Both modes use ``transitions="one-per-window"`` (one OUE
report per window at the full eps3 share) and the default grid G = 30, W = 0.5 s.

Usage (about 20 minutes on one core for the defaults)::

    GAZEPRIVACY_DATA=/path/to/data OMP_NUM_THREADS=1 nice -n 10 \
        python scripts/participant_mode.py --out participant.csv

Prints a Markdown table (mean +- standard deviation over seeds; the attack's own spread over
splits is in the CSV).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl

from gazeprivacy.attacks.aware import aware_reidentification
from gazeprivacy.attacks.splits import recording_index
from gazeprivacy.data.loaders.doves import load_doves
from gazeprivacy.data.recording import Dataset
from gazeprivacy.experiments.baselines import BASELINES
from gazeprivacy.mechanisms.samples.dpgazesynth import (
    DPGazeSynthParams,
    dpgazesynth,
    window_samples,
)
from gazeprivacy.metrics.fidelity import density_error, rmse


def _subset(n_observers: int, n_images: int) -> Dataset:
    ds = load_doves(images=range(1, n_images + 1))
    keep = sorted({r.participant for r in ds})[:n_observers]
    return Dataset(tuple(r for r in ds if r.participant in keep), name="doves-subset",
                   info=ds.info)


def _max_windows(ds: Dataset, params: DPGazeSynthParams) -> int:
    per: dict[str, int] = {}
    for r in ds:
        w = window_samples(params, r.sampling_rate_hz)
        per[r.participant] = per.get(r.participant, 0) + -(-r.n_samples // w)
    return max(per.values())


def _configs(ds: Dataset, epsilons: list[float], ms: list[int], reference: bool = True
             ) -> list[tuple[str, float, object]]:
    base = {"transitions": "one-per-window"}
    t = _max_windows(ds, DPGazeSynthParams(epsilon=1.0))
    out: list[tuple[str, float, object]] = [
        ("raw (no protection)", float("inf"), None),
        ("window, eps 1 per window", float(t), DPGazeSynthParams(epsilon=1.0, **base))]
    for e in epsilons:
        out.append((f"window, eps {e:g}/{t} per window", e,
                    DPGazeSynthParams(epsilon=e / t, **base)))
        out += [(f"participant, m = {m}", e,
                 DPGazeSynthParams(epsilon=e, unit="participant", windows_per_participant=m,
                                   **base)) for m in ms]
    out += [(name, float("nan"), name) for name in BASELINES]
    if not reference:  # the participant-level releases only
        out = [c for c in out if c[0].startswith("participant")]
    return out


def _release(ds: Dataset, what: object, rng: np.random.Generator) -> tuple[Dataset, float,
                                                                           float]:
    if what is None:
        return ds, float("inf"), float("inf")
    if isinstance(what, str):
        return BASELINES[what].release(ds, rng=rng), float("nan"), float("nan")
    rel = dpgazesynth(ds, what, rng=rng)
    g = rel.guarantee
    per_window = g.parameters.get("epsilon_per_window", g.epsilon)
    return rel.output, float(g.max_participant_epsilon), float(per_window)


def run(args: argparse.Namespace) -> pl.DataFrame:
    ds = _subset(args.observers, args.images)
    index = recording_index(ds)
    rows = []
    for label, budget, what in _configs(ds, args.epsilons, args.m, not args.participant_only):
        seeds = 1 if what is None else args.seeds
        for seed in range(seeds):
            t0 = time.perf_counter()
            out, eps_part, eps_win = _release(ds, what, np.random.default_rng([seed, 1]))
            att = aware_reidentification(out, out, index, rng=np.random.default_rng([seed, 2]),
                                         n_splits=args.splits)
            rows.append({"release": label, "budget": budget, "seed": seed,
                         "record_eps_participant": eps_part, "eps_window": eps_win,
                         "aware_id_rate": att.identification_rate,
                         "aware_id_rate_std_splits": att.identification_rate_std,
                         "aware_recording_acc": att.recording_accuracy, "chance": att.chance,
                         "rmse_deg": rmse(ds, out), "density_jsd": density_error(ds, out),
                         "seconds": time.perf_counter() - t0})
            print(rows[-1], file=sys.stderr, flush=True)
    return pl.DataFrame(rows)


def markdown(df: pl.DataFrame) -> str:
    scores = ("aware_id_rate", "rmse_deg", "density_jsd")
    agg = (df.group_by(["release", "budget"], maintain_order=True)
           .agg([pl.col(c).mean().alias(c) for c in ("record_eps_participant", "eps_window",
                                                      "chance")]
                + [pl.col(c).mean().alias(f"{c}_m") for c in scores]
                + [pl.col(c).std().fill_null(0.0).alias(f"{c}_s") for c in scores]))
    lines = ["| release | per-participant eps (record) | eps per window | aware id. rate "
             "(chance) | RMSE deg | density JSD |", "|---|---|---|---|---|---|"]
    for r in agg.iter_rows(named=True):
        eps_p, eps_w = (("-" if np.isnan(v) else "none" if np.isinf(v) else f"{v:.4g}")
                        for v in (r["record_eps_participant"], r["eps_window"]))
        lines.append(
            f"| {r['release']} | {eps_p} | {eps_w} | {r['aware_id_rate_m']:.3f} +- "
            f"{r['aware_id_rate_s']:.3f} ({r['chance']:.3f}) | {r['rmse_deg_m']:.2f} +- "
            f"{r['rmse_deg_s']:.2f} | {r['density_jsd_m']:.3f} +- {r['density_jsd_s']:.3f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--observers", type=int, default=16)
    ap.add_argument("--images", type=int, default=24)
    ap.add_argument("--epsilons", type=float, nargs="+", default=[1.0, 3.0, 10.0])
    ap.add_argument("--m", type=int, nargs="+", default=[6, 24],
                    help="windows per participant (one participant-level release per value)")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--splits", type=int, default=20)
    ap.add_argument("--participant-only", action="store_true",
                    help="skip the raw, per-window and baseline rows")
    ap.add_argument("--out", type=Path, default=None, help="CSV of every run")
    args = ap.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        df = run(args)
    if args.out is not None:
        df.write_csv(args.out)
    print(markdown(df))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
