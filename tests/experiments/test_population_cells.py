# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Synthetic-population releases in the plain runner and the demo: participant-synth's row, its
per-participant guarantee, the held-out membership attack in place of re-identification."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from evaluate_helpers import fake_featurizer, tiny_dataset
from gazeprivacy.experiments.config import ConfigError, parse_config
from gazeprivacy.experiments.demo import DEMO_SETTINGS, run_demo
from gazeprivacy.guarantees import Guarantee, Unit
from gazeprivacy.mechanisms import MECHANISMS


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    ds = tiny_dataset(n_participants=6, n_stimuli=3, n_samples=400, name="doves_sample",
                      constant_task=True)
    res, report = run_demo(out, rng=np.random.default_rng(3), dataset=ds,
                           registry={"participant-synth": MECHANISMS["participant-synth"]},
                           settings={"participant-synth": DEMO_SETTINGS["participant-synth"]},
                           featurizer=fake_featurizer, n_splits=2, workers=1)
    return res, report


def test_demo_has_participant_synth_with_its_per_participant_epsilon(demo_run):
    res, report = demo_run
    table = res.results
    ps = table.filter(pl.col("mechanism") == "participant-synth")
    assert ps.height and ps["epsilon"].unique().to_list() == [3.0]
    [rec] = [g for g in res.guarantees if g["mechanism"] == "participant-synth"]
    g = Guarantee.from_dict(rec["guarantee"])
    assert g.unit is Unit.PARTICIPANT and g.max_participant_epsilon == 3.0
    assert g.delta == 1e-6
    html = report.read_text()
    assert "participant-synth" in html and "over all of a participant" in html


def test_a_synthetic_population_faces_membership_not_reidentification(demo_run):
    res, _report = demo_run
    table = res.results
    ps = table.filter(pl.col("mechanism") == "participant-synth")
    # no re-identification of pseudonyms that belong to nobody ...
    assert not ps.filter(pl.col("metric") == "identification_rate").height
    assert any("reid:rbfn:seed000 not applicable to participant-synth" in n for n in res.notes)
    # ... membership inference on a held-out split instead, with the raw copy as reference
    for mech in ("participant-synth", "none"):
        auc = table.filter((pl.col("mechanism") == mech) & (pl.col("metric") == "auc")
                           & (pl.col("evaluation") == "membership:relative-distance"))
        assert auc.height == 1 and 0.0 <= auc["value"][0] <= 1.0
    # fidelity: the pooled density only (nothing pairs its recordings with the input's)
    fid = set(ps.filter(pl.col("kind") == "fidelity")["metric"])
    assert fid == {"density_error", "density_error_se"}
    assert any("fidelity rmse not applicable" in n for n in res.notes)
    # realism: train on its own public labels (stimulus), test on raw
    tstr = ps.filter((pl.col("evaluation") == "stimulus:tstr-rf")
                     & (pl.col("metric") == "accuracy"))
    assert tstr.height == 1 and tstr["value"][0] > 0.0
    assert ps.filter(pl.col("evaluation") == "realism:discriminator").height


def test_a_synthetic_population_on_a_partitioned_dataset_is_refused(tmp_path):
    from gazeprivacy.data.partitioned import write_partitioned
    from gazeprivacy.experiments.engine import run_experiment

    folder = tmp_path / "parts"
    write_partitioned(tiny_dataset(n_participants=3, n_stimuli=2, n_samples=200), folder,
                      recordings_per_partition=2)
    cfg = parse_config({
        "name": "x", "seeds": [0],
        "datasets": [{"name": "tiny", "source": "file", "path": str(folder)}],
        "mechanisms": [{"name": "participant-synth", "preset": "params",
                        "grid": {"epsilon_per_participant": [3.0]},
                        "fixed": {"delta": 1e-6, "output_length_s": 2.0}}],
        "attacks": [{"kind": "reidentification", "classifier": "knn", "n_splits": 2}]})
    with pytest.raises(ConfigError, match="synthetic population"):
        run_experiment(cfg, tmp_path / "out", featurizer=fake_featurizer, workers=1)
