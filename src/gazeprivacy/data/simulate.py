# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""A physiologically plausible gaze simulator for tests, benchmarks and scale work.

The simulator produces :class:`~gazeprivacy.data.Recording` objects that look like screen-based
or VR eye-tracking data at any sampling rate (realistic for 30-1000 Hz): fixations with slow
drift (a random walk), tremor and microsaccades; saccades on the main sequence with a smooth,
skewed velocity profile; blinks as NaN gaps; white measurement noise; and a pupil channel.

Two layers of randomness make the data useful for privacy work:

* **Participant traits** (:class:`ParticipantTraits`, drawn by :func:`draw_traits`) are stable
  across tasks and sessions: saccade velocity gain and profile skew, fixation-duration
  distribution, fixation dispersion, drift speed, tremor amplitude, microsaccade rate, amplitude
  gain and direction preferences, saccade latency and undershoot, blink rate and duration, pupil
  baseline and variability. They make participants re-identifiable, as real gaze is.
* **Task models** (:data:`TASKS`) fix the scan pattern: ``"reading"`` (left-to-right saccades of
  about 2 deg along lines, regressions, return sweeps to the next line), ``"free-viewing"``
  (larger saccades with a centre bias) and ``"random-dot"`` (a target jumps to a random place at
  fixed intervals; primary saccade after a latency, undershoot, corrective saccade).

Saccade kinematics follow the main sequence: duration ``D = (2.2 ms/deg * A + 21 ms) / g`` with
the participant's velocity gain ``g`` (and 8 % log-normal jitter), and a beta-shaped velocity
profile ``v(u) ~ u^(a-1) (1-u)^(b-1)`` (``u`` = normalised time; ``b = skew * a`` puts the peak
early, as in real saccades) whose peak-to-mean ratio is chosen so that the peak velocity
follows ``V = g * V_max (1 - exp(-A / C))`` with ``V_max = 600 deg/s`` and ``C = 12 deg`` where
the profile family allows it. Positions inside a saccade are the regularised incomplete beta
function, i.e. the exact integral of that profile, so any sampling rate sees the same movement.

The default screen (:data:`DEFAULT_GEOMETRY`) is 1920 x 1080 px at 35 px/deg (about
54.9 x 30.9 deg, a 24-inch monitor at roughly 65 cm), origin top-left, ``y`` downwards. Fixation
targets stay 0.5 deg inside it; noise and drift may leave a point slightly outside, as real
trackers do. See ``docs/simulator.md`` for the statistics table and the realism checks.

Randomness: every function takes a required ``rng``; :func:`simulate_dataset` spawns one child
generator for the traits and one per recording, so :func:`iter_simulated_recordings` (streaming)
and :func:`simulate_dataset` give identical arrays for the same seed.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

import numpy as np
from scipy.signal import lfilter
from scipy.special import betainc, betaln, gammaincinv

from gazeprivacy._registry import Registry
from gazeprivacy._validation import check_int, check_positive, check_range
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import InvalidParameterError

__all__ = [
    "DEFAULT_GEOMETRY",
    "EVENT_CODES",
    "TASKS",
    "FreeViewingTask",
    "ParticipantTraits",
    "RandomDotTask",
    "ReadingTask",
    "ScanPath",
    "TaskModel",
    "default_measurement_noise_deg",
    "draw_traits",
    "iter_simulated_recordings",
    "simulate_dataset",
    "simulate_recording",
]

DEFAULT_GEOMETRY = Geometry.screen_px(width_px=1920, height_px=1080, px_per_deg=35.0)
"""1920 x 1080 px at 35 px/deg (about 54.9 x 30.9 deg), origin top-left, ``y`` downwards."""

EVENT_CODES: Mapping[str, int] = {"fixation": 0, "saccade": 1, "microsaccade": 2, "blink": 3}
"""Codes of the optional ``event_code`` ground-truth channel (``ground_truth=True``)."""

# Main sequence (Bahill, Clark & Stark 1975; Collewijn et al. 1988): duration slope/intercept and
# the exponential peak-velocity law. The velocity gain of a participant scales both.
_DURATION_SLOPE_S_PER_DEG = 0.0022
_DURATION_INTERCEPT_S = 0.021
_V_MAX_DEG_S = 600.0
_C_DEG = 12.0
_MARGIN_DEG = 0.5


