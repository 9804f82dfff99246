# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Kaleido's parameters (:class:`KaleidoParams`, with its budget split per window) and its
privacy map (:func:`guarantee`, which never reads data)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from gazeprivacy._validation import check_int, check_positive
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.guarantees import Flag, FlagCode, Guarantee, Kind, Unit
from gazeprivacy.mechanisms.contract import Mode, coerce_option

__all__ = ["Distance", "KaleidoParams", "Missing", "guarantee"]


class Distance(StrEnum):
    """Distance of the threshold test: great-circle on VR geometries (auto), or as named."""

    AUTO = "auto"
    EUCLIDEAN = "euclidean"
    GREAT_CIRCLE = "great-circle"


class Missing(StrEnum):
    """Missing samples: kept NaN (mask public, nothing spent) or the last point re-published."""

    KEEP = "keep"
    HOLD = "hold"


#: Largest window / t_skip in samples (the compiled loop's integers stay far from overflow).
_MAX_COUNT = 2**31 - 1


def _check_count(**kwargs: int) -> None:
    """An integer in [1, _MAX_COUNT] (a count of samples)."""
    check_int(minimum=1, **kwargs)
    ((name, value),) = kwargs.items()
    if value > _MAX_COUNT:
        raise InvalidParameterError(f"{name} must be <= {_MAX_COUNT} samples, got {value!r}")


