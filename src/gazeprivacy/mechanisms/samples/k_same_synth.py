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

Guarantee: ``{k-anonymity, k}`` on the released event-parameter sequences, with ``k`` the
smallest group's size (public: it follows from the number of participants per label value):
every released sequence is the mean over at least ``k`` participants. An event type (fixations
or saccades) that fewer than ``k`` members of a group have is released from the padded mean over
every recording of the same label value that has it (if at least ``k`` do) or suppressed (its
rows missing); no member's own parameters are ever released alone. A label value with fewer than
``k`` participants is refused. The counts of recordings on the population mean or suppressed go
to the data holder's report (``Dataset.info[HOLDER_REPORT_KEY]``), not into the release.

Deviations. Saccades average the resampled 30-step profiles rather than the fitted ``(a, b, c)``
(the mean of Gaussians is a better profile than the Gaussian of mean parameters, and both are
k-anonymous); saccades head for the next synthetic fixation's centre, not the original landing
point, which is raw data; one that no fixation follows moves along a random direction. Not
covered, and flagged: event timing (number of events, onsets, durations, blink gaps) is kept per
participant, as in the paper, and identifies people; rows in no event are interpolated between
synthetic samples. Events come from REMoDNaV (``event_detector="remodnav"``, pursuit-aware;
pursuit rows are interpolated, not modelled) rather than the paper's I-VT at 30 deg/s, which
labels most samples of real recordings saccade; :meth:`KSameSynthParams.paper` keeps I-VT.
Implausible events are refused unless ``accept_implausible_events``. See
``docs/privacy/k-same-synth.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy._validation import check_in, check_int
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.events.detection import METHODS
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError, ReleaseRefusedError
from gazeprivacy.guarantees import Flag, FlagCode, Guarantee, Kind, Release, Unit
from gazeprivacy.mechanisms.contract import Level, Mechanism, Mode, SampleShape, check_partition
from gazeprivacy.mechanisms.samples._event_synthesis import (
    FittedEvents,
    fit_dataset_events,
    render,
    with_holder_report,
)
from gazeprivacy.rng import spawn

