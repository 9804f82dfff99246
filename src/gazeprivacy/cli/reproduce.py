# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy reproduce <paper> --out DIR``: one subcommand per paper's experiment.

Subcommands are named by the paper, first author and year (``ren-2025-dpgazesynth``,
``david-john-2023``, ``bozkir-2021``, ``liu-2019``, ``steil-2019``); the old internal names
``seed000`` .. ``seed004`` still work as hidden, deprecated aliases. Another paper adds a function
here and one entry in :data:`PAPERS`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from gazeprivacy.cli._common import (
    STATE,
    Output,
    atomic_dir,
    check_outputs,
    echo_table,
    make_rng,
    progress_wanted,
    say,
)
from gazeprivacy.cli._common import out as out_console

__all__ = ["PAPERS", "register", "reproduce_app", "seed000", "seed001", "seed002", "seed003",
           "seed004"]

reproduce_app = typer.Typer(help="Reproduce a paper's experiment (named by author and year).",
                            no_args_is_help=True, rich_markup_mode=None)

_SEED_HELP = "Seed of the run (research run; >= 0)."


_RESUME_HELP = ("Write into an existing --out: finished work is reused (this resumes an "
                "interrupted run), results replaced.")


def _resumable(out: Path, data_dir: Path | None, overwrite: bool) -> None:
    """Check --out of a resumable run (gazeprivacy._atomic.check_outputs): an existing
    non-empty folder needs --overwrite, which resumes into it; never the data folder."""
    check_outputs([Output(out, "--out", folder=True)], inputs=[data_dir], overwrite=overwrite)
    STATE.on_interrupt = (f"finished work is kept in {out}; rerun the same command with "
                          "--overwrite to resume")


def _say_refusals(out: Path) -> None:
    """One line per release a mechanism refused (``out/refusals.json``, written by the
    reproductions that run the evaluation grid), as ``gazeprivacy evaluate`` prints them: with
    ``--quick`` the progress is off and a refusal would otherwise be silent."""
    import json

    from gazeprivacy.cli.evaluate import refusal_lines

    path = out / "refusals.json"
    for line in refusal_lines(json.loads(path.read_text()) if path.is_file() else []):
        say(line)


def _default_data_dir() -> Path:
    import os

    env = os.environ.get("GAZEPRIVACY_DATA")
    return Path(env) if env else Path("../shared/data")


def seed000(
    out: Annotated[Path, typer.Option(
        help="Output folder (cells are cached: a rerun with --overwrite resumes).")],
    data_dir: Annotated[Path | None, typer.Option(
        help="Folder with doves/, vr_selfcalib_office_supermarket/ and "
             "gazegraph_desktop_activity/ (default $GAZEPRIVACY_DATA or ../shared/data).")] = None,
    seed: Annotated[int, typer.Option(help=_SEED_HELP, min=0)] = 0,
    quick: Annotated[bool, typer.Option(
        help="Tiny run for tests (4 DOVES observers x 4 images, 4 VR users, 2 splits).")] = False,
    n_seeds: Annotated[int | None, typer.Option(
        help="Repetitions (default 3; quick 1; paper 10 / 5).")] = None,
    n_splits: Annotated[int | None, typer.Option(
        help="Attack / classifier splits per repetition (default 20; quick 2).")] = None,
    n_seeds_reid: Annotated[int, typer.Option(
        help="How many of the seeds the DOVES re-identification run uses (default 1).")] = 1,
    workers: Annotated[int, typer.Option(help="Worker processes.")] = 2,
    overwrite: Annotated[bool, typer.Option(help=_RESUME_HELP)] = False,
) -> None:
    """Ren, Fan et al. (DPGazeSynth) section 5: Fig. 2 and Tables 2-4 on DOVES, VR, GazeGraph."""
    from gazeprivacy.experiments.reproduce.seed000 import reproduce_seed000

    _resumable(out, data_dir or _default_data_dir(), overwrite)
    res = reproduce_seed000(out, data_dir=data_dir or _default_data_dir(), rng=make_rng(seed),
                            quick=quick, n_seeds=n_seeds, n_splits=n_splits,
                            n_seeds_reid=n_seeds_reid, workers=workers,
                            progress=progress_wanted(not quick))
    console = out_console()
    for key in ("fig2", "table2", "table4"):
        console.print(res.tables[key].read_text(), markup=False)
    _say_refusals(out)
    say(f"tables (seed000_*.md), figure {res.figure.name} and report {res.report} in {out}")


