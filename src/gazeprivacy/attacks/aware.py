# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""A mechanism-aware re-identification attacker: trained on the release itself.

The papers' attackers train on raw gaze (seed 000) and meet protected probes, which a mechanism
defeats merely by changing the data's *distribution* (noise turns every saccade detector's
output into noise). An attacker who holds the release trains on protected data of other
recordings / segments of the same people and tests on protected probes; that attacker is not
fooled by the distribution shift. On DOVES it re-identifies 0.35 of the recordings with
independent Laplace noise of 0.5 deg on x and y, where the raw-trained RBFN is at chance
(issue 15).

**Units and splits.** Re-identification keeps the same people on both sides. When every
participant has two or more recordings, the recordings are split as the papers' attacks split
them (:func:`~gazeprivacy.attacks.splits.split_recordings`: by a group label such as the
stimulus, else per participant) and each recording is one unit (or is cut into ``segment_s``
segments when given). When some participant has a single recording (e.g. one long recording per
person), recordings are cut into ``segment_s`` segments (default 10 s) and each participant's
segments are split.

**Features** of a unit (:func:`unit_features`): normalised histograms of the gaze position
(an 8 x 6 grid over the screen; off-screen points count in the border cells), of the speed
(log-spaced bins) and of the movement direction (12 bins) at two lags (one sample, and about
100 ms, which averages sample noise away), the share of missing samples, the mean and spread of
x and y, and -- when event feature tables are given -- the per-unit mean / std / count of the
existing per-event features (:func:`~gazeprivacy.features.aggregate.recording_features`).
Event features of a noisy release are noise that dilutes a forest, so per split the attacker
picks histograms alone or histograms with event aggregates by an inner split of its own
training side (never the probes; forests of 30 trees there, 100 for the attack itself).

**Classifier.** A scikit-learn random forest (100 trees, in the pipeline of
:func:`~gazeprivacy.attacks.classifiers.make_classifier`). Scores: ``unit_accuracy`` (top-1 per
test unit), ``recording_accuracy`` (unit probabilities averaged per recording),
``identification_rate`` (averaged per participant, as the George & Routray protocol scores it),
``f1_macro`` over units, and ``chance`` = 1 / participants.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
from sklearn.metrics import f1_score

from gazeprivacy._validation import check_int, check_positive
from gazeprivacy.attacks.classifiers import make_classifier
from gazeprivacy.attacks.splits import split_recordings
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.features.aggregate import recording_features

__all__ = ["AwareResult", "aware_reidentification", "split_units", "unit_features", "units_of"]

_POS_BINS = (8, 6)
_SPEED_EDGES = np.concatenate([[0.0], np.geomspace(0.5, 2000.0, 15), [np.inf]])  # deg/s
_DIR_BINS = 12
_LONG_LAG_S = 0.1
DEFAULT_SEGMENT_S = 10.0
_INNER_TREES = 30  # the inner split only picks a feature set
# Features are rounded: floating-point residue (a mean of 1040 equal values differs from one of
# 1024 in the 15th digit) would otherwise let a tree split on the recording's length alone.
_DECIMALS = 9


@dataclass(frozen=True)
class AwareResult:
    """Scores of the aware attack, averaged over splits (see the module docstring)."""

    identification_rate: float
    identification_rate_std: float
    recording_accuracy: float
    unit_accuracy: float
    unit_accuracy_std: float
    f1_macro: float
    chance: float
    n_participants: int
    n_splits: int
    unit: str  # "recording" or "segment"

    def metrics(self) -> dict[str, float]:
        """Flat ``metric -> value`` for the results table."""
        return {"identification_rate": self.identification_rate,
                "f1_macro": self.f1_macro, "recording_accuracy": self.recording_accuracy,
                "unit_accuracy": self.unit_accuracy,
                "unit_accuracy_se": float(self.unit_accuracy_std / np.sqrt(self.n_splits)),
                "chance": self.chance}


