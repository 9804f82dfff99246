# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""PNG rendering of heatmaps (optionally over the stimulus image) and of the seed-003 figure.

Uses matplotlib's object API with the Agg canvas, so no global backend is switched and nothing
needs a display.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from gazeprivacy.exceptions import InvalidDataError

__all__ = ["plot_privacy_utility", "read_stimulus_image", "render_heatmap_png"]


def read_stimulus_image(path: str | Path) -> np.ndarray:
    """Read a PNG/JPEG stimulus image as an array (matplotlib + Pillow)."""
    import matplotlib.image as mpimg

    p = Path(path)
    if not p.is_file():
        raise InvalidDataError(f"stimulus image {str(p)!r} does not exist")
    return mpimg.imread(p)


def render_heatmap_png(heatmap: np.ndarray, path: str | Path, *,
                       stimulus_image: np.ndarray | None = None, title: str | None = None,
                       alpha: float = 0.6, cmap: str = "viridis", dpi: int = 100,
                       cell_px: int = 1, colorbar: bool = True) -> Path:
    """Write a heatmap as PNG, over ``stimulus_image`` when given (stretched to the map's extent).

    The map has the image's pixel size (``cells x cell_px``), so coarse grids are shown at
    the stimulus' size; with ``colorbar`` (default) a colour bar ("share of the map's
    maximum") is added to the right. The default colour map is viridis (perceptually uniform
    and readable in grey and by colour-blind readers).

    Negative values (possible after additive noise) are shown as 0: clipping is post-processing.
    The heatmap is scaled to its own maximum for display.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = render_heatmap_png(np.random.default_rng(0).random((30, 40)), Path(d) / "h.png")
    ...     p.stat().st_size > 0
    True
    """
    h = np.clip(np.asarray(heatmap, dtype=np.float64), 0.0, None)
    if h.ndim != 2:
        raise InvalidDataError(f"heatmap must be 2-D, got shape {h.shape}")
    peak = h.max()
    shown = h / peak if peak > 0 else h
    rows, cols = h.shape
    width_in, height_in = max(2.0, cols * cell_px / dpi), max(2.0, rows * cell_px / dpi)
    bar_in = 1.1 if colorbar else 0.0
    fig = Figure(figsize=(width_in + bar_in, height_in), dpi=dpi)
    FigureCanvasAgg(fig)
    top = 0.93 if title else 1
    ax = fig.add_axes((0, 0, width_in / (width_in + bar_in), top))
    extent = (0, cols, rows, 0)
    if stimulus_image is not None:
        ax.imshow(stimulus_image, extent=extent, interpolation="bilinear")
        im = ax.imshow(shown, extent=extent, cmap=cmap, alpha=alpha * shown, vmin=0, vmax=1)
    else:
        im = ax.imshow(shown, extent=extent, cmap=cmap, vmin=0, vmax=1)
    ax.set_axis_off()
    if colorbar:
        cax = fig.add_axes(((width_in + 0.1) / (width_in + bar_in), 0.08,
                            0.15 / (width_in + bar_in), 0.84 * top))
        bar = fig.colorbar(im, cax=cax)
        bar.set_label("share of the map's maximum", fontsize=7)
        bar.ax.tick_params(labelsize=7)
    if title:
        ax.set_title(title, fontsize=8)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=dpi)
    return out


def plot_privacy_utility(summary: pl.DataFrame, path: str | Path, *,
                         datasets: Sequence[str] | None = None) -> Path:
    """CC and MSE vs epsilon per mechanism (Liu et al. 2019, Figure 3 layout), one row per dataset.

    ``summary`` needs the columns dataset, mechanism, epsilon, metric ("cc"/"mse"), mean, std.
    """
    need = {"dataset", "mechanism", "epsilon", "metric", "mean", "std"}
    if missing := need - set(summary.columns):
        raise InvalidDataError(f"summary lacks column(s) {sorted(missing)}")
    datasets = list(datasets or summary["dataset"].unique(maintain_order=True).to_list())
    fig = Figure(figsize=(9, 3.2 * len(datasets)))
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(datasets), 2, squeeze=False)
    for i, ds in enumerate(datasets):
        for j, metric in enumerate(("cc", "mse")):
            ax = axes[i][j]
            part = summary.filter((pl.col("dataset") == ds) & (pl.col("metric") == metric))
            for mech in part["mechanism"].unique(maintain_order=True).to_list():
                d = part.filter(pl.col("mechanism") == mech).sort("epsilon")
                ax.errorbar(d["epsilon"].to_numpy(), d["mean"].to_numpy(),
                            yerr=d["std"].to_numpy(), marker="o", capsize=3, label=mech)
            ax.set_xlabel("epsilon")
            ax.set_ylabel("CC" if metric == "cc" else "MSE")
            if metric == "mse":
                ax.set_yscale("log")
            ax.set_title(f"{ds}: {'CC' if metric == 'cc' else 'MSE'} vs epsilon", fontsize=9)
            ax.legend(fontsize=7)
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    return out
