# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Realism of released (synthetic or perturbed) gaze against the raw data (issue 15, item 3).

Four views, each comparing a release with the raw recordings it came from:

* **Discriminator** (:func:`discriminator_auc`). Per-window kinematic features
  (:func:`~gazeprivacy.metrics.windows.window_feature_table`, re-exported here: speed,
  acceleration, dispersion, position, direction and missing-data summaries of
  non-overlapping ``window_s`` windows) of both sides; gradient
  boosting (:class:`~sklearn.ensemble.HistGradientBoostingClassifier`) learns
  *raw = 0, release = 1* with **participants held out** (``StratifiedGroupKFold`` by
  participant: a participant's raw and released windows are always on the same side of a
  split, so the classifier cannot match a person, only "what releases look like" on other
  people; every test fold holds both sides). Each fold's AUC is the probability that a random
  *released* window of the fold's test people scores higher (looks more "released") than a
  random *raw* one, and the discriminator's AUC is their mean: **0.5 = indistinguishable**, 1 =
  every released window is told apart, below 0.5 only by chance. Until 2026-11-28 the
  out-of-fold scores of all folds were pooled into one AUC. That estimator is biased below 0.5
  with few people (Airola et al. 2011; Forman & Scholz 2010): each fold's model never saw its
  test people and its class centres move away from them, and scores of different models are
  compared. Raw windows of some DOVES-sample observers against others' scored 0.37 on average
  over 12 splits (now 0.50), and the raw copy of the frontier runs 0.39-0.45. The standard
  error is the larger of a bootstrap over each fold's test participants (raw and release
  resampled separately, the models not refitted) and the spread of the per-fold AUCs. With
  few participants the AUC of two *real* data sets still spreads widely around 0.5 (sd 0.11
  over those 12 splits), so only an AUC well above that band (say > 0.7) says a release is
  told apart.
