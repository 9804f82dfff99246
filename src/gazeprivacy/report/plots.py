# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Report figures (matplotlib, Agg backend): privacy-utility curves with chance, raw and
data-free baseline lines, gaze-path overlays of original vs protected data, and density maps.

Reference lines (chance, the raw data, the data-free baselines, the 1 / k bound, ...) are drawn
*above* the data and labelled by name at the right edge of the plot, so none hides under a
mechanism's curve or behind the legend. Axes name their units; epsilons per window and per
participant get separate x axes. The density maps of a figure share one viridis colour scale and
one colour bar. Every function writes one PNG and returns its path; nothing is shown on screen.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from gazeprivacy.report.words import evaluation_words

__all__ = ["AXIS_LABELS", "CURVE_METRICS", "REFERENCE_LINES", "curve_figure", "density_figure",
           "density_maps", "path_overlay", "preview_notes", "preview_shares",
           "privacy_utility_curve",
           "reference_levels"]

#: (kind, metric) pairs drawn as curves against epsilon
CURVE_METRICS: Sequence[tuple[str, str]] = (
    ("privacy", "identification_rate"), ("privacy", "f1_macro"), ("privacy", "accuracy"),
    ("privacy", "success_quasi_and_gaze"),
    ("utility", "accuracy"), ("utility", "f1_macro"), ("utility", "error_deg"),
    ("fidelity", "rmse"), ("fidelity", "density_error"), ("fidelity", "rss_distance"),
    ("fidelity", "suppressed_fraction"),
    ("realism", "discriminator_auc"), ("realism", "rmse_to_raw_fit_deg_s"),
    ("realism", "fixation_duration_w1_s"), ("realism", "saccade_amplitude_w1_deg"),
)

#: metric -> reference levels drawn as horizontal lines: (metric holding the level, label,
#: line style); the level is read from the raw cells (else from any cell) of the same
#: evaluation. Macro F1's chance is that of a guess drawn at the class shares, 1 / classes
#: (``uniform_chance``) whatever the balance -- not the majority share, whose constant answer
#: scores only ``2p / (1 + p) / classes``; re-identification's ``chance`` is 1 / participants,
#: which is the same level.
REFERENCE_LINES: Mapping[str, Sequence[tuple[str, str, Any]]] = {
    "identification_rate": (("chance", "chance (1 / participants)", ":"),),
    "f1_macro": (("uniform_chance", "chance (1 / classes)", ":"),),
    "accuracy": (("chance", "chance (majority class)", ":"),
                 ("uniform_chance", "chance (1 / classes)", (0, (1, 4)))),
    "error_deg": (("baseline_error_deg", "constant-position baseline", ":"),),
    "discriminator_auc": (("chance", "indistinguishable (0.5)", ":"),),
    "success_quasi_and_gaze": (("bound", "1 / k bound", ":"),
                               ("quasi_only", "quasi-identifiers only", (0, (1, 4)))),
}
#: metric -> y-axis label with its unit
AXIS_LABELS: Mapping[str, str] = {
    "identification_rate": "identification rate [share of recordings]",
    "accuracy": "accuracy [share correct]", "f1_macro": "macro F1 [0-1]",
    "success_quasi_and_gaze": "linkage success [share]",
    "error_deg": "prediction error [deg]", "rmse": "RMSE to the original [deg]",
    "rss_distance": "RSS distance, eq. 15 [deg]",
    "density_error": "density error [JS divergence, bits]",
    "suppressed_fraction": "suppressed samples [share]",
    "discriminator_auc": "discriminator AUC, release vs raw [0.5 = indistinguishable]",
    "rmse_to_raw_fit_deg_s": "peak velocity off the raw main sequence [RMSE, deg/s]",
    "fixation_duration_w1_s": "fixation durations vs raw [Wasserstein-1, s]",
    "saccade_amplitude_w1_deg": "saccade amplitudes vs raw [Wasserstein-1, deg]",
}
_RATES = ("identification_rate", "accuracy", "f1_macro", "success_quasi_and_gaze",
          "suppressed_fraction", "discriminator_auc")
