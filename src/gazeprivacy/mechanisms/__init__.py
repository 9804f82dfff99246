# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Randomised releases. Every mechanism is listed here, in one place, in ``MECHANISMS``."""

from gazeprivacy._registry import Registry
from gazeprivacy.mechanisms.base import MechanismSpec, protect_recordings
from gazeprivacy.mechanisms.heatmaps import analytic_gaussian as _hm_ag
from gazeprivacy.mechanisms.heatmaps import gaussian as _hm_gauss
from gazeprivacy.mechanisms.heatmaps import laplacian as _hm_lap
from gazeprivacy.mechanisms.heatmaps import noise_free as _hm_nf
from gazeprivacy.mechanisms.heatmaps import random_selection as _hm_rs

_LIU = "Liu et al., Differential privacy for eye-tracking data, ETRA 2019"

__all__ = ["MECHANISMS", "MechanismSpec", "protect_recordings"]

MECHANISMS: Registry[MechanismSpec] = Registry("mechanism", {
    # name: spec  -- one line per mechanism, added by the module that implements it
    "heatmap-noise-free": MechanismSpec(name="heatmap-noise-free", level="heatmap", params_type=_hm_nf.NoiseFreeParams, protect=_hm_nf.noise_free, summary="exact capped aggregate gaze map; NOT private (baseline)", citation=_LIU),  # noqa: E501
    "heatmap-rs1": MechanismSpec(name="heatmap-rs1", level="heatmap", params_type=_hm_rs.RS1Params, protect=_hm_rs.rs1, summary="aggregate of round(c n) maps drawn without replacement; NOT private (Thm 3.2)", citation=_LIU),  # noqa: E501
    "heatmap-rs2": MechanismSpec(name="heatmap-rs2", level="heatmap", params_type=_hm_rs.RS2Params, protect=_hm_rs.rs2, summary="aggregate of round(c n) maps drawn with replacement; NOT private (Thm 3.3)", citation=_LIU),  # noqa: E501
    "heatmap-gaussian": MechanismSpec(name="heatmap-gaussian", level="heatmap", params_type=_hm_gauss.GaussianParams, protect=_hm_gauss.gaussian, summary="(eps, delta)-DP aggregate, Gaussian noise of Theorem 3.4 (checked exactly)", citation=_LIU),  # noqa: E501
    "heatmap-laplace": MechanismSpec(name="heatmap-laplace", level="heatmap", params_type=_hm_lap.LaplacianParams, protect=_hm_lap.laplacian, summary="eps-DP aggregate, Laplace noise of Theorem 3.5", citation=_LIU),  # noqa: E501
    "heatmap-analytic-gaussian": MechanismSpec(name="heatmap-analytic-gaussian", level="heatmap", params_type=_hm_ag.AnalyticGaussianParams, protect=_hm_ag.analytic_gaussian, summary="(eps, delta)-DP aggregate, analytic Gaussian sigma (Balle & Wang 2018)", citation=_LIU + "; Balle & Wang, ICML 2018"),  # noqa: E501
})
