# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Reproduce seed 001 (David-John, Butler, Jain, TVCG 2023) section 5 in shape: Tables 3-4,
Figs 4 and 8, and the linkage attack of Fig. 1, on the closest real data we have.

Substitutions (the paper's EHTask, DGaze, ET-DK2 and 360_em are not available):

- **EHTask** (VR, 100 Hz, 30 people, 4 activities; Table 3 and Fig. 4) -> **GazeGraph** (30 Hz
  head-mounted scene-camera gaze, 8 people, 6 desktop activities; label ``activity``), and the
  **VR set** (50 Hz, 17 people, office vs supermarket; label ``environment``).
- **DGaze** (VR, 100 Hz, 43 people, gaze prediction; Table 4 and Fig. 8) -> the **VR set**,
  with its head orientation (yaw, pitch) as extra input as DGaze used head movement; GazeGraph
  too (gaze only).
- **ET-DK2 + 360_em** with age and gender (Fig. 1) -> **MPIIDPEye** (20 people, gender only,
  10 / 10), protected by k-same-synth per document.

Protocol: the mechanisms at seed 001's parameters -- k-same-synth k in {2, 4, 6, 8} (groups per
environment / activity / document); event-synth-PD in paper mode, k in {2, 4} x gamma in
{1.5, 2, 3} (gamma = 1 passes only exact ties, so nearly every event is suppressed: left out);
Kaleido in paper mode, eps in {1, 2, 5, 10} x r in {2, 10} deg x w in {0.5, 2} s (the paper's
50 / 200 samples at 100 Hz, kept as durations; t_skip stays 5 samples) -- plus DPGazeSynth at
seed 000's (eps in {1, 2, 3} x G in {60, 30}). Threat model ``seed001`` throughout (section
4.1): models and attackers train on the protected release and are tested on raw data of
held-out participants (utility) or held-out environments / activities / documents (attacks).

