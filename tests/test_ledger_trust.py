# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The ledger, round two: the plan has every budget (pupil included) on every path, nothing is
written before the spend is checked, a failed write cancels, the cap is stored and only lowered,
one id policy (trim, case fold), per-participant checks, seeded releases refused."""

from __future__ import annotations

import numpy as np
import pytest

import gazeprivacy.mechanisms as mechanisms
import gazeprivacy.mechanisms.release.files as files
from gazeprivacy.accounting.ledger import (
    BudgetExceededError,
    Ledger,
    LedgerError,
    Spend,
    UnaccountedReleaseError,
    normalise_id,
)
from gazeprivacy.data import Dataset, Geometry, Recording, write_dataset
from gazeprivacy.data.partitioned import write_partitioned
from gazeprivacy.engines import protect_partitioned
from gazeprivacy.guarantees import Guarantee, Kind, Unit
from gazeprivacy.mechanisms.release import protect_file

GEO = Geometry(x_min_deg=0.0, x_max_deg=16.0, y_min_deg=0.0, y_max_deg=12.0)
KALEIDO = {"mechanism": "kaleido", "epsilon": 0.5, "radius_deg": 1.0, "window_s": 1.0}
PUPIL = {"pupil_epsilon": 0.25, "pupil_range": (2.0, 6.0)}


def people(names=("ann", "bob", "cy"), n=300) -> Dataset:
    g = np.random.default_rng(0)
    return Dataset(tuple(Recording.from_arrays(
        recording=f"rec-{i}", participant=p, x=np.clip(8 + np.cumsum(g.normal(0, .2, n)), 0, 16),
        y=np.clip(6 + np.cumsum(g.normal(0, .2, n)), 0, 12), sampling_rate_hz=100,
        geometry=GEO, pupil=np.full(n, 3.0)) for i, p in enumerate(names)), name="t")


def pure(per: dict[str, float]) -> Guarantee:
    g = Guarantee(mechanism="m", kind=Kind.PURE_DP, unit=Unit.RECORDING, epsilon=1.0)
    return g.compose({p: int(e) for p, e in per.items()})


# ------------------------------------------------------------------- plan and write order


def test_a_partitioned_pupil_release_is_planned_with_its_pupil_budget(tmp_path):
    src = write_partitioned(people(), tmp_path / "in", recordings_per_partition=1)
    led = Ledger(tmp_path / "l.sqlite")
    rel = protect_partitioned(src, tmp_path / "out", ledger=led, **PUPIL, **KALEIDO)
    # 3 w-windows at 0.5 plus 3 pupil blocks at 0.25 / 2 each, charged and committed
    assert [b.epsilon_basic for b in led.balances()] == pytest.approx([1.875] * 3)
    assert rel.guarantee.max_participant_epsilon == pytest.approx(1.875)
    assert {r["status"] for r in led.entries()} == {"committed"}
    # a cap that only the pupil budget passes: refused before any work, nothing written
    capped = Ledger(tmp_path / "c.sqlite", max_epsilon_per_participant=1.8)
    with pytest.raises(BudgetExceededError, match="refused before any work"):
        protect_partitioned(src, tmp_path / "out2", ledger=capped, **PUPIL, **KALEIDO)
    assert not (tmp_path / "out2").exists() or not any((tmp_path / "out2").iterdir())


def test_a_partition_spending_more_than_the_plan_is_never_written(tmp_path, monkeypatch):
    src = write_partitioned(people(), tmp_path / "in", recordings_per_partition=1)
    real = mechanisms.build_params

    def understated(mechanism, params=None, /, **kw):  # the privacy map sees half the epsilon
        return real(mechanism, params, **{**kw, "epsilon": kw["epsilon"] / 2})

    led = Ledger(tmp_path / "l.sqlite")
    monkeypatch.setattr(mechanisms, "build_params", understated)
    with pytest.raises(LedgerError, match="nothing was written"):
        protect_partitioned(src, tmp_path / "out", ledger=led, **KALEIDO)
    assert not list((tmp_path / "out").glob("part-*"))
    assert {r["status"] for r in led.entries()} == {"cancelled"}


def test_a_failed_write_cancels_its_reservation(tmp_path, monkeypatch):
    src = write_dataset(people(), tmp_path / "in.parquet")
    led = Ledger(tmp_path / "l.sqlite", max_epsilon_per_participant=2.0)

    def full_disk(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files, "write_sealed", full_disk)
    with pytest.raises(OSError):
        protect_file(src, tmp_path / "o.parquet", ledger=led, **KALEIDO)
    assert {r["status"] for r in led.entries()} == {"cancelled"}
    monkeypatch.undo()
    protect_file(src, tmp_path / "o.parquet", ledger=led, **KALEIDO)  # budget not spent


# ------------------------------------------------------------------------------- the cap


def test_the_cap_is_stored_at_creation_and_can_only_be_lowered(tmp_path):
    path = tmp_path / "l.sqlite"
    Ledger(path, max_epsilon_per_participant=3.0).reserve(pure({"a": 2}))
    assert Ledger(path).cap() == 3.0
    with pytest.raises(BudgetExceededError, match="lifetime cap of epsilon 3"):
        Ledger(path).reserve(pure({"a": 2}))  # a call without the cap does not overspend
    with pytest.raises(LedgerError, match="can only be lowered"):
        Ledger(path, max_epsilon_per_participant=10.0).reserve(pure({"a": 1}))
    Ledger(path, max_epsilon_per_participant=2.5).reserve(pure({"b": 2}))
    assert Ledger(path).cap() == 2.5
    with pytest.raises(BudgetExceededError):
        Ledger(path).reserve(pure({"a": 1}))  # 2 + 1 > 2.5
    assert [b.remaining for b in Ledger(path).balances()] == [0.5, 0.5]


# ---------------------------------------------------------------------------------- ids


def test_spellings_of_one_id_are_one_person_and_are_reported(tmp_path):
    assert normalise_id("P01 ") == normalise_id("p01") == normalise_id("P01") == "p01"
    path = tmp_path / "l.sqlite"
    r = Ledger(path).reserve(pure({"P01": 1, "p01": 1, "P01 ": 1, "q": 1}))
    assert len(r.charges) == 2 and sorted(c.epsilon for c in r.charges) == [1.0, 3.0]
    assert r.merged == (("P01", "p01", "P01 "),)
    with pytest.raises(BudgetExceededError):  # across releases too
        Ledger(path, max_epsilon_per_participant=4.0).reserve(pure({" P01": 2}))
    # through protect_file: the merged spellings go to the data holder's report
    src = write_dataset(people(("Ann", "ann ", "bob")), tmp_path / "in.parquet")
    sealed = protect_file(src, tmp_path / "o.parquet", ledger=tmp_path / "m.sqlite", **KALEIDO)
    assert sealed.report["ledger_merged_ids"] == [["Ann", "ann "]]
    assert len(Ledger(tmp_path / "m.sqlite").balances()) == 2


def test_spend_check_compares_each_participant_s_own_spend(tmp_path):
    spend = Spend(Ledger(tmp_path / "l.sqlite"), pure({"a": 1, "b": 3}))
    spend.check(pure({"a": 1, "b": 3}))
    with pytest.raises(LedgerError, match="1 participants spend more"):
        spend.check(pure({"a": 3, "b": 1}))  # the same sorted spends, swapped between people
    spend.check(pure({"A-pseudo": 1}), ids={"a": "A-pseudo", "b": "B-pseudo"})
    with pytest.raises(LedgerError, match="not in it"):
        spend.check(pure({"someone-else": 1}))
    spend.check(pure({"b": 2}), partial=True)
    with pytest.raises(LedgerError):
        spend.check(pure({"b": 2}), partial=True)  # 2 + 2 > 3 over the parts


# -------------------------------------------------------------------------------- seeds


def test_a_seeded_release_is_refused_unless_unaccounted_is_allowed(tmp_path):
    src = write_dataset(people(), tmp_path / "in.parquet")
    with pytest.raises(UnaccountedReleaseError, match="fixed seed"):
        protect_file(src, tmp_path / "o.parquet", ledger=tmp_path / "l.sqlite", seed=3,
                     **KALEIDO)
    assert not (tmp_path / "o.parquet").exists()
    led = Ledger(tmp_path / "l.sqlite", allow_unaccounted=True)
    protect_file(src, tmp_path / "o.parquet", ledger=led, seed=3, **KALEIDO)
    assert {(r["status"], r["accounted"]) for r in led.entries()} == {("unaccounted", 0)}


def test_ledger_show_states_the_stored_cap(tmp_path):
    import json

    from typer.testing import CliRunner

    from gazeprivacy.cli.app import app

    path = tmp_path / "l.sqlite"
    Ledger(path, max_epsilon_per_participant=3.0).reserve(pure({"a": 1}))
    res = CliRunner().invoke(app, ["ledger", "show", str(path)])
    assert res.exit_code == 0 and "epsilon 3 per participant" in " ".join(res.output.split())
    res = CliRunner().invoke(app, ["ledger", "show", str(path), "--format", "json"])
    assert json.loads(res.output)["max_epsilon_per_participant"] == 3.0
