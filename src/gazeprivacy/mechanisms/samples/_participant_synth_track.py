# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's tracker rendered on a simulated recording (post-processing of the
released tracker marginals, :mod:`._participant_synth_quality`).

Each synthetic participant's recordings (:func:`track`) draw their values around that
participant's centres (:func:`~._participant_synth_quality.participant_tracker`; the public
spread), then white noise
smoothed (circularly) by a Gaussian kernel whose width gives the step correlation is added to
the simulated eye signal, scaled so the median step is the drawn one (when the eye signal alone
steps more, no noise is added, so no drawn shoulder either: its fixational motion is shrunk
toward each fixation's chord instead, saccades intact), each noise sample's scale drawn
log-normal (a Gaussian scale mixture; its log sd, bisection, gives the drawn tail when the plain
noise has less, up to a ceiling the smoothing lowers: ``_TAIL_LOG_SD``; :func:`_heavy`), and
gaps (NaN runs of log-normal length, public median 0.07 s; a public share 0.6 of them starting
at the simulated saccade onsets, where real trackers lose the eye) cover the drawn missing share
(none below a public floor of 0.5 %). The bisections read no median per halving: whether the
steps' median is below the target is a count of squared step lengths (:class:`_Steps`, bit for
bit NumPy's median compared with the target, so the releases are those of the median's code).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np
from scipy.ndimage import gaussian_filter1d
from scipy.special import expit

from gazeprivacy.data.simulate import EVENT_CODES
from gazeprivacy.mechanisms.samples._participant_synth_quality import QUALITY, QUALITY_SPREAD

__all__ = ["track"]

_GAP_MEDIAN_S, _GAP_LOG_SD = 0.07, 0.9  # public gap lengths (dropouts and blinks)
#: a drawn missing share below this writes no gap: a tracker losing next to nothing (a
#: recording of 60 s at 0.3 % holds two or three gaps, each a window a discriminator reads)
_GAP_FLOOR = 0.005
#: the share of gaps started at a saccade onset when the event codes are given (real trackers
#: lose the eye around saccades: MPIIDPEye's median gaze jump across a gap 2.3 deg, 0.5 deg
#: with gaps placed at random)
_GAP_AT_SACCADE = 0.6
#: the largest log sd of the noise samples' scales (the tracker_tail rendering, _heavy): with
#: the scales clipped at 2 sd, a sample's scale at most e^4 = 55 times the typical one; without
#: smoothing (step correlation -0.5) it renders shoulders up to 0.5 (white noise alone: 0.15),
#: higher ones at 0.5; the smoothing lowers that ceiling (measured: 0.39 at a step correlation
#: of 0.4, 0.37 at 0.6, 0.33 at 0.8); no shoulder at all where no noise is added (the eye
#: signal alone steps more than the drawn median step: the fixational motion shrunk instead)
_TAIL_LOG_SD = 2.0


def _kernel_rho(w: float) -> float:
    """Lag-1 correlation of the steps of white noise smoothed by a Gaussian of sd ``w``
    samples (scipy's kernel, truncated at 4 sd)."""
    if w <= 0:
        return -0.5
    r = max(int(4.0 * w + 0.5), 1)
    k = np.exp(-0.5 * (np.arange(-r, r + 1) / w) ** 2)
    d = np.diff(np.r_[0.0, k / k.sum(), 0.0])
    return float(d[:-1] @ d[1:] / (d @ d))


def _width(rho: float) -> float:
    """The kernel sd (samples) whose smoothed white noise has step correlation ``rho``."""
    if rho <= -0.5:
        return 0.0
    if rho >= _kernel_rho(20.0):
        return 20.0
    lo, hi = _bisect(lambda w: _kernel_rho(w) < rho, 0.0, 20.0, 40)
    return 0.5 * (lo + hi)


def _bisect(below: Callable[[float], bool], lo: float, hi: float, steps: int
            ) -> tuple[float, float]:
    """``[lo, hi]`` halved ``steps`` times around the point where the monotone test ``below``
    turns false (true: the point is above ``mid``). A fixed number of halvings, not SciPy's
    root finders: the releases stay bit-equal at a seed whatever SciPy's tolerances."""
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if below(mid) else (lo, mid)
    return lo, hi


