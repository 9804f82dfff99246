# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""k-same-synth: k-anonymity of event parameters for gaze samples.

David-John, Butler, Jain. Privacy-preserving datasets of eye-tracking samples with applications
in XR. IEEE TVCG 29(5), 2023, section 4.3.2; built on the k-same-select sequence mechanism of
David-John et al., ETRA 2022.

Per group key (default the ``stimulus`` label), the recordings (one per participant) are
partitioned at random into groups of ``k`` (a remainder joins the last group). The j-th fixation
of every member is replaced by the mean of the members' j-th fixation parameters
``(mu_x, mu_y, sigma_x, sigma_y)``, shorter sequences padded by repeating their last event; the
same for the 30-step saccade velocity profiles. Samples are then synthesised from these shared
parameters with each member's own event timing.

Guarantee: ``{k-anonymity, k}`` on the released event-parameter sequences: every member of a
group releases the same parameter sequence (a prefix of it, as long as its own).

Deviations. Saccades average the resampled 30-step profiles rather than the fitted ``(a, b, c)``
(the mean of Gaussians is a better profile than the Gaussian of mean parameters, and both are
k-anonymous); saccades head for the next synthetic fixation's centre, not the original landing
point, which is raw data. Not covered, and flagged: event timing (number of events, onsets,
durations, blink gaps) is kept per participant, as in the paper, and identifies people; rows in
no event are interpolated between synthetic samples. See ``docs/privacy/k-same-synth.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy._validation import check_int
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.guarantees import Flag, FlagCode, Guarantee, Kind, Release, Unit
from gazeprivacy.mechanisms.contract import Level, Mechanism, Mode, SampleShape, sample_shape
from gazeprivacy.mechanisms.samples._event_synthesis import (
    FittedEvents,
    fit_dataset_events,
    render,
)
from gazeprivacy.rng import spawn