_REF_Z = 5  # reference lines are drawn above the mechanisms' curves (zorder 2)


def reference_levels(sel: pl.DataFrame, metric: str) -> list[tuple[float, str, Any]]:
    """The reference lines of ``metric`` in one evaluation's rows ``sel``: (level, label,
    style), from :data:`REFERENCE_LINES`. For ``f1_macro`` of re-identification (no
    ``uniform_chance``; ``chance`` is already 1 / participants) the ``chance`` row is used."""
    refs = list(REFERENCE_LINES.get(metric, ()))
    if metric == "f1_macro" and not (sel["metric"] == "uniform_chance").any() and (
            sel["evaluation"].str.starts_with("reid").all()):
        refs = [("chance", "chance (1 / participants)", ":")]
    out = []
    for ref, label, style in refs:
        level = sel.filter((pl.col("metric") == ref) & (pl.col("mechanism") == "none"))
        if level.height == 0:
            level = sel.filter(pl.col("metric") == ref)
        if level.height:
            out.append((float(level["value"].mean()), label, style))
    return out


def _draw_mechanisms(ax: Any, vals: pl.DataFrame) -> bool:
    """Mechanisms with an epsilon as curves (mean +/- std over seeds); those without one as
    thin horizontal lines. Returns whether any curve has an epsilon axis."""
    is_ref = (pl.col("mechanism") == "none") | pl.col("mechanism").str.starts_with("baseline-")
    prot = vals.filter(~is_ref & pl.col("epsilon").is_not_null())
    rest = [_without_epsilon(p) for p in prot["parameters"].to_list()]
    prot = prot.with_columns(pl.Series("parameters_rest", rest, dtype=pl.String))
    for keys, g in sorted(prot.group_by("mechanism", "parameters_rest", maintain_order=True),
                          key=lambda kg: str(kg[0])):
        agg = g.group_by("epsilon").agg(pl.col("value").mean().alias("m"),
                                        pl.col("value").std().fill_null(0.0).alias("s"),
                                        ).sort("epsilon")
        ax.errorbar(agg["epsilon"].to_numpy(), agg["m"].to_numpy(), yerr=agg["s"].to_numpy(),
                    marker="o", capsize=3, label=" ".join(str(k) for k in keys if k), zorder=2)
    flat = vals.filter(~is_ref & pl.col("epsilon").is_null())
    for i, ((mech, params), g) in enumerate(sorted(
            flat.group_by("mechanism", "parameters", maintain_order=True),
            key=lambda kg: str(kg[0]))):
        ax.axhline(float(g["value"].mean()), lw=1.2, alpha=0.9, ls="-", zorder=2,
                   color=f"C{(3 + i) % 10}", marker="s", markevery=[0, -1], markersize=4,
                   label=f"{mech} {_without_epsilon(params)} (no epsilon)")
    return prot.height > 0


def _reference_lines(sel: pl.DataFrame, vals: pl.DataFrame, metric: str
                     ) -> list[tuple[float, str, Any, str]]:
    """(level, label, style, colour) of the raw data, the data-free baselines and the
    metric's reference levels."""
    lines = []
    raw = vals.filter(pl.col("mechanism") == "none")["value"]
    if raw.len():
        lines.append((float(raw.mean()), "raw data", "--", "black"))
    base = vals.filter(pl.col("mechanism").str.starts_with("baseline-"))
    for i, (mech, g) in enumerate(sorted(base.group_by("mechanism"), key=lambda kg: str(kg[0]))):
        lines.append((float(g["value"].mean()), f"{mech[0]} (data-free)",
                      ("--", "-.", (0, (5, 2, 1, 2)))[i % 3], "#6b6b00"))
    lines += [(lv, label, style, "#222222") for lv, label, style in reference_levels(sel, metric)]
    return lines