def _smooth(a: np.ndarray, w: float) -> np.ndarray:
    # circular ("wrap"): stationary to the ends ("nearest" repeats the end samples, so the
    # first and last smoothed values swing up to sqrt(w) times wider)
    return gaussian_filter1d(a, w, axis=0, mode="wrap") if w > 0 else a


def _gaps(share: float, n: int, rate: float, rng: np.random.Generator,
          code: np.ndarray | None = None) -> np.ndarray:
    """A missing-sample mask: gaps of log-normal length (public median and log sd, at least a
    sample) alternating with valid runs (exponential). With the event codes a public share
    ``_GAP_AT_SACCADE`` of the gaps starts at the next saccade onset (where real trackers lose
    the eye), the exponential runs shortened by that share of the mean wait for it, so the
    valid runs keep their mean ``gap (1 - share) / share``."""
    mask = np.zeros(n, dtype=bool)
    mean_gap = _GAP_MEDIAN_S * rate * math.exp(_GAP_LOG_SD ** 2 / 2.0)
    valid = max(mean_gap * (1.0 - share) / share, 1.0)
    onsets = _onsets(code) if code is not None else np.zeros(0, dtype=np.int64)
    snap, wait = 0.0, 0.0
    if onsets.size:  # the mean wait from a sample to the next onset (samples past the last: 0)
        ahead = onsets[np.minimum(np.searchsorted(onsets, np.arange(n)), onsets.size - 1)]
        wait = float(np.maximum(ahead - np.arange(n), 0).mean())
        snap = min(_GAP_AT_SACCADE, max(valid - 1.0, 0.0) / max(wait, 1e-12))
        valid = max(valid - snap * wait, 1.0)
    i = rng.exponential(valid)
    while i < n:
        if snap > 0.0 and rng.random() < snap:
            k = int(np.searchsorted(onsets, math.ceil(i)))
            i = float(onsets[k]) if k < onsets.size else i
        length = max(1, round(_GAP_MEDIAN_S * rate * math.exp(_GAP_LOG_SD * rng.normal())))
        mask[int(i):int(i) + length] = True
        i += length + rng.exponential(valid)
    return mask


def _median_step(de: np.ndarray, du: np.ndarray, a: float) -> float:
    """The median length of the 2-D steps ``de + a du`` (eye signal's plus scaled noise's)."""
    d = de + a * du
    return float(np.median(np.hypot(d[:, 0], d[:, 1])))


def _median_vs(s: np.ndarray, target: float, above: bool = False) -> bool:
    """``np.median(s) < target`` (``> target`` when ``above``), bit for bit, from one count
    instead of a partition: with ``n`` lengths, ``c`` of them beyond the target and
    ``k = n // 2``, an odd ``n``'s median (the ``k``-th from 0) is beyond iff ``c > k``; an
    even ``n``'s, NumPy's mean of the two middle lengths, is beyond iff ``c > k`` too (both
    middle lengths are then beyond, at most the largest length short of the target ``m``, and
    their rounded mean at most ``m``; mirrored for ``above``), not when ``c < k``, and for
    ``c == k`` it is those two lengths' mean, computed as NumPy does. NaN lengths (a NaN
    median: never beyond) and no lengths at all (NumPy warns) take NumPy's median itself."""
    n, k = s.size, s.size // 2
    if n == 0 or np.isnan(s).any():
        m = float(np.median(s))
        return m > target if above else m < target
    beyond = s > target if above else s < target
    c = int(np.count_nonzero(beyond))
    if n % 2 or c != k:
        return c > k
    pair = (s[~beyond].max(), s[beyond].min()) if above else (s[beyond].max(), s[~beyond].min())
    m = float(np.mean(np.array(pair)))
    return m > target if above else m < target


#: the relative band around the squared target where a squared length (rounded: relative
#: error under 3e-16) does not settle its side of the target: those compare ``np.hypot``'s
#: length itself (correct to an ulp)
_BAND = 1e-9


