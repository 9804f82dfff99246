# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's label contrasts: how the public label values differ in how widely
people look and how horizontal their saccades are, measured within participants.

The pooled spatial marginals (:data:`~._participant_synth_model.POOLED`) give every public key
the same density, so a classifier trained on the release cannot tell its labels apart by
position or spread. This module adds one measurement, ``label_contrast``, and its use
(proof: ``docs/privacy/participant-synth.md#label-contrast``):

* **statistic** (:func:`participant_contrast`): per participant and key, three features of
  its recordings under that key (:data:`CONTRAST_FEATURES`: the log sd of x and of y in box
  units, the logit of the share of saccades within 30 degrees of the horizontal), minus the
  participant's own average over its keys (a *within-participant* contrast: the large
  between-participant differences cancel), divided by a public clip (:data:`CONTRAST_CLIP`),
  clipped to [-1, 1], divided by ``sqrt(3)`` (so each key's vector has L2 norm at most 1) and
  weighted by ``1 / L_p`` (``L_p`` the participant's keys). A participant with one key
  contributes zeros; with ``L_p >= 2`` its concatenated vector has
  ``||u||^2 <= L_p / L_p^2 <= 1/2``, so two participants' vectors differ by at most
  ``sqrt(2)`` in L2: the sensitivity of every other marginal, and the noise is the same
  ``sqrt(2) / sqrt(2 rho share)``.
* **share** (:func:`contrast_share`): a public rule of ``n``, ``rho`` and the number of keys
  ``L``: :data:`SHARE` of rho when there are several keys and the share would let the
  measurement move a key's contrast (its public precision weight at least :data:`MIN_WEIGHT`),
  else 0; the other marginals' shares are scaled by ``1 - share`` (:func:`resolve_split`).
* **estimate** (:func:`shrink_contrast`, post-processing): the noisy sums centred over the keys
  (the true ones sum to about zero), divided by the public ``n / L``, shrunk toward zero (the
  pooled model) by positive-part James-Stein capped by the public precision weight
  ``tau^2 / (tau^2 + s^2)``, as the other marginals are.
* **use** (:func:`apply_contrast`, post-processing): each key's model is the pooled one with
  its sds times ``exp`` of its log-sd contrasts (``spread_x``, ``spread_y`` rewritten), its
  density the pooled density times the ratio of the key's Gaussian to the pooled one, and its
  saccade directions tilted so that the logit of their horizontal share moves by its contrast.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from gazeprivacy.mechanisms.samples._participant_synth_centre import resolve_centre

__all__ = [
    "CONTRAST",
    "CONTRAST_CLIP",
    "CONTRAST_FEATURES",
    "CONTRAST_TAU",
    "MIN_WEIGHT",
    "SHARE",
    "apply_contrast",
    "check_share",
    "contrast_share",
    "measure_contrast",
    "participant_contrast",
    "resolve_params",
    "resolve_split",
    "shrink_contrast",
]

#: The name of the measurement (a key of the per-key sums and of the noisy measurements).
CONTRAST = "label_contrast"
#: The features contrasted between a participant's keys: the log sd of x and of y (box units)
#: and the logit of the share of saccades within 30 degrees of the horizontal; and the public
#: clip of each contrast (a factor e^0.3 on the sds, 0.5 on the logit).
CONTRAST_FEATURES = ("log_sd_x", "log_sd_y", "horizontal_logit")
CONTRAST_CLIP = np.array([0.3, 0.3, 0.5])
#: The public prior sd of one clipped, scaled contrast coordinate (half the clip).
CONTRAST_TAU = 0.5 / math.sqrt(len(CONTRAST_FEATURES))
#: The share of rho the rule spends, and the smallest public precision weight for spending it.
SHARE = 0.3
MIN_WEIGHT = 0.2
_MIN_SD = 1e-3  # box units: the log sd of a key with (almost) constant samples


def _horizontal(n_bins: int) -> np.ndarray:
    """The direction bins (over (-pi, pi]) whose centre is within 30 degrees of the
    horizontal."""
    centres = -math.pi + (np.arange(n_bins) + 0.5) * 2 * math.pi / n_bins
    return np.abs(np.cos(centres)) > math.cos(math.radians(30.0)) - 1e-9


def _features(parts: Mapping[str, np.ndarray]) -> np.ndarray:
    """A key's :data:`CONTRAST_FEATURES` from its raw parts (NaN where it has nothing: no
    valid sample, no saccade): the recording-sum rows ``(n, sum fx, sum fy, sum (fx - 1/2)^2,
    sum (fy - 1/2)^2)`` and the saccade direction counts."""
    rows = np.asarray(parts["recording_sums"], dtype=np.float64).reshape(-1, 5)
    n, sx, sy, qx, qy = (math.fsum(rows[:, j]) for j in range(5))
    out = np.full(len(CONTRAST_FEATURES), np.nan)
    if n > 0:
        mx, my = sx / n, sy / n
        out[0] = math.log(max(math.sqrt(max(qx / n - (mx - 0.5) ** 2, 0.0)), _MIN_SD))
        out[1] = math.log(max(math.sqrt(max(qy / n - (my - 0.5) ** 2, 0.0)), _MIN_SD))
    dirs = np.asarray(parts.get("saccade_direction", ()), dtype=np.float64)
    if dirs.sum() > 0:
        h = float(dirs[_horizontal(dirs.size)].sum() + 0.5) / float(dirs.sum() + 1.0)
        out[2] = math.log(h / (1.0 - h))
    return out


def participant_contrast(parts: Mapping[Any, Mapping[str, np.ndarray]]
                         ) -> dict[Any, np.ndarray]:
    """One participant's bounded contrast per key, from each key's raw parts: per feature,
    the key's value minus the participant's average over its keys that have it, over the
    feature's clip, clipped to [-1, 1], times ``1 / (L_p sqrt(d))``; zero where the key lacks
    the feature or fewer than two keys have it.

    Key ``a``: sd 0.1 in x; key ``b``: sd 0.2 (a log contrast of +-0.35, clipped to 0.3):

    >>> r = {("a",): {"recording_sums": np.array([[100.0, 50, 50, 1, 1]])},
    ...      ("b",): {"recording_sums": np.array([[100.0, 50, 50, 4, 1]])}}
    >>> {k[0]: v.round(3).tolist() for k, v in participant_contrast(r).items()}
    {'a': [-0.289, 0.0, 0.0], 'b': [0.289, 0.0, 0.0]}
    """
    keys = sorted(parts)
    feats = np.stack([_features(parts[k]) for k in keys])
    have = np.isfinite(feats)
    enough = have.sum(axis=0) >= 2
    mean = np.where(enough, np.nansum(np.where(have, feats, 0.0), axis=0)
                    / np.maximum(have.sum(axis=0), 1), 0.0)
    z = np.clip((feats - mean) / CONTRAST_CLIP, -1.0, 1.0)
    z = np.where(have & enough, z, 0.0) / (len(keys) * math.sqrt(len(CONTRAST_FEATURES)))
    return {k: z[i] for i, k in enumerate(keys)}


def _weight(n: int, rho: float, n_keys: int, share: float) -> float:
    """The public precision weight of one key's contrast coordinate at ``share``."""
    noise = (n / n_keys) ** 2 * 2.0 * rho * share / 2.0  # 1 / s^2, s = sigma / (n / L)
    return CONTRAST_TAU ** 2 / (CONTRAST_TAU ** 2 + 1.0 / max(noise, 1e-300))


def contrast_share(n: int, rho: float, n_keys: int) -> float:
    """The share of rho the label contrast gets (public rule: :data:`SHARE` when there are
    several keys and the measurement's precision weight ``tau^2 / (tau^2 + s^2)`` at that share
    is at least :data:`MIN_WEIGHT`, ``s = sigma / (n / L)``, ``sigma = 1 / sqrt(rho SHARE)``;
    else 0).

    >>> contrast_share(14, 1.54, 3), contrast_share(14, 0.185, 3), contrast_share(14, 1.54, 1)
    (0.3, 0.0, 0.0)
    """
    if n_keys < 2 or _weight(n, rho, n_keys, SHARE) < MIN_WEIGHT:
        return 0.0
    return SHARE


def resolve_split(split: Any, n: int, rho: float, n_keys: int) -> Any:
    """``split`` with its ``label_contrast`` share set by :func:`contrast_share` (when None)
    and every other share scaled by ``1 - share`` (the total stays at most 1). A split whose
    ``label_contrast`` is a number is returned as it is."""
    if split.label_contrast is not None:
        return split
    s = contrast_share(n, rho, n_keys)
    scaled = {m: v * (1.0 - s) for m, v in split.shares().items() if m != CONTRAST}
    return replace(split, label_contrast=s, **scaled)


def shrink_contrast(noisy: np.ndarray, n: int, sigma: float) -> tuple[np.ndarray, float]:
    """The released contrasts (keys x features, in feature units) from the noisy sums
    (keys x features) and the shrinkage factor. Post-processing of the noisy measurement and
    public values.

    >>> c, f = shrink_contrast(np.array([[1.0, 0, 0], [-1.0, 0, 0]]), 20, 1e-9)
    >>> c.round(3).tolist()[0], round(f, 3)
    ([0.052, 0.0, 0.0], 1.0)
    """
    z = np.asarray(noisy, dtype=np.float64)
    n_keys = z.shape[0]
    delta = (z - z.mean(axis=0)) / (n / n_keys)
    s2 = (sigma / (n / n_keys)) ** 2
    p = delta.shape[1] * (n_keys - 1)
    dist2 = float(np.sum(delta ** 2))
    c = max(0.0, 1.0 - (p - 2) * s2 / dist2) if dist2 > 0 else 0.0
    c = min(c, CONTRAST_TAU ** 2 / (CONTRAST_TAU ** 2 + s2))
    return c * delta * math.sqrt(len(CONTRAST_FEATURES)) * CONTRAST_CLIP, c


def apply_contrast(models: Mapping[Any, Any], keys: Sequence[Any], contrast: np.ndarray,
                   bins: Any) -> dict[Any, Any]:
    """Each key's model with its spatial moments moved by its row of ``contrast`` and its
    density re-centred on them, its centre share moved with them
    (:func:`~._participant_synth_centre.key_share`; post-processing of the released model)."""
    from gazeprivacy.mechanisms.samples._participant_synth_centre import CENTRE, key_share
    from gazeprivacy.mechanisms.samples._participant_synth_model import (
        SPREAD_CLIP,
        disc_mass,
        gaussian_cells,
        moments_gaussian,
    )

    out = dict(models)
    for i, k in enumerate(keys):
        marg = dict(models[k].marginals)
        (mx, my), (sx, sy) = moments_gaussian(marg)
        dsx, dsy, dhor = contrast[i]
        marg["saccade_direction"] = _tilted(np.asarray(marg["saccade_direction"]), dhor)
        mean, sd = (mx, my), (sx * math.exp(dsx), sy * math.exp(dsy))
        for a, m, s in (("x", mean[0], sd[0]), ("y", mean[1], sd[1])):
            marg[f"mean_{a}"] = np.array([m, 1.0 - m])
            v = min(s ** 2 + (m - 0.5) ** 2, SPREAD_CLIP) / SPREAD_CLIP
            marg[f"spread_{a}"] = np.array([v, 1.0 - v])
        mean, sd = moments_gaussian(marg)
        ratio = gaussian_cells(bins.grid, mean, sd) / gaussian_cells(bins.grid, (mx, my),
                                                                      (sx, sy))
        d = np.asarray(marg["density"]) * ratio
        marg["density"] = d / d.sum()
        if CENTRE in marg:  # the population's central excess on this key's Gaussian
            v = key_share(float(marg[CENTRE][0]), disc_mass((mx, my), (sx, sy)),
                          disc_mass(mean, sd))
            marg[CENTRE] = np.array([v, 1.0 - v])
        out[k] = replace(models[k], marginals=marg)
    return out


def _tilted(p: np.ndarray, logit: float) -> np.ndarray:
    """The direction histogram ``p`` with the logit of its horizontal share moved by ``logit``
    (the horizontal bins and the others each scaled by one factor).

    >>> _tilted(np.full(12, 1 / 12), math.log(2)).round(3).tolist()[:3]
    [0.125, 0.062, 0.062]
    """
    hor = _horizontal(p.size)
    h = float(p[hor].sum())
    if not 0.0 < h < 1.0:
        return p
    h_new = 1.0 / (1.0 + (1.0 - h) / h * math.exp(-logit))
    return np.where(hor, p * h_new / h, p * (1.0 - h_new) / (1.0 - h))


def check_share(value: float | None) -> float:
    """Validate a split's ``label_contrast`` (None: the public rule) and return it (0 for
    None) for the split's total."""
    from gazeprivacy.exceptions import InvalidParameterError

    if value is None:
        return 0.0
    if not (isinstance(value, int | float) and 0.0 <= value <= 1.0):
        raise InvalidParameterError(f"split.label_contrast must be in [0, 1] or None (the "
                                    f"public rule), got {value!r}")
    return float(value)


def resolve_params(params: Any, n: int, n_keys: int) -> Any:
    """``params`` with the centre share's rule (:func:`~._participant_synth_centre.
    resolve_centre`), then :func:`resolve_split`, applied to its split (idempotent)."""
    split = resolve_centre(params.split, n, params.rho)
    return replace(params, split=resolve_split(split, n, params.rho, n_keys))


def measure_contrast(sums: Mapping[Any, Mapping[str, np.ndarray]], keys: Sequence[Any],
                     sigma: float | None, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """The noisy label contrast: every key's sum stacked (keys x features) plus Gaussian noise
    of sd ``sigma`` drawn once (nothing with one key or share 0)."""
    if sigma is None or len(keys) < 2:
        return {}
    stacked = np.stack([np.asarray(sums[k][CONTRAST], dtype=np.float64) for k in keys])
    # proof: docs/privacy/participant-synth.md#label-contrast
    return {CONTRAST: stacked + rng.normal(0.0, sigma, size=stacked.shape)}
