# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Re-identification from eye-movement events (George & Routray protocol; SPEC section 6).

George, A., Routray, A. A score level fusion method for eye movement biometrics. Pattern
Recognition Letters 82 (2016); as used by Ren, Fan et al. (DPGazeSynth, 5.2) and David-John,
Butler, Jain (TVCG 2023, 4.5.1).

Protocol, per random split of the recordings (:mod:`gazeprivacy.attacks.splits`; a recording is
never on both sides):

1. Events shorter than ``min_event_samples`` (4) are ignored.
2. One classifier per event type (fixation, saccade) is trained on the train side's events,
   with the participant as class.
3. Class scores (``predict_proba``) of the test side's events are averaged per event type over
   a test unit's events, then fused with weights (0.4 fixation, 0.6 saccade). A unit with no
   events of one type uses the other type alone; with none at all its scores are uniform.
4. The predicted identity is the largest fused score (ties broken at random).

Two units are scored: per participant -- the *identification rate* of David-John et al. (one
classification per participant from all of its test data) -- and per test recording, whose macro
F1 over participants is the F1 of Ren, Fan et al. Both are averaged over ``n_splits`` splits (20
in the papers). Which side is protected comes from a :class:`~gazeprivacy.attacks.threat.
ThreatModel`.

Deviation: George & Routray fuse scores per probe sequence; with one split per stimulus set the
participant-level score pools all of a participant's test recordings, as David-John et al.
describe.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import polars as pl
from sklearn.metrics import f1_score

from gazeprivacy._validation import check_int, check_positive
from gazeprivacy.attacks.classifiers import CLASSIFIERS, make_classifier
from gazeprivacy.attacks.splits import Split, split_recordings
from gazeprivacy.attacks.threat import ThreatModel
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.features.aggregate import feature_columns

__all__ = ["FUSION_WEIGHTS", "ReidentificationResult", "fuse_scores", "reidentification_attack",
           "reidentify_split"]

FUSION_WEIGHTS: Mapping[str, float] = {"fixation": 0.4, "saccade": 0.6}


@dataclass(frozen=True)
class SplitOutcome:
    """Scores of one split: identification rate, recording-level F1 and accuracy."""

    identification_rate: float
    f1_macro: float
    recording_accuracy: float
    n_test_participants: int
    n_test_recordings: int


@dataclass(frozen=True)
class ReidentificationResult:
    """Re-identification averaged over splits, with the chance level.

    ``identification_rate`` is top-1 per participant; ``f1_macro`` is macro F1 over
    participants of the per-recording predictions; ``chance`` is ``1 / n_classes``.
    """

    classifier: str
    threat: str
    identification_rate: float
    identification_rate_std: float
    f1_macro: float
    f1_macro_std: float
    recording_accuracy: float
    chance: float
    n_participants: int
    n_splits: int
    splits: tuple[SplitOutcome, ...] = field(repr=False, default=())

    def metrics(self) -> dict[str, float]:
        """Flat ``metric -> value`` for the results table."""
        return {"identification_rate": self.identification_rate,
                "f1_macro": self.f1_macro,
                "recording_accuracy": self.recording_accuracy,
                "chance": self.chance}


def fuse_scores(scores: Mapping[str, np.ndarray], present: Mapping[str, np.ndarray],
                weights: Mapping[str, float] = FUSION_WEIGHTS) -> np.ndarray:
    """Weighted average of per-event-type score matrices, renormalised over the present types.

    Parameters
    ----------
    scores : mapping event type -> array (n_units, n_classes)
        Mean class scores of each unit's events of that type.
    present : mapping event type -> bool array (n_units,)
        Whether a unit had events of that type.
    weights : mapping event type -> float

    Returns
    -------
    array (n_units, n_classes)
        Fused scores; a unit with no events of any type gets uniform scores.

    Examples
    --------
    >>> s = {"fixation": np.array([[1.0, 0.0]]), "saccade": np.array([[0.0, 1.0]])}
    >>> p = {"fixation": np.array([True]), "saccade": np.array([True])}
    >>> fuse_scores(s, p).round(2).tolist()
    [[0.4, 0.6]]
    >>> fuse_scores(s, {"fixation": np.array([True]), "saccade": np.array([False])}).tolist()
    [[1.0, 0.0]]
    """
    types = [t for t in scores if weights.get(t, 0.0) > 0]
    if not types:
        raise InvalidParameterError(
            f"no event type has a positive fusion weight: scores for {sorted(scores)}, weights "
            f"{dict(weights)}")
    n_units, n_classes = next(iter(scores.values())).shape
    total = np.zeros((n_units, n_classes))
    wsum = np.zeros(n_units)
    for t in types:
        w = float(weights[t]) * np.asarray(present[t], dtype=float)
        total += w[:, None] * scores[t]
        wsum += w
    out = np.full((n_units, n_classes), 1.0 / n_classes)
    ok = wsum > 0
    out[ok] = total[ok] / wsum[ok, None]
    return out


