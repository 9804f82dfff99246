# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Kaleido on arrays, a recording and a dataset, and its contract entry (:data:`SPEC`)."""

from __future__ import annotations

import functools
import warnings

import numpy as np

from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset, Recording, adopt
from gazeprivacy.exceptions import (
    InvalidDataError,
    InvalidParameterError,
    NotFormallyPrivateWarning,
)
from gazeprivacy.guarantees import Guarantee, Release
from gazeprivacy.mechanisms.base import protect_recordings
from gazeprivacy.mechanisms.contract import Level, Mechanism, Mode, PerRecordingPlan, SampleShape
from gazeprivacy.mechanisms.samples.kaleido.params import KaleidoParams, guarantee
from gazeprivacy.mechanisms.samples.kaleido.stream import KaleidoStream

__all__ = ["SPEC", "kaleido", "kaleido_arrays", "kaleido_dataset", "shape_guarantee"]


def kaleido_arrays(x: np.ndarray, y: np.ndarray, params: KaleidoParams, *,
                   rng: np.random.Generator, sampling_rate_hz: float | None = None,
                   geometry: Geometry | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Batch Kaleido on one stream: released ``x, y`` and the budget spent per sample.

    Identical to pushing the same samples, in any chunks, into a :class:`KaleidoStream` built
    from the same generator.
    """
    stream = KaleidoStream(params, rng=rng, sampling_rate_hz=sampling_rate_hz,
                           geometry=geometry)
    ox, oy = stream.push(x, y)
    return ox, oy, stream.epsilon_spent


def kaleido(recording: Recording, params: KaleidoParams, *,
            rng: np.random.Generator) -> Release[Recording]:
    """Kaleido on one recording: same rows and timestamps, released ``x, y``.

    Examples
    --------
    >>> geo = Geometry(x_min_deg=-10, x_max_deg=10, y_min_deg=-10, y_max_deg=10)
    >>> rec = Recording.from_arrays(recording="r", participant="p", x=np.zeros(100),
    ...                             y=np.zeros(100), sampling_rate_hz=100, geometry=geo)
    >>> rel = kaleido(rec, KaleidoParams(epsilon=1.0, radius_deg=2.0, window_samples=50),
    ...               rng=np.random.default_rng(0))
    >>> rel.output.n_samples, rel.guarantee.unit.value
    (100, 'w-window')
    """
    if params.mode == "paper":
        warnings.warn("Kaleido paper mode: the test noise does not cover the radius; see the "
                      "guarantee's flags", NotFormallyPrivateWarning, stacklevel=2)
    geo = params.geometry or recording.geometry
    if geo is None and params.clamp:
        raise InvalidParameterError(
            f"recording {recording.recording!r} has no geometry and KaleidoParams.geometry is "
            "None; Kaleido clamps its noisy points to the valid region, a public parameter: "
            "pass geometry=Geometry(...)")
    ox, oy, _ = kaleido_arrays(recording.x, recording.y, params, rng=rng,
                               sampling_rate_hz=recording.sampling_rate_hz, geometry=geo)
    with adopt(ox, oy):  # arrays made here: the release takes them uncopied
        out = recording.with_gaze(ox, oy)
    return Release(out, guarantee(params, sampling_rate_hz=recording.sampling_rate_hz))


def kaleido_dataset(dataset: Dataset, params: KaleidoParams, *, rng: np.random.Generator,
                    progress: bool = False) -> Release[Dataset]:
    """Kaleido on every recording (one child generator each); per-participant composition
    over ``ceil(n / w)`` disjoint windows per recording."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotFormallyPrivateWarning)
        rel = protect_recordings(
            dataset, lambda rec, g: kaleido(rec, params, rng=g), rng=rng,
            units=lambda rec: -(-rec.n_samples // params.w_for(rec.sampling_rate_hz)),
            progress=progress, description="kaleido")
    if params.mode == "paper":
        warnings.warn("Kaleido paper mode: the test noise does not cover the radius; see the "
                      "guarantee's flags", NotFormallyPrivateWarning, stacklevel=2)
    return rel


# --------------------------------------------------------------------------------------------
# contract: privacy map of a public shape, registry entry
# --------------------------------------------------------------------------------------------


def shape_guarantee(params: KaleidoParams, shape: SampleShape) -> Guarantee:
    """The record of :func:`kaleido_dataset` on a dataset of this public shape: the first
    recording's record, composed per participant over ``ceil(n / w)`` windows per recording."""
    if not shape.recordings:
        raise InvalidDataError("the dataset has no recordings")
    record = guarantee(params, sampling_rate_hz=shape.recordings[0].sampling_rate_hz)
    for r in shape.recordings[1:]:
        record = record.with_flags(*guarantee(params, sampling_rate_hz=r.sampling_rate_hz).flags)
    return record.compose(shape.units_per_participant(
        lambda r: -(-r.n_samples // params.w_for(r.sampling_rate_hz))))


def _example(mode: Mode) -> tuple[Dataset, KaleidoParams] | None:
    from gazeprivacy.mechanisms.base import example_dataset

    if mode is Mode.BASELINE:
        return None
    return example_dataset(), KaleidoParams(epsilon=1.0, radius_deg=0.5, window_samples=50,
                                            mode=mode)


SPEC = Mechanism(
    name="kaleido", level=Level.SAMPLES, params_type=KaleidoParams, run=kaleido_dataset,
    guarantee=shape_guarantee, plan=functools.partial(PerRecordingPlan, "kaleido"),
    example=_example,
    summary="real-time (epsilon, w, r)-DP gaze stream: noisy threshold test, planar Laplace "
            "publication with an adaptive budget per w samples",
    citation="Li et al., Kaleido (USENIX Security 2020), as re-implemented by David-John, "
             "Butler, Jain (TVCG 2023)",
)
