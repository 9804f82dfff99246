# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Adaptive-threshold saccade and fixation detection (Nystroem & Holmqvist 2010).

Nystroem, M., & Holmqvist, K. (2010). An adaptive algorithm for fixation, saccade, and glissade
detection in eyetracking data. *Behavior Research Methods*, 42(1), 188-204.
https://doi.org/10.3758/BRM.42.1.188

Per recording:

1. **Speed.** Savitzky-Golay derivative (order 2, window ``window_s``, default 10 ms; the paper
   used 20 ms, twice the minimum saccade duration, at 1250 Hz) of every gap-free segment on its
   own (:func:`~gazeprivacy.events.kinematics.smoothed_speed_deg_s`): blinks and time gaps split
   the signal and nothing is interpolated across them. Below 100 Hz: two-point differences.
2. **Noise.** Samples faster than ``max_speed_deg_s`` (1000 deg/s) are physiologically
   impossible; they belong to no event and are left out of the threshold estimate.
3. **Peak threshold.** Starting from ``initial_threshold_deg_s`` (40 deg/s; the paper: 100-300),
   iterate ``PT = mean + 6 sd`` of the speeds below ``PT`` until it moves by less than 1 deg/s.
   The saccade **onset threshold** is ``mean + 3 sd`` of the same speeds.
4. **Saccades.** Every run of samples above ``PT`` is a peak. Its onset is found by walking
   back from the peak to the first sample below the onset threshold that is a local speed
   minimum; its offset by walking forward to the first local minimum below the *offset
   threshold* ``0.7 * onset + 0.3 * (mean + 3 sd)`` of the speeds in the
   ``local_noise_window_s`` (40 ms) before the onset. The saccade holds the samples strictly
   between the two minima. Saccades shorter than ``minimum_saccade_duration_s`` (10 ms) are
   dropped; a peak inside an earlier saccade joins it.
5. **Plausibility.** A peak threshold above ``implausible_threshold_deg_s`` (300 deg/s) means
   that the speed noise of the recording is as fast as most saccades: the detector then finds
   only the largest saccades, and :func:`~gazeprivacy.events.detect_events` warns
   (:class:`~gazeprivacy.exceptions.ImplausibleEventsWarning`); so it does when more than 10 %
   of the speeds exceed ``max_speed_deg_s``.
