# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""scripts/realism_features.py: one-feature AUCs of release windows against raw ones."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import polars as pl
import pytest

from gazeprivacy.data.recording import Dataset
from gazeprivacy.data.sample import load_sample
from gazeprivacy.metrics.realism import WINDOW_FEATURES, saccade_table
from script_helpers import load_script


def _load():
    return load_script("realism_features.py")


def _table(rng, n, shift=0.0, nan_feature=None):
    cols = {f: rng.normal(size=n) for f in WINDOW_FEATURES}
    cols["speed_median_deg_s"] = cols["speed_median_deg_s"] + shift
    if nan_feature:
        cols[nan_feature] = np.full(n, np.nan)
    return pl.DataFrame(cols)


def test_a_shifted_feature_separates_and_the_others_do_not():
    """A release whose median speed is 1 sd lower: AUC Phi(-1/sqrt 2) = 0.240 for that feature
    (2000 windows a side: SE about 0.009, tolerance 0.03), the others 0.5 within 0.04."""
    sep = _load().separation(_table(np.random.default_rng(0), 2000),
                             _table(np.random.default_rng(1), 2000, shift=-1.0))
    expected = 0.5 * math.erfc(1.0 / 2.0)  # Phi(-1 / sqrt(2))
    assert abs(sep["speed_median_deg_s"][0] - expected) < 0.03
    assert sep["speed_median_deg_s"][2] < sep["speed_median_deg_s"][1] - 0.8
    others = [sep[f][0] for f in WINDOW_FEATURES if f != "speed_median_deg_s"]
    assert max(abs(a - 0.5) for a in others) < 0.04


def test_ties_count_half_and_an_empty_side_is_nan():
    raw = pl.DataFrame({f: [1.0, 1.0, 2.0, np.nan] for f in WINDOW_FEATURES})
    sep = _load().separation(raw, raw.with_columns(pl.lit(1.0).alias("x_std_deg")))
    # release 1.0 (four windows) against raw 1, 1, 2: each wins 0, ties 2, loses 1
    assert sep["x_std_deg"][0] == 1.0 / 3.0
    sep = _load().separation(raw, _table(np.random.default_rng(2), 5, nan_feature="y_std_deg"))
    assert all(math.isnan(v) for v in sep["y_std_deg"])


def test_main_prints_the_strongest_feature_first(monkeypatch, capsys):
    mod = _load()
    held = _table(np.random.default_rng(3), 400)
    rels = {"raw copy": _table(np.random.default_rng(4), 400),
            "epsilon 3": _table(np.random.default_rng(5), 400, shift=2.0)}
    monkeypatch.setattr(mod, "_releases", lambda *a: (held, rels))
    monkeypatch.setattr(mod, "window_feature_table", lambda table: table)  # already windows
    mod.main(["vr", "--eps", "3", "--seeds", "0"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].startswith("speed_median_deg_s")
    assert len(lines) == 2 + len(WINDOW_FEATURES)


def test_saccade_summary_counts_the_detector_s_saccades():
    """On the bundled sample (12 observers x 12 images, 5 s at 200 Hz): the share of time in
    saccades is the rate times the mean duration, and a release that holds every recording
    twice has the same rate and medians."""
    mod = _load()
    ds = load_sample()
    s = mod.saccade_summary(ds)
    sac = saccade_table(ds)
    seconds = sum(r.n_samples / r.sampling_rate_hz for r in ds.recordings)
    assert s["per_s"] == sac.height / seconds
    assert abs(s["time_share"] - s["per_s"] * float(sac["duration_s"].mean())) < 1e-12
    assert 1.0 < s["per_s"] < 5.0 and 0.02 < s["time_share"] < 0.4
    doubled = Dataset([*ds.recordings, *[replace(r, recording=r.recording + "-b")
                                         for r in ds.recordings]])
    d = mod.saccade_summary(doubled)
    for c in mod.SACCADE_COLUMNS:
        assert abs(d[c] - s[c]) < 1e-9, c


def test_main_with_saccades_prints_a_row_per_release(monkeypatch, capsys):
    mod = _load()
    ds = load_sample()
    monkeypatch.setattr(mod, "_releases", lambda *a: (ds, {"raw copy": ds, "epsilon 3": ds}))
    mod.main(["vr", "--eps", "3", "--seeds", "0", "--saccades"])
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split()[0] for ln in lines[2:]] == ["held-out", "raw", "epsilon"]
    assert lines[1].split()[1:] == list(mod.SACCADE_COLUMNS)


def test_groups_read_the_discriminator_by_parts(monkeypatch, capsys):
    """``--groups``: one row per feature set (all, each group alone, all groups but one). A
    release whose median speed is 3 sd higher is told apart by every set that holds the speed
    group (above 0.9) and by none of the others (within 0.15 of 0.5: 8 people a side, 300
    windows each)."""
    mod = _load()

    def people(table):
        return table.with_columns(pl.Series("participant", [f"p{i % 8}" for i in
                                                            range(table.height)]))

    held = people(_table(np.random.default_rng(6), 300))
    rels = {"epsilon 3": people(_table(np.random.default_rng(7), 300, shift=3.0))}
    monkeypatch.setattr(mod, "_releases", lambda *a: (held, rels))
    monkeypatch.setattr(mod, "window_feature_table", lambda table: table)
    mod.main(["vr", "--eps", "3", "--seeds", "0", "--groups"])
    lines = capsys.readouterr().out.splitlines()[2:]
    rows = {line[:26].strip(): float(line[26:]) for line in lines}
    groups = mod.WINDOW_FEATURE_GROUPS
    assert len(rows) == 1 + 2 * len(groups)
    for name, auc in rows.items():
        with_speed = name in ("all", "only speed") or (name.startswith("all but")
                                                       and name != "all but speed")
        assert (auc > 0.9) if with_speed else abs(auc - 0.5) < 0.15, (name, auc)


def test_people_release_cuts_the_first_people_into_pseudonymous_pieces():
    mod = _load()
    ds = load_sample()
    first = sorted(ds.participants)[:2]
    rel = mod.people_release(ds, 2, pieces=3)
    theirs = [r for r in ds.recordings if r.participant in first]
    assert len(rel) == 3 * len(theirs) and len(rel.participants) == len(rel)
    # every sample of theirs once, in order, and nobody else's
    x = np.concatenate([r.x for r in rel.recordings])
    assert np.array_equal(x, np.concatenate([r.x for r in theirs]), equal_nan=True)
    assert not set(rel.participants) & set(ds.participants)
    with pytest.raises(ValueError, match="at least 1"):
        mod.people_release(ds, 0)


def test_people_mode_prints_the_raw_copy_and_each_k(monkeypatch, capsys):
    mod = _load()
    calls = []
    monkeypatch.setattr(mod, "_people", lambda data, seeds, ks: calls.append((data, seeds, ks)))
    mod.main(["vr", "--seeds", "0", "1", "--people", "1", "3"])
    assert calls == [("vr", [0, 1], [1, 3])]
    with pytest.raises(SystemExit):
        mod.main(["vr", "--people", "1", "--groups"])
    assert "give one" in capsys.readouterr().err
