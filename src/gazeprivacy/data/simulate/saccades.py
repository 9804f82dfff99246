# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Saccade kinematics on the main sequence: durations (linear law, participant gain, jitter) and
the beta velocity profile whose peak follows the exponential peak-velocity law."""

from __future__ import annotations

import numpy as np
from scipy.special import betaln

from gazeprivacy.data.simulate.traits import ParticipantTraits

__all__: list[str] = []

# Main sequence (Bahill, Clark & Stark 1975; Collewijn et al. 1988): duration slope/intercept and
# the exponential peak-velocity law. The velocity gain of a participant scales both.
_DURATION_SLOPE_S_PER_DEG = 0.0022
_DURATION_INTERCEPT_S = 0.021
_V_MAX_DEG_S = 600.0
_C_DEG = 12.0


def _saccade_durations(amp: np.ndarray, traits: ParticipantTraits,
                       rng: np.random.Generator) -> np.ndarray:
    law = _DURATION_SLOPE_S_PER_DEG * amp + _DURATION_INTERCEPT_S
    return law * np.exp(rng.normal(0.0, 0.08, size=amp.shape)) / traits.saccade_velocity_gain


_A_GRID = np.linspace(1.2, 12.0, 256)


def _peak_to_mean(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Peak of the Beta(a, b) density (= peak velocity / mean velocity of the profile)."""
    mode = (a - 1.0) / (a + b - 2.0)
    return np.exp((a - 1.0) * np.log(mode) + (b - 1.0) * np.log1p(-mode) - betaln(a, b))


def _profile_shape(amp: np.ndarray, skew: float) -> tuple[np.ndarray, np.ndarray]:
    """Beta parameters whose peak-to-mean ratio makes the peak velocity follow the exponential
    main sequence for the nominal (linear-law) duration, clipped to the family's range."""
    amp = np.maximum(amp, 1e-3)
    law_d = _DURATION_SLOPE_S_PER_DEG * amp + _DURATION_INTERCEPT_S
    q_target = _V_MAX_DEG_S * -np.expm1(-amp / _C_DEG) * law_d / amp
    q_grid = _peak_to_mean(_A_GRID, skew * _A_GRID)
    a = np.interp(q_target, q_grid, _A_GRID)
    return a, skew * a