def units_of(dataset: Dataset, *, segment_s: float | None) -> pl.DataFrame:
    """The attack's units: ``unit, recording, participant, start, stop`` (sample indices).

    ``segment_s=None`` gives one unit per recording; else each recording is cut into
    consecutive segments of ``segment_s`` seconds (a last piece shorter than half a segment
    joins the one before it).
    """
    rows = []
    for r in dataset.recordings:
        n = r.n_samples
        step = n if segment_s is None else max(2, round(segment_s * r.sampling_rate_hz))
        starts = list(range(0, n, step))
        if len(starts) > 1 and n - starts[-1] < step / 2:
            starts.pop()
        stops = [*starts[1:], n]
        for i, (a, b) in enumerate(zip(starts, stops, strict=True)):
            unit = r.recording if segment_s is None else f"{r.recording}#{i:04d}"
            rows.append({"unit": unit, "recording": r.recording, "participant": r.participant,
                         "start": a, "stop": b})
    return pl.DataFrame(rows, schema={"unit": pl.String, "recording": pl.String,
                                      "participant": pl.String, "start": pl.Int64,
                                      "stop": pl.Int64})


def _hist(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    h, _ = np.histogram(values, bins=edges)
    return h / max(1, values.size)


def _motion(x: np.ndarray, y: np.ndarray, lag: int, rate: float) -> np.ndarray:
    """Speed and direction histograms of displacements over ``lag`` samples."""
    if x.size <= lag:
        return np.zeros(_SPEED_EDGES.size - 1 + _DIR_BINS)
    dx, dy = x[lag:] - x[:-lag], y[lag:] - y[:-lag]
    ok = np.isfinite(dx) & np.isfinite(dy)
    dx, dy = dx[ok], dy[ok]
    speed = np.hypot(dx, dy) * rate / lag
    moving = speed > 0
    ang = np.arctan2(dy[moving], dx[moving])
    return np.concatenate([_hist(speed, _SPEED_EDGES),
                           _hist(ang, np.linspace(-np.pi, np.pi, _DIR_BINS + 1))])


def _segment_features(rec: Recording, start: int, stop: int) -> np.ndarray:
    x, y = rec.x[start:stop], rec.y[start:stop]
    ok = np.isfinite(x) & np.isfinite(y)
    g = rec.geometry
    xv, yv = x[ok], y[ok]
    if g is not None:
        bx = (g.x_min_deg, g.x_max_deg)
        by = (g.y_min_deg, g.y_max_deg)
    else:  # no screen: the attacker bins over what it sees
        bx = (float(xv.min()), float(xv.max()) + 1e-9) if xv.size else (0.0, 1.0)
        by = (float(yv.min()), float(yv.max()) + 1e-9) if yv.size else (0.0, 1.0)
    pos, _, _ = np.histogram2d(np.clip(xv, *bx), np.clip(yv, *by), bins=_POS_BINS,
                               range=[bx, by])
    pos = pos.ravel() / max(1, xv.size)
    rate = float(rec.sampling_rate_hz)
    long_lag = max(2, round(_LONG_LAG_S * rate))
    stats = ([float(np.mean(xv)), float(np.mean(yv)), float(np.std(xv)), float(np.std(yv))]
             if xv.size else [np.nan] * 4)
    return np.concatenate([pos, _motion(x, y, 1, rate), _motion(x, y, long_lag, rate),
                           [1.0 - ok.mean()], stats])


def unit_features(dataset: Dataset, units: pl.DataFrame,
                  events: pl.DataFrame | None = None) -> np.ndarray:
    """Feature matrix (one row per unit of :func:`units_of`; see the module docstring).

    ``events`` is a per-event feature table of ``dataset`` (columns ``recording, onset`` in
    samples); its per-unit aggregates are appended when given.
    """
    recs = {r.recording: r for r in dataset.recordings}
    missing = set(units["recording"].to_list()) - set(recs)
    if missing:
        raise InvalidDataError(f"the dataset lacks recording(s) {sorted(missing)[:5]} of the "
                               "attack's units")
    X = np.vstack([_segment_features(recs[r], a, b) for r, a, b in
                   units.select("recording", "start", "stop").iter_rows()])
    X = np.round(X, _DECIMALS)
    if events is None or events.height == 0:
        return X
    return np.hstack([X, _numeric(_event_aggregates(events, units))])


def _numeric(table: pl.DataFrame) -> np.ndarray:
    return np.round(table.cast(pl.Float64).fill_nan(None).to_numpy().astype(float), _DECIMALS)


def _event_aggregates(events: pl.DataFrame, units: pl.DataFrame) -> pl.DataFrame:
    """Per-unit aggregates of the per-event features; an event belongs to the unit holding
    its onset (whole-recording units need no onset)."""
    if units["unit"].equals(units["recording"], check_names=False):
        agg = recording_features(events, recordings=units["unit"].to_list())
        return agg.select(c for c in agg.columns if c not in ("recording", "participant"))
    if "onset" not in events.columns:
        raise InvalidDataError("the event feature table has no onset column, so its events "
                               "cannot be assigned to segments; use whole recordings "
                               "(segment_s unset) or a featurizer that keeps onsets")
    starts: dict[str, tuple[np.ndarray, list[str]]] = {}
    for rec, g in units.group_by("recording", maintain_order=True):
        order = np.argsort(g["start"].to_numpy())
        starts[str(rec[0])] = (g["start"].to_numpy()[order], [g["unit"][int(i)] for i in order])
    unit_of = []
    for rec, onset in events.select("recording", "onset").iter_rows():
        s = starts.get(rec)
        i = -1 if s is None else int(np.searchsorted(s[0], onset, side="right")) - 1
        unit_of.append(s[1][i] if i >= 0 else None)
    ev = (events.with_columns(pl.Series("_unit", unit_of, dtype=pl.String))
          .filter(pl.col("_unit").is_not_null())
          .drop("recording").rename({"_unit": "recording"}))
    agg = recording_features(ev, recordings=units["unit"].to_list())
    return agg.select(c for c in agg.columns if c not in ("recording", "participant"))


def _unit_split(units: pl.DataFrame, index: pl.DataFrame, test_fraction: float,
                rng: np.random.Generator) -> np.ndarray:
    """Boolean ``is_test`` per unit: split recordings when every participant has two or more,
    else split each participant's units."""
    per_part = index.group_by("participant").len()["len"]
    if int(per_part.min()) >= 2:
        split = split_recordings(index, test_fraction=test_fraction, rng=rng)
        test = set(split.test)
        return np.array([r in test for r in units["recording"].to_list()])
    uidx = units.select(pl.col("unit").alias("recording"), "participant",
                        pl.lit(None, dtype=pl.String).alias("group"))
    split = split_recordings(uidx, test_fraction=test_fraction, rng=rng)
    test = set(split.test)
    return np.array([u in test for u in units["unit"].to_list()])


#: The unit split, public for the deep attacker (:mod:`gazeprivacy.attacks.deep`).
split_units = _unit_split


def _pooled_argmax(proba: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean probability per distinct key and its argmax column."""
    uniq, inv = np.unique(keys, return_inverse=True)
    total = np.zeros((uniq.size, proba.shape[1]))
    np.add.at(total, inv, proba)
    return uniq, total.argmax(axis=1)


def _one_split(X_tr: np.ndarray, X_te: np.ndarray, units: pl.DataFrame, is_test: np.ndarray,
               rng: np.random.Generator, n_trees: int = 100
               ) -> tuple[float, float, float, float]:
    """(identification rate, recording accuracy, unit accuracy, unit macro F1) of one split."""
    y = units["participant"].to_numpy()
    recs = units["recording"].to_numpy()
    clf = make_classifier("rf", rng=rng, n_train=int((~is_test).sum()))
    clf.set_params(randomforestclassifier__n_estimators=n_trees)
    clf.fit(X_tr[~is_test], y[~is_test])
    proba = clf.predict_proba(X_te[is_test])
    classes = clf.classes_
    y_te, r_te = y[is_test], recs[is_test]
    pred = classes[proba.argmax(axis=1)]
    parts, p_arg = _pooled_argmax(proba, y_te)
    rkeys, r_arg = _pooled_argmax(proba, r_te)
    owner = dict(zip(r_te.tolist(), y_te.tolist(), strict=False))
    r_truth = np.array([owner[k] for k in rkeys.tolist()])
    return (float(np.mean(classes[p_arg] == parts)), float(np.mean(classes[r_arg] == r_truth)),
            float(np.mean(pred == y_te)),
            float(f1_score(y_te, pred, labels=parts, average="macro", zero_division=0)))


def _choose_columns(X: np.ndarray, units: pl.DataFrame, index: pl.DataFrame,
                    is_test: np.ndarray, n_hist: int, test_fraction: float,
                    rng: np.random.Generator) -> int:
    """How many leading columns to use: the histograms alone (``n_hist``) or with the event
    aggregates (all), whichever identifies better on an inner split of the *training* side
    (ties keep the histograms). Noise turns event features into noise that dilutes a forest,
    so the attacker checks before using them."""
    if X.shape[1] == n_hist:
        return n_hist
    train_units = units.filter(pl.Series(~is_test))
    train_index = index.filter(pl.col("recording").is_in(train_units["recording"].to_list()))
    try:
        inner = _unit_split(train_units, train_index, test_fraction, rng)
    except (InvalidDataError, InvalidParameterError):
        return X.shape[1]
    if inner.all() or not inner.any():
        return X.shape[1]
    Xs = X[~is_test]
    scores = [_one_split(Xs[:, :k], Xs[:, :k], train_units, inner, rng,
                         n_trees=_INNER_TREES)[2] for k in (n_hist, X.shape[1])]
    return n_hist if scores[0] >= scores[1] else X.shape[1]


def aware_reidentification(train_data: Dataset, test_data: Dataset, index: pl.DataFrame, *,
                           rng: np.random.Generator, n_splits: int = 20,
                           test_fraction: float = 0.25, segment_s: float | None = None,
                           train_events: pl.DataFrame | None = None,
                           test_events: pl.DataFrame | None = None) -> AwareResult:
    """Re-identification by a random forest on histogram (and event) features.

    Parameters
    ----------
    train_data, test_data : Dataset
        The attacker's training side and its probes, with the same recording ids (the release
        twice for the aware attacker; raw then release for a raw-trained one).
    index : polars.DataFrame
        The split universe (:func:`~gazeprivacy.attacks.splits.recording_index`).
    rng : numpy.random.Generator
        Drives the splits and the forests' seeds.
    n_splits : int
    test_fraction : float in (0, 1)
    segment_s : float, optional
        Cut recordings into segments of this length (see the module docstring; default: whole
        recordings, or 10 s segments when some participant has a single recording).
    train_events, test_events : polars.DataFrame, optional
        Per-event feature tables of each side (both or neither).

    Returns
    -------
    AwareResult
    """
    check_int(n_splits=n_splits, minimum=1)
    if segment_s is not None:
        check_positive(segment_s=segment_s)
    single = int(index.group_by("participant").len()["len"].min()) < 2
    seg = segment_s if segment_s is not None else (DEFAULT_SEGMENT_S if single else None)
    units = units_of(test_data, segment_s=seg)
    units = units.filter(pl.col("recording").is_in(index["recording"].to_list()))
    X_tr = unit_features(train_data, units)
    X_te = unit_features(test_data, units)
    n_hist = X_tr.shape[1]
    if train_events is not None and test_events is not None:
        a_tr, a_te = _event_aggregates(train_events, units), _event_aggregates(test_events, units)
        common = [c for c in a_tr.columns if c in set(a_te.columns)]
        X_tr = np.hstack([X_tr, _numeric(a_tr.select(common))])
        X_te = np.hstack([X_te, _numeric(a_te.select(common))])
    out = []
    for child in rng.spawn(n_splits):
        is_test = _unit_split(units, index, test_fraction, child)
        if is_test.all() or not is_test.any():
            raise InvalidDataError("the split left one side without units; give more "
                                   "recordings or a shorter segment_s")
        k = _choose_columns(X_tr, units, index, is_test, n_hist, test_fraction, child)
        out.append(_one_split(X_tr[:, :k], X_te[:, :k], units, is_test, child))
    a = np.array(out)
    n_part = index["participant"].n_unique()
    return AwareResult(
        identification_rate=float(a[:, 0].mean()), identification_rate_std=float(a[:, 0].std()),
        recording_accuracy=float(a[:, 1].mean()), unit_accuracy=float(a[:, 2].mean()),
        unit_accuracy_std=float(a[:, 2].std()), f1_macro=float(a[:, 3].mean()),
        chance=1.0 / n_part, n_participants=n_part, n_splits=n_splits,
        unit="segment" if seg is not None else "recording")