__all__ = [
    "SPEC",
    "KSameMessage",
    "KSameSynthParams",
    "KSameSynthPhases",
    "guarantee",
    "k_same_synth",
    "plan",
    "shape_guarantee",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class KSameSynthParams:
    """Parameters of k-same-synth.

    Parameters
    ----------
    k : int
        Group size (>= 2); no default: the paper used 2, 4, 6 and 8.
    group_by : str
        Label whose value defines who is grouped together (each participant at most once per
        value), e.g. ``"stimulus"`` or ``"task"``.
    """

    k: int
    group_by: str = "stimulus"

    def __post_init__(self) -> None:
        check_int(k=self.k, minimum=2)

    @classmethod
    def paper(cls, *, k: int) -> KSameSynthParams:
        """Seed 001's setting: groups per stimulus; k in {2, 4, 6, 8}."""
        return cls(k=k, group_by="stimulus")


def guarantee(params: KSameSynthParams) -> Guarantee:
    """The privacy map: k-anonymity of each recording's event-parameter sequence."""
    return Guarantee(
        mechanism="k-same-synth", kind=Kind.K_ANONYMITY, unit=Unit.RECORDING, k=params.k,
        mode="paper",
        neighbouring="not a DP notion: each released event-parameter sequence is shared by at "
                     f"least k={params.k} recordings of distinct participants with the same "
                     f"{params.group_by!r}",
        parameters={"k": params.k, "group_by": params.group_by},
        flags=(Flag(FlagCode.PARTIAL_COVERAGE,
                    "event timing (number of events, onsets, durations, blink gaps) is kept per "
                    "participant and is not anonymised; it can re-identify"),),
        notes=("k-anonymity protects against linking a released sequence to fewer than k "
               "people; it gives no bound against attribute inference shared by a group",),
    )


def _group_members(dataset: Dataset, params: KSameSynthParams,
                   rng: np.random.Generator) -> list[list[int]]:
    groups: dict[str, list[int]] = {}
    for i, rec in enumerate(dataset.recordings):
        groups.setdefault(rec.label(params.group_by), []).append(i)
    out: list[list[int]] = []
    for key, members in groups.items():
        pids = [dataset.recordings[i].participant for i in members]
        if len(set(pids)) != len(pids):
            raise InvalidDataError(
                f"k-same-synth: {params.group_by}={key!r} has several recordings of one "
                "participant; group by a label that is unique per participant")
        if len(members) < params.k:
            raise InvalidDataError(
                f"k-same-synth: {params.group_by}={key!r} has {len(members)} participants, fewer "
                f"than k={params.k}; lower k or drop that {params.group_by}")
        perm = [members[j] for j in rng.permutation(len(members))]
        n_groups = len(perm) // params.k
        for g in range(n_groups):
            end = (g + 1) * params.k if g < n_groups - 1 else len(perm)
            out.append(perm[g * params.k:end])
    return out


def _padded_mean(seqs: list[np.ndarray]) -> np.ndarray:
    """Mean over members of their j-th rows, shorter sequences repeating their last row."""
    width = seqs[0].shape[1]
    longest = max(s.shape[0] for s in seqs)
    if longest == 0:
        return np.zeros((0, width))
    stack = []
    for s in seqs:
        if s.shape[0] == 0:
            continue  # a member without such events does not vote
        pad = np.repeat(s[-1:], longest - s.shape[0], axis=0)
        stack.append(np.vstack([s, pad]))
    return np.mean(stack, axis=0)


def k_same_synth(dataset: Dataset, params: KSameSynthParams, *, rng: np.random.Generator,
                 events: pl.DataFrame | None = None, progress: bool = False,
                 ) -> Release[Dataset]:
    """Release ``dataset`` with k-anonymous event parameters (same recordings and row counts).

    Parameters
    ----------
    dataset : Dataset
        Recordings with the ``group_by`` label.
    params : KSameSynthParams
    rng : numpy.random.Generator
    events : polars.DataFrame, optional
        Event table (``recording, name, onset, offset``); I-VT with the seeds' settings when
        omitted.
    progress : bool
        Show a progress bar.

    Raises
    ------
    InvalidDataError
        A group key with fewer than ``k`` participants, or several recordings of one participant.
    """
    if not isinstance(params, KSameSynthParams):
        raise InvalidParameterError("params must be KSameSynthParams")
    group_rng, render_rng = spawn(rng, 2)
    fitted: list[FittedEvents] = fit_dataset_events(dataset, events, progress=progress)
    fix_out: list[np.ndarray] = [f.fixation_params for f in fitted]
    sac_out: list[np.ndarray] = [f.saccade_profiles for f in fitted]
    for members in _group_members(dataset, params, group_rng):
        fmean = _padded_mean([fitted[i].fixation_params for i in members])
        smean = _padded_mean([fitted[i].saccade_profiles for i in members])
        for i in members:
            fix_out[i] = fmean[:fitted[i].n_fixations]
            sac_out[i] = smean[:fitted[i].n_saccades]
    recs: list[Recording] = []
    for i, (rec, child) in enumerate(zip(dataset.recordings, spawn(render_rng, len(dataset)),
                                         strict=True)):
        x, y = render(rec, fitted[i], fix_out[i], sac_out[i], rng=child)
        recs.append(rec.with_gaze(x, y))
    record = guarantee(params).compose(dataset.units_per_participant(lambda r: 1))
    return Release(Dataset(tuple(recs), name=dataset.name, info=dataset.info), record)



# --------------------------------------------------------------------------------------------
# contract: privacy map of a public shape, partition phases, registry entry
# --------------------------------------------------------------------------------------------


def shape_guarantee(params: KSameSynthParams, shape: SampleShape) -> Guarantee:
    """The record of a release of this public shape: k-anonymity per recording."""
    return guarantee(params).compose(shape.units_per_participant(lambda r: 1))


@dataclass(frozen=True)
class KSameMessage:
    """A partition's client message: per recording its id, participant, group key and fitted
    event parameters (O(events))."""

    recordings: tuple[str, ...]
    participants: tuple[str, ...]
    keys: tuple[str, ...]
    fixation_params: tuple[np.ndarray, ...]
    saccade_profiles: tuple[np.ndarray, ...]


@dataclass(frozen=True)
class KSameSynthPhases:
    """k-same-synth partition-wise: client = detect and fit events per recording (message: the
    fitted parameters and the group label, O(events)); curator = random k-groups over all
    partitions and their padded means; release = render each recording with its group's
    parameters (one child generator per recording from the partition's release stream).

    Its grouping covers the whole dataset, as in memory; only the random draws differ from an
    in-memory run with the same seed (other streams), not their distribution.
    """

    params: KSameSynthParams
    mechanism: str = "k-same-synth"
    two_phase: bool = True

    def client(self, part: Dataset, rng: np.random.Generator) -> tuple[Any, Any]:
        _check_partition(part)
        fitted = fit_dataset_events(part)
        msg = KSameMessage(
            recordings=tuple(r.recording for r in part),
            participants=tuple(r.participant for r in part),
            keys=tuple(r.label(self.params.group_by) for r in part),
            fixation_params=tuple(f.fixation_params for f in fitted),
            saccade_profiles=tuple(f.saccade_profiles for f in fitted))
        return fitted, msg

    def curate(self, messages: Any, rng: np.random.Generator) -> Any:
        rec_ids = [r for msg in messages for r in msg.recordings]
        pids = [p for msg in messages for p in msg.participants]
        keys = [k for msg in messages for k in msg.keys]
        fix = [f for msg in messages for f in msg.fixation_params]
        sac = [s for msg in messages for s in msg.saccade_profiles]
        # _group_members reads only labels and participants: hand it stand-in recordings
        stand_in = Dataset(tuple(
            Recording.from_arrays(recording=r, participant=p, x=np.zeros(1), y=np.zeros(1),
                                  sampling_rate_hz=1.0, labels={self.params.group_by: k})
            for r, p, k in zip(rec_ids, pids, keys, strict=True)))
        model: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for members in _group_members(stand_in, self.params, rng):
            fmean = _padded_mean([fix[i] for i in members])
            smean = _padded_mean([sac[i] for i in members])
            for i in members:
                model[rec_ids[i]] = (fmean[:fix[i].shape[0]], smean[:sac[i].shape[0]])
        return model

    def release(self, part: Dataset, state: Any, model: Any,
                rng: np.random.Generator) -> Release[Dataset]:
        _check_partition(part)
        recs: list[Recording] = []
        for rec, fit, child in zip(part, state, spawn(rng, len(part)), strict=True):
            if rec.recording not in model:
                raise InvalidDataError(f"recording {rec.recording!r} is not in the curator's "
                                       "model; run the client phase on every partition")
            fix, sac = model[rec.recording]
            x, y = render(rec, fit, fix, sac, rng=child)
            recs.append(rec.with_gaze(x, y))
        record = shape_guarantee(self.params, sample_shape(part))
        return Release(Dataset(tuple(recs), name=part.name, info=part.info), record)


def plan(params: KSameSynthParams) -> KSameSynthPhases:
    """The partition phases of k-same-synth with ``params``."""
    return KSameSynthPhases(params=params)


def _check_partition(part: Any) -> None:
    if not isinstance(part, Dataset):
        raise InvalidDataError(f"a partition must be a Dataset, got {type(part).__name__}")
    if len(part) == 0:
        raise InvalidDataError(f"partition of {part.name!r} has no recordings")


def _example(mode: Mode) -> tuple[Dataset, KSameSynthParams] | None:
    from gazeprivacy.mechanisms.base import example_dataset

    if mode is not Mode.SOUND:  # one setting only (no paper / baseline variant)
        return None
    return example_dataset(), KSameSynthParams(k=2, group_by="task")


SPEC = Mechanism(
    name="k-same-synth", level=Level.EVENTS, params_type=KSameSynthParams, run=k_same_synth,
    guarantee=shape_guarantee, plan=plan, example=_example,
    summary="k-anonymous event parameters (k-same-select sequence) synthesised back to samples",
    citation="David-John, Butler, Jain, TVCG 2023, section 4.3.2",
)
