# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The stream filter without a network: an infinite y beside a finite x is a missing sample
(never a stop), ``--ledger`` charges the session before anything is released and the filter
stops at what was reserved, and a seeded session is not formally private."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from typer.testing import CliRunner

from gazeprivacy.accounting.ledger import Ledger, UnaccountedReleaseError
from gazeprivacy.cli.app import app
from gazeprivacy.cli.stream import _close_session, _reserve_session
from gazeprivacy.deploy.lsl import Layout, LSLFilter, NominalClock, session_plan
from gazeprivacy.mechanisms.samples.kaleido import KaleidoParams, KaleidoStream

PARAMS = KaleidoParams(epsilon=1.0, radius_deg=2.0, window_s=0.5, clamp=False)
RATE = 100.0


class _Outlet:
    def __init__(self) -> None:
        self.chunks: list[np.ndarray] = []

    def push_chunk(self, data, stamp) -> None:
        self.chunks.append(np.asarray(data))


def fake_filter(max_samples: int | None = None, seed: int | None = None) -> SimpleNamespace:
    """The attributes ``LSLFilter._protect`` / ``run`` read, without pylsl."""
    layout = Layout.build(["x", "y"], x="x", y="y", public=[], confidence=None)
    return SimpleNamespace(
        layout=layout, _columns=[0, 1], min_confidence=None, timestamps="nominal",
        stream=KaleidoStream(PARAMS, rng=np.random.default_rng(0), sampling_rate_hz=RATE),
        outlet=_Outlet(), clock=NominalClock(RATE), released=0, max_samples=max_samples,
        pylsl=SimpleNamespace(local_clock=lambda: 0.0), rate=RATE, seed=seed)


def test_a_finite_x_with_an_infinite_y_is_a_missing_sample():
    f = fake_filter()
    data = np.column_stack([np.linspace(0, 1, 40), np.zeros(40)])
    data[5, 1] = -np.inf
    data[9, 0], data[9, 1] = np.inf, 1.0
    LSLFilter._protect(f, data, np.zeros(40))  # raised InvalidDataError ("got inf") before
    out = f.outlet.chunks[0]
    assert f.released == 40 and np.isnan(out[[5, 9]]).all()
    assert np.isfinite(out[np.r_[0:5, 10:40]]).all()


def test_the_filter_releases_at_most_the_reserved_samples():
    f = fake_filter(max_samples=50)
    for _ in range(3):
        LSLFilter._protect(f, np.zeros((30, 2)), np.zeros(30))
    assert f.released == 50 and sum(len(c) for c in f.outlet.chunks) == 50


def test_stream_ledger_charges_the_session_before_anything_is_released(tmp_path):
    led = Ledger(tmp_path / "l.sqlite", max_epsilon_per_participant=25.0)
    f = fake_filter()
    spend = _reserve_session(led, f, PARAMS, 10.0, "P01", None)
    # 10 s at 100 Hz: 1000 samples, 20 w-windows of 50 at epsilon 1, reserved up front
    assert f.max_samples == 1000
    assert [(r["status"], r["epsilon"]) for r in led.entries()] == [("reserved", 20.0)]
    LSLFilter._protect(f, np.zeros((10, 2)), np.zeros(10))
    _close_session(spend, f, None)
    assert [r["status"] for r in led.entries()] == ["committed"]
    # the next session of the same person (any spelling) passes the cap: refused up front
    with pytest.raises(Exception, match="lifetime cap"):
        _reserve_session(Ledger(led.path), fake_filter(), PARAMS, 10.0, "p01 ", None)
    # a session that released nothing is cancelled
    spend = _reserve_session(Ledger(tmp_path / "m.sqlite"), f2 := fake_filter(), PARAMS, 1.0,
                             "Q", None)
    _close_session(spend, f2, None)
    assert [r["status"] for r in Ledger(tmp_path / "m.sqlite").entries()] == ["cancelled"]


def test_a_seeded_session_is_not_formally_private_and_the_ledger_refuses_it(tmp_path):
    g, n = session_plan(PARAMS, sampling_rate_hz=RATE, duration_s=2.0, participant="p",
                        seed=5)
    assert n == 200 and not g.formally_private and g.seed is None
    with pytest.raises(UnaccountedReleaseError, match="fixed seed"):
        _reserve_session(Ledger(tmp_path / "l.sqlite"), fake_filter(), PARAMS, 2.0, "p", 5)


@pytest.mark.parametrize(("extra", "message"), [
    (["--ledger", "L.sqlite", "--duration", "5"], "--participant"),
    (["--ledger", "L.sqlite", "--participant", "p"], "--duration"),
    (["--participant", "p"], "--participant applies to --ledger"),
])
def test_stream_ledger_options_are_checked_before_anything(tmp_path, extra, message):
    args = ["stream", "--inlet", "a", "--outlet", "b", "--mechanism", "kaleido", "--epsilon",
            "1", "--radius-deg", "2", "--window-s", "0.5"]
    extra = [str(tmp_path / e) if e.endswith(".sqlite") else e for e in extra]
    res = CliRunner().invoke(app, [*args, *extra])
    assert res.exit_code != 0 and message in str(res.exception)
    assert not (tmp_path / "L.sqlite").exists()
