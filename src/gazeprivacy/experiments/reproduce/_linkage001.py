# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Seed 001's linkage attack above 1 / k: its three causes, each measured by ablation.

On MPIIDPEye (gender k-anonymous, k-same-synth gaze per document) the gender + gaze linkage stays
above the 1 / k bound at k = 6 and 8. Three causes, each removed one at a time:

1. **Groups drawn without regard to gender** (the cause the doc named first): a target whose
   k-group partners have the other gender is singled out by gender and gaze together. Ablation
   ``gender-groups``: k-same-synth groups drawn within each gender.
2. **Groups redrawn per document**: k-same-synth groups per ``group_by`` value (the document),
   so a participant's gallery recordings of two documents are means with *different* partners;
   the only thing they share is the participant. Ablation ``same-groups``: the same groups for
   every document (each document released with the same group draw, participants in one order).
3. **Timing and blink gaps in the attacker's features**: k-same-synth keeps each recording's own
   event timing and missing-sample gaps, which the attacker's window features read
   (``missing_fraction``; the saccade share and the high speed percentiles follow the event
   timing). Ablation on the attacker's side: the same attack without ``missing_fraction``
   (``no-gaps``), without the timing features ``saccadic_fraction, speed_p90, speed_p99``
   (``no-timing``), or without both.

Protocol as in :func:`~gazeprivacy.experiments.learned.linkage_metrics` (threat ``seed001``:
the gallery is the release of two documents, the probes the raw third document; splits by
document), with the biometric of :func:`~gazeprivacy.attacks.linkage.linkage_attack` (a random
forest on :func:`~gazeprivacy.features.summary.window_summary_features`, scores averaged over a
probe's windows, restricted to the target's gender class) on a chosen subset of its columns.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl
from sklearn.ensemble import RandomForestClassifier

from gazeprivacy.attacks.linkage import generalise_k_anonymous
from gazeprivacy.attacks.splits import recording_index, split_recordings
from gazeprivacy.data.recording import Dataset
from gazeprivacy.events import detect_events_dataset
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.features.summary import SUMMARY_FEATURES, window_summary_features
from gazeprivacy.mechanisms.samples.k_same_synth import KSameSynthParams, k_same_synth
from gazeprivacy.rng import seed_for_sklearn

__all__ = ["FEATURE_SETS", "RELEASES", "linkage_ablation", "release_variant"]

#: release variants: the reproduction's (groups per document, any gender) and the ablations
RELEASES = ("paper", "same-groups", "gender-groups", "same-and-gender-groups")
_TIMING = ("saccadic_fraction", "speed_p90", "speed_p99")
#: attacker feature sets: name -> columns of SUMMARY_FEATURES left out
FEATURE_SETS: dict[str, tuple[str, ...]] = {
    "all": (), "no-gaps": ("missing_fraction",), "no-timing": _TIMING,
    "no-gaps-no-timing": ("missing_fraction", *_TIMING)}


def release_variant(dataset: Dataset, *, k: int, variant: str, label: str,
                    rng: np.random.Generator, events: pl.DataFrame | None = None) -> Dataset:
    """k-same-synth (``group_by=label``) of ``dataset`` in one of :data:`RELEASES`.

    ``same-groups`` releases each ``label`` value alone with the same generator seed and the
    participants in one order, so every value gets the same groups; ``gender-groups`` releases
    each gender alone (groups within a gender).
    """
    if variant not in RELEASES:
        raise InvalidDataError(f"release variant must be one of {RELEASES}, got {variant!r}")
    params = KSameSynthParams(k=k, group_by=label)
    by_gender = variant in ("gender-groups", "same-and-gender-groups")
    same = variant in ("same-groups", "same-and-gender-groups")
    parts = ([dataset] if not (by_gender or same) else
             _split(dataset, gender=by_gender, label=label if same else None))
    seed = int(rng.integers(2**63))
    out = {}
    for i, part in enumerate(parts):
        part_rng = np.random.default_rng(seed if same else [seed, i])
        ev = None if events is None else events.filter(
            pl.col("recording").is_in([r.recording for r in part]))
        rel = k_same_synth(part, params, rng=part_rng, events=ev)
        out.update({r.recording: r for r in rel.output})
    return Dataset(tuple(out[r.recording] for r in dataset.recordings), name=dataset.name)


