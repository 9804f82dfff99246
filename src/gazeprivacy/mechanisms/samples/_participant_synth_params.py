# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's parameters: the budget split over the marginals
(:class:`ParticipantSynthSplit`), the parameters (:class:`ParticipantSynthParams`) and the noise
each measurement gets (:func:`noise_sigma`). Public values only: nothing here reads data. The
mechanism is :mod:`gazeprivacy.mechanisms.samples.participant_synth`."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from typing import Any

from gazeprivacy._validation import check_int, check_positive
from gazeprivacy.accounting.zcdp import epsilon_to_rho
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.events.detection import DEFAULT_METHOD
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.mechanisms.contract import Mode, coerce_option
from gazeprivacy.mechanisms.noise.gaussian import zcdp_gaussian_sigma
from gazeprivacy.mechanisms.samples import _participant_synth_labels as lab
from gazeprivacy.mechanisms.samples._participant_synth_model import MARGINALS
from gazeprivacy.mechanisms.samples._participant_synth_quality import QUALITY, DeclaredTracker

__all__ = ["SENSITIVITY_L2", "ParticipantSynthParams", "ParticipantSynthSplit", "noise_sigma"]


#: L2 sensitivity of every measured marginal (all public keys together) under replace-one
#: neighbouring: a participant's contribution is a non-negative vector of L1 norm at most 1, so
#: two participants' contributions differ by at most sqrt(1 + 1) in L2.
SENSITIVITY_L2 = math.sqrt(2.0)

#: Id names that can never be public labels here (the output has only synthetic ids).
_NOT_LABELS = ("participant", "recording", "t", "x", "y", "mask", "pupil", "name", "info")


@dataclass(frozen=True, slots=True, kw_only=True)
class ParticipantSynthSplit:
    """Shares of rho per measured marginal (each in [0, 1], summing to at most 1).

    A share of 0 measures nothing (that marginal is the prior). ``label_weight`` is spent only
    when there are several public label values (with one, its weight is the public participant
    count); an unspent share is simply not used (the record states the total rho).

    The default is a constant (data-free) split for the small studies of eye tracking
    (``n sqrt(rho)`` of a few to a few tens): half of rho on the two spreads, where real gaze
    differs most from the centre prior and four numbers are measured with little noise each;
    little on the means (real populations look at the centre on average); a small share on the
    density grid (its James-Stein shrinkage keeps the Gaussian of the moments until ``n`` is
    large); nothing on ``fixation_cell`` and ``transition``, which the generator no longer
    reads (a user split may still measure them; they are released in the model).
    """

    mean_x: float = 0.02
    mean_y: float = 0.02
    spread_x: float = 0.18
    spread_y: float = 0.18
    density: float = 0.06
    fixation_cell: float = 0.0
    transition: float = 0.0
    fixation_duration: float = 0.10
    saccade_amplitude: float = 0.09
    saccade_direction: float = 0.03
    event_rate: float = 0.06
    tracker_step: float = 0.10  # the tracker (noise level, smoothing, gaps, the steps'
    tracker_smooth: float = 0.04  # shoulder): the realism discriminator's strongest features
    tracker_missing: float = 0.06
    tracker_tail: float = 0.03
    label_weight: float = 0.03
    centre_share: float | None = None  # None: the public rule of n and rho (_..._centre)
    #: label contrasts (``_participant_synth_labels``); None: the public rule of n, rho and the
    #: number of keys, the other shares scaled by 1 - its share
    label_contrast: float | None = None

    def __post_init__(self) -> None:
        for name in MARGINALS:
            v = 0.0 if name == "centre_share" and self.centre_share is None else getattr(self, name)
            if not (isinstance(v, int | float) and 0.0 <= v <= 1.0):
                raise InvalidParameterError(f"split.{name} must be in [0, 1], got {v!r}")
        total = math.fsum(getattr(self, n) or 0.0 for n in MARGINALS) + lab.check_share(
            self.label_contrast)
        if total > 1.0 + 1e-12:
            raise InvalidParameterError(f"the split's shares must sum to at most 1, got "
                                        f"{total:g}; lower some shares")

    def shares(self) -> dict[str, float]:
        return {n: float(getattr(self, n) or 0.0) for n in MARGINALS} | {
            lab.CONTRAST: self.label_contrast or 0.0}

    def without_tracker(self) -> ParticipantSynthSplit:
        """This split with nothing on the tracker (a declared tracker measures none of it):
        the four tracker shares moved to the other marginals in proportion to theirs (the
        total unchanged; ``centre_share`` and ``label_contrast`` keep their own rules when
        None).

        >>> s = ParticipantSynthSplit().without_tracker()
        >>> s.tracker_step, round(s.spread_x, 4), round(sum(s.shares().values()), 6)
        (0.0, 0.2338, 1.0)
        """
        freed = math.fsum(getattr(self, m) for m in QUALITY)
        rest = {m: v for m, v in self.shares().items() if m not in QUALITY
                and not (m == "centre_share" and self.centre_share is None)
                and not (m == lab.CONTRAST and self.label_contrast is None)}
        total = math.fsum(rest.values())
        scale = (total + freed) / total if total > 0 else 1.0
        return replace(self, **{m: 0.0 for m in QUALITY},
                       **{m: v * scale for m, v in rest.items()})


