# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Task models: the scan pattern of a task (:class:`ScanPath`) for reading, free viewing and the
random-dot task, and the table of them (:data:`TASKS`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from scipy.special import gammaincinv

from gazeprivacy._registry import Registry
from gazeprivacy._scipy import scipy_signal
from gazeprivacy._validation import check_int, check_positive, check_range
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.simulate.saccades import _DURATION_INTERCEPT_S, _saccade_durations
from gazeprivacy.data.simulate.traits import ParticipantTraits
from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["TASKS", "FreeViewingTask", "RandomDotTask", "ReadingTask", "ScanPath", "TaskModel"]

_MARGIN_DEG = 0.5


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
        dev = scipy_signal().lfilter([1.0], [1.0, -rho], step, axis=0)
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
