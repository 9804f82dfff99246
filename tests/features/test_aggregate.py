# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
from __future__ import annotations

import polars as pl
import pytest

from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.features.aggregate import feature_columns, recording_features


def test_recordings_without_events_are_kept_with_zero_counts():
    t = pl.DataFrame({"recording": ["a", "a", "a"], "participant": ["p"] * 3,
                      "name": ["fixation", "saccade", "fixation"], "onset": [0, 5, 9],
                      "d": [1.0, 2.0, 5.0]})
    out = recording_features(t, recordings=["a", "b"])
    assert out["recording"].to_list() == ["a", "b"]
    assert out["fixation_count"].to_list() == [2, 0]
    assert out["fixation_d_mean"].to_list() == [3.0, None]
    assert out["saccade_d_mean"].to_list() == [2.0, None]
    assert "fixation_onset_mean" not in out.columns


def test_feature_table_needs_its_id_columns():
    with pytest.raises(InvalidDataError, match="lacks column"):
        feature_columns(pl.DataFrame({"recording": ["a"], "d": [1.0]}))