def _as_grid(name: str, value: Any) -> tuple[int, int]:
    try:
        nx, ny = (int(v) for v in value)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{name} must be two integers (nx, ny), got {value!r}"
                                    ) from None
    if nx < 2 or ny < 2 or nx * ny > 4096:
        raise InvalidParameterError(f"{name} must have nx, ny >= 2 and at most 4096 cells, "
                                    f"got {value!r}")
    return nx, ny


@dataclass(frozen=True, slots=True, kw_only=True)
class ParticipantSynthParams:
    """Parameters of participant-synth.

    Parameters
    ----------
    epsilon_per_participant : float, > 0
        The budget per participant (no default).
    delta : float, in (0, 1)
        The delta of the (epsilon, delta) statement (no default).
    output_length_s : float, > 0
        Length of every synthetic recording (no default).
    public_labels : tuple of str
        Recording labels declared public (e.g. ``("task",)``): measured per value and written.
    n_participants : int, optional
        Synthetic participants; default the input's participant count (public by design).
    recordings_per_participant : int, >= 1
        Synthetic recordings per participant and public label value.
    grid, coarse_grid : (nx, ny)
        The density grid (16 x 12) and the fixation-cell / transition grid (4 x 3).
    sampling_rate_hz : float, optional
        Output rate; default the input's (public; one rate).
    geometry : Geometry, optional
        The public screen; default the input's (one geometry).
    detector : str
        Event detector (:data:`gazeprivacy.events.detection.METHODS`), default the
        project's (``DEFAULT_METHOD``: REMoDNaV). Implausible detections are not refused: each
        participant's events are normalised, so any detector output is covered.
    event_seconds_per_recording : float, optional
        Events are measured on each recording's first T seconds (60; None: all of it): a fixed
        rule, the guarantee unchanged; density and moments keep every sample.
    split : ParticipantSynthSplit
        Shares of rho per marginal.
    tracker : DeclaredTracker or sequence of DeclaredTracker, optional
        A tracker declared public (values from no participant, e.g. the experimenter's pilot
        recording): the four tracker marginals are not measured but set to it, and the split's
        tracker shares go to the other marginals (:meth:`ParticipantSynthSplit.without_tracker`,
        applied here: ``split`` then reads the shares spent). Several (a declared population,
        e.g. pilots recorded on several people): each synthetic participant takes one of them
        at random (people's trackers differ: :attr:`declared_trackers`); stored as a tuple.
    mode : Mode
        Sound only.

    Examples
    --------
    >>> p = ParticipantSynthParams(epsilon_per_participant=3.0, delta=1e-6, output_length_s=60)
    >>> round(p.rho, 4)
    0.1851
    >>> ParticipantSynthParams(epsilon_per_participant=3.0, delta=0.0, output_length_s=60)
    Traceback (most recent call last):
    ...
    gazeprivacy.exceptions.InvalidParameterError: delta must be in (0, 1), got 0.0
    """

    epsilon_per_participant: float
    delta: float
    output_length_s: float
    public_labels: tuple[str, ...] = ()
    n_participants: int | None = None
    recordings_per_participant: int = 1
    grid: tuple[int, int] = (16, 12)
    coarse_grid: tuple[int, int] = (4, 3)
    sampling_rate_hz: float | None = None
    geometry: Geometry | None = None
    detector: str = DEFAULT_METHOD
    event_seconds_per_recording: float | None = 60.0
    split: ParticipantSynthSplit = field(default_factory=ParticipantSynthSplit)
    tracker: DeclaredTracker | tuple[DeclaredTracker, ...] | None = None
    mode: Mode = Mode.SOUND

    def __post_init__(self) -> None:
        from gazeprivacy.events.detection import METHODS

        eps = self.epsilon_per_participant
        if not (isinstance(eps, int | float) and math.isfinite(eps) and eps > 0):
            raise InvalidParameterError(f"epsilon_per_participant must be finite and > 0, got "
                                        f"{eps!r}")
        if not (isinstance(self.delta, int | float) and 0.0 < self.delta < 1.0):
            raise InvalidParameterError(f"delta must be in (0, 1), got {self.delta!r}")
        check_positive(output_length_s=self.output_length_s)
        labels = (self.public_labels,) if isinstance(self.public_labels, str) else \
            tuple(self.public_labels)
        bad = [lb for lb in labels if lb in _NOT_LABELS]
        if bad or len(set(labels)) != len(labels):
            raise InvalidParameterError(f"public_labels must be distinct recording labels "
                                        f"(not {', '.join(_NOT_LABELS)}), got {labels!r}")
        object.__setattr__(self, "public_labels", labels)
        if self.n_participants is not None:
            check_int(n_participants=self.n_participants)
        check_int(recordings_per_participant=self.recordings_per_participant)
        object.__setattr__(self, "grid", _as_grid("grid", self.grid))
        object.__setattr__(self, "coarse_grid", _as_grid("coarse_grid", self.coarse_grid))
        if self.sampling_rate_hz is not None:
            check_positive(sampling_rate_hz=self.sampling_rate_hz)
        if self.geometry is not None and not isinstance(self.geometry, Geometry):
            raise InvalidParameterError(f"geometry must be a Geometry, got "
                                        f"{type(self.geometry).__name__}")
        if self.detector not in METHODS:
            raise InvalidParameterError(f"detector must be one of {', '.join(METHODS)}, got "
                                        f"{self.detector!r}")
        if self.event_seconds_per_recording is not None:
            check_positive(event_seconds_per_recording=self.event_seconds_per_recording)
        if not isinstance(self.split, ParticipantSynthSplit):
            raise InvalidParameterError("split must be a ParticipantSynthSplit")
        if self.tracker is not None:
            if isinstance(self.tracker, list | tuple):
                if not self.tracker:
                    raise InvalidParameterError("tracker: an empty population of declared "
                                                "trackers (pass None to measure the tracker)")
                object.__setattr__(self, "tracker", tuple(self.tracker))
            for t in self.declared_trackers:
                if not isinstance(t, DeclaredTracker):
                    raise InvalidParameterError(f"tracker must be a DeclaredTracker or a "
                                                f"sequence of them, got {type(t).__name__}")
            object.__setattr__(self, "split", self.split.without_tracker())
        object.__setattr__(self, "mode", coerce_option("mode", self.mode, Mode, (Mode.SOUND,)))

    @property
    def declared_trackers(self) -> tuple[DeclaredTracker, ...]:
        """The declared trackers (none: the tracker is measured).

        >>> from gazeprivacy.mechanisms.samples._participant_synth_quality import DeclaredTracker
        >>> t = DeclaredTracker(median_step_deg=0.3, step_correlation=0.1, missing_share=0.02,
        ...                     shoulder=1.6, source="pilot A")
        >>> p = ParticipantSynthParams(epsilon_per_participant=3.0, delta=1e-6,
        ...                            output_length_s=60, tracker=[t, t])
        >>> len(p.declared_trackers), p.tracker == (t, t)
        (2, True)
        """
        if self.tracker is None:
            return ()
        return self.tracker if isinstance(self.tracker, tuple) else (self.tracker,)

    @property
    def rho(self) -> float:
        """The total rho-zCDP budget: the largest rho whose conversion (Canonne, Kamath &
        Steinke 2020) at ``delta`` is at most ``epsilon_per_participant``."""
        return _rho(float(self.epsilon_per_participant), float(self.delta))


@functools.lru_cache(maxsize=64)
def _rho(epsilon: float, delta: float) -> float:
    """:func:`epsilon_to_rho`, cached (a root search over numerical minimisations: every noise
    draw reads it)."""
    return epsilon_to_rho(epsilon, delta)


def noise_sigma(params: ParticipantSynthParams, marginal: str) -> float | None:
    """The Gaussian noise's standard deviation on ``marginal``'s sum (None: share 0, not
    measured): ``sqrt(2) / sqrt(2 rho share)``, so that measurement is (rho share)-zCDP."""
    share = params.split.shares()[marginal]
    if share == 0:
        return None
    return zcdp_gaussian_sigma(sensitivity_l2=SENSITIVITY_L2, rho=params.rho * share)
