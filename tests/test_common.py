# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The common contract, run over EVERY registered mechanism (the list comes from MECHANISMS).

Each entry's ``example(mode)`` gives a tiny input of its level and parameters. Checked:

* same seed -> same output;
* ``guarantee(params, shape_of(data))`` -- the data-free privacy map -- equals the record the
  release carries, flags compared (only the fixed-seed flag of a seeded run is ignored);
* named errors (never a bare TypeError / AttributeError) for another level's input and for
  another mechanism's parameter type, through the entry and through ``gazeprivacy.protect``;
* sound is the default mode; paper mode, where it exists, is recorded and flagged (not formally
  private or at least one flag); a baseline release is not formally private;
* sample- and event-level releases keep the recordings, their order and row counts; a
  **synthetic-population** mechanism (``synthetic_population=True``) instead writes a structure
  set by its parameters and the public shape alone: the same ids, counts, lengths, time grid and
  labels (and record) for an input with other row counts, recording ids and order, no input id,
  every recording ``output_length_s`` long on the public grid, only declared labels.

A toy mechanism defined here (one module-level definition plus one registry entry) goes
through ``protect``, ``plan_for`` and these same checks without edits elsewhere.
"""

from __future__ import annotations

import functools
import re
import warnings
from dataclasses import MISSING, dataclass, fields, replace
from typing import Any

import numpy as np
import polars as pl
import pytest

import gazeprivacy
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.engines.plan import partition_streams, plan_for
from gazeprivacy.exceptions import (
    InvalidDataError,
    InvalidParameterError,
    NotFormallyPrivateWarning,
)
from gazeprivacy.guarantees import Flag, FlagCode, Guarantee, Kind, Release, Unit
from gazeprivacy.mechanisms import MECHANISMS
from gazeprivacy.mechanisms.base import example_dataset, protect_recordings
from gazeprivacy.mechanisms.contract import (
    Level,
    Mechanism,
    Mode,
    PerRecordingPlan,
    SampleShape,
    coerce_option,
)
from gazeprivacy.mechanisms.heatmaps import AggregateMap, example_maps
from gazeprivacy.mechanisms.samples.dpgazesynth import DPGazeSynthParams
from gazeprivacy.mechanisms.samples.kaleido import KaleidoParams

NAMES = tuple(MECHANISMS)


def _quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotFormallyPrivateWarning)
        return fn(*args, **kwargs)


def _arrays(output: Any) -> list[np.ndarray]:
    """The released values of any level's output, as arrays to compare."""
    if isinstance(output, Dataset):
        return [a for r in output for a in (r.x, r.y)]
    if isinstance(output, AggregateMap):
        return [output.values]
    if isinstance(output, pl.DataFrame):
        return [output.to_numpy()]
    return [s.values for s in output]


def _wrong_input(level: Level) -> Any:
    """An input of another level."""
    return example_maps() if level.takes_samples else example_dataset(2, 1.0)


def _without_seed_flag(g: Guarantee) -> Guarantee:
    return replace(g, seed=None, flags=tuple(f for f in g.flags
                                             if f.code is not FlagCode.FIXED_SEED))


def _modes(mech: Mechanism) -> dict[Mode, tuple[Any, Any]]:
    assert mech.example is not None, f"{mech.name}: the entry gives no example(mode)"
    out = {m: mech.example(m) for m in Mode}
    return {m: ex for m, ex in out.items() if ex is not None}


# --------------------------------------------------------------------------------------------
# the checks (plain functions: the registry run and the toy mechanism share them)


def check_same_seed_same_output(name: str) -> None:
    mech = MECHANISMS[name]
    for mode, (data, params) in _modes(mech).items():
        a = _quiet(mech.protect, data, params, rng=np.random.default_rng(3))
        b = _quiet(mech.protect, data, params, rng=np.random.default_rng(3))
        for x, y in zip(_arrays(a.output), _arrays(b.output), strict=True):
            np.testing.assert_array_equal(x, y, err_msg=f"{name} ({mode})")
        assert a.guarantee == b.guarantee


