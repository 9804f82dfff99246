# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Kaleido: (epsilon, w, r)-DP for gaze streams (w-event privacy).

Li, Roy Chowdhury, Fawaz, Kim. Kaleido: real-time privacy control for eye-tracking systems.
USENIX Security 2020; re-implemented as in David-John, Butler, Jain, Privacy-preserving datasets
of eye-tracking samples with applications in XR, IEEE TVCG 2023, section 4.3.4 and supplement
section 2.3 (pseudocode as digested in SPEC section 3).

Two streams are neighbours when they differ only within ``w`` consecutive samples, each by at
most ``r`` (Euclidean distance in the (x, y) degree plane). Per sample: if fewer than ``t_skip``
samples passed since the last tested sample, re-publish the last point; else test
``d(g_i, last) <= l_thresh + Lap(scale)`` (budget ``eps_test = eps / (h ceil(w / t_skip))``) and
re-publish on success; otherwise publish ``PlanarLaplace(g_i, eps_pub / r)`` with
``eps_pub = (eps - eps / h - sum of eps_pub over the previous w - 1 samples) / 2``. The first
sample is always published. Any ``w`` consecutive samples spend at most ``eps`` (tested).

Deviations. *Sound mode* (default) draws the test noise at scale ``r / eps_test``: the distance
changes by up to ``r`` between neighbours, so the printed ``1 / eps_test`` is ``eps_test``-DP
only for ``r <= 1``. *Paper mode* keeps ``1 / eps_test`` and flags the testing step. The test
distance is Euclidean in degrees for screens and great-circle for VR geometry (``"auto"``); both
are bounded by the Euclidean (x, y) distance, so the sensitivity ``r`` holds for either. Published
points outside the geometry are clamped (post-processing). Missing samples stay NaN and spend
nothing, or with ``missing="hold"`` re-publish the last point; under both the missing-sample mask
is public (hold mode publishes only at valid samples, which shows where the gaps are).
The sequential loop runs compiled (``_kaleido_loop.c``) when that optional extension is built,
bit-identical to the Python loop kept here (``GAZEPRIVACY_PURE_PYTHON=1`` forces it).
See docs/privacy/kaleido.md.
"""

from gazeprivacy.mechanisms.samples.kaleido.batch import (
    SPEC,
    kaleido,
    kaleido_arrays,
    kaleido_dataset,
    shape_guarantee,
)
from gazeprivacy.mechanisms.samples.kaleido.loop import _LOOP as _LOOP
from gazeprivacy.mechanisms.samples.kaleido.loop import _haversine_deg as _haversine_deg
from gazeprivacy.mechanisms.samples.kaleido.loop import (
    _tested_with_missing as _tested_with_missing,
)
from gazeprivacy.mechanisms.samples.kaleido.params import (
    Distance,
    KaleidoParams,
    Missing,
    guarantee,
)
from gazeprivacy.mechanisms.samples.kaleido.stream import KaleidoStream

__all__ = [
    "SPEC",
    "Distance",
    "KaleidoParams",
    "KaleidoStream",
    "Missing",
    "guarantee",
    "kaleido",
    "kaleido_arrays",
    "kaleido_dataset",
    "shape_guarantee",
]
