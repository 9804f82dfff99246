# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""REMoDNaV: fixations, saccades and smooth pursuit (the library's default detector).

Dar, A. H., Wagner, A. S., & Hanke, M. (2021). REMoDNaV: robust eye-movement classification for
dynamic stimulation. *Behavior Research Methods*, 53, 399-414. doi:10.3758/s13428-020-01428-x.
It extends Nystroem & Holmqvist's (2010) adaptive velocity thresholds with thresholds adapted
per saccade context and a pursuit class (low-pass filtered drift above 2 deg/s), and was built
for natural viewing with moving stimuli. The classifier itself is the ``remodnav`` package
(``remodnav.EyegazeClassifier``, version 1.1.2, imported lazily and without statsmodels, whose
MAD it replaces: ``gazeprivacy.events._remodnav_fast``, which also holds bit-identical faster
versions of its hot loops, compiled in ``_remodnav_loop.c`` when built:
``gazeprivacy.events._remodnav_compiled``); this module only feeds it and maps its labels.

How it is fed (each choice tested in ``tests/events/test_remodnav.py``):

* **Degrees in, ``px2deg = 1``.** Gaze is already in degrees; distances are Euclidean on
  ``x, y`` (for VR geometry, azimuth / elevation degrees: close to the great circle within
  about 30 deg of the horizon).
* **Gaps.** REMoDNaV raises on NaN. It runs on every gap-free segment (split by missing samples
  and by timestamp gaps longer than ``max_interval_s``, as the other detectors) on its own;
  missing samples belong to no event. REMoDNaV widens signal losses of at least
  ``min_blink_duration_s`` by ``dilate_gap_s`` on each side (the eyelid distorts the samples
  beside a blink); here the same samples are left out of their segment (no event). A segment
  too short for the filters (:meth:`RemodnavParams.min_segment_samples`) gets no event.
* **Labels.** ``FIXA`` -> fixation, ``PURS`` -> pursuit, ``SACC`` / ``ISAC`` -> saccade;
  post-saccadic oscillations (``HPSO`` / ``LPSO`` / ``IHPS`` / ``ILPS``) join the saccade before
  them (the event table has no glissade class, and a glissade is the end of its saccade's
  movement). A REMoDNaV saccade runs from the sample where the two-point speed is at its onset
  minimum (still at the fixation) to the landing sample; both go to the fixation or pursuit
  beside them (when the saccade keeps a sample), so the saccade holds the samples in flight:
  at 500 Hz this moves 2 ms, at 60 Hz it halves the excess (simulator saccade kappa 0.49 ->
  0.63 at 60 Hz, 0.75 -> 0.78 at 500 Hz). Samples REMoDNaV leaves unlabelled (e.g. a stretch
  between two saccades shorter than the minimum fixation) belong to no event.
* **Per-rate settings** (:meth:`RemodnavParams.for_rate`). REMoDNaV's defaults assume about
  1000 Hz (its validation data). Every duration is converted to whole samples (never below one
  sample; REMoDNaV truncates, and at 250 Hz its 19 ms Savitzky-Golay window would be an even
  4 samples, which it refuses: the window is the odd number of samples at or just above
  ``savgol_length_s``). Below 200 Hz the Savitzky-Golay filter is off (a 3-sample window of
  order 2 is the identity), post-saccadic oscillations are not looked for
  (``max_pso_duration_s = 0``: a 10-40 ms glissade is under three samples at 60 Hz), and the
  pursuit threshold is 4 deg/s instead of 2: on the simulator's fixations (no pursuit) at 60 Hz
  the low-passed drift and noise pass 2 deg/s often enough to label 9 % of the samples pursuit
  (5 % at 4 deg/s; 1-2 % at >= 250 Hz with 2 deg/s), and pursuit slower than 4 deg/s is rare
  and barely resolvable from 2-3 samples of noise per 50 ms. The noise factor (saccade
  thresholds = median + factor x MAD of the speeds) is 7 instead of 5: without the smoothing
  filter the unsmoothed speeds are noisier; on the simulator this lowers the saccade share at
  30 Hz from 24 % to 21 % (true: 10 %) and raises every kappa at 30 and 60 Hz by 0.01-0.03
  (neutral at 120 Hz), and on GazeGraph (30 Hz head-mounted) the share falls from 25 % to
  16 %.
