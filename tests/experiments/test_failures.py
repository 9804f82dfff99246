# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""A cell that fails (any error but a documented refusal) is written as failed, left out of the
results and the report's tables, listed, and computed again by a rerun; the other cells of the
grid go on. The CLI ends with exit code 1 and one line per failed cell."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from evaluate_helpers import FakeNoiseParams, fake_featurizer, fake_registry, tiny_dataset
from gazeprivacy.data.recording import GAZE_UNIT_HINT
from gazeprivacy.exceptions import GazePrivacyError, InvalidDataError
from gazeprivacy.experiments.config import parse_config
from gazeprivacy.experiments.engine import expand_cells, run_experiment
from gazeprivacy.experiments.engine.failures import failure_reason, run_guarded
from gazeprivacy.report.html import build_report

# what the data model says of a release thrown off the screen: its unit advice blames the input
_DEFECT = "recording 'S013-022': x at row 327 is -374.762, beyond 360 degrees"


def _broken(dataset, params: FakeNoiseParams, *, rng, progress=False):
    if params.epsilon < 1:
        raise InvalidDataError(_DEFECT + GAZE_UNIT_HINT)
    return fake_registry()["fake-noise"].run(dataset, params, rng=rng, progress=progress)


def _registry(run=_broken):
    base = fake_registry()["fake-noise"]
    return {"fake-noise": base, "fake-broken": dataclasses.replace(base, name="fake-broken",
                                                                   run=run)}


def _config(seeds=(0, 1)):
    return parse_config({
        "name": "t", "seeds": list(seeds), "datasets": [{"name": "tiny", "source": "injected"}],
        "mechanisms": [{"name": "fake-broken", "grid": {"epsilon": [0.5, 5.0]}},
                       {"name": "fake-noise", "grid": {"epsilon": [0.2]}}],
        "attacks": [{"kind": "reidentification", "classifier": "knn", "n_splits": 2}]})


@pytest.fixture(scope="module")
def tiny():
    return tiny_dataset(n_participants=4, n_stimuli=4, n_samples=300)


def _run(cfg, out, tiny, registry=None, **kw):
    return run_experiment(cfg, out, registry=registry or _registry(), datasets={"tiny": tiny},
                          featurizer=fake_featurizer, **{"workers": 1, **kw})


def test_a_failed_cell_is_recorded_and_the_run_goes_on(tmp_path, tiny, capsys):
    res = _run(_config(), tmp_path, tiny)
    # said as it happens, without a progress bar too; the unit advice is dropped
    err = capsys.readouterr().err
    assert (f'failed: tiny / fake-broken {{"epsilon": 0.5}} seed 1: InvalidDataError: {_DEFECT}'
            in err)
    assert "pixels" not in err
    assert sorted((f["mechanism"], f["epsilon"], f["seed"]) for f in res.failures) == [
        ("fake-broken", 0.5, 0), ("fake-broken", 0.5, 1)]
    assert {f["error"] for f in res.failures} == {f"InvalidDataError: {_DEFECT}"}
    assert json.loads((tmp_path / "failures.json").read_text()) == res.failures
    record = json.loads(Path(res.failures[0]["file"]).read_text())
    assert "Traceback" in record["traceback"] and "_broken" in record["traceback"]
    # the other cells ran; the failed ones are in no table
    reid = res.results.filter(pl.col("metric") == "identification_rate")
    assert sorted(set(zip(reid["mechanism"], reid["epsilon"], strict=True)),
                  key=str) == sorted({("none", None), ("fake-broken", 5.0),
                                      ("fake-noise", 0.2)}, key=str)
    assert res.results.filter(pl.col("epsilon") == 0.5).height == 0
    assert res.n_cells == 8 and not res.refusals
    report = build_report(tmp_path).read_text()
    assert "Failed cells" in report and "beyond 360 degrees" in report
    with pytest.raises(GazePrivacyError, match=r"2 cell\(s\) failed, e\.g\. tiny / fake-broken"):
        res.raise_failures()


