# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's auditor sees every measurement: each marginal the mechanism measures
differs between the two inputs of at least one audited neighbour pair (a marginal no pair
changes has a constant audit feature and passes whatever its noise)."""

from __future__ import annotations

import numpy as np
import pytest

from gazeprivacy.audit import participant_synth as ps
from gazeprivacy.audit.cases import mechanism_module


def _l1(view, pair, m):
    return float(np.abs(ps._stacked(view, pair.b, m) - ps._stacked(view, pair.a, m)).sum())


def _measured(labels):
    view = ps._view(labels)
    return set(mechanism_module("participant-synth").measure(
        view.params, view.setup, view.sums["a"], np.random.default_rng(0)))


def test_the_audited_marginals_are_the_ones_the_mechanism_measures():
    assert _measured(False) == set(ps.MEASURED)  # with one public key: all of them
    assert set(ps.MEASURED_LABELS) <= _measured(True)  # with the task keys


@pytest.mark.parametrize("marginal", [*ps.MEASURED, *ps.MEASURED_LABELS])
def test_every_measured_marginal_differs_in_some_audited_pair(marginal):
    case = ps.measurement_case(marginal, "sound")
    view = ps._view(marginal in ps.MEASURED_LABELS)
    changes = {p.b: _l1(view, p, marginal) for p in case.strategy.extremes}
    assert max(changes.values()) > 0.5, changes  # one participant moved: L1 up to 2
    # the audit of every marginal at once has the same pairs
    whole = ps.measurement_case(None, "sound").strategy.extremes
    if marginal in ps.MEASURED:
        assert max(_l1(view, p, marginal) for p in whole) > 0.5


def test_the_tracker_neighbour_moves_every_tracker_marginal_to_another_bin():
    view = ps._view(False)
    for m in ("tracker_step", "tracker_smooth", "tracker_tail"):
        assert _l1(view, ps.NeighbourPair("a", "tracker", ""), m) == 2.0, m
        for other in ("corner", "centre"):  # the looker pairs keep the example's tracker
            assert _l1(view, ps.NeighbourPair("a", other, ""), m) == 0.0, (m, other)
