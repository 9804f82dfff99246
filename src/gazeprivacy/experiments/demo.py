# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The demo run (``gazeprivacy demo --out DIR``): every sample-level mechanism on the bundled
DOVES sample at epsilon 1, 2, 3 (participant-synth at epsilon 3 per participant) beside the four
data-free baselines (screen centre, uniform points, the centre-bias Gaussian, the simulator
prior: :mod:`gazeprivacy.experiments.baselines`), the raw-trained RBFN re-identification attack
and the mechanism-aware attacker (a random forest trained on the release itself,
:mod:`gazeprivacy.attacks.aware`, on half as many splits for time), the EKYT-style deep attacker
trained on the release (:mod:`gazeprivacy.attacks.deep`) on a small budget
(:data:`DEMO_DEEP_BUDGET`: one split, 1 s windows, 12 epochs of at most 192 windows, so it is
weaker here than fully trained in the runner; skipped with a note without PyTorch), the fidelity
metrics, the realism of each release (a discriminator's AUC, the main sequence, event
distributions, train on release / test on raw: :mod:`gazeprivacy.metrics.realism`), the results
table and the HTML report, whose first screen gives each release's strongest attack against
chance and the metrics that beat the baselines. participant-synth's release is a synthetic
population (new observers and recordings): nothing in it belongs to an input observer, so
instead of the re-identification attacks it faces membership inference on a held-out split
(:mod:`gazeprivacy.experiments.engine.population`; the raw data's row is the reference).

The demo is an ordinary experiment built in code (:func:`demo_config`) and run by
:func:`~gazeprivacy.experiments.engine.run_experiment`; with no mechanism registered it still
summarises the data, attacks the raw data and writes the report. Budget: under 3 minutes on two
cores (the raw event features are computed once, each release's once).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gazeprivacy.data.recording import Dataset
from gazeprivacy.experiments.config import ExperimentConfig, parse_config
from gazeprivacy.experiments.engine import ExperimentResult, Featurizer, run_experiment
from gazeprivacy.mechanisms.contract import Level
from gazeprivacy.report.html import build_report

__all__ = ["DEMO_DEEP_BUDGET", "DEMO_EPSILONS", "DEMO_PARTICIPANT_LEVEL", "DEMO_SETTINGS",
           "demo_config", "run_demo"]

DEMO_EPSILONS = (1.0, 2.0, 3.0)

#: The deep attacker's budget in the demo (2-3 s of one core per cell on the sample, plus
#: importing PyTorch once per worker; docs/attacks.md gives the measured demo times).
DEMO_DEEP_BUDGET: Mapping[str, Any] = {"n_splits": 1, "window_s": 1.0, "epochs": 12,
                                       "max_windows": 192}

#: What the demo runs, per registered sample-level mechanism: the DP mechanisms in sound mode
#: (what a user gets by default) at each epsilon, the event synthesisers at one paper setting.
#: Privacy parameters have no library defaults, so the demo names all of them here.
#: Kaleido: r = 2 deg, "the typical spatial dispersion of a fixation" (seed 001, 4.3.4), and
#: w = 0.5 s (seed 000, 5.1). DPGazeSynth: G = 60 (seed 000). k-same-synth: k = 4 and
#: event-synth-PD: k = 2, gamma = 2 (seed 001, Table 3), with a short C-VAE training for time.
#: participant-synth: epsilon 3 per participant (all of a participant's recordings), delta 1e-6,
#: the image declared public (one synthetic recording per synthetic observer and image) and a
#: public length of 5 s (the sample's recordings are 5.1-5.2 s); its release is a new population,
#: so the runner replaces the re-identification attacks by membership inference on a held-out
#: split (:mod:`gazeprivacy.experiments.engine.population`).
DEMO_SETTINGS: Mapping[str, Mapping[str, Any]] = {
    "dpgazesynth": {"preset": "params", "grid": "epsilon", "fixed": {"grid_size": 60}},
    "kaleido": {"preset": "params", "grid": "epsilon",
                "fixed": {"radius_deg": 2.0, "window_s": 0.5}},
    "k-same-synth": {"preset": "params", "grid": {"k": [4]}, "fixed": {}},
    "event-synth-pd": {"preset": "params", "grid": {"k": [2]},
                       "fixed": {"gamma": 2.0, "mode": "paper", "cvae_epochs": 20}},
    "participant-synth": {"preset": "params", "grid": {"epsilon_per_participant": [3.0]},
                          "fixed": {"delta": 1e-6, "output_length_s": 5.0,
                                    "public_labels": ["stimulus"]}},
}


#: DPGazeSynth also runs at the participant level (the issue-15 mode): a budget of 3 per
#: participant spent on m = 2 windows drawn at random, paths synthesised from the population
#: model (docs/privacy/dpgazesynth.md), so the record's per-participant epsilon is bounded.
DEMO_PARTICIPANT_LEVEL: Mapping[str, Any] = {
    "name": "dpgazesynth", "label": "dpgazesynth-participant", "preset": "params",
    "grid": {"epsilon": [3.0]},
    "fixed": {"grid_size": 60, "unit": "participant", "windows_per_participant": 2}}


def _entry(name: str, settings: Mapping[str, Any], epsilons: Sequence[float]) -> dict[str, Any]:
    grid = settings["grid"]
    grid = {"epsilon": list(epsilons)} if grid == "epsilon" else {k: list(v)
                                                                  for k, v in grid.items()}
    return {"name": name, "preset": settings["preset"], "grid": grid,
            "fixed": dict(settings["fixed"])}


def demo_config(mechanisms: Sequence[str], *, seed: int,
                settings: Mapping[str, Mapping[str, Any]] = DEMO_SETTINGS,
                dataset_name: str = "doves-sample",
                source: str = "sample", epsilons: Sequence[float] = DEMO_EPSILONS,
                n_splits: int = 20, workers: int = 2,
                group_label: str | None = "stimulus") -> ExperimentConfig:
    """The demo's experiment: each of ``mechanisms`` as ``settings`` says.

    >>> cfg = demo_config(["dpgazesynth"], seed=1)
    >>> [c.label or c.name for c in cfg.mechanisms], cfg.mechanisms[0].grid["epsilon"]
    (['dpgazesynth', 'dpgazesynth-participant'], (1.0, 2.0, 3.0))
    """
    return parse_config({
        "name": "demo",
        "seeds": [int(seed)],
        "workers": workers,
        "datasets": [{"name": dataset_name, "source": source, "group_label": group_label}],
        "mechanisms": [*(_entry(m, settings[m], epsilons) for m in mechanisms),
                       *([dict(DEMO_PARTICIPANT_LEVEL)] if "dpgazesynth" in mechanisms else [])],
        "attacks": [{"kind": "reidentification", "classifier": "rbfn", "threat": "seed000",
                     "n_splits": n_splits},
                    {"kind": "aware-rf", "threat": "seed004",
                     "n_splits": max(1, n_splits // 2)},
                    {"kind": "deep", "threat": "seed004", **DEMO_DEEP_BUDGET}],
        "baselines": True,
        "utility": [{"kind": "task", "label": "task"}],
        "fidelity": ["rmse", "rss_distance", "density_error", "suppressed_fraction"],
        # realism of every release (gazeprivacy.metrics.realism); DOVES' task is constant, so
        # train-on-release / test-on-raw runs on the image (stimulus) label there
        "realism": {"labels": ["task", "stimulus"], "n_splits": 3, "n_trees": 30},
    })


def run_demo(out_dir: str | Path, *, rng: np.random.Generator,
             dataset: Dataset | None = None, registry: Mapping[str, Any] | None = None,
             featurizer: Featurizer | None = None, epsilons: Sequence[float] = DEMO_EPSILONS,
             n_splits: int = 20, workers: int = 2, group_label: str | None = "stimulus",
             progress: bool = False, settings: Mapping[str, Mapping[str, Any]] | None = None,
             ) -> tuple[ExperimentResult, Path]:
    """Run the demo into ``out_dir``; returns the run and the report's path.

    Parameters
    ----------
    out_dir : path
        Output folder (``results.parquet``, ``guarantees.json``, ``report.html``, figures).
    rng : numpy.random.Generator
        Source of the run's seed (recorded in every guarantee record).
    dataset : Dataset, optional
        Default: the bundled DOVES sample (:func:`gazeprivacy.data.sample.load_sample`).
    registry : mapping, optional
        Mechanisms (default ``MECHANISMS``); every entry whose level takes
        gaze samples (samples, events) is run.
    featurizer : callable, optional
        Event features of a dataset (default: I-VT + George & Routray features).
    epsilons : sequence of float
    n_splits : int
        Re-identification splits (20 as in the papers).
    workers : int
        Worker processes.
    group_label : str or None
        Label the attack splits by (DOVES: the image, ``stimulus``).
    progress : bool
        Rich progress bar on stderr.
    settings : mapping, optional
        Per-mechanism demo settings (default :data:`DEMO_SETTINGS`); a registered sample-level
        mechanism without an entry is left out with a note.
    """
    settings = DEMO_SETTINGS if settings is None else settings
    if registry is None:
        from gazeprivacy.mechanisms import MECHANISMS

        registry = MECHANISMS
    names, skipped = [], []
    for name, spec in registry.items():
        if not Level(getattr(spec, "level", Level.HEATMAP)).takes_samples:
            continue
        if name not in settings:
            skipped.append(f"mechanism {name!r} left out of the demo: it has no entry in "
                           "DEMO_SETTINGS (privacy parameters are never chosen silently)")
            continue
        names.append(name)
    seed = int(rng.integers(0, 2**31 - 1))
    if dataset is None:
        cfg = demo_config(names, seed=seed, settings=settings, epsilons=epsilons,
                          n_splits=n_splits, workers=workers, group_label=group_label)
        datasets = None
    else:
        cfg = demo_config(names, seed=seed, settings=settings, dataset_name=dataset.name,
                          source="injected",
                          epsilons=epsilons, n_splits=n_splits, workers=workers,
                          group_label=group_label)
        datasets = {dataset.name: dataset}
    result = run_experiment(cfg, out_dir, registry=registry, datasets=datasets,
                            featurizer=featurizer, progress=progress)
    result.raise_failures()
    result.notes[:0] = skipped
    report = build_report(out_dir, title="gazeprivacy demo")
    return result, report