def seed001(
    out: Annotated[Path, typer.Option(
        help="Output folder (cells are cached: a rerun with --overwrite resumes).")],
    data_dir: Annotated[Path | None, typer.Option(
        help="Folder with vr_selfcalib_office_supermarket/, gazegraph_desktop_activity/ and "
             "mpiidpeye/ (default $GAZEPRIVACY_DATA or ../shared/data).")] = None,
    seed: Annotated[int, typer.Option(help=_SEED_HELP, min=0)] = 0,
    quick: Annotated[bool, typer.Option(
        help="A few minutes: one setting per mechanism, a few participants, small models.")
    ] = False,
    simulate: Annotated[bool, typer.Option(
        help="Small simulated datasets instead of the real ones (pipeline smoke test).")] = False,
    paper_grid: Annotated[bool, typer.Option(
        help="Seed 001's whole grid (Kaleido 16 settings, event-synth-PD 6, DPGazeSynth 6; "
             "about 3x the default budget grid's compute).")] = False,
    n_seeds: Annotated[int | None, typer.Option(help="Repetitions (default 1).")] = None,
    workers: Annotated[int, typer.Option(help="Worker processes.")] = 2,
    overwrite: Annotated[bool, typer.Option(help=_RESUME_HELP)] = False,
) -> None:
    """David-John et al. (TVCG 2023) section 5: Tables 3-4, Figs 1, 4 and 8 on VR, GazeGraph,
    MPIIDPEye (gaze prediction, activity recognition, identification, linkage)."""
    from gazeprivacy.experiments.reproduce.seed001 import Seed001Settings, reproduce_seed001

    kw: dict = {"workers": workers}
    if n_seeds is not None:
        kw["n_seeds"] = n_seeds
    settings = (Seed001Settings.quick_run(**kw) if quick else
                Seed001Settings(**kw) if paper_grid else Seed001Settings.budget(**kw))
    _resumable(out, None if simulate else (data_dir or _default_data_dir()), overwrite)
    res = reproduce_seed001(out, data_dir=None if simulate else (data_dir or _default_data_dir()),
                            rng=make_rng(seed), settings=settings, simulate=simulate,
                            progress=progress_wanted(not (quick or simulate)))
    out_console().print(res.tables["utility"].read_text(), markup=False)
    _say_refusals(out)
    say(f"tables (seed001_*.md), figures and report {res.report} in {out}")


def seed003(
    out: Annotated[Path, typer.Option(help="Output folder (created whole when the run "
                                           "completes).")],
    data_dir: Annotated[Path | None, typer.Option(
        help="Folder with osie_fixations/ and figrim_fixations/ (default $GAZEPRIVACY_DATA or "
             "../shared/data).")] = None,
    seed: Annotated[int, typer.Option(help=_SEED_HELP, min=0)] = 0,
    n_draws: Annotated[int, typer.Option(help="Noisy heatmaps per setting.")] = 100,
    n_stimuli: Annotated[int, typer.Option(help="Images per dataset.")] = 3,
    dataset: Annotated[list[str] | None, typer.Option(
        help="osie and/or figrim (repeatable; default both).")] = None,
    epsilon: Annotated[list[float] | None, typer.Option(
        help="Epsilons (repeatable; default 0.5 1 1.5 2 3).")] = None,
    sigma_px: Annotated[float, typer.Option(help="Heatmap point-spread sigma (px).")] = 24.0,
    cell_px: Annotated[int, typer.Option(help="Gaze-map cell size (px).")] = 1,
    n_simulated: Annotated[int, typer.Option(help="Simulated observers (paper: 50000).")] = 50_000,
    overwrite: Annotated[bool, typer.Option(help="Replace an earlier run's --out.")] = False,
) -> None:
    """Liu et al. (ETRA 2019) Figure 3: CC and MSE vs epsilon, Gaussian / Laplacian / analytic."""
    from gazeprivacy.experiments.reproduce.seed003 import reproduce_seed003

    out.parent.mkdir(parents=True, exist_ok=True)
    check_outputs([Output(out, "--out", folder=True, markers=("results.parquet",))],
                  inputs=[data_dir], overwrite=overwrite)
    with atomic_dir(out) as tmp:  # Ctrl-C or an error leaves no partial --out
        res = reproduce_seed003(
            tmp, data_dir=data_dir or _default_data_dir(), rng=make_rng(seed), n_draws=n_draws,
            n_stimuli=n_stimuli, datasets=tuple(dataset or ("osie", "figrim")),
            epsilons=tuple(epsilon or (0.5, 1.0, 1.5, 2.0, 3.0)), sigma_px=sigma_px,
            cell_px=cell_px, n_simulated=n_simulated)
    t = Table("dataset", "mechanism", "epsilon", "CC", "MSE")
    wide = res.summary.pivot(on="metric", index=["dataset", "mechanism", "epsilon"],
                             values="mean").sort("dataset", "mechanism", "epsilon")
    for row in wide.iter_rows(named=True):
        t.add_row(row["dataset"], row["mechanism"], f"{row['epsilon']:g}", f"{row['cc']:.4f}",
                  f"{row['mse']:.3e}")
    echo_table(t)
    say(f"results.parquet, report.html, figure {res.figure.name} and tables in {out}")


