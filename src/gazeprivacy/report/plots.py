# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Report figures (matplotlib, Agg backend): privacy-utility curves with chance and raw lines,
gaze-path overlays of original vs protected data, and density maps.

Every function writes one PNG and returns its path; nothing is shown on screen.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

__all__ = ["CURVE_METRICS", "REFERENCE_LINES", "density_maps", "path_overlay",
           "privacy_utility_curve"]

#: (kind, metric) pairs drawn as curves against epsilon
CURVE_METRICS: Sequence[tuple[str, str]] = (
    ("privacy", "identification_rate"), ("privacy", "f1_macro"), ("privacy", "accuracy"),
    ("privacy", "success_quasi_and_gaze"),
    ("utility", "accuracy"), ("utility", "error_deg"),
    ("fidelity", "rmse"), ("fidelity", "density_error"), ("fidelity", "rss_distance"),
    ("fidelity", "suppressed_fraction"),
)

#: metric -> reference levels drawn as horizontal lines: (metric holding the level, label,
#: line style); the level is read from the raw cells (else from any cell) of the same evaluation
REFERENCE_LINES: Mapping[str, Sequence[tuple[str, str, str]]] = {
    "identification_rate": (("chance", "chance", ":"),),
    "f1_macro": (("chance", "chance", ":"),),
    "accuracy": (("chance", "chance (majority class)", ":"),
                 ("uniform_chance", "chance (1 / classes)", (0, (1, 4)))),
    "error_deg": (("baseline_error_deg", "constant-position baseline", ":"),),
    "success_quasi_and_gaze": (("bound", "1 / k bound", ":"),
                               ("quasi_only", "quasi-identifiers only", (0, (1, 4)))),
}
_RATES = ("identification_rate", "accuracy", "f1_macro", "success_quasi_and_gaze")


def privacy_utility_curve(results: pl.DataFrame, *, dataset: str, kind: str, evaluation: str,
                          metric: str, path: str | Path) -> Path | None:
    """``metric`` of ``evaluation`` against epsilon, one line per mechanism (mean +/- std over
    seeds), the raw data's value as a dashed line and the chance level as a dotted line.
    Mechanisms without an epsilon (k-anonymity, plausible deniability) are drawn as thin
    horizontal lines, one per setting, labelled with it; the data-free baselines
    (``baseline-*``) as olive reference lines. Reference levels of the metric
    (:data:`REFERENCE_LINES`: chance, the constant-position baseline of gaze prediction, the
    1 / k bound of the linkage attack) are grey horizontal lines.

    Returns None when no protected cell has this metric.
    """
    sel = results.filter((pl.col("dataset") == dataset) & (pl.col("kind") == kind)
                         & (pl.col("evaluation") == evaluation))
    vals = sel.filter(pl.col("metric") == metric)
    if vals.filter((pl.col("mechanism") != "none")
                   & ~pl.col("mechanism").str.starts_with("baseline-")).height == 0:
        return None
    prot = vals.filter((pl.col("mechanism") != "none") & pl.col("epsilon").is_not_null())
    # one line per mechanism and setting of its other (non-epsilon) parameters
    rest = [_without_epsilon(p) for p in prot["parameters"].to_list()]
    prot = prot.with_columns(pl.Series("parameters_rest", rest, dtype=pl.String))
    fig, ax = plt.subplots(figsize=(5.6, 3.8), dpi=90)
    groups = prot.group_by("mechanism", "parameters_rest", maintain_order=True)
    for keys, g in sorted(groups, key=lambda kg: str(kg[0])):
        agg = g.group_by("epsilon").agg(pl.col("value").mean().alias("m"),
                                        pl.col("value").std().fill_null(0.0).alias("s"),
                                        ).sort("epsilon")
        label = " ".join(str(k) for k in keys if k)
        ax.errorbar(agg["epsilon"].to_numpy(), agg["m"].to_numpy(), yerr=agg["s"].to_numpy(),
                    marker="o", capsize=3, label=label)
    base = pl.col("mechanism").str.starts_with("baseline-")
    for i, (mech, g) in enumerate(sorted(vals.filter(base).group_by("mechanism"),
                                         key=lambda kg: str(kg[0]))):
        ax.axhline(float(g["value"].mean()), color="tab:olive", lw=1.3,
                   ls=("--", "-.", ":")[i % 3], label=f"{mech[0]} (data-free)")
    flat = vals.filter((pl.col("mechanism") != "none") & pl.col("epsilon").is_null() & ~base)
    for (mech, params), g in sorted(flat.group_by("mechanism", "parameters",
                                                   maintain_order=True), key=lambda kg: str(kg[0])):
        ax.axhline(float(g["value"].mean()), lw=1.2, alpha=0.8, ls="-.",
                   label=f"{mech} {_without_epsilon(params)} (no epsilon)",
                   color=f"C{2 + len(ax.lines) % 8}")
    raw = vals.filter(pl.col("mechanism") == "none")["value"]
    if raw.len():
        ax.axhline(float(raw.mean()), color="black", ls="--", lw=1, label="raw data")
    for ref, ref_label, style in REFERENCE_LINES.get(metric, ()):
        level = sel.filter((pl.col("metric") == ref) & (pl.col("mechanism") == "none"))
        if level.height == 0:
            level = sel.filter(pl.col("metric") == ref)
        if level.height:
            ax.axhline(float(level["value"].mean()), color="grey", ls=style, lw=1.5,
                       label=ref_label)
    ax.set_xlabel("epsilon" if prot.height else
                  "(no epsilon: each setting is a horizontal line)")
    ax.set_ylabel(metric.replace("_", " "))
    ax.set_title(f"{dataset}: {evaluation}", fontsize=10)
    if metric in _RATES:
        ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path)
    plt.close(fig)
    return path