def check_guarantee_is_the_privacy_map(name: str) -> None:
    mech = MECHANISMS[name]
    for mode, (data, params) in _modes(mech).items():
        shape = mech.shape_of(data)
        predicted = mech.guarantee(params, shape)
        rel = _quiet(gazeprivacy.protect, data, mechanism=name, params=params, seed=5)
        assert rel.guarantee.seed == 5
        record = _without_seed_flag(rel.guarantee)
        if predicted.per_participant is None:
            # only event-level maps may leave the composition to the run: the number of
            # events per participant is found by detection on the data (documented there)
            assert mech.level is Level.EVENTS and record.per_participant, name
            record = replace(record, per_participant=None)
        assert record == predicted, f"{name} ({mode}): record != guarantee(params, shape)"
        assert record.flags == predicted.flags  # compared, not erased


def check_wrong_input_is_named(name: str) -> None:
    mech = MECHANISMS[name]
    data, params = next(iter(_modes(mech).values()))
    wrong = _wrong_input(mech.level)
    with pytest.raises(InvalidDataError, match=f"{mech.level.value}-level"):
        mech.protect(wrong, params, rng=np.random.default_rng(0))
    with pytest.raises(InvalidDataError, match=re.escape(f"takes {mech.level.input_kind}")):
        gazeprivacy.protect(wrong, mechanism=name, params=params, seed=0)
    other = next(m for n, m in MECHANISMS.items()
                 if m.params_type is not mech.params_type and m.example is not None)
    other_params = next(ex[1] for ex in map(other.example, Mode) if ex is not None)
    with pytest.raises(InvalidParameterError, match=f"must be a {mech.params_type.__name__}"):
        mech.protect(data, other_params, rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameterError, match=f"must be a {mech.params_type.__name__}"):
        gazeprivacy.protect(data, mechanism=name, params=other_params, seed=0)


def check_modes(name: str) -> None:
    mech = MECHANISMS[name]
    mode_field = {f.name: f for f in fields(mech.params_type)}.get("mode")
    if mode_field is not None:
        assert mode_field.default is Mode.SOUND, f"{name}: sound must be the default mode"
        with pytest.raises(InvalidParameterError, match="mode must be one of 'sound'"):
            replace(_modes(mech)[Mode.SOUND][1], mode="no-such-mode")
    examples = _modes(mech)
    assert examples, f"{name}: no example in any mode"
    for mode, (data, params) in examples.items():
        g = _quiet(mech.protect, data, params, rng=np.random.default_rng(1)).guarantee
        if mode is Mode.PAPER:
            assert params.mode is Mode.PAPER and g.mode == "paper"
            assert not g.formally_private or g.flags, f"{name}: paper mode is not flagged"
        elif mode is Mode.BASELINE:
            assert not g.formally_private, f"{name}: a baseline release claims privacy"
        elif mode_field is not None:
            assert g.mode == "sound", name


def check_rows_are_kept(name: str) -> None:
    mech = MECHANISMS[name]
    if not mech.level.takes_samples or mech.synthetic_population:
        return  # a synthetic population: check_public_structure
    for data, params in _modes(mech).values():
        out = _quiet(mech.protect, data, params, rng=np.random.default_rng(2)).output
        assert isinstance(out, Dataset)
        assert [r.recording for r in out] == [r.recording for r in data]
        assert [r.participant for r in out] == [r.participant for r in data]
        assert [r.n_samples for r in out] == [r.n_samples for r in data]


def _other_private_structure(data: Dataset) -> Dataset:
    """``data`` with the same public shape as a synthetic population sees it (participants,
    labels, rate, geometry) but other recording ids, row counts and order."""
    recs = []
    for i, r in enumerate(reversed(data.recordings)):
        n = max(2, r.n_samples - 7 * (i + 1))
        recs.append(Recording(recording=f"other-{i}", participant=r.participant, t=r.t[:n],
                              x=r.x[:n], y=r.y[:n], sampling_rate_hz=r.sampling_rate_hz,
                              labels=r.labels, geometry=r.geometry))
    return Dataset(tuple(recs), name="other")