def _label_right(ax: Any, lines: Sequence[tuple[float, str, Any, str]]) -> None:
    """Draw the reference lines above the data and name each at the right edge, spread so
    that labels of nearby levels do not overlap (non-finite levels are left out)."""
    lines = [ln for ln in lines if math.isfinite(ln[0])]
    for level, _label, style, colour in lines:
        ax.axhline(level, color=colour, ls=style, lw=1.6, zorder=_REF_Z)
    lo, hi = ax.get_ylim()
    spots = sorted(((lv - lo) / (hi - lo) if hi > lo else 0.5, label, colour)
                   for lv, label, _s, colour in lines)
    placed: list[float] = []
    for frac, label, colour in spots:
        y = max(frac, placed[-1] + 0.07) if placed else frac
        placed.append(y)
        # a leader line only where the label moved (matplotlib cannot draw a zero-length one)
        arrow = ({"arrowstyle": "-", "color": colour, "lw": 0.6} if abs(y - frac) > 1e-3
                 else None)
        ax.annotate(label, xy=(1.0, frac), xycoords="axes fraction", xytext=(1.02, y),
                    textcoords="axes fraction", fontsize=7, color=colour, va="center",
                    arrowprops=arrow)


def _participant_level(vals: pl.DataFrame) -> pl.Series:
    """Whether each row's epsilon is per participant (the setting's ``unit`` says so)."""
    return vals["parameters"].map_elements(
        lambda p: json.loads(p).get("unit") == "participant", return_dtype=pl.Boolean)


def curve_figure(results: pl.DataFrame, *, dataset: str, kind: str, evaluation: str,
                 metric: str) -> Any:
    """The figure of :func:`privacy_utility_curve` (None when no protected cell has
    ``metric``). Epsilons per window (or other unit) and per participant are not one scale:
    when both occur they get separate x axes side by side, with the same y axis."""
    sel = results.filter((pl.col("dataset") == dataset) & (pl.col("kind") == kind)
                         & (pl.col("evaluation") == evaluation))
    vals = sel.filter(pl.col("metric") == metric)
    if vals.filter((pl.col("mechanism") != "none")
                   & ~pl.col("mechanism").str.starts_with("baseline-")).height == 0:
        return None
    per_part = _participant_level(vals) & vals["epsilon"].is_not_null()
    other = vals.filter(~per_part)
    is_ref = (pl.col("mechanism") == "none") | pl.col("mechanism").str.starts_with("baseline-")
    panels = []
    if other.filter(~is_ref).height or not per_part.any():
        panels.append((other, "epsilon per unit (window, w-window, ...)"))
    if per_part.any():
        panels.append((vals.filter(per_part), "epsilon per participant"))
    fig, axes = plt.subplots(1, len(panels), figsize=(6.6 + 3.4 * (len(panels) - 1), 4.6),
                             dpi=90, sharey=True, squeeze=False)
    lines = _reference_lines(sel, vals, metric)
    drawn = 0
    for i, (ax, (part, xlabel)) in enumerate(zip(axes[0], panels, strict=True)):
        # the colours continue across panels: no two mechanisms share one
        palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        ax.set_prop_cycle(color=palette[drawn % len(palette):] + palette[:drawn % len(palette)])
        has_eps = _draw_mechanisms(ax, part)
        drawn += len(ax.containers)
        ax.set_xlabel(xlabel if has_eps else "(no epsilon: each setting is a horizontal line)",
                      fontsize=8)
        ax.grid(alpha=0.3)
        if i == 0:
            ax.set_ylabel(AXIS_LABELS.get(metric, metric.replace("_", " ")), fontsize=8)
    ax = axes[0][-1]
    if metric in _RATES:
        ax.set_ylim(-0.02, 1.02)
    else:
        levels = [lv for lv, *_ in lines]
        lo, hi = ax.get_ylim()
        ax.set_ylim(min([lo, 0.0, *levels]), max([hi, *levels]) * 1.05)
    for a in axes[0][:-1]:  # the reference lines on every panel, named once at the right
        for level, _label, style, colour in lines:
            if math.isfinite(level):
                a.axhline(level, color=colour, ls=style, lw=1.6, zorder=_REF_Z)
    _label_right(ax, lines)
    fig.suptitle(f"{dataset}: {evaluation_words(evaluation)}", fontsize=9, wrap=True)
    handles = [h for a in axes[0] for h in zip(*a.get_legend_handles_labels(), strict=True)]
    if handles:
        axes[0][0].legend([h for h, _ in handles], [lb for _, lb in handles], fontsize=7,
                          loc="upper left", bbox_to_anchor=(-0.12, -0.14), ncol=1,
                          frameon=False, title="mechanisms (solid)", title_fontsize=7)
    fig.subplots_adjust(left=0.12 if len(panels) == 1 else 0.08,
                        right=0.72 if len(panels) == 1 else 0.82, top=0.9, bottom=0.2,
                        wspace=0.08)
    return fig