* **At 60 Hz** the 10 ms minimum saccade is under one sample: it becomes one sample (17 ms), so
  every saccade of the data lasts 1-3 samples and counts; the two-point velocity of the sample
  after a saccade still carries its last interval, so the per-sample saccade kappa is expected
  to be well below that at 250-1000 Hz (the simulator gives 0.60 at 60 Hz against 0.80-0.83;
  ``docs/events.md``) while fixation and pursuit, which last tens of samples, keep most of
  their agreement (0.73 / 0.73 against 0.88-0.90 / 0.89). At 30 Hz the minimum fixation and
  pursuit (40 ms) are one sample, and the saccade share runs high (about 21 % on the simulator,
  against 10 % true: a saccade is one or two samples and its neighbours' speeds are high).

Plausibility: a recording is implausible for REMoDNaV when its global peak-velocity threshold
(the first step of the classifier, from the median-filtered speeds) exceeds
``implausible_threshold_deg_s`` (300 deg/s), or more than 10 % of those speeds exceed
``max_velocity_deg_s``: the speed noise is then as fast as saccades.
"""

from __future__ import annotations

import functools
import logging
import math
import threading
import types
import warnings
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from gazeprivacy._validation import check_positive
from gazeprivacy.data.recording import Recording
from gazeprivacy.events.kinematics import segments
from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["REMODNAV_LABELS", "RemodnavParams", "remodnav_codes"]

# Sample codes shared with gazeprivacy.events.detection: 0 none, 1 fixation, 2 saccade, 3 pursuit
_NONE, _FIX, _SAC, _PUR = 0, 1, 2, 3
#: REMoDNaV's labels -> sample code (post-saccadic oscillations join their saccade).
REMODNAV_LABELS = {"FIXA": _FIX, "PURS": _PUR, "SACC": _SAC, "ISAC": _SAC, "HPSO": _SAC,
                   "LPSO": _SAC, "IHPS": _SAC, "ILPS": _SAC}
_PSO = frozenset({"HPSO", "LPSO", "IHPS", "ILPS"})
_MAX_NOISE_SHARE = 0.10  # as the adaptive detector's check
_SAVGOL_POLYORDER = 2
_LOCK = threading.RLock()


@dataclass(frozen=True, kw_only=True)
class RemodnavParams:
    """REMoDNaV's settings in seconds and deg/s (its own defaults unless noted).

    Parameters
    ----------
    min_saccade_duration_s, min_intersaccade_duration_s, max_pso_duration_s, \
min_fixation_duration_s, min_pursuit_duration_s : float, s
        As REMoDNaV's options of the same names (0.01, 0.04, 0.04, 0.04, 0.04); each becomes
        whole samples, at least one (``max_pso_duration_s`` may be 0: no PSO detection).
    pursuit_velocity_threshold_deg_s : float
        Low-pass filtered speed above which a non-saccade stretch is pursuit (2.0).
    noise_factor : float
        Onset threshold = median + factor x MAD of the speeds; peak threshold twice that (5.0).
    start_velocity_threshold_deg_s : float
        Start of the adaptive threshold iteration (300).
    saccade_context_window_s : float
        Window around each velocity peak for its local thresholds (1.0).
    max_initial_saccade_frequency_hz : float
        Initial major-saccade detection stops at this rate (2.0).
    lowpass_cutoff_hz : float
        Butterworth low-pass cut-off for the pursuit test (4.0).
    savgol_length_s : float
        Savitzky-Golay window (0.019; 0 turns the filter off).
    median_filter_length_s : float
        Median filter behind the initial detection's speeds (0.05).
    max_velocity_deg_s : float
        Faster speeds are replaced by the previous one (1000).
    min_blink_duration_s, dilate_gap_s : float
        Gaps of at least ``min_blink_duration_s`` (0.02) lose ``dilate_gap_s`` (0.01) of samples
        on each side.
    implausible_threshold_deg_s : float
        A recording whose global peak threshold exceeds this is implausible (300; not a
        REMoDNaV option).
    """

    min_saccade_duration_s: float = 0.01
    min_intersaccade_duration_s: float = 0.04
    max_pso_duration_s: float = 0.04
    min_fixation_duration_s: float = 0.04
    min_pursuit_duration_s: float = 0.04
    pursuit_velocity_threshold_deg_s: float = 2.0
    noise_factor: float = 5.0
    start_velocity_threshold_deg_s: float = 300.0
    saccade_context_window_s: float = 1.0
    max_initial_saccade_frequency_hz: float = 2.0
    lowpass_cutoff_hz: float = 4.0
    savgol_length_s: float = 0.019
    median_filter_length_s: float = 0.05
    max_velocity_deg_s: float = 1000.0
    min_blink_duration_s: float = 0.02
    dilate_gap_s: float = 0.01
    implausible_threshold_deg_s: float = 300.0

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if name in ("max_pso_duration_s", "savgol_length_s", "median_filter_length_s",
                        "dilate_gap_s", "min_blink_duration_s"):
                if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
                    raise InvalidParameterError(f"{name} must be >= 0, got {value!r}")
            else:
                check_positive(**{name: value})

    @classmethod
    def for_rate(cls, sampling_rate_hz: float, **overrides: Any) -> RemodnavParams:
        """REMoDNaV's defaults; below 200 Hz the Savitzky-Golay filter and the PSO search off,
        a pursuit threshold of 4 deg/s and a noise factor of 7 (see the module docstring);
        ``overrides`` replace any field.

        >>> RemodnavParams.for_rate(60).max_pso_duration_s
        0.0
        >>> RemodnavParams.for_rate(500).savgol_length_s
        0.019
        """
        check_positive(sampling_rate_hz=sampling_rate_hz)
        low = ({"savgol_length_s": 0.0, "max_pso_duration_s": 0.0,
                "pursuit_velocity_threshold_deg_s": 4.0, "noise_factor": 7.0}
               if sampling_rate_hz < 200 else {})
        return cls(**{**low, **overrides})

    def samples(self, sampling_rate_hz: float) -> dict[str, int]:
        """Every duration in whole samples at ``sampling_rate_hz`` (what REMoDNaV is given).

        >>> p = RemodnavParams.for_rate(60).samples(60)
        >>> p["min_saccade"], p["min_fixation"], p["savgol"], p["max_pso"]
        (1, 2, 0, 0)
        >>> RemodnavParams().samples(250)["savgol"]
        5
        """
        sr = float(sampling_rate_hz)

        def n(seconds: float, minimum: int = 1) -> int:
            return max(minimum, math.floor(seconds * sr + 1e-9))

        sg = n(self.savgol_length_s, 0)
        sg = sg + 1 if sg % 2 == 0 else sg
        return {
            "min_saccade": n(self.min_saccade_duration_s),
            "min_intersaccade": n(self.min_intersaccade_duration_s),
            "max_pso": n(self.max_pso_duration_s, 0),
            "min_fixation": n(self.min_fixation_duration_s),
            "min_pursuit": n(self.min_pursuit_duration_s),
            "context": n(self.saccade_context_window_s),
            "savgol": sg if self.savgol_length_s > 0 and sg > _SAVGOL_POLYORDER + 1 else 0,
            "median": n(self.median_filter_length_s, 0),
            "min_blink": n(self.min_blink_duration_s, 0),
            "dilate": n(self.dilate_gap_s, 0),
        }

    def min_segment_samples(self, sampling_rate_hz: float) -> int:
        """The shortest segment given to REMoDNaV: longer than its filters and two minimum
        fixations (shorter segments get no event)."""
        s = self.samples(sampling_rate_hz)
        return max(s["savgol"] + 1, s["median"] + 1, 2 * s["min_fixation"] + 1, 5)


def _classifier(params: RemodnavParams, sr: float,
                kind: type | None = None) -> tuple[Any, dict[str, int]]:
    """REMoDNaV's classifier (``kind``; default with its hot methods replaced by bit-identical
    faster ones, :mod:`gazeprivacy.events._remodnav_fast`) and the durations in samples."""
    from gazeprivacy.events._remodnav_fast import lean_classifier_type  # lazy: remodnav

    s = params.samples(sr)

    def sec(k: int) -> float:  # REMoDNaV truncates seconds * rate: ask for k + 0.5 samples
        return (k + 0.5) / sr if k else 0.0

    return (kind or lean_classifier_type())(
        px2deg=1.0, sampling_rate=sr,
        pursuit_velthresh=params.pursuit_velocity_threshold_deg_s,
        noise_factor=params.noise_factor,
        velthresh_startvelocity=params.start_velocity_threshold_deg_s,
        min_intersaccade_duration=sec(s["min_intersaccade"]),
        min_saccade_duration=sec(s["min_saccade"]),
        max_initial_saccade_freq=params.max_initial_saccade_frequency_hz,
        saccade_context_window_length=sec(s["context"]),
        max_pso_duration=sec(s["max_pso"]),
        min_fixation_duration=sec(s["min_fixation"]),
        min_pursuit_duration=sec(s["min_pursuit"]),
        lowpass_cutoff_freq=params.lowpass_cutoff_hz), s


@functools.lru_cache(maxsize=64)
def _butter_sos(order: int, wn: float, btype: str, analog: bool) -> tuple[np.ndarray, np.ndarray]:
    """The filter design and its steady-state initial conditions, once per setting (REMoDNaV
    designs the filter again for every window, and ``sosfiltfilt`` solves for them each call)."""
    from scipy import signal

    sos = signal.butter(order, wn, btype=btype, analog=analog, output="sos")
    return sos, signal.sosfilt_zi(sos)


def _sosfiltfilt(sos: np.ndarray, zi: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``scipy.signal.sosfiltfilt(sos, x, padlen=min(default, len(x) - 1))`` with the initial
    conditions ``zi`` given (odd extension, forward and backward pass)."""
    x = np.asarray(x, dtype=np.float64)
    pad = min(3 * (2 * sos.shape[0] + 1), x.shape[0] - 1)
    ext = np.concatenate((2 * x[0] - x[pad:0:-1], x, 2 * x[-1] - x[-2:-pad - 2:-1])) if pad \
        else x
    y = _sosfilt(sos, ext, zi * ext[0])
    y = _sosfilt(sos, y[::-1], zi * y[-1])
    y = y[::-1]
    return y[pad:ext.shape[0] - pad] if pad else y


