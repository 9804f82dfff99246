# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Reproduce Liu et al. (ETRA 2019) Figure 3: heatmap CC and MSE vs epsilon, plus analytic Gaussian.

Protocol (paper section 4.1, as far as it is printed):

- Gaze maps of one stimulus (fixation counts per pixel), capped at m chosen by Algorithm 1 for
  each mechanism and epsilon (the paper reports m = 1); ``cap=`` fixes it instead.
- The paper simulates n = 50 000 observers by replicating each of its 5 observers 10 000 times.
  We replicate each real observer ``k = round(n_simulated / n_real)`` times (OSIE: 15 x 3333 =
  49 995). Replication leaves the aggregate unchanged; only the noise level uses ``n``.
- delta = n^-1.5; epsilon in {0.5, 1, 1.5, 2, 3} by default; 100 noisy heatmaps per setting.
- Heatmap = Gaussian point spread of the aggregate (normalised kernel, ``sigma_px``; the paper
  does not state its width). Original heatmap = point spread of the uncapped noise-free aggregate.
  CC and MSE compare each noisy heatmap with it over all pixels.
- Mechanisms: Gaussian (Theorem 3.4, paper mode: the printed sigma, with the exact check
  recorded), Laplacian (Theorem 3.5) and the analytic Gaussian (Balle & Wang 2018) - the last is
  not in the paper.

Differences from the paper: other data (OSIE 800 x 600 and FIGRIM 1000 x 1000 fixations on
several images, not 5 observers on one 1050 x 1680 portrait); the paper's Figure 3 numbers are
not printed in its text, so the comparison is qualitative. Speed: the blur is linear, so each
draw's noise field is blurred once and scaled per mechanism and epsilon (common random numbers;
every setting's draws have exactly the mechanism's distribution).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import polars as pl

from gazeprivacy._paths import safe_filename
from gazeprivacy._validation import check_int, check_positive
from gazeprivacy.data.fixations import Fixations
from gazeprivacy.data.loaders import load_figrim_fixations, load_osie_fixations
from gazeprivacy.exceptions import InvalidParameterError, NotFormallyPrivateWarning
from gazeprivacy.experiments.reproduce._runs import (
    conform,
    embed_png,
    markdown_html,
    write_outputs,
)
from gazeprivacy.features.gaze_maps import GazeMaps, gaze_maps_from_fixations, point_spread_heatmap
from gazeprivacy.guarantees import Guarantee
from gazeprivacy.mechanisms.heatmaps import analytic_gaussian as ag
from gazeprivacy.mechanisms.heatmaps import gaussian as gauss
from gazeprivacy.mechanisms.heatmaps import laplacian as lap
from gazeprivacy.mechanisms.heatmaps.cap import choose_cap
from gazeprivacy.metrics.heatmap import correlation_coefficient, mean_squared_error
from gazeprivacy.report.heatmap_render import plot_privacy_utility, render_heatmap_png

__all__ = ["DATASETS", "Seed003Result", "long_results", "reproduce_seed003"]

# FIGRIM: target images, first viewing ("enc") only, so each observer has one trial per image.
DATASETS = {
    "osie": lambda data_dir: load_osie_fixations(data_dir),
    "figrim": lambda data_dir: load_figrim_fixations(data_dir, image_set="target",
                                                     presentation="enc"),
}
MECHANISMS = ("gaussian", "laplace", "analytic-gaussian")
_CHUNK = 10  # noise fields blurred at once (memory: 2 x chunk x cells x 8 bytes)


@dataclass(frozen=True, eq=False, kw_only=True)
class Seed003Result:
    """Tables and files of one reproduction run."""

    table: pl.DataFrame      # one row per dataset x stimulus x mechanism x epsilon x draw x metric
    summary: pl.DataFrame    # dataset x mechanism x epsilon x metric: mean, std (over draws)
    sigmas: pl.DataFrame     # noise std per dataset x stimulus x mechanism x epsilon, ratios
    figure: Path
    records: tuple[Guarantee, ...]


def _load(dataset: str, data_dir: Path) -> Fixations:
    return DATASETS[dataset](data_dir)


def _params(mech: str, *, epsilon: float, delta: float, cap: int):
    if mech == "gaussian":
        return gauss.GaussianParams(epsilon=epsilon, delta=delta, cap=cap, mode="paper")
    if mech == "laplace":
        return lap.LaplacianParams(epsilon=epsilon, cap=cap)
    return ag.AnalyticGaussianParams(epsilon=epsilon, delta=delta, cap=cap)


