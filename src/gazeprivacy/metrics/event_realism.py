# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The realism metrics' event views (:mod:`gazeprivacy.metrics.realism`): the saccades the
adaptive detector finds (:func:`saccade_table`), the main sequence fitted to them
(:func:`fit_main_sequence`, :func:`main_sequence_distance`) and the Wasserstein-1 distances
of fixation durations and saccade amplitudes between release and raw
(:func:`event_distances`). Moved here unchanged from ``realism.py`` (683 lines), which
re-exports every public name.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy.optimize import curve_fit
from scipy.stats import wasserstein_distance

from gazeprivacy.data.recording import Dataset
from gazeprivacy.events import angular_distance_deg, detect_events_dataset, resolve_metric
from gazeprivacy.metrics.windows import sample_speed_deg_s

__all__ = ["MainSequenceFit", "event_distances", "fit_main_sequence", "main_sequence_distance",
           "saccade_table"]

_MIN_SACCADES = 10  # fewer saccades than this: no main-sequence fit (NaN)
_BOOTSTRAP = 100
_VMAX_BOUND, _C_BOUND = 5000.0, 200.0  # deg/s, deg: the main-sequence fit's upper bounds

def _events(dataset: Dataset) -> pl.DataFrame:
    return detect_events_dataset(dataset, method="adaptive", max_saccade_share=None)


def saccade_table(dataset: Dataset, events: pl.DataFrame | None = None) -> pl.DataFrame:
    """One row per saccade: ``recording, participant, amplitude_deg, peak_velocity_deg_s,
    duration_s``.

    ``events`` defaults to the adaptive detector's
    (:func:`gazeprivacy.events.detect_events_dataset`); amplitude is the distance from the
    saccade's first to its last sample (great-circle for VR geometry), peak velocity the
    largest :func:`sample_speed_deg_s` inside it.
    """
    ev = _events(dataset) if events is None else events
    sac = ev.filter(pl.col("name") == "saccade")
    rows: dict[str, list] = {k: [] for k in ("recording", "participant", "amplitude_deg",
                                             "peak_velocity_deg_s", "duration_s")}
    by_rec = sac.partition_by("recording", as_dict=True) if sac.height else {}
    for rec in dataset.recordings:
        part = by_rec.get((rec.recording,))
        if part is None:
            continue
        speed = sample_speed_deg_s(rec)
        on, off = part["onset"].to_numpy(), part["offset"].to_numpy()
        amp = angular_distance_deg(part["start_x"].to_numpy(), part["start_y"].to_numpy(),
                                   part["end_x"].to_numpy(), part["end_y"].to_numpy(),
                                   metric=resolve_metric(rec))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            peak = np.array([np.nanmax(speed[a:b]) for a, b in zip(on, off, strict=True)])
        rows["recording"] += [rec.recording] * len(on)
        rows["participant"] += [rec.participant] * len(on)
        rows["amplitude_deg"] += amp.tolist()
        rows["peak_velocity_deg_s"] += peak.tolist()
        rows["duration_s"] += part["duration_s"].to_list()
    return pl.DataFrame(rows, schema={"recording": pl.String, "participant": pl.String,
                                      "amplitude_deg": pl.Float64,
                                      "peak_velocity_deg_s": pl.Float64,
                                      "duration_s": pl.Float64})


def _main_sequence(a: np.ndarray, vmax: float, c: float) -> np.ndarray:
    return vmax * (1.0 - np.exp(-a / c))


@dataclass(frozen=True)
class MainSequenceFit:
    """``V = vmax_deg_s * (1 - exp(-A / c_deg))`` fitted to ``n`` saccades; ``rmse_deg_s`` is
    the RMSE of their peak velocities to the fit. NaN parameters when the fit was impossible
    (fewer than 10 saccades, or no convergence). ``at_bound``: a parameter sits at its bound
    (``V_max`` 5000 deg/s or ``C`` 200 deg): the peak velocities do not saturate with
    amplitude (e.g. white noise added to every sample), so the parameters are not
    interpretable, while the distances to the raw fit still are."""

    vmax_deg_s: float
    c_deg: float
    rmse_deg_s: float
    n: int
    at_bound: bool = False

    def predict(self, amplitude_deg: np.ndarray) -> np.ndarray:
        """Peak velocity (deg/s) the fit predicts at ``amplitude_deg``."""
        return _main_sequence(np.asarray(amplitude_deg, dtype=float), self.vmax_deg_s,
                              self.c_deg)


