# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The stream :class:`KaleidoStream`: incremental Kaleido for live gaze, with the Python
threshold loop (the compiled one is bit-identical)."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import replace
from typing import Any

import numpy as np

from gazeprivacy._validation import check_positive
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.guarantees import Guarantee
from gazeprivacy.mechanisms.noise.planar_laplace import planar_laplace_noise
from gazeprivacy.mechanisms.samples.kaleido.loop import (
    _F64,
    _LOOP,
    _NOISE_BLOCK,
    _SMALL_CHUNK,
    _haversine_deg,
    _samples,
    _scalar,
    _tested_with_missing,
)
from gazeprivacy.mechanisms.samples.kaleido.params import _MAX_COUNT, KaleidoParams, guarantee

__all__ = ["KaleidoStream"]


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
    >>> from gazeprivacy.mechanisms.samples.kaleido import kaleido_arrays
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
