# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Seed 000 Table 4 on DOVES and the VR set: density error, Kaleido vs DPGazeSynth.

Density error = Jensen-Shannon divergence (base 2) of the on-screen spatial densities on a
60 x 60 grid (seed 000 eq. 16), mean over ``--reps`` seeds. eps in {1, 2, 3}; r = 5 % / 10 % of
the smaller screen side: Kaleido with that radius (w = 0.5 s, t_skip 5, l_thresh 1 deg, h 2),
DPGazeSynth with G = 60 / G = 30 (whose default radius 3 min(H, V) / G is 5 % / 10 %), as the
paper pairs them (Table 2). Both mechanisms run in paper mode and in sound mode; the sound table
adds DPGazeSynth's one-transition-per-window variant, the paper table Kaleido without clamping
(seed 000 dropped Kaleido's off-screen points instead of clamping them). RMSE (mean version,
degrees) is reported beside it.

Usage::

    GAZEPRIVACY_DATA=../shared/data PYTHONPATH=src python scripts/table4_density_error.py \
        --doves-images 20 --reps 3 --out results/table4

``gazeprivacy reproduce seed000`` computes the paper-mode columns through the experiment engine
(``docs/reproduce/seed000.md``); this script keeps the sound-mode and one-transition variants.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import polars as pl

from gazeprivacy.data import Dataset, Geometry
from gazeprivacy.data.loaders import load_doves, load_vr_selfcalib
from gazeprivacy.exceptions import NotFormallyPrivateWarning
from gazeprivacy.mechanisms import protect
from gazeprivacy.metrics.fidelity import density_error, rmse

__all__ = ["load_doves_subset", "load_vr", "main", "run", "table"]

def load_doves_subset(n_images: int | None = None) -> Dataset:
    """DOVES, all 29 observers, images 1..n_images (all 101 when None)."""
    images = None if n_images is None else list(range(1, n_images + 1))
    return load_doves(images=images)


def load_vr() -> Dataset:
    """The VR office / supermarket set, 50 Hz, blinks as NaN (the loader's defaults)."""
    return load_vr_selfcalib()


def _geometry(ds: Dataset) -> Geometry:
    return ds[0].geometry


def run(ds: Dataset, *, reps: int, seed: int = 2026) -> pl.DataFrame:
    """One row per mechanism x mode x variant x eps x r x rep."""
    geo = _geometry(ds)
    side = min(geo.width_deg, geo.height_deg)
    rows = []
    for r_frac, grid in ((0.05, 60), (0.10, 30)):
        for eps in (1.0, 2.0, 3.0):
            for mode in ("paper", "sound"):
                configs = [
                    ("kaleido", {"epsilon": eps, "radius_deg": r_frac * side, "window_s": 0.5,
                                 "mode": mode}),
                    ("dpgazesynth", {"epsilon": eps, "grid_size": grid, "mode": mode}),
                ]
                if mode == "paper":  # seed 000's protocol: off-screen points dropped, not clamped
                    configs.insert(1, ("kaleido", {"epsilon": eps, "radius_deg": r_frac * side,
                                                   "window_s": 0.5, "mode": mode,
                                                   "clamp": False}))
                if mode == "sound":
                    configs.append(("dpgazesynth", {"epsilon": eps, "grid_size": grid,
                                                    "mode": mode,
                                                    "transitions": "one-per-window"}))
                for mech, kw in configs:
                    variant = (kw.get("transitions", "all") if mech == "dpgazesynth"
                               else ("no-clamp" if kw.get("clamp") is False else "clamp"))
                    for rep in range(reps):
                        t0 = time.perf_counter()
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore", NotFormallyPrivateWarning)
                            rel = protect(ds, mechanism=mech, seed=seed + rep, **kw)
                        dt = time.perf_counter() - t0
                        rows.append({
                            "dataset": ds.name, "mechanism": mech, "mode": mode,
                            "variant": variant, "epsilon": eps, "r_frac": r_frac,
                            "grid_size": grid if mech == "dpgazesynth" else None,
                            "radius_deg": (r_frac * side if mech == "kaleido"
                                           else 3 * side / grid),
                            "rep": rep,
                            "density_error": density_error(ds, rel.output, geometry=geo),
                            "rmse_deg": rmse(ds, rel.output),
                            "seconds": dt,
                            "participant_epsilon_max": rel.guarantee.max_participant_epsilon,
                            "formally_private": rel.guarantee.formally_private,
                        })
                        print(f"{ds.name} {mech:11s} {mode:5s} {variant:14s} eps={eps:g} "
                              f"r={r_frac:.0%} rep={rep}: JSD={rows[-1]['density_error']:.4f} "
                              f"rmse={rows[-1]['rmse_deg']:.2f} ({dt:.1f} s)", flush=True)
    return pl.DataFrame(rows)


def table(results: pl.DataFrame, mode: str) -> str:
    """Markdown in the shape of seed 000's Table 4 for one mode."""
    res = results.filter(pl.col("mode") == mode)
    agg = res.group_by(["dataset", "mechanism", "variant", "r_frac", "epsilon"]).agg(
        pl.col("density_error").mean().alias("je"), pl.col("density_error").std().alias("sd"))
    datasets = res["dataset"].unique(maintain_order=True).to_list()
    cols = [("kaleido", "clamp", "Kaleido"), ("dpgazesynth", "all", "DPGazeSynth")]
    if mode == "paper":
        cols.insert(1, ("kaleido", "no-clamp", "Kaleido unclamped"))
    if mode == "sound":
        cols.append(("dpgazesynth", "one-per-window", "DPGazeSynth 1/window"))
    head = "| r | eps | " + " | ".join(f"{d}: {c[2]}" for d in datasets for c in cols) + " |"
    lines = [head, "|" + "---|" * (2 + len(datasets) * len(cols))]
    for r_frac in (0.05, 0.10):
        for eps in (3.0, 2.0, 1.0):
            cells = []
            for d in datasets:
                for mech, var, _ in cols:
                    v = agg.filter((pl.col("dataset") == d) & (pl.col("mechanism") == mech)
                                   & (pl.col("variant") == var) & (pl.col("r_frac") == r_frac)
                                   & (pl.col("epsilon") == eps))
                    cells.append(f"{v['je'][0]:.3f}" if v.height else "")
            lines.append(f"| {r_frac:.0%} | {eps:g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--doves-images", type=int, default=20,
                    help="DOVES images 1..N for all 29 observers (0: all 101)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", type=Path, default=Path("results/table4"))
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    doves = load_doves_subset(args.doves_images or None)
    vr = load_vr()
    print(f"loaded {doves!r} and {vr!r} in {time.perf_counter() - t0:.1f} s", flush=True)
    results = pl.concat([run(doves, reps=args.reps, seed=args.seed),
                         run(vr, reps=args.reps, seed=args.seed)])
    results.write_csv(args.out / "table4_results.csv")
    text = []
    for mode in ("paper", "sound"):
        text.append(f"### Density error (JSD, 60 x 60, on-screen), {mode} mode, mean of "
                    f"{args.reps} seeds\n\n{table(results, mode)}\n")
    (args.out / "table4.md").write_text("\n".join(text))
    print("\n".join(text))


if __name__ == "__main__":
    main()