def test_a_rerun_computes_the_failed_cells_again(tmp_path, tiny):
    cfg = _config(seeds=[0])
    first = _run(cfg, tmp_path, tiny)
    assert first.n_run == 4 and len(first.failures) == 1
    again = _run(cfg, tmp_path, tiny)  # still broken: only the failed cell runs again
    assert again.n_run == 1 and len(again.failures) == 1
    fixed = _registry(run=fake_registry()["fake-noise"].run)
    done = _run(cfg, tmp_path, tiny, registry=fixed)
    assert done.n_run == 1 and done.failures == []
    assert not list((tmp_path / "cells").glob("*.failed.json"))
    assert json.loads((tmp_path / "failures.json").read_text()) == []
    assert done.results.filter(pl.col("epsilon") == 0.5).height > 0
    done.raise_failures()  # nothing failed: no error


def test_a_stale_cell_that_fails_leaves_no_old_rows(tmp_path, tiny):
    cfg = _config(seeds=[0])
    fixed = _registry(run=fake_registry()["fake-noise"].run)
    assert _run(cfg, tmp_path, tiny, registry=fixed).failures == []
    # the earlier run's draw of every cell is stale now (another stream scheme)
    for meta in (tmp_path / "cells").glob("*.json"):
        m = json.loads(meta.read_text())
        meta.write_text(json.dumps({**m, "streams": "an older scheme"}))
    res = _run(cfg, tmp_path, tiny)
    assert res.n_run == 4 and len(res.failures) == 1
    assert res.results.filter(pl.col("epsilon") == 0.5).height == 0  # not the old rows


def test_a_failed_cell_does_not_pool_its_fold_rows(tmp_path, tiny):
    cell = next(c for c in expand_cells(_config(seeds=[0])) if c.mechanism == "fake-broken")
    ctx = dataclasses.make_dataclass("Ctx", ["out_dir"])(str(tmp_path))
    for folder in ("cells", "membership", "attribute"):
        (tmp_path / folder).mkdir()
    for folder in ("membership", "attribute"):
        (tmp_path / folder / f"{cell.key}.parquet").write_bytes(b"partial")

    def boom(cell, ctx):
        raise ValueError("an evaluation's bug\nsecond line")

    meta = run_guarded(boom, cell, ctx)
    assert meta["failed"] == "ValueError: an evaluation's bug"
    assert not list((tmp_path / "membership").iterdir())
    assert not list((tmp_path / "attribute").iterdir())
    # a later success removes the failure
    assert run_guarded(lambda c, x: {"ok": True}, cell, ctx) == {"ok": True}
    assert not (tmp_path / "cells" / f"{cell.key}.failed.json").exists()


def test_ctrl_c_still_stops_the_run(tmp_path, tiny):
    cell = expand_cells(_config(seeds=[0]))[0]
    ctx = dataclasses.make_dataclass("Ctx", ["out_dir"])(str(tmp_path))

    def interrupted(cell, ctx):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_guarded(interrupted, cell, ctx)


def test_the_reason_is_one_line_without_the_unit_advice():
    assert failure_reason(InvalidDataError(_DEFECT + GAZE_UNIT_HINT + "\nmore")) == (
        f"InvalidDataError: {_DEFECT}")
    assert failure_reason(RuntimeError()) == "RuntimeError"


@pytest.mark.slow
def test_a_failed_cell_in_a_worker_process_is_recorded_too(tmp_path, tiny):
    res = _run(_config(seeds=[0]), tmp_path, tiny, workers=2)
    assert [(f["mechanism"], f["epsilon"]) for f in res.failures] == [("fake-broken", 0.5)]
    assert res.results.filter(pl.col("mechanism") == "fake-noise").height > 0