@functools.cache
def _sosfilt_kernel() -> Any:
    """SciPy's compiled second-order-sections loop behind ``scipy.signal.sosfilt`` (a private
    name: None when it moves), or None."""
    try:
        from scipy.signal._sosfilt import _sosfilt
    except ImportError:  # pragma: no cover - another SciPy layout: the public function
        return None
    return _sosfilt


def _sosfilt(sos: np.ndarray, x: np.ndarray, zi: np.ndarray) -> np.ndarray:
    """``scipy.signal.sosfilt(sos, x, zi=zi)[0]`` for a 1-D float64 ``x``: the same loop on the
    same arrays, without the public function's per-call checks and axis moves (REMoDNaV
    filters every fixation candidate: they were a third of its time, issue 18)."""
    kernel = _sosfilt_kernel()
    if kernel is None or sos.dtype != np.float64 or not sos.flags.c_contiguous:
        from scipy import signal

        return signal.sosfilt(sos, x, zi=zi)[0]
    y = np.array(x, dtype=np.float64, order="C").reshape(1, -1)  # filtered in place
    kernel(sos, y, np.array(zi, dtype=np.float64, order="C").reshape(1, *zi.shape))
    return y[0]


class _StableSignal:
    """Stands in for ``scipy.signal`` inside ``remodnav.clf`` during a call.

    REMoDNaV low-pass filters each fixation / pursuit candidate with an order-5 Butterworth
    filter in transfer-function form through ``filtfilt(method="gust")``. At 1000 Hz (cut-off
    4 Hz, 0.008 of Nyquist) Gustafsson's initial conditions go wrong on short windows: on the
    simulator's fixations the filtered drift reads 2.9 deg/s (median) instead of 0.2, above
    the 2 deg/s pursuit threshold, and a third of all samples became pursuit. Here the same
    filter runs as second-order sections with ``sosfiltfilt`` and odd padding (at most the
    window's length), which agrees with ``method="gust"`` where that works (500 Hz).
    """

    def __getattr__(self, name: str) -> Any:
        from scipy import signal

        return getattr(signal, name)

    @staticmethod
    def butter(order: int, wn: float, btype: str = "low", analog: bool = False) -> tuple:
        return _butter_sos(int(order), float(wn), str(btype), bool(analog)), None

    @staticmethod
    def filtfilt(design: tuple[np.ndarray, np.ndarray], _a: None, x: np.ndarray,
                 **_kw: Any) -> np.ndarray:
        if x.shape[0] < 2:
            return np.asarray(x, dtype=np.float64).copy()
        return _sosfiltfilt(*design, x)


