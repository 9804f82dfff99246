# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth: (epsilon, delta)-DP per participant, through rho-zCDP, for a synthetic
gaze population by select-measure-generate.

Select-measure-generate after McKenna, Miklau & Sheldon, "Winning the NIST contest: a scalable
and general approach to differentially private synthetic data", Journal of Privacy and
Confidentiality 11(3), 2021 (MST), and McKenna, Mullins, Sheldon & Miklau, "AIM: an adaptive
and iterative mechanism for differentially private synthetic data", PVLDB 15(11), 2022; the
Gaussian mechanism under zero-concentrated DP (Bun & Steinke, TCC 2016), converted to
(epsilon, delta) by Canonne, Kamath & Steinke (NeurIPS 2020)
(:mod:`gazeprivacy.accounting.zcdp`).

The unit is the participant with all their recordings. Per public label value (``public_labels``,
e.g. ``("task",)``; none: one population) the mechanism **measures** fifteen marginals, each
participant contributing one normalised histogram per marginal (weight 1 whatever their number
or length of recordings, split equally over the public label values they have): the mean and
second moment of x and y in screen-box units (each a two-bin histogram ``(v, 1 - v)``), the
spatial density of samples on a data-independent grid over the public screen (default 16 x 12),
fixation cells and cell-to-cell transitions on a coarse grid (4 x 3), fixation durations (the
intervals between saccades, log bins), saccade amplitudes (log bins) and directions, fixation
rates, the tracker's noise level, smoothing and missing share (one-hot histograms), and the
participant's label weights. Each marginal's sum over participants gets Gaussian noise once
(L2 sensitivity sqrt(2) under replace-one neighbouring, sigma = sqrt(2) / sqrt(2 rho share));
the spatial marginals, the saccade geometry and the tracker once for the population (each
participant's histograms summed over its keys), the event marginals per key. The **prior** is
data-free: the centre Gaussian N(screen centre, (W/6, H/6)) for the spatial marginals, the
simulator's population for the event ones. The means are shrunk toward the prior's with public
precision weights, the spreads released as the posterior mean of their log sd under a public
prior; fixation durations and rates are released as binned log-normals (posterior means, the
population's fit first, each key's around it); the other marginals toward the Gaussian of the
released moments (spatial) or the prior (events) by positive-part James-Stein capped by a
public linear weight, then projected onto the simplex. The **generator** draws fixation
sequences from the released model (positions from a chain whose stationary density is the
released one) and renders them at the public rate with the simulator's oculomotor model
(post-processing). A tracker declared public (``params.tracker``, a :class:`DeclaredTracker` read
from a recording of no participant, e.g. the experimenter's pilot) replaces the four tracker
measurements; their shares go to the other marginals. Several declared trackers (pilots on
several people) are a population: each synthetic participant takes one of them at random.
The output is a new population: ``n_participants`` synthetic pseudonyms (default the input's
participant count, public by design), each with ``recordings_per_participant`` recordings per
public label value of ``output_length_s`` seconds; no input id, row count, mask, recording
count or order reaches it.

Deviations. MST / AIM select marginals privately and fit a graphical model with ``mbi``; here
the marginals are fixed (data-free selection: nothing is spent on it) and the model is the
shrunk marginals themselves, combined at generation time (the cross-check test compares them
with ``mbi``'s estimate when it is installed). The prior shrinkage is our addition (it keeps
the release near the prior when noise dominates). The event detector runs on raw data inside
the participant's bounded statistics (any detector is covered: only its output is measured).
See ``docs/privacy/participant-synth.md``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy.accounting.zcdp import CONVERSION
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.guarantees import EVERY_PARTICIPANT, Budget, Guarantee, Kind, Release, Unit
from gazeprivacy.mechanisms.contract import (
    Level,
    Mechanism,
    Mode,
    SampleShape,
    check_partition,
    sample_shape,
)
from gazeprivacy.mechanisms.samples import _participant_synth_labels as lab
from gazeprivacy.mechanisms.samples._participant_synth_events import measured_events
from gazeprivacy.mechanisms.samples._participant_synth_fit import (
    event_fits,
    fit_marginals,
    pooled_events,
)
from gazeprivacy.mechanisms.samples._participant_synth_model import (
    MARGINALS,
    POOLED,
    Key,
    PublicBins,
    merge_parts,
    merge_sums,
    normalise_parts,
    participant_parts,
    priors,
    project_simplex,
)
from gazeprivacy.mechanisms.samples._participant_synth_params import (
    SENSITIVITY_L2,
    ParticipantSynthParams,
    ParticipantSynthSplit,
    noise_sigma,
)
from gazeprivacy.mechanisms.samples._participant_synth_quality import (
    DeclaredTracker,
    mask_column,
)
from gazeprivacy.mechanisms.samples._participant_synth_render import (
    KeyModel,
    render_population,
    synthetic_pseudonyms,
)
from gazeprivacy.rng import spawn

__all__ = [
    "SENSITIVITY_L2",
    "SPEC",
    "DeclaredTracker",
    "ParticipantSynthParams",
    "ParticipantSynthPhases",
    "ParticipantSynthSplit",
    "PublicSetup",
    "SynthMessage",
    "SynthModel",
    "guarantee",
    "measure",
    "merge_messages",
    "noise_sigma",
    "participant_synth",
    "plan",
    "population_sums",
    "public_setup",
]

# --------------------------------------------------------------------------------------------
# the public setup and the privacy map (never the data)


@dataclass(frozen=True)
class PublicSetup:
    """What the mechanism may read of its input: the participant count, the public keys, the
    rate and the geometry (all public by design or declared)."""

    n_input: int
    keys: tuple[Key, ...]
    sampling_rate_hz: float
    geometry: Geometry

    def bins(self, params: ParticipantSynthParams) -> PublicBins:
        return PublicBins(self.geometry, params.grid, params.coarse_grid)


def _one(name: str, values: set[Any], flag: str) -> Any:
    if len(values) != 1:
        raise InvalidDataError(f"participant-synth needs one {name} over the input, found "
                               f"{len(values)}; pass {flag}")
    return values.pop()


def public_setup(params: ParticipantSynthParams, shape: SampleShape) -> PublicSetup:
    """The :class:`PublicSetup` of a public shape (ids are counted, never kept)."""
    if not shape.recordings:
        raise InvalidDataError("participant-synth: the input has no recordings")
    keys = set()
    for r in shape.recordings:
        missing = [lb for lb in params.public_labels if lb not in r.labels]
        if missing:
            raise InvalidDataError(f"public label {missing[0]!r} is missing from recording "
                                   f"{r.recording!r}; declare only labels every recording has")
        keys.add(tuple(str(r.labels[lb]) for lb in params.public_labels))
    rate = params.sampling_rate_hz or _one("sampling rate", {r.sampling_rate_hz
                                                             for r in shape.recordings},
                                           "sampling_rate_hz")
    geo = params.geometry or _one("geometry", {r.geometry for r in shape.recordings},
                                  "geometry")
    if geo is None:
        raise InvalidDataError("participant-synth needs the screen geometry; pass geometry")
    return PublicSetup(len({r.participant for r in shape.recordings}), tuple(sorted(keys)),
                       float(rate), geo)


def _record(params: ParticipantSynthParams, setup: PublicSetup) -> Guarantee:
    n_out = params.n_participants or setup.n_input
    params = lab.resolve_params(params, setup.n_input, len(setup.keys))
    eps, delta = float(params.epsilon_per_participant), float(params.delta)
    sigmas = {m: noise_sigma(params, m) for m in (*MARGINALS, lab.CONTRAST)}
    return Guarantee(
        mechanism="participant-synth", kind=Kind.RHO_ZCDP, unit=Unit.PARTICIPANT,
        epsilon=eps, delta=delta, mode=str(params.mode),
        neighbouring="replace one participant (all their recordings and labels) by any other; "
                     "the number of input participants is public",
        parameters={
            "rho": params.rho, "conversion": CONVERSION, "epsilon_per_participant": eps,
            "delta": delta, "split": params.split.shares(), "noise_sd": sigmas,
            "sensitivity_l2": SENSITIVITY_L2, "public_labels": list(params.public_labels),
            "label_values": [list(k) for k in setup.keys],
            "n_participants_input": setup.n_input, "n_participants": n_out,
            "recordings_per_participant": params.recordings_per_participant,
            "output_length_s": float(params.output_length_s),
            "sampling_rate_hz": setup.sampling_rate_hz, "geometry": setup.geometry.to_dict(),
            "grid": list(params.grid), "coarse_grid": list(params.coarse_grid),
            "detector": params.detector,
            "event_seconds_per_recording": params.event_seconds_per_recording,
            "declared_tracker": _declared(params)},
        per_participant={EVERY_PARTICIPANT: Budget(
            eps, delta, 1, "single unit: the participant with all their recordings")},
        columns=(mask_column(params.split.tracker_missing, params.tracker is not None),),
        notes=("synthetic population: every released participant and recording is "
               "synthetic (pseudonyms S001, ...); its structure (participants, recordings per "
               "label value, length, rate) is set by the parameters, not copied from the input",
               "the number of input participants is public by design (it scales the estimate)",
               "a participant's weight 1 per marginal is split equally over their public label "
               "values", *_tracker_notes(params)))


def _declared(params: ParticipantSynthParams) -> Any:
    """The record's declared tracker: None, its values, or a list of them (a population)."""
    trackers = [t.to_dict() for t in params.declared_trackers]
    return trackers[0] if len(trackers) == 1 else (trackers or None)


def _tracker_notes(params: ParticipantSynthParams) -> tuple[str, ...]:
    trackers = params.declared_trackers
    if not trackers:
        return ()
    if len(trackers) == 1:
        what = f"is declared public by the user, from {trackers[0].source!r},"
    else:
        sources = ", ".join(repr(t.source) for t in trackers)
        what = (f"is declared public by the user as a population of {len(trackers)} (from "
                f"{sources}; each synthetic participant takes one of them at random)")
    return (f"the tracker (median step, step correlation, missing share, shoulder) {what} and "
            "written without noise: it must come from no participant of the input; nothing "
            "of the input's tracker is measured and its shares of rho went to the other "
            "marginals",)


def guarantee(params: ParticipantSynthParams, shape: SampleShape) -> Guarantee:
    """The privacy map: rho-zCDP per participant, from the parameters and the public shape only.

    >>> from gazeprivacy.mechanisms.base import example_dataset
    >>> p = ParticipantSynthParams(epsilon_per_participant=3.0, delta=1e-6, output_length_s=2.0)
    >>> g = guarantee(p, sample_shape(example_dataset()))
    >>> g.kind.value, g.epsilon, g.per_participant["each participant"].epsilon
    ('rho-zCDP', 3.0, 3.0)
    """
    return _record(params, public_setup(params, shape))


# --------------------------------------------------------------------------------------------
# the phases: client (bounded statistics), curator (noise once, estimate), release (generate)


@dataclass(frozen=True)
class SynthMessage:
    """A partition's client message: per participant and public key the *raw parts* of its
    bounded statistics (counts and per-recording moment sums, unnormalised: a participant whose
    recordings sit in several partitions merges exactly, :func:`merge_messages`), and the
    partition's public setup."""

    parts: Mapping[str, Mapping[Key, Mapping[str, np.ndarray]]]
    setup: PublicSetup


@dataclass(frozen=True)
class SynthModel:
    """The curator's released model: per public key the shrunk marginals and the public
    setup."""

    models: Mapping[Key, KeyModel]
    shrink: Mapping[Key, Mapping[str, float]]
    setup: PublicSetup


def merge_messages(messages: Sequence[SynthMessage]) -> SynthMessage:
    """The messages as one: every participant's raw parts merged over the messages
    (:func:`merge_parts`: counts added, moment rows stacked -- exact, so the result does not
    depend on the order or the partitioning)."""
    if not messages:
        raise InvalidDataError("participant-synth: no client messages to curate")
    # the messages are not modified: a participant's parts are shared until it merges (then
    # copied once), so folding as messages arrive costs O(message), not O(participants so far)
    parts: dict[str, Any] = dict(messages[0].parts)
    copied: set[str] = set()
    for msg in messages[1:]:
        for pid, raw in msg.parts.items():
            if pid not in parts:
                parts[pid] = raw
                continue
            if pid not in copied:
                parts[pid] = {k: dict(v) for k, v in parts[pid].items()}
                copied.add(pid)
            merge_parts(parts[pid], raw)
    return SynthMessage(parts, messages[0].setup)


def population_sums(parts: Mapping[str, Mapping[Key, Mapping[str, np.ndarray]]]
                    ) -> dict[Key, dict[str, np.ndarray]]:
    """Per public key, the sum over participants of their bounded statistics: each
    participant's merged raw parts normalised whole (:func:`normalise_parts`), then added in
    sorted participant order (one order for every partitioning: the sums are bit-equal)."""
    sums: dict[Key, dict[str, np.ndarray]] = {}
    for pid in sorted(parts):
        merge_sums(sums, normalise_parts(parts[pid]))
    return sums


def _render(p: ParticipantSynthParams, part: Dataset, model: SynthModel, first: int,
            stop: int, rng: np.random.Generator) -> Release[Dataset]:
    """Synthetic participants ``first`` to ``stop - 1`` (``rng.spawn`` gives their generators:
    see :func:`_children_from`), with the record."""
    n_out = p.n_participants or model.setup.n_input
    mine = synthetic_pseudonyms(n_out)[first:stop]
    recs = render_population(
        model.models, model.setup.bins(p), public_labels=p.public_labels, participants=mine,
        recordings_per_participant=p.recordings_per_participant,
        output_length_s=float(p.output_length_s),
        sampling_rate_hz=model.setup.sampling_rate_hz, rng=rng,
        trackers=[t.centres() for t in p.declared_trackers]) if mine else []
    if not recs:
        raise InvalidDataError(f"participant-synth: a partition renders no synthetic "
                               f"participant ({n_out} synthetic participants over more "
                               "partitions); use fewer partitions or more synthetic participants "
                               "(--participants)")
    return Release(Dataset(tuple(recs), name="participant-synth"), _record(p, model.setup))


def _check_tracker_is_no_participant(params: ParticipantSynthParams, part: Dataset) -> None:
    """Refuse an input that holds a participant a declared tracker was read from: its values
    would be written without noise (every path runs this: in-process, partition-wise, CLI)."""
    for t in params.declared_trackers:
        both = sorted(t.participants & set(part.participants))
        if both:
            raise InvalidDataError(
                f"the declared tracker ({t.source}) was read from participant {both[0]!r}, who "
                "is in the input: a declared tracker must come from no participant of the "
                "input (its values are written without noise); use a pilot recorded on "
                "someone else, and if the pilot is someone else under the same id, give the "
                "pilot's recordings another participant id")


def _children_from(rng: np.random.Generator, first: int) -> np.random.Generator:
    """A generator whose ``spawn(n)`` gives ``rng``'s spawned children ``first`` to ``first + n
    - 1``: the generators the one-process release gives those synthetic participants."""
    seq = rng.bit_generator.seed_seq
    at = np.random.SeedSequence(seq.entropy, spawn_key=seq.spawn_key, pool_size=seq.pool_size,
                                n_children_spawned=first)
    return np.random.Generator(type(rng.bit_generator)(at))


@dataclass(frozen=True)
class ParticipantSynthPhases:
    """participant-synth in phases; a participant-grouped plan (``grouped = True``, see
    :mod:`gazeprivacy.engines.plan`), so a participant may span partitions.

    In-process: ``client(part, rng)`` gives a partition's raw parts (no noise: the curator is
    trusted, central DP); ``curate(messages, rng)`` merges each participant's parts over the
    messages, normalises them whole, sums over participants, adds the Gaussian noise once per
    marginal and shrinks (the model); ``release(part, state, model, rng)`` renders every
    synthetic participant. On the engines, ``shape`` (public) and ``assign`` (driver) bind the
    plan (:class:`_Assigned`) to the one-process generators: the release is bit-equal to
    :func:`participant_synth` at the same root generator.
    """

    params: ParticipantSynthParams
    mechanism: str = "participant-synth"
    two_phase: bool = True
    grouped: bool = True

    def client(self, part: Dataset, rng: np.random.Generator | None) -> tuple[None, SynthMessage]:
        check_partition(part)
        p = self.params
        _check_tracker_is_no_participant(p, part)
        setup = public_setup(p, sample_shape(part))
        bins = setup.bins(p)
        events = measured_events(part, p.detector, p.event_seconds_per_recording)
        by_pid: dict[str, list[Recording]] = {}
        for r in part:
            by_pid.setdefault(r.participant, []).append(r)
        parts: dict[str, dict[Key, dict[str, np.ndarray]]] = {}
        for pid, recs in by_pid.items():
            keys = [tuple(r.labels[lb] for lb in p.public_labels) for r in recs]
            mine = events.filter(pl.col("participant") == pid)
            parts[pid] = participant_parts(recs, mine, keys, bins,
                                           event_seconds=p.event_seconds_per_recording)
        return None, SynthMessage(parts, setup)

    def curate(self, messages: Sequence[SynthMessage], rng: np.random.Generator) -> SynthModel:
        merged = merge_messages(messages)
        sums = population_sums(merged.parts)
        s0 = merged.setup
        setup = PublicSetup(len(merged.parts), tuple(sorted(sums)), s0.sampling_rate_hz,
                            s0.geometry)
        models, shrink = _measure_and_fit(self.params, setup, sums, rng)
        return SynthModel(models, shrink, setup)

    def release(self, part: Dataset, state: Any, model: SynthModel,
                rng: np.random.Generator) -> Release[Dataset]:
        check_partition(part)
        return _render(self.params, part, model, 0, self.params.n_participants
                       or model.setup.n_input, rng)

    def shape(self, part: Dataset) -> SampleShape:
        """The public pass: the partition's public shape (ids, labels, rates, geometry)."""
        check_partition(part)
        return sample_shape(part)

    def assign(self, shapes: Sequence[SampleShape], root: np.random.Generator) -> _Assigned:
        """Bind the plan to the public shapes of all partitions and the one-process generators
        (``root``: the generator :func:`participant_synth` gets): the public setup over all
        partitions, and synthetic participants in consecutive blocks per partition."""
        where: dict[str, int] = {}
        for i, s in enumerate(shapes):
            for r in s.recordings:
                if where.setdefault(r.recording, i) != i:
                    raise InvalidDataError(
                        f"participant-synth: recording {r.recording!r} is in partitions "
                        f"{where[r.recording]} and {i}; each recording must sit whole in one "
                        "partition (recording ids unique over the partitions)")
        setup = public_setup(self.params, SampleShape(tuple(r for s in shapes
                                                            for r in s.recordings)))
        n_out, n = self.params.n_participants or setup.n_input, len(shapes)
        blocks = tuple((i * n_out // n, (i + 1) * n_out // n) for i in range(n))
        _, curator, release = spawn(root, 3)
        return _Assigned(self.params, setup, blocks, curator, release)

    def combined(self, record: Guarantee) -> Guarantee:
        """The engines' combined record: the in-memory per-participant budget (one unit, the
        participant with all their recordings, wherever they sit), not one per partition."""
        return replace(record, per_participant={EVERY_PARTICIPANT: Budget(
            record.epsilon, record.delta, 1,
            "single unit: the participant with all their recordings")})


@dataclass(frozen=True)
class _Assigned:
    """participant-synth bound to the public setup of all partitions and the one-process
    generators: ``client(i, ...)`` the partition's raw parts, ``curate`` (noise once, with the
    one-process curator generator) the model and each partition's block of synthetic
    participants, ``release(i, ...)`` the block, rendered from the one-process generators."""

    params: ParticipantSynthParams
    setup: PublicSetup
    blocks: tuple[tuple[int, int], ...]
    curator: np.random.Generator
    release_rng: np.random.Generator
    mechanism: str = "participant-synth"

    def client(self, i: int, part: Dataset, rng: np.random.Generator) -> SynthMessage:
        return ParticipantSynthPhases(self.params).client(part, None)[1]

    def merge(self, messages: Sequence[SynthMessage]) -> SynthMessage:
        return merge_messages(messages)

    def curate(self, messages: Sequence[SynthMessage], rng: np.random.Generator
               ) -> tuple[SynthModel, list[tuple[int, int]]]:
        merged = merge_messages(messages)
        if len(merged.parts) != self.setup.n_input:
            raise InvalidDataError("participant-synth: the partitions changed between the "
                                   "public pass and the clients; run again")
        models, shrink = _measure_and_fit(self.params, self.setup,
                                          population_sums(merged.parts),
                                          copy.deepcopy(self.curator))
        return SynthModel(models, shrink, self.setup), list(self.blocks)

    def release(self, i: int, part: Dataset, model: SynthModel, piece: tuple[int, int],
                rng: np.random.Generator) -> Release[Dataset]:
        check_partition(part)
        first, stop = piece
        return _render(self.params, part, model, first, stop,
                       _children_from(self.release_rng, first))


def measure(params: ParticipantSynthParams, setup: PublicSetup,
            sums: Mapping[Key, Mapping[str, np.ndarray]], rng: np.random.Generator
            ) -> dict[str, np.ndarray]:
    """The curator's noisy measurements: per marginal with a share, the sums of every public
    key stacked (keys in ``setup.keys`` order; the :data:`POOLED` marginals and an event marginal
    that :func:`~gazeprivacy.mechanisms.samples._participant_synth_fit.pooled_events` names
    summed over the keys, one row) plus Gaussian noise of sd
    :func:`noise_sigma`, drawn once (``label_weight`` only with several keys). The auditor reads
    this function."""
    keys, params = setup.keys, lab.resolve_params(params, setup.n_input, len(setup.keys))
    sizes = setup.bins(params).sizes(len(keys))
    pooled = pooled_events(params, setup)
    noisy: dict[str, np.ndarray] = {}
    for m in MARGINALS:
        sigma = noise_sigma(params, m)
        if m == "label_weight":
            stacked = np.array([float(sums[k][m][0]) for k in keys])
            if len(keys) == 1 or sigma is None:
                continue  # one key: its weight is the public participant count
        elif m in POOLED or m in pooled:  # summed over the keys: one row, still L1 <= 1
            stacked = sum(np.asarray(sums[k][m], dtype=np.float64).reshape(sizes[m])
                          for k in keys)[None, :]
        else:
            stacked = np.stack([np.asarray(sums[k][m], dtype=np.float64).reshape(sizes[m])
                                for k in keys])
        if sigma is None:
            continue
        # proof: docs/privacy/participant-synth.md#measure
        noisy[m] = stacked + rng.normal(0.0, sigma, size=stacked.shape)
    return noisy | lab.measure_contrast(sums, keys, noise_sigma(params, lab.CONTRAST), rng)


def _measure_and_fit(params: ParticipantSynthParams, setup: PublicSetup,
                     sums: Mapping[Key, Mapping[str, np.ndarray]], rng: np.random.Generator
                     ) -> tuple[dict[Key, KeyModel], dict[Key, dict[str, float]]]:
    """Noise once per marginal (all keys together), then shrink toward the prior: the
    :data:`POOLED` marginals once for the population (weight ``n``, public), the others per key
    (weight the key's)."""
    keys, params = setup.keys, lab.resolve_params(params, setup.n_input, len(setup.keys))
    bins = setup.bins(params)
    prior = priors(bins, len(keys))
    if params.tracker is not None:  # declared public: its values, nothing measured (a
        # population: the first's here; the rendering gives each participant one of them)
        prior.update(params.declared_trackers[0].centres())
    noisy = measure(params, setup, sums, rng)
    if "label_weight" in noisy:  # the noisy weights, projected to sum to the public count
        weights = setup.n_input * project_simplex(noisy["label_weight"] / setup.n_input)
    else:
        weights = np.full(len(keys), setup.n_input / len(keys))
    events = event_fits(params, setup, noisy, weights)
    pooled, pooled_f = fit_marginals(params, bins, noisy, prior, 0, float(setup.n_input), POOLED)
    models: dict[Key, KeyModel] = {}
    shrink: dict[Key, dict[str, float]] = {}
    for i, k in enumerate(keys):
        own = [m for m in MARGINALS[:-1] if m not in POOLED and m not in events]
        marg, factors = fit_marginals(params, bins, noisy, prior, i, float(weights[i]), own)
        for m, fits in events.items():  # the log-normal event fits (per key or pooled)
            marg[m], factors[m] = fits[i]
        models[k] = KeyModel({m: (pooled | marg)[m] for m in MARGINALS[:-1]})
        shrink[k] = {m: (pooled_f | factors)[m] for m in MARGINALS[:-1]}
    if lab.CONTRAST in noisy:  # the keys' spatial moments moved by their shrunk contrasts
        c, _ = lab.shrink_contrast(noisy[lab.CONTRAST], setup.n_input,
                                   noise_sigma(params, lab.CONTRAST))
        models = lab.apply_contrast(models, keys, c, bins)
    return models, shrink


def plan(params: ParticipantSynthParams) -> ParticipantSynthPhases:
    """The phases of participant-synth with ``params``."""
    return ParticipantSynthPhases(params=params)


def participant_synth(dataset: Dataset, params: ParticipantSynthParams, *,
                      rng: np.random.Generator, progress: bool = False) -> Release[Dataset]:
    """Release a synthetic population from ``dataset`` at rho-zCDP per participant.

    Runs the three phases in-process on one partition (the whole dataset): bounded statistics,
    Gaussian noise drawn once per marginal in the curator (``rng.normal`` in
    ``_measure_and_fit``), shrinkage, and rendering. The engines' partition-wise run at the
    same root generator releases the same bits, however the participants are partitioned.

    Parameters
    ----------
    dataset : Dataset
        Recordings with one sampling rate and geometry (or pass them in ``params``) and the
        public labels.
    params : ParticipantSynthParams
    rng : numpy.random.Generator
    progress : bool
        Unused (kept for the registry's signature).

    Returns
    -------
    Release[Dataset]
        The synthetic recordings (pseudonyms ``S001``..., ``t`` on the public grid, ``x``,
        ``y``, the public labels) and the rho-zCDP record.

    Examples
    --------
    >>> from gazeprivacy.mechanisms.base import example_dataset
    >>> p = ParticipantSynthParams(epsilon_per_participant=3.0, delta=1e-6, output_length_s=1.0,
    ...                            public_labels=("task",))
    >>> rel = participant_synth(example_dataset(), p, rng=np.random.default_rng(0))
    >>> [r.participant for r in rel.output][:2], rel.output[0].n_samples
    (['S001', 'S002'], 100)
    >>> rel.guarantee.summary().split(";")[1].strip()
    'epsilon=3, delta=1e-06 per participant'
    """
    if not isinstance(params, ParticipantSynthParams):
        raise InvalidParameterError("params must be ParticipantSynthParams")
    phases = plan(params)
    _, curator_rng, release_rng = spawn(rng, 3)  # the partition-wise plan draws the same
    state, message = phases.client(dataset, None)
    model = phases.curate([message], curator_rng)
    return phases.release(dataset, state, model, release_rng)


def _example(mode: Mode) -> tuple[Dataset, ParticipantSynthParams] | None:
    from gazeprivacy.mechanisms.base import example_dataset

    if mode is not Mode.SOUND:
        return None
    return example_dataset(), ParticipantSynthParams(
        epsilon_per_participant=3.0, delta=1e-6, output_length_s=1.0, public_labels=("task",))


SPEC = Mechanism(
    name="participant-synth", level=Level.EVENTS, params_type=ParticipantSynthParams,
    run=participant_synth, guarantee=guarantee, plan=plan, example=_example,
    synthetic_population=True,
    summary="participant-level rho-zCDP synthetic population (select-measure-generate, "
            "marginals shrunk toward a centre prior)",
    citation="McKenna et al., JPC 2021 (MST) and PVLDB 2022 (AIM); Bun & Steinke, TCC 2016; "
             "Canonne, Kamath & Steinke, NeurIPS 2020",
)