_DATA_HELP = ("Folder with mpiidpeye/ (default $GAZEPRIVACY_DATA or ../shared/data).")


def _print_accuracy(table, group: list[str]) -> None:
    import polars as pl

    summary = (table.filter(pl.col("metric") == "accuracy")
               .group_by(group).agg(pl.col("value").mean().alias("accuracy")).sort(group))
    t = Table(*group, "accuracy")
    for row in summary.iter_rows():
        t.add_row(*(f"{v:g}" if isinstance(v, float) else str(v) for v in row[:-1]),
                  f"{row[-1]:.3f}")
    echo_table(t)


def seed002(
    out: Annotated[Path, typer.Option(help="Output folder (also caches the features).")],
    data_dir: Annotated[Path | None, typer.Option(help=_DATA_HELP)] = None,
    seed: Annotated[int, typer.Option(help=_SEED_HELP, min=0)] = 0,
    repetitions: Annotated[int, typer.Option(help="Noisy runs per setting (paper: 100).")] = 1,
    subsample_lopo: Annotated[int, typer.Option(
        help="One window in N for document / gender (paper: 10).")] = 30,
    subsample_person: Annotated[int, typer.Option(
        help="One window in N for person id (paper: 5).")] = 15,
    classifier: Annotated[list[str] | None, typer.Option(
        help="svm, dt, rf, knn (repeatable; default all four).")] = None,
    sensitivity: Annotated[list[str] | None, typer.Option(
        help="per-document (our reading of the paper: it states per-document runs for the "
             "utility part only) and/or uniform (one sensitivity for all recordings); "
             "repeatable, default both.")] = None,
    method: Annotated[list[str] | None, typer.Option(
        help="FPA, CFPA-32/64/128, DCFPA-32/64/128 (repeatable; default all seven).")] = None,
    epsilon: Annotated[list[float] | None, typer.Option(
        help="Epsilons (repeatable; default the paper's 0.48 2.4 4.8 24 48).")] = None,
    overwrite: Annotated[bool, typer.Option(help=_RESUME_HELP)] = False,
) -> None:
    """Bozkir et al. (PLOS ONE 2021): LPA / FPA / CFPA / DCFPA on MPIIDPEye, Tables 1-3."""
    from gazeprivacy.experiments.reproduce.seed002 import reproduce_seed002

    kw: dict[str, Any] = {"classifiers": tuple(classifier)} if classifier else {}
    if sensitivity:
        kw["sensitivities"] = tuple(sensitivity)
    if method:
        kw["methods"] = kw["utility_methods"] = tuple(method)
    if epsilon:
        kw["epsilons"] = tuple(epsilon)
    _resumable(out, data_dir or _default_data_dir(), overwrite)
    table = reproduce_seed002(out, data_dir=data_dir or _default_data_dir(), rng=make_rng(seed),
                              repetitions=repetitions, subsample_lopo=subsample_lopo,
                              subsample_person=subsample_person, **kw)
    if "method" in table.columns and "task" in table.columns:
        _print_accuracy(table.filter(table["classifier"] == "svm") if "classifier" in
                        table.columns else table, ["task", "method", "sensitivity", "epsilon"])
    say(f"results.parquet, report.html, tables (seed002_tables.md) and plots in {out}")


