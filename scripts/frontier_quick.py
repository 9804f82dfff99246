# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""A quick look at the frontier: participant-synth against the data-free baselines, no attacks.

The development loop of the frontier protocol (``docs/results/frontier.md`` runs the whole
thing through ``gazeprivacy evaluate configs/frontier-<data>.toml``): the same split
(:func:`gazeprivacy.experiments.frontier.frontier_split` with the holdout and probe fractions
of ``configs/frontier-<data>.toml``: :func:`split_fractions`; its own draws), the same
held-out scoring (:func:`~gazeprivacy.experiments.frontier.frontier_metrics`) without the
membership and attribute attacks, for a few seeds, printed as mean +- SE and the paired
difference to the best data-free baseline.

Run (real data in ``$GAZEPRIVACY_DATA``)::

    PYTHONPATH=src python scripts/frontier_quick.py vr --eps 3 10 --seeds 0 1 2
    PYTHONPATH=src python scripts/frontier_quick.py doves --metrics density density:stimulus
    PYTHONPATH=src python scripts/frontier_quick.py doves --recordings-per-participant 1 5 20
    PYTHONPATH=src python scripts/frontier_quick.py gazegraph --pilot
    PYTHONPATH=src python scripts/frontier_quick.py gazegraph --pilot 2
"""

from __future__ import annotations

import argparse
import time
import zlib
from dataclasses import replace
from pathlib import Path

import numpy as np

from gazeprivacy.data.loaders import load
from gazeprivacy.experiments.baselines import BASELINES, DEFAULT_BASELINES
from gazeprivacy.experiments.config import FrontierConfig, load_config
from gazeprivacy.experiments.frontier import (
    first_seconds,
    frontier_metrics,
    frontier_split,
    pilot_tracker,
)
from gazeprivacy.mechanisms.samples.participant_synth import (
    ParticipantSynthParams,
    participant_synth,
)

__all__ = ["DATA", "main", "split_fractions"]

#: name -> (loader, loader options, public label, output length s, first seconds kept)
DATA = {
    "vr": ("vr_selfcalib_office_supermarket", {}, "environment", 60.0, 60.0),
    "mpiidpeye": ("mpiidpeye", {}, "document", 60.0, 60.0),
    "gazegraph": ("gazegraph_desktop_activity", {}, "activity", 60.0, None),
    "doves": ("doves", {"images": [1, 9, 17, 25, 33, 41, 49, 57, 65, 73, 81, 89, 97]},
              "stimulus", 5.0, None),
}

_CONFIGS = Path(__file__).resolve().parent.parent / "configs"


def split_fractions(data: str) -> tuple[float, float]:
    """``(holdout_fraction, probe_fraction)`` of the frontier config of ``data``
    (``configs/frontier-<data>.toml``), so the loop holds out as many people as the frontier
    (which people is the loop's own draw: its split stream is not the runner's). Until
    2026-11-29 the loop held out 0.3 everywhere: 2 of GazeGraph's 8 people where the frontier
    holds out 3, and its GazeGraph discriminator readings swung with who the two were.

    >>> split_fractions("gazegraph"), split_fractions("vr")
    ((0.375, 0.34), (0.3, 0.34))
    """
    frontier = load_config(_CONFIGS / f"frontier-{data}.toml").frontier
    return frontier.holdout_fraction, frontier.probe_fraction


_METRICS = {"density": ("frontier:density", "density_error"),
            "density16": ("frontier:density-coarse", "density_error"),
            "disc": ("realism:discriminator", "discriminator_auc")}


def _keyed(rng: np.random.Generator, name: str) -> np.random.Generator:
    """A stream of ``rng``'s seed keyed by ``name``: each release is generated and scored from
    its own stream, whatever other releases (e.g. ``--baselines``) run beside it, so two runs
    of this script on different code are paired release by release."""
    seq = rng.bit_generator.seed_seq
    return np.random.default_rng(np.random.SeedSequence(
        seq.entropy, spawn_key=(*seq.spawn_key, zlib.crc32(name.encode())),
        pool_size=seq.pool_size))


def _value(out: dict, metric: str, label: str) -> float:
    if metric in ("task", "btask"):
        key = f"{label}:tstr-frontier"
        field = "accuracy" if metric == "task" else "balanced_accuracy"
    elif metric.startswith("density:"):
        key, field = f"frontier:{metric}", "density_error"
    elif metric.startswith("w1"):
        key, field = "realism:events", {"w1fix": "fixation_duration_w1_s",
                                        "w1sacc": "saccade_amplitude_w1_deg"}[metric]
    else:
        key, field = _METRICS[metric]
    _kind, values = out.get(key, ("", {}))
    return float(values.get(field, np.nan))


def _name(eps: float, n_out: int | None, per: int, args: argparse.Namespace) -> str:
    """``ps@<eps>``, with ``/n<participants>`` and ``/r<recordings>`` when several are asked."""
    name = f"ps@{eps:g}"
    if len(args.participants) > 1:
        name += f"/n{n_out if n_out is not None else 'in'}"
    if len(args.recordings_per_participant) > 1:
        name += f"/r{per}"
    return name


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", choices=sorted(DATA))
    ap.add_argument("--eps", type=float, nargs="*", default=[3.0, 10.0])
    ap.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2])
    ap.add_argument("--metrics", nargs="*", default=["density", "density16", "task", "disc",
                                                     "w1fix", "w1sacc"])
    ap.add_argument("--no-label", action="store_true", help="no public label (one population)")
    ap.add_argument("--baselines", nargs="*", default=list(DEFAULT_BASELINES[1:]))
    ap.add_argument("--participants", type=int, nargs="*", default=[None],
                    help="participant-synth's synthetic participants (default the input's "
                         "count); several values: one release each")
    ap.add_argument("--recordings-per-participant", type=int, nargs="*", default=[5],
                    help="participant-synth's recordings per participant and public label "
                         "value (default 5, as the frontier configs: docs/privacy/"
                         "participant-synth.md, Output size); several values: one release each")
    ap.add_argument("--pilot", type=int, nargs="?", const=1, default=0, metavar="K",
                    help="declare a pilot's tracker public: the first fitted participant (by "
                         "id; the split is random) leaves participant-synth's input and its "
                         "tracker is declared (the baselines keep the whole fitted set); "
                         "--pilot K: the first K, a declared population of K trackers")
    args = ap.parse_args(argv)
    loader, options, label, length_s, first_s = DATA[args.data]
    ds = first_seconds(load(loader, **options), first_s)
    labels = () if args.no_label else (label,)
    cfg = FrontierConfig(labels=(label,), n_trees=50, discriminator_splits=3)
    rows: dict[str, dict[str, list[float]]] = {}
    holdout, probes = split_fractions(args.data)
    for seed in args.seeds:
        split_rng, prot_rng, eval_rng = np.random.default_rng(seed).spawn(3)
        split = frontier_split(ds, rng=split_rng, holdout_fraction=holdout,
                               probe_fraction=probes)
        memo: dict = {}
        releases = {b: BASELINES[b].release(split.fit, rng=_keyed(prot_rng, b))
                    for b in args.baselines}
        releases["raw"] = split.fit
        fit, tracker = pilot_tracker(split.fit, args.pilot) if args.pilot else (split.fit, None)
        for eps in args.eps:
            # one model per epsilon: participant-synth's noise comes from its curator stream,
            # which the output structure does not touch, so every structure below is rendered
            # from the same noisy model (the differences are the rendering's)
            seq = _keyed(prot_rng, f"ps@{eps}").bit_generator.seed_seq
            for n_out in args.participants:
                for per in args.recordings_per_participant:
                    p = ParticipantSynthParams(epsilon_per_participant=eps, delta=1e-6,
                                               output_length_s=length_s, public_labels=labels,
                                               n_participants=n_out,
                                               recordings_per_participant=per,
                                               tracker=tracker)
                    name = _name(eps, n_out, per, args)
                    t0 = time.perf_counter()
                    rng = np.random.default_rng(np.random.SeedSequence(
                        seq.entropy, spawn_key=seq.spawn_key, pool_size=seq.pool_size))
                    releases[name] = participant_synth(fit, p, rng=rng).output
                    print(f"seed {seed} {name}: protect {time.perf_counter() - t0:.1f} s, "
                          f"{len(releases[name])} recordings", flush=True)
        for name, rel in releases.items():
            t0 = time.perf_counter()
            out = frontier_metrics(replace(cfg), split, rel, attacks=(), attribute_of={},
                                   rng=_keyed(eval_rng, name), notes=[], memo=memo)
            if name.startswith("ps@"):
                print(f"seed {seed} {name}: score {time.perf_counter() - t0:.1f} s", flush=True)
            row = rows.setdefault(name, {})
            for m in args.metrics:
                row.setdefault(m, []).append(_value(out, m, label))
    print(f"\n{args.data}: seeds {args.seeds}, label {labels or 'none'}")
    print("release".ljust(28) + "".join(m.rjust(20) for m in args.metrics))
    base = [b for b in args.baselines]
    for name, row in rows.items():
        cells = []
        for m in args.metrics:
            v = np.array(row[m])
            se = v.std(ddof=1) / np.sqrt(v.size) if v.size > 1 else np.nan
            cells.append(f"{np.nanmean(v):.3f}+-{se:.3f}".rjust(20))
        print(name.ljust(28) + "".join(cells))
    print("\npaired difference (release - best baseline by mean; negative = better for "
          "density / disc / w1), mean +- SE over seeds:")
    for name in rows:
        if name in base:
            continue
        cells = []
        for m in args.metrics:
            sign = 1 if m in ("task", "btask") else -1
            best = max(base, key=lambda b: sign * np.nanmean(rows[b][m]))
            d = np.array(rows[name][m]) - np.array(rows[best][m])
            se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else np.nan
            cells.append(f"{d.mean():+.3f}+-{se:.3f}".rjust(20))
        print(name.ljust(28) + "".join(cells))
    _paired_structures(rows, args.metrics)


def _paired_structures(rows: dict[str, dict[str, list[float]]], metrics: list[str]) -> None:
    """With several structures: each one's paired difference to the first structure at the
    same epsilon (the same noisy model, rendered differently), mean +- SE over seeds."""
    firsts: dict[str, str] = {}
    for name in rows:
        if name.startswith("ps@") and "/" in name:
            firsts.setdefault(name.split("/")[0], name)
    if not firsts:
        return
    print("\npaired difference to the first structure at the same epsilon (same model):")
    for name in rows:
        first = firsts.get(name.split("/")[0])
        if first is None or name == first:
            continue
        cells = []
        for m in metrics:
            d = np.array(rows[name][m]) - np.array(rows[first][m])
            se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else np.nan
            cells.append(f"{np.nanmean(d):+.3f}+-{se:.3f}".rjust(20))
        print(f"{name} - {first}".ljust(28) + "".join(cells))


if __name__ == "__main__":
    main()