def _median(a: Any, *args: Any, **kw: Any) -> Any:
    """``np.median``, the same value, without its per-call overhead for a non-empty 1-D float
    array without NaN (anything else goes to ``np.median``): REMoDNaV takes tens of thousands
    of medians of short windows, where that overhead was a third of its time (issue 18)."""
    if (args or kw or not isinstance(a, np.ndarray) or a.ndim != 1 or a.dtype != np.float64
            or a.shape[0] == 0):
        return np.median(a, *args, **kw)
    n = a.shape[0]
    k = n // 2
    part = np.partition(a, (k, n - 1) if n % 2 else (k - 1, k, n - 1))
    if np.isnan(part[-1]):  # (NaN sorts last)
        return np.median(a)
    lo = k if n % 2 else k - 1
    return np.add.reduce(part[lo:k + 1]) / (k + 1 - lo)  # np.median's mean of the middle one(s)


class _Numpy(types.ModuleType):
    """``numpy`` inside ``remodnav.clf`` during a call, with :func:`_median` as its median."""

    def __init__(self) -> None:
        super().__init__("numpy")
        self.__dict__.update({k: v for k, v in vars(np).items() if not k.startswith("__")})
        self.median = _median

    def __getattr__(self, name: str) -> Any:  # numpy's lazily loaded names
        return getattr(np, name)


