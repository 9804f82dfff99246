# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's tracker noise shape: heavy-tailed bursts inside the simulated saccades.

Real trackers' sample-to-sample steps are heavy-tailed (the held-out recordings' step p90 is
4 to 10 times their median; Gaussian noise on the simulated signal gives 2 to 4), and a
discriminator tells a release from raw windows on the speed percentiles and acceleration. A
log-normal scale over the whole recording made the tails, but its bursts inside fixations
raised the event detector's adaptive threshold (and split fixations where they passed it):
MPIIDPEye's fixation-duration W1 went from 0.22 to 0.64 s. :func:`saccade_envelope` puts the
bursts only where the simulator made a saccade and in the :data:`AFTER_S` after it (where a
tracker's post-saccadic ringing is): the noise there is scaled by a log-normal envelope
(public shape: log sd :data:`ENVELOPE_LOG_SD`, correlation time :data:`ENVELOPE_S`, clipped at
:data:`ENVELOPE_CLIP` sds; only its values above 1), everywhere else it is the plain noise.
Post-processing: it reads the simulator's ground-truth codes and public constants only
(``docs/privacy/participant-synth.md#generate``).
"""

from __future__ import annotations

import numpy as np
from scipy.ndimage import gaussian_filter1d

from gazeprivacy.data.simulate import EVENT_CODES

__all__ = ["AFTER_S", "ENVELOPE_CLIP", "ENVELOPE_LOG_SD", "ENVELOPE_S", "envelope",
           "saccade_envelope"]

#: the bursts' scale envelope (public): log sd, correlation time (s), clip (sds) of the log scale
ENVELOPE_LOG_SD, ENVELOPE_S, ENVELOPE_CLIP = 1.2, 0.3, 2.5
#: the bursts also cover this long after each simulated saccade (s; post-saccadic ringing)
AFTER_S = 0.03


def envelope(n: int, rate: float, rng: np.random.Generator) -> np.ndarray:
    """The scale ``exp(ENVELOPE_LOG_SD g)``, ``g`` a unit Gaussian process of
    ``ENVELOPE_S`` correlation time (circular), clipped to +-``ENVELOPE_CLIP``.

    >>> e = envelope(3000, 50.0, np.random.default_rng(0))
    >>> e.shape, bool(e.max() / e.min() > 10.0)
    ((3000,), True)
    """
    g = gaussian_filter1d(rng.standard_normal(n), ENVELOPE_S * rate, mode="wrap")
    g = np.clip(g / max(float(g.std()), 1e-12), -ENVELOPE_CLIP, ENVELOPE_CLIP)
    return np.exp(ENVELOPE_LOG_SD * g)


def saccade_envelope(code: np.ndarray, rate: float, rng: np.random.Generator) -> np.ndarray:
    """The noise's scale per sample: 1 outside the simulated saccades (``code``, the
    simulator's ground truth) and the ``AFTER_S`` after each; inside, :func:`envelope` raised
    to at least 1 (bursts, never a calmer noise).

    >>> code = np.zeros(400, dtype=np.int8); code[100:104] = EVENT_CODES["saccade"]
    >>> e = saccade_envelope(code, 100.0, np.random.default_rng(0))
    >>> bool((e[:100] == 1).all() and (e[107:] == 1).all() and (e[100:107] >= 1).all())
    True
    """
    env = np.maximum(envelope(code.size, rate, rng), 1.0)
    sac = code == EVENT_CODES["saccade"]
    burst = sac.copy()
    for j in range(1, max(1, round(AFTER_S * rate)) + 1):
        burst[j:] |= sac[:-j]
    return np.where(burst, env, 1.0)
