# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Property-based tests (hypothesis) over the loaders and every registered mechanism.

Arbitrary lengths, NaN runs, duplicate and unordered timestamps, millisecond clocks, extreme and
infinite values, empty inputs: the outcome is either a documented error (a
:class:`~gazeprivacy.exceptions.GazePrivacyError` subclass) or an output with the same
recordings and row counts -- never an unexplained exception. Examples are few and bounded so the
suite stays fast; ``--hypothesis-profile`` is not needed.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import fields
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.io import dataset_from_table, read_dataset, write_dataset
from gazeprivacy.data.recording import Dataset, Recording, repair_timestamps
from gazeprivacy.exceptions import (
    DataPolicyWarning,
    GazePrivacyError,
    NotFormallyPrivateWarning,
)
from gazeprivacy.mechanisms import MECHANISMS

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])
GEO = Geometry(x_min_deg=-20, x_max_deg=20, y_min_deg=-15, y_max_deg=15)

_plain = st.floats(-25, 25, allow_nan=False)  # on and off screen
_value = st.one_of(
    _plain, _plain, _plain, _plain, _plain, _plain,  # weight: most rows are ordinary
    st.just(math.nan),                               # missing sample
    st.sampled_from([0.0, -0.0, 360.0, -360.0, 1e-300, 19.999999]),  # edges
)
_extreme = st.sampled_from([math.inf, -math.inf, 1e4, -361.0])  # refused as documented


@st.composite
def raw_recording(draw: Any) -> dict[str, Any]:
    """Arrays for one recording: any length, NaN runs, bad clocks, extreme values."""
    n = draw(st.integers(0, 40))
    x = np.array(draw(st.lists(_value, min_size=n, max_size=n)), dtype=float)
    y = np.array(draw(st.lists(_value, min_size=n, max_size=n)), dtype=float)
    if n and draw(st.integers(0, 9)) == 0:  # one extreme value, sometimes
        (x if draw(st.booleans()) else y)[draw(st.integers(0, n - 1))] = draw(_extreme)
    if n and draw(st.booleans()):  # a NaN run (blink)
        a = draw(st.integers(0, n - 1))
        b = draw(st.integers(a, n))
        x[a:b] = np.nan
        y[a:b] = np.nan
    rate = draw(st.sampled_from([30.0, 60.0, 100.0, 250.0]))
    t = np.arange(n) / rate
    clock = draw(st.sampled_from(["ok", "ok", "ms", "duplicate", "unordered", "nan"]))
    if n >= 2 and clock == "duplicate":
        i = draw(st.integers(1, n - 1))
        t[i] = t[i - 1]
    elif n >= 2 and clock == "unordered":
        i = draw(st.integers(1, n - 1))
        t[[i - 1, i]] = t[[i, i - 1]]
    elif n and clock == "nan":
        t[draw(st.integers(0, n - 1))] = np.nan
    unit = "s"
    if clock == "ms":
        t, unit = t * 1000.0, "ms"
    return {"x": x, "y": y, "t": t, "rate": rate, "unit": unit}


def build(raw: dict[str, Any], rid: str = "r0", participant: str = "p0") -> Recording:
    return Recording.from_arrays(recording=rid, participant=participant, x=raw["x"], y=raw["y"],
                                 t=raw["t"], sampling_rate_hz=raw["rate"], time_unit=raw["unit"],
                                 geometry=GEO)


def quietly(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Call ``fn`` with the documented warnings silenced (they are explained, not errors)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataPolicyWarning)
        warnings.simplefilter("ignore", NotFormallyPrivateWarning)
        return fn(*args, **kwargs)


@SETTINGS
@given(raw=raw_recording())
def test_recording_is_built_with_all_rows_or_refused_with_a_documented_error(raw):
    try:
        rec = quietly(build, raw)
    except GazePrivacyError:
        return
    assert rec.n_samples == raw["x"].size
    # missing-sample policy: a row missing in x or y is missing in both, never dropped
    assert np.array_equal(np.isnan(rec.x), np.isnan(raw["x"]) | np.isnan(raw["y"]))


