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
The sequential loop runs compiled (``_kaleido_loop.c``) when that optional extension is built,
bit-identical to the Python loop kept here (``GAZEPRIVACY_PURE_PYTHON=1`` forces it).
See docs/privacy/kaleido.md.
"""

from __future__ import annotations

import functools
import math
import os
import warnings
from collections import deque
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

import numpy as np

from gazeprivacy._validation import check_int, check_positive
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset, Recording, adopt
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


#: Tested samples whose noise is drawn per generator call (see KaleidoStream._refill).
_NOISE_BLOCK = 1024
#: Chunks up to this length go sample by sample (KaleidoStream._push_small).
_SMALL_CHUNK = 24
_F64 = np.dtype(np.float64)


def _haversine_deg(x1: float, y1: float, x2: float, y2: float) -> float:
    la1, la2 = math.radians(y1), math.radians(y2)
    dlo, dla = math.radians(x2 - x1), math.radians(y2 - y1)
    a = math.sin(dla / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin(dlo / 2) ** 2
    # rounding may put a just outside [0, 1] (coincident or antipodal points past +-90 deg
    # latitude, e.g. (0, 100) and (180, 80)): clamped, as the compiled loop does
    a = 0.0 if a < 0.0 else (1.0 if a > 1.0 else a)
    return math.degrees(2.0 * math.asin(min(1.0, math.sqrt(a))))


def _compiled_loop() -> Any:
    """The compiled threshold loop (module ``_kaleido_loop``, from ``_kaleido_loop.c``), or
    None: not built (no C compiler at install time) or ``GAZEPRIVACY_PURE_PYTHON=1``.

    Hand-written C because the loop is sequential (numpy cannot vectorise it), no library
    implements it, and in Python it is most of a whole ``protect --mechanism kaleido`` run
    (~1.2 us per tested sample; ~50 ns compiled, with the per-sample release and budget arrays
    filled in the same pass). numba 0.68 would cost ~0.2 s to import plus ~0.15 s to load its
    cached code in every process; the extension imports in ~0.3 ms. Its output and state are
    bit-identical to :meth:`KaleidoStream._push_arrays` with :meth:`KaleidoStream._run_python`
    (tests/mechanisms/samples/test_kaleido_compiled.py).
    """
    if os.environ.get("GAZEPRIVACY_PURE_PYTHON", "") not in ("", "0"):
        return None
    try:
        from gazeprivacy.mechanisms.samples import _kaleido_loop
    except ImportError:
        return None
    return _kaleido_loop


#: The module ``_kaleido_loop`` or None (the Python loop); tests switch it per stream.
_LOOP = _compiled_loop()


class KaleidoStream:
    """Incremental Kaleido for live gaze: push samples one at a time or in chunks, receive the
    released samples at once.

    The random stream is split once into three child generators (test noise, radius, angle) and
    each draws exactly one value per *tested* sample, in order, so any chunking of the input --
    single samples from a game loop, irregular chunks from an LSL inlet, or one array -- gives the
    same output as :func:`kaleido_arrays` on the whole stream.

    Memory is bounded whatever the stream's length: the stream keeps the publications of the last
    ``w - 1`` samples, the budget spent at the last ``w`` samples (a ring buffer), the last
    published point and a block of pre-drawn noise; nothing grows with the number of samples.

    Input: a missing sample is NaN (in x or y); it spends nothing and is released as NaN
    (``missing="keep"``) or as the last published point (``"hold"``); the missing-sample mask is
    public (see :func:`guarantee`). ``inf``, ``None``, non-numbers, 2-D input and x / y of
    different lengths raise :class:`~gazeprivacy.exceptions.InvalidDataError`; the stream's state
    is unchanged by a rejected call.

    Parameters
    ----------
    params : KaleidoParams
    rng : numpy.random.Generator
        A release draws it from OS entropy (:func:`gazeprivacy.rng.make_rng` with ``None``).
    sampling_rate_hz : float, optional
        The stream's nominal rate (public); needed when ``params`` gives ``window_s``.
    geometry : Geometry, optional
        Clamp region (default ``params.geometry``). Without one, published points are not
        clamped (``params.clamp=True``) or limited to +-360 deg (``clamp=False``).

    Examples
    --------
    Per chunk (equal to the batch function for the same generator):

    >>> p = KaleidoParams(epsilon=1.0, radius_deg=2.0, window_samples=10)
    >>> s = KaleidoStream(p, rng=np.random.default_rng(0))
    >>> x, y = s.push(np.zeros(7), np.zeros(7))
    >>> x2, y2 = s.push(np.zeros(5), np.zeros(5))
    >>> bx, by, _ = kaleido_arrays(np.zeros(12), np.zeros(12), p, rng=np.random.default_rng(0))
    >>> bool(np.array_equal(np.r_[x, x2], bx))
    True

    Per sample, from a game loop, and the record at any time:

    >>> s = KaleidoStream(p, rng=np.random.default_rng(0))
    >>> released = [s.push_one(0.0, 0.0) for _ in range(12)]
    >>> bool(np.array_equal([rx for rx, _ in released], bx))
    True
    >>> g = s.guarantee()
    >>> g.parameters["samples_released"], g.per_participant["session"].epsilon
    (12, 2.0)
    """

    def __init__(self, params: KaleidoParams, *, rng: np.random.Generator,
                 sampling_rate_hz: float | None = None, geometry: Geometry | None = None) -> None:
        if not isinstance(params, KaleidoParams):
            raise InvalidParameterError(
                f"params must be KaleidoParams, got {type(params).__name__}")
        if sampling_rate_hz is not None:
            check_positive(sampling_rate_hz=sampling_rate_hz)
        elif params.window_samples is None:
            raise InvalidParameterError(
                "KaleidoStream needs sampling_rate_hz when params give window_s")
        self.params = params
        self.sampling_rate_hz = sampling_rate_hz
        self.w = params.w_for(sampling_rate_hz or 1.0)
        if self.w > _MAX_COUNT:
            raise InvalidParameterError(
                f"window_s = {params.window_s!r} s at {sampling_rate_hz!r} Hz is {self.w} "
                f"samples; the window must be <= {_MAX_COUNT} samples")
        self.geometry = geometry or params.geometry
        self._rng_test, self._rng_radius, self._rng_angle = rng.spawn(3)
        self._eps_cap = params.epsilon - params.epsilon / params.h
        self._eps_test = params.epsilon_test(self.w)
        self._scale = params.test_scale(self.w)
        self._skip = params.t_skip_samples
        self._hold = params.missing == "hold"
        dist = params.test_distance
        if dist == "auto":
            dist = ("great-circle" if self.geometry is not None and self.geometry.kind == "vr"
                    else "euclidean")
        self.test_distance = dist
        self._great = dist == "great-circle"
        # clamp bounds as Python floats (a Geometry may hold ints; the output must stay float)
        self._bounds: tuple[float, float, float, float] | None = None
        if self.geometry is not None and params.clamp:
            g = self.geometry
            self._bounds = (float(g.x_min_deg), float(g.x_max_deg), float(g.y_min_deg),
                            float(g.y_max_deg))
        elif not params.clamp:
            self._bounds = (-360.0, 360.0, -360.0, 360.0)
        self._i = 0                      # index of the next sample
        self._n_missing = 0
        self._next_test = 0              # earliest index of the next test
        self._last: tuple[float, float] | None = None
        # (index, eps_pub) of the points published within the last w - 1 samples
        self._pub_i: deque[int] = deque()
        self._pub_e: deque[float] = deque()
        # budget spent at each of the last w samples, and at each sample of the last push
        self._ring: deque[float] = deque(maxlen=self.w)
        self._spent_last: np.ndarray | float = np.zeros(0)
        # noise drawn ahead for the next tested samples (see _refill), as Python floats
        self._thr: list[float] = []
        self._rc: list[float] = []
        self._rs: list[float] = []
        self._pos = 0
        # the compiled threshold loop, or None for the Python one (see _compiled_loop)
        self._loop = _LOOP

    # -- noise ----------------------------------------------------------------------------------

    def _refill(self, k: int) -> None:
        """Make at least ``k`` tested samples' noise available from ``self._pos``: test
        thresholds ``l_thresh + eta`` and the planar-Laplace offsets at ``eps_pub = 1``
        (:func:`planar_laplace_noise` with ``epsilon_per_unit = 1 / r``: radius Gamma(2, r),
        uniform angle).

        Drawn ahead in blocks (a generator call costs microseconds, as much as a few tests) from
        the three child streams, one value per tested sample each, in order; numpy's samplers
        give the same values whether drawn in one call or many, so any chunking of the input
        still gives the same output.
        """
        pos, have = self._pos, len(self._thr) - self._pos
        if k <= have:
            return
        thr, dx, dy = self._draw(max(k - have, _NOISE_BLOCK))
        if have:
            self._thr = self._thr[pos:] + thr.tolist()
            self._rc = self._rc[pos:] + dx.tolist()
            self._rs = self._rs[pos:] + dy.tolist()
        else:
            self._thr, self._rc, self._rs = thr.tolist(), dx.tolist(), dy.tolist()
        self._pos = 0

    def _draw(self, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The noise of ``m`` more tested samples, from the three child streams."""
        thr = self._rng_test.laplace(0.0, 1.0, m) * self._scale + self.params.l_thresh_deg
        # the tested primitive at eps_pub = 1 (scale r); publishing divides by eps_pub
        dx, dy = planar_laplace_noise(m, epsilon_per_unit=1.0 / self.params.radius_deg,
                                      rng=self._rng_radius, angle_rng=self._rng_angle)
        return thr, dx, dy

    def _noise_arrays(self, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """As :meth:`_noise`, as arrays (for the compiled loop): the same values, drawn in
        the same blocks, so the Python and compiled paths may alternate within a stream."""
        pos, have = self._pos, len(self._thr) - self._pos
        if k <= have:
            return tuple(np.array(v) for v in self._noise(k))  # type: ignore[return-value]
        m = max(k - have, _NOISE_BLOCK)
        thr, dx, dy = self._draw(m)
        if have:
            thr = np.concatenate([self._thr[pos:], thr])
            dx = np.concatenate([self._rc[pos:], dx])
            dy = np.concatenate([self._rs[pos:], dy])
        # what is left over stays as Python floats for push_one
        self._thr, self._rc, self._rs = thr[k:].tolist(), dx[k:].tolist(), dy[k:].tolist()
        self._pos = 0
        return thr[:k], dx[:k], dy[:k]

    def _noise(self, k: int) -> tuple[list[float], list[float], list[float]]:
        """The noise of the next ``k`` tested samples (consumed)."""
        self._refill(k)
        pos = self._pos
        self._pos = pos + k
        if pos == 0 and k == len(self._thr):
            return self._thr, self._rc, self._rs
        return self._thr[pos:pos + k], self._rc[pos:pos + k], self._rs[pos:pos + k]

    def _publish_budget(self, i: int) -> float:
        """``eps_pub`` at sample ``i``: half of what the previous ``w - 1`` samples left."""
        pub_i, pub_e = self._pub_i, self._pub_e
        while pub_i and pub_i[0] <= i - self.w:
            pub_i.popleft()
            pub_e.popleft()
        # exact sum of the history (no running-sum drift over long streams)
        return (self._eps_cap - math.fsum(pub_e)) / 2.0

    # -- state and record -----------------------------------------------------------------------

    @property
    def samples_released(self) -> int:
        """Samples pushed (and released) so far, missing ones included."""
        return self._i

    @property
    def epsilon_spent(self) -> np.ndarray:
        """Budget spent at each sample of the most recent push (testing + publishing).

        The stream keeps no longer history (bounded memory); collect it per push if needed.
        """
        return np.atleast_1d(np.asarray(self._spent_last, dtype=np.float64))

    @property
    def window_spent(self) -> float:
        """Budget spent over the last ``w`` samples (at most ``epsilon``, by construction)."""
        return math.fsum(self._ring)

    def guarantee(self, *, participant: str = "session") -> Guarantee:
        """The record of what this stream has released so far.

        The per-w-window record of :func:`guarantee` plus the samples released and the
        per-session bound: basic composition over the ``ceil(n / w)`` disjoint w-windows that
        cover the ``n`` samples so far (``per_participant[participant]``). The budget spent in
        the last window (``epsilon_spent_last_window``) is a function of the test outcomes and
        the public mask, which the guarantee covers.
        """
        n = self._i
        windows = -(-n // self.w)
        base = guarantee(self.params, sampling_rate_hz=self.sampling_rate_hz)  # type: ignore[arg-type]
        bound = self.params.epsilon * windows
        params = {**base.parameters, "samples_released": n, "samples_missing": self._n_missing,
                  "windows": windows, "session_epsilon_bound": bound,
                  "epsilon_spent_last_window": self.window_spent,
                  "test_distance_used": self.test_distance}
        note = (f"stream: {n} samples released so far ({self._n_missing} missing), covered by "
                f"{windows} disjoint w-windows; per-session bound {bound:.4g} by basic "
                "composition over them")
        return replace(base, parameters=params, notes=(*base.notes, note)).compose(
            {participant: windows})

    # -- pushing --------------------------------------------------------------------------------

    def push_one(self, x: float, y: float) -> tuple[float, float]:
        """Process one sample; returns the released ``(x, y)`` as floats (NaN when missing
        under ``missing="keep"``, or before anything was published)."""
        if type(x) is not float or type(y) is not float:
            x, y = _scalar("x", x), _scalar("y", y)
        if x - x + y - y != 0.0:  # NaN or inf somewhere
            if math.isinf(x) or math.isinf(y):
                raise InvalidDataError(
                    f"sample {self._i}: x and y must be finite or NaN (missing), got {x!r}, {y!r}")
            return self._missing_one()
        i = self._i
        self._i = i + 1
        last = self._last
        if i < self._next_test:
            self._ring.append(0.0)
            self._spent_last = 0.0
            return last  # type: ignore[return-value]  # a test happened, so a point exists
        self._next_test = i + self._skip
        pos = self._pos
        if pos == len(self._thr):
            self._refill(1)
            pos = 0
        self._pos = pos + 1
        spent = 0.0
        if last is not None:
            spent = self._eps_test
            lx, ly = last
            dist = _haversine_deg(x, y, lx, ly) if self._great else math.hypot(x - lx, y - ly)
            if dist <= self._thr[pos]:
                self._ring.append(spent)
                self._spent_last = spent
                return last
        eps_pub = self._publish_budget(i)
        if eps_pub > 0.0:
            ox = x + self._rc[pos] / eps_pub
            oy = y + self._rs[pos] / eps_pub
            b = self._bounds
            if b is not None:  # nearest valid point: post-processing, never resampling
                ox = b[0] if ox < b[0] else (b[1] if ox > b[1] else ox)
                oy = b[2] if oy < b[2] else (b[3] if oy > b[3] else oy)
            self._pub_i.append(i)
            self._pub_e.append(eps_pub)
            last = self._last = (ox, oy)
            spent += eps_pub
        self._ring.append(spent)
        self._spent_last = spent
        return last  # type: ignore[return-value]

    def _missing_one(self) -> tuple[float, float]:
        self._i += 1
        self._n_missing += 1
        self._ring.append(0.0)
        self._spent_last = 0.0
        if self._hold and self._last is not None:
            return self._last
        return math.nan, math.nan

    def push(self, x: Any, y: Any) -> tuple[Any, Any]:
        """Process the next samples; returns the released ``(x, y)``.

        ``x`` and ``y``: 1-D arrays (or sequences) of the same length, returning two arrays of
        that length; or two scalars (one sample), returning two floats as :meth:`push_one`.
        """
        if type(x) is float and type(y) is float:
            return self.push_one(x, y)
        if (type(x) is np.ndarray and type(y) is np.ndarray and x.dtype == _F64
                and y.dtype == _F64 and x.ndim == 1 and y.ndim == 1):
            xa, ya = x, y  # the common case, checked without function calls
        elif np.ndim(x) == 0 and np.ndim(y) == 0:
            return self.push_one(x, y)
        else:
            xa, ya = _samples("x", x), _samples("y", y)
        if xa.shape != ya.shape:
            raise InvalidDataError(f"x and y must have the same length, got {xa.size} and "
                                   f"{ya.size}")
        n = xa.size
        if n == 1:
            ox, oy = self.push_one(float(xa[0]), float(ya[0]))
            return np.array([ox]), np.array([oy])
        # one reduction instead of a mask when nothing is missing (the common case)
        s = float(xa.sum() + ya.sum())
        ok = None
        if s - s != 0.0:  # NaN or inf (or an overflow) somewhere
            if np.isinf(xa).any() or np.isinf(ya).any():
                bad = int(np.flatnonzero(np.isinf(xa) | np.isinf(ya))[0])
                raise InvalidDataError(f"sample {self._i + bad}: x and y must be finite or "
                                       "NaN (missing), got inf")
            ok = ~(np.isnan(xa) | np.isnan(ya))
        if n <= _SMALL_CHUNK:  # sample by sample: cheaper than a dozen numpy calls
            return self._push_small(xa.tolist(), ya.tolist())
        if self._loop is not None:
            return self._push_compiled(xa, ya)
        return self._push_arrays(xa, ya, ok)

    def _push_small(self, xs: list[float], ys: list[float]) -> tuple[np.ndarray, np.ndarray]:
        """A short chunk (validated: finite or NaN) through :meth:`push_one`."""
        one = self.push_one
        ox, oy, spent = [], [], []
        for a, b in zip(xs, ys, strict=True):
            u, v = one(a, b)
            ox.append(u)
            oy.append(v)
            spent.append(self._spent_last)
        self._spent_last = np.array(spent)
        return np.array(ox), np.array(oy)

    def _push_compiled(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_push_arrays` in C (``_kaleido_loop.c``): bit-identical, the same state."""
        n, loop, b = x.size, self._loop, self._bounds
        x, y = np.ascontiguousarray(x), np.ascontiguousarray(y)
        j0 = min(max(0, self._next_test - self._i), n)  # past the chunk: no test in it
        thr, rc, rs = self._noise_arrays(loop.count(x, y, j0, self._skip))
        ox, oy, spent = np.empty(n), np.empty(n), np.empty(n)
        last, (pub_i, pub_e), k, pending, missing = loop.push(
            x, y, np.ascontiguousarray(thr), np.ascontiguousarray(rc),
            np.ascontiguousarray(rs), ox, oy, spent, self._pub_i, self._pub_e, self._last, j0,
            self._skip, self._i, self.w, self._hold, self._great, b is not None,
            *(b if b is not None else (0.0, 0.0, 0.0, 0.0)), self._eps_cap, self._eps_test,
            math.hypot, _haversine_deg)
        self._pub_i, self._pub_e = deque(pub_i), deque(pub_e)
        self._last = last
        if k:
            self._next_test = self._i + pending
        self._n_missing += missing
        self._i += n
        self._ring.extend(spent[-self.w:].tolist())
        self._spent_last = spent
        return ox, oy

    def _push_arrays(self, x: np.ndarray, y: np.ndarray,
                     ok: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        n = x.size
        carry = self._last
        carry_none = carry is None
        # Which samples are tested (or the very first, always published)? Tests depend only on
        # the positions and the missing mask, so they are found before any noise is drawn.
        skip = self._skip
        j0 = max(0, self._next_test - self._i)
        tested = np.arange(j0, n, skip) if ok is None else _tested_with_missing(ok, j0, skip)
        k = tested.size
        pub_eps, pub_x, pub_y = self._run_python(x, y, tested)
        # budget spent per sample: eps_test at every test (every tested sample but the very
        # first of the stream, which is always published), plus eps_pub where one was published
        spent = np.zeros(n)
        which = np.zeros(n, dtype=np.int64)
        pub = which[:0]
        if k:
            spent[tested] = self._eps_test
            if carry_none:
                spent[tested[0]] = 0.0
            self._next_test = self._i + int(tested[-1]) + skip
            e = np.asarray(pub_eps)
            pub = (e > 0.0).nonzero()[0]
            at = tested[pub]
            spent[at] += e[pub]
            which[at] = np.arange(1, pub.size + 1)
            np.maximum.accumulate(which, out=which)
        # release: the most recent published point (carried over from earlier pushes)
        vx, vy = np.empty(pub.size + 1), np.empty(pub.size + 1)
        vx[0], vy[0] = (math.nan, math.nan) if carry_none else carry
        vx[1:] = np.asarray(pub_x)[pub]
        vy[1:] = np.asarray(pub_y)[pub]
        ox_out, oy_out = vx[which], vy[which]
        if ok is not None:
            self._n_missing += n - int(np.count_nonzero(ok))
            if not self._hold:
                ox_out[~ok] = np.nan
                oy_out[~ok] = np.nan
        self._i += n
        self._ring.extend(spent[-self.w:].tolist())
        self._spent_last = spent
        return ox_out, oy_out

    def _run_python(self, x: np.ndarray, y: np.ndarray, tested: np.ndarray
                    ) -> tuple[list[float], list[float], list[float]]:
        """The sequential part: test each tested sample against the last published point and
        publish where the test fails. Returns, per tested sample, ``eps_pub`` (0 where nothing
        was published) and the published point.

        The noise of every tested sample is fetched at once, as plain Python floats: the loop is
        sequential by nature and numpy scalars cost ten times more per step.
        """
        k = tested.size
        thr, rcos, rsin = self._noise(k)
        tx, ty, tl = x[tested].tolist(), y[tested].tolist(), tested.tolist()
        base, great, w = self._i, self._great, self.w
        b = self._bounds
        clamp = b is not None
        bx0, bx1, by0, by1 = b if b is not None else (0.0, 0.0, 0.0, 0.0)
        cap = self._eps_cap
        pub_i, pub_e = self._pub_i, self._pub_e
        fsum, hypot = math.fsum, math.hypot
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
            # slide the publishing history to the previous w - 1 samples (as _publish_budget)
            gi = base + tl[t]
            while pub_i and pub_i[0] <= gi - w:
                pub_i.popleft()
                pub_e.popleft()
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
            last = True  # type: ignore[assignment]
            lx = pub_x[t] = ox
            ly = pub_y[t] = oy
            pub_eps[t] = eps_pub
        if last is not None:
            self._last = (lx, ly)
        return pub_eps, pub_x, pub_y


def _scalar(name: str, v: Any) -> float:
    """One coordinate of one sample as a float; None, text and Booleans are refused."""
    if v is None or isinstance(v, str | bytes | bool | np.bool_):
        raise InvalidDataError(f"{name} must be a number (NaN for a missing sample), got {v!r}")
    if isinstance(v, np.ndarray):
        if v.size != 1 or v.ndim > 1:
            raise InvalidDataError(f"{name} must be one number here, got shape {v.shape}")
        return _scalar(name, v.reshape(()).item())
    try:
        return float(v)
    except (TypeError, ValueError):
        raise InvalidDataError(
            f"{name} must be a number (NaN for a missing sample), got {v!r}") from None


def _samples(name: str, v: Any) -> np.ndarray:
    """A 1-D float64 array of samples; None, text, Booleans and 2-D input are refused."""
    if v is None:
        raise InvalidDataError(f"{name} must be a 1-D array of numbers, got None")
    a = np.asarray(v)
    if a.dtype != np.float64:
        if a.dtype.kind in "iuf":
            a = a.astype(np.float64)
        else:
            what = ("None" if a.dtype == object and any(e is None for e in a.ravel())
                    else f"dtype {a.dtype}")
            raise InvalidDataError(
                f"{name} must be numbers (NaN for a missing sample), got {what}")
    if a.ndim != 1:
        raise InvalidDataError(
            f"{name} must be 1-D (one value per sample), got shape {a.shape}; push x and y "
            "as separate 1-D arrays")
    return a


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
    with adopt(ox, oy):  # arrays made here: the release takes them uncopied
        out = recording.with_gaze(ox, oy)
    return Release(out, guarantee(params, sampling_rate_hz=recording.sampling_rate_hz))


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
