# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``scipy.signal`` is imported without ``scipy.stats`` (start-up time), and behaves as SciPy's:
the one function that reads ``scipy.stats`` gets the real one, and so does a later import."""

from __future__ import annotations

from gaze_helpers import after_detection_in_a_fresh_process


def test_simulating_and_detecting_leave_scipy_stats_unimported_and_scipy_whole():
    out = after_detection_in_a_fresh_process(
        "print('scipy.signal' in sys.modules, 'scipy.stats' in sys.modules)\n"
        "from scipy.signal import find_peaks_cwt\n"  # reads scipy.stats.scoreatpercentile
        "x = np.sin(np.linspace(0, 6 * np.pi, 400))\n"
        "peaks = find_peaks_cwt(x, np.arange(5, 30)).tolist()\n"
        "import scipy.stats\n"
        "print(len(peaks), 'scipy.stats' in sys.modules, scipy.stats.norm.cdf(0.0))\n")
    assert out[:2] == ["True False", "3 True 0.5"], out
