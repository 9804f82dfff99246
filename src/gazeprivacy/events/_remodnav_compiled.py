# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""REMoDNaV's classification of a segment, compiled (``_remodnav_loop.c``,
``_remodnav_filters.c``) when built.

The lean classifier (:func:`~gazeprivacy.events._remodnav_fast.lean_classifier_type`) calls
:func:`compiled_call` as its ``__call__``: below 200 Hz (no search for post-saccadic
oscillations, whose amplitude test needs whole event records) the saccades and the stretches
between them come from the compiled module in one call, the same events, bit for bit, as the
Python path (REMoDNaV's own ``__call__`` over the fast methods, kept as the fallback:
``tests/events/test_remodnav_compiled.py``). The recursion over the stretches between saccades
(per stretch its adaptive thresholds and peak search) was about 33,000 Python calls on the
protect benchmark, most of participant-synth's event detection; REMoDNaV has no compiled
variant to call instead. ``KERNEL`` is the module or None: not built (no C compiler at install
time) or ``GAZEPRIVACY_PURE_PYTHON=1``, as Kaleido's loop. :func:`compiled_thresholds` is the
lean classifier's adaptive thresholds (compiled, or
:func:`~gazeprivacy.events._remodnav_fast.adaptive_thresholds`), :func:`compiled_preproc` its
preprocessing (speeds, median-filtered speeds, the speed cap, acceleration) of NaN-free samples.
"""

from __future__ import annotations

import os
import types
from typing import Any

__all__ = ["KERNEL", "compiled_call", "compiled_preproc", "compiled_thresholds"]


def _compiled_kernel() -> Any:
    """The functions of the modules ``_remodnav_loop`` (the classification) and
    ``_remodnav_filters`` (the low-pass step and the preprocessing) in one namespace, or None
    (the Python path)."""
    if os.environ.get("GAZEPRIVACY_PURE_PYTHON", "") not in ("", "0"):
        return None
    try:
        from gazeprivacy.events import _remodnav_filters, _remodnav_loop
    except ImportError:
        return None
    return types.SimpleNamespace(**{k: v for m in (_remodnav_loop, _remodnav_filters)
                                    for k, v in vars(m).items() if not k.startswith("_")})


#: The compiled functions or None; read at every call, so tests switch it with monkeypatch.
KERNEL = _compiled_kernel()


def compiled_call(self: Any, data: Any, classify_isp: bool = True,
                  sort_events: bool = True) -> list[dict[str, Any]]:
    """``EyegazeClassifier.__call__`` of the lean classifier: its saccade records (id, label,
    bounds in seconds), sorted by onset, and the stretches left to the fixation-or-pursuit
    step appended to ``self.deferred``, from the compiled module when it is there, no PSO is
    looked for and the stretches are classified; REMoDNaV's own ``__call__`` otherwise."""
    import numpy as np

    if KERNEL is None or self.max_pso_dur or not classify_isp or not self.sac_context_winlen:
        from gazeprivacy.events._remodnav_fast import clf_module

        return clf_module().EyegazeClassifier.__call__(self, data, classify_isp, sort_events)
    saccades, stretches = KERNEL.classify(
        *(np.ascontiguousarray(data[k], dtype=np.float64) for k in ("med_vel", "vel", "x")),
        float(self.velthresh_startvel), float(self.noise_factor), float(self.max_sac_freq),
        self.min_intersac_dur, self.min_sac_dur, self.sac_context_winlen, self.min_fix_dur)
    self.deferred.extend(stretches)
    sr = self.sr
    events = [{"id": i, "label": "ISAC" if inner else "SACC", "start_time": a / sr,
               "end_time": b / sr} for i, inner, a, b in saccades]
    return sorted(events, key=lambda e: e["start_time"]) if sort_events else events


def compiled_thresholds(self: Any, vels: Any) -> tuple[Any, Any]:
    """``get_adaptive_saccade_velocity_velthresh`` of the lean classifier: the compiled
    thresholds when built, :func:`~gazeprivacy.events._remodnav_fast.adaptive_thresholds`
    otherwise (the same values)."""
    import numpy as np

    if KERNEL is None:
        from gazeprivacy.events._remodnav_fast import adaptive_thresholds

        return adaptive_thresholds(self, vels)
    return KERNEL.thresholds(np.ascontiguousarray(vels, dtype=np.float64),
                             float(self.velthresh_startvel), float(self.noise_factor))


def compiled_preproc(self: Any, data: Any, min_blink_duration: float = 0.02,
                     dilate_nan: float = 0.01, median_filter_length: float = 0.05,
                     savgol_length: float = 0.019, savgol_polyord: int = 2,
                     max_vel: float = 1000.0) -> Any:
    """The lean classifier's ``preproc``: :func:`~gazeprivacy.events._remodnav_fast.preproc`,
    compiled in one pass when built and there is nothing to dilate, no Savitzky-Golay filter
    (below 200 Hz), the spikes are filtered already, ``x`` and ``y`` have no NaN (SciPy's
    median filter of NaN is its own) and are longer than the median filter; the same
    structured array, bit for bit."""
    import numpy as np

    from gazeprivacy.events._remodnav_fast import preproc

    sr = self.sr
    args = (min_blink_duration, dilate_nan, median_filter_length, savgol_length,
            savgol_polyord, max_vel)
    if (KERNEL is None or int(dilate_nan * sr) or int(savgol_length * sr)
            or not getattr(self, "spikes_filtered", False)):
        return preproc(self, data, *args)
    x, y = (np.ascontiguousarray(data[k], dtype=np.float64) for k in ("x", "y"))
    med_len = int(median_filter_length * sr)
    # (SciPy reflects a window of more than twice the samples its own way; segments are longer)
    if np.isnan(x).any() or np.isnan(y).any() or x.shape[0] <= med_len:
        return preproc(self, data, *args)
    out = np.empty(x.shape[0], dtype=[(n, np.float64) for n in
                                      ("med_vel", "vel", "accel", "x", "y")])
    KERNEL.preproc(x, y, float(self.px2deg * sr), float(sr), med_len, float(max_vel),
                   out.view(np.float64))
    return out
