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

from gazeprivacy.data.simulate.assembly import (
    DEFAULT_GEOMETRY,
    iter_simulated_recordings,
    simulate_dataset,
    simulate_recording,
)
from gazeprivacy.data.simulate.measurement import default_measurement_noise_deg
from gazeprivacy.data.simulate.oculomotor import EVENT_CODES
from gazeprivacy.data.simulate.tasks import (
    TASKS,
    FreeViewingTask,
    RandomDotTask,
    ReadingTask,
    ScanPath,
    TaskModel,
)
from gazeprivacy.data.simulate.traits import ParticipantTraits, draw_traits

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
