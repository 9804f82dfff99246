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

import numpy as np
import polars as pl

from gazeprivacy._validation import check_int
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.guarantees import Flag, FlagCode, Guarantee, Kind, Release, Unit
from gazeprivacy.mechanisms.base import MechanismSpec
from gazeprivacy.mechanisms.samples._event_synthesis import (
    FittedEvents,
    fit_dataset_events,
    render,
)
from gazeprivacy.rng import spawn

__all__ = ["SPEC", "KSameSynthParams", "guarantee", "k_same_synth"]


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



SPEC = MechanismSpec(
    name="k-same-synth", level="samples", params_type=KSameSynthParams, protect=k_same_synth,
    summary="k-anonymous event parameters (k-same-select sequence) synthesised back to samples",
    citation="David-John, Butler, Jain, TVCG 2023, section 4.3.2",
    options={"k": "group size (required)", "group_by": "stimulus"},
)
