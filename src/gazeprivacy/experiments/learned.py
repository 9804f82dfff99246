# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Seed 001's learned evaluations inside the grid runner: gaze prediction, sequence-model
activity recognition and the demographic linkage attack.

The engine calls :func:`learned_utility_metrics` for each ``[[utility]]`` entry of kind
``gaze-prediction`` / ``activity-sequence`` and :func:`linkage_metrics` for each ``[[attacks]]``
entry of kind ``linkage``; both return ``{metric: value}`` for one cell.

* **Splits.** Participants are held out: each of ``n_splits`` splits puts ``test_fraction`` of
  them (at least one, at least one left to train) on the test side. The split and the model's
  torch seed come from the utility's stream, which every cell of a seed shares, so the raw cell
  and each protected cell train on the same participants with the same initialisation.
* **Sides.** The threat model names which side is protected (default ``seed001``: train on the
  release, test on raw held-out participants); the raw cell uses raw data on both sides.
* **Reference levels** are separate metrics in every cell, so a protected row can be read alone:
  gaze prediction ``baseline_error_deg`` (predict no movement, on the same test windows) and
  ``raw_error_deg`` (the model trained on raw data, same split and seed); activity ``chance``
  (majority share of the test windows), ``uniform_chance`` (1 / classes) and ``raw_accuracy``;
  linkage ``bound`` (1 / k) and ``quasi_only`` (a uniform guess within the candidate class).
  The raw-trained reference is computed once per (dataset, seed, utility) and cached under
  ``OUT/cache/`` (deterministic, so a race between workers only costs time).
* **Averaging.** Metrics are means over splits.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict
from pathlib import Path

import numpy as np

from gazeprivacy.attacks.linkage import linkage_attack
from gazeprivacy.attacks.splits import recording_index, split_recordings
from gazeprivacy.attacks.threat import THREAT_MODELS, ThreatModel
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.experiments.config import AttackConfig, UtilityConfig

__all__ = ["HEAD_CHANNELS", "learned_utility_metrics", "linkage_metrics", "participant_splits",
           "resolve_channels"]

#: channels used as extra model input by ``channels = "auto"`` where every recording has them
HEAD_CHANNELS = ("head_yaw_deg", "head_pitch_deg")


def resolve_channels(u: UtilityConfig, *datasets: Dataset | None) -> tuple[str, ...]:
    """The extra input channels: ``u.channels`` or, for ``"auto"``, the head orientation
    channels present in every recording of every given dataset."""
    present = [d for d in datasets if d is not None]
    if u.channels != "auto":
        for d in present:
            for r in d:
                missing = [c for c in u.channels if c not in r.channels]
                if missing:
                    raise InvalidDataError(f"utility {u.id}: recording {r.recording!r} of "
                                           f"{d.name!r} lacks channel(s) {missing}; use "
                                           "channels = 'auto' or [] (gaze only)")
        return tuple(u.channels)
    return tuple(c for c in HEAD_CHANNELS
                 if all(c in r.channels for d in present for r in d))


def participant_splits(participants: tuple[str, ...], *, n_splits: int, test_fraction: float,
                       rng: np.random.Generator) -> list[tuple[set[str], set[str]]]:
    """``n_splits`` random (train, test) participant sets; test gets ``round(test_fraction n)``
    participants, at least one, and train keeps at least one.

    >>> s = participant_splits(("a", "b", "c", "d"), n_splits=2, test_fraction=0.25,
    ...                        rng=np.random.default_rng(0))
    >>> [len(te) for _, te in s], all(not (tr & te) for tr, te in s)
    ([1, 1], True)
    """
    n = len(participants)
    if n < 2:
        raise InvalidDataError(f"a participant-held-out split needs at least 2 participants, "
                               f"got {n}")
    n_test = min(n - 1, max(1, round(test_fraction * n)))
    out = []
    for _ in range(n_splits):
        perm = rng.permutation(n)
        test = {participants[i] for i in perm[:n_test]}
        out.append((set(participants) - test, test))
    return out


def _sides(threat: ThreatModel, raw: Dataset, prot: Dataset | None) -> tuple[Dataset, Dataset]:
    if prot is None:
        return raw, raw
    pick = {"raw": raw, "protected": prot}
    return pick[threat.train], pick[threat.test]


