# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Reproduce seed 000 (Ren, Fan et al., DPGazeSynth) section 5: Fig. 2 and Tables 2-4 in shape.

Protocol (paper section 5, on the closest real data we have):

- Mechanisms in paper mode at the paper's parameters: eps in {1, 2, 3}; Kaleido with
  r = 5 % / 10 % of the smaller screen side, w = 0.5 s (t_skip 5, l_thresh 1 deg, h 2);
  DPGazeSynth with G = 60 / G = 30 (default radius 3 min(H, V) / G, i.e. 5 % / 10 %; the paper
  pairs them so in Table 2), W = 0.5 s, split 0.6 / 0.2 / 0.2. Kaleido also runs unclamped
  (``clamp=False``: off-screen points kept and left out by the density metric, as the paper did).
- Fig. 2 (re-identification): DOVES (29 observers, 200 Hz desktop free viewing; a subsample of
  images), the RBFN of George & Routray (0.4 fixation / 0.6 saccade fusion), threat model
  ``seed000``: trained on raw data, tested on protected data, splits by image; macro F1 and
  identification rate over ``n_splits`` splits. The paper used 12 participants of 360_em (VR).
- Table 2 (task classification): random forest trained on original and tested on protected
  data of the VR office / supermarket set (label ``environment``) and GazeGraph (label
  ``activity``, 6 desktop activities), in four protocols (:mod:`._table2000`): per-recording
  I-VT event aggregates with recordings split at random (the first run's protocol, people on
  both sides) and with participants held out, and sample-level features (position / speed /
  direction histograms) per recording and per 10 s segment, participants held out. The paper
  used GazebaseVR's 3 tasks (1004 instances each).
- Tables 3 and 4 (fidelity): RMSE (mean version, degrees), the printed root-of-sum version
  (``rss_distance``, degrees) and density error (JSD, 60 x 60 grid, on-screen points) on all
  three datasets. The paper's RMSE unit is not stated (its magnitudes suggest pixels).