# --------------------------------------------------------------------------------------------
# participant traits
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True, kw_only=True)
class ParticipantTraits:
    """Oculomotor traits of one simulated participant, stable across tasks and sessions.

    Parameters
    ----------
    participant : str
        Participant identifier.
    saccade_velocity_gain : float, > 0
        Multiplies main-sequence peak velocity and divides saccade duration (population ~1).
    saccade_skew : float, >= 1
        Ratio ``b / a`` of the beta velocity profile; larger puts the peak earlier.
    fixation_duration_median_s : float, > 0
        Median of the participant's fixation durations before the task factor.
    fixation_duration_shape : float, > 0
        Shape ``k`` of the gamma distribution of fixation durations (larger = more regular).
    fixation_dispersion_deg : float, >= 0
        Standard deviation (per axis) of microsaccade landing points around the fixation centre.
    drift_speed_deg_s : float, >= 0
        Drift random-walk scale: standard deviation (per axis) of the drift displacement after
        1 s (it grows with the square root of time).
    tremor_amplitude_deg : float, >= 0
        Standard deviation of tremor (per axis), modelled as AR(1) noise with a 1.8 ms
        correlation time: a ~90 Hz oscillation is white noise to trackers at <= 200 Hz.
    microsaccade_rate_hz : float, >= 0
        Microsaccades per second of fixation.
    amplitude_gain : float, > 0
        Multiplies the task's typical saccade amplitude.
    horizontal_bias : float, in [0, 1]
        Fraction of free-viewing saccades drawn near the horizontal axis.
    direction_offset_deg : float
        Tilt of the preferred (horizontal) saccade axis.
    saccade_latency_s : float, > 0
        Median latency of a saccade to a new target (random-dot task).
    undershoot_gain : float, in (0, 1.2]
        Gain of primary saccades to a target (< 1: undershoot, then a corrective saccade).
    blink_rate_hz : float, >= 0
        Blinks per second (Poisson process).
    blink_duration_s : float, > 0
        Mean blink duration (log-normal, 25 % spread).
    pupil_baseline_mm : float, > 0
        Mean pupil diameter.
    pupil_variability_mm : float, >= 0
        Standard deviation of the slow pupil fluctuation (AR(1), 2 s time constant).

    Examples
    --------
    >>> traits = draw_traits(2, rng=np.random.default_rng(0))
    >>> [t.participant for t in traits]
    ['p01', 'p02']
    >>> ParticipantTraits(**{**traits[0].to_dict(), "blink_rate_hz": -1.0})
    Traceback (most recent call last):
    ...
    gazeprivacy.exceptions.InvalidParameterError: blink_rate_hz must be >= 0, got -1.0
    """

    participant: str
    saccade_velocity_gain: float
    saccade_skew: float
    fixation_duration_median_s: float
    fixation_duration_shape: float
    fixation_dispersion_deg: float
    drift_speed_deg_s: float
    tremor_amplitude_deg: float
    microsaccade_rate_hz: float
    amplitude_gain: float
    horizontal_bias: float
    direction_offset_deg: float
    saccade_latency_s: float
    undershoot_gain: float
    blink_rate_hz: float
    blink_duration_s: float
    pupil_baseline_mm: float
    pupil_variability_mm: float

    def __post_init__(self) -> None:
        for name in ("saccade_velocity_gain", "fixation_duration_median_s",
                     "fixation_duration_shape", "amplitude_gain", "saccade_latency_s",
                     "blink_duration_s", "pupil_baseline_mm"):
            check_positive(**{name: getattr(self, name)})
        for name in ("fixation_dispersion_deg", "drift_speed_deg_s", "tremor_amplitude_deg",
                     "microsaccade_rate_hz", "blink_rate_hz", "pupil_variability_mm"):
            check_positive(allow_zero=True, **{name: getattr(self, name)})
        check_range(lo=1.0, hi=4.0, saccade_skew=self.saccade_skew)
        check_range(lo=0.0, hi=1.0, horizontal_bias=self.horizontal_bias)
        check_range(lo=-180.0, hi=180.0, direction_offset_deg=self.direction_offset_deg)
        check_range(lo=0.0, hi=1.2, lo_open=True, undershoot_gain=self.undershoot_gain)

    def to_dict(self) -> dict[str, Any]:
        """The traits as a plain dict (JSON-ready)."""
        return asdict(self)


def draw_traits(n: int, *, rng: np.random.Generator, blink_rate_hz: float = 0.25,
                prefix: str = "p") -> tuple[ParticipantTraits, ...]:
    """Draw ``n`` participants' traits from population distributions.

    The population ranges follow the eye-movement literature (e.g. Holmqvist et al., *Eye
    Tracking*, 2011; Rayner 1998 for reading): median fixation durations 190-330 ms, velocity
    gains within about +-15 %, blink rates log-normal around ``blink_rate_hz`` (30 % spread),
    blink durations 100-300 ms, pupil baselines 2.5-5.5 mm. ``docs/simulator.md`` lists them.

    Parameters
    ----------
    n : int, >= 1
        Number of participants; identifiers are ``f"{prefix}{i:02d}"`` from 1.
    rng : numpy.random.Generator
        Source of randomness.
    blink_rate_hz : float, >= 0
        Population median blink rate (0 disables blinks).
    prefix : str
        Identifier prefix.

    Returns
    -------
    tuple of ParticipantTraits

    Raises
    ------
    InvalidParameterError
        If ``n`` is not a positive integer or ``blink_rate_hz`` is negative.

    Examples
    --------
    >>> a = draw_traits(3, rng=np.random.default_rng(1))
    >>> b = draw_traits(3, rng=np.random.default_rng(1))
    >>> a == b, len(a)
    (True, 3)
    """
    check_int(n=n)
    check_positive(allow_zero=True, blink_rate_hz=blink_rate_hz)
    _check_rng(rng)
    u = rng.uniform(size=(n, 8))
    z = rng.normal(size=(n, 10))
    out = []
    width = max(2, len(str(n)))
    for i in range(n):
        out.append(ParticipantTraits(
            participant=f"{prefix}{i + 1:0{width}d}",
            saccade_velocity_gain=float(np.exp(0.12 * z[i, 0])),
            saccade_skew=float(1.1 + 0.8 * u[i, 0]),
            fixation_duration_median_s=float(
                np.clip(0.235 * np.exp(0.15 * z[i, 1]), 0.16, 0.34)),
            fixation_duration_shape=float(2.5 + 4.0 * u[i, 1]),
            fixation_dispersion_deg=float(0.08 + 0.22 * u[i, 2]),
            drift_speed_deg_s=float(0.08 + 0.25 * u[i, 3]),
            tremor_amplitude_deg=float(0.002 + 0.008 * u[i, 4]),
            microsaccade_rate_hz=float(0.3 + 1.5 * u[i, 5]),
            amplitude_gain=float(np.exp(0.18 * z[i, 2])),
            horizontal_bias=float(0.2 + 0.6 * u[i, 6]),
            direction_offset_deg=float(np.clip(8.0 * z[i, 3], -30, 30)),
            saccade_latency_s=float(np.clip(0.2 * np.exp(0.15 * z[i, 4]), 0.12, 0.35)),
            undershoot_gain=float(np.clip(0.92 + 0.03 * z[i, 5], 0.8, 1.0)),
            blink_rate_hz=float(blink_rate_hz * np.exp(0.3 * z[i, 6])),
            blink_duration_s=float(0.1 + 0.2 * u[i, 7]),
            pupil_baseline_mm=float(np.clip(4.0 + 0.6 * z[i, 7], 2.5, 5.5)),
            pupil_variability_mm=float(np.clip(0.15 * np.exp(0.4 * z[i, 8]), 0.03, 0.6)),
        ))
    return tuple(out)