def _subset(ds: Dataset, recordings: set[str]) -> Dataset:
    return ds.select(lambda r: r.recording in recordings)


def _one_evaluation(u: UtilityConfig, raw: Dataset, train_side: Dataset, test_side: Dataset,
                    channels: tuple[str, ...], rng: np.random.Generator) -> dict[str, float]:
    """Metrics of ``u`` averaged over its participant splits (sides already chosen)."""
    from gazeprivacy.metrics.activity import ActivityClassifier, activity_recognition
    from gazeprivacy.metrics.gaze_prediction import GazePredictor, gaze_prediction_utility

    by_participant: dict[str, set[str]] = {}
    for r in raw:
        by_participant.setdefault(r.participant, set()).add(r.recording)
    splits = participant_splits(raw.participants, n_splits=u.n_splits,
                                test_fraction=u.test_fraction, rng=rng)
    acc: dict[str, list[float]] = {}
    for train_p, test_p in splits:
        train_recs = set().union(*(by_participant[p] for p in train_p))
        test_recs = set().union(*(by_participant[p] for p in test_p))
        tr, te = _subset(train_side, train_recs), _subset(test_side, test_recs)
        if u.kind == "gaze-prediction":
            model = GazePredictor() if u.epochs is None else GazePredictor(epochs=u.epochs)
            res = gaze_prediction_utility(
                tr, te, rng=rng, model=model, channels=channels,
                max_train_windows=u.max_train_windows, history_s=u.history_s,
                horizon_s=u.horizon_s, **({"stride_s": u.stride_s} if u.stride_s else {}))
            out = {"error_deg": res.model_error_deg, "baseline_error_deg": res.baseline_error_deg,
                   "n_train_windows": res.n_train_windows, "n_test_windows": res.n_test_windows,
                   "skipped_windows": res.skipped_windows}
        else:
            model = (ActivityClassifier() if u.epochs is None
                     else ActivityClassifier(epochs=u.epochs))
            res = activity_recognition(
                tr, te, u.label, rng=rng, model=model, channels=channels,
                max_train_windows=u.max_train_windows, window_s=u.window_s,
                **({"stride_s": u.stride_s} if u.stride_s else {}))
            out = {"accuracy": res.accuracy, "chance": res.chance,
                   "uniform_chance": 1.0 / res.n_classes, "n_train_windows": res.n_train_windows,
                   "n_test_windows": res.n_test_windows, "skipped_windows": res.skipped_windows}
        for k, v in out.items():
            acc.setdefault(k, []).append(float(v))
    return {k: float(np.mean(v)) for k, v in acc.items()}


def _reference_name(u: UtilityConfig) -> str:
    return "raw_error_deg" if u.kind == "gaze-prediction" else "raw_accuracy"


def _main_name(u: UtilityConfig) -> str:
    return "error_deg" if u.kind == "gaze-prediction" else "accuracy"


def learned_utility_metrics(u: UtilityConfig, raw: Dataset, prot: Dataset | None, *,
                            rng: np.random.Generator, cache_dir: str | Path | None = None,
                            cache_key: str = "") -> dict[str, float]:
    """One cell's metrics for a learned utility ``u`` (see the module docstring).

    Parameters
    ----------
    u : UtilityConfig
        Of kind ``gaze-prediction`` or ``activity-sequence``.
    raw, prot : Dataset
        The raw data and the protected release (None in the raw cell).
    rng : numpy.random.Generator
        The utility's stream; must be the same for every cell of a seed (so the raw reference
        is the raw cell's own result).
    cache_dir, cache_key : optional
        Where the raw-trained reference is cached, and a key naming dataset and seed.

    Raises
    ------
    InvalidDataError
        A label is missing (activity) or no usable windows / fewer than 2 participants.
    """
    if not u.learned:
        raise ValueError(f"utility {u.id} is not a learned utility")
    if u.kind == "activity-sequence":
        for r in raw:
            if u.label not in r.labels:
                raise InvalidDataError(f"utility {u.id}: recording {r.recording!r} has no label "
                                       f"{u.label!r}")
    channels = resolve_channels(u, raw, prot)
    state = rng.bit_generator.state
    if prot is None:
        metrics = _one_evaluation(u, raw, raw, raw, channels, rng)
        metrics[_reference_name(u)] = metrics[_main_name(u)]
        _cache_write(cache_dir, cache_key, u, channels, metrics[_main_name(u)])
        return metrics
    threat = THREAT_MODELS[u.threat]
    train_side, test_side = _sides(threat, raw, prot)
    metrics = _one_evaluation(u, raw, train_side, test_side, channels, rng)
    ref = _cache_read(cache_dir, cache_key, u, channels)
    if ref is None:
        again = np.random.default_rng()
        again.bit_generator.state = state  # replay the stream: the raw cell's exact run
        ref = _one_evaluation(u, raw, raw, raw, channels, again)[_main_name(u)]
        _cache_write(cache_dir, cache_key, u, channels, ref)
    metrics[_reference_name(u)] = ref
    return metrics