def privacy_utility_curve(results: pl.DataFrame, *, dataset: str, kind: str, evaluation: str,
                          metric: str, path: str | Path) -> Path | None:
    """``metric`` of ``evaluation`` against epsilon, one line per mechanism (mean +/- std over
    seeds). Mechanisms without an epsilon (k-anonymity, plausible deniability) are thin
    horizontal lines. The raw data (black dashed), the data-free baselines (olive) and the
    metric's reference levels (:func:`reference_levels`: chance, the constant-position
    baseline, the 1 / k bound) are drawn above them and labelled at the right edge.

    Returns None when no protected cell has this metric.
    """
    fig = curve_figure(results, dataset=dataset, kind=kind, evaluation=evaluation,
                       metric=metric)
    if fig is None:
        return None
    path = Path(path)
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    return path


def _without_epsilon(parameters_json: str) -> str:
    d = json.loads(parameters_json)
    d.pop("epsilon", None)
    return ", ".join(f"{k}={v}" for k, v in sorted(d.items()))


def _border_share(x: np.ndarray, y: np.ndarray, bounds: np.ndarray) -> float:
    """Share of the valid points of (x, y) that lie exactly on the screen's edge."""
    ok = ~(np.isnan(x) | np.isnan(y))
    tol = 1e-6 * max(bounds[1] - bounds[0], bounds[3] - bounds[2], 1.0)
    on = ((np.abs(x - bounds[2]) < tol) | (np.abs(x - bounds[3]) < tol)
          | (np.abs(y - bounds[0]) < tol) | (np.abs(y - bounds[1]) < tol))[ok]
    return float(on.mean()) if on.size else 0.0


def preview_shares(preview: Mapping[str, np.ndarray]) -> tuple[float, float, float]:
    """(share of the original's valid samples suppressed in the release, share of released
    samples on the screen border, the original's share on the border) of one preview."""
    px, py, b = preview["px"], preview["py"], preview["bounds"]
    valid = ~(np.isnan(preview["x"]) | np.isnan(preview["y"]))
    released = valid & ~(np.isnan(px) | np.isnan(py))
    suppressed = 1.0 - released.sum() / max(int(valid.sum()), 1)
    return (float(suppressed), _border_share(px, py, b),
            _border_share(preview["x"], preview["y"], b))


