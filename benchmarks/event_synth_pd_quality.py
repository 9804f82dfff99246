# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""event-synth-PD: does the fast C-VAE training change the release? (issue 18)

Run: ``PYTHONPATH=src python benchmarks/event_synth_pd_quality.py [--scale 0.2] [--seeds 0 1 2]``
(``make bench-quality``).

For each seed, the simulator at ``--scale`` of the EHTask-sized workload (30 participants x 3
tasks, 100 Hz) is released by event-synth-PD (k = 2, gamma = 2; sound mode with epsilon0 = 1 and
paper mode) with ``cvae_training="full"`` (every profile, batch 256, 60 passes: the earlier
training) and ``"fast"`` (the default: subsample, early stopping). Reported per training and mode,
mean and standard deviation over the seeds:

* the C-VAE's loss (summed squared error + KL, per profile, profiles / 1000 deg/s) on the saccade
  profiles of a *second* simulation of the same participants (never trained on), one fixed
  latent draw; and its training time (CPU s);
* the released share of events (holder report);
* realism: I-VT is run on the release and on the raw data; 1-Wasserstein distances
  (:func:`scipy.stats.wasserstein_distance`) of fixation durations (ms), saccade amplitudes
  (deg) and saccade peak velocities (deg/s, from the fitted 30-step profiles) to the raw ones;
* utility for an attacker (lower is more private): the mechanism-aware re-identification
  attack (:func:`gazeprivacy.attacks.aware.aware_reidentification`, 10 s segments, 5 splits),
  unit accuracy.

"Unchanged within noise" means: the fast-minus-full difference of each mean is within two
standard errors of the difference (seeds are paired: same data, same seed for both trainings).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import polars as pl
from scipy.stats import wasserstein_distance

from gazeprivacy.attacks.aware import aware_reidentification
from gazeprivacy.attacks.splits import recording_index
from gazeprivacy.data.simulate import draw_traits, simulate_dataset
from gazeprivacy.events import detect_events_dataset
from gazeprivacy.mechanisms.samples._event_synth_pd_fit import train_cvae
from gazeprivacy.mechanisms.samples._event_synthesis import fit_dataset_events
from gazeprivacy.mechanisms.samples.event_synth_pd import EventSynthPDParams, event_synth_pd
from gazeprivacy.rng import spawn

TASKS = ("reading", "free-viewing", "random-dot")
METRICS = ("cvae_heldout_loss", "train_cpu_s", "released_share", "w1_fixation_ms",
           "w1_saccade_amplitude_deg", "w1_peak_velocity_deg_s", "aware_unit_accuracy")


def _event_stats(dataset, events: pl.DataFrame) -> dict[str, np.ndarray]:
    fitted = fit_dataset_events(dataset, events)
    fix = events.filter(pl.col("name") == "fixation")["duration_s"].to_numpy() * 1000
    amp = np.concatenate([f.saccade_amplitude_deg for f in fitted])
    peak = np.concatenate([f.saccade_profiles.max(axis=1) for f in fitted if f.n_saccades])
    return {"fix": fix, "amp": amp, "peak": peak}


def _heldout_loss(cvae, dataset, events) -> float:
    import torch

    from gazeprivacy.events.cvae import LATENT, PROFILE_SCALE, _loss

    fitted = fit_dataset_events(dataset, events)
    prof = np.vstack([f.saccade_profiles for f in fitted if f.n_saccades])
    owners = np.concatenate([np.full(f.n_saccades, r.participant, dtype=object)
                             for r, f in zip(dataset.recordings, fitted, strict=True)])
    cond = cvae._cond(np.concatenate([f.saccade_amplitude_deg for f in fitted]),
                      np.concatenate([f.saccade_duration_s for f in fitted]), owners)
    x = torch.from_numpy((prof / PROFILE_SCALE).astype(np.float32))
    eps = torch.from_numpy(np.random.default_rng(123).standard_normal(
        (x.shape[0], LATENT)).astype(np.float32))
    with torch.no_grad():
        return float(_loss(cvae.net_, x, torch.from_numpy(cond), eps=eps))


