# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The whole-release audit: protect() end to end on neighbouring datasets, every column checked.

Every release goes through the real sealed writer (:func:`gazeprivacy.mechanisms.release.seal`),
as ``gazeprivacy protect`` writes it. The auditor's own teeth are tested on broken writers (the
real one, told to also copy a column or the raw ids while the scenario declares only
``stimulus`` public): each kind of leak fails.
"""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from gazeprivacy.audit import release
from gazeprivacy.audit.adapters import ADAPTERS, audit_mechanism
from gazeprivacy.cli.app import app
from gazeprivacy.exceptions import InvalidParameterError


@pytest.fixture
def schema(monkeypatch):
    """The real sealed writer; ``keep`` / ``raw_ids`` make it a broken writer that also copies
    those columns / the raw ids while the audit scenario still declares only ``stimulus``."""
    from gazeprivacy.mechanisms import release as writer

    def use(keep: tuple[str, ...] = (), raw_ids: bool = False):
        real = writer.seal
        extra = (*keep, *(("participant", "recording") if raw_ids else ()))

        def leaky(rel, *, public=(), **kw):
            return real(rel, public=(*public, *extra), **kw)
        monkeypatch.setattr(writer, "seal", leaky)
    return use


def run(name: str, trials: int = 100, **kw):
    return release.audit_release(name, n_trials=trials, rng=np.random.default_rng(14), **kw)


def verdicts(res) -> dict[str, tuple[str, bool]]:
    return {c.column: (c.status, c.passed) for c in res.columns}


@pytest.mark.parametrize("name", ["dpgazesynth", "kaleido", "k-same-synth"])
def test_whole_release_passes_every_column(name):
    res = run(name)
    assert res.passed, res.column_rows()


@pytest.mark.slow
def test_event_synth_pd_release_writes_no_raw_column_and_no_metadata():
    res = run("event-synth-pd", statistical=False)  # each release trains a C-VAE: schema only
    assert res.passed, (res.column_rows(), res.metadata_added)


@pytest.mark.parametrize("name", ["dpgazesynth", "kaleido"])
def test_dp_release_passes_under_the_release_schema(schema, name):
    schema()
    res = run(name)
    v = verdicts(res)
    assert v["x"] == ("audited", True) and v["y"] == ("audited", True)
    assert v["t"] == ("public by design", True)
    assert v["participant"] == ("public by design", True)
    assert v["stimulus"] == ("declared public", True)
    assert res.passed, res.column_rows()
    assert res.claimed_epsilon == res.guarantee.epsilon == 1.0


@pytest.mark.parametrize(("leak", "column", "status"), [
    ({"keep": ("pupil",)}, "pupil", "equals a raw column"),
    ({"keep": ("x_px",)}, "x_px", "equals a raw column"),
    ({"keep": ("gender",)}, "gender", "unchanged, not public"),
    ({"keep": ("t",)}, "t", "equals a raw column"),
    ({"raw_ids": True}, "recording", "raw ids"),
])
def test_each_kind_of_leak_fails_the_release_audit(schema, leak, column, status):
    schema(**leak)
    res = run("dpgazesynth", 40)
    assert verdicts(res)[column] == (status, False)
    assert not res.passed and column in res.row()["pair"]


def test_a_copied_column_that_the_unit_changes_fails_the_statistical_audit(schema):
    schema(keep=("pupil",))
    res = run("kaleido", 100)
    pupil = next(c for c in res.columns if c.column == "pupil")
    assert pupil.result is not None and not pupil.result.passed
    assert pupil.result.p_value < 0.01


def test_k_anonymity_reports_power_instead_of_comparing_with_an_epsilon(schema):
    schema()
    res = run("k-same-synth", 60)
    assert res.claimed_epsilon is None and res.guarantee.k == 2
    x = next(c for c in res.columns if c.column == "x")
    assert x.passed and "distinguishing power" in x.note
    assert "none" in res.row()["claim"]


def test_metadata_added_by_the_mechanism_fails(schema, monkeypatch):
    schema()
    real = release._run

    def with_counts(scn, data, rng):
        rel = real(scn, data, rng)
        out = rel.dataset
        object.__setattr__(out, "info", {**out.info, "failed-tests": 3})
        return rel

    monkeypatch.setattr(release, "_run", with_counts)
    res = run("kaleido", 40)
    assert res.metadata_added == ("failed-tests",) and not res.passed


def test_neighbours_differ_only_in_the_unit():
    scn = release.RELEASE_SCENARIOS["dpgazesynth"]()
    a, b = scn.a.recordings[0], scn.b.recordings[0]
    moved = np.flatnonzero(a.x != b.x)
    assert moved.min() > scn.rows[0] and moved.max() <= scn.rows[-1]  # first sample kept
    assert np.array_equal(np.flatnonzero(a.pupil != b.pupil), scn.rows)
    for ra, rb in zip(scn.a.recordings[1:], scn.b.recordings[1:], strict=True):
        assert np.array_equal(ra.x, rb.x) and np.array_equal(ra.t, rb.t)


def test_release_adapters_are_registered_and_unknown_scenarios_raise():
    for m in ("dpgazesynth", "kaleido", "k-same-synth", "event-synth-pd"):
        assert ADAPTERS[f"{m}-release"].kind == "release"
    with pytest.raises(InvalidParameterError, match="unknown release scenario 'nope'"):
        release.RELEASE_SCENARIOS["nope"]
    res = audit_mechanism("kaleido-release", n_trials=30, rng=np.random.default_rng(0))
    assert isinstance(res, release.ReleaseAudit)


def test_cli_prints_one_line_per_released_column():
    res = CliRunner().invoke(app, ["audit", "--mechanism", "dpgazesynth-release", "--trials",
                                   "30", "--seed", "1"], env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())
    for col in ("participant", "x", "stimulus", "declared public", "dpgazesynth-release"):
        assert col in out
    # the scenario's pupil, head pose, pixel copy and gender are not written, so not listed
    assert "gender" not in out and "x_px" not in out


@pytest.mark.parametrize(("unit", "params", "n", "rows"), [
    ("sample", {}, 100, [50]),
    ("window", {"window_samples": 30}, 100, list(range(30, 60))),
    ("w-window", {"window_samples": 80}, 100, list(range(80))),  # one window only: the first
    ("recording", {}, 7, list(range(7))),
])
def test_generic_unit_rows_come_from_the_record(unit, params, n, rows):
    from gazeprivacy.guarantees import Guarantee, Kind

    g = Guarantee(mechanism="m", kind=Kind.LOCAL_DP, unit=unit, epsilon=1.0, parameters=params)
    assert release.unit_rows(g, n).tolist() == rows


def test_generic_unit_rows_refuse_units_they_cannot_derive():
    from gazeprivacy.guarantees import Guarantee, Kind

    g = Guarantee(mechanism="m", kind=Kind.LOCAL_DP, unit="event", epsilon=1.0)
    with pytest.raises(InvalidParameterError, match="hand-written scenario for 'm'"):
        release.unit_rows(g, 100)
    w = Guarantee(mechanism="m", kind=Kind.LOCAL_DP, unit="window", epsilon=1.0)
    with pytest.raises(InvalidParameterError, match="window_samples"):
        release.unit_rows(w, 100)


def test_the_registered_mechanisms_keep_their_hand_written_scenarios():
    # every registered sample / event mechanism has a hand-written scenario today, so nothing
    # is derived; the derived path is tested with the toy in tests/test_common.py
    from gazeprivacy.audit.adapters import derived_adapters

    assert derived_adapters(dict(ADAPTERS)) == {}
    assert not any(release.derives_scenario(m) for m in
                   ("dpgazesynth", "kaleido", "k-same-synth", "event-synth-pd", "series-lpa"))
    for m in ("dpgazesynth", "kaleido", "k-same-synth", "event-synth-pd"):
        assert ADAPTERS[f"{m}-release"].modes == ("sound",)
        assert not ADAPTERS[f"{m}-release"].known_defect