def _argmax_random(scores: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    out = np.empty(scores.shape[0], dtype=np.int64)
    for i, row in enumerate(scores):
        best = np.flatnonzero(row >= row.max() - 1e-12)
        out[i] = best[0] if best.size == 1 else rng.choice(best)
    return out


def _usable(table: pl.DataFrame, min_event_samples: int) -> pl.DataFrame:
    if "n_samples" in table.columns:
        table = table.filter(pl.col("n_samples") >= min_event_samples)
    return table


def _event_type_scores(tr: pl.DataFrame, te: pl.DataFrame, feats: list[str],
                       classes: np.ndarray, rec_pos: Mapping[str, int], rec_to_part: np.ndarray,
                       *, n_recs: int, n_parts: int, classifier: str,
                       rng: np.random.Generator
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One event type's classifier: summed class probabilities of each test recording and
    test participant, and how many events each sum holds (all zero when it cannot be fit)."""
    rs = np.zeros((n_recs, classes.size))
    rc = np.zeros(n_recs)
    ps = np.zeros((n_parts, classes.size))
    pc = np.zeros(n_parts)
    tr_classes = sorted(set(tr["participant"].to_list()))
    if len(tr_classes) >= 2 and te.height > 0:
        Xtr = tr.select(feats).cast(pl.Float64).fill_nan(None).to_numpy()
        Xtr = np.where(np.isfinite(Xtr), Xtr, np.nan)
        clf = make_classifier(classifier, rng=rng, n_train=Xtr.shape[0])
        clf.fit(Xtr, tr["participant"].to_numpy())
        Xte = te.select(feats).cast(pl.Float64).fill_nan(None).to_numpy()
        Xte = np.where(np.isfinite(Xte), Xte, np.nan)
        proba = clf.predict_proba(Xte)
        cols = np.searchsorted(classes, clf.classes_)
        full = np.zeros((Xte.shape[0], classes.size))
        full[:, cols] = proba
        ri = np.array([rec_pos[r] for r in te["recording"].to_list()], dtype=np.int64)
        np.add.at(rs, ri, full)
        np.add.at(rc, ri, 1.0)
        pi = rec_to_part[ri]
        np.add.at(ps, pi, full)
        np.add.at(pc, pi, 1.0)
    return rs, rc, ps, pc


def reidentify_split(train_events: pl.DataFrame, test_events: pl.DataFrame, split: Split, *,
                     classifier: str = "rbfn", weights: Mapping[str, float] = FUSION_WEIGHTS,
                     min_event_samples: int = 4, owners: Mapping[str, str] | None = None,
                     rng: np.random.Generator) -> SplitOutcome:
    """Run the attack on one split.

    ``train_events`` / ``test_events`` are per-event feature tables (already the raw or the
    protected side as the threat model says); only rows of ``split.train`` / ``split.test``
    recordings are used.
    """
    check_positive(**{"weights sum": float(sum(weights.values()))})
    train = _usable(train_events.filter(pl.col("recording").is_in(list(split.train))),
                    min_event_samples)
    test = _usable(test_events.filter(pl.col("recording").is_in(list(split.test))),
                   min_event_samples)
    feats = [c for c in feature_columns(train_events) if c in set(test_events.columns)]
    if not feats:
        raise InvalidDataError("train and test event tables share no feature column")
    classes = np.array(sorted(set(train["participant"].to_list())))
    if classes.size < 2:
        raise InvalidDataError(
            f"re-identification needs events of at least 2 participants on the train side, got "
            f"{classes.size}")
    # test units: the split's test recordings (also those without usable events)
    owner = dict(owners) if owners is not None else dict(zip(
        test_events["recording"].to_list(), test_events["participant"].to_list(), strict=True))
    test_recs = [r for r in split.test if r in owner]
    rec_pos = {r: i for i, r in enumerate(test_recs)}
    rec_truth = np.array([owner[r] for r in test_recs])
    parts = np.array(sorted(set(rec_truth.tolist())))
    part_pos = {p: i for i, p in enumerate(parts)}
    rec_to_part = np.array([part_pos[p] for p in rec_truth], dtype=np.int64)

    rec_scores: dict[str, np.ndarray] = {}
    rec_present: dict[str, np.ndarray] = {}
    part_scores: dict[str, np.ndarray] = {}
    part_present: dict[str, np.ndarray] = {}
    for et in weights:
        rs, rc, ps, pc = _event_type_scores(
            train.filter(pl.col("name") == et), test.filter(pl.col("name") == et), feats,
            classes, rec_pos, rec_to_part, n_recs=len(test_recs), n_parts=parts.size,
            classifier=classifier, rng=rng)
        rec_scores[et] = rs / np.maximum(rc, 1.0)[:, None]
        rec_present[et] = rc > 0
        part_scores[et] = ps / np.maximum(pc, 1.0)[:, None]
        part_present[et] = pc > 0

    pred_rec = classes[_argmax_random(fuse_scores(rec_scores, rec_present, weights), rng)]
    pred_part = classes[_argmax_random(fuse_scores(part_scores, part_present, weights), rng)]
    ident = float(np.mean(pred_part == parts)) if parts.size else float("nan")
    acc = float(np.mean(pred_rec == rec_truth)) if rec_truth.size else float("nan")
    f1 = (float(f1_score(rec_truth, pred_rec, labels=parts, average="macro", zero_division=0))
          if rec_truth.size else float("nan"))
    return SplitOutcome(ident, f1, acc, int(parts.size), len(test_recs))


def reidentification_attack(
    raw_events: pl.DataFrame,
    protected_events: pl.DataFrame | None,
    index: pl.DataFrame,
    *,
    threat: ThreatModel,
    rng: np.random.Generator,
    classifier: str = "rbfn",
    n_splits: int = 20,
    test_fraction: float = 0.25,
    weights: Mapping[str, float] = FUSION_WEIGHTS,
    min_event_samples: int = 4,
) -> ReidentificationResult:
    """Re-identification averaged over random splits under a threat model.

    Parameters
    ----------
    raw_events, protected_events : polars.DataFrame
        Per-event features of the raw and the protected dataset (same recording ids);
        ``protected_events`` may be None only for a threat model that uses raw data alone.
    index : polars.DataFrame
        The split universe (:func:`~gazeprivacy.attacks.splits.recording_index`).
    threat : ThreatModel
        Which side is protected.
    rng : numpy.random.Generator
        Drives the splits, the classifiers' seeds and tie-breaks.
    classifier : {"rbfn", "svm", "rf", "knn"}
    n_splits : int
        Random splits to average over (20 in seeds 000 / 001).
    test_fraction : float in (0, 1)
        Share of stimuli (or of each participant's recordings) on the test side.
    weights : mapping event type -> weight
        Score fusion (0.4 fixation, 0.6 saccade).
    min_event_samples : int
        Events with fewer samples are ignored (4, George & Routray).

    Returns
    -------
    ReidentificationResult
    """
    CLASSIFIERS[classifier]  # unknown names fail before any work
    check_int(n_splits=n_splits, minimum=1)
    for k, v in weights.items():
        check_positive(allow_zero=True, **{f"weights[{k!r}]": float(v)})
    if threat.uses_protected and protected_events is None:
        raise InvalidParameterError(
            f"threat model {threat.name!r} uses protected data, but protected_events is None")
    side = {"raw": raw_events, "protected": protected_events}
    owners = dict(zip(index["recording"].to_list(), index["participant"].to_list(), strict=True))
    outcomes = []
    for child in rng.spawn(n_splits):
        split = split_recordings(index, test_fraction=test_fraction, rng=child)
        outcomes.append(reidentify_split(side[threat.train], side[threat.test], split,
                                         classifier=classifier, weights=weights,
                                         min_event_samples=min_event_samples, owners=owners,
                                         rng=child))
    ident = np.array([o.identification_rate for o in outcomes])
    f1 = np.array([o.f1_macro for o in outcomes])
    acc = np.array([o.recording_accuracy for o in outcomes])
    n_part = index["participant"].n_unique()
    return ReidentificationResult(
        classifier=classifier, threat=threat.name,
        identification_rate=float(np.nanmean(ident)),
        identification_rate_std=float(np.nanstd(ident)),
        f1_macro=float(np.nanmean(f1)), f1_macro_std=float(np.nanstd(f1)),
        recording_accuracy=float(np.nanmean(acc)), chance=1.0 / n_part,
        n_participants=n_part, n_splits=n_splits, splits=tuple(outcomes))