def _split(dataset: Dataset, *, gender: bool, label: str | None) -> list[Dataset]:
    """Sub-datasets per (gender?, label value?), recordings in participant order."""
    keys: dict[tuple[str, ...], list] = {}
    for r in sorted(dataset.recordings, key=lambda r: r.participant):
        key = ((r.label("gender"),) if gender else ()) + ((r.label(label),) if label else ())
        keys.setdefault(key, []).append(r)
    return [Dataset(tuple(v), name=dataset.name) for _, v in sorted(keys.items())]


def _attack(gallery: Dataset, probes: Dataset, released: dict[str, tuple[str, ...]], *,
            window_s: float, rng: np.random.Generator) -> dict[str, tuple[float, float]]:
    """Per feature set: (success with gender + gaze, success with gaze only) over probes."""
    xg, yg, _ = window_summary_features(gallery, window_s=window_s)
    xp, yp, rp = window_summary_features(probes, window_s=window_s)
    seed = seed_for_sklearn(rng)
    out = {}
    for name, drop in FEATURE_SETS.items():
        cols = [i for i, f in enumerate(SUMMARY_FEATURES) if f not in drop]
        clf = RandomForestClassifier(n_estimators=200, random_state=seed)
        clf.fit(xg[:, cols], yg.astype(str))
        proba = clf.predict_proba(xp[:, cols])
        classes = clf.classes_
        both, gaze = [], []
        for rid in dict.fromkeys(rp):
            rows = rp == rid
            truth = str(yp[rows][0])
            score = proba[rows].mean(axis=0)
            cand = np.array([released.get(c) == released[truth] for c in classes])
            both.append(classes[int(np.argmax(np.where(cand, score, -1.0)))] == truth)
            gaze.append(classes[int(np.argmax(score))] == truth)
        out[name] = (float(np.mean(both)), float(np.mean(gaze)))
    return out


def linkage_ablation(dataset: Dataset, *, ks: Sequence[int], rng: np.random.Generator,
                     label: str = "document", n_splits: int = 3, test_fraction: float = 0.34,
                     window_s: float = 10.0, releases: Sequence[str] = RELEASES,
                     ) -> pl.DataFrame:
    """Linkage success per k x release variant x attacker feature set (module docstring).

    Returns rows ``k, release, features, metric, value`` with metrics
    ``success_quasi_and_gaze``, ``success_gaze_only`` (means over ``n_splits`` splits by
    ``label``), ``quasi_only`` (mean 1 / class size) and ``bound`` (1 / k); raw gaze as the
    gallery is the release ``raw``. A variant k-same-synth cannot release (e.g. groups within a
    gender that has fewer than k people) has no rows.
    """
    quasi = {r.participant: {"gender": r.label("gender")} for r in dataset.recordings}
    events = detect_events_dataset(dataset, method="ivt")  # seed 001's events, fitted once
    index = recording_index(dataset, group_label=label)
    rows: list[dict] = []
    for k in ks:
        released, _ = generalise_k_anonymous(quasi, ["gender"], k=k)
        sizes = [sum(1 for v in released.values() if v == released[p]) for p in quasi]
        for variant in ("raw", *releases):
            r_rel, r_split = rng.spawn(2)
            try:
                gallery_side = dataset if variant == "raw" else release_variant(
                    dataset, k=k, variant=variant, label=label, rng=r_rel, events=events)
            except InvalidDataError:  # e.g. a gender with fewer than k people: no such release
                continue
            acc: dict[str, list[tuple[float, float]]] = {}
            for child in r_split.spawn(n_splits):
                split = split_recordings(index, test_fraction=test_fraction, rng=child)
                train, test = set(split.train), set(split.test)
                gallery = gallery_side.select(lambda r, s=train: r.recording in s)
                probes = dataset.select(lambda r, s=test: r.recording in s)
                for name, v in _attack(gallery, probes, released, window_s=window_s,
                                       rng=child).items():
                    acc.setdefault(name, []).append(v)
            for name, vals in acc.items():
                base = {"k": k, "release": variant, "features": name}
                rows += [{**base, "metric": "success_quasi_and_gaze",
                          "value": float(np.mean([v[0] for v in vals]))},
                         {**base, "metric": "success_gaze_only",
                          "value": float(np.mean([v[1] for v in vals]))},
                         {**base, "metric": "quasi_only", "value": float(np.mean(
                             [1.0 / s for s in sizes]))},
                         {**base, "metric": "bound", "value": 1.0 / k}]
    return pl.DataFrame(rows)
