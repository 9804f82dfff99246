# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""PNG rendering of heatmaps and of the privacy-utility figure."""

from __future__ import annotations

import matplotlib.image as mpimg
import numpy as np
import polars as pl
import pytest

from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.report.heatmap_render import plot_privacy_utility, render_heatmap_png


def test_heatmap_png_over_stimulus(tmp_path, rng):
    stim = rng.random((40, 60, 3))
    p = render_heatmap_png(rng.normal(size=(40, 60)), tmp_path / "a" / "h.png",
                           stimulus_image=stim, title="t")
    img = mpimg.imread(p)
    assert img.ndim == 3 and img.shape[0] >= 40


def test_heatmap_png_rejects_3d(tmp_path):
    with pytest.raises(InvalidDataError, match="2-D"):
        render_heatmap_png(np.zeros((2, 2, 2)), tmp_path / "h.png")


def test_privacy_utility_figure(tmp_path):
    rows = [{"dataset": "osie", "mechanism": m, "epsilon": e, "metric": k, "mean": 0.5, "std": 0.1}
            for m in ("gaussian", "laplace") for e in (1.0, 2.0) for k in ("cc", "mse")]
    p = plot_privacy_utility(pl.DataFrame(rows), tmp_path / "f.png")
    assert p.stat().st_size > 1000
    with pytest.raises(InvalidDataError, match="lacks column"):
        plot_privacy_utility(pl.DataFrame(rows).drop("std"), tmp_path / "g.png")
