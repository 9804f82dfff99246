# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Report figures: reference lines above the data and labelled, the right chance levels,
units, colour bars and the captions that explain clamping and suppression."""

from __future__ import annotations

import json

import matplotlib.image as mpimg
import matplotlib.pyplot as plt
import numpy as np
import polars as pl
import pytest

from gazeprivacy.experiments.engine import RESULT_SCHEMA
from gazeprivacy.report.heatmap_render import render_heatmap_png
from gazeprivacy.report.plots import (
    curve_figure,
    density_figure,
    preview_notes,
    reference_levels,
)


def _rows(mech, evaluation, metric, value, *, kind="privacy", epsilon=None):
    params = "{}" if epsilon is None else f'{{"epsilon": {epsilon}}}'
    return {"dataset": "d", "mechanism": mech, "mode": "x", "parameters": params,
            "epsilon": epsilon, "seed": 0, "kind": kind, "evaluation": evaluation,
            "metric": metric, "value": value, "beats_baselines": None}


def _table(rows):
    return pl.DataFrame(rows, schema=RESULT_SCHEMA)


def test_macro_f1_chance_is_one_over_classes_not_the_majority_share():
    # 70 % majority, 2 classes: a guess at the class shares scores macro F1 = 1/2; the
    # majority share 0.7 is the wrong line for F1
    t = _table([_rows("none", "gender:rf", "f1_macro", 0.8),
                _rows("none", "gender:rf", "chance", 0.7),
                _rows("none", "gender:rf", "uniform_chance", 0.5)])
    assert [lv for lv, *_ in reference_levels(t, "f1_macro")] == [0.5]
    assert [lv for lv, *_ in reference_levels(t, "accuracy")] == [0.7, 0.5]
    # re-identification reports chance = 1 / participants only: that is F1's chance too
    r = _table([_rows("none", "reid:rbfn:seed000", "f1_macro", 0.9),
                _rows("none", "reid:rbfn:seed000", "chance", 0.25)])
    assert reference_levels(r, "f1_macro") == [(0.25, "chance (1 / participants)", ":")]
    # an attribute attack without uniform_chance gets no (wrong) F1 line
    assert reference_levels(t.filter(pl.col("metric") != "uniform_chance"), "f1_macro") == []


def test_reference_lines_are_drawn_above_the_data_and_labelled():
    ev = "reid:aware-rf:seed004"
    t = _table([_rows("m", ev, "identification_rate", 0.2 + 0.1 * e, epsilon=float(e))
                for e in (1, 2)]
               + [_rows(m, ev, "identification_rate", v) for m, v in
                  (("none", 0.95), ("baseline-centre", 0.3), ("baseline-prior", 0.1))]
               + [_rows(m, ev, "chance", 0.1) for m in ("none", "m", "baseline-centre")])
    fig = curve_figure(t, dataset="d", kind="privacy", evaluation=ev,
                       metric="identification_rate")
    ax = fig.axes[0]
    labels = {a.get_text() for a in ax.texts}
    assert {"chance (1 / participants)", "raw data", "baseline-centre (data-free)",
            "baseline-prior (data-free)"} <= labels
    flat = [ln for ln in ax.lines if len(set(ln.get_ydata())) == 1 and len(ln.get_ydata()) == 2]
    data = [ln for ln in ax.lines if ln not in flat]
    assert flat and data and min(ln.get_zorder() for ln in flat) > max(
        ln.get_zorder() for ln in data)
    assert "[share of recordings]" in ax.get_ylabel()
    # the chance label (0.1) and the prior's (0.1) do not sit on top of each other
    ys = sorted(a.xyann[1] for a in ax.texts)
    assert min(np.diff(ys)) >= 0.069
    plt.close(fig)


def test_fidelity_axes_name_their_unit():
    t = _table([_rows("m", "fidelity", "rmse", 3.0, kind="fidelity", epsilon=1.0),
                _rows("baseline-centre", "fidelity", "rmse", 3.6, kind="fidelity")])
    fig = curve_figure(t, dataset="d", kind="fidelity", evaluation="fidelity", metric="rmse")
    assert fig.axes[0].get_ylabel() == "RMSE to the original [deg]"
    assert fig.axes[0].get_ylim()[1] >= 3.6  # the baseline is inside the plot
    plt.close(fig)


def _preview(px, py, x=None):
    n = len(px)
    x = np.full(n, 5.0) if x is None else x
    return {"x": x, "y": np.full(n, 5.0), "px": np.asarray(px, float),
            "py": np.asarray(py, float), "bounds": np.array([0.0, 10.0, 0.0, 20.0])}


def test_captions_give_the_share_clamped_and_suppressed():
    clamped = _preview([0.0, 20.0, 5.0, 5.0], [5.0, 5.0, 10.0, 4.0])  # 3 of 4 on the border
    notes = preview_notes(clamped)
    assert len(notes) == 1 and notes[0].startswith("75 % of the released samples lie on the "
                                                   "screen border")
    gone = _preview([np.nan, np.nan, np.nan, 5.0], [np.nan, np.nan, np.nan, 5.0])
    notes = preview_notes(gone)
    assert len(notes) == 1 and notes[0].startswith("75 % of this recording's valid samples "
                                                   "are suppressed")
    assert preview_notes(clamped, short=True) == [
        "75 % of the plotted recording's released samples clamped to the screen border "
        "(original: 0 %)"]
    assert preview_notes(_preview([5.0] * 4, [5.0] * 4)) == []
    # an original that already sits on the border is no news
    assert preview_notes(_preview([0.0] * 4, [5.0] * 4, x=np.zeros(4))) == []
    raw = _preview([5.0] * 4, [5.0] * 4)
    del raw["px"], raw["py"]
    assert preview_notes(raw) == []


def test_density_maps_share_one_viridis_scale_and_one_colour_bar():
    rng = np.random.default_rng(0)
    raw, prot = rng.random((6, 6)), rng.random((6, 6)) * 5
    prot[0, 0] = 100.0  # a concentrated map beside a flat one
    fig = density_figure({"density_raw": raw, "density_protected": prot,
                          "bounds": np.array([0.0, 10.0, 0.0, 20.0])}, title="t")
    images = [im for ax in fig.axes for im in ax.images]
    assert len(fig.axes) == 3 and len(images) == 2  # two panels, one colour bar
    assert {im.get_cmap().name for im in images} == {"viridis"}
    # both panels from 0 to the largest share of either: equal colours are equal shares
    top = max(raw.max() / raw.sum(), prot.max() / prot.sum())
    assert images[0].get_clim() == pytest.approx((0.0, top))
    assert images[1].get_clim() == pytest.approx((0.0, top))
    assert images[0].norm is images[1].norm
    bars = [ax for ax in fig.axes if ax not in (images[0].axes, images[1].axes)]
    assert len(bars) == 1 and "one scale" in bars[0].get_ylabel()
    plt.close(fig)


def test_per_window_and_per_participant_epsilons_get_separate_axes():
    ev, fid = "fidelity", "fidelity"
    rows = [_rows("m", ev, "rmse", 3.0 - e * 0.5, kind=fid, epsilon=float(e)) for e in (1, 2)]
    rows += [{**_rows("m-participant", ev, "rmse", 2.0, kind=fid, epsilon=float(e)),
              "parameters": json.dumps({"epsilon": float(e), "unit": "participant"})}
             for e in (3, 6)]
    rows.append(_rows("baseline-centre", ev, "rmse", 3.7, kind=fid))
    t = _table(rows)
    fig = curve_figure(t, dataset="d", kind="fidelity", evaluation=ev, metric="rmse")
    axes = [a for a in fig.axes if a.get_xlabel()]
    assert [a.get_xlabel() for a in axes] == ["epsilon per unit (window, w-window, ...)",
                                              "epsilon per participant"]
    assert max(axes[1].get_xlim()) >= 6 and max(axes[0].get_xlim()) < 3
    plt.close(fig)
    only = t.filter(pl.col("mechanism") != "m")
    fig = curve_figure(only, dataset="d", kind="fidelity", evaluation=ev, metric="rmse")
    assert [a.get_xlabel() for a in fig.axes] == ["epsilon per participant"]
    plt.close(fig)


def test_heatmap_png_has_a_colour_bar_by_default(tmp_path):
    h = np.random.default_rng(1).random((200, 300))
    with_bar = mpimg.imread(render_heatmap_png(h, tmp_path / "a.png"))
    without = mpimg.imread(render_heatmap_png(h, tmp_path / "b.png", colorbar=False))
    assert with_bar.shape[0] == without.shape[0]
    assert with_bar.shape[1] == pytest.approx(without.shape[1] + 110, abs=2)
