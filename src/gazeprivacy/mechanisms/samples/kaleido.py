# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Kaleido: (epsilon, w, r)-DP for gaze streams (w-event privacy).

Li, Roy Chowdhury, Fawaz, Kim. Kaleido: real-time privacy control for eye-tracking systems.
USENIX Security 2020; re-implemented as in David-John, Butler, Jain, Privacy-preserving datasets
of eye-tracking samples with applications in XR, IEEE TVCG 2023, section 4.3.4 and supplement
section 2.3 (pseudocode as digested in SPEC section 3).

Two streams are neighbours when they differ only within ``w`` consecutive samples, each by at
most ``r`` (Euclidean distance in the (x, y) degree plane). Per sample: if fewer than ``t_skip``
samples passed since the last tested sample, re-publish the last point; else test
``d(g_i, last) <= l_thresh + Lap(scale)`` (budget ``eps_test = eps / (h ceil(w / t_skip))``) and
re-publish on success; otherwise publish ``PlanarLaplace(g_i, eps_pub / r)`` with
``eps_pub = (eps - eps / h - sum of eps_pub over the previous w - 1 samples) / 2``. The first
sample is always published. Any ``w`` consecutive samples spend at most ``eps`` (tested).

Deviations. *Sound mode* (default) draws the test noise at scale ``r / eps_test``: the distance
changes by up to ``r`` between neighbours, so the printed ``1 / eps_test`` is ``eps_test``-DP
only for ``r <= 1``. *Paper mode* keeps ``1 / eps_test`` and flags the testing step. The test
distance is Euclidean in degrees for screens and great-circle for VR geometry (``"auto"``); both
are bounded by the Euclidean (x, y) distance, so the sensitivity ``r`` holds for either. Published
points outside the geometry are clamped (post-processing). Missing samples stay NaN and spend
nothing, or with ``missing="hold"`` re-publish the last point; under both the missing-sample mask
is public (hold mode publishes only at valid samples, which shows where the gaps are).
See docs/privacy/kaleido.md.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections import deque
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from gazeprivacy._validation import check_int, check_positive
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import (
    InvalidDataError,
    InvalidParameterError,
    NotFormallyPrivateWarning,
)
from gazeprivacy.guarantees import Flag, FlagCode, Guarantee, Kind, Release, Unit
from gazeprivacy.mechanisms.base import protect_recordings
from gazeprivacy.mechanisms.contract import (
    Level,
    Mechanism,
    Mode,
    PerRecordingPlan,
    SampleShape,
    coerce_option,
)
from gazeprivacy.mechanisms.noise.planar_laplace import planar_laplace_noise

__all__ = [
    "SPEC",
    "Distance",
    "KaleidoParams",
    "KaleidoStream",
    "Missing",
    "guarantee",
    "kaleido",
    "kaleido_arrays",
    "kaleido_dataset",
    "shape_guarantee",
]


class Distance(StrEnum):
    """Distance of the threshold test: great-circle on VR geometries (auto), or as named."""

    AUTO = "auto"
    EUCLIDEAN = "euclidean"
    GREAT_CIRCLE = "great-circle"


class Missing(StrEnum):
    """Missing samples: kept NaN (mask public, nothing spent) or the last point re-published."""

    KEEP = "keep"
    HOLD = "hold"