Everything runs through :func:`gazeprivacy.experiments.engine.run_experiment`, one config per
dataset (built in code, kept in ``OUT/seed000_configs.json``), all writing into ``OUT`` (cells are
cached: a rerun resumes). Then the merged ``results.parquet``, ``seed000_table2.md``,
``seed000_table3.md``, ``seed000_table4.md``, ``seed000_fig2.md`` / ``.png`` (ours beside the
paper's numbers from :mod:`._paper000`) and ``report.html`` with a "Paper comparison" section.
The sound-mode and one-transition-per-window variants of Table 4 are in
``scripts/table4_density_error.py`` / ``docs/results/seed000_table4.md``.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy._validation import check_int
from gazeprivacy.data.loaders import load
from gazeprivacy.data.recording import Dataset
from gazeprivacy.experiments.reproduce import _paper000 as paper
from gazeprivacy.experiments.reproduce._runs import markdown_table, run_roles, strongest_attacks
from gazeprivacy.experiments.reproduce._table2000 import Setting, table2_rows
from gazeprivacy.report.html import build_report

__all__ = ["DOVES_IMAGES", "Seed000Result", "reproduce_seed000", "summarise", "tables"]

#: DOVES images of the full run: every fifth image (20 of 101), all 29 observers
DOVES_IMAGES = tuple(range(1, 101, 5))
_QUICK_DOVES = {"observers": ["ABT2", "ACB2", "AV2", "BSQ2"], "images": [1, 2, 3, 4]}
_QUICK_VR = {"participants": [10, 11, 12]}
_QUICK_GAZEGRAPH = ("P1", "P2")  # participants kept in a quick run (the loader has no option)
_ROLES = ("doves", "vr", "gazegraph")
_NAMES = {"doves": "DOVES", "vr": "VR", "gazegraph": "GazeGraph"}
_LOADERS = {"doves": "doves", "vr": "vr_selfcalib_office_supermarket",
            "gazegraph": "gazegraph_desktop_activity"}
_MECHS = (("kaleido", "Kaleido"), ("kaleido-unclamped", "Kaleido unclamped"),
          ("dpgazesynth", "DPGazeSynth"))
_FIDELITY = ["rmse", "rss_distance", "density_error"]
_LABEL = {"vr": "environment", "gazegraph": "activity"}


def _table2_settings(ds: Dataset, *, quick: bool) -> list[Setting]:
    """Table 2's releases of ``ds`` (the engine configs' grid, see :func:`_configs`)."""
    geo = ds[0].geometry
    side = min(geo.width_deg, geo.height_deg)
    out: list[Setting] = []
    for e in [1.0] if quick else [1.0, 2.0, 3.0]:
        for r in paper.R_FRACS:
            rad = round(r * side, 6)
            out.append(("dpgazesynth", "dpgazesynth",
                        {"epsilon": e, "grid_size": paper.GRID_FOR_R[r], "mode": "paper"}))
            out.append(("kaleido", "kaleido", {"epsilon": e, "radius_deg": rad,
                                               "window_s": 0.5, "mode": "paper"}))
            if not quick:
                out.append(("kaleido", "kaleido-unclamped",
                            {"epsilon": e, "radius_deg": rad, "window_s": 0.5, "clamp": False,
                             "mode": "paper"}))
    return out


@dataclass(frozen=True, eq=False, kw_only=True)
class Seed000Result:
    """What one reproduction run wrote."""

    out_dir: Path
    results: pl.DataFrame     # the engine's tidy table, all three datasets
    summary: pl.DataFrame     # dataset x mechanism x r_frac x epsilon x metric: mean, std, n
    tables: dict[str, Path]   # "table2", "table3", "table4", "fig2" -> markdown file
    figure: Path
    report: Path


def _configs(datasets: dict[str, Dataset], *, data_dir: Path, options: dict[str, dict],
             seeds: list[int], n_splits: int, workers: int,
             quick: bool) -> dict[str, dict[str, Any]]:
    out = {}
    eps = [1.0] if quick else [1.0, 2.0, 3.0]
    for role, ds in datasets.items():
        geo = ds[0].geometry
        side = min(geo.width_deg, geo.height_deg)
        radii = [round(f * side, 6) for f in paper.R_FRACS]
        cfg: dict[str, Any] = {
            "name": f"seed000-{role}", "seeds": seeds, "workers": workers,
            "fidelity": _FIDELITY,
            "datasets": [{"name": ds.name, "source": "loader", "loader": _LOADERS[role],
                          "path": str(data_dir),
                          "group_label": "stimulus" if role == "doves" else "",
                          "options": options[role]}],
            "mechanisms": [
                {"name": "dpgazesynth", "preset": "paper",
                 "grid": {"epsilon": eps, "grid_size": [paper.GRID_FOR_R[r]
                                                        for r in paper.R_FRACS]},
                 "fixed": {"mode": "paper"}},
                {"name": "kaleido", "preset": "paper",
                 "grid": {"epsilon": eps, "radius_deg": radii},
                 "fixed": {"window_s": 0.5, "mode": "paper"}},
            ],
        }
        if not quick:
            cfg["mechanisms"].append(
                {"name": "kaleido", "label": "kaleido-unclamped", "preset": "paper",
                 "grid": {"epsilon": eps, "radius_deg": radii},
                 "fixed": {"window_s": 0.5, "clamp": False, "mode": "paper"}})
        if role == "doves":
            cfg["attacks"] = [{"kind": "reidentification", "classifier": "rbfn",
                               "threat": "seed000", "n_splits": n_splits},
                              *strongest_attacks(quick=quick, n_splits=n_splits)]
        # Table 2 (task classification) runs in ._table2000: participants held out, event
        # and sample-level features; the engine does the fidelity of VR and GazeGraph
        out[role] = cfg
    return out


def reproduce_seed000(out_dir: str | Path, *, data_dir: str | Path, rng: np.random.Generator,
                      quick: bool = False, n_seeds: int | None = None,
                      n_splits: int | None = None, n_seeds_reid: int = 1,
                      doves_images: Sequence[int] = DOVES_IMAGES, workers: int = 2,
                      progress: bool = False) -> Seed000Result:
    """Run seed 000's section-5 experiments and write tables, figure and report to ``out_dir``.

    Parameters
    ----------
    out_dir : path
        Output folder (created); the engine's cells are cached there, so a rerun resumes.
    data_dir : path
        Folder holding ``doves/``, ``vr_selfcalib_office_supermarket/`` and
        ``gazegraph_desktop_activity/``.
    rng : numpy.random.Generator
        Draws the run's seeds (each engine seed fixes protection and splits of its cells).
    quick : bool
        A tiny run for tests: 4 DOVES observers x 4 images, 3 VR participants, 2 GazeGraph
        participants, eps = 1 only, no unclamped Kaleido, 20 trees, one seed, 2 splits.
    n_seeds : int, optional
        Repetitions with different seeds (default 3; quick: 1). The paper used 10 (Fig. 2,
        Table 2) and 5 (Tables 3-4).
    n_seeds_reid : int
        How many of those seeds the DOVES (re-identification) run uses (default 1: the RBFN's
        ``n_splits`` splits are the averaging there, and each DOVES cell costs ~30 s of CPU).
    n_splits : int, optional
        Attack / classifier splits per seed (default 20; quick: 2).
    doves_images : sequence of int
        DOVES images used with all 29 observers (default every fifth image, 20 of 101).
    workers : int
        Engine worker processes.
    progress : bool
        Progress bars on stderr.

    Returns
    -------
    Seed000Result
    """
    n_seeds = (1 if quick else 3) if n_seeds is None else n_seeds
    n_splits = (2 if quick else 20) if n_splits is None else n_splits
    check_int(n_seeds=n_seeds, minimum=1)
    check_int(n_splits=n_splits, minimum=1)
    check_int(n_seeds_reid=n_seeds_reid, minimum=1)
    check_int(workers=workers, minimum=1)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    data_dir = Path(data_dir)
    options = {"doves": dict(_QUICK_DOVES) if quick else {"images": list(doves_images)},
               "vr": dict(_QUICK_VR) if quick else {}, "gazegraph": {}}
    seeds = sorted(int(s) for s in rng.choice(2**31, size=n_seeds, replace=False))
    datasets = {role: load(_LOADERS[role], data_dir, **options[role]) for role in _ROLES}
    if quick:
        datasets["gazegraph"] = datasets["gazegraph"].select(
            lambda r: r.participant in _QUICK_GAZEGRAPH)
    configs = _configs(datasets, data_dir=data_dir, options=options, seeds=seeds,
                       n_splits=n_splits, workers=workers, quick=quick)
    configs["doves"]["seeds"] = seeds[:n_seeds_reid]
    (out / "seed000_configs.json").write_text(json.dumps(configs, indent=1))
    results = run_roles(configs, datasets, out, name="seed000", progress=progress)
    t2 = table2_rows({datasets[r].name: (datasets[r], _LABEL[r], _table2_settings(
        datasets[r], quick=quick)) for r in ("vr", "gazegraph")}, seeds=seeds,
        n_splits=n_splits, n_trees=20 if quick else 100)
    results = pl.concat([results, t2.select(results.columns)], how="vertical_relaxed")
    results.write_parquet(out / "results.parquet")
    sides = {ds.name: min(ds[0].geometry.width_deg, ds[0].geometry.height_deg)
             for ds in datasets.values()}
    names = {datasets[r].name: _NAMES[r] for r in _ROLES}
    summary = summarise(results, sides=sides)
    summary.write_csv(out / "seed000_summary.csv")
    what = _describe(datasets, seeds=seeds, reid_seeds=seeds[:n_seeds_reid],
                     n_splits=n_splits, quick=quick)
    tabs = tables(summary, names=names, what=what)
    paths = {}
    for key, (title, note, header, rows) in tabs.items():
        p = out / f"seed000_{key}.md"
        p.write_text(markdown_table(title, note, header, rows))
        paths[key] = p
    figure = _fig2(summary, datasets["doves"].name, out / "seed000_fig2.png")
    fragment = _paper_html(tabs, figure, what)
    report = build_report(out, title="gazeprivacy: seed 000 (DPGazeSynth) section 5 reproduced",
                          paper_comparison=fragment)
    return Seed000Result(out_dir=out, results=results, summary=summary, tables=paths,
                         figure=figure, report=report)


def _describe(datasets: dict[str, Dataset], *, seeds: list[int], reid_seeds: list[int],
              n_splits: int, quick: bool) -> str:
    d = datasets
    return (f"{'QUICK test run. ' if quick else ''}VR and GazeGraph: mean over {len(seeds)} "
            f"seed(s) {seeds} x {n_splits} splits; DOVES: {len(reid_seeds)} seed(s) "
            f"{reid_seeds} x {n_splits} splits. DOVES subsample: "
            f"{len(d['doves'].participants)} "
            f"observers x {len(d['doves']) // max(1, len(d['doves'].participants))} images "
            f"({len(d['doves'])} recordings, 200 Hz); VR: {len(d['vr'])} recordings of "
            f"{len(d['vr'].participants)} participants (50 Hz); GazeGraph: {len(d['gazegraph'])} "
            f"recordings of {len(d['gazegraph'].participants)} participants (30 Hz). "
            "All mechanisms in paper mode.")


def _r_frac(params: dict[str, Any], side: float) -> float | None:
    if "grid_size" in params:
        inv = {g: r for r, g in paper.GRID_FOR_R.items()}
        return inv.get(int(params["grid_size"]))
    if "radius_deg" in params:
        return round(float(params["radius_deg"]) / side, 2)
    return None


def summarise(results: pl.DataFrame, *, sides: dict[str, float]) -> pl.DataFrame:
    """Mean / std / count over seeds per dataset x mechanism x r_frac x epsilon x metric.

    ``r_frac`` is the radius as a share of the smaller screen side (``sides``: dataset -> side
    in degrees); DPGazeSynth's grid maps to it by the paper's pairing (60 -> 5 %, 30 -> 10 %).
    """
    r = [_r_frac(json.loads(p), sides[d]) for p, d in
         zip(results["parameters"].to_list(), results["dataset"].to_list(), strict=True)]
    tab = results.with_columns(pl.Series("r_frac", r, dtype=pl.Float64))
    return (tab.group_by("dataset", "mechanism", "r_frac", "epsilon", "kind", "evaluation",
                         "metric", maintain_order=True)
            .agg(pl.col("value").mean().alias("mean"), pl.col("value").std().alias("std"),
                 pl.len().alias("n")))


def _look(summary: pl.DataFrame) -> dict[tuple, float]:
    return {(r["dataset"], r["mechanism"], r["r_frac"], r["epsilon"], r["metric"]): r["mean"]
            for r in summary.iter_rows(named=True)}


def _f(v: float | None, fmt: str = ".3f") -> str:
    return "-" if v is None or not np.isfinite(v) else format(v, fmt)


def _setting(mech: str, r: float) -> str:
    if mech == "dpgazesynth":
        return f"G = {paper.GRID_FOR_R[r]} (r = {r:.0%})"
    return f"r = {r:.0%}"


Table = tuple[str, str, list[str], list[list[str]]]
Look = dict[tuple[Any, ...], float]


def tables(summary: pl.DataFrame, *, names: dict[str, str], what: str) -> dict[str, Table]:
    """Fig. 2 and Tables 2-4 as (title, note, header, rows): ours beside the paper's values.

    ``names`` maps a dataset name in ``summary`` to its column name (DOVES, VR, GazeGraph).
    """
    look = _look(summary)
    by_role = {v: k for k, v in names.items()}
    doves, vr, gg = by_role.get("DOVES"), by_role.get("VR"), by_role.get("GazeGraph")
    present = [d for d in (doves, vr, gg) if d is not None]
    return {"fig2": _fig2_table(look, doves, what),
            "table2": _table2(summary, vr, gg, what),
            "table3": _table3(look, names, present, what),
            "table4": _table4(look, names, present, what)}


def _grid() -> Iterator[tuple[str, str, float, float]]:
    """(mechanism, label, r_frac, epsilon) of every printed setting, in the paper's order."""
    for mech, label in _MECHS:
        for r in paper.R_FRACS:
            for e in paper.EPSILONS:
                yield mech, label, r, e


def _fig2_table(look: Look, doves: str | None, what: str) -> Table:
    """Fig. 2: re-identification on DOVES."""
    head = ["method", "setting", "eps", "F1 macro (ours, DOVES)",
            "identification rate (ours, DOVES)", "paper (360_em, Fig. 2)"]
    rows = [["raw data", "", "", _f(look.get((doves, "none", None, None, "f1_macro"))),
             _f(look.get((doves, "none", None, None, "identification_rate"))),
             "nearly complete re-identification (text)"],
            ["chance", "", "", "", _f(look.get((doves, "none", None, None, "chance"))),
             "random baseline (value not printed)"]]
    for mech, label, r, e in _grid():
        rows.append([label, _setting(mech, r), f"{e:g}",
                     _f(look.get((doves, mech, r, e, "f1_macro"))),
                     _f(look.get((doves, mech, r, e, "identification_rate"))),
                     "not printed"])
    return ("Fig. 2: re-identification (RBFN, train raw / test protected)",
            what + " Fig. 2's values are not printed; the paper's text: "
            + "; ".join(f'"{s}"' for s in paper.FIG2_TEXT) + ".", head, rows)


_PROTO_LABEL = {"events:by-recording": "events, recordings split (first run)",
                "events:by-participant": "events, participants held out",
                "samples:by-participant": "samples, participants held out",
                "samples-10s:by-participant": "samples per 10 s, participants held out"}


def _table2(summary: pl.DataFrame, vr: str | None, gg: str | None, what: str) -> Table:
    """Table 2: task classification, four protocols per dataset (see ._table2000)."""
    look = {(r["dataset"], r["mechanism"], r["r_frac"], r["epsilon"], r["evaluation"],
             r["metric"]): r["mean"] for r in summary.iter_rows(named=True)}
    cols = [(d, lab, proto) for d, lab in ((vr, "environment"), (gg, "activity"))
            if d is not None for proto in _PROTO_LABEL]
    names = {vr: "VR environment", gg: "GazeGraph activity"}
    head = ["method", "setting", "eps",
            *(f"{names[d]}: {_PROTO_LABEL[p]}" for d, _, p in cols),
            "GazebaseVR task (paper Table 2)"]

    def cells(mech: str, r: float | None, e: float | None, metric: str) -> list[str]:
        return [_f(look.get((d, mech, r, e, f"{lab}:rf:{p}", metric))) for d, lab, p in cols]

    rows = [["original data", "", "", *cells("none", None, None, "accuracy"),
             _f(paper.TABLE2_ORIGINAL)],
            ["chance (majority class of the test side)", "", "",
             *cells("none", None, None, "chance"), "0.333 (3 balanced tasks)"]]
    for mech, label, r, e in _grid():
        rows.append([label, _setting(mech, r), f"{e:g}", *cells(mech, r, e, "accuracy"),
                     _f(paper.TABLE2.get((mech, r, e)))])
    return ("Table 2: task classification accuracy (random forest, train original / "
            "test protected)", what + " Original data: original on both sides of the "
            "split (the ceiling). Events: per-recording aggregates of I-VT event features "
            "(implausible on the VR set and GazeGraph: I-VT labels 88 % and 41 % of their "
            "valid samples as saccades); "
            "samples: histograms of gaze position, speed and direction (two lags), missing "
            "share, mean and spread, per recording or per 10 s segment. 'Recordings split' "
            "puts recordings of the same people on both sides (the first run's protocol); "
            "'participants held out' tests on people the forest never saw.", head, rows)


def _table3(look: Look, names: dict[str, str], present: list[str], what: str) -> Table:
    """Table 3: RMSE."""
    head = ["method", "setting", "eps"] + [f"{names[d]} RMSE / RSS (ours, deg)"
                                          for d in present] + \
        ["360_em (paper, as printed)", "GazebaseVR (paper, as printed)"]
    rows = []
    for mech, label, r, e in _grid():
        ours = [f"{_f(look.get((d, mech, r, e, 'rmse')), '.2f')} / "
                f"{_f(look.get((d, mech, r, e, 'rss_distance')), '.0f')}"
                for d in present]
        rows.append([label, _setting(mech, r), f"{e:g}", *ours,
                     *(_f(paper.TABLE3[p].get((mech, r, e)), ".4g")
                       for p in ("360_em", "GazebaseVR"))])
    return ("Table 3: RMSE", what + " Ours: RMSE = mean version (root of the mean "
            "squared distance per recording, averaged over recordings, degrees) / RSS = "
            "eq. (15) as printed (root of the sum, degrees). The paper's unit is not "
            "stated (pixels, by the magnitudes); compare trends, not values.", head, rows)


def _table4(look: Look, names: dict[str, str], present: list[str], what: str) -> Table:
    """Table 4: density error."""
    head = ["method", "setting", "eps"] + [f"{names[d]} (ours)" for d in present] + \
        ["360_em (paper)", "GazebaseVR (paper)"]
    rows = []
    for mech, label, r, e in _grid():
        rows.append([label, _setting(mech, r), f"{e:g}",
                     *(_f(look.get((d, mech, r, e, "density_error"))) for d in present),
                     *(_f(paper.TABLE4[p].get((mech, r, e)))
                       for p in ("360_em", "GazebaseVR"))])
    return ("Table 4: density error (JSD, 60 x 60 grid, on-screen points)",
            what + " Kaleido clamps off-screen points to the screen (SPEC); Kaleido "
            "unclamped keeps them and the metric drops them (the paper's protocol). "
            "Sound-mode variants: scripts/table4_density_error.py.", head, rows)


def _html_table(title: str, note: str, header: list[str], rows: list[list[str]]) -> str:
    e = html.escape
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in rows)
    return (f"<h3>{e(title)}</h3><p class='note'>{e(note)}</p><table><tr>"
            + "".join(f"<th>{e(h)}</th>" for h in header) + f"</tr>{body}</table>")