# --------------------------------------------------------------------------------------------
# task models
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True, kw_only=True)
class ScanPath:
    """A task-level scan path, the output of a task model's ``plan``.

    Parameters
    ----------
    centres : array of shape (K, 2), degrees
        Fixation centres in order (finite).
    durations_s : array of shape (K,), seconds
        Fixation durations (> 0), microsaccades and drift included.
    saccade_durations_s : array of shape (K,), seconds, optional
        Durations (> 0) of the saccade that follows each fixation (the last one is never
        reached); by default they are drawn from the participant's main sequence.

    Examples
    --------
    >>> ScanPath(centres=np.zeros((2, 2)), durations_s=np.array([0.2, -1.0]))
    Traceback (most recent call last):
    ...
    gazeprivacy.exceptions.InvalidParameterError: ScanPath durations_s must be finite and > 0, \
found -1.0 at fixation 1
    """

    centres: np.ndarray
    durations_s: np.ndarray
    saccade_durations_s: np.ndarray | None = None

    def __post_init__(self) -> None:
        c = np.asarray(self.centres, dtype=np.float64)
        k = c.shape[0] if c.ndim == 2 else -1
        if c.ndim != 2 or c.shape[1] != 2 or k < 1 or not np.all(np.isfinite(c)):
            raise InvalidParameterError(
                f"ScanPath centres must be a finite (K, 2) array with K >= 1, got shape "
                f"{c.shape}")
        object.__setattr__(self, "centres", c)
        for name in ("durations_s", "saccade_durations_s"):
            a = getattr(self, name)
            if a is None:
                continue
            a = np.asarray(a, dtype=np.float64)
            if a.shape != (k,):
                raise InvalidParameterError(
                    f"ScanPath {name} must have shape ({k},) like centres, got {a.shape}")
            bad = np.flatnonzero(~(np.isfinite(a) & (a > 0)))
            if bad.size:
                raise InvalidParameterError(
                    f"ScanPath {name} must be finite and > 0, found {float(a[bad[0]])!r} at "
                    f"fixation {int(bad[0])}")
            object.__setattr__(self, name, a)


class TaskModel(Protocol):
    """What a task model provides (duck-typed; see :class:`ReadingTask` for an example).

    ``plan`` returns the scan path of ``n_fixations`` fixations (the simulator asks for about
    1.5 x ``expected_fixations`` and asks again, for twice as many, if they fall short of the
    recording); ``pupil_offset_mm`` shifts the pupil baseline during the task.
    """

    name: str
    description: str
    pupil_offset_mm: float

    def expected_fixations(self, traits: ParticipantTraits, duration_s: float) -> int: ...

    def plan(self, traits: ParticipantTraits, n_fixations: int, geometry: Geometry,
             rng: np.random.Generator) -> ScanPath: ...


def _fixation_durations(traits: ParticipantTraits, factor: float, n: int,
                        rng: np.random.Generator) -> np.ndarray:
    k = traits.fixation_duration_shape
    scale = traits.fixation_duration_median_s * factor / float(gammaincinv(k, 0.5))
    return np.maximum(rng.gamma(k, scale, size=n), 0.06)