def _structure(ds: Dataset) -> list[tuple[Any, ...]]:
    return [(r.recording, r.participant, r.n_samples, r.sampling_rate_hz, dict(r.labels),
             r.t.tobytes(), r.pupil is None, tuple(r.channels), tuple(r.extras)) for r in ds]


def check_public_structure(name: str) -> None:
    mech = MECHANISMS[name]
    if not mech.synthetic_population:
        return
    assert mech.level.takes_samples, f"{name}: a synthetic population is a Dataset"
    for mode, (data, params) in _modes(mech).items():
        a = _quiet(mech.protect, data, params, rng=np.random.default_rng(6))
        other = _other_private_structure(data)
        b = _quiet(mech.protect, other, params, rng=np.random.default_rng(6))
        assert _structure(a.output) == _structure(b.output), f"{name} ({mode}): structure " \
            "follows the input's recordings, rows or order"
        assert a.guarantee == b.guarantee == mech.guarantee(params, mech.shape_of(other))
        assert Guarantee.from_json(a.guarantee.to_json()) == a.guarantee
        g = a.guarantee
        raw_ids = {r.participant for r in data} | {r.recording for r in data}
        assert raw_ids.isdisjoint({r.participant for r in a.output} |
                                  {r.recording for r in a.output}), f"{name}: an input id"
        assert not raw_ids & set(g.per_participant or {}), f"{name}: an input id in the record"
        length = g.parameters["output_length_s"]
        declared = set(g.parameters["public_labels"])
        for r in a.output:
            assert r.n_samples == round(length * r.sampling_rate_hz), name
            np.testing.assert_array_equal(r.t, np.arange(r.n_samples) / r.sampling_rate_hz)
            assert set(r.labels) == declared, f"{name}: undeclared labels {set(r.labels)}"
            assert r.pupil is None and not r.channels and not r.extras, name


CHECKS = (check_same_seed_same_output, check_guarantee_is_the_privacy_map,
          check_wrong_input_is_named, check_modes, check_rows_are_kept,
          check_public_structure)


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__.removeprefix("check_"))
@pytest.mark.parametrize("name", NAMES)
def test_contract(name: str, check: Any) -> None:
    check(name)


def test_every_mechanism_is_in_the_run_and_every_level_is_covered():
    assert len(NAMES) == 17
    assert {m.level for m in MECHANISMS.values()} == set(Level)
    for name, mech in MECHANISMS.items():
        assert mech.name == name and mech.summary and mech.citation, name
        assert (mech.plan is None) != (mech.partition_refusal == ""), name


def test_series_tables_go_through_the_contract_too():
    mech = MECHANISMS["series-lpa"]
    data, params = _modes(mech)[Mode.SOUND]
    table = pl.concat([s.to_table() for s in data], how="vertical")
    rel = mech.protect(table, params, rng=np.random.default_rng(0))
    assert isinstance(rel.output, pl.DataFrame) and rel.output.shape == table.shape
    assert rel.guarantee == mech.guarantee(params, mech.shape_of(table))


# --------------------------------------------------------------------------------------------
# a toy mechanism: one module-level definition and one registry entry


@dataclass(frozen=True, kw_only=True)
class ToyParams:
    epsilon: float
    mode: Mode = Mode.SOUND

    def __post_init__(self) -> None:
        object.__setattr__(self, "mode", coerce_option("mode", self.mode, Mode,
                                                       (Mode.SOUND, Mode.PAPER)))


def toy_guarantee(params: ToyParams, shape: SampleShape) -> Guarantee:
    flags = (Flag(FlagCode.PROOF_GAP, "toy paper mode"),) if params.mode is Mode.PAPER else ()
    g = Guarantee(mechanism="toy", kind=Kind.LOCAL_DP, unit=Unit.SAMPLE,
                  epsilon=params.epsilon, mode=params.mode, parameters={"eps": params.epsilon},
                  flags=flags)
    return g.compose(shape.units_per_participant(lambda r: r.n_samples))