def test_evaluate_names_each_failed_cell_and_exits_1(tmp_path, tiny, monkeypatch):
    import gazeprivacy.experiments.engine as engine
    from gazeprivacy.cli.app import app

    def run(cfg, out, **kw):  # the broken test mechanism on the tiny data
        return run_experiment(cfg, out, registry=_registry(), datasets={"tiny": tiny},
                              featurizer=fake_featurizer, workers=1, progress=False)

    monkeypatch.setattr(engine, "run_experiment", run)
    cfg = tmp_path / "exp.toml"
    cfg.write_text('name = "t"\nseeds = [0]\nworkers = 1\n'
                   '[[datasets]]\nname = "tiny"\nsource = "injected"\n'
                   '[[mechanisms]]\nname = "fake-noise"\ngrid = { epsilon = [1.0] }\n'
                   '[[mechanisms]]\nname = "fake-broken"\ngrid = { epsilon = [0.5] }\n'
                   '[[attacks]]\nkind = "reidentification"\nclassifier = "knn"\nn_splits = 2\n')
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["evaluate", str(cfg), "--out", str(out), "--no-progress"])
    assert res.exit_code == 1
    assert "3 cells (3 run, 0 reused, 1 failed)" in res.output
    assert (f'failed: tiny / fake-broken {{"epsilon": 0.5}} seed 0: InvalidDataError: {_DEFECT}'
            in res.output)
    # the closing error: one line through the CLI's handler (main), never a traceback
    error = str(res.exception)
    assert isinstance(res.exception, GazePrivacyError) and "\n" not in error
    assert error.startswith("1 cell(s) failed and are left out of the results and the report")
    assert "--overwrite" in error and "Traceback" not in res.output
    assert "Failed cells" in (out / "report.html").read_text()


def test_a_reproduction_stops_on_a_failed_cell(tmp_path, tiny, monkeypatch):
    from gazeprivacy.experiments.reproduce import _runs

    def run(cfg, out, *, datasets, progress, featurizer):  # the broken test mechanism
        return run_experiment(cfg, out, registry=_registry(), datasets=datasets,
                              featurizer=fake_featurizer, workers=1, progress=progress)

    monkeypatch.setattr(_runs, "run_experiment", run)
    raw = {"name": "t", "seeds": [0], "datasets": [{"name": "tiny", "source": "injected"}],
           "mechanisms": [{"name": "fake-broken", "grid": {"epsilon": [0.5]}}],
           "attacks": [{"kind": "reidentification", "classifier": "knn", "n_splits": 2}]}
    with pytest.raises(GazePrivacyError, match=r"1 cell\(s\) failed.*beyond 360 degrees"):
        _runs.run_roles({"a": raw}, {"a": tiny}, tmp_path, name="t", progress=False)


def test_the_demo_stops_on_a_failed_cell(tmp_path, tiny, monkeypatch):
    import numpy as np

    from gazeprivacy.experiments import demo
    from gazeprivacy.experiments.engine import ExperimentResult

    failure = {"dataset": "tiny", "mechanism": "fake-broken", "parameters": {"epsilon": 1.0},
               "epsilon": 1.0, "seed": 0, "error": f"InvalidDataError: {_DEFECT}", "file": "f"}

    def run(cfg, out, **kw):  # the grid ran, one cell failed
        return ExperimentResult(out_dir=out, results=pl.DataFrame(), guarantees=[], n_cells=2,
                                n_run=2, n_skipped=0, seconds=0.0, failures=[failure])

    monkeypatch.setattr(demo, "run_experiment", run)
    with pytest.raises(GazePrivacyError, match=r"1 cell\(s\) failed, e\.g\. tiny / fake-broken"):
        demo.run_demo(tmp_path, rng=np.random.default_rng(0), dataset=tiny,
                      registry={"fake-broken": _registry()["fake-broken"]},
                      featurizer=fake_featurizer, epsilons=[1.0], n_splits=2, workers=1,
                      settings={"fake-broken": {"preset": "paper", "grid": "epsilon",
                                                "fixed": {}}})
    assert not (tmp_path / "report.html").exists()