class _Steps:
    """The 2-D steps ``de + a du`` (eye signal's plus scaled noise's) for many factors ``a``:
    :meth:`beyond` tells whether their median length is below (above) a target as
    ``np.median(np.hypot(...)) < target`` would, bit for bit, from squared lengths (no square
    root, no partition: the bisections' cost): a count of the lengths beyond the target settles
    it (:func:`_median_vs`) unless a squared length falls within :data:`_BAND` of the squared
    target or the two middle lengths of an even count straddle it; those cases (and NaN or
    extreme inputs) take the lengths themselves."""

    def __init__(self, de: np.ndarray, du: np.ndarray) -> None:
        self.e = (np.ascontiguousarray(de[:, 0]), np.ascontiguousarray(de[:, 1]))
        self.u = (np.ascontiguousarray(du[:, 0]), np.ascontiguousarray(du[:, 1]))
        self.n = de.shape[0]
        self.finite = self.n > 0 and bool(np.isfinite(de).all() and np.isfinite(du).all())
        self.q, self.b = np.empty(self.n), np.empty(self.n)

    def lengths(self, a: float) -> np.ndarray:
        """The step lengths at ``a`` (the same floating-point values as ``_median_step``'s)."""
        return np.hypot(self.e[0] + a * self.u[0], self.e[1] + a * self.u[1])

    def beyond(self, a: float, target: float, above: bool = False) -> bool:
        """Whether the median step length at ``a`` is below ``target`` (above, ``above``)."""
        if not (self.finite and 1e-100 < target < 1e100):
            return _median_vs(self.lengths(a), target, above)
        q, b = self.q, self.b
        np.multiply(self.u[0], a, out=q)
        q += self.e[0]
        q *= q
        np.multiply(self.u[1], a, out=b)
        b += self.e[1]
        b *= b
        q += b
        near, far = target * target * (1.0 - _BAND), target * target * (1.0 + _BAND)
        if above:
            c, settled = int(np.count_nonzero(q > far)), int(np.count_nonzero(q < near))
        else:
            c, settled = int(np.count_nonzero(q < near)), int(np.count_nonzero(q > far))
        k = self.n // 2
        if c + settled < self.n or (self.n % 2 == 0 and c == k):
            return _median_vs(self.lengths(a), target, above)
        return c > k


def _scale(de: np.ndarray, du: np.ndarray, target: float, m0: float) -> float:
    """The factor ``a`` (bisection) giving the steps ``de + a du`` the median ``target`` (each
    halving a count against the target, :meth:`_Steps.beyond`, not a median); ``m0`` the eye
    signal's own median step, ``_median_step(de, du, 0.0)`` (the same for any finite ``du``:
    ``0.0 * du`` adds a signed zero, and ``np.hypot`` drops signs)."""
    steps = _Steps(de, du)
    hi = target / max(_median_step(de, du, 1.0) - m0, 1e-12) + 1.0
    while steps.beyond(hi, target):
        hi *= 2.0
    return _bisect(lambda v: steps.beyond(v, target), 0.0, hi, 30)[0]


def _heavy(de: np.ndarray, white: np.ndarray, w: float, unit: np.ndarray, a: float,
           target: float, tail: float, rng: np.random.Generator, m0: float
           ) -> tuple[np.ndarray, float]:
    """The noise with the drawn ``tail`` (log10 of the steps' upper quartile over their
    median): when the Gaussian noise ``unit`` (scaled by ``a``) has less, each white sample is
    scaled by ``exp(s g)`` (``g`` standard normal, clipped to +-2, one per sample for both
    axes: a Gaussian scale mixture, heavier-shouldered the larger ``s``) before the smoothing,
    ``s`` in [0, _TAIL_LOG_SD] by bisection, the median step kept at ``target``."""
    def shoulder(u: np.ndarray, a: float) -> float:
        d = de + a * np.diff(u, axis=0)
        q50, q75 = np.quantile(np.hypot(d[:, 0], d[:, 1]), [0.5, 0.75])
        return math.log10(max(q75, 1e-300) / max(q50, 1e-300))

    if shoulder(unit, a) >= tail:
        return unit, a
    g = np.clip(rng.standard_normal((white.shape[0], 1)), -2.0, 2.0)

    # the noise at the bisection's lower end, kept so the result is not computed twice: at
    # s = 0 the plain noise (``white * exp(0) == white``: ``(unit, a)`` exactly), then each
    # mid found below the drawn tail (the lower end moves there)
    kept: dict[float, tuple[np.ndarray, float]] = {0.0: (unit, a)}

    def below(s: float) -> bool:
        u = _smooth(white * np.exp(s * g), w)
        b = _scale(de, np.diff(u, axis=0), target, m0)
        if shoulder(u, b) >= tail:
            return False
        kept.clear()
        kept[s] = (u, b)
        return True

    lo, _ = _bisect(below, 0.0, _TAIL_LOG_SD, 10)
    return kept[lo]