def fit_main_sequence(amplitude_deg: np.ndarray, peak_velocity_deg_s: np.ndarray
                      ) -> MainSequenceFit:
    """Least-squares fit of ``V = V_max (1 - exp(-A / C))`` (:func:`scipy.optimize.curve_fit`,
    bounds ``V_max`` in (0, 5000] deg/s, ``C`` in (0.01, 200] deg) to saccades with finite,
    positive amplitude and peak velocity.

    >>> a = np.linspace(0.5, 20, 50)
    >>> f = fit_main_sequence(a, 600 * (1 - np.exp(-a / 12)))
    >>> round(f.vmax_deg_s), round(f.c_deg, 3)
    (600, 12.0)
    """
    a = np.asarray(amplitude_deg, dtype=float)
    v = np.asarray(peak_velocity_deg_s, dtype=float)
    ok = np.isfinite(a) & np.isfinite(v) & (a > 0) & (v > 0)
    a, v = a[ok], v[ok]
    nan = MainSequenceFit(float("nan"), float("nan"), float("nan"), int(a.size))
    if a.size < _MIN_SACCADES:
        return nan
    p0 = (float(np.percentile(v, 95)), float(max(np.median(a), 0.1)))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (vmax, c), _ = curve_fit(_main_sequence, a, v, p0=p0,
                                     bounds=([1e-6, 0.01], [_VMAX_BOUND, _C_BOUND]),
                                     maxfev=5000)
    except (RuntimeError, ValueError):
        return nan
    rmse = float(np.sqrt(np.mean((v - _main_sequence(a, vmax, c)) ** 2)))
    at_bound = bool(vmax >= _VMAX_BOUND * (1 - 1e-6) or c >= _C_BOUND * (1 - 1e-6))
    return MainSequenceFit(float(vmax), float(c), rmse, int(a.size), at_bound)


def main_sequence_distance(raw: MainSequenceFit, release: MainSequenceFit,
                           release_saccades: pl.DataFrame) -> dict[str, float]:
    """How far the release's main sequence is from the raw one: ``vmax_rel_diff`` and
    ``c_rel_diff`` (``|release / raw - 1|`` of the fitted parameters) and
    ``rmse_to_raw_fit_deg_s`` (RMSE of the release's peak velocities to the raw fit, deg/s).
    NaN where a fit or the saccades are missing."""
    a = release_saccades["amplitude_deg"].to_numpy()
    v = release_saccades["peak_velocity_deg_s"].to_numpy()
    ok = np.isfinite(a) & np.isfinite(v) & (a > 0) & (v > 0)
    rmse = (float(np.sqrt(np.mean((v[ok] - raw.predict(a[ok])) ** 2)))
            if ok.any() and np.isfinite(raw.vmax_deg_s) else float("nan"))
    return {"vmax_rel_diff": abs(release.vmax_deg_s / raw.vmax_deg_s - 1.0),
            "c_rel_diff": abs(release.c_deg / raw.c_deg - 1.0),
            "rmse_to_raw_fit_deg_s": rmse}


def _by_participant(values: np.ndarray, who: np.ndarray) -> dict[str, np.ndarray]:
    return {p: values[who == p] for p in np.unique(who)}


def _w1(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    return float(wasserstein_distance(a, b)) if a.size and b.size else float("nan")


def _w1_bootstrap_se(raw: dict[str, np.ndarray], rel: dict[str, np.ndarray],
                     rng: np.random.Generator, n_boot: int) -> float:
    people = sorted(set(raw) | set(rel))
    if not people:  # no such event on either side
        return float("nan")
    empty = np.empty(0)
    reps = []
    for _ in range(n_boot):
        pick = [people[i] for i in rng.integers(0, len(people), len(people))]
        a = np.concatenate([raw.get(p, empty) for p in pick])
        b = np.concatenate([rel.get(p, empty) for p in pick])
        w = _w1(a, b)
        if np.isfinite(w):
            reps.append(w)
    return float(np.std(reps, ddof=1)) if len(reps) > 1 else float("nan")


def event_distances(raw_events: pl.DataFrame, release_events: pl.DataFrame,
                    raw_saccades: pl.DataFrame, release_saccades: pl.DataFrame, *,
                    rng: np.random.Generator, n_bootstrap: int = _BOOTSTRAP
                    ) -> dict[str, float]:
    """1-Wasserstein distances, release vs raw, of fixation durations
    (``fixation_duration_w1_s``, seconds) and saccade amplitudes
    (``saccade_amplitude_w1_deg``, degrees), each with a participant-bootstrap standard error
    (``_se``; raw and release resampled with the same participants). NaN when a side has no
    such event.

    >>> ev = pl.DataFrame({"participant": ["p", "q"], "name": ["fixation"] * 2,
    ...                    "duration_s": [0.2, 0.3]})
    >>> sac = pl.DataFrame({"participant": ["p"], "amplitude_deg": [2.0]})
    >>> shifted = ev.with_columns(pl.col("duration_s") + 0.1)
    >>> d = event_distances(ev, shifted, sac, sac, rng=np.random.default_rng(0), n_bootstrap=5)
    >>> round(d["fixation_duration_w1_s"], 6), d["saccade_amplitude_w1_deg"]
    (0.1, 0.0)
    """
    out: dict[str, float] = {}
    fix = [e.filter(pl.col("name") == "fixation") for e in (raw_events, release_events)]
    pairs = {
        "fixation_duration_w1_s": [(f["duration_s"].to_numpy(), f["participant"].to_numpy())
                                   for f in fix],
        "saccade_amplitude_w1_deg": [(s["amplitude_deg"].to_numpy(),
                                      s["participant"].to_numpy())
                                     for s in (raw_saccades, release_saccades)],
    }
    for name, ((va, wa), (vb, wb)) in pairs.items():
        out[name] = _w1(va, vb)
        out[f"{name}_se"] = _w1_bootstrap_se(_by_participant(va, wa.astype(str)),
                                             _by_participant(vb, wb.astype(str)), rng,
                                             n_bootstrap)
    return out
