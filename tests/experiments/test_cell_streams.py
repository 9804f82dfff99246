# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""A cell's random streams are keyed by the release's identity (dataset, mechanism, preset,
parameter point), never by its position in the config: adding a release to a config leaves the
others' draws, and so their outputs, as they were."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from evaluate_helpers import fake_featurizer, fake_registry, tiny_dataset
from gazeprivacy.experiments.config import ConfigError, identity_json, parse_config
from gazeprivacy.experiments.engine import run_experiment
from gazeprivacy.experiments.engine.cells import (
    STREAMS,
    Cell,
    _streams,
    expand_cells,
    release_identity,
)


def _config(mechanisms, **over):
    d = {"name": "t", "seeds": [0], "datasets": [{"name": "tiny", "source": "injected"}],
         "mechanisms": mechanisms,
         "attacks": [{"kind": "reidentification", "classifier": "knn", "n_splits": 2}]}
    d.update(over)
    return parse_config(d)


@pytest.fixture(scope="module")
def tiny():
    return tiny_dataset(n_participants=4, n_stimuli=3, n_samples=200)


def _run(cfg, out, tiny):
    return run_experiment(cfg, out, registry=fake_registry(), datasets={"tiny": tiny},
                          featurizer=fake_featurizer, workers=1)


def _release(res, label):
    """A release's result rows (without its label)."""
    return res.results.filter(pl.col("mechanism") == label).drop("mechanism").sort(
        "evaluation", "metric")


def _preview(out, cfg, label):
    """A release's preview: its first recording's path and its density grid."""
    cell = next(c for c in expand_cells(cfg) if c.label == label)
    with np.load(out / "cells" / f"{cell.key}.npz") as f:
        return {k: f[k] for k in ("px", "py", "density_protected")}


ONE = {"name": "fake-noise", "grid": {"epsilon": [0.5]}}


def test_adding_releases_before_a_release_leaves_its_draw_and_results_unchanged(tmp_path, tiny):
    alone = _config([ONE])
    # a baseline and another mechanism before it: under position keying its stream would move
    more = _config([{"name": "fake-noise", "label": "other", "grid": {"epsilon": [5.0]}}, ONE],
                   baselines=["baseline-centre"])
    a = _run(alone, tmp_path / "alone", tiny)
    b = _run(more, tmp_path / "more", tiny)
    assert b.n_cells == a.n_cells + 2
    pa, pb = _preview(tmp_path / "alone", alone, "fake-noise"), _preview(
        tmp_path / "more", more, "fake-noise")
    for k in pa:  # the release itself, bit for bit
        np.testing.assert_array_equal(pa[k], pb[k])
    assert _release(a, "fake-noise").equals(_release(b, "fake-noise"))
    ga = [g["guarantee"] for g in a.guarantees if g["mechanism"] == "fake-noise"]
    gb = [g["guarantee"] for g in b.guarantees if g["mechanism"] == "fake-noise"]
    assert ga == gb
    # the raw cell (no protection draw) and the attack splits are shared as before
    assert _release(a, "none").equals(_release(b, "none"))


def test_a_release_listed_twice_under_two_labels_is_one_draw(tmp_path, tiny):
    twice = _config([{**ONE, "label": "first"}, {**ONE, "label": "second"}])
    res = _run(twice, tmp_path, tiny)
    for k, v in _preview(tmp_path, twice, "first").items():
        np.testing.assert_array_equal(v, _preview(tmp_path, twice, "second")[k])
    assert _release(res, "first").equals(_release(res, "second"))


def _cell(**over):
    d = {"dataset": "d", "mechanism": "m", "label": "m", "parameters": {"epsilon": 3.0},
         "preset": "paper", "seed": 0, "combo": 1}
    return Cell(**{**d, **over})


def _draws(cell):
    attack, protect = _streams(cell)
    return attack.random(4), protect.random(4)


def test_the_protection_stream_is_the_identity_s_own_and_the_attack_stream_the_seed_s():
    base_attack, base_protect = _draws(_cell())
    # not part of the identity: the position, the label, how a number is written
    for same in (_cell(combo=7), _cell(label="shown"), _cell(parameters={"epsilon": 3})):
        attack, protect = _draws(same)
        np.testing.assert_array_equal(protect, base_protect)
        np.testing.assert_array_equal(attack, base_attack)
    # the identity: dataset, mechanism, preset, point; and the seed
    for other in (_cell(dataset="e"), _cell(mechanism="n"), _cell(preset="params"),
                  _cell(parameters={"epsilon": 3.0, "k": 2}), _cell(seed=1)):
        assert not np.array_equal(_draws(other)[1], base_protect)
    # every cell of a seed meets the same attack stream; it is no release's stream
    np.testing.assert_array_equal(_draws(_cell(mechanism="n", combo=0))[0], base_attack)
    assert not np.array_equal(base_attack, base_protect)
    np.testing.assert_array_equal(  # the attack stream kept its spawn key (0,)
        base_attack, np.random.default_rng(np.random.SeedSequence(0).spawn(1)[0]).random(4))


def test_the_identity_s_encoding_is_canonical():
    assert release_identity(_cell(parameters={"k": 2, "epsilon": 3})) == (
        '{"dataset":"d","mechanism":"m","parameters":{"epsilon":3.0,"k":2.0},'
        '"preset":"paper"}')