6. **Fixations** are the remaining runs of valid samples of at least
   ``minimum_fixation_duration_s`` (40 ms); shorter runs belong to no event (``short_runs=
   "unclassified"``, the detector's default) or join the saccades (``"saccade"``).

**Per-rate defaults** (:meth:`AdaptiveParams.for_rate`). Durations are given in seconds and
turned into samples per recording, never fewer than the algorithm needs: the filter window is
odd and at least 3 samples (10 ms is 11 samples at 1 kHz and the minimum 3 at 200 Hz), the
minimum saccade at least 1 sample, the minimum fixation at least 2, the local noise window at
least 3. Below 100 Hz a 3-sample filter already spans 50-100 ms and flattens the few samples a
saccade has, so :meth:`~AdaptiveParams.for_rate` then uses two-point differences
(``window_s=None``), which keep a one-sample saccade at its full speed.

**Start of the iteration.** From the paper's 100 deg/s the iteration counts small saccades
(a 2-degree reading saccade peaks near 90 deg/s, and shows 60 deg/s at 30 Hz) as noise, their
spread raises ``PT`` above them, and it can climb on (one simulated reading recording at 30 Hz:
370 deg/s; one at 100 Hz: 491 deg/s, both clean data). From 40 deg/s the largest threshold on
clean simulated data at 30-1000 Hz was 152 deg/s. These choices come from
the simulator validation in ``docs/events.md`` (Cohen's kappa of saccade samples, clean and
with added noise): at 200 Hz and 1 kHz a 10 ms window matched or beat 20 ms and, with noise,
beat no smoothing; at 30 and 60 Hz two-point differences beat a 3-sample filter; and the 40 deg/s
start raised the recall of saccade events on clean data (30 Hz 0.41 to 0.58, 60 Hz 0.60 to 0.86,
200 Hz and 1 kHz 0.81 to 0.98) while the noisy simulated and the real data changed little.

Deviations from the paper: the default filter window is 10 ms, not 20 ms; the iteration starts at
40 deg/s, not 100-300 (both above); segment edges are padded with the edge value; glissades
(post-saccadic oscillations) are not a separate class; their samples join the following fixation
if slow, or form a saccade if above ``PT``. The paper's acceleration criterion for noise
(100 000 deg/s^2) and its extension of noise periods to the surrounding median speed are not used
(at 30-60 Hz the acceleration is not estimable); only the speed ceiling is. The threshold is
estimated per recording (the paper: per trial).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from gazeprivacy._validation import check_int, check_positive
from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["AdaptiveParams", "adaptive_saccades", "adaptive_threshold"]

_TOL = 1e-9


@dataclass(frozen=True, kw_only=True, slots=True)
class AdaptiveParams:
    """Settings of the Nystroem & Holmqvist (2010) detector; durations in seconds.

    ``window_s=None`` means two-point differences (no smoothing). Use :meth:`for_rate` for
    the defaults at a sampling rate.

    >>> AdaptiveParams.for_rate(1000).window_s, AdaptiveParams.for_rate(30).window_s
    (0.01, None)
    >>> AdaptiveParams().samples(30)
    {'window': 3, 'minimum_saccade': 1, 'minimum_fixation': 2, 'local_noise': 3}
    """

    initial_threshold_deg_s: float = 40.0
    peak_sd: float = 6.0
    onset_sd: float = 3.0
    convergence_deg_s: float = 1.0
    max_iterations: int = 100
    window_s: float | None = 0.01
    polyorder: int = 2
    minimum_saccade_duration_s: float = 0.01
    minimum_fixation_duration_s: float = 0.04
    local_noise_window_s: float = 0.04
    max_speed_deg_s: float = 1000.0
    implausible_threshold_deg_s: float = 300.0

    def __post_init__(self) -> None:
        check_positive(initial_threshold_deg_s=self.initial_threshold_deg_s)
        check_positive(peak_sd=self.peak_sd)
        check_positive(onset_sd=self.onset_sd)
        check_positive(convergence_deg_s=self.convergence_deg_s)
        check_int(max_iterations=self.max_iterations)
        if self.window_s is not None:
            check_positive(window_s=self.window_s)
        check_int(polyorder=self.polyorder)
        check_positive(minimum_saccade_duration_s=self.minimum_saccade_duration_s)
        check_positive(minimum_fixation_duration_s=self.minimum_fixation_duration_s)
        check_positive(local_noise_window_s=self.local_noise_window_s)
        check_positive(max_speed_deg_s=self.max_speed_deg_s)
        check_positive(implausible_threshold_deg_s=self.implausible_threshold_deg_s)
        if self.onset_sd >= self.peak_sd:
            raise InvalidParameterError(
                f"onset_sd must be < peak_sd ({self.peak_sd}), got {self.onset_sd}")
        if self.max_speed_deg_s <= self.initial_threshold_deg_s:
            raise InvalidParameterError(
                f"max_speed_deg_s must be > initial_threshold_deg_s "
                f"({self.initial_threshold_deg_s}), got {self.max_speed_deg_s}")

    @classmethod
    def for_rate(cls, sampling_rate_hz: float, **changes: object) -> AdaptiveParams:
        """The defaults at ``sampling_rate_hz``: a 10 ms Savitzky-Golay window at 100 Hz and
        above, two-point differences below (see the module docstring); ``changes`` override."""
        check_positive(sampling_rate_hz=sampling_rate_hz)
        base = cls() if sampling_rate_hz >= 100.0 else cls(window_s=None)
        return replace(base, **changes) if changes else base

    def samples(self, sampling_rate_hz: float) -> dict[str, int]:
        """The durations in samples at ``sampling_rate_hz`` (with the minimums above)."""
        from gazeprivacy.events.kinematics import window_samples

        def n(s: float, lo: int) -> int:
            return max(lo, math.ceil(s * sampling_rate_hz - _TOL))

        return {
            "window": (2 if self.window_s is None
                       else window_samples(self.window_s, sampling_rate_hz,
                                           polyorder=self.polyorder)),
            "minimum_saccade": n(self.minimum_saccade_duration_s, 1),
            "minimum_fixation": n(self.minimum_fixation_duration_s, 2),
            "local_noise": n(self.local_noise_window_s, 3),
        }


def adaptive_threshold(speed: np.ndarray, params: AdaptiveParams | None = None,
                       ) -> tuple[float, float, int]:
    """The data-driven peak and onset thresholds (deg/s) and the number of iterations.

    ``speed`` may hold NaN (ignored) and noise above ``max_speed_deg_s`` (ignored). With no
    usable speed the thresholds are NaN.

    >>> rng = np.random.default_rng(0)
    >>> peak, onset, it = adaptive_threshold(np.abs(rng.normal(10, 2, 5000)))
    >>> bool(20 < peak < 25), bool(14 < onset < 18)
    (True, True)
    """
    p = AdaptiveParams() if params is None else params
    v = np.asarray(speed, dtype=np.float64)
    v = v[~np.isnan(v) & (v <= p.max_speed_deg_s)]
    pt = p.initial_threshold_deg_s
    mu = sd = math.nan
    for it in range(1, p.max_iterations + 1):
        below = v[v < pt]
        if below.size < 2:
            return (math.nan, math.nan, it) if math.isnan(mu) else (pt, mu + p.onset_sd * sd, it)
        mu, sd = float(below.mean()), float(below.std())
        new = mu + p.peak_sd * sd
        done = abs(new - pt) < p.convergence_deg_s
        pt = new
        if done:
            break
    return pt, mu + p.onset_sd * sd, it


def _local_min_back(v: np.ndarray, i: int, lo: int, thr: float) -> int:
    """Walk back from ``i`` to the first sample >= ``lo`` below ``thr`` at a local minimum."""
    while i > lo and not (v[i] < thr and v[i - 1] >= v[i]):
        i -= 1
    return i


def _local_min_fwd(v: np.ndarray, i: int, hi: int, thr: float) -> int:
    """Walk forward from ``i`` to the first sample < ``hi`` below ``thr`` at a local minimum."""
    while i < hi - 1 and not (v[i] < thr and v[i + 1] >= v[i]):
        i += 1
    return i


def adaptive_saccades(speed: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                      params: AdaptiveParams, sampling_rate_hz: float,
                      ) -> tuple[list[tuple[int, int]], float, float]:
    """Saccades ``[(onset, offset), ...]`` (offset exclusive) of one recording's ``speed``
    over its gap-free segments ``starts``/``ends``, with the peak and onset thresholds."""
    ok = ~np.isnan(speed) & (speed <= params.max_speed_deg_s)
    peak_thr, onset_thr, _ = adaptive_threshold(np.where(ok, speed, np.nan), params)
    out: list[tuple[int, int]] = []
    if math.isnan(peak_thr):
        return out, peak_thr, onset_thr
    n = params.samples(sampling_rate_hz)
    v = np.where(ok, speed, np.inf)  # noise samples never end a saccade search on their own
    for a, e in zip(starts, ends, strict=True):
        seg = v[a:e]
        above = np.flatnonzero((seg > peak_thr) & np.isfinite(seg))
        if above.size == 0:
            continue
        run_start = above[np.r_[True, np.diff(above) > 1]]
        last_off = 0
        for r in run_start:
            if r < last_off:
                continue
            on = _local_min_back(seg, int(r), 0, onset_thr)
            on_first = on + 1 if seg[on] < onset_thr else on
            noise = seg[max(0, on - n["local_noise"]):on]
            noise = noise[np.isfinite(noise)]
            off_thr = onset_thr
            if noise.size >= 2:  # mean + onset_sd * sd (population sd, as np.std)
                m = float(noise.sum()) / noise.size
                sd = math.sqrt(max(float(np.dot(noise, noise)) / noise.size - m * m, 0.0))
                off_thr = 0.7 * onset_thr + 0.3 * (m + params.onset_sd * sd)
            off = _local_min_fwd(seg, int(r), e - a, off_thr)
            off_end = off if seg[off] < off_thr else off + 1
            on_first = max(on_first, last_off)
            if off_end - on_first >= n["minimum_saccade"]:
                out.append((a + on_first, a + off_end))
            last_off = max(last_off, off_end)
    return out, peak_thr, onset_thr