_NUMPY = _Numpy()


def _mad(a: np.ndarray) -> float:
    """``statsmodels.robust.scale.mad`` (median absolute deviation from the median over the
    normal's 0.75 quantile) on a 1-D array, without its array-API overhead (REMoDNaV calls it
    up to 30 times per saccade candidate)."""
    a = np.asarray(a, dtype=np.float64)
    return float(_median(np.abs(a - _median(a)))) / 0.6744897501960817


def _find_peaks(vels: np.ndarray, threshold: float) -> list[list[Any]]:
    """``remodnav.clf.find_peaks`` with one fix: a run above ``threshold`` that starts at the
    first sample and lasts to the end is kept (1.1.2 tests ``if sac_on:``, which is False for
    index 0, so a window that is pursuit from start to end -- common below 250 Hz, where the
    window between two catch-up saccades has no slow sample -- became fixation).

    A run starts at a sample above the threshold and ends at the next sample below it
    (samples equal to it, or NaN, neither start nor end one); found run by run with
    ``searchsorted`` instead of REMoDNaV's sample-by-sample loop (the same runs and arrays).
    """
    vels = np.asarray(vels)
    n = len(vels)
    ups = (vels > threshold).nonzero()[0]
    if not ups.size:  # (no run: most stretches between saccades)
        return []
    downs = (vels < threshold).nonzero()[0]
    out = []
    k = 0
    while k < ups.size:
        on = int(ups[k])
        j = int(downs.searchsorted(on))
        off = int(downs[j]) if j < downs.size else None
        v = vels[on:] if off is None else vels[on:min(n, off + 1)]
        out.append([on, n - 1 if off is None else off, v[~np.isnan(v)]])
        if off is None:
            break
        k = int(ups.searchsorted(off + 1))
    return out


@contextmanager
def _quiet() -> Any:
    """REMoDNaV logs a warning per clipped speed and calls ``numpy.core`` (deprecated in
    NumPy 2): keep both out of the caller's output (the plausibility checks report instead).
    Meanwhile its low-pass filter runs through :class:`_StableSignal`, its peak finder is
    :func:`_find_peaks`, its MAD :func:`_mad` and its spike filter the bit-identical
    ``_remodnav_fast.filter_spikes`` (all restored after the call). One call at a
    time (a lock): the replacements are module globals of ``remodnav.clf``, and REMoDNaV is
    pure Python, so threads would not run it in parallel anyway."""
    from gazeprivacy.events._remodnav_fast import clf_module  # lazy: remodnav

    with _LOCK:
        yield from _patched(clf_module())