__all__ = [
    "SPEC",
    "KSameMessage",
    "KSameModel",
    "KSameSynthParams",
    "KSameSynthPhases",
    "SyntheticParameters",
    "guarantee",
    "k_same_synth",
    "min_group_size",
    "plan",
    "render_synthetic",
    "shape_guarantee",
    "synthetic_parameters",
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
    event_detector : {"remodnav", "adaptive", "ivt", "idt"}
        How events are detected when the caller gives none (:func:`gazeprivacy.events.
        detect_events_dataset`); the paper's is ``"ivt"`` (30 deg/s, 200 ms).
    accept_implausible_events : bool
        Release even when the detected events fail the plausibility checks
        (:func:`gazeprivacy.events.require_plausible`; CLI ``--accept-implausible-events``).
    """

    k: int
    group_by: str = "stimulus"
    event_detector: str = "remodnav"
    accept_implausible_events: bool = False

    def __post_init__(self) -> None:
        check_int(k=self.k, minimum=2)
        check_in(event_detector=self.event_detector, options=METHODS)

    @classmethod
    def paper(cls, *, k: int) -> KSameSynthParams:
        """Seed 001's setting: groups per stimulus; k in {2, 4, 6, 8}; I-VT events."""
        return cls(k=k, group_by="stimulus", event_detector="ivt")


def guarantee(params: KSameSynthParams, *, min_group_size: int | None = None) -> Guarantee:
    """The privacy map: k-anonymity of each recording's event-parameter sequence.

    ``min_group_size`` is the smallest released group (public: it follows from the number of
    participants per ``group_by`` value); the record's ``k`` is that size, which is also the
    least number of participants every released sequence is averaged over (the threshold given
    to :func:`synthetic_parameters`).
    """
    k = params.k if min_group_size is None else int(min_group_size)
    if k < params.k:
        raise ReleaseRefusedError(f"k-same-synth: a group of {k} is smaller than k={params.k}; "
                                  "no group smaller than k is released")
    return Guarantee(
        mechanism="k-same-synth", kind=Kind.K_ANONYMITY, unit=Unit.RECORDING, k=k,
        mode=str(getattr(params, "mode", "sound")),
        neighbouring="not a DP notion: each released event-parameter sequence is the mean of "
                     f"the sequences of at least k={k} recordings of distinct participants with "
                     f"the same {params.group_by!r} (k = the smallest group size)",
        parameters={"k": params.k, "group_by": params.group_by, "min_group_size": k},
        flags=(Flag(FlagCode.PARTIAL_COVERAGE,
                    "event timing (number of events, onsets, durations, blink gaps) is kept per "
                    "participant and is not anonymised; it can re-identify"),),
        notes=("k-anonymity protects against linking a released sequence to fewer than k "
               "people; it gives no bound against attribute inference shared by a group",
               "an event type (fixations or saccades) that fewer than k members of a group "
               "have is released from the mean over every participant of the same "
               f"{params.group_by!r} that has it (at least k), or suppressed (rows missing) "
               "when fewer than k have it; no member's own parameters are released alone",
               "saccades head for the next synthetic fixation, or along a random direction "
               "when none follows; never towards a raw landing point"),
    )


def _group_members(keys: list[str], participants: list[str], params: KSameSynthParams,
                   rng: np.random.Generator) -> list[list[int]]:
    """Random groups of ``k`` recordings (indices) per key; a remainder joins the last group."""
    groups: dict[str, list[int]] = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    out: list[list[int]] = []
    for key, members in groups.items():
        pids = [participants[i] for i in members]
        if len(set(pids)) != len(pids):
            raise InvalidDataError(
                f"k-same-synth: {params.group_by}={key!r} has several recordings of one "
                "participant; group by a label that is unique per participant")
        if len(members) < params.k:
            raise ReleaseRefusedError(
                f"k-same-synth: {params.group_by}={key!r} has {len(members)} participants, fewer "
                f"than k={params.k}; lower k or drop that {params.group_by}")
        perm = [members[j] for j in rng.permutation(len(members))]
        n_groups = len(perm) // params.k
        for g in range(n_groups):
            end = (g + 1) * params.k if g < n_groups - 1 else len(perm)
            out.append(perm[g * params.k:end])
    return out


def min_group_size(keys: list[str], params: KSameSynthParams) -> int:
    """The smallest group :func:`_group_members` forms for these (public) group keys: ``k``
    when a key has at least ``2k`` recordings, else all of that key's recordings (one group)."""
    counts: dict[str, int] = {}
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
    if not counts:
        raise InvalidDataError("k-same-synth: the dataset has no recordings")
    return min(params.k if n >= 2 * params.k else n for n in counts.values())


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


@dataclass(frozen=True)
class SyntheticParameters:
    """What one recording releases: its fixation and saccade parameters (each the mean over at
    least k participants), and whether its fixations / saccades are suppressed instead."""

    fixation_params: np.ndarray
    saccade_profiles: np.ndarray
    drop_fixations: bool = False
    drop_saccades: bool = False


def synthetic_parameters(keys: list[str], groups: list[list[int]], fix: list[np.ndarray],
                         sac: list[np.ndarray], k: int,
                         ) -> tuple[list[SyntheticParameters], dict[str, int]]:
    """Per recording (index into ``keys, fix, sac``), the parameters it releases.

    ``k`` is the record's k, the smallest group size (at least the requested k). For each group
    and event type: when at least ``k`` members have events of that type, they
    share the padded mean over those members (:func:`_padded_mean`); otherwise they get the
    padded mean over every recording of the same key that has such events, if at least ``k``
    do, else their events of that type are suppressed. So every released sequence is a mean over
    at least ``k`` participants. Also returns counts for the data holder's report.
    """
    out_f: list[np.ndarray | None] = [None] * len(keys)
    out_s: list[np.ndarray | None] = [None] * len(keys)
    report = {"groups": len(groups), "recordings_on_population_mean": 0,
              "recordings_suppressed_type": 0}
    for seqs, out in ((fix, out_f), (sac, out_s)):
        population: dict[str, np.ndarray | None] = {}
        for members in groups:
            voters = [i for i in members if seqs[i].shape[0] > 0]
            if not voters:
                continue
            if len(voters) >= k:
                mean = _padded_mean([seqs[i] for i in voters])
            else:
                key = keys[members[0]]
                if key not in population:
                    everyone = [i for i, kk in enumerate(keys) if kk == key
                                and seqs[i].shape[0] > 0]
                    population[key] = (_padded_mean([seqs[i] for i in everyone])
                                       if len(everyone) >= k else None)
                mean = population[key]
                name = ("recordings_on_population_mean" if mean is not None
                        else "recordings_suppressed_type")
                report[name] += len(voters)
            for i in voters:
                out[i] = None if mean is None else mean[:seqs[i].shape[0]]
    res = [SyntheticParameters(
        fixation_params=np.zeros_like(fix[i]) if f is None else f,
        saccade_profiles=np.zeros_like(sac[i]) if s_ is None else s_,
        drop_fixations=f is None and fix[i].shape[0] > 0,
        drop_saccades=s_ is None and sac[i].shape[0] > 0)
        for i, (f, s_) in enumerate(zip(out_f, out_s, strict=True))]
    return res, report


def render_synthetic(rec: Recording, fit: FittedEvents, synth: SyntheticParameters, *,
                     rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """:func:`render` of one recording from its :class:`SyntheticParameters`."""
    is_fix = fit.names == "fixation"
    gone = (is_fix & synth.drop_fixations) | (~is_fix & synth.drop_saccades)
    return render(rec, fit, synth.fixation_params, synth.saccade_profiles, rng=rng,
                  suppressed=gone if gone.any() else None)


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
        Event table (``recording, name, onset, offset``); detected with
        ``params.event_detector`` when omitted, refused when implausible (unless
        ``params.accept_implausible_events``).
    progress : bool
        Show a progress bar.

    Raises
    ------
    InvalidDataError
        A group key with fewer than ``k`` participants, or several recordings of one participant.

    Notes
    -----
    The counts of recordings whose events came from the population mean or were suppressed go
    to the data holder's report, ``output.info[HOLDER_REPORT_KEY]["k-same-synth"]``, which is
    not part of the release (a writer drops it).
    """
    if not isinstance(params, KSameSynthParams):
        raise InvalidParameterError("params must be KSameSynthParams")
    group_rng, render_rng = spawn(rng, 2)
    fitted: list[FittedEvents] = fit_dataset_events(
        dataset, events, progress=progress, method=params.event_detector,
        accept_implausible_events=params.accept_implausible_events, mechanism="k-same-synth")
    keys = [r.label(params.group_by) for r in dataset.recordings]
    groups = _group_members(keys, [r.participant for r in dataset.recordings], params,
                            group_rng)
    # the record's k is the smallest group (public); every sequence averages at least that many
    k = min_group_size(keys, params)
    synth, report = synthetic_parameters(keys, groups, [f.fixation_params for f in fitted],
                                         [f.saccade_profiles for f in fitted], k)
    recs: list[Recording] = []
    for i, (rec, child) in enumerate(zip(dataset.recordings, spawn(render_rng, len(dataset)),
                                         strict=True)):
        x, y = render_synthetic(rec, fitted[i], synth[i], rng=child)
        recs.append(rec.with_gaze(x, y))
    record = guarantee(params, min_group_size=k).compose(
        dataset.units_per_participant(lambda r: 1))
    info = with_holder_report(dataset.info, "k-same-synth", report)
    return Release(Dataset(tuple(recs), name=dataset.name, info=info), record)


# --------------------------------------------------------------------------------------------
# contract: privacy map of a public shape, partition phases, registry entry
# --------------------------------------------------------------------------------------------


def shape_guarantee(params: KSameSynthParams, shape: SampleShape) -> Guarantee:
    """The record of a release of this public shape: k-anonymity per recording, k the
    smallest group that the public ``group_by`` labels give."""
    keys = [r.labels.get(params.group_by, "") for r in shape.recordings]
    return guarantee(params, min_group_size=min_group_size(keys, params)).compose(
        shape.units_per_participant(lambda r: 1))


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
class KSameModel:
    """The curator's model: each recording's synthetic parameters and the record's k (the
    smallest group over all partitions)."""

    synthetic: dict[str, SyntheticParameters]
    k: int


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
        check_partition(part)
        fitted = fit_dataset_events(
            part, method=self.params.event_detector,
            accept_implausible_events=self.params.accept_implausible_events,
            mechanism="k-same-synth")
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
        groups = _group_members(keys, pids, self.params, rng)
        k = min_group_size(keys, self.params)
        synth, _ = synthetic_parameters(keys, groups, fix, sac, k)
        return KSameModel(synthetic=dict(zip(rec_ids, synth, strict=True)), k=k)

    def release(self, part: Dataset, state: Any, model: Any,
                rng: np.random.Generator) -> Release[Dataset]:
        check_partition(part)
        recs: list[Recording] = []
        for rec, fit, child in zip(part, state, spawn(rng, len(part)), strict=True):
            if rec.recording not in model.synthetic:
                raise InvalidDataError(f"recording {rec.recording!r} is not in the curator's "
                                       "model; run the client phase on every partition")
            x, y = render_synthetic(rec, fit, model.synthetic[rec.recording], rng=child)
            recs.append(rec.with_gaze(x, y))
        record = guarantee(self.params, min_group_size=model.k).compose(
            part.units_per_participant(lambda r: 1))
        return Release(Dataset(tuple(recs), name=part.name, info=part.info), record)


def plan(params: KSameSynthParams) -> KSameSynthPhases:
    """The partition phases of k-same-synth with ``params``."""
    return KSameSynthPhases(params=params)



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
