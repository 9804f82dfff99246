# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""event-synth-PD: (k, gamma)-plausible deniability of synthetic fixations and saccades.

David-John, Butler, Jain. Privacy-preserving datasets of eye-tracking samples with applications
in XR. IEEE TVCG 29(5), 2023, section 4.3.3; plausible deniability of Bindschaedler & Shokri
(IEEE S&P 2016) and Bindschaedler, Shokri & Gunter (PVLDB 10(5), 2017).

Every event seeds a synthetic candidate: a fixation draws its samples from its own 2-D normal; a
saccade's velocity profile is decoded by the C-VAE with the event's condition (amplitude,
duration, participant). The candidate is released only if it passes the privacy test, else a new
candidate is drawn, at most ``max_tries`` times. An event that never passes is **never released
raw**: its rows become missing (``on_failure="suppress"``, default) or are drawn from a
population-level model that is a public prior, not fitted to the data (``"population"``: a
fixation normal at the centre of the recording's geometry with ``PRIOR_SIGMA_DEG``, a fixed
Gaussian velocity profile ``PRIOR_PROFILE``). The counts of events, failures and tries go to the
data holder's report, ``output.info[HOLDER_REPORT_KEY]["event-synth-pd"]``, which is not part of
the release (a release writer drops it).

* ``mode="paper"``: the deterministic *event privacy test*: loop over the other participants; a
  participant counts once if any of its events ``d_a`` gives
  ``gamma^-1 <= P(y | d_1) / P(y | d_a) <= gamma``; pass when the count reaches ``k - 1``.
  Guarantee: ``(k, gamma)``-PD per event, no DP statement.
* ``mode="sound"``: Bindschaedler et al.'s randomised test: with ``i`` such that
  ``gamma^(-i-1) < P(y | d_1) <= gamma^-i``, count the records (events) whose probability lies in
  the same interval and pass when the count reaches ``k + Lap(1 / epsilon0)`` **and** ``k`` (the
  floor makes every released event (k, gamma)-plausibly deniable, which the noisy threshold alone
  does not). ``epsilon0`` is required. Guarantee: ``(k, gamma)``-PD per event, **no DP
  statement**: their Theorem 1 (``(epsilon0 + ln(1 + gamma/t), exp(-epsilon0 (k - t)))``-DP)
  covers a mechanism whose seed is drawn at random and kept secret, whose output is not tied to
  the seed, with one test per output and a generative model learned independently of the seeds.
  Here every event is its own seed and its synthetic lands in the seed's own rows, a failing event
  is retried up to ``max_tries`` times, then suppressed or replaced, each test counts records
  across the whole dataset, and the models are trained on the same data; so the theorem does not
  apply and the record says so (flag ``proof-gap``, one note per gap).

