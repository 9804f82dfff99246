# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's tracker: measured signal quality (the rendering:
:mod:`._participant_synth_track`).

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
posterior mean, the prior's 0.05 deg when nothing is measured), and
:mod:`._participant_synth_track` applies that tracker to each of its simulated recordings.

A **declared tracker** (:class:`DeclaredTracker`) replaces the four measurements: values the
user declares public because they come from no participant (an experimenter's own pilot or
validation recording, read with :meth:`DeclaredTracker.from_recordings`, the same public
function a participant's values are read with). Nothing of the tracker is then measured; its
values are the release's centres (sd 0), rendered as above.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.special import expit, logit, ndtr

from gazeprivacy.data.recording import Recording
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.guarantees import ColumnStatus, Status

__all__ = ["QUALITY", "QUALITY_PARTS", "QUALITY_PRIOR", "QUALITY_SIZES", "QUALITY_SPREAD",
           "DeclaredTracker", "fit_quality", "mask_column", "participant_tracker",
           "quality_parts", "quality_statistics", "tracker_values"]

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
#: The public sd of each tracker value on its scale (the population's in the fit; the
#: rendering draws each recording's values with it around its participant's centre).
QUALITY_SPREAD = {m: e[1] for m, e in _SCALES.items()}
#: The data-free values (a marginal not measured; ``[centre, sd]``, sd 0: every synthetic
#: participant the same): a 0.05 deg median step (the simulator's tracker), white noise, no
#: missing samples to speak of.
QUALITY_PRIOR = {"tracker_step": np.array([math.log10(0.05), 0.0]),
                 "tracker_smooth": np.array([-0.5, 0.0]),
                 "tracker_missing": np.array([logit(_MISS_LO), 0.0]),
                 "tracker_tail": np.array([_RAYLEIGH_TAIL, 0.0])}
_GRID = 201  # the posterior's grid of centres over each scale's range


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
    participants : frozenset of str, optional
        The participant ids the values were read from (:meth:`from_recordings` sets them): an
        input that holds one of them is refused (the client phase of participant-synth).
        Kept in memory only, never written to the record.

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
    participants: frozenset[str] = field(default=frozenset(), repr=False)

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
                   shoulder=10.0 ** v["tracker_tail"], source=source,
                   participants=frozenset(r.participant for r in recordings))

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