@SETTINGS
@given(raws=st.lists(raw_recording(), min_size=0, max_size=3))
def test_long_format_loader_keeps_recordings_and_rows_or_raises_a_documented_error(raws):
    rows = []
    for i, raw in enumerate(raws):
        rows.append(pl.DataFrame({"participant": f"p{i % 2}", "recording": f"r{i}",
                                  "t": raw["t"], "x": raw["x"], "y": raw["y"]},
                                 schema={"participant": pl.String, "recording": pl.String,
                                         "t": pl.Float64, "x": pl.Float64, "y": pl.Float64}))
    table = pl.concat(rows) if rows else pl.DataFrame(
        schema={"participant": pl.String, "recording": pl.String, "t": pl.Float64,
                "x": pl.Float64, "y": pl.Float64})
    unit = raws[0]["unit"] if raws else "s"
    try:
        ds = quietly(dataset_from_table, table, time_unit=unit, sampling_rate_hz=100.0)
    except GazePrivacyError:
        # the documented way out for bad clocks keeps every row it does not report as removed
        fixed, removed = repair_timestamps(table, how="drop-duplicates")
        assert fixed.height + removed.height == table.height
        return
    expected = {f"r{i}": raw["x"].size for i, raw in enumerate(raws) if raw["x"].size}
    assert {r.recording: r.n_samples for r in ds} == expected


@SETTINGS
@given(raw=raw_recording(), fmt=st.sampled_from(["csv", "parquet"]))
def test_write_then_read_round_trips_every_row(raw, fmt, tmp_path_factory):
    try:
        rec = quietly(build, raw)
    except GazePrivacyError:
        return
    path = write_dataset(Dataset((rec,), name="prop"), tmp_path_factory.mktemp("io") / f"d.{fmt}")
    back = quietly(read_dataset, path)
    assert [r.recording for r in back] == ["r0"]
    assert back[0].n_samples == rec.n_samples
    np.testing.assert_array_equal(np.isnan(back[0].x), np.isnan(rec.x))


# ---------------------------------------------------------------------------------------------
# every registered mechanism


def params_for(name: str) -> Any:
    """Parameters for a registered mechanism from its field names (privacy values chosen here,
    never library defaults)."""
    spec = MECHANISMS[name]
    names = {f.name for f in fields(spec.params_type)}
    guess = {"epsilon": 1.0, "delta": 1e-3, "radius_deg": 2.0, "window_samples": 5,
             "grid_size": 6, "cap": 2, "fraction": 0.5, "geometry": GEO, "chunk_size": 8,
             "k": 2, "gamma": 2.0, "cvae_epochs": 1, "max_tries": 2, "epsilon0": 1.0,
             # arbitrary arrays are not gaze: the event mechanisms' plausibility gate would
             # refuse most of them (tested in tests/mechanisms/samples/test_event_synth_gate.py)
             "accept_implausible_events": True}
    required = {f.name for f in fields(spec.params_type)
                if f.default is f.default_factory  # both MISSING: no default
                and f.name not in guess}
    assert not required, f"{name}: add values for {sorted(required)} to params_for"
    kw = {k: v for k, v in guess.items() if k in names}
    return spec.params_type(**kw)


def registered(level: str) -> list[str]:
    """Names at ``level``; ``"samples"`` also takes the event-level mechanisms (same I/O)."""
    return [n for n, s in MECHANISMS.items()
            if (s.level.takes_samples if level == "samples" else s.level == level)]


def test_every_registered_mechanism_is_covered_by_a_property_test():
    covered = {"samples", "events", "heatmap", "series"}
    assert {s.level for s in MECHANISMS.values()} <= covered


# k-same-synth needs a group label and distinct participants: its own test below; a synthetic
# population (participant-synth) writes recordings set by its parameters, not the input's: its
# contract variant in tests/test_common.py checks its structure
@pytest.mark.parametrize("name", [n for n in registered("samples") if n != "k-same-synth"
                                  and not MECHANISMS[n].synthetic_population])
