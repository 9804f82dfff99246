# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth's parameters: the budget split, the options and :class:`DPGazeSynthParams`.

Also the public sizes that follow from them alone: ``W`` (:func:`window_samples`) and the
participant level's output length (:func:`output_samples`). See the package docstring and
docs/privacy/dpgazesynth.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from gazeprivacy._validation import check_int, check_positive
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.mechanisms.contract import Mode, coerce_option

__all__ = [
    "MAX_GRID_SIZE",
    "OUTPUT_LENGTH_REFUSAL",
    "BudgetSplit",
    "DPGazeSynthParams",
    "Missing",
    "OUEPath",
    "PrivacyUnit",
    "Transitions",
    "output_samples",
    "window_samples",
]


#: The finest grid: ``G x G`` cells are ``G^2`` bits of every window's OUE report and of the
#: curator's counts, so memory grows with ``G^2`` per window (``G = 3000`` took 4.2 GB on 4,800
#: samples; beyond, NumPy's sizes overflow); 1000 (0.02 deg cells on a 20-deg screen) is far
#: finer than any use (the papers: 30 or 60).
MAX_GRID_SIZE = 1000

@dataclass(frozen=True, kw_only=True)
class BudgetSplit:
    """Fractions of the per-window epsilon for start cells, fixation times and transitions.

    The parts must be > 0 and sum to at most 1 (the record uses the sum actually spent).

    >>> BudgetSplit().total
    1.0
    >>> BudgetSplit(start=0.8, times=0.2, transitions=0.2)
    Traceback (most recent call last):
    ...
    gazeprivacy.exceptions.InvalidParameterError: split parts must sum to at most 1, got 1.2 \
(start=0.8, times=0.2, transitions=0.2)
    """

    start: float = 0.6
    times: float = 0.2
    transitions: float = 0.2

    def __post_init__(self) -> None:
        for name in ("start", "times", "transitions"):
            check_positive(**{f"split.{name}": getattr(self, name)})
        total = self.start + self.times + self.transitions
        if total > 1.0 + 1e-12:
            raise InvalidParameterError(
                f"split parts must sum to at most 1, got {total:g} (start={self.start:g}, "
                f"times={self.times:g}, transitions={self.transitions:g})")

    @property
    def total(self) -> float:
        return round(self.start + self.times + self.transitions, 12)


class Transitions(StrEnum):
    """Which transitions a window reports: every one (paper) or one per window."""

    ALL = "all"
    ONE_PER_WINDOW = "one-per-window"


class OUEPath(StrEnum):
    """How the OUE column sums are produced (same distribution either way)."""

    CURATOR_VIEW = "curator-view"
    CLIENT_REPORTS = "client-reports"


class PrivacyUnit(StrEnum):
    """What ``epsilon`` is spent on: every window (the paper) or a whole participant."""

    WINDOW = "window"
    PARTICIPANT = "participant"


class Missing(StrEnum):
    """What happens to missing samples (NaN rows): kept (mask public) or filled (protected)."""

    KEEP = "keep"
    FILL = "fill"


