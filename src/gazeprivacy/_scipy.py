# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``scipy.signal`` without ``scipy.stats``: importing SciPy's signal module imports its
statistics module too (for one function of one peak finder), about 0.4-0.5 s of every process
that filters a signal -- the simulator, the participant-synth renderer and REMoDNaV -- and a
third of the read-noise-write baseline that ``benchmarks/protect_process.py`` compares
``gazeprivacy protect`` with."""

from __future__ import annotations

import sys
import types
from typing import Any

__all__ = ["scipy_signal"]


def _scoreatpercentile(*args: Any, **kwargs: Any) -> Any:
    """``scipy.stats.scoreatpercentile``, imported on its first call."""
    from scipy.stats import scoreatpercentile

    return scoreatpercentile(*args, **kwargs)


def _forget(prefix: str) -> None:
    for name in [m for m in sys.modules if m == prefix or m.startswith(prefix + ".")]:
        del sys.modules[name]


def scipy_signal() -> types.ModuleType:
    """``scipy.signal``. When neither it nor ``scipy.stats`` is loaded yet, it is imported with
    a stand-in ``scipy.stats`` (only for the import; removed from ``sys.modules`` right after)
    whose ``scoreatpercentile`` -- the one name ``scipy.signal`` takes from it, for
    ``find_peaks_cwt`` -- imports SciPy's own on its first call; a SciPy that needs more of
    ``scipy.stats`` at import gets the plain import. Either way every function gives SciPy's
    results, and ``import scipy.stats`` later imports the real module.

    >>> scipy_signal().lfilter([1.0], [1.0, -0.5], [1.0, 0.0, 0.0]).tolist()
    [1.0, 0.5, 0.25]
    """
    if "scipy.signal" not in sys.modules and "scipy.stats" not in sys.modules:
        stand_in = types.ModuleType("scipy.stats")
        stand_in.scoreatpercentile = _scoreatpercentile  # type: ignore[attr-defined]
        sys.modules["scipy.stats"] = stand_in
        try:
            import scipy.signal
        except ImportError:  # pragma: no cover - another SciPy layout: the plain import below
            _forget("scipy.signal")
        finally:
            if sys.modules.get("scipy.stats") is stand_in:
                del sys.modules["scipy.stats"]
    import scipy.signal

    return scipy.signal