Probabilities: fixations as in seed 001, eq. (1) (product of ±0.01 deg box masses, log space);
saccades from per-participant PMFs (30 steps x 50 bins over 0..1000 deg/s, normalised by the
participant's saccade count), combined over steps by summing log-probabilities.

Deviations and flags. (1) ``pmf_pseudocount`` (default 0.5) is added to every PMF bin: without
it a single empty bin makes a probability zero and almost no saccade passes; the paper does not
say how it handled zeros. (2) The C-VAE and PMFs are trained on the data whose events seed them;
Bindschaedler's DP theorem needs the generative model to be learned independently of the seeds,
and the saccade test uses PMFs rather than the C-VAE's own output probabilities, so sound mode
is flagged (proof gap). (3) Event timing is kept per participant (as in the
paper) and flagged. (4) Sound mode detects events with REMoDNaV (pursuit-aware; pursuit
rows are interpolated, not modelled) instead of seed 001's I-VT at 30 deg/s, which labels most
samples of real recordings saccade; paper mode keeps I-VT. Both refuse implausible events
unless ``accept_implausible_events``. See ``docs/privacy/event-synth-pd.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy._validation import check_in, check_int, check_positive, check_range
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.events.models import (
    gaussian_profile,
)
from gazeprivacy.exceptions import InvalidParameterError, ReleaseRefusedError
from gazeprivacy.guarantees import Flag, FlagCode, Guarantee, Kind, Release, Unit
from gazeprivacy.mechanisms.contract import Level, Mechanism, Mode, SampleShape, coerce_option
from gazeprivacy.mechanisms.samples._event_synth_pd_fit import (
    CVAE_FAST_PROFILES,
    CVAE_PATIENCE,
    CVAE_VALIDATION,
    sample_stats,
    train_cvae,
)
from gazeprivacy.mechanisms.samples._event_synth_pd_privacy import (
    _build_population,
    _FixationEvents,
    _test_fixations,
    _test_saccades,
)
from gazeprivacy.mechanisms.samples._event_synthesis import (
    FittedEvents,
    fit_dataset_events,
    public_centre,
    render,
    with_holder_report,
)
from gazeprivacy.rng import spawn

__all__ = ["CVAE_FAST_PROFILES", "CVAE_PATIENCE", "CVAE_VALIDATION",
           "PARTITION_REFUSAL", "SPEC", "EventSynthPDParams", "event_synth_pd", "guarantee",
           "shape_guarantee"]

#: ``cvae_training="fast"``: most saccade profiles the C-VAE trains on (a random subsample),
#: profiles held out for early stopping, and passes without improvement before it stops
#: (CVAE_FAST_PROFILES, CVAE_VALIDATION, CVAE_PATIENCE: in _event_synth_pd_fit, imported here).
#: The public prior that replaces an event that never passes (``on_failure="population"``):
#: chosen here, not fitted to any data. A fixation: a normal at the centre of the recording's
#: geometry with this standard deviation per axis (degrees).
PRIOR_SIGMA_DEG = 0.5
#: A saccade: this velocity profile (deg/s over the 30 steps; peak 300 deg/s at mid-saccade).
PRIOR_PROFILE = gaussian_profile(np.array([300.0, 0.5, 0.05]))


@dataclass(frozen=True, slots=True, kw_only=True)
class EventSynthPDParams:
    """Parameters of event-synth-PD.

    Parameters
    ----------
    k : int
        Plausible-deniability count (>= 2). No default; the paper used 2 and 4.
    gamma : float
        Likelihood-ratio bound (>= 1). No default; the paper used 1.5, 2 and 3. ``gamma = 1``
        only passes exact ties of probability, which almost never happen.
    mode : {"sound", "paper"}
        Bindschaedler's randomised test (sound, the default; needs ``epsilon0``) or the
        deterministic event test as printed (paper).
    epsilon0 : float, optional
        Scale of the randomised threshold: required in sound mode (no default; > 0), refused in
        paper mode. It sets the test's noise, not a DP budget (the record makes no DP claim).
    max_tries : int
        Candidates drawn per event before it fails.
    on_failure : {"suppress", "population"}
        What replaces an event that never passes (never the raw event): missing rows, or a draw
        from the public prior (not fitted to the data, see the module docstring).
    pmf_pseudocount : float
        Added to every saccade PMF bin count (>= 0).
    cvae_epochs : int
        Training passes of the C-VAE (with ``cvae_training="fast"``: the most passes).
    cvae_training : {"fast", "full"}
        How the C-VAE is trained (a model choice, not a privacy parameter; see
        ``docs/privacy/event-synth-pd.md``). ``"fast"`` (default): on a random subsample of at
        most ``CVAE_FAST_PROFILES`` saccade profiles, minibatches of up to 1024 (learning rate
        scaled with the square root of the batch), stopping early when the loss of
        ``CVAE_VALIDATION`` held-out profiles has not improved for ``CVAE_PATIENCE`` passes
        (at most ``cvae_epochs``) and keeping the best pass's weights. ``"full"``: every
        profile, batch 256, exactly ``cvae_epochs`` passes (the implementation before
        November 2026).
    accept_implausible_events : bool
        Release even when the detected events fail the plausibility checks
        (:func:`gazeprivacy.events.require_plausible`; CLI ``--accept-implausible-events``).
        Events are detected with REMoDNaV in sound mode and seed 001's I-VT in paper mode.
    """

    k: int
    gamma: float
    mode: Mode = Mode.SOUND
    epsilon0: float | None = None
    max_tries: int = 50
    on_failure: str = "suppress"
    pmf_pseudocount: float = 0.5
    cvae_epochs: int = 60
    cvae_training: str = "fast"
    accept_implausible_events: bool = False

    def __post_init__(self) -> None:
        check_int(k=self.k, minimum=2)
        check_range(gamma=self.gamma, lo=1.0, hi=math.inf, hi_open=True)
        object.__setattr__(self, "mode", coerce_option("mode", self.mode, Mode,
                                                       (Mode.SOUND, Mode.PAPER)))
        check_in(on_failure=self.on_failure, options=("suppress", "population"))
        check_int(max_tries=self.max_tries, minimum=1)
        check_int(cvae_epochs=self.cvae_epochs, minimum=1)
        check_in(cvae_training=self.cvae_training, options=("fast", "full"))
        check_positive(pmf_pseudocount=self.pmf_pseudocount, allow_zero=True)
        if self.mode is Mode.SOUND:
            if self.epsilon0 is None:
                raise InvalidParameterError(
                    "mode='sound' needs epsilon0 (the randomised threshold's Laplace budget)")
            check_positive(epsilon0=self.epsilon0)
        elif self.epsilon0 is not None:
            raise InvalidParameterError("epsilon0 belongs to mode='sound'; drop it or pass "
                                        "mode='sound'")

    @classmethod
    def paper(cls, *, k: int, gamma: float, **kw: Any) -> EventSynthPDParams:
        """Seed 001's values: k in {2, 4}, gamma in {1.5, 2, 3}.

        Sets values only; pass ``mode="paper"`` for seed 001's deterministic event test (sound
        mode needs ``epsilon0``)."""
        return cls(k=k, gamma=gamma, **kw)


#: Why there is no DP statement, in either mode (one note per gap in the record).
_DP_GAPS = (
    "no differential-privacy bound is claimed. Bindschaedler, Shokri & Gunter (2017), Theorem 1 "
    "covers a mechanism whose seed is drawn at random and kept secret and whose output is not "
    "tied to the seed; here every event is its own seed and its synthetic is released in the "
    "seed's own rows, so whether an event is released, and where, reveals the seed",
    "a failing event is retried up to max_tries times (each retry is another test on the same "
    "seed); no accounting covers the retries",
    "an event that never passes is suppressed (its rows missing: the failure is visible) or "
    "replaced by the public prior; neither outcome is covered by the theorem",
    "each test counts records across the whole dataset, so one participant's data changes the "
    "pass decisions of many other participants' events",
    "the fixation models, the C-VAE and the saccade PMFs are fitted on the same data whose "
    "events seed them (the theorem needs a generative model learned independently of the "
    "seeds), and the saccade test uses PMFs rather than the C-VAE's own output probabilities",
)


def guarantee(params: EventSynthPDParams) -> Guarantee:
    """The privacy map (never reads data): ``(k, gamma)``-PD per event in both modes, no DP."""
    flags = [Flag(FlagCode.PARTIAL_COVERAGE,
                  "event timing (number of events, onsets, durations, blink gaps) is kept per "
                  "participant and is not protected"),
             Flag(FlagCode.PROOF_GAP,
                  "(k, gamma)-plausible deniability per event only, no differential-privacy "
                  "bound: each event is its own seed and its synthetic lands in the seed's rows, "
                  "retries, the fallback and the dataset-wide test are not accounted for, and "
                  "the models are fitted on the same data (see notes)")]
    common = {"k": params.k, "gamma": params.gamma, "max_tries": params.max_tries,
              "on_failure": params.on_failure, "pmf_pseudocount": params.pmf_pseudocount,
              "cvae_epochs": params.cvae_epochs, "cvae_training": params.cvae_training}
    claim = f"(k={params.k}, gamma={params.gamma:g})-plausible deniability per event"
    if params.mode == "paper":
        return Guarantee(
            mechanism="event-synth-pd", kind=Kind.PLAUSIBLE_DENIABILITY, unit=Unit.EVENT,
            k=params.k, gamma=params.gamma, mode=str(params.mode),
            neighbouring="not a DP notion: each released event could have been generated, within "
                         f"a likelihood ratio of {params.gamma:g}, from events of at least "
                         f"{params.k - 1} other participants",
            parameters=common, paper_claim=claim, flags=tuple(flags), notes=_DP_GAPS)
    return Guarantee(
        mechanism="event-synth-pd", kind=Kind.PLAUSIBLE_DENIABILITY, unit=Unit.EVENT,
        k=params.k, gamma=params.gamma, mode=str(params.mode),
        neighbouring="not a DP notion: each released event has at least k records (events, its "
                     "seed included, possibly of one participant) whose probability of "
                     f"generating it lies in the same factor-{params.gamma:g} interval "
                     "(Bindschaedler et al.'s partition test, with the noisy threshold "
                     "k + Lap(1/epsilon0) and a floor at k)",
        parameters={**common, "epsilon0": params.epsilon0}, paper_claim=claim,
        flags=tuple(flags),
        notes=(*_DP_GAPS, "Theorem 1's (epsilon, delta) = (epsilon0 + ln(1 + gamma/t), "
               "exp(-epsilon0 (k - t))) is therefore not reported; epsilon0 only sets the "
               "test's noise"))


def _detection(params: EventSynthPDParams) -> dict[str, Any]:
    """How :func:`fit_dataset_events` detects and gates events: seed 001's I-VT in paper mode,
    REMoDNaV in sound mode."""
    return {"method": "ivt" if params.mode == "paper" else "remodnav",
            "accept_implausible_events": params.accept_implausible_events,
            "mechanism": "event-synth-pd"}


def event_synth_pd(dataset: Dataset, params: EventSynthPDParams, *, rng: np.random.Generator,
                   events: pl.DataFrame | None = None, progress: bool = False,
                   ) -> Release[Dataset]:
    """Release ``dataset`` with plausibly deniable synthetic events (same rows and order).

    Parameters
    ----------
    dataset : Dataset
        At least ``k`` participants.
    params : EventSynthPDParams
    rng : numpy.random.Generator
    events : polars.DataFrame, optional
        Event table (``recording, name, onset, offset``); when omitted, REMoDNaV events in
        sound mode and I-VT with the seeds' settings in paper mode, refused when implausible
        (``params.accept_implausible_events``).
    progress : bool
        Show progress bars.
    """
    if not isinstance(params, EventSynthPDParams):
        raise InvalidParameterError("params must be EventSynthPDParams")
    if len(dataset.participants) < params.k:
        raise ReleaseRefusedError(f"event-synth-pd needs at least k={params.k} participants, "
                                  f"dataset {dataset.name!r} has {len(dataset.participants)}")
    model_rng, test_rng = spawn(rng, 2)
    fitted = fit_dataset_events(dataset, events, progress=progress, **_detection(params))
    pop = _build_population(dataset, fitted, params)
    cvae = train_cvae(dataset, fitted, params, model_rng)
    index = {p: i for i, p in enumerate(pop.participants)}
    owner = np.array([index[r.participant] for r in dataset.recordings], dtype=np.int64)
    fix_rng, sac_rng, render_rng = spawn(test_rng, 3)
    # every event of the dataset is tested at once (vectorised), then rendered per recording
    fix_n = [(f.offset - f.onset)[f.names == "fixation"] for f in fitted]
    fix_events = _FixationEvents(
        params=pop.fix_params, n=np.concatenate(fix_n) if fix_n else np.zeros(0, np.int64),
        owner=pop.fix_owner)
    f_win, f_x, f_y, f_tries = _test_fixations(fix_events, pop, params, fix_rng)
    s_owner = np.concatenate([np.full(f.n_saccades, o) for f, o in zip(fitted, owner,
                                                                        strict=True)])
    s_win, s_prof, s_tries = _test_saccades(
        np.concatenate([f.saccade_amplitude_deg for f in fitted]),
        np.concatenate([f.saccade_duration_s for f in fitted]), s_owner.astype(np.int64),
        pop, cvae, params, sac_rng)
    n_events = sum(len(f.names) for f in fitted)
    n_ok = int((f_win >= 0).sum() + (s_win >= 0).sum())
    stats = {"events": n_events, "released": n_ok, "failed": n_events - n_ok,
             "tries": int(f_tries.sum() + s_tries.sum()), "on_failure": params.on_failure}
    f_start = np.cumsum(fix_events.n) - fix_events.n
    f_stats = sample_stats(f_x, f_y, fix_events.n)
    recs: list[Recording] = []
    fi0 = si0 = 0
    for rec, fit, child in zip(dataset.recordings, fitted, spawn(render_rng, len(dataset)),
                               strict=True):
        nf, ns = fit.n_fixations, fit.n_saccades
        fw, sw = f_win[fi0:fi0 + nf], s_win[si0:si0 + ns]
        fix_out = fit.fixation_params.copy()
        samples: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for i in np.flatnonzero(fw >= 0).tolist():
            a, b = f_start[fi0 + i], f_start[fi0 + i] + fix_events.n[fi0 + i]
            samples[i] = (f_x[a:b], f_y[a:b])
        fix_out[fw >= 0] = f_stats[fi0:fi0 + nf][fw >= 0]
        fix_out[fw < 0] = (*public_centre(rec), PRIOR_SIGMA_DEG, PRIOR_SIGMA_DEG)
        sac_out = np.where((sw >= 0)[:, None], s_prof[si0:si0 + ns], PRIOR_PROFILE[None, :])
        failed = np.zeros(len(fit.names), dtype=bool)
        is_fix = fit.names == "fixation"
        failed[is_fix] = fw < 0
        failed[~is_fix] = sw < 0
        bad = failed if params.on_failure == "suppress" else None
        x, y = render(rec, fit, fix_out, sac_out, rng=child, suppressed=bad,
                      fixation_samples=samples)
        recs.append(rec.with_gaze(x, y))
        fi0 += nf
        si0 += ns
    info = with_holder_report(dataset.info, "event-synth-pd", stats)
    record = guarantee(params).compose(_events_per_participant(dataset, fitted))
    return Release(Dataset(tuple(recs), name=dataset.name, info=info), record)


def _events_per_participant(dataset: Dataset, fitted: list[FittedEvents]) -> dict[str, int]:
    out: dict[str, int] = {p: 0 for p in dataset.participants}
    for rec, f in zip(dataset.recordings, fitted, strict=True):
        out[rec.participant] = out.get(rec.participant, 0) + len(f.names)
    return out


# --------------------------------------------------------------------------------------------
# contract: privacy map of a public shape, registry entry
# --------------------------------------------------------------------------------------------

#: Why event-synth-PD has no partition plan.
PARTITION_REFUSAL = ("its curator trains a C-VAE on all events and tests every candidate "
                     "against the whole population, which needs all events in one place")


def shape_guarantee(params: EventSynthPDParams, shape: SampleShape) -> Guarantee:
    """The per-event record (not composed: the number of events per participant is found by
    event detection on the data, so no data-free map can compose it; the release's record is
    this one composed over the detected events)."""
    del shape  # the per-event statement does not depend on the public shape
    return guarantee(params)


def _example(mode: Mode) -> tuple[Dataset, EventSynthPDParams] | None:
    from gazeprivacy.mechanisms.base import example_dataset

    if mode is Mode.BASELINE:
        return None
    # paper mode's I-VT labels about half of this simulated 100 Hz data saccade: the gate
    # would refuse it (docs/events.md)
    extra = ({"epsilon0": 1.0} if mode is Mode.SOUND else {"accept_implausible_events": True})
    return example_dataset(), EventSynthPDParams(k=2, gamma=2.0, mode=mode, cvae_epochs=1,
                                                 max_tries=5, **extra)


SPEC = Mechanism(
    name="event-synth-pd", level=Level.EVENTS, params_type=EventSynthPDParams,
    run=event_synth_pd, guarantee=shape_guarantee, partition_refusal=PARTITION_REFUSAL,
    example=_example,
    summary="synthetic fixations (2-D normal) and C-VAE saccades released only if they pass a "
            "(k, gamma)-plausible-deniability test",
    citation="David-John, Butler, Jain, TVCG 2023, section 4.3.3; Bindschaedler et al. 2017",
)