@dataclass(frozen=True, kw_only=True)
class DPGazeSynthParams:
    """Parameters of DPGazeSynth.

    Parameters
    ----------
    epsilon : float, > 0
        Budget per ``unit`` (split by ``split``); no default. Per window (``unit="window"``,
        the paper), or per participant (``unit="participant"``: spent as ``epsilon / m`` on
        each of ``m = windows_per_participant`` windows).
    grid_size : int, 2 to ``MAX_GRID_SIZE`` (1000)
        ``G`` of the ``G x G`` grid (paper: 30 or 60).
    window_s : float
        Window length in seconds (paper: 0.5); ``W = round(window_s * rate)`` samples, >= 2.
    radius_deg : float, optional
        Protection radius ``r`` of the start point; default ``3 min(H, V) / G``.
    split : BudgetSplit
        Default 0.6 / 0.2 / 0.2 (the paper's).
    mode : {"sound", "paper"}
        See the module's Deviations.
    transitions : {"all", "one-per-window"}
        Report every transition at ``eps3 / (W - 1)`` (paper) or one per window at ``eps3``.
    oue_path : {"curator-view", "client-reports"}
        Simulate the curator's column sums in O(d) (exact in distribution), or have every client
        emit real sparse OUE reports (O(d) per report; small data only).
    missing : {"keep", "fill"}
        ``keep``: NaN rows stay NaN and are skipped (the missing-sample mask is public);
        ``fill``: before discretising, a NaN row takes the previous valid position *of its own
        window* (leading NaN rows the window's first valid one, a window without any the screen
        centre), every row is synthesised and the mask is protected too.
    geometry : Geometry, optional
        Screen bounds (public); default: each recording's own geometry.
    unit : {"window", "participant"}
        ``window`` (default, the paper): every window reports at ``epsilon`` and its synthetic
        path is built from its own report; a participant with ``T`` windows gets ``T x
        epsilon``. ``participant``: each participant's client reports ``m`` windows drawn at
        random (without replacement, from the public shape) across all of its recordings, at
        ``epsilon / m`` each (basic sequential composition: ``epsilon`` per participant), and
        every released window is synthesised from the population's reports (see
        :func:`synthesise`).
    windows_per_participant : int, optional
        ``m``; required with ``unit="participant"`` (no default), not allowed otherwise.
    output_length_s : float, optional
        ``unit="participant"`` with ``missing="fill"`` only: every released recording has
        ``round(output_length_s * rate)`` rows (>= 1), synthesised like the rest from the
        population model, so the release does not carry the input's recording lengths. None
        (default): one released row per input row, and the record says the row counts are the
        input's (public, not protected). Refused with ``unit="window"``
        (:data:`OUTPUT_LENGTH_REFUSAL`).
    recordings_per_participant : int, optional
        ``unit="participant"`` with ``output_length_s`` only: every participant gets exactly
        this many released recordings (each ``output_length_s`` long, synthesised from the
        population model, with new recording ids and no labels), so the release does not carry
        the input's number of recordings per participant either: a fixed public structure
        (:class:`~gazeprivacy.mechanisms.release.PublicStructure`). Needs one sampling rate
        across the input and one geometry per participant (or ``geometry``). None (default):
        one released recording per input recording (public, listed in the record).
    """

    epsilon: float
    grid_size: int = 30
    window_s: float = 0.5
    radius_deg: float | None = None
    split: BudgetSplit = field(default_factory=BudgetSplit)
    mode: Mode = Mode.SOUND
    transitions: Transitions = Transitions.ALL
    oue_path: OUEPath = OUEPath.CURATOR_VIEW
    missing: Missing = Missing.KEEP
    geometry: Geometry | None = None
    unit: PrivacyUnit = PrivacyUnit.WINDOW
    windows_per_participant: int | None = None
    output_length_s: float | None = None
    recordings_per_participant: int | None = None

    def __post_init__(self) -> None:
        check_positive(epsilon=self.epsilon)
        object.__setattr__(self, "unit", coerce_option("unit", self.unit, PrivacyUnit))
        if self.unit == "participant":
            if self.windows_per_participant is None:
                raise InvalidParameterError(
                    "unit='participant' needs windows_per_participant (m, the number of windows "
                    "each participant reports, at epsilon / m each); there is no default")
            check_int(windows_per_participant=self.windows_per_participant, minimum=1)
        elif self.windows_per_participant is not None:
            raise InvalidParameterError(
                "windows_per_participant applies to unit='participant' only (unit='window' "
                "reports every window at epsilon); pass unit='participant' or drop it")
        check_int(grid_size=self.grid_size, minimum=2)
        if self.grid_size > MAX_GRID_SIZE:
            raise InvalidParameterError(
                f"grid_size must be at most {MAX_GRID_SIZE} (a million cells, each a bit of "
                f"every window's report), got {self.grid_size}; the papers use 30 or 60")
        check_positive(window_s=self.window_s)
        if self.radius_deg is not None:
            check_positive(radius_deg=self.radius_deg)
        if not isinstance(self.split, BudgetSplit):
            raise InvalidParameterError(f"split must be a BudgetSplit, got {self.split!r}")
        for name, enum, allowed in (("mode", Mode, (Mode.SOUND, Mode.PAPER)),
                                    ("transitions", Transitions, None),
                                    ("oue_path", OUEPath, None), ("missing", Missing, None)):
            object.__setattr__(self, name, coerce_option(name, getattr(self, name), enum,
                                                         allowed))
        if self.output_length_s is not None:
            check_positive(output_length_s=self.output_length_s)
            if self.unit != "participant":
                raise InvalidParameterError(f"output_length_s: {OUTPUT_LENGTH_REFUSAL}")
            if self.missing != "fill":
                raise InvalidParameterError(
                    "output_length_s needs missing='fill': under missing='keep' the released "
                    "rows are the input's valid rows (its missing-sample mask, of the input's "
                    "length), which a release of another length cannot keep; pass "
                    "missing='fill' (--param missing=fill)")
        if self.recordings_per_participant is not None:
            check_int(recordings_per_participant=self.recordings_per_participant, minimum=1)
            if self.output_length_s is None:
                raise InvalidParameterError(
                    "recordings_per_participant needs output_length_s (unit='participant', "
                    "missing='fill'): a fixed number of recordings per participant is a public "
                    "structure only with a fixed length too; pass --output-length-s S")

    @classmethod
    def paper(cls, *, epsilon: float, grid_size: int = 60, **kw: Any) -> DPGazeSynthParams:
        """The paper's values (section 5.1): G = 60, W = 0.5 s, split 0.6 / 0.2 / 0.2.

        Sets values only (the mode stays sound); pass ``mode="paper"`` for the paper's run
        lengths and transition reports as printed."""
        return cls(epsilon=epsilon, grid_size=grid_size, **kw)

    @property
    def epsilon_window(self) -> float:
        """The budget of one reporting window (before the split): ``epsilon`` per window, or
        ``epsilon / m`` when ``epsilon`` is per participant (basic composition over ``m``)."""
        if self.unit == "participant":
            return self.epsilon / self.windows_per_participant
        return self.epsilon

    @property
    def epsilon_start(self) -> float:
        return self.epsilon_window * self.split.start

    @property
    def epsilon_times(self) -> float:
        return self.epsilon_window * self.split.times

    @property
    def epsilon_transitions(self) -> float:
        return self.epsilon_window * self.split.transitions

    def radius_for(self, geometry: Geometry) -> float:
        """``r`` in degrees: the given one, else ``3 min(H, V) / G``."""
        if self.radius_deg is not None:
            return float(self.radius_deg)
        return 3.0 * min(geometry.width_deg, geometry.height_deg) / self.grid_size

    def epsilon_per_report(self, w: int) -> float:
        """Budget of one OUE transition report for windows of ``w`` samples."""
        if self.transitions == "one-per-window":
            return self.epsilon_transitions
        return self.epsilon_transitions / (w - 1)