def _paper_html(tabs: dict[str, Table], figure: Path, what: str) -> str:
    data = base64.b64encode(figure.read_bytes()).decode("ascii")
    img = (f'<figure><img src="data:image/png;base64,{data}" alt="Fig. 2 style" width="760">'
           "<figcaption>Fig. 2 style: re-identification F1 (macro) and identification rate vs "
           "epsilon on DOVES</figcaption></figure>")
    return (f"<p class='note'>{html.escape(what)} Paper: Ren, Fan et al. (seed 000), section 5; "
            "its numbers are printed beside ours.</p>" + img
            + "".join(_html_table(*tabs[k]) for k in ("fig2", "table2", "table3", "table4")))


def _fig2(summary: pl.DataFrame, doves: str, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    look = _look(summary)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), dpi=90)
    eps = sorted(paper.EPSILONS)
    for ax, metric, name in zip(axes, ("f1_macro", "identification_rate"),
                                ("F1 (macro)", "identification rate"), strict=True):
        for mech, label in _MECHS:
            for r in paper.R_FRACS:
                ys = [look.get((doves, mech, r, e, metric)) for e in eps]
                if all(y is None for y in ys):
                    continue
                ax.plot(eps, [np.nan if y is None else y for y in ys], marker="o",
                        ls="--" if "unclamped" in mech else "-",
                        label=f"{label} {_setting(mech, r)}")
        raw = look.get((doves, "none", None, None, metric))
        if raw is not None:
            ax.axhline(raw, color="k", ls="--", lw=1, label="raw")
        chance = look.get((doves, "none", None, None, "chance"))
        if chance is not None:
            ax.axhline(chance, color="grey", ls=":", lw=1, label="chance (1 / observers)")
        ax.set_xlabel("epsilon (per 0.5 s window)")
        ax.set_ylabel(name)
        ax.set_xticks(eps)
        ax.set_ylim(0, 1.05)
    axes[0].legend(fontsize=6)
    fig.suptitle("Seed 000 Fig. 2 style: RBFN re-identification on DOVES, train raw / "
                 "test protected", fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