def preview_notes(preview: Mapping[str, np.ndarray], *, short: bool = False) -> list[str]:
    """What a protected path plot shows that would look like a bug without a word: the share
    of samples suppressed (missing in the release though valid in the original) and the share
    of released samples on the screen border (clamping), beside the original's. Empty for the
    raw data and for shares under 1 % (or no more than the original's). ``short``: a few
    words each, for the first screen."""
    if "px" not in preview:
        return []
    suppressed, border, raw_border = preview_shares(preview)
    notes = []
    if suppressed >= 0.01:
        notes.append(f"{100 * suppressed:.0f} % of the plotted recording's samples suppressed"
                     if short else
                     f"{100 * suppressed:.0f} % of this recording's valid samples are "
                     "suppressed (missing in the release), so the protected path is short "
                     "or broken")
    if border >= 0.01 and border > raw_border + 0.01:
        notes.append(f"{100 * border:.0f} % of the plotted recording's released samples "
                     f"clamped to the screen border (original: {100 * raw_border:.0f} %)"
                     if short else
                     f"{100 * border:.0f} % of the released samples lie on the screen border "
                     f"(original: {100 * raw_border:.0f} %): points the release puts off "
                     "screen are clamped to its edge, so the path runs along the edges and "
                     "jumps from corner to corner")
    return notes


def path_overlay(preview: Mapping[str, np.ndarray], *, title: str, path: str | Path) -> Path:
    """Original (black) and protected (red) gaze path of one recording, x and y in degrees;
    the screen as a dotted rectangle."""
    fig, ax = plt.subplots(figsize=(5.6, 3.8), dpi=90)
    ax.plot(preview["x"], preview["y"], color="black", lw=0.8, alpha=0.8, label="original")
    if "px" in preview:
        ax.plot(preview["px"], preview["py"], color="tab:red", lw=0.6, alpha=0.7,
                label="protected")
    b = preview["bounds"]
    ax.add_patch(plt.Rectangle((b[2], b[0]), b[3] - b[2], b[1] - b[0], fill=False, ls=":",
                               color="grey", label="screen"))
    ax.set_xlabel("x [deg]")
    ax.set_ylabel("y [deg]")
    ax.invert_yaxis()
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    return path


def density_figure(preview: Mapping[str, np.ndarray], *, title: str) -> Any:
    """The figure of :func:`density_maps`: one panel per density (share of samples per cell)
    on one shared viridis scale, from 0 to the largest share of any panel, with one colour bar:
    equal colours are equal shares, so the panels compare. A square-root colour scale keeps a
    flat map visible beside a concentrated one."""
    from matplotlib.colors import PowerNorm

    panels = [("original", preview["density_raw"])]
    if "density_protected" in preview:
        panels.append(("protected", preview["density_protected"]))
    shares = [(name, h / h.sum() if h.sum() else h.astype(float)) for name, h in panels]
    vmax = max(float(sh.max()) for _, sh in shares) or 1.0
    norm = PowerNorm(gamma=0.5, vmin=0.0, vmax=vmax)
    fig, axes = plt.subplots(1, len(panels), figsize=(2.9 * len(panels) + 0.6, 2.8), dpi=90,
                             squeeze=False, layout="constrained")
    b = preview["bounds"]
    im = None
    for ax, (name, share) in zip(axes[0], shares, strict=True):
        im = ax.imshow(share, origin="upper", cmap="viridis", norm=norm,
                       extent=(b[2], b[3], b[1], b[0]), aspect="auto")
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("x [deg]", fontsize=8)
        ax.tick_params(labelsize=7)
    bar = fig.colorbar(im, ax=list(axes[0]), fraction=0.06, pad=0.02)
    bar.set_label("share of samples per cell (one scale)", fontsize=7)
    bar.ax.tick_params(labelsize=6)
    axes[0][0].set_ylabel("y [deg]", fontsize=8)
    fig.suptitle(title, fontsize=9)
    return fig


def density_maps(preview: Mapping[str, np.ndarray], *, title: str, path: str | Path) -> Path:
    """Spatial density (60 x 60 grid over the screen) of the original and the protected data,
    as the share of samples per cell on one viridis scale shared by both panels, with a
    colour bar (:func:`density_figure`)."""
    fig = density_figure(preview, title=title)
    path = Path(path)
    fig.savefig(path)
    plt.close(fig)
    return path
