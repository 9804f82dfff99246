# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Validation of event detection: per-sample agreement with the simulator's ground truth and
event-level agreement with published fixation lists (``docs/events.md``).

* :func:`ground_truth_labels` reads the simulator's ``event_code`` channel
  (:data:`gazeprivacy.data.simulate.EVENT_CODES`, ``simulate_dataset(..., ground_truth=True)``).
  Microsaccades count as fixation samples (detectors and human coders keep them inside
  fixations); blink samples are missing and are left out. Pursuit samples added by
  :func:`gazeprivacy.events.synthetic_pursuit.add_pursuit` (code 4) count as pursuit.
* :func:`sample_kappa`: Cohen's kappa (:func:`sklearn.metrics.cohen_kappa_score`) per event type,
  one type against the rest, over the valid samples of a dataset; samples in no detected event
  count as "neither". A type that neither the truth nor the detector has gets NaN.
* :func:`saccade_event_agreement`: recall and precision of saccade *events* with a tolerance of
  one sample, which at 30 Hz (a saccade lasts 1-2 samples) says more than the per-sample kappa,
  where a half-sample shift of the velocity estimate already costs half the agreement.
* :func:`compare_fixation_lists`: per recording, detected fixations against a list of
  fixations without onsets (e.g. DOVES' ``fix_data``): counts, median durations, and the
  distance from each listed fixation to the nearest detected fixation centroid.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.events.detection import EVENT_NAMES, sample_labels
from gazeprivacy.exceptions import InvalidDataError

__all__ = ["compare_fixation_lists", "ground_truth_labels", "saccade_event_agreement",
           "sample_kappa"]

# gazeprivacy.data.simulate.EVENT_CODES: fixation 0, saccade 1, microsaccade 2, blink 3;
# gazeprivacy.events.synthetic_pursuit.PURSUIT_CODE: pursuit 4
_TRUTH = {0: "fixation", 1: "saccade", 2: "fixation", 3: "", 4: "pursuit"}


def ground_truth_labels(recording: Recording) -> np.ndarray:
    """Per-sample true event names of a simulated recording (``""`` for blink samples).

    Raises
    ------
    InvalidDataError
        The recording has no ``event_code`` channel (simulate with ``ground_truth=True``).
    """
    code = recording.channels.get("event_code")
    if code is None:
        raise InvalidDataError(
            f"recording {recording.recording!r} has no 'event_code' channel; simulate it with "
            "ground_truth=True")
    out = np.full(code.shape[0], "", dtype=object)
    for k, name in _TRUTH.items():
        out[code == k] = name
    return out


def sample_kappa(dataset: Dataset, events: pl.DataFrame) -> dict[str, float]:
    """Cohen's kappa per event type (one against the rest) over the valid samples of a
    simulated ``dataset``, and ``"saccade_share"`` / ``"true_saccade_share"`` and
    ``"pursuit_share"`` / ``"true_pursuit_share"``.

    >>> from gazeprivacy.data.simulate import simulate_dataset
    >>> from gazeprivacy.events import detect_events_dataset
    >>> ds = simulate_dataset(n_participants=1, tasks="free-viewing", duration_s=5.0,
    ...                       sampling_rate_hz=200, rng=np.random.default_rng(0),
    ...                       ground_truth=True)
    >>> k = sample_kappa(ds, detect_events_dataset(ds, method="adaptive"))
    >>> bool(k["saccade"] > 0.5)
    True
    """
    from sklearn.metrics import cohen_kappa_score

    truth, found = [], []
    for r in dataset.recordings:
        valid = ~r.missing
        truth.append(ground_truth_labels(r)[valid])
        found.append(sample_labels(r, events)[valid])
    t, f = np.concatenate(truth), np.concatenate(found)
    out = {name: (float(cohen_kappa_score(t == name, f == name))
                  if (t == name).any() or (f == name).any() else float("nan"))
           for name in EVENT_NAMES}
    for name in ("saccade", "pursuit"):
        out[f"{name}_share"] = float(np.mean(f == name))
        out[f"true_{name}_share"] = float(np.mean(t == name))
    return out


def _runs_of(mask: np.ndarray) -> np.ndarray:
    """``(k, 2)`` onsets and offsets (exclusive) of the True runs of ``mask``."""
    d = np.diff(np.r_[0, mask.astype(np.int8), 0])
    return np.c_[np.flatnonzero(d == 1), np.flatnonzero(d == -1)]


def _overlapping(a: np.ndarray, b: np.ndarray, tol: int) -> int:
    """How many runs of ``a`` overlap a run of ``b`` widened by ``tol`` samples each side."""
    if a.shape[0] == 0 or b.shape[0] == 0:
        return 0
    # the first run of b ending after a's onset (minus tol) must start before a's offset (+ tol)
    j = np.searchsorted(b[:, 1] + tol, a[:, 0], side="right")
    ok = j < b.shape[0]
    return int(np.count_nonzero(ok & (b[np.minimum(j, b.shape[0] - 1), 0] - tol < a[:, 1])))


def saccade_event_agreement(dataset: Dataset, events: pl.DataFrame, *,
                            tolerance_samples: int = 1) -> dict[str, float]:
    """Recall (true saccades that overlap a detected one) and precision (detected saccades that
    overlap a true one) of saccade events, each widened by ``tolerance_samples``; true saccades
    are the simulator's inter-fixation saccades (microsaccades are not counted either way)."""
    hit_true = n_true = hit_found = n_found = 0
    for r in dataset.recordings:
        truth = _runs_of(r.channels["event_code"] == 1) if "event_code" in r.channels else None
        if truth is None:
            raise InvalidDataError(
                f"recording {r.recording!r} has no 'event_code' channel; simulate it with "
                "ground_truth=True")
        found = events.filter((pl.col("recording") == r.recording)
                              & (pl.col("name") == "saccade")).select("onset", "offset")
        f = found.to_numpy().reshape(-1, 2)
        micro = r.channels["event_code"] == 2
        f = f[[not micro[a:b].all() for a, b in f]] if f.shape[0] else f
        hit_true += _overlapping(truth, f, tolerance_samples)
        hit_found += _overlapping(f, truth, tolerance_samples)
        n_true += truth.shape[0]
        n_found += f.shape[0]
    return {"recall": hit_true / n_true if n_true else float("nan"),
            "precision": hit_found / n_found if n_found else float("nan")}


def _nearest_distance(ax: np.ndarray, ay: np.ndarray, bx: np.ndarray,
                      by: np.ndarray) -> np.ndarray:
    """For each point a, the distance to the nearest point b (NaN when b is empty)."""
    if bx.shape[0] == 0:
        return np.full(ax.shape[0], np.nan)
    d = np.hypot(ax[:, None] - bx[None, :], ay[:, None] - by[None, :])
    return d.min(axis=1)


def compare_fixation_lists(events: pl.DataFrame, reference: pl.DataFrame) -> pl.DataFrame:
    """Detected fixations against a reference list, one row per recording in ``reference``.

    Parameters
    ----------
    events : polars.DataFrame
        An event table (only ``name == "fixation"`` rows are used; ``centroid_x/_y`` in deg).
    reference : polars.DataFrame
        Columns ``recording``, ``x_deg``, ``y_deg``, ``duration_s``: one row per listed
        fixation.

    Returns
    -------
    polars.DataFrame
        ``recording``, ``n_detected``, ``n_reference``, ``median_duration_s`` (detected),
        ``median_reference_duration_s``, ``median_distance_deg`` (median over listed fixations
        of the distance to the nearest detected fixation) and ``median_reverse_distance_deg``
        (detected to nearest listed).
    """
    fix = events.filter(pl.col("name") == "fixation")
    det = {k[0]: g for k, g in fix.group_by("recording")}
    rows = []
    for (rid,), ref in reference.group_by("recording", maintain_order=True):
        g = det.get(rid, fix.clear())
        rx, ry = ref["x_deg"].to_numpy(), ref["y_deg"].to_numpy()
        dx, dy = g["centroid_x"].to_numpy(), g["centroid_y"].to_numpy()
        fwd = _nearest_distance(rx, ry, dx, dy)
        rev = _nearest_distance(dx, dy, rx, ry)
        rows.append({
            "recording": rid, "n_detected": g.height, "n_reference": ref.height,
            "median_duration_s": float(np.median(g["duration_s"])) if g.height else np.nan,
            "median_reference_duration_s": float(ref["duration_s"].median()),
            "median_distance_deg": float(np.median(fwd)),
            "median_reverse_distance_deg": float(np.median(rev)) if rev.size else np.nan,
        })
    return pl.DataFrame(rows, schema={
        "recording": pl.String, "n_detected": pl.Int64, "n_reference": pl.Int64,
        "median_duration_s": pl.Float64, "median_reference_duration_s": pl.Float64,
        "median_distance_deg": pl.Float64, "median_reverse_distance_deg": pl.Float64})
