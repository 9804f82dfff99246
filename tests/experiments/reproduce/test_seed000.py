# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Seed 000 reproduction helpers: the paper's constants and the tables' shape (fast, synthetic)."""

from __future__ import annotations

import json

import polars as pl

from gazeprivacy.experiments.reproduce import _paper000 as paper
from gazeprivacy.experiments.reproduce.seed000 import summarise, tables


def test_paper_constants_cover_the_printed_grid() -> None:
    keys = {(m, r, e) for m in ("kaleido", "dpgazesynth") for r in paper.R_FRACS
            for e in paper.EPSILONS}
    assert set(paper.TABLE2) == keys
    for t in (paper.TABLE3, paper.TABLE4):
        assert set(t) == {"360_em", "GazebaseVR"}
        assert all(set(v) == keys for v in t.values())
    assert paper.TABLE2[("dpgazesynth", 0.05, 2.0)] == 0.6886
    assert paper.TABLE3["360_em"][("kaleido", 0.10, 1.0)] == 1.917e6
    assert paper.TABLE4["GazebaseVR"][("kaleido", 0.10, 1.0)] == 0.051


def _rows(dataset, mech, params, metric, values, kind="fidelity", evaluation="x"):
    return [{"dataset": dataset, "mechanism": mech, "mode": "paper",
             "parameters": json.dumps(params), "epsilon": params.get("epsilon"), "seed": s,
             "kind": kind, "evaluation": evaluation, "metric": metric, "value": v}
            for s, v in enumerate(values)]


def test_summary_maps_radius_and_grid_to_r_frac_and_tables_put_paper_beside_ours() -> None:
    rows = (_rows("d", "kaleido", {"epsilon": 1.0, "radius_deg": 1.28, "window_s": 0.5},
                  "density_error", [0.5, 0.7])
            + _rows("d", "dpgazesynth", {"epsilon": 1.0, "grid_size": 30}, "density_error",
                    [0.1, 0.3])
            + _rows("v", "dpgazesynth", {"epsilon": 3.0, "grid_size": 60}, "accuracy", [0.9],
                    kind="utility", evaluation="environment:rf:samples:by-participant")
            + _rows("v", "none", {}, "accuracy", [0.95], kind="utility",
                    evaluation="environment:rf:events:by-participant"))
    summ = summarise(pl.DataFrame(rows), sides={"d": 12.8, "v": 110.0})
    got = {(r["mechanism"], r["r_frac"]): r["mean"] for r in summ.iter_rows(named=True)}
    assert abs(got[("kaleido", 0.10)] - 0.6) < 1e-12
    assert abs(got[("dpgazesynth", 0.10)] - 0.2) < 1e-12
    assert got[("dpgazesynth", 0.05)] == 0.9
    tabs = tables(summ, names={"d": "DOVES", "v": "VR"}, what="test.")
    t4 = tabs["table4"][3]
    assert ["Kaleido", "r = 10%", "1", "0.600", "-", "0.319", "0.051"] in t4
    assert ["DPGazeSynth", "G = 30 (r = 10%)", "1", "0.200", "-", "0.136", "0.017"] in t4
    t2 = tabs["table2"][3]
    # per protocol (events / samples x split); the ceiling and the release land in their own
    assert ["original data", "", "", "-", "0.950", "-", "-", "0.985"] in t2
    assert ["DPGazeSynth", "G = 60 (r = 5%)", "3", "-", "-", "0.900", "-", "0.683"] in t2
