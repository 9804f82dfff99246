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
population-level model (``"population"``: the mean fixation normal / mean profile over all
participants); the counts are in the output's ``Dataset.info["event-synth-pd"]``.

* ``mode="paper"``: the deterministic *event privacy test*: loop over the other participants; a
  participant counts once if any of its events ``d_a`` gives
  ``gamma^-1 <= P(y | d_1) / P(y | d_a) <= gamma``; pass when the count reaches ``k - 1``.
  Guarantee: ``(k, gamma)``-PD per event, no DP statement.
* ``mode="sound"``: Bindschaedler et al.'s randomised test: with ``i`` such that
  ``gamma^(-i-1) < P(y | d_1) <= gamma^-i``, count the records (events) whose probability lies in
  the same interval and pass when the count reaches ``k + Lap(1 / epsilon0)``. Their Theorem 1
  gives ``(epsilon, delta)``-DP per record with ``epsilon = epsilon0 + ln(1 + gamma / t)`` and
  ``delta = exp(-epsilon0 (k - t))`` for an integer ``1 <= t < k``.

Probabilities: fixations as in seed 001, eq. (1) (product of ±0.01 deg box masses, log space);
saccades from per-participant PMFs (30 steps x 50 bins over 0..1000 deg/s, normalised by the
participant's saccade count), combined over steps by summing log-probabilities.

Deviations and flags. (1) ``pmf_pseudocount`` (default 0.5) is added to every PMF bin: without
it a single empty bin makes a probability zero and almost no saccade passes; the paper does not
say how it handled zeros. (2) The C-VAE and PMFs are trained on the data whose events seed them;
Bindschaedler's DP theorem needs the generative model to be learned independently of the seeds,
and the saccade test uses PMFs rather than the C-VAE's own output probabilities, so sound mode
is flagged (proof gap) for saccades. (3) Event timing is kept per participant (as in the
paper) and flagged. See ``docs/privacy/event-synth-pd.md``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import polars as pl

from gazeprivacy._validation import check_in, check_int, check_positive, check_range
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.events.models import (
    BOX_HALF_WIDTH_DEG,
    PROFILE_STEPS,
    fixation_log_prob,
    fixation_log_prob_approx,
    log_box_mass_1d,
)
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.guarantees import Flag, FlagCode, Guarantee, Kind, Release, Unit
from gazeprivacy.mechanisms.base import MechanismSpec, _track
from gazeprivacy.mechanisms.samples._event_synthesis import (
    FittedEvents,
    fit_events,
    group_events,
    render,
)
from gazeprivacy.rng import spawn

__all__ = ["SPEC", "EventSynthPDParams", "event_synth_pd", "guarantee"]

PMF_BINS = 50
PMF_MAX_DEG_S = 1000.0
#: Prefilter margin (nats) for the fast fixation probabilities; candidates within
#: ``ln(gamma) + margin`` of the seed's log-probability are recomputed exactly.
_PREFILTER_MARGIN = 5.0


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
    mode : {"paper", "sound"}
        Deterministic event test (paper) or Bindschaedler's randomised test (sound).
    epsilon0 : float, optional
        Scale of the randomised threshold (sound mode only, > 0).
    t : int, optional
        The integer of Bindschaedler's Theorem 1, ``1 <= t < k`` (sound mode; default ``k - 1``).
    max_tries : int
        Candidates drawn per event before it fails.
    on_failure : {"suppress", "population"}
        What replaces an event that never passes (never the raw event).
    pmf_pseudocount : float
        Added to every saccade PMF bin count (>= 0).
    cvae_epochs : int
        Training passes of the C-VAE.
    """

    k: int
    gamma: float
    mode: str = "paper"
    epsilon0: float | None = None
    t: int | None = None
    max_tries: int = 50
    on_failure: str = "suppress"
    pmf_pseudocount: float = 0.5
    cvae_epochs: int = 60

    def __post_init__(self) -> None:
        check_int(k=self.k, minimum=2)
        check_range(gamma=self.gamma, lo=1.0, hi=math.inf)
        check_in(mode=self.mode, options=("paper", "sound"))
        check_in(on_failure=self.on_failure, options=("suppress", "population"))
        check_int(max_tries=self.max_tries, minimum=1)
        check_int(cvae_epochs=self.cvae_epochs, minimum=1)
        check_positive(pmf_pseudocount=self.pmf_pseudocount, allow_zero=True)
        if self.mode == "sound":
            if self.epsilon0 is None:
                raise InvalidParameterError(
                    "mode='sound' needs epsilon0 (the randomised threshold's Laplace budget)")
            check_positive(epsilon0=self.epsilon0)
            t = self.k - 1 if self.t is None else self.t
            if not 1 <= t < self.k:
                raise InvalidParameterError(f"t must satisfy 1 <= t < k={self.k}, got {t}")
        elif self.epsilon0 is not None or self.t is not None:
            raise InvalidParameterError("epsilon0 and t belong to mode='sound'; drop them or "
                                        "pass mode='sound'")

    @classmethod
    def paper(cls, *, k: int, gamma: float) -> EventSynthPDParams:
        """Seed 001's setting: the deterministic event test; k in {2, 4}, gamma in {1.5, 2, 3}."""
        return cls(k=k, gamma=gamma, mode="paper")

    @property
    def t_effective(self) -> int:
        return self.k - 1 if self.t is None else self.t


def guarantee(params: EventSynthPDParams) -> Guarantee:
    """The privacy map (never reads data)."""
    flags = [Flag(FlagCode.PARTIAL_COVERAGE,
                  "event timing (number of events, onsets, durations, blink gaps) is kept per "
                  "participant and is not protected")]
    common = {"k": params.k, "gamma": params.gamma, "max_tries": params.max_tries,
              "on_failure": params.on_failure, "pmf_pseudocount": params.pmf_pseudocount,
              "cvae_epochs": params.cvae_epochs}
    if params.mode == "paper":
        flags.append(Flag(FlagCode.PROOF_GAP,
                          "the deterministic event privacy test gives (k, gamma)-plausible "
                          "deniability only; whether an event passes depends on the other "
                          "participants' data, so there is no differential-privacy bound"))
        return Guarantee(
            mechanism="event-synth-pd", kind=Kind.PLAUSIBLE_DENIABILITY, unit=Unit.EVENT,
            k=params.k, gamma=params.gamma, mode="paper",
            neighbouring="not a DP notion: each released event could have been generated, within "
                         f"a likelihood ratio of {params.gamma:g}, from events of at least "
                         f"{params.k - 1} other participants",
            parameters=common, flags=tuple(flags))
    t = params.t_effective
    eps = params.epsilon0 + math.log(1 + params.gamma / t)
    delta = math.exp(-params.epsilon0 * (params.k - t))
    flags.append(Flag(FlagCode.PROOF_GAP,
                      "Bindschaedler et al.'s theorem needs a generative model learned "
                      "independently of the seed records; here the C-VAE and the saccade PMFs "
                      "are trained on the same data, and the saccade test uses PMFs rather than "
                      "the C-VAE's own output probabilities"))
    return Guarantee(
        mechanism="event-synth-pd", kind=Kind.APPROX_DP, unit=Unit.EVENT, epsilon=eps,
        delta=delta, k=params.k, gamma=params.gamma, mode="sound",
        neighbouring="datasets differing in one event record (Bindschaedler, Shokri & Gunter "
                     "2017, Theorem 1)",
        parameters={**common, "epsilon0": params.epsilon0, "t": t},
        paper_claim=f"(k={params.k}, gamma={params.gamma:g})-plausible deniability per event",
        flags=tuple(flags))


@dataclass(frozen=True)
class _Population:
    """What the privacy test compares against: every fixation model and every participant PMF."""

    fix_params: np.ndarray  # (M, 4)
    fix_owner: np.ndarray  # (M,) participant index
    log_pmf: np.ndarray  # (P, 30, 50)
    participants: tuple[str, ...]


def _build_population(dataset: Dataset, fitted: list[FittedEvents],
                      params: EventSynthPDParams) -> _Population:
    parts = dataset.participants
    index = {p: i for i, p in enumerate(parts)}
    owners = [index[r.participant] for r in dataset.recordings]
    fix = np.vstack([f.fixation_params for f in fitted]) if fitted else np.zeros((0, 4))
    fix_owner = np.concatenate([np.full(f.n_fixations, o) for f, o in zip(fitted, owners,
                                                                           strict=True)])
    counts = np.zeros((len(parts), PROFILE_STEPS, PMF_BINS))
    n_sacc = np.zeros(len(parts))
    for f, o in zip(fitted, owners, strict=True):
        if f.n_saccades == 0:
            continue
        bins = _bins(f.saccade_profiles)
        for step in range(PROFILE_STEPS):
            np.add.at(counts[o, step], bins[:, step], 1.0)
        n_sacc[o] += f.n_saccades
    counts += params.pmf_pseudocount
    denom = n_sacc[:, None, None] + params.pmf_pseudocount * PMF_BINS
    with np.errstate(divide="ignore"):
        log_pmf = np.log(counts) - np.log(np.maximum(denom, 1e-300))
    return _Population(fix, fix_owner.astype(np.int64), log_pmf, parts)


def _bins(profiles: np.ndarray) -> np.ndarray:
    b = np.floor(np.asarray(profiles) / (PMF_MAX_DEG_S / PMF_BINS)).astype(np.int64)
    return np.clip(b, 0, PMF_BINS - 1)


def _fixation_candidates(cx: np.ndarray, cy: np.ndarray, seed_params: np.ndarray,
                         pop: _Population, band: float,
                         ) -> tuple[np.ndarray, Iterator[tuple[np.ndarray, np.ndarray]]]:
    """Seed log-probabilities of a batch of candidates ``(c, n)``, and, lazily per candidate, the
    exact log-probabilities (with owners) of every model near its seed value.

    Fitted sigmas are at least 0.05 deg (five box half widths), where the closed-form
    approximation is accurate to well under the margin near the seed; only models within
    ``band + margin`` of the seed are recomputed exactly.
    """
    h = BOX_HALF_WIDTH_DEG
    seed_lp = (log_box_mass_1d(cx, seed_params[0], seed_params[2], h)
               + log_box_mass_1d(cy, seed_params[1], seed_params[3], h)).sum(axis=1)
    approx = fixation_log_prob_approx(cx, cy, pop.fix_params)  # (c, M)
    near = np.abs(approx - seed_lp[:, None]) <= band + _PREFILTER_MARGIN

    def exact() -> Iterator[tuple[np.ndarray, np.ndarray]]:
        for j in range(cx.shape[0]):
            idx = np.flatnonzero(near[j])
            yield fixation_log_prob(cx[j], cy[j], pop.fix_params[idx]), pop.fix_owner[idx]

    return seed_lp, exact()


def _passes(lps: np.ndarray, owners: np.ndarray, seed_lp: float, seed_owner: int,
            params: EventSynthPDParams, rng: np.random.Generator) -> bool:
    """The privacy test; ``lps`` covers every record near the seed, the seed's own included."""
    ln_gamma = math.log(params.gamma)
    if params.mode == "paper":
        ok = np.isfinite(lps) & (np.abs(lps - seed_lp) <= ln_gamma) & (owners != seed_owner)
        return np.unique(owners[ok]).size >= params.k - 1
    # Sound: the partition test counts records in the same gamma-interval (seed included).
    if not np.isfinite(seed_lp):
        return False
    if ln_gamma == 0.0:
        same = lps == seed_lp
    else:
        i_seed = math.floor(-seed_lp / ln_gamma)
        with np.errstate(invalid="ignore"):
            same = np.isfinite(lps) & (np.floor(-lps / ln_gamma) == i_seed)
    count = int(same.sum())
    return count >= params.k + rng.laplace(0.0, 1.0 / params.epsilon0)


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
        Event table (``recording, name, onset, offset``); I-VT with the seeds' settings when
        omitted.
    progress : bool
        Show progress bars.
    """
    if not isinstance(params, EventSynthPDParams):
        raise InvalidParameterError("params must be EventSynthPDParams")
    if len(dataset.participants) < params.k:
        raise InvalidDataError(f"event-synth-pd needs at least k={params.k} participants, "
                               f"dataset {dataset.name!r} has {len(dataset.participants)}")
    if events is None:
        from gazeprivacy.events import detect_events_dataset

        events = detect_events_dataset(dataset)
    model_rng, test_rng = spawn(rng, 2)
    by_rec = group_events(events, [r.recording for r in dataset.recordings])
    fitted = [fit_events(rec, by_rec[rec.recording])
              for rec in _track(dataset.recordings, progress, "fitting events")]
    pop = _build_population(dataset, fitted, params)
    cvae = _train_cvae(dataset, fitted, params, model_rng)
    index = {p: i for i, p in enumerate(pop.participants)}
    stats = {"events": 0, "released": 0, "failed": 0, "tries": 0}
    recs: list[Recording] = []
    children = spawn(test_rng, len(dataset))
    for rec, fit, child in zip(_track(dataset.recordings, progress, "testing events"), fitted,
                               children, strict=True):
        fix_out, sac_out, samples, failed = _synthesise_recording(
            rec, fit, pop, cvae, index[rec.participant], params, child, stats)
        bad = failed if params.on_failure == "suppress" else None
        x, y = render(rec, fit, fix_out, sac_out, rng=child, suppressed=bad,
                      fixation_samples=samples)
        recs.append(rec.with_gaze(x, y))
    info = {**dataset.info, "event-synth-pd": stats}
    record = guarantee(params).compose(_events_per_participant(dataset, fitted))
    return Release(Dataset(tuple(recs), name=dataset.name, info=info), record)


def _events_per_participant(dataset: Dataset, fitted: list[FittedEvents]) -> dict[str, int]:
    out: dict[str, int] = {p: 0 for p in dataset.participants}
    for rec, f in zip(dataset.recordings, fitted, strict=True):
        out[rec.participant] = out.get(rec.participant, 0) + len(f.names)
    return out


def _train_cvae(dataset: Dataset, fitted: list[FittedEvents], params: EventSynthPDParams,
                rng: np.random.Generator):
    from gazeprivacy.events.cvae import SaccadeCVAE

    prof = [f.saccade_profiles for f in fitted if f.n_saccades]
    if sum(p.shape[0] for p in prof) < 2:
        return None
    owners = np.concatenate([np.full(f.n_saccades, r.participant, dtype=object)
                             for r, f in zip(dataset.recordings, fitted, strict=True)])
    return SaccadeCVAE(epochs=params.cvae_epochs, batch_size=256).fit(
        np.vstack(prof), np.concatenate([f.saccade_amplitude_deg for f in fitted]),
        np.concatenate([f.saccade_duration_s for f in fitted]), owners, rng=rng)


def _synthesise_recording(rec: Recording, fit: FittedEvents, pop: _Population, cvae,
                          owner: int, params: EventSynthPDParams, rng: np.random.Generator,
                          stats: dict[str, int],
                          ) -> tuple[np.ndarray, np.ndarray, dict[int, tuple], np.ndarray]:
    """Test candidates event by event; returns fixation params, profiles, released fixation
    samples (by fixation index) and the per-event failure flags.

    All ``max_tries`` candidates of an event are drawn and scored at once (vectorised); the first
    that passes is released, exactly as a loop that stops at the first pass would release it.
    """
    fix_out = fit.fixation_params.copy()
    sac_out = fit.saccade_profiles.copy()
    samples: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    failed = np.zeros(len(fit.names), dtype=bool)
    ln_gamma = math.log(params.gamma)
    tries = params.max_tries
    fi = si = 0
    for e, name in enumerate(fit.names):
        n = int(fit.offset[e] - fit.onset[e])
        winner = None
        if name == "fixation":
            p = fit.fixation_params[fi]
            cx = rng.normal(p[0], p[2], (tries, n))
            cy = rng.normal(p[1], p[3], (tries, n))
            seed_lps, scored = _fixation_candidates(cx, cy, p, pop, ln_gamma)
            for j, (lps, owners) in enumerate(scored):
                if _passes(lps, owners, float(seed_lps[j]), owner, params, rng):
                    winner = j
                    break
            if winner is not None:
                samples[fi] = (cx[winner], cy[winner])
                fix_out[fi] = [cx[winner].mean(), cy[winner].mean(), p[2], p[3]]
            else:
                fix_out[fi] = pop.fix_params.mean(axis=0)
            fi += 1
        else:
            if cvae is not None:
                cands = cvae.sample(np.full(tries, fit.saccade_amplitude_deg[si]),
                                    np.full(tries, fit.saccade_duration_s[si]),
                                    np.full(tries, pop.participants[owner]), rng=rng)
                # (tries, participants): summed log-PMF over the 30 steps
                lp = pop.log_pmf[:, np.arange(PROFILE_STEPS)[None, :], _bins(cands)].sum(axis=2).T
                everyone = np.arange(lp.shape[1])
                for j in range(tries):
                    if _passes(lp[j], everyone, float(lp[j, owner]), owner, params, rng):
                        winner = j
                        break
            sac_out[si] = cands[winner] if winner is not None else _population_profile(pop)
            si += 1
        failed[e] = winner is None
        stats["events"] += 1
        stats["tries"] += tries if winner is None else winner + 1
        stats["failed" if winner is None else "released"] += 1
    return fix_out, sac_out, samples, failed


def _population_profile(pop: _Population) -> np.ndarray:
    """Mean profile of the population (expected bin centres under the pooled PMF)."""
    centres = (np.arange(PMF_BINS) + 0.5) * (PMF_MAX_DEG_S / PMF_BINS)
    pooled = np.exp(pop.log_pmf).mean(axis=0)
    pooled /= pooled.sum(axis=1, keepdims=True)
    return pooled @ centres


SPEC = MechanismSpec(
    name="event-synth-pd", level="samples", params_type=EventSynthPDParams,
    protect=event_synth_pd,
    summary="synthetic fixations (2-D normal) and C-VAE saccades released only if they pass a "
            "(k, gamma)-plausible-deniability test",
    citation="David-John, Butler, Jain, TVCG 2023, section 4.3.3; Bindschaedler et al. 2017",
    options={"k": "required", "gamma": "required", "mode": "paper | sound",
             "epsilon0": "sound mode", "max_tries": "50", "on_failure": "suppress | population"},
)