@dataclass(frozen=True, kw_only=True)
class KaleidoParams:
    """Parameters of Kaleido.

    Parameters
    ----------
    epsilon : float, > 0
        Budget per ``w`` consecutive samples; no default.
    window_samples : int, in [1, 2**31 - 1]
        ``w``. Alternatively give ``window_s`` and let each recording's rate fix ``w``.
    window_s : float, optional
        Window in seconds (seed 000: 0.5 s); used when ``window_samples`` is None.
    radius_deg : float, > 0
        ``r``: how far each sample of a neighbouring stream may move (public).
    l_thresh_deg : float
        Test threshold (seed 001: 1 degree).
    t_skip_samples : int, in [1, 2**31 - 1]
        Minimum samples between tests (seed 001: 5).
    h : float, > 1
        ``eps / h`` of every window goes to testing (seed 001: 2).
    mode : {"sound", "paper"}
    test_distance : {"auto", "euclidean", "great-circle"}
        ``auto``: great-circle when the geometry is VR, else Euclidean.
    missing : {"keep", "hold"}
        ``keep``: missing rows stay NaN; ``hold``: they repeat the last published point. Tests
        and publications happen at valid samples only, so under both the missing-sample mask is
        public (the record says so); ``hold`` does not hide it.
    clamp : bool
        True (default, SPEC): published points outside the geometry go to the nearest valid
        point. False: they are kept (as seed 000's Kaleido baseline, whose metrics then drop
        off-screen points), limited to +-360 deg, the range of the data model. Both are
        post-processing.
    geometry : Geometry, optional
        Valid region for clamping; default each recording's geometry (one of them is needed by
        :func:`kaleido`; :class:`KaleidoStream` clamps only when it has one).
    """

    epsilon: float
    radius_deg: float
    window_samples: int | None = None
    window_s: float | None = None
    l_thresh_deg: float = 1.0
    t_skip_samples: int = 5
    h: float = 2.0
    mode: Mode = Mode.SOUND
    test_distance: Distance = Distance.AUTO
    missing: Missing = Missing.KEEP
    clamp: bool = True
    geometry: Geometry | None = None

    def __post_init__(self) -> None:
        check_positive(epsilon=self.epsilon)
        check_positive(radius_deg=self.radius_deg)
        if not isinstance(self.clamp, bool):
            raise InvalidParameterError(f"clamp must be True or False, got {self.clamp!r}")
        if (self.window_samples is None) == (self.window_s is None):
            raise InvalidParameterError(
                "give exactly one of window_samples and window_s, got "
                f"window_samples={self.window_samples!r}, window_s={self.window_s!r}")
        if self.window_samples is not None:
            _check_count(window_samples=self.window_samples)
        else:
            check_positive(window_s=self.window_s)
        check_positive(allow_zero=True, l_thresh_deg=self.l_thresh_deg)
        _check_count(t_skip_samples=self.t_skip_samples)
        check_positive(h=self.h)
        if self.h <= 1:
            raise InvalidParameterError(f"h must be > 1 (testing gets eps / h), got {self.h!r}")
        for name, enum, allowed in (("mode", Mode, (Mode.SOUND, Mode.PAPER)),
                                    ("test_distance", Distance, None),
                                    ("missing", Missing, None)):
            object.__setattr__(self, name, coerce_option(name, getattr(self, name), enum,
                                                         allowed))

    @classmethod
    def paper(cls, *, epsilon: float, radius_deg: float, window_samples: int | None = None,
              window_s: float | None = None, **kw: Any) -> KaleidoParams:
        """Seed 001's values (t_skip 5, l_thresh 1 deg, h 2, w = 50 samples by default).

        Sets values only (the mode stays sound); pass ``mode="paper"`` for the printed test
        noise scale ``1 / eps_test``."""
        if window_samples is None and window_s is None:
            window_samples = 50
        return cls(epsilon=epsilon, radius_deg=radius_deg, window_samples=window_samples,
                   window_s=window_s, **kw)

    def w_for(self, sampling_rate_hz: float) -> int:
        if self.window_samples is not None:
            return self.window_samples
        return max(1, round(self.window_s * sampling_rate_hz))

    def n_test(self, w: int) -> int:
        return -(-w // self.t_skip_samples)

    def epsilon_test(self, w: int) -> float:
        return self.epsilon / (self.h * self.n_test(w))

    def test_scale(self, w: int) -> float:
        """Scale of the test noise: ``r / eps_test`` (sound) or ``1 / eps_test`` (paper)."""
        return (1.0 if self.mode == "paper" else self.radius_deg) / self.epsilon_test(w)


def guarantee(params: KaleidoParams, *, sampling_rate_hz: float) -> Guarantee:
    """The privacy map (never reads data).

    >>> g = guarantee(KaleidoParams(epsilon=1.0, radius_deg=2.0, window_samples=50),
    ...               sampling_rate_hz=100.0)
    >>> g.kind.value, g.unit.value, g.epsilon, g.formally_private
    ('(epsilon,w,r)-DP', 'w-window', 1.0, True)
    """
    w = params.w_for(sampling_rate_hz)
    flags = []
    if params.mode == "paper" and params.radius_deg > 1.0:
        worst = params.epsilon * (1 - 1 / params.h) + params.radius_deg * params.epsilon / params.h
        flags.append(Flag(FlagCode.PROOF_GAP, (
            f"paper mode tests with Lap(1 / eps_test) but the distance changes by up to r = "
            f"{params.radius_deg:g} deg between neighbours; the testing step is "
            f"{params.radius_deg:g} x eps_test-DP, so each window may spend up to "
            f"{worst:.4g}"
            " rather than eps; only the publishing part is covered")))
    elif params.mode == "paper":
        flags.append(Flag(FlagCode.PARTIAL_COVERAGE, (
            "paper mode: the printed test scale 1 / eps_test is enough here only because "
            f"r = {params.radius_deg:g} <= 1 deg")))
    notes = [
        f"w = {w} samples; testing spends at most eps / h = {params.epsilon / params.h:.4g} per "
        f"window ({params.n_test(w)} tests at eps_test = {params.epsilon_test(w):.4g}, test "
        f"noise scale {params.test_scale(w):.4g}); publishing at most {params.epsilon:.4g} - "
        f"eps / h",
        "published points: planar Laplace at eps_pub / r; " + (
            "outside the geometry they are clamped (post-processing)" if params.clamp else
            "not clamped to the geometry (limited to +-360 deg; post-processing)"),
    ]
    if params.missing == "keep":
        notes.append("missing samples stay NaN and spend nothing: the missing-sample mask is "
                     "public, released as is")
    else:
        notes.append("missing='hold': missing samples re-publish the last point and spend "
                     "nothing, but tests and publications happen only at valid samples, so the "
                     "samples at which the released point changes reveal part of the "
                     "missing-sample mask: the mask is public (declare it public), exactly as "
                     "under missing='keep'; hold only avoids writing NaN rows")
    return Guarantee(
        mechanism="kaleido",
        kind=Kind.W_EVENT_DP,
        unit=Unit.W_WINDOW,
        epsilon=params.epsilon,
        mode=params.mode,
        neighbouring=(f"two streams that differ only within w = {w} consecutive samples, each "
                      f"sample moved by at most r = {params.radius_deg:g} deg (Euclidean in the "
                      "(x, y) degree plane), same missing-sample mask (the mask is public "
                      f"under missing={str(params.missing.value)!r})"),
        parameters={"epsilon": params.epsilon, "window_samples": w,
                    **({} if params.window_s is None else {"window_s": params.window_s}),
                    "radius_deg": params.radius_deg, "l_thresh_deg": params.l_thresh_deg,
                    "t_skip_samples": params.t_skip_samples, "h": params.h,
                    "test_distance": params.test_distance, "missing": params.missing,
                    "missing_mask": "public",
                    "clamp": params.clamp,
                    "epsilon_test": params.epsilon_test(w), "test_scale": params.test_scale(w),
                    "sampling_rate_hz": sampling_rate_hz},
        flags=tuple(flags),
        paper_claim="(epsilon, w, r)-DP for gaze stream prefixes (seed 001, Definition 4)",
        notes=tuple(notes),
    )