def _without_epsilon(parameters_json: str) -> str:
    d = json.loads(parameters_json)
    d.pop("epsilon", None)
    return ", ".join(f"{k}={v}" for k, v in sorted(d.items()))


def path_overlay(preview: Mapping[str, np.ndarray], *, title: str, path: str | Path) -> Path:
    """Original (black) and protected (red) gaze path of one recording, x and y in degrees."""
    fig, ax = plt.subplots(figsize=(5.6, 3.8), dpi=90)
    ax.plot(preview["x"], preview["y"], color="black", lw=0.8, alpha=0.8, label="original")
    if "px" in preview:
        ax.plot(preview["px"], preview["py"], color="tab:red", lw=0.6, alpha=0.7,
                label="protected")
    b = preview["bounds"]
    ax.add_patch(plt.Rectangle((b[2], b[0]), b[3] - b[2], b[1] - b[0], fill=False, ls=":",
                               color="grey"))
    ax.set_xlabel("x [deg]")
    ax.set_ylabel("y [deg]")
    ax.invert_yaxis()
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path)
    plt.close(fig)
    return path


def density_maps(preview: Mapping[str, np.ndarray], *, title: str, path: str | Path) -> Path:
    """Spatial density (60 x 60 grid over the screen) of the original and the protected data."""
    panels = [("original", preview["density_raw"])]
    if "density_protected" in preview:
        panels.append(("protected", preview["density_protected"]))
    fig, axes = plt.subplots(1, len(panels), figsize=(3.2 * len(panels) + 0.4, 3.0), dpi=90,
                             squeeze=False)
    b = preview["bounds"]
    for ax, (name, h) in zip(axes[0], panels, strict=True):
        total = h.sum()
        ax.imshow(h / total if total else h, origin="upper", cmap="magma",
                  extent=(b[2], b[3], b[1], b[0]), aspect="auto")
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("x [deg]")
    axes[0][0].set_ylabel("y [deg]")
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path)
    plt.close(fig)
    return path