def _onsets(code: np.ndarray) -> np.ndarray:
    """The first sample of each saccade run in the simulator's event codes."""
    sac = np.r_[False, np.asarray(code) == EVENT_CODES["saccade"]]
    return np.flatnonzero(sac[1:] & ~sac[:-1])


def _fixational(eye: np.ndarray, code: np.ndarray) -> np.ndarray:
    """Each fixation run's deviation from its chord (the line between the run's first and last
    samples), zero elsewhere (a run: drift and microsaccades between two saccades):
    subtracting a share of it shrinks the fixational motion (drift, tremor, microsaccades)
    while every run keeps its end points, so the saccades (and where they land) stay as
    simulated. Microsaccades shrink too: kept whole, the event detector splits more fixations
    at them (DOVES: fixation-duration W1 up by about 0.02 s)."""
    dev = np.zeros_like(eye)
    i = np.flatnonzero(code != EVENT_CODES["saccade"])
    if i.size == 0:
        return dev
    new_run = np.r_[True, np.diff(i) > 1]
    starts, ends = i[new_run], i[np.r_[new_run[1:], True]]
    run = np.cumsum(new_run) - 1
    s, e = starts[run], ends[run]
    frac = ((i - s) / np.maximum(e - s, 1))[:, None]
    dev[i] = eye[i] - (eye[s] + frac * (eye[e] - eye[s]))
    return dev


def track(x: np.ndarray, y: np.ndarray, marginals: Mapping[str, np.ndarray],
          sampling_rate_hz: float, rng: np.random.Generator,
          code: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The tracker applied to a noise-free simulated signal: this recording's values drawn
    around the centres ``marginals[m][0]`` (a participant's, :func:`participant_tracker`) with
    the public spreads, white noise smoothed by the kernel and scaled
    (bisection) so the median step is the drawn one, then the gaps. When the eye signal alone
    steps more than that and its event codes (``code``, the simulator's ground truth) are
    given, its fixational motion is shrunk instead (:func:`_fixational`, bisection on the
    share) so the median step is the drawn one."""
    vals = {m: float(marginals[m][0]) + QUALITY_SPREAD[m] * rng.normal() for m in QUALITY}
    target = 10.0 ** vals["tracker_step"]
    # the kernel at most an eighth of the recording (the noise of a recording of a few samples
    # smoothed circularly by a wider kernel is near constant: scaled up to the drawn median
    # step, it throws the recording thousands of degrees away); 20 samples, the widest kernel,
    # from 160 samples on
    w = min(_width(float(np.clip(vals["tracker_smooth"], -1.0, 0.99))), x.size / 8.0)
    # the noise only is smoothed: a smoothed eye signal slows the saccades below the event
    # detector's threshold (MPIIDPEye at 30 Hz: fixation-duration W1 from 0.14 to 2.5 s)
    eye = np.column_stack([x, y])
    white = rng.standard_normal(eye.shape)
    unit = _smooth(white, w)
    de, du = np.diff(eye, axis=0), np.diff(unit, axis=0)

    a, m0 = 0.0, _median_step(de, du, 0.0)
    if m0 < target:
        a = _scale(de, du, target, m0)
        unit, a = _heavy(de, white, w, unit, a, target, vals["tracker_tail"], rng, m0)
    elif code is not None:  # shrink: a = minus the share of the deviation taken away
        unit = -_fixational(eye, code)
        steps = _Steps(de, np.diff(unit, axis=0))
        _, a = _bisect(lambda v: steps.beyond(v, target, above=True), 0.0, 1.0, 30)
    xy = eye + a * unit
    share = float(expit(vals["tracker_missing"]))
    if share >= _GAP_FLOOR:
        xy[_gaps(share, xy.shape[0], sampling_rate_hz, rng, code)] = np.nan
    return xy[:, 0], xy[:, 1]
