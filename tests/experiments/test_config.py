# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
from __future__ import annotations

from pathlib import Path

import pytest

from gazeprivacy.experiments.config import ConfigError, load_config, parse_config
from gazeprivacy.experiments.engine import expand_cells

REPO = Path(__file__).resolve().parents[2]


def _base(**over):
    d = {"name": "x", "seeds": [0, 1], "datasets": [{"name": "d", "source": "sample"}],
         "mechanisms": [{"name": "m", "grid": {"epsilon": [1, 2], "grid_size": [30, 60]}}],
         "attacks": [{"kind": "reidentification"}]}
    d.update(over)
    return d


def test_grid_expands_datasets_mechanisms_points_and_seeds():
    cfg = parse_config(_base())
    cells = expand_cells(cfg)
    # per seed: 1 raw cell + 2 x 2 grid points
    assert len(cells) == 2 * (1 + 4)
    assert {c.seed for c in cells} == {0, 1}
    assert len({c.key for c in cells}) == len(cells)
    assert [c.parameters for c in cells if c.seed == 0][1:] == [
        {"epsilon": 1, "grid_size": 30}, {"epsilon": 1, "grid_size": 60},
        {"epsilon": 2, "grid_size": 30}, {"epsilon": 2, "grid_size": 60}]


@pytest.mark.parametrize("change, match", [
    pytest.param({"seeds": []}, "seeds must be a non-empty list", id="no_seeds"),
    pytest.param({"seeds": [1, 1]}, "seeds must be distinct", id="duplicate_seeds"),
    pytest.param({"colour": "red"}, r"unknown key\(s\) \['colour'\] in the config",
                 id="unknown_top_key"),
    pytest.param({"datasets": [{"name": "d", "source": "ftp"}]}, "source must be one of",
                 id="bad_source"),
    pytest.param({"datasets": [{"name": "d", "source": "file"}]}, "needs path",
                 id="file_without_path"),
    pytest.param({"mechanisms": [{"name": "m", "grid": {"epsilon": 3}}]},
                 r"mechanisms\[0\].grid.epsilon must be a non-empty list", id="scalar_grid"),
    pytest.param({"mechanisms": [{"name": "m", "grid": {"epsilon": [1]},
                                  "fixed": {"epsilon": 2}}]}, "both grid and fixed",
                 id="grid_and_fixed"),
    pytest.param({"attacks": [{"kind": "reidentification", "classifier": "cnn"}]},
                 "classifier must be one of", id="bad_classifier"),
    pytest.param({"attacks": [{"kind": "reidentification", "threat": "seed009"}]},
                 "threat must be one of", id="bad_threat"),
    pytest.param({"attacks": [{"kind": "attribute"}]}, "needs attribute",
                 id="attribute_without_name"),
    pytest.param({"attacks": [{"kind": "reidentification", "n_split": 3}]},
                 r"unknown key\(s\) \['n_split'\] in attacks\[0\]", id="typo_in_attack"),
    pytest.param({"fidelity": ["psnr"]}, "fidelity metric 'psnr' is unknown", id="bad_metric"),
    pytest.param({"utility": [{"direction": "both"}]}, "direction must be", id="bad_direction"),
    pytest.param({"workers": 0}, "workers must be an integer >= 1", id="zero_workers"),
])
def test_config_errors_name_the_key(change, match):
    with pytest.raises(ConfigError, match=match):
        parse_config(_base(**change))


def test_unregistered_mechanism_lists_the_registered_ones():
    cfg = parse_config(_base())
    with pytest.raises(ConfigError, match="'m' is not a registered mechanism; choose one of: a, b"):
        cfg.check_mechanisms({"a": 1, "b": 2})


def test_load_config_errors(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("name = [")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad)


def test_example_configs_parse():
    paths = sorted((REPO / "configs").glob("*.toml"))
    assert paths
    for p in paths:
        cfg = load_config(p)
        assert expand_cells(cfg)


def test_non_sample_mechanisms_are_refused_with_the_way_out():
    from gazeprivacy.mechanisms import MECHANISMS

    cfg = parse_config({"name": "x", "seeds": [0],
                        "datasets": [{"name": "d", "source": "sample"}],
                        "mechanisms": [{"name": "heatmap-laplace", "grid": {"epsilon": [1.0]}}]})
    with pytest.raises(ConfigError, match="is a heatmap-level mechanism; the runner protects "
                                          "gaze samples"):
        cfg.check_mechanisms(MECHANISMS)


# --- learned evaluations of seed 001 (issue 10) -------------------------------------------------

def _learned(**over):
    d = {"name": "x", "seeds": [0], "datasets": [{"name": "d", "source": "sample"}]}
    d.update(over)
    return parse_config(d)


def test_learned_utility_kinds_parse_with_their_defaults():
    cfg = _learned(utility=[{"kind": "gaze-prediction"},
                            {"kind": "activity-sequence", "label": "activity",
                             "threat": "seed004", "channels": [], "epochs": 3,
                             "max_train_windows": 500},
                            {"kind": "task"}])
    gp, act, task = cfg.utility
    assert gp.learned and act.learned and not task.learned
    assert (gp.threat, gp.channels, gp.n_splits, gp.history_s, gp.horizon_s) == (
        "seed001", "auto", 1, 0.5, 0.1)
    assert gp.id == "gaze-prediction:gru:seed001"
    assert act.id == "activity:seq:seed004" and act.channels == () and act.epochs == 3
    assert task.n_splits == 5 and task.id == "task:rf:train-original"


def test_linkage_attack_parses_and_defaults_to_the_seed001_threat():
    cfg = _learned(attacks=[{"kind": "linkage", "quasi_identifiers": ["gender", "age"],
                             "k": 4}, {"kind": "reidentification"}])
    link, reid = cfg.attacks
    assert link.quasi_identifiers == ("gender", "age") and link.threat == "seed001"
    assert link.id == "linkage:gender+age:k4:seed001"
    assert reid.threat == "seed000"


@pytest.mark.parametrize("entry, match", [
    pytest.param({"utility": [{"kind": "gaze"}]}, "utility\\[\\].kind must be one of",
                 id="unknown_utility_kind"),
    pytest.param({"utility": [{"kind": "gaze-prediction", "threat": "x"}]},
                 "utility\\[\\].threat must be one of", id="unknown_threat"),
    pytest.param({"utility": [{"kind": "gaze-prediction", "channels": "head"}]},
                 "channels must be 'auto' or a list", id="channels_string"),
    pytest.param({"utility": [{"kind": "gaze-prediction", "horizon_s": 0}]},
                 "horizon_s must be > 0", id="zero_horizon"),
    pytest.param({"utility": [{"kind": "activity-sequence", "max_train_windows": 3}]},
                 "max_train_windows must be an integer >= 10", id="tiny_window_cap"),
    pytest.param({"utility": [{"kind": "gaze-prediction", "dropout": 0.1}]},
                 "unknown key\\(s\\) \\['dropout'\\]", id="unknown_key"),
    pytest.param({"attacks": [{"kind": "linkage", "quasi_identifiers": ["gender"]}]},
                 "needs k", id="linkage_without_k"),
    pytest.param({"attacks": [{"kind": "linkage", "k": 2}]},
                 "needs quasi_identifiers", id="linkage_without_quasi_identifiers"),
])
def test_learned_config_errors_name_the_key(entry, match):
    with pytest.raises(ConfigError, match=match):
        _learned(**entry)