def _patched(clf_module: Any) -> Any:
    log = logging.getLogger("remodnav")
    level = log.level
    log.setLevel(logging.ERROR)
    from gazeprivacy.events._remodnav_fast import SILENT_LOG, filter_spikes

    saved = (clf_module.signal, clf_module.find_peaks, clf_module.mad, clf_module.np,
             clf_module.filter_spikes, clf_module.lgr)
    clf_module.signal, clf_module.find_peaks, clf_module.mad = _StableSignal(), _find_peaks, _mad
    # its logger is below ERROR during the call anyway: a no-op one skips ~10 calls per event
    clf_module.np, clf_module.filter_spikes, clf_module.lgr = _NUMPY, filter_spikes, SILENT_LOG
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=DeprecationWarning,
                                    message=r".*numpy\.core.*")
            # its adaptive threshold of speeds none of which is below the cut-off is the
            # median of no value: NaN (no saccade there), with NumPy's warnings
            warnings.filterwarnings("ignore", category=RuntimeWarning,
                                    message=r"Mean of empty slice|invalid value encountered")
            yield
    finally:
        (clf_module.signal, clf_module.find_peaks, clf_module.mad, clf_module.np,
         clf_module.filter_spikes, clf_module.lgr) = saved
        log.setLevel(level)


def _trimmed_segments(recording: Recording, max_interval_s: float,
                      s: dict[str, int]) -> list[tuple[int, int]]:
    """Gap-free segments, minus ``dilate`` samples beside each gap of >= ``min_blink``
    missing samples (never at the recording's own start or end)."""
    starts, ends = segments(recording, max_interval_s)
    n, d, blink = recording.n_samples, s["dilate"], max(1, s["min_blink"])
    idx = np.arange(n)
    valid = ~np.isnan(recording.x)
    # last valid sample at or before i / first valid sample at or after i
    prev_valid = np.maximum.accumulate(np.where(valid, idx, -1))
    next_valid = np.minimum.accumulate(np.where(valid, idx, n)[::-1])[::-1]
    out = []
    for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
        if d and a > 0 and a - 1 - prev_valid[a - 1] >= blink:
            a += d
        if d and b < n and next_valid[b] - b >= blink:
            b -= d
        if b > a:
            out.append((a, b))
    return out


def _segment_events(clf: Any, s: dict[str, int], x: np.ndarray, y: np.ndarray,
                    max_velocity: float) -> tuple[np.ndarray, list[Any], list[tuple[int, int]]]:
    """REMoDNaV on one gap-free segment: its preprocessed samples, its events and the
    stretches between saccades the lean classifier left for later (its
    ``deferred_fix_or_pursuit``; classified by
    :func:`gazeprivacy.events._remodnav_batch.fix_or_pursuit_all`, over a recording's
    segments at once)."""
    data = np.rec.fromarrays([x.copy(), y.copy()], names=["x", "y"])
    pp = clf.preproc(data, min_blink_duration=0.0, dilate_nan=0.0,
                     median_filter_length=(s["median"] + 0.5) / clf.sr if s["median"] else 0.0,
                     savgol_length=(s["savgol"] + 0.5) / clf.sr if s["savgol"] else 0.0,
                     savgol_polyord=_SAVGOL_POLYORDER, max_vel=max_velocity)
    # a plain structured array, not REMoDNaV's record array: the same fields and values, without
    # the record array's Python-level item access (REMoDNaV reads it sample by sample)
    pp = pp.view(np.ndarray).view(np.dtype([(f, pp.dtype[f]) for f in pp.dtype.names]))
    clf.deferred = []
    events = clf(pp, classify_isp=True, sort_events=True)
    return pp, events, clf.deferred


def _deferred_events(clf: Any, runs: list[tuple[np.ndarray, list[tuple[int, int]]]]
                     ) -> list[list[tuple[str, int, int]]]:
    """Per segment (its preprocessed samples and deferred stretches), the fixation / pursuit
    events of its stretches (segment sample indices), all segments in one batch."""
    if not any(w for _, w in runs):
        return [[] for _ in runs]
    from gazeprivacy.events._remodnav_batch import fix_or_pursuit_all

    offsets = np.cumsum([0] + [len(pp) for pp, _ in runs])
    data = {k: np.concatenate([pp[k] for pp, _ in runs]) for k in ("x", "y")}
    windows = [(int(o) + a, int(o) + b)
               for o, (_, ws) in zip(offsets[:-1], runs, strict=True) for a, b in ws]
    out: list[list[tuple[str, int, int]]] = [[] for _ in runs]
    for label, a, b in fix_or_pursuit_all(clf, data, windows):
        i = int(np.searchsorted(offsets, a, side="right")) - 1  # (no event crosses a segment)
        out[i].append((label, a - int(offsets[i]), b - int(offsets[i])))
    return out


