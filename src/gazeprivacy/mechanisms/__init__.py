# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Randomised releases. Every mechanism is listed here, in one place, in ``MECHANISMS``."""

from gazeprivacy._registry import Registry
from gazeprivacy.mechanisms import series as _series
from gazeprivacy.mechanisms.base import MechanismSpec, protect_recordings
from gazeprivacy.mechanisms.heatmaps import analytic_gaussian as hm_analytic_gaussian
from gazeprivacy.mechanisms.heatmaps import gaussian as hm_gaussian
from gazeprivacy.mechanisms.heatmaps import laplacian, noise_free, random_selection
from gazeprivacy.mechanisms.protect import build_params, protect
from gazeprivacy.mechanisms.samples import dpgazesynth, event_synth_pd, k_same_synth, kaleido

__all__ = ["MECHANISMS", "MechanismSpec", "build_params", "protect", "protect_recordings"]

MECHANISMS: Registry[MechanismSpec] = Registry("mechanism", {
    # name: spec  -- one line per mechanism, added by the module that implements it
    "dpgazesynth": dpgazesynth.SPEC,
    "kaleido": kaleido.SPEC,
    "k-same-synth": k_same_synth.SPEC,
    "event-synth-pd": event_synth_pd.SPEC,
    "heatmap-noise-free": noise_free.SPEC,
    "heatmap-rs1": random_selection.RS1_SPEC,
    "heatmap-rs2": random_selection.RS2_SPEC,
    "heatmap-gaussian": hm_gaussian.SPEC,
    "heatmap-laplace": laplacian.SPEC,
    "heatmap-analytic-gaussian": hm_analytic_gaussian.SPEC,
    "series-lpa": _series.LPA_SPEC,
    "series-fpa": _series.FPA_SPEC,
    "series-dct": _series.DCT_SPEC,
    "series-cfpa": _series.CFPA_SPEC,
    "series-dcfpa": _series.DCFPA_SPEC,
    "series-steil-exponential": _series.STEIL_SPEC,
})