def toy_scale(params: ToyParams, geometry: Any) -> float:
    """Laplace scale of the toy: the L1 diameter of the screen over epsilon (a sample clamped
    to the screen moves by at most width + height in x and y together)."""
    if geometry is None:
        raise InvalidDataError("the toy mechanism needs a screen geometry")
    return (geometry.width_deg + geometry.height_deg) / params.epsilon


def toy_run(dataset: Dataset, params: ToyParams, *, rng: np.random.Generator,
            progress: bool = False, scale: Any = toy_scale) -> Release[Dataset]:
    """Local DP per sample: clamp each sample to the screen (a missing one is the screen's
    centre, so the release carries no mask), add Laplace noise to x and y, and clamp the result
    to the screen again (post-processing)."""
    def one(rec: Recording, g: np.random.Generator) -> Release[Recording]:
        geo, b = rec.geometry, scale(params, rec.geometry)
        xs, ys = (geo.x_min_deg, geo.x_max_deg), (geo.y_min_deg, geo.y_max_deg)
        x, y = (np.clip(np.nan_to_num(v, nan=sum(lim) / 2) + g.laplace(0, b, rec.n_samples),
                        *lim) for v, lim in ((np.clip(rec.x, *xs), xs), (np.clip(rec.y, *ys), ys)))
        out = rec.with_gaze(x, y)
        return Release(out, replace(toy_guarantee(params, SampleShape(())),
                                    per_participant=None))

    return protect_recordings(dataset, one, rng=rng, units=lambda r: r.n_samples,
                              progress=progress)


TOY = Mechanism(name="toy", level=Level.SAMPLES, params_type=ToyParams, run=toy_run,
                guarantee=toy_guarantee, summary="toy Laplace jitter", citation="this test",
                plan=functools.partial(PerRecordingPlan, "toy"),
                example=lambda mode: (None if mode is Mode.BASELINE else
                                      (example_dataset(3, 1.0), ToyParams(epsilon=1.0,
                                                                          mode=mode))))


@pytest.fixture
def toy_registered(monkeypatch):
    monkeypatch.setitem(MECHANISMS._entries, "toy", TOY)  # the one registry line
    return TOY


def test_a_toy_mechanism_needs_one_definition_and_one_registry_entry(toy_registered):
    ds = example_dataset(3, 1.0)
    rel = gazeprivacy.protect(ds, mechanism="toy", epsilon=2.0, seed=1)
    assert rel.guarantee.mechanism == "toy" and rel.guarantee.epsilon == 2.0
    assert rel.guarantee.max_participant_epsilon == 2.0 * ds.recordings[0].n_samples
    assert [r.n_samples for r in rel.output] == [r.n_samples for r in ds]
    plan = plan_for("toy", epsilon=2.0)
    assert isinstance(plan, PerRecordingPlan) and not plan.two_phase
    streams = partition_streams(0, 1)
    part = plan.release(ds, *plan.client(ds, streams.client(0)), streams.release(0))
    assert part.guarantee == toy_guarantee(ToyParams(epsilon=2.0), TOY.shape_of(ds))
    for check in CHECKS:
        check("toy")


def test_an_unflagged_paper_mode_is_caught(monkeypatch):
    def unflagged(dataset, params, *, rng, progress=False):
        rel = toy_run(dataset, params, rng=rng)
        return Release(rel.output, replace(rel.guarantee, flags=()))

    monkeypatch.setitem(MECHANISMS._entries, "toy", replace(TOY, run=unflagged))
    with pytest.raises(AssertionError, match="paper mode is not flagged"):
        check_modes("toy")


def test_a_guarantee_that_reads_the_data_is_caught(monkeypatch):
    def leaky(dataset, params, *, rng, progress=False):
        rel = toy_run(dataset, params, rng=rng)
        n = int(np.isfinite(dataset.recordings[0].x).sum())
        return Release(rel.output, replace(rel.guarantee, parameters={"eps": n}))

    monkeypatch.setitem(MECHANISMS._entries, "toy", replace(TOY, run=leaky))
    with pytest.raises(AssertionError, match="record != guarantee"):
        check_guarantee_is_the_privacy_map("toy")


