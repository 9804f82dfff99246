# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Seed 000's printed numbers (Ren, Fan et al., DPGazeSynth, section 5).

Keys are ``(mechanism, r_frac, epsilon)`` with ``r_frac`` the protection radius as a share of
the smaller screen side (Kaleido ``r``; DPGazeSynth G = 60 pairs with r = 5 %, G = 30 with
r = 10 %, as the paper's Table 2 pairs them).

- Table 2: task classification accuracy (GazebaseVR, 3 tasks, random forest, train original /
  test protected); "Original Data" 98.5 %.
- Table 3: RMSE on 360_em and GazebaseVR. The paper prints eq. (15) as the root of a *sum* over
  points (no 1/N) and does not state the unit; the magnitudes (1e4 - 1e6) suggest pixels.
- Table 4: density error (JSD of 60 x 60 on-screen densities) on 360_em and GazebaseVR.
- Figure 2: re-identification F1 on 360_em (12 participants, RBFN, train raw / test protected).
  Its values are not printed in the text; only the qualitative statements below are.
"""

from __future__ import annotations

__all__ = ["EPSILONS", "FIG2_TEXT", "GRID_FOR_R", "R_FRACS", "TABLE2", "TABLE2_ORIGINAL",
           "TABLE3", "TABLE4"]

EPSILONS = (3.0, 2.0, 1.0)   # the order the paper's tables print them
R_FRACS = (0.05, 0.10)
GRID_FOR_R = {0.05: 60, 0.10: 30}  # DPGazeSynth grid paired with each radius (Table 2)


def _grid(text: str) -> dict[tuple[str, float, float], float]:
    """Rows ``r eps kaleido dpgazesynth`` -> {(mechanism, r, eps): value}."""
    out = {}
    for line in text.strip().splitlines():
        r, eps, kal, dpg = (float(v) for v in line.split())
        out[("kaleido", r, eps)] = kal
        out[("dpgazesynth", r, eps)] = dpg
    return out


#: Table 2, GazebaseVR task accuracy (fractions)
TABLE2_ORIGINAL = 0.985
TABLE2 = _grid("""
0.05 3 0.3217 0.6828
0.05 2 0.3257 0.6886
0.05 1 0.3404 0.6804
0.10 3 0.3295 0.6502
0.10 2 0.3280 0.6446
0.10 1 0.3391 0.6444
""")

#: Table 3, RMSE as printed (root of a sum, unit not stated), per paper dataset
TABLE3 = {
    "360_em": _grid("""
0.05 3 5.461e5 4.170e4
0.05 2 6.482e5 4.172e4
0.05 1 9.076e5 4.175e4
0.10 3 1.206e6 4.273e4
0.10 2 1.441e6 4.278e4
0.10 1 1.917e6 4.284e4
"""),
    "GazebaseVR": _grid("""
0.05 3 1.728e4 1.252e4
0.05 2 1.729e4 1.251e4
0.05 1 1.728e4 1.247e4
0.10 3 1.729e4 1.296e4
0.10 2 1.728e4 1.300e4
0.10 1 1.730e4 1.250e4
"""),
}

#: Table 4, density error (JSD), per paper dataset
TABLE4 = {
    "360_em": _grid("""
0.05 3 0.358 0.120
0.05 2 0.329 0.122
0.05 1 0.295 0.122
0.10 3 0.375 0.130
0.10 2 0.345 0.130
0.10 1 0.319 0.136
"""),
    "GazebaseVR": _grid("""
0.05 3 0.310 0.009
0.05 2 0.237 0.009
0.05 1 0.125 0.011
0.10 3 0.255 0.016
0.10 2 0.182 0.016
0.10 1 0.051 0.017
"""),
}

#: Figure 2 (no numbers printed): the paper's statements about it, section 5.2
FIG2_TEXT = (
    "raw gaze data facilitated nearly complete re-identification of users",
    "DPGazeSynth and Kaleido significantly diminished the attacker's classification accuracy",
    "DPGazeSynth's performance was almost on par with that of a random baseline",
    "when the parameter r was set to 1, Kaleido struggled to maintain the anonymity of all "
    "user identities",
)
