# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Seed 001's linkage ablation (three causes of linkage above 1 / k) on a small simulation."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.experiments.reproduce import _linkage001 as lk
from gazeprivacy.experiments.reproduce.seed001 import _simulated


@pytest.fixture(scope="module")
def docs():
    return _simulated("mpiidpeye", np.random.default_rng(5))  # 4 people x 3 documents


def test_variants_split_as_documented(docs):
    parts = lk._split(docs, gender=True, label="document")
    assert len(parts) == 2 * 3  # gender x document
    for part in parts:
        assert len({r.label("gender") for r in part}) == 1
        assert len({r.label("document") for r in part}) == 1
        ps = [r.participant for r in part]
        assert ps == sorted(ps)  # one participant order: the same group draw per document


def test_release_variant_keeps_recordings_and_shape(docs):
    for variant in lk.RELEASES:
        rel = lk.release_variant(docs, k=2, variant=variant, label="document",
                                 rng=np.random.default_rng(1))
        assert [r.recording for r in rel] == [r.recording for r in docs]
        assert [r.n_samples for r in rel] == [r.n_samples for r in docs]
        changed = sum(not np.allclose(a.x, b.x, equal_nan=True)
                      for a, b in zip(rel, docs, strict=True))
        assert changed == len(docs), variant  # every recording re-synthesised
    with pytest.raises(InvalidDataError, match="release variant"):
        lk.release_variant(docs, k=2, variant="nope", label="document",
                           rng=np.random.default_rng(1))


def test_same_groups_release_every_document_with_one_group_draw(docs, monkeypatch):
    """``same-groups``: one k-same-synth call per document, each with the same generator state
    and the participants in one order (so the group draw is the same); ``paper``: one call
    over all documents (groups redrawn per document inside it)."""
    from types import SimpleNamespace

    calls = []

    def fake(part, params, *, rng, events=None):
        calls.append(([r.participant for r in part], {r.label("document") for r in part},
                      int(rng.integers(2**62))))
        return SimpleNamespace(output=part)

    monkeypatch.setattr(lk, "k_same_synth", fake)
    lk.release_variant(docs, k=2, variant="same-groups", label="document",
                       rng=np.random.default_rng(3))
    assert len(calls) == 3 and all(len(c[1]) == 1 for c in calls)
    assert len({tuple(c[0]) for c in calls}) == 1 and len({c[2] for c in calls}) == 1
    calls.clear()
    lk.release_variant(docs, k=2, variant="gender-groups", label="document",
                       rng=np.random.default_rng(3))
    assert len(calls) == 2 and len({c[2] for c in calls}) == 2  # per gender, own draws
    calls.clear()
    lk.release_variant(docs, k=2, variant="paper", label="document",
                       rng=np.random.default_rng(3))
    assert len(calls) == 1 and len(calls[0][1]) == 3


def test_linkage_ablation_rows(docs):
    r = lk.linkage_ablation(docs, ks=[2], rng=np.random.default_rng(0), n_splits=1,
                            window_s=4.0)
    assert set(r["release"]) == {"raw", *lk.RELEASES}
    assert set(r["features"]) == set(lk.FEATURE_SETS)
    assert r.filter(pl.col("metric") == "bound")["value"].unique().to_list() == [0.5]
    assert r["value"].is_between(0.0, 1.0).all()
    # gender alone: 2 of 4 people per class, so a uniform guess in the class is 1 / 2
    assert r.filter(pl.col("metric") == "quasi_only")["value"].unique().to_list() == [0.5]