@SETTINGS
@given(raws=st.lists(raw_recording(), min_size=1, max_size=3), seed=st.integers(0, 2**32 - 1))
def test_sample_mechanisms_keep_recordings_and_row_counts(name, raws, seed):
    recs = []
    for i, raw in enumerate(raws):
        try:
            recs.append(quietly(build, raw, rid=f"r{i}", participant=f"p{i % 2}"))
        except GazePrivacyError:
            continue
    if not recs:
        return
    ds = Dataset(tuple(recs), name="prop")
    spec = MECHANISMS[name]
    try:
        rel = quietly(spec.protect, ds, params_for(name), rng=np.random.default_rng(seed))
    except GazePrivacyError:
        return
    assert [r.recording for r in rel.output] == [r.recording for r in ds]
    assert [r.n_samples for r in rel.output] == [r.n_samples for r in ds]
    for a, b in zip(rel.output, ds, strict=True):
        np.testing.assert_array_equal(a.t, b.t)
    assert rel.guarantee.to_json()


def test_k_same_synth_reaches_its_assertions():
    """k-same-synth needs a group label and k distinct participants per label value; the generic
    test above gives neither, so it never reached its assertions for k-same-synth (0 of 25
    examples). Here every recording is one participant's, on one stimulus, and the number of
    examples that reach the assertions is counted and must be positive."""
    reached: list[int] = []

    @SETTINGS
    @given(raws=st.lists(raw_recording(), min_size=2, max_size=4),
           seed=st.integers(0, 2**32 - 1))
    def prop(raws: list[dict[str, Any]], seed: int) -> None:
        recs = []
        for i, raw in enumerate(raws):
            try:
                rec = quietly(build, raw, rid=f"r{i}", participant=f"p{i}")
            except GazePrivacyError:
                continue
            recs.append(rec.with_gaze(rec.x, rec.y, labels={"stimulus": "s0"}))
        if len(recs) < 2:
            return
        ds = Dataset(tuple(recs), name="prop")
        rel = quietly(MECHANISMS["k-same-synth"].protect, ds, params_for("k-same-synth"),
                      rng=np.random.default_rng(seed))
        assert [r.recording for r in rel.output] == [r.recording for r in ds]
        assert [r.n_samples for r in rel.output] == [r.n_samples for r in ds]
        for a, b in zip(rel.output, ds, strict=True):
            np.testing.assert_array_equal(a.t, b.t)
            assert np.isnan(a.x[np.isnan(b.x)]).all()  # missing input rows stay missing
            ok = ~np.isnan(a.x)
            assert GEO.contains(a.x[ok], a.y[ok]).all()
        assert rel.guarantee.k is not None and rel.guarantee.k >= 2
        reached.append(1)

    prop()
    assert len(reached) > 0, "no example reached the assertions"


@pytest.mark.parametrize("name", registered("heatmap"))
@SETTINGS
@given(n_obs=st.integers(1, 5), rows=st.integers(1, 4), cols=st.integers(1, 4),
       high=st.sampled_from([0, 1, 5, 10_000]), seed=st.integers(0, 2**32 - 1))
def test_heatmap_mechanisms_release_one_value_per_cell(name, n_obs, rows, cols, high, seed):
    from gazeprivacy.features.gaze_maps import GazeMaps, MapGrid

    counts = np.random.default_rng(seed).integers(0, high + 1, (n_obs, rows, cols))
    maps = GazeMaps(counts=counts, observers=tuple(map(str, range(n_obs))), stimulus="s",
                    grid=MapGrid(width_px=cols, height_px=rows))
    try:
        rel = quietly(MECHANISMS[name].protect, maps, params_for(name),
                      rng=np.random.default_rng(seed))
    except GazePrivacyError:
        return
    assert rel.output.values.shape == (rows, cols)
    assert rel.guarantee.to_json()


