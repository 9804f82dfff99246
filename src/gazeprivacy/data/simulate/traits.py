# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Participant traits: the oculomotor traits of one simulated participant, stable across tasks
and sessions (:class:`ParticipantTraits`), and a population of them (:func:`draw_traits`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from gazeprivacy._validation import check_int, check_positive, check_range
from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["ParticipantTraits", "draw_traits"]


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
    pso_gain : float, in [0, 1]
        Post-saccadic oscillation: after every saccade and microsaccade the position adds its
        vector times ``pso_gain * exp(-t / 20 ms) * sin(2 pi 20 Hz t)`` (a first overshoot of 0.58
        ``pso_gain`` of the amplitude, about 10 ms after the landing; 0: none).

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
    pso_gain: float = 0.0

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
        check_range(lo=0.0, hi=1.0, pso_gain=self.pso_gain)

    def to_dict(self) -> dict[str, Any]:
        """The traits as a plain dict (JSON-ready)."""
        return asdict(self)


def draw_traits(n: int, *, rng: np.random.Generator, blink_rate_hz: float = 0.25,
                pso_gain: float = 0.0, prefix: str = "p") -> tuple[ParticipantTraits, ...]:
    """Draw ``n`` participants' traits from population distributions.

    The population ranges follow the eye-movement literature (e.g. Holmqvist et al., *Eye
    Tracking*, 2011; Rayner 1998 for reading): median fixation durations 190-330 ms, velocity
    gains within about +-15 %, blink rates log-normal around ``blink_rate_hz`` (30 % spread),
    blink durations 100-300 ms, pupil baselines 2.5-5.5 mm. ``docs/simulator.md`` lists them.
    Post-saccadic oscillations are off unless ``pso_gain`` is given (the other traits, and the
    generator's draws for them, are the same either way).

    Parameters
    ----------
    n : int, >= 1
        Number of participants; identifiers are ``f"{prefix}{i:02d}"`` from 1.
    rng : numpy.random.Generator
        Source of randomness.
    blink_rate_hz : float, >= 0
        Population median blink rate (0 disables blinks).
    pso_gain : float, in [0, 1]
        Population median of :attr:`ParticipantTraits.pso_gain`; each participant's is
        ``pso_gain * exp(0.3 z)``, clipped to [0, 1] (drawn after the other traits; 0: none).
    prefix : str
        Identifier prefix.

    Returns
    -------
    tuple of ParticipantTraits

    Raises
    ------
    InvalidParameterError
        If ``n`` is not a positive integer, ``blink_rate_hz`` is negative or ``pso_gain`` is
        outside [0, 1].

    Examples
    --------
    >>> a = draw_traits(3, rng=np.random.default_rng(1))
    >>> b = draw_traits(3, rng=np.random.default_rng(1))
    >>> a == b, len(a)
    (True, 3)
    """
    check_int(n=n)
    check_positive(allow_zero=True, blink_rate_hz=blink_rate_hz)
    check_range(lo=0.0, hi=1.0, pso_gain=pso_gain)
    _check_rng(rng)
    u = rng.uniform(size=(n, 8))
    z = rng.normal(size=(n, 10))
    # after the others, and only when asked: the other traits' draws stay those of no PSO
    pso = (np.clip(pso_gain * np.exp(0.3 * rng.normal(size=n)), 0.0, 1.0) if pso_gain > 0
           else np.zeros(n))
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
            pso_gain=float(pso[i]),
        ))
    return tuple(out)


def _check_rng(rng: Any) -> None:
    if not isinstance(rng, np.random.Generator):
        raise InvalidParameterError(
            f"rng must be a numpy.random.Generator, got {type(rng).__name__}; pass "
            "rng=numpy.random.default_rng(seed) or gazeprivacy.rng.make_rng(seed)")