def test_required_params_have_no_defaults_and_presets_keep_sound_mode():
    for name, mech in MECHANISMS.items():
        paper = getattr(mech.params_type, "paper", None)
        example = _modes(mech)
        if paper is None or "mode" not in {f.name for f in fields(mech.params_type)}:
            continue
        params = next(iter(example.values()))[1]
        required = {f.name: getattr(params, f.name) for f in fields(mech.params_type)
                    if f.default is MISSING and f.default_factory is MISSING}
        try:
            preset = paper(**required)
        except (TypeError, InvalidParameterError):
            continue  # presets with other required arguments (n_observers, epsilon0)
        assert preset.mode is Mode.SOUND, f"{name}: a preset must not switch to paper mode"


@pytest.mark.parametrize(("make", "field", "enum_value"), [
    (lambda v: DPGazeSynthParams(epsilon=1.0, transitions=v), "transitions", "one-per-window"),
    (lambda v: DPGazeSynthParams(epsilon=1.0, oue_path=v), "oue_path", "client-reports"),
    (lambda v: DPGazeSynthParams(epsilon=1.0, missing=v), "missing", "fill"),
    (lambda v: KaleidoParams(epsilon=1.0, radius_deg=1.0, window_samples=5, test_distance=v),
     "test_distance", "great-circle"),
    (lambda v: KaleidoParams(epsilon=1.0, radius_deg=1.0, window_samples=5, missing=v), "missing",
     "hold"),
], ids=["transitions", "oue_path", "dpgs_missing", "test_distance", "kaleido_missing"])
def test_string_options_become_enums_and_errors_list_the_valid_values(make, field, enum_value):
    p = make(enum_value)
    value = getattr(p, field)
    assert value == enum_value and type(value) is not str  # a StrEnum member
    with pytest.raises(InvalidParameterError, match=f"{field} must be one of .*'{enum_value}'"):
        make("no-such-option")


# --------------------------------------------------------------------------------------------
# the toy through the CLI, the experiment runner and the auditor (no edits elsewhere)


def test_the_cli_protects_a_file_with_the_toy(toy_registered, tmp_path):
    import json

    from typer.testing import CliRunner

    from gazeprivacy.cli.app import app
    from gazeprivacy.data.io import read_dataset, write_dataset
    from gazeprivacy.mechanisms.release import guarantee_path

    ds = example_dataset(3, 1.0)
    src, out = write_dataset(ds, tmp_path / "in.parquet"), tmp_path / "out.parquet"
    res = CliRunner().invoke(app, ["protect", str(src), str(out), "--mechanism", "toy",
                                   "--param", "epsilon=2", "--seed", "1"])
    assert res.exit_code == 0, res.output
    record = json.loads(guarantee_path(out).read_text())
    assert record["mechanism"] == "toy" and record["epsilon"] == 2.0 and record["seed"] == 1
    written = read_dataset(out)
    assert sorted(r.n_samples for r in written) == sorted(r.n_samples for r in ds)
    raw = np.concatenate([r.x for r in ds])
    assert not np.isin(np.concatenate([r.x for r in written]), raw).any()  # noise was added


def _run_toy_experiment(tmp_path: Any, **mechanism: Any) -> Any:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))  # tests/evaluate_helpers.py
    from evaluate_helpers import fake_featurizer, tiny_dataset
    from gazeprivacy.experiments.config import parse_config
    from gazeprivacy.experiments.engine import run_experiment

    cfg = parse_config({
        "name": "toy", "seeds": [0], "datasets": [{"name": "tiny", "source": "injected"}],
        "mechanisms": [{"name": "toy", "grid": {"epsilon": [2.0]}, **mechanism}],
        "attacks": [{"kind": "reidentification", "classifier": "knn", "n_splits": 2}]})
    return run_experiment(cfg, tmp_path, workers=1, featurizer=fake_featurizer,
                          datasets={"tiny": tiny_dataset(n_participants=3, n_stimuli=2,
                                                         n_samples=200)})