_MODULES = {"gaussian": gauss, "laplace": lap, "analytic-gaussian": ag}


def _settings(maps: GazeMaps, n: int, epsilons: Sequence[float], cap: int | None,
              ) -> list[dict]:
    """Per mechanism and epsilon: cap, noise std, record (public shape n, r; cap may be tuned)."""
    out = []
    r = maps.n_cells
    delta = n ** -1.5
    for mech in MECHANISMS:
        mod = _MODULES[mech]
        for eps in epsilons:
            flag = None
            m = cap
            if m is None:
                sigma_star = mod.noise_std(_params(mech, epsilon=eps, delta=delta, cap=1),
                                           n_observers=n, n_cells=r)
                # Algorithm 1 on the replicated maps: the aggregate (hence the bias) is that of
                # the real maps, the noise that of n observers.
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", NotFormallyPrivateWarning)
                    choice = choose_cap(maps, sigma_star=sigma_star)
                m, flag = choice.cap, choice.flag
            p = _params(mech, epsilon=eps, delta=delta, cap=m)
            g = mod.guarantee(p, n_observers=n, n_cells=r)
            if flag is not None:
                g = g.with_flags(flag)
            g = replace(g, parameters={**g.parameters, "stimulus": maps.stimulus,
                                       "n_real_observers": maps.n_observers})
            noise = float(g.parameters["noise_std"])
            scale = noise / np.sqrt(2.0) if mech == "laplace" else noise
            out.append({"mechanism": mech, "epsilon": float(eps), "delta": delta, "cap": m,
                        "cap_tuned": flag is not None, "noise_std": noise, "scale": scale,
                        "record": g})
    return out


def _one_stimulus(maps: GazeMaps, *, n_simulated: int, epsilons: Sequence[float],
                  cap: int | None, n_draws: int, sigma_px: float, cell_px: int,
                  rng: np.random.Generator) -> tuple[list[dict], list[dict], np.ndarray, dict]:
    k = max(1, round(n_simulated / maps.n_observers))
    n = k * maps.n_observers
    settings = _settings(maps, n, epsilons, cap)
    original = point_spread_heatmap(maps.aggregate(None), sigma_px=sigma_px, cell_px=cell_px)
    base = {m: point_spread_heatmap(maps.aggregate(m), sigma_px=sigma_px, cell_px=cell_px)
            for m in {s["cap"] for s in settings}}
    rows: list[dict] = []
    done = 0
    example: dict = {}
    while done < n_draws:
        c = min(_CHUNK, n_draws - done)
        shape = (c, *maps.grid.shape)
        blurred = {"normal": point_spread_heatmap(rng.standard_normal(shape), sigma_px=sigma_px,
                                                  cell_px=cell_px),
                   "laplace": point_spread_heatmap(rng.laplace(0.0, 1.0, shape),
                                                   sigma_px=sigma_px, cell_px=cell_px)}
        for s in settings:
            field = blurred["laplace" if s["mechanism"] == "laplace" else "normal"]
            noisy = base[s["cap"]] + s["scale"] * field
            cc = np.atleast_1d(correlation_coefficient(noisy, original))
            mse = np.atleast_1d(mean_squared_error(noisy, original))
            if done == 0 and s["epsilon"] == 1.0:
                example[s["mechanism"]] = noisy[0]
            for d in range(c):
                for metric, v in (("cc", cc[d]), ("mse", mse[d])):
                    rows.append({"stimulus": maps.stimulus, "n_real_observers": maps.n_observers,
                                 "n_simulated": n, "n_cells": maps.n_cells,
                                 "mechanism": s["mechanism"], "epsilon": s["epsilon"],
                                 "delta": s["delta"], "cap": s["cap"],
                                 "cap_tuned": s["cap_tuned"], "noise_std": s["noise_std"],
                                 "draw": done + d, "metric": metric, "value": float(v)})
        done += c
    sig = [{"stimulus": maps.stimulus, "n_simulated": n, "n_cells": maps.n_cells,
            "mechanism": s["mechanism"], "epsilon": s["epsilon"], "cap": s["cap"],
            "noise_std": s["noise_std"],
            "exact_delta": float(s["record"].parameters.get("exact_delta", 0.0))}
           for s in settings]
    return rows, sig, original, {"example": example, "records": [s["record"] for s in settings]}


