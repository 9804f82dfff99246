# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Is the public label in raw gaze at all? The frontier's task, trained on raw people.

The frontier's task target (``docs/results/frontier.md``) asks a release to carry its label:
a forest trained on the release's windows classifies held-out people's raw windows. A release
can recover at most what the raw copy carries, so before asking how much of the gap a release
recovers, ask whether raw gaze has one: this script trains the same kind of forest on the
frontier split's fitted people's **raw** windows and tests it on the held-out people's, per
feature group (:data:`~gazeprivacy.metrics.realism.WINDOW_FEATURE_GROUPS`) and window length.
Balanced accuracy (chance 1 / labels), mean +- SE over seeds, on the split of
``scripts/frontier_quick.py`` (the frontier config's fractions, the loop's own draws).

Run (real data in ``$GAZEPRIVACY_DATA``)::

    PYTHONPATH=src python scripts/task_in_raw.py vr --windows 1 5 15
    PYTHONPATH=src python scripts/task_in_raw.py mpiidpeye --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import polars as pl
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import balanced_accuracy_score

from gazeprivacy.data.loaders import load
from gazeprivacy.data.recording import Dataset
from gazeprivacy.experiments.frontier import first_seconds, frontier_split
from gazeprivacy.metrics.realism import (
    WINDOW_FEATURE_GROUPS,
    WINDOW_FEATURES,
    window_feature_table,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import frontier_quick as fq  # a script beside this one: the data sets and the split fractions

__all__ = ["FEATURE_SETS", "main", "raw_task"]

#: The feature sets read: every feature, each group alone, every feature but the positions.
FEATURE_SETS: Mapping[str, tuple[str, ...]] = {
    "all": WINDOW_FEATURES, **WINDOW_FEATURE_GROUPS,
    "all but position": tuple(f for f in WINDOW_FEATURES
                              if f not in WINDOW_FEATURE_GROUPS["position"])}


def raw_task(train: Dataset, test: Dataset, label: str, *, window_s: float,
             rng: np.random.Generator, n_trees: int = 200) -> dict[str, float]:
    """Balanced accuracy per :data:`FEATURE_SETS` of a forest trained on ``train``'s windows
    (labelled by their recordings' ``label``; windows of recordings without it are left out)
    and tested on ``test``'s; NaN when either side has fewer than two label values."""
    tables, labels = [], []
    for ds in (train, test):
        w = window_feature_table(ds, window_s=window_s)
        of = {r.recording: r.labels.get(label) for r in ds.recordings}
        y = np.array([of[r] for r in w["recording"].to_list()], dtype=object)
        has = np.array([v is not None for v in y], dtype=bool)
        tables.append(w.filter(pl.Series(has)))
        labels.append(y[has].astype(str))
    if min(np.unique(lab).size for lab in labels) < 2:
        return {name: float("nan") for name in FEATURE_SETS}
    out = {}
    seed = int(rng.integers(2 ** 31))
    for name, features in FEATURE_SETS.items():
        x_tr, x_te = (t.select(list(features)).to_numpy().astype(float) for t in tables)
        clf = RandomForestClassifier(n_trees, min_samples_leaf=3, n_jobs=1, random_state=seed)
        clf.fit(np.where(np.isfinite(x_tr), x_tr, np.nan), labels[0])
        pred = clf.predict(np.where(np.isfinite(x_te), x_te, np.nan))
        out[name] = float(balanced_accuracy_score(labels[1], pred))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", choices=sorted(fq.DATA))
    ap.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2, 3, 4])
    ap.add_argument("--windows", type=float, nargs="*", default=[1.0],
                    help="window lengths in seconds (the frontier's task reads 1 s)")
    args = ap.parse_args(argv)
    loader, options, label, _length_s, first_s = fq.DATA[args.data]
    ds = first_seconds(load(loader, **options), first_s)
    holdout, probes = fq.split_fractions(args.data)
    cells: dict[float, dict[str, list[float]]] = {w: {} for w in args.windows}
    for seed in args.seeds:
        split_rng, _prot, eval_rng = np.random.default_rng(seed).spawn(3)
        split = frontier_split(ds, rng=split_rng, holdout_fraction=holdout,
                               probe_fraction=probes)
        for w in args.windows:
            for name, v in raw_task(split.fit, split.held, label, window_s=w,
                                    rng=eval_rng).items():
                cells[w].setdefault(name, []).append(v)
    n_labels = len({r.labels.get(label) for r in ds.recordings})
    print(f"{args.data}: label {label!r} ({n_labels} values, chance {1 / n_labels:.3f}), "
          f"seeds {args.seeds}; balanced accuracy, trained on the fitted people's raw "
          "windows, tested on the held-out people's")
    print("features".ljust(20) + "".join(f"{w:g}-s windows".rjust(18) for w in args.windows))
    for name in FEATURE_SETS:
        row = []
        for w in args.windows:
            v = np.array(cells[w][name])
            se = v.std(ddof=1) / np.sqrt(v.size) if v.size > 1 else float("nan")
            row.append(f"{np.nanmean(v):.3f} +- {se:.3f}".rjust(18))
        print(name.ljust(20) + "".join(row))


if __name__ == "__main__":
    main()
