# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The report's vocabulary: evaluations, threats, metrics and baselines in the reader's terms.

The runner names things for machines (``reid:aware-rf:seed004``, ``fixation_duration_w1_s``,
``baseline-centre-gaussian``); a reader needs "re-identification by a mechanism-aware random
forest, trained and tested on the release", "fixation durations off by 120 ms" and "points
around the screen centre". Threat models are named by what they assume (which side the attacker
trains on and which it tests on), never by the paper id the code uses. Unknown names pass
through unchanged, so a new evaluation still appears.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

__all__ = ["BASELINE_WORDS", "METRIC_WORDS", "THREAT_WORDS", "baseline_words",
           "evaluation_words", "metric_value", "metric_words"]

#: threat model name (gazeprivacy.attacks.threat) -> what the attacker is assumed to have
THREAT_WORDS: Mapping[str, str] = {
    "seed000": "trained on raw gaze, tested on the release",
    "seed001": "trained on the release, tested on raw gaze",
    "seed004": "trained and tested on the release",
    "seed004-clean": "trained on raw gaze, tested on the release",
    "raw": "trained and tested on raw gaze",
    "train-original": "trained on raw gaze, tested on the release",
    "train-protected": "trained on the release, tested on raw gaze",
}

_CLASSIFIERS: Mapping[str, str] = {
    "rbfn": "an RBF network", "aware-rf": "a mechanism-aware random forest",
    "deep": "a deep network", "knn": "k-nearest neighbours", "svm": "an SVM",
    "rf": "a random forest", "dt": "a decision tree", "seq": "a sequence model",
    "gru": "a recurrent network (GRU)",
}

#: baseline name -> what it releases, in a few words
BASELINE_WORDS: Mapping[str, str] = {
    "baseline-centre": "the screen centre",
    "baseline-uniform": "uniform random points",
    "baseline-centre-gaussian": "points around the screen centre",
    "baseline-prior": "simulated gaze",
    "baseline-prior-chunks": "simulated gaze (new traits every 5 s)",
    "baseline-centre-mask": "the screen centre with the input's gaps",
}

#: metric -> (phrase before the value, unit after it, factor applied to the value, what the
#: value is); phrases read "<phrase> <value><unit>", e.g. "fixation durations off by 120 ms"
METRIC_WORDS: Mapping[str, tuple[str, str, float, str]] = {
    "rmse": ("gaze positions off by", "&deg;", 1.0, "root-mean-square distance; lower is better"),
    "rss_distance": ("scan paths apart by", "&deg;", 1.0,
                     "RSS distance of Ren, Fan et al.; lower is better"),
    "density_error": ("heatmaps apart by", " bits", 1.0,
                      "Jensen-Shannon divergence of the gaze heatmaps; 0 = identical, lower is "
                      "better"),
    "fixation_duration_w1_s": ("fixation durations off by", " ms", 1000.0,
                               "Wasserstein-1 distance to the raw data's; lower is better"),
    "saccade_amplitude_w1_deg": ("saccade amplitudes off by", "&deg;", 1.0,
                                 "Wasserstein-1 distance to the raw data's; lower is better"),
    "rmse_to_raw_fit_deg_s": ("saccade peak velocities off the raw main sequence by",
                              " deg/s", 1.0, "root mean square; lower is better"),
    "discriminator_auc": ("told apart from real gaze with AUC", "", 1.0,
                          "0.5 = indistinguishable, 1 = always told apart; lower is better"),
    "error_deg": ("predicts gaze off by", "&deg;", 1.0, "mean angular error; lower is better"),
    "accuracy": ("accuracy", " %", 100.0, "share correct; higher is better"),
    "f1_macro": ("macro F1", "", 1.0, "0-1; higher is better"),
}


#: evaluations whose measures need no qualifier beside the metric's words
_PLAIN_EVALUATIONS = frozenset({"fidelity", "realism:events", "realism:discriminator",
                                "realism:main-sequence"})


def _threat(name: str) -> str:
    return THREAT_WORDS.get(name, name.replace("-", " "))