def one_seed(seed: int, scale: float, n_splits: int) -> list[dict]:
    duration_s = scale * 15 * 3600 / (30 * len(TASKS))
    traits = draw_traits(30, rng=np.random.default_rng([seed, 0]))
    ds = simulate_dataset(n_participants=30, tasks=TASKS, duration_s=duration_s,
                          sampling_rate_hz=100, traits=traits,
                          rng=np.random.default_rng([seed, 1]))
    other = simulate_dataset(n_participants=30, tasks=TASKS, duration_s=duration_s,
                             sampling_rate_hz=100, traits=traits,
                             rng=np.random.default_rng([seed, 2]))
    events = detect_events_dataset(ds, method="ivt")
    other_events = detect_events_dataset(other, method="ivt")
    raw = _event_stats(ds, events)
    rows = []
    for training in ("full", "fast"):
        for mode in ("sound", "paper"):
            extra = {"epsilon0": 1.0} if mode == "sound" else {}
            params = EventSynthPDParams(k=2, gamma=2.0, mode=mode, cvae_training=training,
                                        **extra)
            rng = np.random.default_rng([seed, 3])
            row = {"seed": seed, "training": training, "mode": mode}
            if mode == "sound":  # the model event_synth_pd trains (its first child stream)
                model_rng = spawn(np.random.default_rng([seed, 3]), 2)[0]
                c0 = time.process_time()
                cvae = train_cvae(ds, fit_dataset_events(ds, events), params, model_rng)
                train_cpu = time.process_time() - c0
                heldout = _heldout_loss(cvae, other, other_events)
            row["train_cpu_s"], row["cvae_heldout_loss"] = train_cpu, heldout
            release = event_synth_pd(ds, params, rng=rng, events=events)
            report = release.output.info["holder_report"]["event-synth-pd"]
            row["released_share"] = report["released"] / report["events"]
            rel = _event_stats(release.output,
                               detect_events_dataset(release.output, method="ivt"))
            row["w1_fixation_ms"] = wasserstein_distance(raw["fix"], rel["fix"])
            row["w1_saccade_amplitude_deg"] = wasserstein_distance(raw["amp"], rel["amp"])
            row["w1_peak_velocity_deg_s"] = wasserstein_distance(raw["peak"], rel["peak"])
            att = aware_reidentification(release.output, release.output,
                                         recording_index(release.output, group_label=None),
                                         rng=np.random.default_rng([seed, 4]),
                                         n_splits=n_splits, segment_s=10.0)
            row["aware_unit_accuracy"] = att.unit_accuracy
            rows.append(row)
            print(row, flush=True)
    return rows


def summarise(rows: list[dict]) -> list[str]:
    df = pl.DataFrame(rows)
    seeds = df["seed"].n_unique()
    out = [f"| metric | mode | full (mean ± sd) | fast (mean ± sd) | fast − full "
           f"(± 2 SE, {seeds} paired seeds) | within noise |", "|---|---|---|---|---|---|"]
    for mode in ("sound", "paper"):
        for m in METRICS:
            a = df.filter((pl.col("mode") == mode) & (pl.col("training") == "full")).sort(
                "seed")[m].to_numpy()
            b = df.filter((pl.col("mode") == mode) & (pl.col("training") == "fast")).sort(
                "seed")[m].to_numpy()
            d = b - a
            se = d.std(ddof=1) / math.sqrt(d.size) if d.size > 1 else float("nan")
            ok = "-" if m == "train_cpu_s" else ("yes" if abs(d.mean()) <= 2 * se else "NO")
            out.append(f"| {m} | {mode} | {a.mean():.4g} ± {a.std(ddof=1):.2g} | "
                       f"{b.mean():.4g} ± {b.std(ddof=1):.2g} | {d.mean():+.3g} ± {2 * se:.2g} "
                       f"| {ok} |")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=0.2)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--out", default=None, help="also write the table to this file")
    a = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    rows = [r for s in a.seeds for r in one_seed(s, a.scale, a.splits)]
    table = "\n".join([f"event-synth-PD release quality, scale {a.scale:g} of EHTask, seeds "
                       f"{a.seeds}", "", *summarise(rows)])
    print(table)
    if a.out:
        with open(a.out, "w") as fh:
            fh.write(table + "\n")


if __name__ == "__main__":
    main()
