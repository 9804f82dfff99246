# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from gazeprivacy.attacks.inference import infer_attribute
from gazeprivacy.attacks.threat import ThreatModel
from gazeprivacy.exceptions import InvalidDataError


def _table(seed=0, n_participants=8, n_recordings=3, shift=5.0):
    rng = np.random.default_rng(seed)
    rows, attr = [], {}
    for i in range(n_participants):
        g = "f" if i % 2 else "m"
        attr[f"p{i}"] = g
        for j in range(n_recordings):
            base = shift if g == "f" else 0.0
            rows.append({"recording": f"p{i}_r{j}", "participant": f"p{i}",
                         "a": base + rng.normal(), "b": rng.normal()})
    return pl.DataFrame(rows), attr


def test_attribute_with_a_clear_signal_is_inferred():
    tab, attr = _table()
    res = infer_attribute(tab, None, attr, threat=ThreatModel.raw(),
                          rng=np.random.default_rng(0), classifier="knn")
    assert res.accuracy == 1.0
    assert res.chance == 0.5
    assert set(res.predictions) == set(attr)


def test_held_out_participants_label_never_reaches_the_attacker():
    """Changing a participant's own label cannot change the prediction made for it."""
    tab, attr = _table(shift=0.7, seed=3, n_participants=6)
    base = infer_attribute(tab, None, attr, threat=ThreatModel.raw(),
                           rng=np.random.default_rng(5), classifier="svm")
    for p in ("p0", "p3"):
        flipped = dict(attr)
        flipped[p] = "m" if attr[p] == "f" else "f"
        other = infer_attribute(tab, None, flipped, threat=ThreatModel.raw(),
                                rng=np.random.default_rng(5), classifier="svm")
        assert other.predictions[p] == base.predictions[p]


def test_no_signal_gives_chance_level_accuracy():
    accs = []
    for seed in range(10):
        tab, attr = _table(seed=seed, shift=0.0, n_participants=10)
        accs.append(infer_attribute(tab, None, attr, threat=ThreatModel.raw(),
                                    rng=np.random.default_rng(seed), classifier="knn").accuracy)
    # 100 participant predictions at chance 0.5: standard error 0.05; 4 SE
    assert abs(np.mean(accs) - 0.5) < 4 * 0.05


def test_one_valued_attribute_is_refused():
    tab, attr = _table()
    with pytest.raises(InvalidDataError, match="one value"):
        infer_attribute(tab, None, dict.fromkeys(attr, "m"), threat=ThreatModel.raw(),
                        rng=np.random.default_rng(0))
