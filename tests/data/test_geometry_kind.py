# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
import pytest

from gazeprivacy.data.geometry import Geometry, GeometryKind
from gazeprivacy.exceptions import InvalidParameterError


def test_kind_accepts_the_old_strings_and_names_the_valid_ones():
    g = Geometry(x_min_deg=0, x_max_deg=1, y_min_deg=0, y_max_deg=1, kind="vr")
    assert g.kind is GeometryKind.VR and g.kind == "vr"
    assert Geometry.from_dict(g.to_dict()) == g
    with pytest.raises(InvalidParameterError, match="kind must be one of 'screen', 'image'"):
        Geometry(x_min_deg=0, x_max_deg=1, y_min_deg=0, y_max_deg=1, kind="VR headset")