* **Main sequence** (:func:`saccade_table`, :func:`fit_main_sequence`). Saccades of the
  project's default (adaptive, Nystroem & Holmqvist 2010) detector; amplitude = distance from
  the first to the last sample of the saccade (deg), peak velocity = the largest speed inside
  it (deg/s; the detector's own speed filter: Savitzky-Golay over 10 ms at >= 100 Hz,
  two-point differences below). ``V = V_max (1 - exp(-A / C))`` is fitted by
  :func:`scipy.optimize.curve_fit`, for raw and release; :func:`main_sequence_distance` gives the
  relative differences of the fitted parameters and the RMSE of the release's peak velocities
  to the *raw* fit (deg/s; beside it the raw saccades' own RMSE to their fit, the floor).
* **Event distributions** (:func:`event_distances`). 1-Wasserstein distances
  (:func:`scipy.stats.wasserstein_distance`) of fixation durations (s) and saccade amplitudes
  (deg), release vs raw, with bootstrap standard errors over participants. The two event
  views live in :mod:`gazeprivacy.metrics.event_realism`, re-exported here.
* **Train on release, test on raw** (:func:`tstr_accuracy`). A random forest on the same window
  features classifies a recording label (a task or a stimulus) of each window; it is trained on
  the release windows of some participants and tested on the raw windows of the *other*
  participants (``GroupKFold``). Beside it the same classifier trained on raw windows (TRTR, the
  ceiling), the majority share of the test windows (``chance``) and ``1 / classes``.

:func:`realism_metrics` runs all four and returns the runner's rows (:data:`METRIC_INFO` gives
every metric's label, unit and direction). Event detection always uses
``max_saccade_share=None``: protected releases are noisy by design and would warn every time;
the saccade share of both sides is reported instead (``saccade_share``, ``raw_saccade_share``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import polars as pl
from scipy.stats import rankdata
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.model_selection import GroupKFold, StratifiedGroupKFold

from gazeprivacy._validation import check_in, check_int
from gazeprivacy.data.recording import Dataset
from gazeprivacy.events import (
    saccade_share,
)
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.metrics.event_realism import (
    _BOOTSTRAP,
    _MIN_SACCADES,
    MainSequenceFit,
    _events,
    event_distances,
    fit_main_sequence,
    main_sequence_distance,
    saccade_table,
)
from gazeprivacy.metrics.windows import (
    WINDOW_FEATURE_GROUPS,
    WINDOW_FEATURES,
    sample_speed_deg_s,
    window_feature_table,
)
from gazeprivacy.rng import seed_for_sklearn

__all__ = [
    "METRIC_INFO",
    "VIEWS",
    "WINDOW_FEATURES",
    "WINDOW_FEATURE_GROUPS",
    "DiscriminatorResult",
    "MainSequenceFit",
    "RealismResult",
    "TSTRResult",
    "discriminator_auc",
    "event_distances",
    "fit_main_sequence",
    "main_sequence_distance",
    "realism_metrics",
    "saccade_table",
    "sample_speed_deg_s",
    "tstr_accuracy",
    "window_feature_table",
]


#: metric -> (label, unit, better: "lower" | "higher" | None) of every metric the runner writes
#: from this module (evaluations ``realism:discriminator``, ``realism:main-sequence``,
#: ``realism:events`` of kind ``realism``, and ``<label>:tstr-rf`` of kind ``utility``).
METRIC_INFO: Mapping[str, tuple[str, str, str | None]] = {
    "discriminator_auc": ("discriminator AUC (release vs raw; 0.5 = indistinguishable)", "",
                          "lower"),
    "discriminator_auc_se": ("standard error of the discriminator AUC", "", None),
    "chance": ("indistinguishable / majority class", "", None),
    "n_windows_raw": ("raw windows", "count", None),
    "n_windows_release": ("release windows", "count", None),
    "vmax_deg_s": ("main sequence V_max of the release", "deg/s", None),
    "c_deg": ("main sequence C of the release", "deg", None),
    "raw_vmax_deg_s": ("main sequence V_max of the raw data", "deg/s", None),
    "raw_c_deg": ("main sequence C of the raw data", "deg", None),
    "vmax_rel_diff": ("|V_max release / V_max raw - 1|", "", "lower"),
    "c_rel_diff": ("|C release / C raw - 1|", "", "lower"),
    "rmse_to_raw_fit_deg_s": ("RMSE of the release's peak velocities to the raw fit", "deg/s",
                              "lower"),
    "raw_rmse_to_raw_fit_deg_s": ("RMSE of the raw peak velocities to the raw fit (floor)",
                                  "deg/s", None),
    "n_saccades": ("saccades in the release", "count", None),
    "raw_n_saccades": ("saccades in the raw data", "count", None),
    "fixation_duration_w1_s": ("Wasserstein-1 of fixation durations, release vs raw", "s",
                               "lower"),
    "fixation_duration_w1_s_se": ("its bootstrap standard error", "s", None),
    "saccade_amplitude_w1_deg": ("Wasserstein-1 of saccade amplitudes, release vs raw", "deg",
                                 "lower"),
    "saccade_amplitude_w1_deg_se": ("its bootstrap standard error", "deg", None),
    "saccade_share": ("share of valid release samples in saccades", "", None),
    "raw_saccade_share": ("share of valid raw samples in saccades", "", None),
    "accuracy": ("train on release, test on raw (participants held out)", "", "higher"),
    "accuracy_se": ("standard error over folds", "", None),
    "trtr_accuracy": ("train on raw, test on raw (ceiling)", "", None),
    "uniform_chance": ("1 / classes", "", None),
}


# ---------------------------------------------------------------------------------------------
# feature matrices and classifiers (the window features: gazeprivacy.metrics.windows)


def _matrix(table: pl.DataFrame, features: Sequence[str] = WINDOW_FEATURES) -> np.ndarray:
    x = table.select(features).to_numpy().astype(np.float64)
    return np.where(np.isfinite(x), x, np.nan)  # the forest routes missing values itself


def _forest(rng: np.random.Generator, n_trees: int) -> RandomForestClassifier:
    return RandomForestClassifier(n_estimators=n_trees, min_samples_leaf=3, n_jobs=1,
                                  random_state=seed_for_sklearn(rng))


def _boosting(rng: np.random.Generator, n_iter: int) -> HistGradientBoostingClassifier:
    # small trees, no early stopping (it would hold out rows at random, ignoring participants)
    return HistGradientBoostingClassifier(max_iter=n_iter, max_leaf_nodes=15,
                                          min_samples_leaf=5, early_stopping=False,
                                          random_state=seed_for_sklearn(rng))


def _auc(y: np.ndarray, score: np.ndarray) -> float:
    """ROC AUC of binary ``y`` (1 positive) by the rank-sum (Mann-Whitney) formula, ties
    counted half (as :func:`sklearn.metrics.roc_auc_score`)."""
    pos = y == 1
    n1, n0 = int(pos.sum()), int((~pos).sum())
    r = rankdata(score)
    return float((r[pos].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def _folds(groups: np.ndarray, n_splits: int, rng: np.random.Generator, what: str
           ) -> list[tuple[np.ndarray, np.ndarray]]:
    n_groups = np.unique(groups).size
    if n_groups < 2:
        raise InvalidDataError(f"{what} holds participants out and needs at least 2 "
                               f"participants, got {n_groups}")
    k = min(n_splits, n_groups)
    cv = GroupKFold(n_splits=k, shuffle=True, random_state=seed_for_sklearn(rng))
    return list(cv.split(np.zeros(groups.size), groups=groups))


# ---------------------------------------------------------------------------------------------
# discriminator


@dataclass(frozen=True)
class DiscriminatorResult:
    """Out-of-fold AUC of *release* (positive) against *raw* windows; 0.5 = indistinguishable."""

    auc: float
    auc_se: float
    n_raw: int
    n_release: int
    n_splits: int

    def metrics(self) -> dict[str, float]:
        return {"discriminator_auc": self.auc, "discriminator_auc_se": self.auc_se,
                "chance": 0.5, "n_windows_raw": float(self.n_raw),
                "n_windows_release": float(self.n_release)}


def _fold_bootstrap_auc(y: np.ndarray, score: np.ndarray, groups: np.ndarray,
                        tests: list[np.ndarray], rng: np.random.Generator, n_boot: int) -> float:
    """Standard error of the mean per-fold AUC by resampling each fold's test participants
    with replacement, raw and release participants separately (the models not refitted)."""
    members = []
    for test in tests:
        per_class = []
        for c in (0, 1):
            idx = test[y[test] == c]
            uniq, inv = np.unique(groups[idx], return_inverse=True)
            per_class.append([idx[inv == g] for g in range(uniq.size)])
        members.append(per_class)
    reps = []
    for _ in range(n_boot):
        aucs = []
        for per_class in members:
            idx = np.concatenate([m[i] for m in per_class
                                  for i in rng.integers(0, len(m), len(m))])
            aucs.append(_auc(y[idx], score[idx]))
        reps.append(float(np.mean(aucs)))
    return float(np.std(reps, ddof=1)) if len(reps) > 1 else float("nan")


def discriminator_auc(raw_windows: pl.DataFrame, release_windows: pl.DataFrame, *,
                      rng: np.random.Generator, n_splits: int = 5, n_iter: int = 50,
                      n_bootstrap: int = _BOOTSTRAP,
                      features: Sequence[str] = WINDOW_FEATURES) -> DiscriminatorResult:
    """Can a classifier tell released windows from raw ones on people it has not seen?

    Parameters
    ----------
    raw_windows, release_windows : polars.DataFrame
        :func:`window_feature_table` of the raw data (label 0) and of the release (label 1).
    rng : numpy.random.Generator
        Folds, forest and bootstrap.
    n_splits : int
        Folds by participant (``StratifiedGroupKFold``: every test fold holds raw and released
        windows; at most the number of participants on the smaller side).
    n_iter : int
        Boosting iterations of the classifier (scikit-learn's histogram gradient boosting,
        trees of at most 15 leaves and at least 5 windows a leaf, missing values routed
        natively).
    n_bootstrap : int
        Participant-bootstrap resamples for the standard error.
    features : sequence of str
        The window features the classifier reads (default: all of them); a subset, such as a
        :data:`WINDOW_FEATURE_GROUPS` group, says how far that part alone tells the sides
        apart.

    Returns
    -------
    DiscriminatorResult
        ``auc`` = the mean over folds of P(score of a released window > score of a raw window)
        on the fold's test people (the probability of "release"); 0.5 = indistinguishable, 1 =
        always told apart.

    Raises
    ------
    InvalidDataError
        Fewer than 2 participants on a side, or one side has no windows.
    InvalidParameterError
        ``features`` is empty, repeats a feature or names one that is not a window feature.
    """
    check_int(minimum=2, n_splits=n_splits)
    features = tuple(features)
    unknown = sorted(set(features) - set(WINDOW_FEATURES))
    if not features or unknown or len(set(features)) < len(features):
        raise InvalidParameterError(
            "features must be distinct window features (WINDOW_FEATURES), got "
            f"{list(features)!r}" + (f"; not window features: {unknown}" if unknown else ""))
    if raw_windows.height == 0 or release_windows.height == 0:
        raise InvalidDataError("the discriminator needs windows on both sides, got "
                               f"{raw_windows.height} raw and {release_windows.height} release")
    x = np.vstack([_matrix(raw_windows, features), _matrix(release_windows, features)])
    y = np.r_[np.zeros(raw_windows.height), np.ones(release_windows.height)].astype(int)
    groups = np.r_[raw_windows["participant"].to_numpy(),
                   release_windows["participant"].to_numpy()].astype(str)
    # stratified folds and the mean of per-fold AUCs: each fold's two sides scored by one model
    # (pooling the folds' scores is biased low with few people: the module docstring)
    n_side = min(np.unique(groups[y == 0]).size, np.unique(groups[y == 1]).size)
    if n_side < 2:
        raise InvalidDataError("the discriminator holds participants out and needs at least 2 "
                               f"participants on each side, got {n_side}")
    k = min(n_splits, n_side)
    cv = StratifiedGroupKFold(n_splits=k, shuffle=True, random_state=seed_for_sklearn(rng))
    score = np.full(y.size, np.nan)
    per_fold, tests = [], []
    for train, test in cv.split(x, y, groups=groups):
        if np.unique(y[train]).size < 2 or np.unique(y[test]).size < 2:
            continue  # a fold without both sides to learn or to score says nothing
        clf = _boosting(rng, n_iter).fit(x[train], y[train])
        score[test] = clf.predict_proba(x[test])[:, 1]
        per_fold.append(_auc(y[test], score[test]))
        tests.append(test)
    if not per_fold:
        raise InvalidDataError("the discriminator found no fold with raw and released windows "
                               "on both sides of the split")
    auc = float(np.mean(per_fold))
    se = _fold_bootstrap_auc(y, score, groups, tests, rng, n_bootstrap)
    if len(per_fold) > 1:  # the larger of the two: neither sees every source of variation
        se = max(se, float(np.std(per_fold, ddof=1) / np.sqrt(len(per_fold))))
    return DiscriminatorResult(auc=auc, auc_se=se, n_raw=raw_windows.height,
                               n_release=release_windows.height, n_splits=len(per_fold))


# ---------------------------------------------------------------------------------------------
# train on release, test on raw


@dataclass(frozen=True)
class TSTRResult:
    """Window accuracy of a forest trained on the release and tested on raw windows of held-out
    participants (``accuracy``), beside training on raw (``trtr_accuracy``, NaN when not asked
    for) and chance."""

    label: str
    accuracy: float
    accuracy_se: float
    trtr_accuracy: float
    chance: float
    uniform_chance: float
    n_splits: int

    def metrics(self) -> dict[str, float]:
        out = {"accuracy": self.accuracy, "accuracy_se": self.accuracy_se,
               "chance": self.chance, "uniform_chance": self.uniform_chance}
        if np.isfinite(self.trtr_accuracy):
            out["trtr_accuracy"] = self.trtr_accuracy
        return out


def tstr_accuracy(raw_windows: pl.DataFrame, release_windows: pl.DataFrame,
                  label_of: Mapping[str, str], *, rng: np.random.Generator,
                  label: str = "label", n_splits: int = 5, n_trees: int = 50,
                  trtr: bool = True, release_label_of: Mapping[str, str] | None = None
                  ) -> TSTRResult:
    """Train on release, test on raw, participants held out.

    Each window carries its recording's label (``label_of[recording]``). For each of
    ``GroupKFold(n_splits)`` folds by participant, one forest is fitted on the *release* windows
    of the training participants and (with ``trtr``) one on their *raw* windows; both predict
    the raw windows of the held-out participants. ``accuracy`` / ``trtr_accuracy`` pool the
    predictions of all folds (a random forest of ``n_trees`` trees); ``accuracy_se`` is the
    standard deviation of the per-fold accuracies over ``sqrt(folds)``; ``chance`` is the
    share of the most frequent label among the raw windows.
    The runner passes ``trtr=False``: its raw cell (release = raw) gives the same number on the
    same folds. A synthetic population (new participants and recordings) passes its own labels
    as ``release_label_of``: its windows are labelled by them and every fold's forest is
    trained on all of them (none of its participants is a raw one).

    Raises
    ------
    InvalidDataError
        A recording has no label, fewer than 2 labels occur, or fewer than 2 participants.
    """
    check_int(minimum=2, n_splits=n_splits)
    missing = sorted(set(raw_windows["recording"].to_list()) - set(label_of))
    if missing:
        raise InvalidDataError(f"TSTR: recordings {missing[:3]} have no {label!r} label")
    y_raw = np.array([label_of[r] for r in raw_windows["recording"].to_list()], dtype=object)
    rel_of = label_of if release_label_of is None else release_label_of
    y_rel = np.array([rel_of.get(r) for r in release_windows["recording"].to_list()],
                     dtype=object)
    keep = np.array([v is not None for v in y_rel], dtype=bool)
    classes = sorted(set(y_raw.tolist()))
    if len(classes) < 2:
        raise InvalidDataError(f"TSTR: label {label!r} has {len(classes)} class(es); it needs 2")
    x_raw, x_rel = _matrix(raw_windows), _matrix(release_windows)[keep]
    y_rel = y_rel[keep].astype(str)
    y_raw = y_raw.astype(str)
    g_raw = raw_windows["participant"].to_numpy().astype(str)
    g_rel = release_windows["participant"].to_numpy().astype(str)[keep]
    pred_tstr = np.empty(y_raw.size, dtype=object)
    pred_trtr = np.empty(y_raw.size, dtype=object)
    per_fold = []
    folds = _folds(g_raw, n_splits, rng, "TSTR")
    for train, test in folds:
        people = np.unique(g_raw[train])
        rel_train = (np.isin(g_rel, people) if release_label_of is None
                     else np.ones(g_rel.size, dtype=bool))
        if rel_train.any():
            clf = _forest(rng, n_trees).fit(x_rel[rel_train], y_rel[rel_train])
            pred_tstr[test] = clf.predict(x_raw[test])
        else:  # the release of these people is empty: no model, every guess wrong
            pred_tstr[test] = ""
        if trtr:
            pred_trtr[test] = _forest(rng, n_trees).fit(x_raw[train], y_raw[train]).predict(
                x_raw[test])
        per_fold.append(float(np.mean(pred_tstr[test] == y_raw[test])))
    _, counts = np.unique(y_raw, return_counts=True)
    se = (float(np.std(per_fold, ddof=1) / np.sqrt(len(per_fold))) if len(per_fold) > 1
          else float("nan"))
    return TSTRResult(label=label, accuracy=float(np.mean(pred_tstr == y_raw)), accuracy_se=se,
                      trtr_accuracy=(float(np.mean(pred_trtr == y_raw)) if trtr
                                     else float("nan")),
                      chance=float(counts.max() / counts.sum()),
                      uniform_chance=1.0 / len(classes), n_splits=len(folds))


# ---------------------------------------------------------------------------------------------
# everything at once (the runner's entry point)


@dataclass
class RealismResult:
    """Metrics per evaluation (``evaluation -> metric -> value``), their kinds and notes."""

    metrics: dict[str, dict[str, float]] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


#: the realism views :func:`realism_metrics` can run
VIEWS = ("discriminator", "main-sequence", "events", "tstr")


def _labels_of(dataset: Dataset, label: str) -> dict[str, str] | None:
    out = {}
    for r in dataset.recordings:
        if label not in r.labels:
            return None
        out[r.recording] = str(r.labels[label])
    return out


def _event_views(out: RealismResult, raw: Dataset, release: Dataset, views: Sequence[str],
                 rng: np.random.Generator) -> None:
    """The main-sequence and event-distribution views into ``out``."""
    ev_raw, ev_rel = _events(raw), _events(release)
    s_raw, s_rel = saccade_table(raw, ev_raw), saccade_table(release, ev_rel)
    if "main-sequence" in views:
        f_raw = fit_main_sequence(s_raw["amplitude_deg"].to_numpy(),
                                  s_raw["peak_velocity_deg_s"].to_numpy())
        f_rel = fit_main_sequence(s_rel["amplitude_deg"].to_numpy(),
                                  s_rel["peak_velocity_deg_s"].to_numpy())
        out.metrics["realism:main-sequence"] = {
            "vmax_deg_s": f_rel.vmax_deg_s, "c_deg": f_rel.c_deg,
            "raw_vmax_deg_s": f_raw.vmax_deg_s, "raw_c_deg": f_raw.c_deg,
            **main_sequence_distance(f_raw, f_rel, s_rel),
            "raw_rmse_to_raw_fit_deg_s": f_raw.rmse_deg_s,
            "n_saccades": float(s_rel.height), "raw_n_saccades": float(s_raw.height)}
        out.kinds["realism:main-sequence"] = "realism"
        if not np.isfinite(f_rel.vmax_deg_s):
            out.notes.append(f"realism main sequence of the release: no fit "
                             f"({f_rel.n} usable saccades; needs {_MIN_SACCADES})")
        elif f_rel.at_bound:
            out.notes.append("realism main sequence of the release: the fit sits at a bound "
                             "(peak velocity does not saturate with amplitude); read "
                             "rmse_to_raw_fit_deg_s, not V_max / C")
    if "events" in views:
        out.metrics["realism:events"] = {
            **event_distances(ev_raw, ev_rel, s_raw, s_rel, rng=rng),
            "saccade_share": saccade_share(release, ev_rel),
            "raw_saccade_share": saccade_share(raw, ev_raw)}
        out.kinds["realism:events"] = "realism"


def realism_metrics(raw: Dataset, release: Dataset, *, rng: np.random.Generator,
                    views: Sequence[str] = VIEWS, labels: Sequence[str] = ("task",),
                    window_s: float = 1.0, n_splits: int = 5, n_trees: int = 50,
                    trtr: bool = False, synthetic: bool = False) -> RealismResult:
    """All realism views of ``release`` against ``raw`` (see the module docstring).

    Evaluations: ``realism:discriminator``, ``realism:main-sequence``, ``realism:events``
    (kind ``realism``) and ``<label>:tstr-rf`` per label of ``labels`` that every raw recording
    has with at least 2 classes (kind ``utility``; other labels are skipped with a note).
    Labels are read from the raw recordings (the release's are not trusted to be kept); a
    ``synthetic`` population's windows carry the labels it writes (public labels), and a label
    it does not write is skipped with a note.
    """
    for v in views:
        check_in(options=VIEWS, view=v)
    out = RealismResult()
    streams = rng.spawn(4)
    need_windows = "discriminator" in views or "tstr" in views
    w_raw = window_feature_table(raw, window_s=window_s) if need_windows else None
    w_rel = window_feature_table(release, window_s=window_s) if need_windows else None
    if "discriminator" in views:
        res = discriminator_auc(w_raw, w_rel, rng=streams[0], n_splits=n_splits)
        out.metrics["realism:discriminator"] = res.metrics()
        out.kinds["realism:discriminator"] = "realism"
    if "main-sequence" in views or "events" in views:
        _event_views(out, raw, release, views, streams[1])
    if "tstr" in views:
        label_streams = streams[2].spawn(max(1, len(labels)))
        for i, label in enumerate(labels):
            lab = _labels_of(raw, label)
            if lab is None or len(set(lab.values())) < 2:
                out.notes.append(f"realism TSTR on {label!r} skipped: label missing or constant")
                continue
            rel_lab = _labels_of(release, label) if synthetic else None
            if synthetic and rel_lab is None:
                out.notes.append(f"realism TSTR on {label!r} skipped: the synthetic release "
                                 "does not write that label")
                continue
            res = tstr_accuracy(w_raw, w_rel, lab, rng=label_streams[i], label=label,
                                n_splits=n_splits, n_trees=n_trees, trtr=trtr,
                                release_label_of=rel_lab)
            out.metrics[f"{label}:tstr-rf"] = res.metrics()
            out.kinds[f"{label}:tstr-rf"] = "utility"
    return out
