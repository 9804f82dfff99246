# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Recording and dataset assembly: :func:`simulate_recording` puts the parts together for one
participant and task; :func:`simulate_dataset` and :func:`iter_simulated_recordings` run every
participant through every task with one child generator per recording."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from gazeprivacy._validation import check_int, check_positive, check_range
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.data.simulate.measurement import _blink_mask, _pupil, default_measurement_noise_deg
from gazeprivacy.data.simulate.oculomotor import EVENT_CODES, _render, _tremor
from gazeprivacy.data.simulate.tasks import TASKS, TaskModel
from gazeprivacy.data.simulate.traits import ParticipantTraits, _check_rng, draw_traits
from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["DEFAULT_GEOMETRY", "iter_simulated_recordings", "simulate_dataset",
           "simulate_recording"]

DEFAULT_GEOMETRY = Geometry.screen_px(width_px=1920, height_px=1080, px_per_deg=35.0)
"""1920 x 1080 px at 35 px/deg (about 54.9 x 30.9 deg), origin top-left, ``y`` downwards."""


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