def seed004(
    out: Annotated[Path, typer.Option(help="Output folder (also caches the features).")],
    data_dir: Annotated[Path | None, typer.Option(help=_DATA_HELP)] = None,
    seed: Annotated[int, typer.Option(help=_SEED_HELP, min=0)] = 0,
    repetitions: Annotated[int, typer.Option(help="Noisy runs per setting (paper: 5).")] = 1,
    protocol_subsample: Annotated[int, typer.Option(
        help="Further window subsampling in the classifier protocols.")] = 2,
    balanced: Annotated[bool, typer.Option(
        help="Equal windows per class in every task, as the paper sampled them.")] = True,
    epsilon: Annotated[list[float] | None, typer.Option(
        help="Per-feature eps_i (repeatable; default 1 5 10 15 20 30 40 50).")] = None,
    overwrite: Annotated[bool, typer.Option(help=_RESUME_HELP)] = False,
) -> None:
    """Steil et al. (ETRA 2019): the exponential-mechanism method on MPIIDPEye, Figs 6-8."""
    from gazeprivacy.experiments.reproduce.seed004 import reproduce_seed004

    _resumable(out, data_dir or _default_data_dir(), overwrite)
    table = reproduce_seed004(out, data_dir=data_dir or _default_data_dir(), rng=make_rng(seed),
                              repetitions=repetitions, protocol_subsample=protocol_subsample,
                              balanced=balanced, **({"epsilons": tuple(epsilon)} if epsilon
                                                    else {}))
    if {"task", "method", "epsilon", "threat_model"} <= set(table.columns):
        _print_accuracy(table.filter(table["majority_vote"]) if "majority_vote" in
                        table.columns else table, ["threat_model", "task", "method", "epsilon"])
    say(f"results.parquet, report.html, tables (seed004_tables.md) and plots in {out}")


# name -> (command, old internal name, one-line help). Names: the paper's first author and year.
PAPERS: dict[str, tuple[Callable[..., None], str, str]] = {
    "ren-2025-dpgazesynth": (seed000, "seed000", "Ren, Fan et al. 2025 (DPGazeSynth): Fig. 2, "
                             "Tables 2-4 on DOVES, VR, GazeGraph"),
    "david-john-2023": (seed001, "seed001", "David-John, Butler, Jain 2023 (TVCG): Tables 3-4, "
                        "Figs 1, 4, 8 on VR, GazeGraph, MPIIDPEye"),
    "bozkir-2021": (seed002, "seed002", "Bozkir et al. 2021 (PLOS ONE): LPA/FPA/CFPA/DCFPA on "
                    "MPIIDPEye, Tables 1-3"),
    "liu-2019": (seed003, "seed003", "Liu et al. 2019 (ETRA): DP heatmaps, Figure 3 on OSIE "
                 "and FIGRIM"),
    "steil-2019": (seed004, "seed004", "Steil et al. 2019 (ETRA): exponential mechanism on "
                   "MPIIDPEye, Figs 6-8"),
}


def _deprecated_alias(fn: Callable[..., None], old: str, new: str) -> Callable[..., None]:
    @functools.wraps(fn)
    def alias(**kwargs: Any) -> None:
        say(f"note: 'reproduce {old}' is deprecated; it is now 'reproduce {new}'")
        fn(**kwargs)

    return alias


def register(group: typer.Typer) -> None:
    """Add one subcommand per paper to ``group``, and the hidden deprecated seedNNN aliases."""
    for name, (fn, _old, short) in PAPERS.items():
        group.command(name, short_help=short)(fn)
    for name, (fn, old, _short) in PAPERS.items():
        group.command(old, hidden=True)(_deprecated_alias(fn, old, name))
