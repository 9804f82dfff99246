# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Declared per-feature ranges of the 52 window features: public bounds for sound mode.

SPEC section 5: sound-mode mechanisms never read ranges from the data. The user declares
``[lo_f, hi_f]`` per feature; values are clipped into it and the sensitivities follow from the
width (``Delta_1 = n (hi - lo)``, ``Delta_2 = sqrt(n) (hi - lo)``). :func:`default_ranges` builds
a catalogue from public quantities only (the window length, the detector settings and a few
declared physiological caps), each entry saying whether it is a *natural* bound (the feature
cannot leave it) or a *cap* (values beyond it are clipped, a public choice that biases outliers).

Natural bounds: ratios in [0, 1]; fixation rate <= 1 / min_fixation_s; blink rate <= 1 /
blink_min_s; mean blink duration in [0, blink_max_s]; variances of values in [lo, hi] are at most
(hi - lo)^2 / 4 (Popoviciu). Caps: saccade rate <= ``max_saccade_rate_hz`` (default 5 /s; the
detector's natural bound is half the sampling rate), saccade amplitude <= 8 large-saccade
thresholds, fixation duration <= ``max_fixation_s`` (2 s), within-fixation position variance <=
(large-saccade threshold)^2, saccades per fixation <= 5, pupil diameter in ``diameter_range``
(default [0, 200] eye-camera pixels; Steil et al. report [21.9, 133.9] on MPIIDPEye).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gazeprivacy._validation import check_positive
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.features.window_features import FEATURE_NAMES, WindowFeatureParams

__all__ = ["FeatureRange", "default_ranges", "ranges_array"]


@dataclass(frozen=True, slots=True)
class FeatureRange:
    """A declared range ``[lo, hi]`` of one feature; ``basis`` is "natural" or "cap"."""

    lo: float
    hi: float
    basis: str
    why: str

    def __post_init__(self) -> None:
        if not (np.isfinite(self.lo) and np.isfinite(self.hi) and self.hi > self.lo):
            raise InvalidParameterError(
                f"a feature range needs finite lo < hi, got [{self.lo}, {self.hi}]")

    @property
    def width(self) -> float:
        return self.hi - self.lo


def default_ranges(params: WindowFeatureParams, *, max_saccade_rate_hz: float = 5.0,
                   max_fixation_s: float = 2.0,
                   diameter_range: tuple[float, float] = (0.0, 200.0)
                   ) -> dict[str, FeatureRange]:
    """The default catalogue for the 52 features under ``params`` (public information only).

    Examples
    --------
    >>> r = default_ranges(WindowFeatureParams.mpiidpeye())
    >>> len(r), r["ratio_small_saccades"].hi, r["rate_fixations"].hi
    (52, 1, 10.0)
    """
    check_positive(max_saccade_rate_hz=max_saccade_rate_hz)
    check_positive(max_fixation_s=max_fixation_s)
    W = params.window_s
    sac = max_saccade_rate_hz
    amp = 8.0 * params.large_saccade_amplitude
    pos_var = params.large_saccade_amplitude**2
    d_lo, d_hi = diameter_range
    dw = d_hi - d_lo
    cap, nat = "cap", "natural"
    R = FeatureRange
    out: dict[str, FeatureRange] = {
        "rate_fixations": R(0, 1 / params.min_fixation_s, nat, "fixations last >= min_fixation_s"),
    }
    for name in ("rate_saccades", "rate_small_saccades", "rate_large_saccades",
                 "rate_positive_saccades", "rate_negative_saccades"):
        out[name] = R(0, sac, cap, "declared maximum saccade rate (per s)")
    out["ratio_saccades_fixations"] = R(0, 5, cap, "at most 5 saccades per fixation")
    for name in ("ratio_small_saccades", "ratio_large_saccades", "ratio_positive_saccades",
                 "ratio_negative_saccades"):
        out[name] = R(0, 1, nat, "a share of the saccades")
    out["mean_saccade_amplitude"] = R(0, amp, cap, "8 x the large-saccade threshold")
    out["var_saccade_amplitude"] = R(0, amp**2 / 4, cap, "Popoviciu bound of the amplitude cap")
    out["max_saccade_amplitude"] = R(0, amp, cap, "8 x the large-saccade threshold")
    out["mean_fixation_duration"] = R(0, max_fixation_s, cap, "declared longest fixation")
    out["var_fixation_duration"] = R(0, max_fixation_s**2 / 4, cap, "Popoviciu bound")
    out["max_fixation_duration"] = R(0, max_fixation_s, cap, "declared longest fixation")
    for ax in ("x", "y"):
        out[f"mean_var_{ax}"] = R(0, pos_var, cap, "within-fixation spread <= threshold^2")
        out[f"var_var_{ax}"] = R(0, pos_var**2 / 4, cap, "Popoviciu bound")
    out["mean_mean_diameter_fix"] = R(d_lo, d_hi, cap, "declared diameter range")
    out["var_mean_diameter_fix"] = R(0, dw**2 / 4, nat, "Popoviciu bound of the diameter range")
    out["mean_var_diameter_fix"] = R(0, dw**2 / 4, nat, "Popoviciu bound of the diameter range")
    out["var_var_diameter_fix"] = R(0, dw**4 / 64, nat, "Popoviciu bound of the variance range")
    out["mean_blink_duration"] = R(0, params.blink_max_s, nat, "blinks last <= blink_max_s")
    out["var_blink_duration"] = R(0, (params.blink_max_s - params.blink_min_s)**2 / 4, nat,
                                  "Popoviciu bound")
    out["blink_rate"] = R(0, 1 / max(params.blink_min_s, 1e-3), nat,
                          "blinks last >= blink_min_s")
    m = sac * W  # most saccades (hence words) in a window under the cap
    for n in (1, 2, 3, 4):
        v = 16.0**n
        out[f"nonzero_wb{n}"] = R(0, min(v, m), cap, "distinct words <= words in a window")
        out[f"max_wb{n}"] = R(0, m, cap, "a count <= words in a window")
        out[f"min_wb{n}"] = R(0, m / v, cap, "the smallest count <= the mean count")
        out[f"maxmin_wb{n}"] = R(0, m, cap, "difference of two counts <= words in a window")
        out[f"mean_wb{n}"] = R(0, m / v, cap, "words in a window / vocabulary size")
        out[f"var_wb{n}"] = R(0, m * m / v, cap, "E[c^2] <= (sum c)^2 / vocabulary size")
    assert tuple(out) == FEATURE_NAMES or set(out) == set(FEATURE_NAMES)
    return {name: out[name] for name in FEATURE_NAMES}


def ranges_array(ranges: dict[str, FeatureRange], names: tuple[str, ...] | list[str]
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``(lo, hi)`` arrays in the order of ``names``; the error names a missing feature."""
    missing = [n for n in names if n not in ranges]
    if missing:
        raise InvalidParameterError(f"no declared range for feature(s) {', '.join(missing)}; "
                                    "add them to the ranges mapping (see default_ranges)")
    return (np.array([ranges[n].lo for n in names], np.float64),
            np.array([ranges[n].hi for n in names], np.float64))