def _check_toy_experiment(res: Any) -> None:
    import json

    toy = res.results.filter(pl.col("mechanism") == "toy")
    assert toy.height > 0 and toy["epsilon"].unique().to_list() == [2.0]
    records = [g["guarantee"] for g in res.guarantees if g["mechanism"] == "toy"]
    assert records and records[0]["unit"] == "sample" and records[0]["epsilon"] == 2.0
    assert json.loads(toy["parameters"][0]) == {"epsilon": 2.0}


def test_the_experiment_runner_runs_the_toy(toy_registered, tmp_path):
    _check_toy_experiment(_run_toy_experiment(tmp_path, preset="params"))


def test_the_experiment_runner_runs_the_toy_with_the_default_preset(toy_registered, tmp_path):
    _check_toy_experiment(_run_toy_experiment(tmp_path))


def _broken_toy(dataset, params, *, rng, progress=False):
    """The toy with its noise at scale 1e-6 whatever epsilon says (the record still claims it)."""
    return toy_run(dataset, params, rng=rng, scale=lambda p, g: 1e-6)


def test_the_auditor_derives_a_whole_release_adapter_for_the_toy(toy_registered):
    from gazeprivacy.audit.adapters import ADAPTERS, audit_mechanism, available_adapters
    from gazeprivacy.audit.release import RELEASE_SCENARIOS, ReleaseAudit

    assert "toy-release" in ADAPTERS and "toy-release" in available_adapters()
    adapter = ADAPTERS["toy-release"]
    assert adapter.kind == "release" and adapter.requires == "toy" and adapter.modes == ("sound",)
    scn = RELEASE_SCENARIOS["toy"]()
    assert scn.unit == "sample" and scn.rows.size == 1  # one unit, from the record
    a, b = scn.a.recordings[0], scn.b.recordings[0]
    assert np.array_equal(np.flatnonzero(a.x != b.x), scn.rows)
    res = audit_mechanism("toy-release", n_trials=200, rng=np.random.default_rng(19))
    assert isinstance(res, ReleaseAudit) and res.claimed_epsilon == 1.0
    assert res.passed, res.column_rows()
    audited = {c.column for c in res.columns if c.result is not None}
    assert {"x", "y"} <= audited


def test_the_audit_of_a_toy_that_ignores_epsilon_fails(monkeypatch):
    from gazeprivacy.audit.adapters import audit_mechanism

    monkeypatch.setitem(MECHANISMS._entries, "toy", replace(TOY, run=_broken_toy))
    res = audit_mechanism("toy-release", n_trials=100, rng=np.random.default_rng(19))
    x = next(c for c in res.columns if c.column == "x")
    assert not res.passed and not x.passed
    assert x.result.epsilon_lower_bound > 1.0 and x.result.p_value < 0.01


def test_the_audit_command_gates_on_the_toy(monkeypatch):
    from typer.testing import CliRunner

    from gazeprivacy.cli.app import app

    args = ["audit", "--mechanism", "toy-release", "--trials", "100", "--seed", "1"]
    monkeypatch.setitem(MECHANISMS._entries, "toy", TOY)
    ok = CliRunner().invoke(app, args)
    assert ok.exit_code == 0, ok.output
    assert "audit gate: ok" in " ".join(ok.output.split())
    monkeypatch.setitem(MECHANISMS._entries, "toy", replace(TOY, run=_broken_toy))
    bad = CliRunner().invoke(app, args)
    out = " ".join(bad.output.split())
    assert bad.exit_code == 1, bad.output
    assert "audit gate: FAIL -- unexpected violation: toy-release [sound]" in out


def test_without_the_toy_there_is_no_toy_adapter():
    from gazeprivacy.audit.adapters import ADAPTERS

    assert "toy" not in MECHANISMS and "toy-release" not in ADAPTERS
    assert not any(ADAPTERS[n].requires == "toy" for n in ADAPTERS)