def _inner_box(geometry: Geometry, margin: float) -> tuple[float, float, float, float]:
    m_x = min(margin, 0.25 * geometry.width_deg)
    m_y = min(margin, 0.25 * geometry.height_deg)
    return (geometry.x_min_deg + m_x, geometry.x_max_deg - m_x,
            geometry.y_min_deg + m_y, geometry.y_max_deg - m_y)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadingTask:
    """Reading a page of text: forward saccades along lines, regressions, return sweeps.

    Lines run left to right; the next line is at larger ``y`` (screen convention; smaller ``y``
    for ``Geometry(kind="vr")``). After the last line the page is turned and reading starts at
    the top again. Defaults follow Rayner (1998): forward saccades of about 2 deg (7-9
    letters at 3-4 letters/deg), 10-15 % regressions, fixations about 225 ms.
    """

    name: str = "reading"
    description: str = "left-to-right saccades of ~2 deg along lines, regressions, return sweeps"
    fixation_duration_factor: float = 0.9
    forward_amplitude_deg: float = 2.0
    forward_amplitude_shape: float = 6.0
    regression_probability: float = 0.12
    regression_amplitude_deg: float = 1.5
    line_spacing_deg: float = 1.2
    line_length_deg: float = 36.0
    lines_per_page: int = 18
    return_sweep_undershoot_deg: float = 1.5
    corrective_probability: float = 0.6
    vertical_jitter_deg: float = 0.15
    pupil_offset_mm: float = -0.2

    def __post_init__(self) -> None:
        for name in ("fixation_duration_factor", "forward_amplitude_deg",
                     "forward_amplitude_shape", "regression_amplitude_deg", "line_spacing_deg",
                     "line_length_deg"):
            check_positive(**{name: getattr(self, name)})
        check_positive(allow_zero=True,
                       return_sweep_undershoot_deg=self.return_sweep_undershoot_deg)
        check_positive(allow_zero=True, vertical_jitter_deg=self.vertical_jitter_deg)
        check_range(lo=0.0, hi=1.0, regression_probability=self.regression_probability)
        check_range(lo=0.0, hi=1.0, corrective_probability=self.corrective_probability)
        check_int(lines_per_page=self.lines_per_page)

    def expected_fixations(self, traits: ParticipantTraits, duration_s: float) -> int:
        return int(duration_s / (traits.fixation_duration_median_s
                                 * self.fixation_duration_factor + 0.025)) + 1

    def plan(self, traits: ParticipantTraits, n_fixations: int, geometry: Geometry,
             rng: np.random.Generator) -> ScanPath:
        x0, x1, y0, y1 = _inner_box(geometry, 3.0)
        if geometry.width_deg < 4 * self.forward_amplitude_deg + 6:
            raise InvalidParameterError(
                f"reading needs a screen wider than {4 * self.forward_amplitude_deg + 6:g} deg "
                f"(4 forward saccades plus margins), got {geometry.width_deg:g} deg; use a larger "
                "geometry or a smaller forward_amplitude_deg")
        left = x0
        right = min(x1, x0 + self.line_length_deg)
        n_lines = max(1, min(self.lines_per_page, int((y1 - y0) // self.line_spacing_deg) + 1))
        direction = -1.0 if geometry.kind == "vr" else 1.0
        top = y0 if direction > 0 else y1
        n = n_fixations
        gain = traits.amplitude_gain
        fwd = rng.gamma(self.forward_amplitude_shape,
                        self.forward_amplitude_deg * gain / self.forward_amplitude_shape, size=n)
        reg = rng.gamma(4.0, self.regression_amplitude_deg * gain / 4.0, size=n)
        u = rng.uniform(size=(n, 2))
        sweep_err = rng.gamma(3.0, max(self.return_sweep_undershoot_deg, 1e-9) / 3.0, size=n)
        jitter = rng.normal(0.0, self.vertical_jitter_deg, size=n)
        centres = np.empty((n, 2))
        # Sequential state machine (line position, line index): a plain loop over pre-drawn
        # numbers; it is per fixation (~4 per second of data), so it is cheap next to rendering.
        x = left + float(rng.uniform(0.0, 2.0))
        line = 0
        after_sweep = False
        for k in range(n):
            centres[k, 0] = x
            centres[k, 1] = top + direction * line * self.line_spacing_deg + jitter[k]
            if x >= right:  # return sweep to the next line, landing a little right of its start
                line = (line + 1) % n_lines
                x = left + float(sweep_err[k])
                after_sweep = True
            elif after_sweep and u[k, 1] < self.corrective_probability:
                x = max(left, x - 0.7 * float(sweep_err[k - 1]))  # k >= 1 after a sweep
                after_sweep = False
            elif u[k, 0] < self.regression_probability and x - reg[k] > left:
                x -= float(reg[k])
                after_sweep = False
            else:
                x += float(fwd[k])
                after_sweep = False
        return ScanPath(centres=centres,
                     durations_s=_fixation_durations(traits, self.fixation_duration_factor, n, rng))


@dataclass(frozen=True, slots=True, kw_only=True)
class FreeViewingTask:
    """Free viewing of images or video: larger saccades in all directions with a centre bias.

    Fixation centres follow ``p_k - c = rho (p_{k-1} - c) + s_k`` with ``c`` the screen centre,
    ``rho = 1 - centre_bias`` and ``s_k`` a saccade vector: gamma amplitude (median about
    ``amplitude_deg``, times the participant's gain), direction from the participant's
    preference (``horizontal_bias`` near the tilted horizontal axis, otherwise uniform), vertical
    components shrunk by ``vertical_scale``. Points are kept 0.5 deg inside the screen.
    """

    name: str = "free-viewing"
    description: str = "saccades of ~5-8 deg in all directions, centre bias, longer fixations"
    fixation_duration_factor: float = 1.15
    amplitude_deg: float = 8.0
    amplitude_shape: float = 2.5
    centre_bias: float = 0.35
    vertical_scale: float = 0.7
    pupil_offset_mm: float = 0.0

    def __post_init__(self) -> None:
        for name in ("fixation_duration_factor", "amplitude_deg", "amplitude_shape",
                     "vertical_scale"):
            check_positive(**{name: getattr(self, name)})
        check_range(lo=0.0, hi=1.0, hi_open=True, centre_bias=self.centre_bias)

    def expected_fixations(self, traits: ParticipantTraits, duration_s: float) -> int:
        return int(duration_s / (traits.fixation_duration_median_s
                                 * self.fixation_duration_factor + 0.035)) + 1

    def plan(self, traits: ParticipantTraits, n_fixations: int, geometry: Geometry,
             rng: np.random.Generator) -> ScanPath:
        n = n_fixations
        x0, x1, y0, y1 = _inner_box(geometry, _MARGIN_DEG)
        amp = rng.gamma(self.amplitude_shape, self.amplitude_deg * traits.amplitude_gain
                        / self.amplitude_shape, size=n)
        horizontal = rng.uniform(size=n) < traits.horizontal_bias
        side = np.where(rng.uniform(size=n) < 0.5, 0.0, np.pi)
        theta = np.where(horizontal, side + rng.vonmises(0.0, 8.0, size=n),
                         rng.uniform(-np.pi, np.pi, size=n))
        theta = theta + math.radians(traits.direction_offset_deg)
        step = np.column_stack([amp * np.cos(theta), self.vertical_scale * amp * np.sin(theta)])
        rho = 1.0 - self.centre_bias
        c = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
        # AR(1) around the centre, as a linear filter (vectorised, no Python loop).
        dev = lfilter([1.0], [1.0, -rho], step, axis=0)
        centres = c + dev
        np.clip(centres[:, 0], x0, x1, out=centres[:, 0])
        np.clip(centres[:, 1], y0, y1, out=centres[:, 1])
        return ScanPath(centres=centres,
                     durations_s=_fixation_durations(traits, self.fixation_duration_factor, n, rng))


@dataclass(frozen=True, slots=True, kw_only=True)
class RandomDotTask:
    """Random-dot (random saccade) task: a target jumps to a random place every interval.

    After the participant's latency a primary saccade lands at ``undershoot_gain`` of the way,
    a short fixation (``corrective_delay_s``) follows, then a corrective saccade to the target
    (with ``landing_error_deg`` scatter); the gaze stays there until the next jump. Targets are
    uniform on the screen at least ``margin_deg`` from the edges, as in GazeBase's random
    saccade task (targets every 1 s).
    """

    name: str = "random-dot"
    description: str = "large jumps to random targets every second, latency, undershoot"
    target_interval_s: float = 1.0
    margin_deg: float = 3.0
    corrective_delay_s: float = 0.14
    landing_error_deg: float = 0.3
    pupil_offset_mm: float = 0.3

    def __post_init__(self) -> None:
        for name in ("target_interval_s", "corrective_delay_s"):
            check_positive(**{name: getattr(self, name)})
        check_positive(allow_zero=True, margin_deg=self.margin_deg)
        check_positive(allow_zero=True, landing_error_deg=self.landing_error_deg)

    def expected_fixations(self, traits: ParticipantTraits, duration_s: float) -> int:
        return 2 * (int(duration_s / self.target_interval_s) + 2)

    def plan(self, traits: ParticipantTraits, n_fixations: int, geometry: Geometry,
             rng: np.random.Generator) -> ScanPath:
        m = max(2, n_fixations // 2)  # targets, the first at the centre
        x0, x1, y0, y1 = _inner_box(geometry, self.margin_deg)
        targets = np.column_stack([rng.uniform(x0, x1, size=m), rng.uniform(y0, y1, size=m)])
        targets[0] = ((x0 + x1) / 2, (y0 + y1) / 2)
        finals = targets + rng.normal(0.0, self.landing_error_deg, size=(m, 2))
        finals[0] = targets[0]
        gain = np.clip(traits.undershoot_gain + rng.normal(0.0, 0.04, size=m), 0.6, 1.1)
        primary = finals[:-1] + gain[1:, None] * (targets[1:] - finals[:-1])
        latency = np.clip(traits.saccade_latency_s * np.exp(rng.normal(0.0, 0.2, size=m)),
                          0.08, 0.6)
        corr = np.maximum(rng.gamma(4.0, self.corrective_delay_s / 4.0, size=m), 0.05)
        # Fixations: final_0, then (primary_j, final_j) for j = 1..m-1.
        k = 2 * m - 1
        centres = np.empty((k, 2))
        centres[0] = finals[0]
        centres[1::2] = primary
        centres[2::2] = finals[1:]
        amp = np.hypot(*np.diff(centres, axis=0).T)
        sac = np.empty(k)
        sac[:-1] = _saccade_durations(amp, traits, rng)
        sac[-1] = _DURATION_INTERCEPT_S
        # Schedule: the primary saccade to target j starts at j * interval + latency_j.
        onset = np.arange(m) * self.target_interval_s + latency
        dur = np.empty(k)
        dur[1::2] = corr[1:]
        # sac[i] follows fixation i: primaries are sac[0], sac[2], ..., correctives sac[1], ...
        end_corrective = onset[1:] + sac[0:-1:2] + corr[1:] + sac[1::2]  # gaze reaches final_j
        dur[0] = onset[1]
        dur[2:-1:2] = onset[2:] - end_corrective[:-1]
        dur[-1] = self.target_interval_s
        dur = np.maximum(dur, 0.05)
        return ScanPath(centres=centres, durations_s=dur, saccade_durations_s=sac)


TASKS: Registry[TaskModel] = Registry("simulated task", {
    "reading": ReadingTask(),
    "free-viewing": FreeViewingTask(),
    "random-dot": RandomDotTask(),
})
"""The task statistics table: name -> task model with its default statistics."""


# --------------------------------------------------------------------------------------------
# kinematics and rendering
# --------------------------------------------------------------------------------------------

def _saccade_durations(amp: np.ndarray, traits: ParticipantTraits,
                       rng: np.random.Generator) -> np.ndarray:
    law = _DURATION_SLOPE_S_PER_DEG * amp + _DURATION_INTERCEPT_S
    return law * np.exp(rng.normal(0.0, 0.08, size=amp.shape)) / traits.saccade_velocity_gain


_A_GRID = np.linspace(1.2, 12.0, 256)


def _peak_to_mean(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Peak of the Beta(a, b) density (= peak velocity / mean velocity of the profile)."""
    mode = (a - 1.0) / (a + b - 2.0)
    return np.exp((a - 1.0) * np.log(mode) + (b - 1.0) * np.log1p(-mode) - betaln(a, b))


def _profile_shape(amp: np.ndarray, skew: float) -> tuple[np.ndarray, np.ndarray]:
    """Beta parameters whose peak-to-mean ratio makes the peak velocity follow the exponential
    main sequence for the nominal (linear-law) duration, clipped to the family's range."""
    amp = np.maximum(amp, 1e-3)
    law_d = _DURATION_SLOPE_S_PER_DEG * amp + _DURATION_INTERCEPT_S
    q_target = _V_MAX_DEG_S * -np.expm1(-amp / _C_DEG) * law_d / amp
    q_grid = _peak_to_mean(_A_GRID, skew * _A_GRID)
    a = np.interp(q_target, q_grid, _A_GRID)
    return a, skew * a


def default_measurement_noise_deg(sampling_rate_hz: float) -> float:
    """Default white measurement noise (deg, per axis): ``0.03 * min(1, 100 / rate)``.

    High-rate research trackers are more precise per sample than 30-120 Hz consumer and VR
    trackers; this rule keeps sample-to-sample velocity noise near 4 deg/s per axis at any rate
    of at least 100 Hz, so a 30 deg/s I-VT threshold behaves alike across rates.

    >>> default_measurement_noise_deg(100.0), default_measurement_noise_deg(1000.0)
    (0.03, 0.003)
    """
    check_positive(sampling_rate_hz=sampling_rate_hz)
    return round(0.03 * min(1.0, 100.0 / sampling_rate_hz), 12)


def _render(plan: ScanPath, traits: ParticipantTraits, n_samples: int, rate: float,
            rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Positions ``(n, 2)`` and event codes for a plan, or None if the plan is too short."""
    # long: one vectorised pass (segments -> durations -> samples) whose dozen arrays feed each
    # other and whose random draws must stay in this order; split, the helpers would pass them all
    centres, fix_dur = plan.centres, plan.durations_s
    k_fix = centres.shape[0]
    # Microsaccades split a fixation into drift segments; segments per fixation:
    # drift, (micro, drift) * m, inter-fixation saccade.
    m = rng.poisson(traits.microsaccade_rate_hz * fix_dur)
    m = np.minimum(m, np.floor(fix_dur / 0.15)).astype(np.int64)
    n_seg = 2 * m + 2
    seg_fix = np.repeat(np.arange(k_fix), n_seg)
    first_of_fix = np.cumsum(n_seg) - n_seg
    j = np.arange(seg_fix.shape[0]) - first_of_fix[seg_fix]
    is_drift = j % 2 == 0
    is_inter = j == 2 * m[seg_fix] + 1
    is_micro = ~is_drift & ~is_inter
    target = np.empty((seg_fix.shape[0], 2))
    n_micro = int(is_micro.sum())
    target[is_micro] = (centres[seg_fix[is_micro]]
                        + rng.normal(0.0, traits.fixation_dispersion_deg, size=(n_micro, 2)))
    target[is_inter] = centres[np.minimum(np.arange(k_fix) + 1, k_fix - 1)]
    start = is_drift & (j == 0)
    target[start] = centres
    inner = np.flatnonzero(is_drift & (j > 0))
    target[inner] = target[inner - 1]
    # Durations: microsaccades from the main sequence, the rest of the fixation time split
    # among its drift segments, inter-fixation saccades from the plan or the main sequence.
    sac = np.flatnonzero(~is_drift)
    amp = np.zeros(seg_fix.shape[0])
    amp[sac] = np.hypot(*(target[sac] - target[sac - 1]).T)
    dur = np.empty(seg_fix.shape[0])
    dur[is_micro] = _saccade_durations(amp[is_micro], traits, rng)
    if plan.saccade_durations_s is not None:
        dur[is_inter] = plan.saccade_durations_s
    else:
        dur[is_inter] = _saccade_durations(amp[is_inter], traits, rng)
    micro_time = np.bincount(seg_fix[is_micro], weights=dur[is_micro], minlength=k_fix)
    budget = np.maximum(fix_dur - micro_time, 0.02 * (m + 1))
    w = rng.uniform(0.5, 1.5, size=int(is_drift.sum()))
    w_sum = np.bincount(seg_fix[is_drift], weights=w, minlength=k_fix)
    dur[is_drift] = budget[seg_fix[is_drift]] * w / w_sum[seg_fix[is_drift]]
    seg_start = np.concatenate([[0.0], np.cumsum(dur)[:-1]])
    t = np.arange(n_samples) / rate
    if seg_start[-1] + dur[-1] < t[-1] + 1.0 / rate:
        return None
    s_idx = np.searchsorted(seg_start, t, side="right") - 1
    first = np.searchsorted(t, seg_start, side="left")
    # Drift: one random walk for the whole recording, re-anchored at each drift segment.
    walk = np.cumsum(rng.normal(0.0, traits.drift_speed_deg_s / math.sqrt(rate),
                                size=(n_samples, 2)), axis=0)
    first_c = np.minimum(first, n_samples - 1)
    last = np.concatenate([first[1:], [n_samples]]) - 1
    has = last >= first
    end_off = np.where(has[:, None], walk[np.clip(last, 0, n_samples - 1)] - walk[first_c], 0.0)
    a, b = _profile_shape(amp, traits.saccade_skew)
    pos = np.empty((n_samples, 2))
    drift_s = is_drift[s_idx]
    di = np.flatnonzero(drift_s)
    ds = s_idx[di]
    pos[di] = target[ds] + walk[di] - walk[first_c[ds]]
    si = np.flatnonzero(~drift_s)
    ss = s_idx[si]
    begin = target[ss - 1] + end_off[ss - 1]
    u = np.clip((t[si] - seg_start[ss]) / dur[ss], 0.0, 1.0)
    frac = betainc(a[ss], b[ss], u)
    pos[si] = begin + (target[ss] - begin) * frac[:, None]
    code = np.where(drift_s, EVENT_CODES["fixation"],
                    np.where(is_micro[s_idx], EVENT_CODES["microsaccade"], EVENT_CODES["saccade"]))
    return pos, code.astype(np.float64), t


def _tremor(amplitude_deg: float, n: int, rate: float, rng: np.random.Generator) -> np.ndarray:
    """Tremor as AR(1) noise with a 1.8 ms correlation time (a ~90 Hz oscillation's band) and
    stationary standard deviation ``amplitude_deg``: white at <= 200 Hz, smoother at 1 kHz."""
    phi = math.exp(-1.0 / (rate * 0.0018))
    e = rng.normal(0.0, amplitude_deg * math.sqrt(1.0 - phi * phi), size=(n, 2))
    zi = phi * rng.normal(0.0, amplitude_deg, size=(1, 2))
    return lfilter([1.0], [1.0, -phi], e, axis=0, zi=zi)[0]


def _blink_mask(traits: ParticipantTraits, duration_s: float, rate: float, n: int,
                rng: np.random.Generator) -> np.ndarray:
    count = int(rng.poisson(traits.blink_rate_hz * duration_s))
    starts = rng.uniform(0.0, duration_s, size=count)
    sd = 0.25
    lengths = traits.blink_duration_s * np.exp(rng.normal(-sd * sd / 2, sd, size=count))
    i0 = np.minimum(np.ceil(starts * rate).astype(np.int64), n)
    i1 = np.minimum(np.ceil((starts + lengths) * rate).astype(np.int64), n)
    diff = np.zeros(n + 1, dtype=np.int64)
    np.add.at(diff, i0, 1)
    np.add.at(diff, i1, -1)
    return np.cumsum(diff[:-1]) > 0


def _pupil(traits: ParticipantTraits, task: TaskModel, n: int, rate: float,
           rng: np.random.Generator) -> np.ndarray:
    phi = math.exp(-1.0 / (2.0 * rate))  # AR(1) with a 2 s time constant
    sd = traits.pupil_variability_mm
    e = rng.normal(0.0, sd * math.sqrt(1.0 - phi * phi), size=n)
    slow = lfilter([1.0], [1.0, -phi], e, zi=[phi * rng.normal(0.0, sd)])[0]
    return (traits.pupil_baseline_mm + task.pupil_offset_mm + slow
            + rng.normal(0.0, 0.02, size=n))


# --------------------------------------------------------------------------------------------
# public entry points
# --------------------------------------------------------------------------------------------

def _check_rng(rng: Any) -> None:
    if not isinstance(rng, np.random.Generator):
        raise InvalidParameterError(
            f"rng must be a numpy.random.Generator, got {type(rng).__name__}; pass "
            "rng=numpy.random.default_rng(seed) or gazeprivacy.rng.make_rng(seed)")


def _resolve_task(task: str | TaskModel) -> TaskModel:
    if isinstance(task, str):
        return TASKS[task]
    if all(hasattr(task, a) for a in ("name", "plan", "expected_fixations", "pupil_offset_mm")):
        return task
    raise InvalidParameterError(
        f"task must be a name in TASKS ({', '.join(TASKS)}) or a task model such as "
        f"ReadingTask(...), got {task!r}")


def _check_common(duration_s: float, sampling_rate_hz: float, geometry: Geometry | None,
                  measurement_noise_deg: float | None) -> tuple[int, Geometry, float]:
    check_positive(duration_s=duration_s)
    check_range(lo=1.0, hi=5000.0, sampling_rate_hz=sampling_rate_hz)
    n = round(float(duration_s) * float(sampling_rate_hz))
    if n < 2:
        raise InvalidParameterError(
            f"duration_s * sampling_rate_hz must give at least 2 samples, got "
            f"{duration_s!r} s * {sampling_rate_hz!r} Hz = {duration_s * sampling_rate_hz:g}; "
            "increase duration_s")
    if geometry is None:
        geometry = DEFAULT_GEOMETRY
    elif not isinstance(geometry, Geometry):
        raise InvalidParameterError(
            f"geometry must be a gazeprivacy.data.Geometry or None, got {type(geometry).__name__}")
    if measurement_noise_deg is None:
        noise = default_measurement_noise_deg(sampling_rate_hz)
    else:
        noise = check_positive(allow_zero=True, measurement_noise_deg=measurement_noise_deg)
    return n, geometry, noise


def simulate_recording(*, traits: ParticipantTraits, task: str | TaskModel, duration_s: float,
                       sampling_rate_hz: float, rng: np.random.Generator,
                       geometry: Geometry | None = None, recording: str | None = None,
                       session: str = "1", measurement_noise_deg: float | None = None,
                       calibration_error_deg: float = 0.25,
                       ground_truth: bool = False) -> Recording:
    """Simulate one recording of one participant doing one task.

    Parameters
    ----------
    traits : ParticipantTraits
        The participant (see :func:`draw_traits`).
    task : str or task model
        A name in :data:`TASKS` or a task model instance (e.g. ``ReadingTask(lines_per_page=5)``).
    duration_s : float, > 0
        Length of the recording; ``round(duration_s * sampling_rate_hz)`` samples (>= 2).
    sampling_rate_hz : float, in [1, 5000]
        Sampling rate; timestamps are ``i / sampling_rate_hz`` (realistic for 30-1000 Hz).
    rng : numpy.random.Generator
        Source of randomness; the same generator state gives identical arrays.
    geometry : Geometry, optional
        Screen or field of view; default :data:`DEFAULT_GEOMETRY`.
    recording : str, optional
        Recording id; default ``f"{participant}_{task}_{session}"``.
    session : str
        Session label.
    measurement_noise_deg : float, >= 0, optional
        White tracker noise per axis; default :func:`default_measurement_noise_deg`.
    calibration_error_deg : float, >= 0
        Standard deviation (per axis) of a constant offset per recording (calibration error;
        drawn per recording, so it does not identify the participant).
    ground_truth : bool
        Add the per-sample ``event_code`` channel (:data:`EVENT_CODES`).

    Returns
    -------
    Recording
        ``t`` (s), ``x``, ``y`` (deg; NaN during blinks), ``pupil`` (mm; NaN during blinks),
        labels ``task`` and ``session``, and ``geometry``.

    Raises
    ------
    InvalidParameterError
        For a bad duration, rate, noise level, geometry, task name or rng.

    Examples
    --------
    >>> rng = np.random.default_rng(7)
    >>> p = draw_traits(1, rng=rng)[0]
    >>> rec = simulate_recording(traits=p, task="reading", duration_s=2.0,
    ...                          sampling_rate_hz=250, rng=rng)
    >>> rec.n_samples, rec.labels["task"], rec.sampling_rate_hz
    (500, 'reading', 250.0)
    """
    if not isinstance(traits, ParticipantTraits):
        raise InvalidParameterError(
            f"traits must be a ParticipantTraits (see draw_traits), got {type(traits).__name__}")
    model = _resolve_task(task)
    n, geometry, noise = _check_common(duration_s, sampling_rate_hz, geometry,
                                       measurement_noise_deg)
    check_positive(allow_zero=True, calibration_error_deg=calibration_error_deg)
    _check_rng(rng)
    rate = float(sampling_rate_hz)
    n_fix = model.expected_fixations(traits, duration_s) * 3 // 2 + 8
    while True:  # a plan that falls short (rare) is redrawn twice as long; still deterministic
        plan = model.plan(traits, n_fix, geometry, rng)
        out = _render(plan, traits, n, rate, rng)
        if out is not None:
            break
        n_fix *= 2
    pos, code, t = out
    pos += rng.normal(0.0, calibration_error_deg, size=2)
    pos += _tremor(traits.tremor_amplitude_deg, n, rate, rng)
    pos += rng.normal(0.0, noise, size=pos.shape)
    blink = _blink_mask(traits, n / rate, rate, n, rng)
    pupil = _pupil(traits, model, n, rate, rng)
    pos[blink] = np.nan
    pupil[blink] = np.nan
    channels = {}
    if ground_truth:
        code[blink] = EVENT_CODES["blink"]
        channels["event_code"] = code
    rec_id = recording if recording is not None else f"{traits.participant}_{model.name}_{session}"
    return Recording(recording=rec_id, participant=traits.participant, t=t, x=pos[:, 0],
                     y=pos[:, 1], sampling_rate_hz=rate,
                     labels={"task": model.name, "session": str(session)}, pupil=pupil,
                     geometry=geometry, channels=channels)


def _dataset_args(n_participants: int, tasks: Sequence[str | TaskModel] | str,
                  recordings_per_task: int, blink_rate_hz: float,
                  traits: Sequence[ParticipantTraits] | None,
                  rng: np.random.Generator) -> tuple[tuple[TaskModel, ...], np.random.Generator,
                                                     tuple[ParticipantTraits, ...]]:
    check_int(n_participants=n_participants)
    check_int(recordings_per_task=recordings_per_task)
    check_positive(allow_zero=True, blink_rate_hz=blink_rate_hz)
    _check_rng(rng)
    if isinstance(tasks, str):
        tasks = (tasks,)
    models = tuple(_resolve_task(t) for t in tasks)
    if not models:
        raise InvalidParameterError(
            f"tasks must name at least one task; choose from: {', '.join(TASKS)}")
    names = [m.name for m in models]
    if len(set(names)) != len(names):
        raise InvalidParameterError(f"tasks must be distinct, got {names}")
    traits_rng, rec_rng = rng.spawn(2)
    if traits is None:
        people = draw_traits(n_participants, rng=traits_rng, blink_rate_hz=blink_rate_hz)
    else:
        people = tuple(traits)
        if len(people) != n_participants or not all(
                isinstance(p, ParticipantTraits) for p in people):
            raise InvalidParameterError(
                f"traits must be {n_participants} ParticipantTraits (n_participants), got "
                f"{len(people)} items")
    return models, rec_rng, people


def iter_simulated_recordings(*, n_participants: int,
                              tasks: Sequence[str | TaskModel] | str = (
                                  "reading", "free-viewing", "random-dot"),
                              recordings_per_task: int = 1, duration_s: float,
                              sampling_rate_hz: float, rng: np.random.Generator,
                              geometry: Geometry | None = None, blink_rate_hz: float = 0.25,
                              measurement_noise_deg: float | None = None,
                              traits: Sequence[ParticipantTraits] | None = None,
                              ground_truth: bool = False) -> Iterator[Recording]:
    """Stream the recordings of :func:`simulate_dataset` one at a time (same arrays, same order).

    Order: participant, then task, then session. Memory stays at one recording.

    Examples
    --------
    >>> it = iter_simulated_recordings(n_participants=2, tasks="random-dot", duration_s=3.0,
    ...                                sampling_rate_hz=60, rng=np.random.default_rng(0))
    >>> [r.recording for r in it]
    ['p01_random-dot_1', 'p02_random-dot_1']
    """
    models, rec_rng, people = _dataset_args(n_participants, tasks, recordings_per_task,
                                            blink_rate_hz, traits, rng)
    _check_common(duration_s, sampling_rate_hz, geometry, measurement_noise_deg)
    return _iter_recordings(models, rec_rng, people, recordings_per_task, duration_s,
                            sampling_rate_hz, geometry, measurement_noise_deg, ground_truth)


def _iter_recordings(models: tuple[TaskModel, ...], rec_rng: np.random.Generator,
                     people: tuple[ParticipantTraits, ...], recordings_per_task: int,
                     duration_s: float, sampling_rate_hz: float, geometry: Geometry | None,
                     measurement_noise_deg: float | None,
                     ground_truth: bool) -> Iterator[Recording]:
    children = iter(rec_rng.spawn(len(people) * len(models) * recordings_per_task))
    for person in people:
        for model in models:
            for session in range(1, recordings_per_task + 1):
                yield simulate_recording(traits=person, task=model, duration_s=duration_s,
                                         sampling_rate_hz=sampling_rate_hz, rng=next(children),
                                         geometry=geometry, session=str(session),
                                         measurement_noise_deg=measurement_noise_deg,
                                         ground_truth=ground_truth)


def simulate_dataset(*, n_participants: int,
                     tasks: Sequence[str | TaskModel] | str = (
                         "reading", "free-viewing", "random-dot"),
                     recordings_per_task: int = 1, duration_s: float, sampling_rate_hz: float,
                     rng: np.random.Generator, geometry: Geometry | None = None,
                     blink_rate_hz: float = 0.25, measurement_noise_deg: float | None = None,
                     traits: Sequence[ParticipantTraits] | None = None,
                     ground_truth: bool = False, name: str = "simulated") -> Dataset:
    """Simulate a dataset: every participant does every task ``recordings_per_task`` times.

    Parameters
    ----------
    n_participants : int, >= 1
        Number of participants (traits from :func:`draw_traits` unless ``traits`` is given).
    tasks : sequence of str or task models
        Task names from :data:`TASKS` (default all three) or task model instances.
    recordings_per_task : int, >= 1
        Sessions per participant and task (labels ``session`` = "1", "2", ...).
    duration_s : float, > 0
        Length of each recording.
    sampling_rate_hz : float
        Sampling rate (realistic for 30-1000 Hz).
    rng : numpy.random.Generator
        Source of randomness; one child for the traits and one per recording.
    geometry : Geometry, optional
        Default :data:`DEFAULT_GEOMETRY`.
    blink_rate_hz : float, >= 0
        Population median blink rate (per-participant rates vary by 30 %).
    measurement_noise_deg : float, optional
        Tracker noise; default :func:`default_measurement_noise_deg`.
    traits : sequence of ParticipantTraits, optional
        Use these participants instead of drawing them.
    ground_truth : bool
        Add the ``event_code`` channel.
    name : str
        Dataset name.

    Returns
    -------
    Dataset
        ``info`` holds ``simulated=True``, the traits per participant and the settings.

    Raises
    ------
    InvalidParameterError
        For bad counts, rates, durations, tasks, traits or rng.

    Examples
    --------
    >>> ds = simulate_dataset(n_participants=2, duration_s=5.0, sampling_rate_hz=100,
    ...                       rng=np.random.default_rng(3))
    >>> len(ds), ds.participants, ds.n_samples
    (6, ('p01', 'p02'), 3000)
    """
    models, rec_rng, people = _dataset_args(n_participants, tasks, recordings_per_task,
                                            blink_rate_hz, traits, rng)
    _check_common(duration_s, sampling_rate_hz, geometry, measurement_noise_deg)
    recs = tuple(_iter_recordings(models, rec_rng, people, recordings_per_task, duration_s,
                                  sampling_rate_hz, geometry, measurement_noise_deg,
                                  ground_truth))
    info = {
        "simulated": True,
        "generator": "gazeprivacy.data.simulate",
        "tasks": [m.name for m in models],
        "sampling_rate_hz": float(sampling_rate_hz),
        "duration_s": float(duration_s),
        "traits": {p.participant: p.to_dict() for p in people},
    }
    return Dataset(recs, name=name, info=info)