- Gaze prediction: a GRU on the past 0.5 s predicts gaze 0.1 s ahead (DGaze's horizon), mean
  angular error in degrees beside the constant-position baseline and the raw-trained model.
- Activity: Conv1d + BiGRU on 10 s windows (EHTask's history) of gaze (and head) velocity.
- Identification rate: the RBFN of George & Routray (0.4 fixation / 0.6 saccade fusion).
- Linkage: gender k-anonymous by generalisation, then a random-forest gaze biometric within
  the candidate class; success vs the 1 / k bound.

Everything runs through :func:`gazeprivacy.experiments.engine.run_experiment`, one config per
dataset (kept in ``OUT/seed001_configs.json``); outputs ``results.parquet``,
``seed001_summary.csv``, ``seed001_{utility,fig4,fig8,table3,table4,fig1}.md``, the figures
``seed001_fig4.png``, ``seed001_fig8.png``, ``seed001_fig1.png`` and ``report.html`` with the
paper's numbers (:mod:`._paper001`) beside ours.
"""

from __future__ import annotations

import base64
import dataclasses
import html
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy._validation import check_int
from gazeprivacy.data.loaders import load
from gazeprivacy.data.recording import Dataset
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.experiments.reproduce import _paper001 as paper
from gazeprivacy.experiments.reproduce._linkage001 import FEATURE_SETS, RELEASES, linkage_ablation
from gazeprivacy.experiments.reproduce._runs import markdown_table, run_roles, strongest_attacks
from gazeprivacy.report.html import build_report

__all__ = ["Seed001Result", "Seed001Settings", "reproduce_seed001", "summarise"]

_LOADERS = {"vr": "vr_selfcalib_office_supermarket", "gazegraph": "gazegraph_desktop_activity",
            "mpiidpeye": "mpiidpeye"}
_NAMES = {"vr": "VR", "gazegraph": "GazeGraph", "mpiidpeye": "MPIIDPEye"}
_LABEL = {"vr": "environment", "gazegraph": "activity", "mpiidpeye": "document"}
_QUICK_OPTIONS = {"vr": {"participants": [10, 11, 12, 13, 14, 15]},
                  "mpiidpeye": {"participants": [1, 2, 3, 4, 5, 6, 7, 8]}, "gazegraph": {}}
_QUICK_GAZEGRAPH = ("P1", "P2", "P3", "P4")
_MECH_ORDER = ("none", "k-same-synth", "event-synth-pd", "kaleido", "dpgazesynth")
_MECH_LABEL = {"none": "raw data", "k-same-synth": "k-same-synth",
               "event-synth-pd": "event-synth-PD", "kaleido": "Kaleido",
               "dpgazesynth": "DPGazeSynth"}


@dataclass(frozen=True, kw_only=True)
class Seed001Settings:
    """Compute knobs of a run (the models' sizes and the grid's extent).

    ``quick`` shrinks the grid to one setting per mechanism and the data to a few people. The
    grid fields default to seed 001's full grid (and seed 000's for DPGazeSynth);
    :meth:`budget` keeps a subset of the same paper settings that runs in about 40 minutes on
    2 free cores (the default of ``gazeprivacy reproduce seed001``).
    """

    quick: bool = False
    kaleido_epsilons: tuple[float, ...] = (1.0, 2.0, 5.0, 10.0)
    kaleido_windows_s: tuple[float, ...] = (0.5, 2.0)
    pd_gammas: tuple[float, ...] = (1.5, 2.0, 3.0)
    dpgazesynth_epsilons: tuple[float, ...] = (1.0, 2.0, 3.0)
    dpgazesynth_grids: tuple[int, ...] = (60, 30)
    n_seeds: int = 1
    n_splits_utility: int = 2
    n_splits_attack: int = 5
    prediction_epochs: int = 8
    prediction_train_windows: int = 4000
    prediction_stride_s: float = 0.2
    activity_epochs: int = 8
    activity_train_windows: int = 1200
    activity_window_s: float = 10.0
    cvae_epochs: int = 60
    linkage_window_s: float = 10.0
    linkage_ablation: bool = True
    linkage_ablation_splits: int = 3
    workers: int = 2

    @classmethod
    def budget(cls, **kw: Any) -> Seed001Settings:
        """Every mechanism, fewer of its paper settings: k-same-synth k in {2, 4, 6, 8};
        event-synth-PD k in {2, 4} at gamma = 2; Kaleido eps in {1, 10} x r in {2, 10} deg at
        w = 0.5 s; DPGazeSynth eps = 1, G = 60."""
        base = dict(kaleido_epsilons=(1.0, 10.0), kaleido_windows_s=(0.5,), pd_gammas=(2.0,),
                    dpgazesynth_epsilons=(1.0,), dpgazesynth_grids=(60,))
        return cls(**{**base, **kw})

    @classmethod
    def quick_run(cls, **kw: Any) -> Seed001Settings:
        """A few minutes on 2 cores: one setting per mechanism, few people, small models."""
        base = dict(quick=True, n_seeds=1, n_splits_utility=1, n_splits_attack=2,
                    prediction_epochs=3, prediction_train_windows=1000, activity_epochs=3,
                    activity_train_windows=300, activity_window_s=5.0, cvae_epochs=5,
                    linkage_ablation_splits=1)
        return cls(**{**base, **kw})


# Seed 001's events: I-VT (30 deg/s, 200 ms), released on as the paper did even where the
# plausibility gate of the event mechanisms would refuse them (docs/events.md).
_PAPER_EVENTS_KSAME = {"event_detector": "ivt", "accept_implausible_events": True}


def _mechanisms(role: str, s: Seed001Settings) -> list[dict[str, Any]]:
    group = _LABEL[role]
    if role == "mpiidpeye":
        return [{"name": "k-same-synth", "preset": "params",
                 "grid": {"k": [2, 4] if s.quick else list(paper.K_SAME)},
                 "fixed": {"group_by": group, **_PAPER_EVENTS_KSAME}}]
    if s.quick:
        return [
            {"name": "k-same-synth", "preset": "params", "grid": {"k": [2]},
             "fixed": {"group_by": group, **_PAPER_EVENTS_KSAME}},
            {"name": "event-synth-pd", "preset": "params", "grid": {"k": [2], "gamma": [2.0]},
             "fixed": {"mode": "paper", "cvae_epochs": s.cvae_epochs,
                   "accept_implausible_events": True}},
            {"name": "kaleido", "preset": "paper",
             "grid": {"epsilon": [1.0], "radius_deg": [2.0], "window_s": [0.5]},
             "fixed": {"mode": "paper"}},
            {"name": "dpgazesynth", "preset": "paper", "grid": {"epsilon": [1.0],
                                                               "grid_size": [60]},
             "fixed": {"mode": "paper"}}]
    return [
        {"name": "k-same-synth", "preset": "params", "grid": {"k": list(paper.K_SAME)},
         "fixed": {"group_by": group, **_PAPER_EVENTS_KSAME}},
        {"name": "event-synth-pd", "preset": "params",
         "grid": {"k": list(paper.K_PD), "gamma": list(s.pd_gammas)},
         "fixed": {"mode": "paper", "cvae_epochs": s.cvae_epochs,
                   "accept_implausible_events": True}},
        {"name": "kaleido", "preset": "paper",
         "grid": {"epsilon": sorted(s.kaleido_epsilons), "radius_deg": list(
             paper.KALEIDO_R_DEG), "window_s": list(s.kaleido_windows_s)},
         "fixed": {"mode": "paper"}},
        {"name": "dpgazesynth", "preset": "paper",
         "grid": {"epsilon": list(s.dpgazesynth_epsilons),
                  "grid_size": list(s.dpgazesynth_grids)}, "fixed": {"mode": "paper"}}]


def _config(role: str, ds: Dataset, s: Seed001Settings, seeds: list[int],
            source: dict[str, Any]) -> dict[str, Any]:
    cfg: dict[str, Any] = {
        "name": f"seed001-{role}", "seeds": seeds, "workers": s.workers,
        "datasets": [{"name": ds.name, **source, "group_label": _LABEL[role]}],
        "mechanisms": _mechanisms(role, s)}
    if role == "mpiidpeye":
        cfg["attacks"] = [{"kind": "linkage", "quasi_identifiers": ["gender"], "k": k,
                           "threat": "seed001", "n_splits": s.n_splits_attack,
                           "test_fraction": 0.34, "window_s": s.linkage_window_s}
                          for k in ([2, 4] if s.quick else paper.K_SAME)]
        return cfg
    cfg["utility"] = [
        {"kind": "gaze-prediction", "threat": "seed001", "n_splits": s.n_splits_utility,
         "test_fraction": 0.3, "epochs": s.prediction_epochs,
         "max_train_windows": s.prediction_train_windows, "stride_s": s.prediction_stride_s,
         "history_s": 0.5, "horizon_s": 0.1},
        {"kind": "activity-sequence", "label": _LABEL[role], "threat": "seed001",
         "n_splits": s.n_splits_utility, "test_fraction": 0.3, "epochs": s.activity_epochs,
         "max_train_windows": s.activity_train_windows, "window_s": s.activity_window_s}]
    cfg["attacks"] = [{"kind": "reidentification", "classifier": "rbfn", "threat": "seed001",
                       "n_splits": s.n_splits_attack},
                      *strongest_attacks(quick=s.quick, n_splits=s.n_splits_attack)]
    return cfg


def _simulated(role: str, rng: np.random.Generator) -> Dataset:
    """Small simulated stand-ins (a pipeline smoke test): the task as the label (3 documents
    for the linkage role, 2 activities otherwise), gender by participant parity."""
    tasks = (("reading", "free-viewing", "random-dot") if role == "mpiidpeye"
             else ("reading", "random-dot"))
    ds = simulate_dataset(n_participants=4 if role == "mpiidpeye" else 3, tasks=tasks,
                          duration_s=8.0, sampling_rate_hz=60.0, rng=rng,
                          name=f"simulated-{role}")
    recs = [dataclasses.replace(r, labels={**r.labels, _LABEL[role]: r.labels["task"],
                                           "gender": "f" if ds.participants.index(
                                               r.participant) % 2 else "m"})
            for r in ds.recordings]
    return Dataset(tuple(recs), name=ds.name)


@dataclass(frozen=True, eq=False, kw_only=True)
class Seed001Result:
    """What one reproduction run wrote."""

    out_dir: Path
    results: pl.DataFrame
    summary: pl.DataFrame
    tables: dict[str, Path]
    figures: dict[str, Path]
    report: Path


def reproduce_seed001(out_dir: str | Path, *, data_dir: str | Path | None,
                      rng: np.random.Generator, settings: Seed001Settings | None = None,
                      simulate: bool = False, progress: bool = False) -> Seed001Result:
    """Run seed 001's section-5 experiments (module docstring) and write tables and report.

    Parameters
    ----------
    out_dir : path
        Output folder (cells cached: a rerun resumes).
    data_dir : path or None
        Folder with ``vr_selfcalib_office_supermarket/``, ``gazegraph_desktop_activity/`` and
        ``mpiidpeye/`` (ignored with ``simulate``).
    rng : numpy.random.Generator
        Draws the run's seeds.
    settings : Seed001Settings, optional
        Default ``Seed001Settings()`` (the full run).
    simulate : bool
        Use small simulated datasets instead of the real ones (a smoke test of the pipeline).
    progress : bool
        Progress bars on stderr.

    Returns
    -------
    Seed001Result
    """
    s = settings or Seed001Settings()
    if simulate:  # the simulated recordings are 8 s long
        s = dataclasses.replace(s, linkage_window_s=min(s.linkage_window_s, 4.0))
    check_int(n_seeds=s.n_seeds, minimum=1)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    seeds = sorted(int(v) for v in rng.choice(2**31, size=s.n_seeds, replace=False))
    datasets, sources = _datasets(s, data_dir, seeds, simulate)
    configs = {role: _config(role, datasets[role], s, seeds, sources[role]) for role in datasets}
    (out / "seed001_configs.json").write_text(json.dumps(
        {"settings": dataclasses.asdict(s), "simulate": simulate, "configs": configs},
        indent=1))
    results = run_roles(configs, datasets, out, name="seed001", progress=progress)
    ablation = None
    if s.linkage_ablation and "mpiidpeye" in datasets:
        ablation = linkage_ablation(
            datasets["mpiidpeye"], ks=[2] if s.quick else list(paper.K_SAME),
            rng=np.random.default_rng(seeds[0]), n_splits=s.linkage_ablation_splits,
            window_s=s.linkage_window_s)
        results = pl.concat([results, _ablation_rows(ablation, datasets["mpiidpeye"].name,
                                                     seeds[0])], how="vertical_relaxed")
        results.write_parquet(out / "results.parquet")
    summary = summarise(results)
    summary.write_csv(out / "seed001_summary.csv")
    names = {datasets[r].name: _NAMES[r] for r in datasets}
    what = _describe(datasets, seeds, s, simulate)
    tabs = _tables(summary, names=names, roles={r: datasets[r].name for r in datasets},
                   what=what)
    paths = {}
    for key, (title, note, header, rows) in tabs.items():
        p = out / f"seed001_{key}.md"
        p.write_text(markdown_table(title, note, header, rows))
        paths[key] = p
    if ablation is not None:
        tabs["linkage_ablation"] = _ablation_table(ablation, what)
        title, note, header, rows = tabs["linkage_ablation"]
        (out / "seed001_linkage_ablation.md").write_text(markdown_table(title, note, header,
                                                                        rows))
        paths["linkage_ablation"] = out / "seed001_linkage_ablation.md"
    figures = _figures(summary, names, out)
    fragment = _paper_html(tabs, figures, what)
    report = build_report(out, title="gazeprivacy: seed 001 (David-John et al.) section 5 "
                          "reproduced", paper_comparison=fragment)
    return Seed001Result(out_dir=out, results=results, summary=summary, tables=paths,
                         figures=figures, report=report)


def _datasets(s: Seed001Settings, data_dir: str | Path | None, seeds: list[int],
              simulate: bool) -> tuple[dict[str, Dataset], dict[str, dict[str, Any]]]:
    """Each role's dataset and its config source (loaded, or simulated and injected)."""
    datasets: dict[str, Dataset] = {}
    sources: dict[str, dict[str, Any]] = {}
    for role in _LOADERS:
        if simulate:
            datasets[role] = _simulated(role, np.random.default_rng(seeds[0] + len(role)))
            sources[role] = {"source": "injected"}
            continue
        options = _QUICK_OPTIONS[role] if s.quick else {}
        ds = load(_LOADERS[role], data_dir, **options)
        if s.quick and role == "gazegraph":
            ds = ds.select(lambda r: r.participant in _QUICK_GAZEGRAPH)
        datasets[role] = ds
        sources[role] = {"source": "loader", "loader": _LOADERS[role], "path": str(data_dir),
                         "options": options}
    return datasets, sources


def _figures(summary: pl.DataFrame, names: dict[str, str], out: Path) -> dict[str, Path]:
    """Figs. 4, 8 and 1 in the paper's style (bars per mechanism setting)."""
    return {
        "fig4": _bar_figure(summary, names, out / "seed001_fig4.png", metric="accuracy",
                            evaluation_prefix=tuple(f"{_LABEL[r]}:seq" for r in _LABEL),
                            refs=(("chance", "chance (majority)"),), ylabel="activity accuracy",
                            title="Fig. 4 style: activity recognition (train protected, "
                                  "test raw)"),
        "fig8": _bar_figure(summary, names, out / "seed001_fig8.png", metric="error_deg",
                            evaluation_prefix=("gaze-prediction",),
                            refs=(("baseline_error_deg", "constant-position baseline"),),
                            ylabel="gaze prediction error [deg]",
                            title="Fig. 8 style: gaze prediction 100 ms ahead (train "
                                  "protected, test raw)"),
        "fig1": _bar_figure(summary, names, out / "seed001_fig1.png",
                            metric="success_quasi_and_gaze", evaluation_prefix=("linkage",),
                            refs=(("bound", "1 / k"), ("quasi_only", "gender only")),
                            ylabel="linkage success", title="Fig. 1 style: gender + gaze "
                            "linkage (MPIIDPEye)", per_evaluation=True),
    }


def _ablation_rows(ablation: pl.DataFrame, dataset: str, seed: int) -> pl.DataFrame:
    """The linkage ablation in the results schema: ``mechanism`` k-same-synth (``none`` for the
    raw gallery), ``parameters`` k, group_by and the release variant, ``evaluation``
    ``linkage-ablation:gender:k{k}:{features}``."""
    return ablation.select(
        pl.lit(dataset).alias("dataset"),
        pl.when(pl.col("release") == "raw").then(pl.lit("none"))
        .otherwise(pl.lit("k-same-synth")).alias("mechanism"),
        pl.lit("params").alias("mode"),
        pl.struct(k=pl.col("k"), group_by=pl.lit("document"), release=pl.col("release"))
        .struct.json_encode().alias("parameters"),
        pl.lit(None, dtype=pl.Float64).alias("epsilon"), pl.lit(seed).alias("seed"),
        pl.lit("privacy").alias("kind"),
        pl.format("linkage-ablation:gender:k{}:{}", pl.col("k"), pl.col("features"))
        .alias("evaluation"),
        pl.col("metric"), pl.col("value").cast(pl.Float64),
        pl.lit(None, dtype=pl.Boolean).alias("beats_baselines"))


_RELEASE_LABEL = {
    "raw": "raw gaze (no release)", "paper": "k-same-synth as reproduced (groups per "
    "document, any gender)", "same-groups": "- same groups for every document",
    "gender-groups": "- groups within a gender", "same-and-gender-groups": "- both"}


def _ablation_table(ablation: pl.DataFrame, what: str) -> Table:
    """Linkage success (gender + gaze) per k x release variant x attacker feature set."""
    look = {(r["k"], r["release"], r["features"], r["metric"]): r["value"]
            for r in ablation.iter_rows(named=True)}
    sets = list(FEATURE_SETS)
    head = ["k", "gallery", *(f"features: {f}" for f in sets), "1 / k bound"]
    rows = []
    for k in sorted({r[0] for r in look}):
        for rel in ("raw", *RELEASES):
            if (k, rel, "all", "bound") not in look:
                continue
            rows.append([str(k), _RELEASE_LABEL[rel],
                         *(_pct(look.get((k, rel, f, "success_quasi_and_gaze"))) for f in sets),
                         _pct(look[(k, rel, "all", "bound")])])
    return ("Linkage above 1 / k: the three causes, each removed (MPIIDPEye, gender + gaze)",
            what + " Release side: the same k-same-synth groups for every document; groups "
            "drawn within a gender; both. Attacker side: window features without "
            "missing_fraction (no-gaps), without saccadic_fraction / speed_p90 / speed_p99 "
            "(no-timing), without both. Gallery = release of 2 documents, probes = raw third "
            "document, splits by document.", head, rows)


def _describe(datasets: dict[str, Dataset], seeds: list[int], s: Seed001Settings,
              simulate: bool) -> str:
    parts = [f"{_NAMES[r]}: {len(d)} recordings of {len(d.participants)} participants"
             for r, d in datasets.items()]
    return ((("SIMULATED data (pipeline smoke test). " if simulate else "")
             + ("QUICK run (one setting per mechanism). " if s.quick else ""))
            + "; ".join(parts)
            + f". Seeds {seeds}; utility: {s.n_splits_utility} participant-held-out split(s) "
            f"(30 % test), gaze prediction GRU {s.prediction_epochs} epochs on <= "
            f"{s.prediction_train_windows} windows (stride {s.prediction_stride_s} s), activity "
            f"Conv1d-BiGRU {s.activity_epochs} epochs on <= {s.activity_train_windows} windows "
            f"of {s.activity_window_s:g} s; attacks: {s.n_splits_attack} splits; event-synth-PD "
            f"C-VAE {s.cvae_epochs} epochs. Threat model seed001 (train on the release, test on "
            "raw data).")


def summarise(results: pl.DataFrame) -> pl.DataFrame:
    """Mean / std / count over seeds per dataset x mechanism x parameters x evaluation x
    metric."""
    return (results.group_by("dataset", "mechanism", "parameters", "kind", "evaluation",
                             "metric", maintain_order=True)
            .agg(pl.col("value").mean().alias("mean"), pl.col("value").std().alias("std"),
                 pl.len().alias("n")))


def _setting(mech: str, params: dict[str, Any]) -> str:
    if mech == "k-same-synth":
        return f"k = {params['k']}"
    if mech == "event-synth-pd":
        return f"k = {params['k']}, gamma = {params['gamma']:g}"
    if mech == "kaleido":
        return (f"w = {params['window_s']:g} s, r = {params['radius_deg']:g} deg, "
                f"eps = {params['epsilon']:g}")
    if mech == "dpgazesynth":
        return f"G = {params['grid_size']}, eps = {params['epsilon']:g}"
    return "-"


def _paper_key(mech: str, params: dict[str, Any]) -> tuple | None:
    if mech == "none":
        return ("none",)
    if mech == "k-same-synth":
        return ("k-same-synth", params["k"])
    if mech == "event-synth-pd":
        return ("event-synth-pd", params["k"], float(params["gamma"]))
    if mech == "kaleido":
        return ("kaleido", round(params["window_s"] * 100), float(params["radius_deg"]),
                float(params["epsilon"]))
    return None


def _settings_in(summary: pl.DataFrame, dataset: str | None) -> list[tuple[str, str]]:
    """(mechanism, setting label) of a dataset in the paper's order."""
    pairs = summary.filter(pl.col("dataset") == dataset).select(
        "mechanism", "parameters").unique(maintain_order=True).rows()
    order = {m: i for i, m in enumerate(_MECH_ORDER)}
    pairs = sorted(pairs, key=lambda mp: (order.get(mp[0], 99), _sort_key(mp[0], mp[1])))
    return [(m, _setting(m, json.loads(p))) for m, p in pairs]


def _sort_key(mech: str, params: str) -> tuple:
    d = json.loads(params)
    if mech == "kaleido":
        return (d["window_s"], d["radius_deg"], -d["epsilon"])
    return tuple(v for _, v in sorted(d.items()) if isinstance(v, int | float))


def _value(look: dict, dataset: str | None, mech: str, setting: str, prefix: str,
           metric: str) -> float | None:
    for (d, m, st, ev, me), v in look.items():
        if d == dataset and m == mech and st == setting and ev.startswith(prefix) \
                and me == metric:
            return v
    return None


def _f(v: float | None, fmt: str = ".2f") -> str:
    return "-" if v is None or not np.isfinite(v) else format(v, fmt)


def _pct(v: float | None) -> str:
    return "-" if v is None or not np.isfinite(v) else f"{100 * v:.1f} %"


Table = tuple[str, str, list[str], list[list[str]]]
Look = dict[tuple[str, str, str, str, str], float]
_LINKAGE_METRICS = ("success_quasi_and_gaze", "success_gaze_only", "quasi_only", "bound")


def _tables(summary: pl.DataFrame, *, names: dict[str, str], roles: dict[str, str],
            what: str) -> dict[str, Table]:
    """Every table of the reproduction that its datasets allow, by key (``utility``, ``fig4``,
    ``fig8``, ``table3``, ``table4``, ``fig1``)."""
    look: Look = {(r["dataset"], r["mechanism"],
                   _setting(r["mechanism"], json.loads(r["parameters"])), r["evaluation"],
                   r["metric"]): r["mean"] for r in summary.iter_rows(named=True)}
    vr, gg, mp = roles.get("vr"), roles.get("gazegraph"), roles.get("mpiidpeye")
    out: dict[str, Table] = {
        "utility": _utility_table(summary, look, names, vr, gg, what),
        "fig4": _fig4_table(summary, look, names, vr, gg, what),
        "fig8": _fig8_table(summary, look, names, vr, gg, what)}
    # Tables 3 and 4: identification rates
    for key, d, ptab, pname in (("table3", gg, paper.TABLE3, "EHTask"),
                                ("table4", vr, paper.TABLE4, "DGaze")):
        if d is not None:
            out[key] = _reid_table(summary, look, names, key, d, ptab, pname, what)
    if mp is not None:
        out["fig1"] = _fig1_table(look, mp, what)
    return out


def _activity(vr: str | None, gg: str | None) -> dict[str | None, str]:
    """The activity-recognition evaluation of each dataset."""
    return {vr: "environment:seq", gg: "activity:seq"}


def _utility_table(summary: pl.DataFrame, look: Look, names: dict[str, str], vr: str | None,
                   gg: str | None, what: str) -> Table:
    """Closing-note table: every mechanism x dataset, both utilities with their references."""
    act = _activity(vr, gg)
    head = ["mechanism", "setting"]
    for d in (vr, gg):
        if d is not None:
            head += [f"{names[d]} prediction error [deg]", f"{names[d]} baseline [deg]",
                     f"{names[d]} raw-trained [deg]", f"{names[d]} activity accuracy",
                     f"{names[d]} chance", f"{names[d]} raw-trained accuracy"]
    rows = []
    for mech, params in _settings_in(summary, vr or gg):
        row = [_MECH_LABEL.get(mech, mech), params]
        for d in (vr, gg):
            if d is None:
                continue
            row += [_f(_value(look, d, mech, params, "gaze-prediction", "error_deg")),
                    _f(_value(look, d, mech, params, "gaze-prediction", "baseline_error_deg")),
                    _f(_value(look, d, mech, params, "gaze-prediction", "raw_error_deg")),
                    _pct(_value(look, d, mech, params, act[d], "accuracy")),
                    _pct(_value(look, d, mech, params, act[d], "chance")),
                    _pct(_value(look, d, mech, params, act[d], "raw_accuracy"))]
        rows.append(row)
    return ("Learned utility of every sample-level mechanism (train on the release, "
            "test on raw held-out participants)", what, head, rows)


def _fig4_table(summary: pl.DataFrame, look: Look, names: dict[str, str], vr: str | None,
                gg: str | None, what: str) -> Table:
    """Fig. 4: activity accuracy vs the paper's EHTask statements."""
    act = _activity(vr, gg)
    head = ["mechanism", "setting"] + [f"{names[d]} accuracy" for d in (gg, vr) if d] + \
        ["paper (EHTask, Fig. 4 text)"]
    rows = [["chance (majority)", "-", *(_pct(_value(look, d, "none", "-", act[d], "chance"))
                                         for d in (gg, vr) if d), paper.FIG4["chance"]]]
    for mech, params in _settings_in(summary, gg or vr):
        rows.append([_MECH_LABEL.get(mech, mech), params,
                     *(_pct(_value(look, d, mech, params, act[d], "accuracy"))
                       for d in (gg, vr) if d), paper.FIG4.get(mech, "-")])
    return ("Fig. 4 in shape: activity recognition accuracy (Conv1d-BiGRU)",
            what + " Paper: " + paper.FIG4_TEXT + ".", head, rows)


def _fig8_table(summary: pl.DataFrame, look: Look, names: dict[str, str], vr: str | None,
                gg: str | None, what: str) -> Table:
    """Fig. 8: prediction error vs the paper's DGaze statements."""
    head = ["mechanism", "setting"] + [f"{names[d]} error [deg]" for d in (vr, gg) if d] + \
        ["paper (DGaze, Fig. 8 text) [deg]"]
    rows = [["constant-position baseline", "-",
             *(_f(_value(look, d, "none", "-", "gaze-prediction", "baseline_error_deg"))
               for d in (vr, gg) if d), "-"]]
    for mech, params in _settings_in(summary, vr or gg):
        rows.append([_MECH_LABEL.get(mech, mech), params,
                     *(_f(_value(look, d, mech, params, "gaze-prediction", "error_deg"))
                       for d in (vr, gg) if d), paper.FIG8.get(mech, "-")])
    return ("Fig. 8 in shape: gaze prediction error 100 ms ahead (GRU, 0.5 s history)",
            what + " Paper: " + paper.FIG8_TEXT + ".", head, rows)


def _reid_table(summary: pl.DataFrame, look: Look, names: dict[str, str], key: str, d: str,
                ptab: dict, pname: str, what: str) -> Table:
    """Table 3 or 4: RBFN identification rate beside the paper's."""
    head = ["mechanism", "setting", f"identification rate ({names[d]}, ours)",
            f"paper ({pname})"]
    chance = _value(look, d, "none", "-", "reid", "chance")
    rows = [["chance", "-", _pct(chance), "3.3 %" if key == "table3" else "2.3 %"]]
    params_of = {_setting(m, json.loads(p)): json.loads(p) for m, p in summary.filter(
        pl.col("dataset") == d).select("mechanism", "parameters").unique().rows()}
    for mech, setting in _settings_in(summary, d):
        pk = _paper_key(mech, params_of.get(setting, {}))
        rows.append([_MECH_LABEL.get(mech, mech), setting,
                     _pct(_value(look, d, mech, setting, "reid", "identification_rate")),
                     _pct(ptab.get(pk)) if pk else "-"])
    return (f"Table {key[-1]} in shape: RBFN identification rate on {names[d]} "
            f"(paper: {pname})", what, head, rows)


def _fig1_table(look: Look, mp: str, what: str) -> Table:
    """Fig. 1: the linkage attack on raw data and on each k-same-synth release."""
    ks = sorted({int(ev.split(":")[2][1:]) for (dd, _, _, ev, _) in look
                 if dd == mp and ev.startswith("linkage")})
    head = ["gaze data", "k", "linkage success (gender + gaze)", "gaze only",
            "gender only (1 / class size)", "1 / k bound", "paper (Fig. 1)"]
    rows = []
    for k in ks:
        ev = f"linkage:gender:k{k}"
        raw = {m: _value(look, mp, "none", "-", ev, m) for m in _LINKAGE_METRICS}
        rows.append(["raw", str(k), _pct(raw["success_quasi_and_gaze"]),
                     _pct(raw["success_gaze_only"]), _pct(raw["quasi_only"]),
                     _pct(raw["bound"]), "> 80 %"])
        prot = {m: _value(look, mp, "k-same-synth", f"k = {k}", ev, m) for m in _LINKAGE_METRICS}
        if prot["success_quasi_and_gaze"] is not None:
            rows.append([f"k-same-synth (k = {k})", str(k),
                         _pct(prot["success_quasi_and_gaze"]),
                         _pct(prot["success_gaze_only"]), _pct(prot["quasi_only"]),
                         _pct(prot["bound"]), "< 1 / k"])
    return ("Fig. 1 in shape: demographic linkage attack on MPIIDPEye (gender "
            "k-anonymous, gaze biometric within the class)",
            what + " Gallery = the release (2 of 3 documents), probes = raw data "
            "of the held-out document. Paper: " + paper.FIG1_TEXT + ".", head, rows)


def _bar_figure(summary: pl.DataFrame, names: dict[str, str], path: Path, *, metric: str,
                evaluation_prefix: tuple[str, ...], refs: tuple[tuple[str, str], ...],
                ylabel: str, title: str, per_evaluation: bool = False) -> Path:
    """One panel per dataset (or evaluation): a bar per mechanism setting, the raw-data value
    as a dashed line and the reference levels as dotted lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sel = summary.filter(pl.col("evaluation").str.starts_with(evaluation_prefix[0])
                         if len(evaluation_prefix) == 1 else
                         pl.any_horizontal(*(pl.col("evaluation").str.starts_with(p)
                                             for p in evaluation_prefix)))
    panels = sel.select("dataset", "evaluation").unique(maintain_order=True).rows()
    if not per_evaluation:
        panels = list(dict.fromkeys(panels))
    fig, axes = plt.subplots(1, max(1, len(panels)), figsize=(5.2 * max(1, len(panels)), 5.2),
                             dpi=90, squeeze=False)
    for ax, (dataset, evaluation) in zip(axes[0], panels, strict=False):
        g = sel.filter((pl.col("dataset") == dataset) & (pl.col("evaluation") == evaluation))
        vals = g.filter((pl.col("metric") == metric) & (pl.col("mechanism") != "none"))
        order = {m: i for i, m in enumerate(_MECH_ORDER)}
        rows = sorted(vals.iter_rows(named=True),
                      key=lambda r: (order.get(r["mechanism"], 99), r["parameters"]))
        labels = [f"{_MECH_LABEL.get(r['mechanism'], r['mechanism'])} "
                  f"{_setting(r['mechanism'], json.loads(r['parameters']))}" for r in rows]
        colours = [f"C{order.get(r['mechanism'], 5)}" for r in rows]
        ax.bar(range(len(rows)), [r["mean"] for r in rows], color=colours)
        ax.set_xticks(range(len(rows)), labels, rotation=90, fontsize=7)
        raw = g.filter((pl.col("metric") == metric) & (pl.col("mechanism") == "none"))["mean"]
        if raw.len():
            ax.axhline(float(raw[0]), color="black", ls="--", lw=1, label="raw data")
        for (ref, label), style in zip(refs, (":", "-."), strict=False):
            lv = g.filter((pl.col("metric") == ref) & (pl.col("mechanism") == "none"))["mean"]
            if lv.len():
                ax.axhline(float(lv[0]), color="grey", ls=style, lw=1.5, label=label)
        ax.set_title(f"{names.get(dataset, dataset)}: {evaluation}", fontsize=8)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=6)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def _paper_html(tabs: dict[str, Table], figures: dict[str, Path], what: str) -> str:
    e = html.escape
    imgs = "".join(
        f'<figure><img src="data:image/png;base64,'
        f'{base64.b64encode(p.read_bytes()).decode("ascii")}" alt="{e(k)}" width="760">'
        f"<figcaption>{e(k)}</figcaption></figure>" for k, p in figures.items())
    body = ""
    for key in ("utility", "fig4", "fig8", "table3", "table4", "fig1", "linkage_ablation"):
        if key not in tabs:
            continue
        title, note, header, rows = tabs[key]
        body += (f"<h3>{e(title)}</h3><p class='note'>{e(note)}</p><table><tr>"
                 + "".join(f"<th>{e(h)}</th>" for h in header) + "</tr>"
                 + "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>"
                           for r in rows) + "</table>")
    return (f"<p class='note'>{e(what)} Paper: David-John, Butler, Jain (seed 001), section 5; "
            "its numbers (tables) and statements (figures) are printed beside ours.</p>"
            + imgs + body)
