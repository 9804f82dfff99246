# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from evaluate_helpers import tiny_dataset
from gazeprivacy.attacks.splits import recording_index, split_recordings
from gazeprivacy.exceptions import InvalidParameterError


@pytest.mark.parametrize("group_label", ["stimulus", None])
def test_no_recording_on_both_sides_and_none_lost(group_label):
    ds = tiny_dataset(n_participants=5, n_stimuli=6, n_samples=60)
    idx = recording_index(ds, group_label=group_label)
    for seed in range(20):
        s = split_recordings(idx, test_fraction=0.25, rng=np.random.default_rng(seed))
        assert not set(s.train) & set(s.test)
        assert sorted(s.train + s.test) == sorted(idx["recording"].to_list())
        assert s.train and s.test


def test_stimulus_split_keeps_a_stimulus_on_one_side():
    ds = tiny_dataset(n_participants=4, n_stimuli=4, n_samples=60)
    idx = recording_index(ds, group_label="stimulus")
    group = dict(zip(idx["recording"], idx["group"], strict=True))
    s = split_recordings(idx, test_fraction=0.25, rng=np.random.default_rng(1))
    assert not {group[r] for r in s.train} & {group[r] for r in s.test}
    assert len({group[r] for r in s.test}) == 1  # 25 % of 4 stimuli


def test_per_participant_split_gives_every_participant_test_data():
    ds = tiny_dataset(n_participants=3, n_stimuli=4, n_samples=60)
    idx = recording_index(ds, group_label=None)
    s = split_recordings(idx, test_fraction=0.25, rng=np.random.default_rng(2))
    owner = dict(zip(idx["recording"], idx["participant"], strict=True))
    assert {owner[r] for r in s.test} == {"p0", "p1", "p2"}
    assert {owner[r] for r in s.train} == {"p0", "p1", "p2"}


def test_one_group_cannot_be_split():
    idx = pl.DataFrame({"recording": ["a", "b"], "participant": ["p", "q"], "group": ["s", "s"]})
    with pytest.raises(InvalidParameterError, match="at least 2 distinct groups"):
        split_recordings(idx, test_fraction=0.5, rng=np.random.default_rng(0))


def test_missing_group_label_is_named():
    ds = tiny_dataset(n_participants=2, n_stimuli=2, n_samples=60)
    with pytest.raises(InvalidParameterError, match="no label 'session'"):
        recording_index(ds, group_label="session")