def window_samples(params: DPGazeSynthParams, sampling_rate_hz: float) -> int:
    """``W = round(window_s * sampling_rate_hz)``; must be >= 2.

    >>> window_samples(DPGazeSynthParams(epsilon=1.0), 200.0)
    100
    """
    w = round(params.window_s * sampling_rate_hz)
    if w < 2:
        raise InvalidParameterError(
            f"window_s={params.window_s:g} s at {sampling_rate_hz:g} Hz gives W={w} samples; "
            "DPGazeSynth needs W >= 2: use a longer window_s")
    return w


def output_samples(params: DPGazeSynthParams, sampling_rate_hz: float) -> int | None:
    """Rows of every released recording at this rate, ``round(output_length_s * rate)``; None
    when ``output_length_s`` is None (each recording keeps its input's row count).

    >>> output_samples(DPGazeSynthParams(epsilon=1.0, unit="participant",
    ...     windows_per_participant=2, missing="fill", output_length_s=1.5), 60.0)
    90
    """
    if params.output_length_s is None:
        return None
    n = round(params.output_length_s * sampling_rate_hz)
    if n < 1:
        raise InvalidParameterError(
            f"output_length_s={params.output_length_s:g} s at {sampling_rate_hz:g} Hz gives "
            f"{n} rows per recording; use at least {1 / sampling_rate_hz:g} s")
    return n


#: Why ``output_length_s`` is refused with ``unit="window"``.
OUTPUT_LENGTH_REFUSAL = (
    "a public output length applies to unit='participant' only. With unit='window' every "
    "released window is synthesised from that window's own report, so the release is the "
    "participant's own windows, and the record composes epsilon over them (its per-participant "
    "budgets count each participant's windows, i.e. its recording lengths): a different output "
    "length would hide neither. Use unit='participant' (--per-participant-epsilon E "
    "--windows-per-participant M --param missing=fill)")