def reproduce_seed003(out_dir: str | Path, *, data_dir: str | Path, rng: np.random.Generator,
                      n_draws: int = 100, epsilons: Sequence[float] = (0.5, 1.0, 1.5, 2.0, 3.0),
                      datasets: Sequence[str] = ("osie", "figrim"), n_stimuli: int = 5,
                      n_simulated: int = 50_000, sigma_px: float = 24.0, cell_px: int = 1,
                      cap: int | None = None) -> Seed003Result:
    """Run the Figure 3 reproduction and write its tables, figure and records to ``out_dir``.

    Parameters
    ----------
    out_dir : path
        Output folder (created): ``results.parquet`` (the long schema of every reproduction,
        one row per dataset x stimulus x mechanism x epsilon x draw x metric, see
        :func:`long_results`), ``report.html``, ``guarantees.json``, ``seed003_tables.md``,
        ``seed003_figure3.png`` and example heatmaps.
    data_dir : path
        Folder holding ``osie_fixations/`` and ``figrim_fixations/``.
    rng : numpy.random.Generator
        Source of the stimulus choice and all noise.
    n_draws : int
        Noisy heatmaps per setting (paper: 100).
    epsilons : sequence of float
        Privacy levels (delta = n^-1.5 throughout).
    datasets : sequence of {"osie", "figrim"}
        Datasets to use.
    n_stimuli : int
        Images per dataset, drawn at random with ``rng``.
    n_simulated : int
        Simulated number of observers (paper: 50 000).
    sigma_px : float
        Heatmap point-spread sigma in pixels.
    cell_px : int
        Gaze-map cell size (1 = per pixel, as in the paper).
    cap : int, optional
        Fixed cap; default: Algorithm 1 per mechanism and epsilon (flagged in the records).
    """
    check_int(n_draws=n_draws)
    check_int(n_stimuli=n_stimuli)
    check_int(n_simulated=n_simulated)
    check_positive(sigma_px=sigma_px)
    for ds in datasets:
        if ds not in DATASETS:
            raise InvalidParameterError(f"dataset must be one of {sorted(DATASETS)}, got {ds!r}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    sigmas: list[dict] = []
    records: list[Guarantee] = []
    owners: list[str] = []  # the dataset of each record
    for ds in datasets:
        fx = _load(ds, Path(data_dir))
        stimuli = sorted(fx.stimuli)
        pick = sorted(rng.choice(len(stimuli), size=min(n_stimuli, len(stimuli)), replace=False))
        for j, i in enumerate(pick):
            maps = gaze_maps_from_fixations(fx, stimuli[i], cell_px=cell_px)
            r, s, original, extra = _one_stimulus(
                maps, n_simulated=n_simulated, epsilons=epsilons, cap=cap, n_draws=n_draws,
                sigma_px=sigma_px, cell_px=cell_px, rng=rng)
            rows += [{"dataset": ds, **x} for x in r]
            sigmas += [{"dataset": ds, **x} for x in s]
            records += extra["records"]
            owners += [ds] * len(extra["records"])
            if j == 0:
                # The stimulus id comes from the data: it names a file only once made safe.
                stem = f"{ds}_{safe_filename(stimuli[i])}"
                render_heatmap_png(original, out / f"{stem}_original.png",
                                   title=f"{ds} {stimuli[i]}: original", cell_px=cell_px)
                for mech, h in extra["example"].items():
                    render_heatmap_png(h, out / f"{stem}_{mech}_eps1.png",
                                       title=f"{ds} {stimuli[i]}: {mech}, epsilon 1",
                                       cell_px=cell_px)
    table = pl.DataFrame(rows)
    summary = _summarise(table)
    sig = pl.DataFrame(sigmas)
    ratio = _sigma_ratio(sig)
    fig = plot_privacy_utility(summary, out / "seed003_figure3.png")
    _write(out, table, summary, ratio, list(zip(owners, records, strict=True)), fig)
    return Seed003Result(table=table, summary=summary, sigmas=ratio, figure=fig,
                         records=tuple(records))


def long_results(table: pl.DataFrame) -> pl.DataFrame:
    """The per-draw table in the common long schema of the reproductions: ``mechanism``,
    ``mode`` (the Gaussian of Theorem 3.4 in paper mode), ``parameters`` (epsilon, delta, cap,
    stimulus), ``seed`` = draw, ``kind`` "fidelity", ``evaluation`` "heatmap", ``metric`` cc /
    mse; the paper's own columns (stimulus, n_simulated, cap, noise_std, ...) follow."""
    return conform(table.with_columns(
        pl.when(pl.col("mechanism") == "gaussian").then(pl.lit("paper"))
        .otherwise(pl.lit("sound")).alias("mode"),
        pl.struct(epsilon=pl.col("epsilon"), delta=pl.col("delta"), cap=pl.col("cap"),
                  stimulus=pl.col("stimulus")).struct.json_encode().alias("parameters"),
        pl.col("draw").alias("seed"), pl.lit("fidelity").alias("kind"),
        pl.lit("heatmap").alias("evaluation")))


def _write(out: Path, table: pl.DataFrame, summary: pl.DataFrame, ratio: pl.DataFrame,
           records: list[tuple[str, Guarantee]], fig: Path) -> None:
    """``results.parquet`` + ``report.html`` (the format of every reproduction), the summary
    tables as markdown, and ``guarantees.json``."""
    md = _summary_markdown(summary, ratio)
    (out / "seed003_tables.md").write_text(md)
    guarantees = [{"dataset": ds, "mechanism": r.mechanism,
                   "parameters": {k: r.parameters.get(k) for k in
                                  ("epsilon", "delta", "cap", "stimulus")},
                   "guarantee": r.to_dict()} for ds, r in records]
    fragment = ("<p class='note'>Liu et al. (ETRA 2019) Figure 3: CC and MSE of DP heatmaps vs "
                "epsilon; the paper's Figure 3 values are not printed, so the comparison is in "
                "shape.</p>" + embed_png(fig, "Figure 3 style: CC and MSE vs epsilon")
                + markdown_html(md))
    write_outputs(out, long_results(table), name="liu-2019", guarantees=guarantees,
                  title="gazeprivacy: Liu et al. 2019 (seed 003) reproduced",
                  paper_comparison=fragment)


def _summary_markdown(summary: pl.DataFrame, ratio: pl.DataFrame) -> str:
    """Mean CC / MSE per dataset x mechanism x epsilon, and the noise-std ratio."""
    wide = summary.pivot(on="metric", index=["dataset", "mechanism", "epsilon"],
                         values="mean").sort("dataset", "mechanism", "epsilon")
    lines = ["### Figure 3: heatmap CC and MSE vs epsilon (mean over stimuli and draws)", "",
             "| dataset | mechanism | epsilon | CC | MSE |", "|---|---|---|---|---|"]
    lines += [f"| {r['dataset']} | {r['mechanism']} | {r['epsilon']:g} | {r['cc']:.4f} | "
              f"{r['mse']:.3e} |" for r in wide.iter_rows(named=True)]
    agg = ratio.group_by("dataset", "epsilon").agg(pl.col("ratio").mean()).sort("dataset",
                                                                                "epsilon")
    lines += ["", "### Noise std: analytic Gaussian / Theorem 3.4", "",
              "| dataset | epsilon | ratio |", "|---|---|---|"]
    lines += [f"| {r['dataset']} | {r['epsilon']:g} | {r['ratio']:.3f} |"
              for r in agg.iter_rows(named=True)]
    return "\n".join(lines) + "\n"


def _summarise(table: pl.DataFrame) -> pl.DataFrame:
    """Mean and std over draws per stimulus, then their means over stimuli (and the
    between-stimulus sd) per dataset x mechanism x epsilon x metric."""
    per_stim = table.group_by("dataset", "stimulus", "mechanism", "epsilon", "metric",
                              maintain_order=True).agg(pl.col("value").mean().alias("mean"),
                                                       pl.col("value").std().alias("std"))
    return (per_stim.group_by("dataset", "mechanism", "epsilon", "metric", maintain_order=True)
            .agg(pl.col("mean").mean(), pl.col("std").mean(),
                 pl.col("mean").std().alias("between_stimulus_sd"),
                 pl.len().alias("n_stimuli"))
            .sort("dataset", "metric", "mechanism", "epsilon"))


def _sigma_ratio(sig: pl.DataFrame) -> pl.DataFrame:
    """Analytic-Gaussian over Theorem 3.4 noise std, per dataset x stimulus x epsilon."""
    return (sig.filter(pl.col("mechanism") == "analytic-gaussian")
            .select("dataset", "stimulus", "epsilon", pl.col("noise_std").alias("sigma_ag"))
            .join(sig.filter(pl.col("mechanism") == "gaussian")
                  .select("dataset", "stimulus", "epsilon",
                          pl.col("noise_std").alias("sigma_thm34")),
                  on=["dataset", "stimulus", "epsilon"])
            .with_columns((pl.col("sigma_ag") / pl.col("sigma_thm34")).alias("ratio")))
