# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""OSIE and FIGRIM fixation loaders on the real data."""

from __future__ import annotations

import polars as pl
import pytest

from gazeprivacy.data.fixations import Fixations
from gazeprivacy.data.loaders.figrim import describe_figrim_fixations, load_figrim_fixations
from gazeprivacy.data.loaders.osie import describe_osie_fixations, load_osie_fixations
from gazeprivacy.exceptions import InvalidParameterError

pytestmark = pytest.mark.realdata


def test_osie(data_dir):
    fx = load_osie_fixations(data_dir)
    assert isinstance(fx, Fixations)
    assert (fx.width_px, fx.height_px) == (800, 600)
    assert fx.table.height == 98_321
    assert fx.n_participants == 15 and len(fx.stimuli) == 700
    assert fx.participants[0] == "S1" and fx.stimuli[0] == "1001"
    assert fx.info["n_off_image"] == 0
    first = fx.table.row(0, named=True)
    assert (first["x_px"], first["y_px"], first["duration_ms"]) == (395.5, 265.7, 246.0)
    d = describe_osie_fixations(data_dir)
    assert (d.participants, d.recordings, d.samples) == (15, 15 * 700, 98_321)


def test_figrim_target_default(data_dir):
    fx = load_figrim_fixations(data_dir)
    assert (fx.width_px, fx.height_px) == (1000, 1000)
    assert fx.table.height == 182_535 and len(fx.stimuli) == 630
    assert fx.n_participants == 67
    assert fx.participants[0].startswith("U")
    assert fx.table["duration_ms"].is_null().all()
    assert fx.table.select(pl.col("x_px", "y_px").is_between(0, 1000).all()).row(0) == (
        True, True)
    assert set(fx.table["presentation"].unique()) == {"enc", "rec", "rec2"}


def test_figrim_sets_and_presentations(data_dir):
    enc = load_figrim_fixations(data_dir, presentation="enc")
    assert set(enc.table["presentation"].unique()) == {"enc"}
    assert enc.table.height == 64_573
    filler = load_figrim_fixations(data_dir, image_set="filler")
    assert filler.table.height == 242_177 and len(filler.stimuli) == 2157
    with pytest.raises(InvalidParameterError, match="image_set"):
        load_figrim_fixations(data_dir, image_set="all")
    with pytest.raises(InvalidParameterError, match="presentation"):
        load_figrim_fixations(data_dir, presentation=["enc", "rec3"])


def test_figrim_describe(data_dir):
    d = describe_figrim_fixations(data_dir)
    assert d.participants == 67 and d.samples == 182_535 + 242_177
