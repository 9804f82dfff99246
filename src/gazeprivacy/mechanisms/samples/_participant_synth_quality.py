# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's tracker: measured signal quality and its rendering.

The measured quantities (four marginals of :mod:`participant_synth`, measured once over all
public keys, ``POOLED``; proof: ``docs/privacy/participant-synth.md#tracker``), one value per
participant and key, each contributed as a **one-hot histogram** over public bins (weight
``1 / keys`` per key, so L1 norm at most 1 over the keys, like every marginal):

* ``tracker_step``: log10 of the median sample-to-sample displacement (deg) over all pairs of
  consecutive valid samples (the tracker's noise level: most samples are fixation samples),
  bins of half a decade over [1e-3, 3] deg;
* ``tracker_smooth``: the lag-1 correlation of consecutive steps, read robustly from medians
  as ``1 - (median |second difference| / median |step|)^2 / 2`` (exact for a stationary
  Gaussian step process), bins of 0.25 over [-1, 1]: white noise on positions gives -0.5, a
  tracker's smoothing filter pushes it up (MPIIDPEye 0.6);
* ``tracker_missing``: the share of missing samples (NaN x or y), 4 bins on the logit scale
  over [0.001, 0.9] (edges 1 %, 5 %, 20 %);
* ``tracker_tail``: log10 of the ratio of the steps' upper quartile to their median (the
  shoulder of the step distribution), bins of 0.1 over [0.1, 0.6]: Gaussian white noise gives
  log10 sqrt(2) = 0.15 (the Rayleigh distribution's), head-free and head-mounted recordings
  (gaze moving with the head, trackers' outlying samples) more.

A histogram, not a two-bin moment: within a data set these values are concentrated (one
tracker), so the population's bin stands out of Gaussian noise with a signal of ``n``
participants against a noise sd ``sigma`` per bin whatever the range, where a bounded mean over
a range of three decades has noise ``sigma / n`` of the whole range. The medians come from
integer count histograms of the steps (fine log bins), so a participant's recordings merge
exactly over partitions before the value is read.

The release (:func:`fit_quality`, post-processing): the posterior mean and sd of the
population's centre ``mu`` on a public grid under a public normal prior, the participants'
values modelled as ``N(mu, s)`` with a public spread ``s`` (the expected histogram ``n`` times
the binned normal).

The rendering (post-processing): each synthetic participant draws its own centre from that
posterior (:func:`participant_tracker`; where the measurement is weak, the synthetic
participants spread over what the release cannot rule out instead of all sitting at the
posterior mean, the prior's 0.05 deg when nothing is measured), then each of its recordings
(:func:`track`) draws its values around that centre (the public spread), then white noise
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

A **declared tracker** (:class:`DeclaredTracker`) replaces the four measurements: values the
user declares public because they come from no participant (an experimenter's own pilot or
validation recording, read with :meth:`DeclaredTracker.from_recordings`, the same public
function a participant's values are read with). Nothing of the tracker is then measured; its
values are the release's centres (sd 0), rendered as above.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.ndimage import gaussian_filter1d
from scipy.special import expit, logit, ndtr

from gazeprivacy.data.recording import Recording
from gazeprivacy.data.simulate import EVENT_CODES
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.guarantees import ColumnStatus, Status

__all__ = ["QUALITY", "QUALITY_PARTS", "QUALITY_PRIOR", "QUALITY_SIZES", "DeclaredTracker",
           "fit_quality", "mask_column", "participant_tracker", "quality_parts",
           "quality_statistics", "track", "tracker_values"]

#: The measured tracker marginals (in the split's order).
QUALITY = ("tracker_step", "tracker_smooth", "tracker_missing", "tracker_tail")
#: The raw parts (integer counts) they are read from.
QUALITY_PARTS = ("step_counts", "step2_counts", "missing_counts")

_FINE = np.linspace(-5.0, 1.5, 326)  # log10 deg, 0.02 decade: the steps' count histogram
_MISS_LO, _MISS_HI = 0.001, 0.9
#: log10 of the Rayleigh distribution's upper quartile over its median, sqrt(ln 4 / ln 2): the
#: shoulder of the 2-D steps of Gaussian white noise
_RAYLEIGH_TAIL = 0.5 * math.log10(2.0)
#: name -> (bin edges on the value's scale, public population sd on that scale, public prior
#: of the centre (mean, sd) on that scale: a median step of 0.05 deg give or take a decade,
#: white noise or some smoothing, about 1 % missing give or take a factor of e^2.5, i.e.
#: 0.1 % to 11 % within one sd: trackers lose from next to nothing to a quarter of the samples
#: and more, Holmqvist et al. 2012). The missing share's 4 wide bins (not 8): the population
#: (spread 0.6) falls in one or two of them, so a few participants stand out of the noise
#: (MPIIDPEye's 14 at 29 % missing: released 2-9 % with 8 bins and the sd 1.5 prior, now
#: 9-25 %; its discriminator AUC 0.94 -> 0.86 at epsilon 10, 0.83 -> 0.75 at 3)
_SCALES = {
    "tracker_step": (np.linspace(-3.0, 0.5, 8), 0.15, (math.log10(0.05), 1.0)),
    "tracker_smooth": (np.linspace(-1.0, 1.0, 9), 0.1, (0.0, 0.5)),
    "tracker_missing": (logit(np.array([_MISS_LO, 0.01, 0.05, 0.2, _MISS_HI])), 0.6,
                        (float(logit(0.01)), 2.5)),
    # the prior: Gaussian white noise's shoulder (the Rayleigh quartile ratio), give or take
    # 0.15 (a factor 1.4 on the ratio); the spread 0.05 as the other tracker values' (one
    # tracker per data set)
    "tracker_tail": (np.linspace(0.1, 0.6, 6), 0.05, (_RAYLEIGH_TAIL, 0.15)),
}
QUALITY_SIZES = {m: e[0].size - 1 for m, e in _SCALES.items()}
#: The data-free values (a marginal not measured; ``[centre, sd]``, sd 0: every synthetic
#: participant the same): a 0.05 deg median step (the simulator's tracker), white noise, no
#: missing samples to speak of.
QUALITY_PRIOR = {"tracker_step": np.array([math.log10(0.05), 0.0]),
                 "tracker_smooth": np.array([-0.5, 0.0]),
                 "tracker_missing": np.array([logit(_MISS_LO), 0.0]),
                 "tracker_tail": np.array([_RAYLEIGH_TAIL, 0.0])}
_GRID = 201  # the posterior's grid of centres over each scale's range
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


def mask_column(share: float, declared: bool = False) -> ColumnStatus:
    """The record's entry for the output's NaN rows: synthetic gaps, protected.

    >>> mask_column(0.06).status.value
    'protected'
    """
    source = ("the declared tracker's missing share (public, measured from no participant)"
              if declared else f"the released tracker_missing (a share {share:g} of rho)")
    return ColumnStatus(
        name="mask", status=Status.PROTECTED, by="participant-synth",
        note=f"synthetic gaps (NaN x, y) drawn from {source}, and samples the drawn tracker "
             "throws more than half a screen off the public screen; the input's "
             "missing-sample mask is not written")


def _log_hist(d: np.ndarray) -> np.ndarray:
    d = d[np.isfinite(d)]
    v = np.clip(np.log10(np.maximum(d, 1e-300)), _FINE[0], _FINE[-1])
    # the equal-width form of bins=_FINE (NumPy's edges are the same linspace, and it corrects
    # each index against them: the same counts), without sorting every step (issue 18)
    return np.histogram(v, bins=_FINE.size - 1, range=(_FINE[0], _FINE[-1]))[0].astype(
        np.float64)


def quality_parts(recs: Sequence[Recording]) -> dict[str, np.ndarray]:
    """Raw parts (counts, exact under merging): the fine log histograms of the 2-D steps and
    second differences within each recording, and ``(missing, samples)``."""
    steps, second, miss, n = np.zeros(_FINE.size - 1), np.zeros(_FINE.size - 1), 0, 0
    for r in recs:  # (x and y apart: the same differences as of the pairs, no copies of them)
        dx, dy = np.diff(r.x), np.diff(r.y)
        steps += _log_hist(np.hypot(dx, dy))
        second += _log_hist(np.hypot(dx[1:] - dx[:-1], dy[1:] - dy[:-1]))
        miss += r.n_samples - int(np.count_nonzero(np.isfinite(r.x) & np.isfinite(r.y)))
        n += r.n_samples
    return {"step_counts": steps, "step2_counts": second,
            "missing_counts": np.array([miss, n], dtype=np.float64)}


def _median(counts: np.ndarray, q: float = 0.5) -> float:
    """The median (or quantile ``q``) of a fine-histogram (the centre of the bin holding it)."""
    c = np.cumsum(counts)
    i = int(np.searchsorted(c, c[-1] * q))
    return float(0.5 * (_FINE[i] + _FINE[i + 1]))


def _one_hot(name: str, value: float) -> np.ndarray:
    edges = _SCALES[name][0]
    out = np.zeros(edges.size - 1)
    out[int(np.clip(np.searchsorted(edges, value, side="right") - 1, 0, out.size - 1))] = 1.0
    return out


def tracker_values(raw: Mapping[str, np.ndarray]) -> dict[str, float]:
    """The tracker values of raw parts (:func:`quality_parts`), each on its marginal's scale;
    a value is absent when the parts cannot give it (no pair of valid samples, no sample)."""
    out: dict[str, float] = {}
    steps, second = raw["step_counts"], raw["step2_counts"]
    if steps.sum() > 0:
        m1 = _median(steps)
        out["tracker_step"] = m1
        out["tracker_tail"] = _median(steps, 0.75) - m1
        if second.sum() > 0:
            out["tracker_smooth"] = max(1.0 - 10.0 ** (2.0 * (_median(second) - m1)) / 2.0,
                                        -1.0)
    miss, n = raw["missing_counts"]
    if n > 0:
        out["tracker_missing"] = float(logit(float(np.clip(miss / n, _MISS_LO, _MISS_HI))))
    return out


def quality_statistics(raw: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """One participant's tracker marginals under one key (one-hot, total 1; all zero when it
    has no pair of valid samples, or no sample)."""
    out = {m: np.zeros(QUALITY_SIZES[m]) for m in QUALITY}
    out.update({m: _one_hot(m, v) for m, v in tracker_values(raw).items()})
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class DeclaredTracker:
    """A tracker declared public: its values come from no participant of the input.

    Parameters
    ----------
    median_step_deg : float, > 0
        The median sample-to-sample displacement (deg): the tracker's noise level.
    step_correlation : float, in [-1, 1)
        The lag-1 correlation of consecutive steps (-0.5: white noise; a smoothing filter
        pushes it up).
    missing_share : float, in [0, 1)
        The share of missing samples.
    shoulder : float, >= 1
        The steps' upper quartile over their median (about 1.41 for white noise).
    source : str
        Where the values come from (written to the guarantee record), e.g. ``"experimenter
        pilot, 2026-03-02"``. It must be no participant of the input: their values would
        then be written without noise.

    Examples
    --------
    >>> t = DeclaredTracker(median_step_deg=0.3, step_correlation=0.1, missing_share=0.02,
    ...                     shoulder=1.6, source="experimenter pilot")
    >>> [round(float(v[0]), 3) for v in t.centres().values()]  # step, smooth, missing, tail
    [-0.523, 0.1, -3.892, 0.204]
    >>> DeclaredTracker(median_step_deg=0.0, step_correlation=0.1, missing_share=0.02,
    ...                 shoulder=1.6, source="pilot")
    Traceback (most recent call last):
    ...
    gazeprivacy.exceptions.InvalidParameterError: tracker median_step_deg must be ... got 0.0
    """

    median_step_deg: float
    step_correlation: float
    missing_share: float
    shoulder: float
    source: str

    def __post_init__(self) -> None:
        checks = {"median_step_deg": (lambda v: v > 0, "finite and > 0"),
                  "step_correlation": (lambda v: -1 <= v < 1, "in [-1, 1)"),
                  "missing_share": (lambda v: 0 <= v < 1, "in [0, 1)"),
                  "shoulder": (lambda v: v >= 1, "finite and >= 1")}
        for name, (ok, allowed) in checks.items():
            v = getattr(self, name)
            if not (isinstance(v, int | float) and math.isfinite(v) and ok(v)):
                raise InvalidParameterError(f"tracker {name} must be {allowed}, got {v!r}")
        if not (isinstance(self.source, str) and self.source.strip()):
            raise InvalidParameterError("a declared tracker needs its source (who or what it "
                                        "was measured on: no participant of the input)")

    @classmethod
    def from_recordings(cls, recordings: Sequence[Recording], *, source: str
                        ) -> DeclaredTracker:
        """The tracker of ``recordings`` (a pilot's), read as a participant's values are
        (:func:`quality_parts`, :func:`tracker_values`)."""
        v = tracker_values(quality_parts(list(recordings)))
        if "tracker_smooth" not in v or "tracker_missing" not in v:
            raise InvalidDataError(f"the tracker's recordings ({source}) hold no three "
                                   "consecutive valid samples: no tracker can be read")
        return cls(median_step_deg=10.0 ** v["tracker_step"],
                   step_correlation=min(v["tracker_smooth"], 0.99),
                   missing_share=float(expit(v["tracker_missing"])),
                   shoulder=10.0 ** v["tracker_tail"], source=source)

    def centres(self) -> dict[str, np.ndarray]:
        """The four released ``[centre, sd]`` (sd 0: known), on the marginals' scales (the
        missing share clipped to their range)."""
        miss = float(np.clip(self.missing_share, _MISS_LO, _MISS_HI))
        return {"tracker_step": np.array([math.log10(self.median_step_deg), 0.0]),
                "tracker_smooth": np.array([float(self.step_correlation), 0.0]),
                "tracker_missing": np.array([float(logit(miss)), 0.0]),
                "tracker_tail": np.array([math.log10(self.shoulder), 0.0])}

    def to_dict(self) -> dict[str, float | str]:
        return {"median_step_deg": float(self.median_step_deg),
                "step_correlation": float(self.step_correlation),
                "missing_share": float(self.missing_share), "shoulder": float(self.shoulder),
                "source": self.source}


def fit_quality(name: str, noisy_sum: np.ndarray, n_weight: float, sigma: float
                ) -> tuple[np.ndarray, float]:
    """The released ``[mu, sd]`` of a tracker marginal's centre and its factor (the share of
    the prior's variance the measurement removed): the posterior mean and sd of ``mu`` on a grid
    over the bins' range under the public normal prior, the noisy histogram
    ``z ~ N(n p(mu), sigma^2 I)`` with ``p(mu)`` the public-spread normal binned (tails in the
    end bins). Post-processing: the noisy sum and public values only.

    >>> v, f = fit_quality("tracker_step", np.array([0, 0, 20.0, 0, 0, 0, 0]), 20.0, 1.0)
    >>> round(float(v[0]), 2), float(v[1]) < 0.05, f > 0.99  # all 20 in [-2, -1.5]: its middle
    (-1.75, True, True)
    >>> v, f = fit_quality("tracker_step", np.array([0, 0, 20.0, 0, 0, 0, 0]), 20.0, 1e6)
    >>> round(float(v[0]), 2), round(float(v[1]), 2), round(f, 6)  # noise only: the prior (its
    ... # sd 1 truncated to the grid)
    (-1.28, 0.82, 0.0)
    """
    edges, sd, (m0, s0) = _SCALES[name]
    grid = np.linspace(edges[0], edges[-1], _GRID)
    cdf = ndtr((edges[None, 1:-1] - grid[:, None]) / sd)
    p = np.diff(np.column_stack([np.zeros(_GRID), cdf, np.ones(_GRID)]), axis=1)
    h = max(float(n_weight), 1.0) * p
    z = np.asarray(noisy_sum, dtype=np.float64)
    ll = (h @ z - 0.5 * (h * h).sum(axis=1)) / sigma ** 2 - 0.5 * ((grid - m0) / s0) ** 2
    post = np.exp(ll - ll.max())
    post /= post.sum()
    mu = float(post @ grid)
    var = float(post @ (grid - mu) ** 2)
    prior = np.exp(-0.5 * ((grid - m0) / s0) ** 2)
    prior /= prior.sum()
    return np.array([mu, math.sqrt(var)]), 1.0 - var / float(prior @ (grid - prior @ grid) ** 2)


def participant_tracker(marginals: Mapping[str, np.ndarray], rng: np.random.Generator
                        ) -> dict[str, np.ndarray]:
    """One synthetic participant's tracker centres, each drawn from the released posterior
    ``N(mu, sd)`` (``[mu, sd]`` of :func:`fit_quality`; sd 0 for a marginal not measured), as
    ``{name: [centre, 0]}`` for :func:`track`. Post-processing of the release.

    At the small ``n`` of eye-tracking studies a tracker marginal is often barely measured
    (VR at epsilon 3: noise sd 7 a bin against 6 participants) and its posterior mean sits at
    the prior's centre, 0.05 deg, far from most trackers; every synthetic participant there is
    the same tracker, which a discriminator of short windows reads. Drawn from the posterior,
    the synthetic participants cover what the release cannot rule out.

    >>> m = {"tracker_step": np.array([-1.3, 0.5]), "tracker_smooth": np.array([0.0, 0.0]),
    ...      "tracker_missing": np.array([-4.6, 0.0]), "tracker_tail": np.array([0.15, 0.0])}
    >>> t = participant_tracker(m, np.random.default_rng(0))
    >>> float(t["tracker_smooth"][0]), float(t["tracker_step"][0]) != -1.3
    (0.0, True)
    """
    # clipped at 2 sd and to the bins' range (the posterior's grid): no synthetic tracker
    # beyond what the release's posterior holds
    z = np.clip(rng.standard_normal(len(QUALITY)), -2.0, 2.0)
    return {m: np.array([float(np.clip(marginals[m][0] + marginals[m][1] * g,
                                       _SCALES[m][0][0], _SCALES[m][0][-1])), 0.0])
            for m, g in zip(QUALITY, z, strict=True)}


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
    vals = {m: float(marginals[m][0]) + _SCALES[m][1] * rng.normal() for m in QUALITY}
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