def evaluation_words(evaluation: str) -> str:
    """An evaluation's name in words (plain text, not escaped).

    >>> evaluation_words("reid:aware-rf:seed004")
    're-identification by a mechanism-aware random forest (trained and tested on the release)'
    >>> evaluation_words("stimulus:tstr-rf")
    'classifying the stimulus (trained on the release, tested on raw gaze)'
    """
    parts = evaluation.split(":")
    if parts[0] == "reid" and len(parts) >= 3:
        clf = _CLASSIFIERS.get(parts[1], parts[1])
        seg = next((p[3:] for p in parts[2:-1] if p.startswith("seg")), None)
        return (f"re-identification by {clf}" + (f" on {seg} segments" if seg else "")
                + f" ({_threat(parts[-1])})")
    if parts[0] == "linkage" and len(parts) >= 4:
        k = parts[2][1:] if parts[2].startswith("k") else parts[2]
        return (f"linkage on {parts[1].replace('+', ', ')} with gaze, k = {k} "
                f"({_threat(parts[-1])})")
    if parts[0] == "realism" and len(parts) == 2:
        return {"discriminator": "telling the release from real gaze",
                "events": "fixations and saccades", "main-sequence": "saccade main sequence"
                }.get(parts[1], parts[1])
    if parts[0] == "membership" and len(parts) >= 2:
        return f"membership inference ({parts[1].replace('-', ' ')})"
    if len(parts) == 2 and parts[1].startswith("tstr"):
        return f"classifying the {parts[0]} ({_threat('train-protected')})"
    if len(parts) == 3 and (parts[1] in _CLASSIFIERS or parts[2] in THREAT_WORDS):
        what = {"reid": "re-identification", "gaze-prediction": "gaze prediction"}.get(
            parts[0], f"classifying the {parts[0]}")
        return f"{what} by {_CLASSIFIERS.get(parts[1], parts[1])} ({_threat(parts[2])})"
    if evaluation == "fidelity":
        return "fidelity to the original gaze"
    if parts[0] == "frontier" and len(parts) >= 2:
        what = {"density": "heatmap", "density-coarse": "coarse-grid heatmap"}.get(
            parts[1], parts[1].replace("-", " "))
        return what + "".join(f" per {p}" for p in parts[2:])
    return evaluation


def baseline_words(name: str) -> str:
    """A data-free baseline in a few words (``name`` unchanged when unknown)."""
    return BASELINE_WORDS.get(name, name)


def metric_value(metric: str, value: float) -> str:
    """``value`` in the metric's reader unit (HTML), e.g. ``120 ms`` for 0.12 s."""
    _, unit, factor, _ = METRIC_WORDS.get(metric, ("", "", 1.0, ""))
    v = value * factor
    text = f"{v:.0f}" if unit in (" ms", " %") and abs(v) >= 10 else f"{v:.3g}"
    return text + unit


def metric_words(metric: str, evaluation: str, value: float,
                 chance: float | None = None) -> str:
    """One measure in the reader's terms (HTML), with its unit, what it is and, for accuracy,
    of what and against which chance.

    >>> metric_words("fixation_duration_w1_s", "realism:events", 0.123)
    'fixation durations off by 123 ms'
    >>> metric_words("accuracy", "stimulus:rf:train-original", 0.42, chance=0.1)
    'classifying the stimulus by a random forest (trained on raw gaze, tested on the release): \
42 % correct (chance 10 %)'
    """
    if metric not in METRIC_WORDS:
        return f"{html.escape(metric.replace('_', ' '))} {value:.3g}"
    phrase = METRIC_WORDS[metric][0]
    if metric in ("accuracy", "f1_macro"):
        what = html.escape(evaluation_words(evaluation))
        val = (f"{metric_value(metric, value)} correct" if metric == "accuracy"
               else f"macro F1 {value:.2f}")
        ch = "" if chance is None else f" (chance {metric_value(metric, chance)})" \
            if metric == "accuracy" else f" (chance {chance:.2f})"
        return f"{what}: {val}{ch}"
    text = f"{phrase} {metric_value(metric, value)}"
    if evaluation not in _PLAIN_EVALUATIONS:
        text += f" [{html.escape(evaluation_words(evaluation))}]"
    return text