@dataclass(frozen=True, kw_only=True)
class KaleidoParams:
    """Parameters of Kaleido.

    Parameters
    ----------
    epsilon : float, > 0
        Budget per ``w`` consecutive samples; no default.
    window_samples : int, >= 1
        ``w``. Alternatively give ``window_s`` and let each recording's rate fix ``w``.
    window_s : float, optional
        Window in seconds (seed 000: 0.5 s); used when ``window_samples`` is None.
    radius_deg : float, > 0
        ``r``: how far each sample of a neighbouring stream may move (public).
    l_thresh_deg : float
        Test threshold (seed 001: 1 degree).
    t_skip_samples : int, >= 1
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
            check_int(window_samples=self.window_samples, minimum=1)
        else:
            check_positive(window_s=self.window_s)
        check_positive(allow_zero=True, l_thresh_deg=self.l_thresh_deg)
        check_int(t_skip_samples=self.t_skip_samples, minimum=1)
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
                      f"under missing={params.missing!r})"),
        parameters={"epsilon": params.epsilon, "window_samples": w,
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


#: Tested samples whose noise is drawn per generator call (see KaleidoStream._noise).
_NOISE_BLOCK = 1024


def _haversine_deg(x1: float, y1: float, x2: float, y2: float) -> float:
    la1, la2 = math.radians(y1), math.radians(y2)
    dlo, dla = math.radians(x2 - x1), math.radians(y2 - y1)
    a = math.sin(dla / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin(dlo / 2) ** 2
    return math.degrees(2.0 * math.asin(min(1.0, math.sqrt(a))))


class KaleidoStream:
    """Incremental Kaleido: ``push`` samples, receive the released samples.

    The random stream is split once into three child generators (test noise, radius, angle) and
    each draws exactly one value per *tested* sample, in order, so any chunking of the input gives
    the same output as one call (:func:`kaleido_arrays`).

    Parameters
    ----------
    params : KaleidoParams
    rng : numpy.random.Generator
    sampling_rate_hz : float, optional
        Needed when ``params`` gives ``window_s``.
    geometry : Geometry, optional
        Clamp region (default ``params.geometry``).

    Examples
    --------
    >>> p = KaleidoParams(epsilon=1.0, radius_deg=2.0, window_samples=10)
    >>> s = KaleidoStream(p, rng=np.random.default_rng(0))
    >>> x, y = s.push(np.zeros(7), np.zeros(7))
    >>> x2, y2 = s.push(np.zeros(5), np.zeros(5))
    >>> bx, by, _ = kaleido_arrays(np.zeros(12), np.zeros(12), p, rng=np.random.default_rng(0))
    >>> bool(np.array_equal(np.r_[x, x2], bx))
    True
    """

    def __init__(self, params: KaleidoParams, *, rng: np.random.Generator,
                 sampling_rate_hz: float | None = None, geometry: Geometry | None = None) -> None:
        if params.window_samples is None and sampling_rate_hz is None:
            raise InvalidParameterError(
                "KaleidoStream needs sampling_rate_hz when params give window_s")
        self.params = params
        self.w = params.w_for(sampling_rate_hz or 1.0)
        self.geometry = geometry or params.geometry
        self._rng_test, self._rng_radius, self._rng_angle = rng.spawn(3)
        self._eps_cap = params.epsilon - params.epsilon / params.h
        self._eps_test = params.epsilon_test(self.w)
        self._scale = params.test_scale(self.w)
        dist = params.test_distance
        if dist == "auto":
            dist = ("great-circle" if self.geometry is not None and self.geometry.kind == "vr"
                    else "euclidean")
        self.test_distance = dist
        self._i = 0                      # index of the next sample
        self._last_test: int | None = None
        self._last: tuple[float, float] | None = None
        # (index, eps_pub) of the points published within the last w - 1 samples
        self._pub_i: deque[int] = deque()
        self._pub_e: deque[float] = deque()
        self._spent: list[np.ndarray] = []
        self._buf = np.zeros((3, 0))  # noise drawn ahead (see _noise)
        self._buf_pos = 0

    def _noise(self, k: int) -> tuple[list[float], list[float], list[float]]:
        """Noise of the next ``k`` tested samples: test thresholds ``l_thresh + eta`` and the
        planar-Laplace offsets at ``eps_pub = 1`` (:func:`planar_laplace_noise` with
        ``epsilon_per_unit = 1 / r``: radius Gamma(2, r), uniform angle).

        Drawn ahead in blocks (a generator call costs microseconds, as much as a few tests) from
        the three child streams, one value per tested sample each, in order; numpy's samplers
        give the same values whether drawn in one call or many, so any chunking of the input
        still gives the same output.
        """
        pos, buf = self._buf_pos, self._buf
        if pos + k > buf.shape[1]:
            m = max(k - (buf.shape[1] - pos), _NOISE_BLOCK)
            thr = self._rng_test.laplace(0.0, 1.0, m) * self._scale + self.params.l_thresh_deg
            # the tested primitive at eps_pub = 1 (scale r); the loop divides by eps_pub
            dx, dy = planar_laplace_noise(m, epsilon_per_unit=1.0 / self.params.radius_deg,
                                          rng=self._rng_radius, angle_rng=self._rng_angle)
            new = np.stack([thr, dx, dy])
            buf = self._buf = np.concatenate([buf[:, pos:], new], axis=1)
            pos = 0
        self._buf_pos = pos + k
        thr_l, rc, rs = buf[:, pos:pos + k].tolist()
        return thr_l, rc, rs

    @property
    def epsilon_spent(self) -> np.ndarray:
        """Budget spent at each sample pushed so far (testing + publishing)."""
        return np.concatenate(self._spent) if self._spent else np.zeros(0)

    def push(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Process the next samples; returns the released ``(x, y)`` of the same length."""
        p = self.params
        x = np.asarray(x, dtype=np.float64).ravel()
        y = np.asarray(y, dtype=np.float64).ravel()
        if x.shape != y.shape:
            raise InvalidParameterError(f"x and y must have the same length, got {x.size}, "
                                        f"{y.size}")
        n = x.size
        # one reduction instead of a mask when nothing is missing (the common case); a NaN
        # (or +inf with -inf) makes the sum NaN and takes the masked path
        s = float(x.sum() + y.sum())
        all_ok = s == s
        ok = None if all_ok else ~(np.isnan(x) | np.isnan(y))
        carry_none = self._last is None
        carry = (math.nan, math.nan) if carry_none else self._last
        # Which samples are tested (or the very first, always published)? Tests depend only on
        # the positions and the missing mask, so they are found before any noise is drawn.
        skip = p.t_skip_samples
        j0 = 0 if self._last_test is None else max(0, self._last_test + skip - self._i)
        # without missing samples, a test every t_skip samples
        tested = np.arange(j0, n, skip) if all_ok else _tested_with_missing(ok, j0, skip)
        k = tested.size
        # The noise of every tested sample at once, as plain Python floats: the loop below is
        # sequential by nature (each test compares with the last published point) and numpy
        # scalars cost ten times more per step. Only the budget-dependent division is left to
        # the loop.
        thr, rcos, rsin = self._noise(k)
        tx, ty = x[tested].tolist(), y[tested].tolist()
        base = self._i
        tl = tested.tolist()
        great = self.test_distance == "great-circle"
        geo = self.geometry
        clamp = True
        bx0 = bx1 = by0 = by1 = 0.0
        if geo is not None and p.clamp:
            bx0, bx1, by0, by1 = geo.x_min_deg, geo.x_max_deg, geo.y_min_deg, geo.y_max_deg
        elif not p.clamp:
            bx0, bx1, by0, by1 = -360.0, 360.0, -360.0, 360.0
        else:
            clamp = False
        w, cap, eps_test = self.w, self._eps_cap, self._eps_test
        pub_i, pub_e = self._pub_i, self._pub_e
        fsum, hypot = math.fsum, math.hypot
        # per tested sample: eps_pub and the point, where one was published (eps_pub > 0)
        pub_eps = [0.0] * k
        pub_x = [0.0] * k
        pub_y = [0.0] * k
        last = self._last
        lx, ly = last if last is not None else (0.0, 0.0)
        for t in range(k):
            xi, yi = tx[t], ty[t]
            if last is not None:
                dist = _haversine_deg(xi, yi, lx, ly) if great else hypot(xi - lx, yi - ly)
                if dist <= thr[t]:
                    continue  # re-publish the last point
            # slide the publishing history to the previous w - 1 samples (it is read only here)
            gi = base + tl[t]
            while pub_i and pub_i[0] <= gi - w:
                pub_i.popleft()
                pub_e.popleft()
            # exact sum of the history (no running-sum drift over long streams)
            eps_pub = (cap - fsum(pub_e)) / 2.0
            if eps_pub <= 0.0:
                # the halving has run the remaining budget down to 0 in floating point:
                # noise of infinite scale carries no information, so re-publish instead
                continue
            ox = xi + rcos[t] / eps_pub
            oy = yi + rsin[t] / eps_pub
            if clamp:  # nearest valid point: post-processing, never resampling
                ox = bx0 if ox < bx0 else (bx1 if ox > bx1 else ox)
                oy = by0 if oy < by0 else (by1 if oy > by1 else oy)
            pub_i.append(gi)
            pub_e.append(eps_pub)
            last = True
            lx = pub_x[t] = ox
            ly = pub_y[t] = oy
            pub_eps[t] = eps_pub
        if last is not None:
            self._last = (lx, ly)
        # budget spent per sample: eps_test at every test (every tested sample but the very
        # first of the stream, which is always published), plus eps_pub where one was published
        spent = np.zeros(n)
        if k:
            spent[tested] = eps_test
            if carry_none:
                spent[tested[0]] = 0.0
            self._last_test = self._i + int(tested[-1])
        # release: the most recent published point (carried over from earlier pushes)
        which = np.zeros(n, dtype=np.int64)
        vx, vy = np.array([carry[0]]), np.array([carry[1]])
        if k:
            e = np.array(pub_eps)
            pub = (e > 0.0).nonzero()[0]
            at = tested[pub]
            spent[at] += e[pub]
            which[at] = np.arange(1, pub.size + 1)
            np.maximum.accumulate(which, out=which)
            vx = np.concatenate([vx, np.array(pub_x)[pub]])
            vy = np.concatenate([vy, np.array(pub_y)[pub]])
        ox_out, oy_out = vx[which], vy[which]
        if p.missing == "keep" and ok is not None:
            ox_out[~ok] = np.nan
            oy_out[~ok] = np.nan
        self._i += n
        self._spent.append(spent)
        return ox_out, oy_out


def _tested_with_missing(ok: np.ndarray, j0: int, skip: int) -> np.ndarray:
    """Tested positions of a chunk with missing samples: from ``j0``, the next valid sample,
    then the next valid one at least ``skip`` later, and so on.

    Within a run of valid samples the tests are ``skip`` apart, so the loop is over the runs
    (one per gap), not over the tests.
    """
    edges = np.flatnonzero(np.diff(np.concatenate([[False], ok, [False]]).astype(np.int8)))
    parts: list[np.ndarray] = []
    pending = j0
    for s, e in zip(edges[0::2].tolist(), edges[1::2].tolist(), strict=True):
        if e <= pending:
            continue
        tests = np.arange(max(s, pending), e, skip)
        parts.append(tests)
        pending = int(tests[-1]) + skip
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


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
    return Release(recording.with_gaze(ox, oy),
                   guarantee(params, sampling_rate_hz=recording.sampling_rate_hz))


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
    citation="Li et al., Kaleido (USENIX Security 2020), as re-implemented in seed 001",
)