def _segment_codes(n: int, sr: float, events: list[Any], deferred: list[tuple[str, int, int]]
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Codes and event starts of one gap-free segment of ``n`` samples from its REMoDNaV
    events and its deferred fixation / pursuit events."""
    code = np.full(n, _NONE, dtype=np.int8)
    start = np.zeros(n, dtype=bool)
    for label, a, b in deferred:
        if min(n, b) > a:
            code[a:min(n, b)] = REMODNAV_LABELS[label]
            start[a] = True
    sacs = []
    for e in events:
        a = round(float(e["start_time"]) * sr)
        b = min(n, round(float(e["end_time"]) * sr))
        if b <= a:
            continue
        if REMODNAV_LABELS[e["label"]] == _SAC:
            sacs.append((a, b, e["label"] in _PSO))
            continue
        code[a:b] = REMODNAV_LABELS[e["label"]]
        start[a] = True
    # saccades (and their PSOs) on top; a saccade's first sample (still at the fixation) and
    # last (already landed) go to the events beside it
    for a, b, pso in sacs:
        if not pso and b - a >= 2:
            if a > 0 and code[a - 1] in (_FIX, _PUR):
                code[a] = code[a - 1]
                a += 1
            if b - a >= 2 and b < n and code[b] in (_FIX, _PUR) and not start[b - 1]:
                code[b - 1] = code[b]
                start[b] = False
                b -= 1
        code[a:b] = _SAC
        start[a] = start[a] or not pso
        if b < n:
            start[b] = True  # whatever follows starts a new run
    return code, start


def remodnav_codes(recording: Recording, params: RemodnavParams,
                   max_interval_s: float) -> tuple[np.ndarray, np.ndarray, bool]:
    """REMoDNaV on every gap-free segment of ``recording``.

    Returns
    -------
    code : numpy.ndarray of int8
        Per sample: 0 no event, 1 fixation, 2 saccade, 3 pursuit.
    starts : numpy.ndarray of bool
        Samples where an event starts (a run of equal codes is cut there).
    implausible : bool
        The recording fails REMoDNaV's plausibility check (module docstring).
    """
    sr = float(recording.sampling_rate_hz)
    n = recording.n_samples
    code = np.full(n, _NONE, dtype=np.int8)
    starts = np.zeros(n, dtype=bool)
    min_len = params.min_segment_samples(sr)
    speeds = []
    with _quiet():
        clf, s = _classifier(params, sr)
        segs = _trimmed_segments(recording, max_interval_s, s)
        long = [(a, b) for a, b in segs if b - a >= min_len]
        xy = {}
        if getattr(clf, "spikes_filtered", False):  # its preproc leaves the spike filter to us
            from gazeprivacy.events._remodnav_fast import spike_filtered_pieces

            done = spike_filtered_pieces([recording.x[a:b] for a, b in long]
                                         + [recording.y[a:b] for a, b in long])
            xy = {ab: (done[i], done[len(long) + i]) for i, ab in enumerate(long)}
        runs = []
        for a, b in segs:
            starts[a] = True
            if b < n:
                starts[b] = True
            if b - a >= min_len:
                x, y = xy.get((a, b), (recording.x[a:b], recording.y[a:b]))
                runs.append(((a, b), *_segment_events(clf, s, x, y, params.max_velocity_deg_s)))
        later = _deferred_events(clf, [(pp, w) for _, pp, _, w in runs])
        for ((a, b), pp, events, _), fp in zip(runs, later, strict=True):
            c, st = _segment_codes(b - a, clf.sr, events, fp)
            code[a:b] = c
            starts[a:b] |= st
            speeds.append(np.asarray(pp["med_vel"][1:], dtype=np.float64))
        implausible = False
        if speeds:
            v = np.concatenate(speeds)
            v = v[np.isfinite(v)]
            if v.size:
                peak = clf.get_adaptive_saccade_velocity_velthresh(v)[0]
                noisy = np.count_nonzero(v > params.max_velocity_deg_s) > _MAX_NOISE_SHARE * v.size
                implausible = bool(peak > params.implausible_threshold_deg_s or noisy)
    return code, starts, implausible