def _cache_file(cache_dir: str | Path | None, key: str, u: UtilityConfig,
                channels: tuple[str, ...]) -> Path | None:
    if cache_dir is None:
        return None
    text = json.dumps([key, asdict(u), list(channels)], sort_keys=True, default=str)
    return Path(cache_dir) / f"learned-raw-{hashlib.sha1(text.encode()).hexdigest()[:16]}.json"


def _cache_read(cache_dir: str | Path | None, key: str, u: UtilityConfig,
                channels: tuple[str, ...]) -> float | None:
    path = _cache_file(cache_dir, key, u, channels)
    if path is None or not path.is_file():
        return None
    return float(json.loads(path.read_text())["value"])


def _cache_write(cache_dir: str | Path | None, key: str, u: UtilityConfig,
                 channels: tuple[str, ...], value: float) -> None:
    path = _cache_file(cache_dir, key, u, channels)
    if path is None:
        return
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"utility": u.id, "key": key, "value": value}))
    os.replace(tmp, path)


def linkage_metrics(a: AttackConfig, raw: Dataset, prot: Dataset | None, *,
                    group_label: str | None, rng: np.random.Generator) -> dict[str, float]:
    """One cell's linkage-attack metrics, means over ``a.n_splits`` gallery / probe splits.

    The gallery is the threat model's train side (the attacker's labelled data: by default the
    protected release), the probes its test side; recordings are split by ``group_label``
    (e.g. document) or per participant. Metrics: ``success_quasi_and_gaze`` (the attack),
    ``success_gaze_only``, ``quasi_only`` (uniform guess within the class), ``bound`` (1 / k),
    ``mean_class_size``, ``n_suppressed`` (quasi-identifiers suppressed to reach k).

    Raises
    ------
    InvalidDataError
        A participant lacks a quasi-identifier, or fewer than k participants.
    """
    quasi: dict[str, dict[str, str]] = {}
    for r in raw:
        values = {q: r.labels.get(q) for q in a.quasi_identifiers}
        missing = [q for q, v in values.items() if v is None]
        if missing:
            raise InvalidDataError(f"attack {a.id}: recording {r.recording!r} lacks "
                                   f"quasi-identifier label(s) {missing}")
        old = quasi.setdefault(r.participant, values)
        if old != values:
            raise InvalidDataError(f"attack {a.id}: participant {r.participant!r} has "
                                   f"different quasi-identifiers in different recordings "
                                   f"({old} vs {values})")
    threat = THREAT_MODELS[a.threat] if prot is not None else ThreatModel.raw()
    gallery_side, probe_side = _sides(threat, raw, prot)
    index = recording_index(raw, group_label=group_label)
    acc: dict[str, list[float]] = {}
    for _ in range(a.n_splits):
        split = split_recordings(index, test_fraction=a.test_fraction, rng=rng)
        gallery = _subset(gallery_side, set(split.train))
        probes = _subset(probe_side, set(split.test))
        # probes of participants the gallery lacks cannot be linked; keep the others
        known = set(gallery.participants)
        probes = probes.select(lambda r, known=known: r.participant in known)
        res = linkage_attack(gallery, probes, quasi, list(a.quasi_identifiers), k=a.k,
                             rng=rng, window_s=a.window_s)
        for k, v in {"success_quasi_and_gaze": res.quasi_and_gaze,
                     "success_gaze_only": res.gaze_only, "quasi_only": res.quasi_only,
                     "bound": 1.0 / res.k, "mean_class_size": res.mean_class_size,
                     "n_suppressed": len(res.suppressed), "n_probes": res.n_probes}.items():
            acc.setdefault(k, []).append(float(v))
    return {k: float(np.mean(v)) for k, v in acc.items()}