def test_a_grid_value_listed_twice_is_a_config_error():
    with pytest.raises(ConfigError, match=r"grid\.epsilon lists a value twice"):
        _config([{"name": "fake-noise", "grid": {"epsilon": [3, 3.0]}}])


def test_the_identity_normalises_numbers_numpy_s_included():
    same = [({"epsilon": np.int64(3)}, {"epsilon": 3}), ({"epsilon": np.float32(0.5)},
            {"epsilon": 0.5}), ({"epsilon": -0.0}, {"epsilon": 0.0}),
            ({"clip": np.True_}, {"clip": True}), ({"ks": np.array([1, 2])}, {"ks": [1.0, 2]})]
    for a, b in same:
        assert identity_json(a) == identity_json(b), (a, b)
    assert identity_json({"clip": np.True_}) != identity_json({"clip": 1})  # a bool stays one
    # an integer no float holds is written exactly: no collision, no OverflowError
    assert identity_json({"n": 2**53 + 1}) != identity_json({"n": 2**53})
    assert identity_json({"n": 2**53 + 1}) == '{"n":9007199254740993}'
    assert identity_json({"n": np.uint64(2**64 - 1)}) == '{"n":18446744073709551615}'
    assert identity_json({"n": 10**400}) == '{"n":1' + "0" * 400 + "}"
    assert release_identity(_cell(parameters={"epsilon": np.int64(3)})) == release_identity(
        _cell(parameters={"epsilon": 3.0}))


def test_a_grid_value_repeated_as_a_numpy_number_is_a_config_error():
    for repeat in ([np.int64(3), 3], [-0.0, 0.0], [np.float64(0.5), 0.5]):
        with pytest.raises(ConfigError, match=r"grid\.epsilon lists a value twice"):
            _config([{"name": "fake-noise", "grid": {"epsilon": repeat}}])
    _config([{"name": "fake-noise", "grid": {"epsilon": [2**53, 2**53 + 1]}}])  # two values


def _meta(out, cell):
    return json.loads((out / "cells" / f"{cell.key}.json").read_text())


def test_a_cell_drawn_by_another_stream_scheme_is_computed_again(tmp_path, tiny, capsys):
    cfg = _config([ONE])
    first = _run(cfg, tmp_path, tiny)
    cells = expand_cells(cfg)
    for c in cells:  # every finished cell records the scheme and its release
        assert _meta(tmp_path, c)["streams"] == STREAMS == "release-identity-v1"
        assert _meta(tmp_path, c)["release"] == release_identity(c)
    cell = next(c for c in cells if c.label == "fake-noise")
    rows = tmp_path / "cells" / f"{cell.key}.parquet"
    for scheme, said in ((None, "position in the config"), ("by-position-v0", "'by-position-v0'")):
        meta = _meta(tmp_path, cell)  # as an earlier run left it: other draws, other rows
        meta.pop("streams") if scheme is None else meta.update(streams=scheme)
        (tmp_path / "cells" / f"{cell.key}.json").write_text(json.dumps(meta))
        pl.read_parquet(rows).with_columns(value=pl.lit(-1.0)).write_parquet(rows)
        capsys.readouterr()
        again = _run(cfg, tmp_path, tiny)
        assert (again.n_run, again.n_skipped) == (1, len(cells) - 1)
        assert again.results.equals(first.results)  # the stale rows are not mixed in
        err = capsys.readouterr().err
        assert f"computing cell {cell.key} (tiny, fake-noise, seed 0) again" in err
        assert said in err
    assert _run(cfg, tmp_path, tiny).n_run == 0  # recomputed cells are reused


@pytest.mark.parametrize("change", ["preset", "mechanism"])
def test_a_label_whose_release_changed_is_computed_again(tmp_path, tiny, capsys, change):
    registry = {**fake_registry(), "fake-other": fake_registry()["fake-noise"]}
    before = _config([{**ONE, "label": "x"}])
    after = _config([{**ONE, "label": "x", **({"preset": "params"} if change == "preset"
                                               else {"name": "fake-other"})}])
    key = next(c.key for c in expand_cells(after) if c.label == "x")
    assert key == next(c.key for c in expand_cells(before) if c.label == "x")  # same files

    def run(cfg, out):
        return run_experiment(cfg, out, registry=registry, datasets={"tiny": tiny},
                              featurizer=fake_featurizer, workers=1)

    run(before, tmp_path / "out")
    capsys.readouterr()
    res = run(after, tmp_path / "out")
    assert (res.n_run, res.n_skipped) == (1, 1)
    assert f"computing cell {key} (tiny, x, seed 0) again: its earlier result is of another " \
           "release" in capsys.readouterr().err
    fresh = run(after, tmp_path / "fresh")
    assert res.results.equals(fresh.results)
    # the files now hold the new release's draw, not the old one's
    now = _preview(tmp_path / "out", after, "x")["px"]
    np.testing.assert_array_equal(now, _preview(tmp_path / "fresh", after, "x")["px"])
    run(before, tmp_path / "old")
    assert not np.array_equal(now, _preview(tmp_path / "old", before, "x")["px"])
