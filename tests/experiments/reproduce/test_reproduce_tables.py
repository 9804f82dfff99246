# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Reproduction helpers: paper tables, releases and the markdown shape (fast, synthetic)."""

from __future__ import annotations

import numpy as np
import polars as pl

from gazeprivacy.experiments.reproduce import seed002, seed004
from gazeprivacy.experiments.reproduce._paper002 import EPSILONS, PAPER_TABLES
from gazeprivacy.features.window_features import FeatureSeries
from gazeprivacy.guarantees import FlagCode


def test_paper_tables_have_five_groups_of_four() -> None:
    assert EPSILONS == (0.48, 2.4, 4.8, 24.0, 48.0)
    for key, table in PAPER_TABLES.items():
        assert set(table) == set(seed002.METHODS), key
        for row in table.values():
            assert row is None or (len(row) == 5 and all(len(g) == 4 for g in row))
    assert PAPER_TABLES[("document", True)]["FPA"][4] == (0.52, 0.64, 0.83, 0.88)


def test_release_method_is_paper_mode() -> None:
    rng = np.random.default_rng(0)
    S = [FeatureSeries(recording=f"r{i}", participant=f"p{i}", t_start=np.arange(80.0),
                       values=rng.normal(size=(80, 2)), labels={"document": "comic"},
                       feature_names=("a", "b")) for i in range(3)]
    rel = seed002.release_method(S, "DCFPA-32", 2.4, rng=rng)
    assert rel.guarantee.mode == "paper" and rel.guarantee.parameters["chunk_size"] == 32
    assert FlagCode.TUNED_ON_PRIVATE_DATA in {f.code for f in rel.guarantee.flags}
    assert [s.n_windows for s in rel.output] == [80, 80, 80]


def test_tables_markdown_puts_paper_beside_ours() -> None:
    rows = [{"method": "CFPA-64", "epsilon": 4.8, "task": "gender", "classifier": c,
             "majority_vote": True, "metric": "accuracy", "value": v}
            for c, v in zip(("knn", "svm", "dt", "rf"), (0.1, 0.2, 0.3, 0.4), strict=True)]
    md = seed002.tables_markdown(pl.DataFrame(rows), methods=("CFPA-64",), epsilons=(4.8,))
    assert "| CFPA-64 | 0.10 0.20 0.30 0.40 / 0.10 0.06 0.31 0.27 |" in md
    rows4 = [{"method": "steil-paper", "figure": "fig8", "epsilon": 15.0, "task": "person",
              "classifier": "svm", "majority_vote": v, "metric": "accuracy", "value": x}
             for v, x in ((True, 0.2), (False, 0.1))]
    md4 = seed004.tables_markdown(pl.DataFrame(rows4), epsilons=(15.0,))
    assert "| person | steil-paper | 0.20 / 0.10 |" in md4
    assert "| person | paper (text) | 0.06 |" in md4


def test_balance_classes_equal_windows_per_class_same_windows_on_both_sides() -> None:
    rng = np.random.default_rng(3)

    def side(offset: float) -> list[FeatureSeries]:
        return [FeatureSeries(recording=f"r{i}", participant=f"p{i}",
                              t_start=np.arange(n, dtype=float),
                              values=np.arange(n, dtype=float)[:, None] + offset,
                              labels={"gender": g}, feature_names=("f",))
                for i, (n, g) in enumerate([(30, "f"), (50, "f"), (20, "m"), (12, "m")])]

    clean, noisy = seed004.balance_classes([side(0.0), side(0.5)], "gender", rng)
    per = {"f": 0, "m": 0}
    for s in clean:
        per[s.labels["gender"]] += s.n_windows
    assert per == {"f": 32, "m": 32}  # the smaller class (20 + 12) sets the size
    for a, b in zip(clean, noisy, strict=True):  # the same windows kept on both sides
        np.testing.assert_array_equal(a.t_start, b.t_start)
        np.testing.assert_allclose(b.values - a.values, 0.5)
        assert np.all(np.diff(a.t_start) > 0)  # time order kept
    (by_person,) = seed004.balance_classes([side(0.0)], "participant", rng)
    assert {s.n_windows for s in by_person} == {12}