@pytest.mark.parametrize("name", registered("series"))
@SETTINGS
@given(n_rec=st.integers(1, 3), n_win=st.integers(1, 20), n_feat=st.integers(1, 3),
       special=st.sampled_from(["none", "nan", "inf", "huge", "constant"]),
       mode=st.sampled_from(["sound", "paper"]), seed=st.integers(0, 2**32 - 1))
def test_series_mechanisms_keep_recordings_and_window_counts(name, n_rec, n_win, n_feat, special,
                                                             mode, seed):
    from gazeprivacy.features.ranges import FeatureRange
    from gazeprivacy.features.window_features import FeatureSeries

    gen = np.random.default_rng(seed)
    feats = tuple(f"f{i}" for i in range(n_feat))
    series = []
    for i in range(n_rec):
        v = gen.uniform(-1, 2, (n_win, n_feat))
        if special == "nan":
            v[gen.integers(n_win), 0] = np.nan
        elif special == "inf":
            v[gen.integers(n_win), 0] = np.inf
        elif special == "huge":
            # 1e150 squares without overflow; 1e300 overflows paper mode's data-driven L2
            # sensitivity (RuntimeWarning in series/_core.pairwise_max) -- reported, not hidden
            v[gen.integers(n_win), 0] = 1e150
        elif special == "constant":
            v[:] = 0.5
        series.append(FeatureSeries(recording=f"r{i}", participant=f"p{i % 2}",
                                    t_start=np.arange(n_win, dtype=float), values=v,
                                    feature_names=feats))
    spec = MECHANISMS[name]
    names = {f.name for f in fields(spec.params_type)}
    kw: dict[str, Any] = {"epsilon": 1.0, "mode": mode}
    if mode == "sound":
        kw["ranges"] = {f: FeatureRange(0.0, 1.0, "natural", "test") for f in feats}
    if "chunk_size" in names and name in ("series-cfpa", "series-dcfpa"):
        kw["chunk_size"] = 4
    try:
        rel = quietly(spec.protect, series, spec.params_type(**kw),
                      rng=np.random.default_rng(seed))
    except GazePrivacyError:
        return
    assert [s.recording for s in rel.output] == [s.recording for s in series]
    w = getattr(spec.params_type(**kw), "subsample_w", 1)
    assert [s.n_windows for s in rel.output] == [-(-s.n_windows // w) for s in series]
    assert all(np.isfinite(s.values).all() for s in rel.output)
    assert rel.guarantee.to_json()


# ---------------------------------------------------------------------------------------------
# a dataset-specific loader, fed fuzzed files in its on-disk layout

_cell = st.one_of(st.floats(-0.3, 1.5, allow_nan=False).map(repr),
                  st.floats(-0.3, 1.5, allow_nan=False).map(repr),
                  st.sampled_from(["nan", "", "1e9", "-inf", "abc", "0.5,0.5"]))


@SETTINGS
@given(files=st.lists(st.tuples(st.integers(1, 3), st.sampled_from(["READ", "WATCH", "JUMP"]),
                                st.lists(st.tuples(_cell, _cell), max_size=12)),
                      max_size=3, unique_by=lambda f: (f[0], f[1])))
def test_gazegraph_loader_on_fuzzed_files_keeps_every_row_or_raises_a_documented_error(files):
    import tempfile
    from pathlib import Path

    from gazeprivacy.data.loaders.gazegraph import load_gazegraph

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "gazegraph_desktop_activity"
        root.mkdir()
        expected = {}
        for p, act, rows in files:
            (root / f"P{p}").mkdir(exist_ok=True)
            (root / f"P{p}" / f"P{p}_{act}.csv").write_text(
                "".join(f"{a},{b}\n" for a, b in rows))
            if act != "JUMP":  # not an activity of the dataset: ignored by the loader
                expected[f"P{p}_{act.lower()}"] = len(rows)
        try:
            ds = quietly(load_gazegraph, tmp)
        except GazePrivacyError:
            return
        assert {r.recording: r.n_samples for r in ds} == expected
