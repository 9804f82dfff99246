# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The privacy-budget ledger (issue 17, part 3): hashing, cap, unaccounted releases,
composition, corrupt files, and concurrent reservations in one process."""

from __future__ import annotations

import hashlib
import hmac
import math
import sqlite3
import threading

import numpy as np
import polars as pl
import pytest

import gazeprivacy.mechanisms as mechanisms
from gazeprivacy.accounting.ledger import (
    BudgetExceededError,
    Ledger,
    LedgerError,
    UnaccountedReleaseError,
    file_sha256,
    key_path,
    zcdp_epsilon,
)
from gazeprivacy.accounting.zcdp import epsilon_to_rho, rho_to_epsilon
from gazeprivacy.data import Dataset, Geometry, Recording, write_dataset
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.guarantees import EVERY_PARTICIPANT, Budget, Guarantee, Kind, Unit
from gazeprivacy.mechanisms.release import protect_file

GEO = Geometry(x_min_deg=0.0, x_max_deg=16.0, y_min_deg=0.0, y_max_deg=12.0)
NAMES = ("alice-raw-id", "bob-raw-id", "carol-raw-id")
KALEIDO = {"mechanism": "kaleido", "epsilon": 0.5, "radius_deg": 1.0, "window_s": 1.0}


def gaze_file(path, lengths=(300, 300, 500)):
    """One recording per participant; carol's is longer, so she spends more."""
    g = np.random.default_rng(0)
    recs = []
    for name, n in zip(NAMES, lengths, strict=True):
        x = np.clip(8 + np.cumsum(g.normal(0, 0.2, n)), 0, 16)
        y = np.clip(6 + np.cumsum(g.normal(0, 0.2, n)), 0, 12)
        recs.append(Recording.from_arrays(recording=f"rec-{name}", participant=name, x=x, y=y,
                                          sampling_rate_hz=100, geometry=GEO))
    return write_dataset(Dataset(tuple(recs), name="ledger-test"), path)


def keyed(ledger_path, raw):
    key = bytes.fromhex(key_path(ledger_path).read_text().strip())
    return hmac.new(key, raw.encode(), hashlib.sha256).hexdigest()


def pure(eps, participants=("a",), kind=Kind.PURE_DP, unit=Unit.RECORDING, **kw):
    return Guarantee(mechanism="m", kind=kind, unit=unit, epsilon=eps, **kw).compose(
        dict.fromkeys(participants, 1))


def test_each_participant_is_charged_their_own_budget_under_a_keyed_hash(tmp_path):
    src = gaze_file(tmp_path / "in.csv")
    led = tmp_path / "budget.sqlite"
    s1 = protect_file(src, tmp_path / "o1.csv", ledger=led, id_map_path=tmp_path / "m1.csv",
                      **KALEIDO)
    protect_file(src, tmp_path / "o2.csv", ledger=led, id_map_path=tmp_path / "m2.csv",
                 **KALEIDO)
    # the released pseudonyms differ between releases; the ledger links them through the key
    m1, m2 = (pl.read_csv(tmp_path / f"m{i}.csv").filter(pl.col("kind") == "participant")
              for i in (1, 2))
    assert set(m1["pseudonym"]).isdisjoint(m2["pseudonym"])
    bal = {b.participant: b for b in Ledger(led).balances()}
    to_raw = dict(zip(m1["pseudonym"], m1["raw"], strict=True))
    for pseudonym, budget in s1.guarantee.per_participant.items():
        b = bal[keyed(led, to_raw[pseudonym])]
        assert b.releases == 2 and b.epsilon_basic == pytest.approx(2 * budget.epsilon)
    assert len({b.epsilon_basic for b in bal.values()}) == 2  # carol spent more
    # no raw id anywhere in the ledger; the key file is private
    raw_bytes = led.read_bytes()
    assert not any(n.encode() in raw_bytes for n in NAMES)
    assert key_path(led).stat().st_mode & 0o777 == 0o600
    rows = Ledger(led).entries()
    assert {r["status"] for r in rows} == {"committed"}
    assert {r["output_sha256"] for r in rows} == {file_sha256(tmp_path / "o1.csv"),
                                                  file_sha256(tmp_path / "o2.csv")}


def test_cap_refuses_before_any_work_naming_count_and_excess(tmp_path, monkeypatch):
    src = gaze_file(tmp_path / "in.csv")
    led = Ledger(tmp_path / "budget.sqlite", max_epsilon_per_participant=4.0)
    protect_file(src, tmp_path / "o1.csv", ledger=led, **KALEIDO)  # 1.5, 1.5, 2.5
    before = Ledger(led.path).entries()

    def boom(*a, **k):
        raise AssertionError("the mechanism ran")

    monkeypatch.setattr(mechanisms, "protect", boom)
    with pytest.raises(BudgetExceededError) as info:
        protect_file(src, tmp_path / "o2.csv", ledger=led, **KALEIDO)
    msg = str(info.value)
    assert "\n" not in msg and "refused before any work" in msg
    assert "1 of 3 participants" in msg and "by 1" in msg and "cap of epsilon 4" in msg
    assert not (tmp_path / "o2.csv").exists()
    assert Ledger(led.path).entries() == before


def test_unaccounted_releases_are_refused_under_a_cap_unless_allowed(tmp_path):
    led = tmp_path / "l.sqlite"
    kanon = Guarantee(mechanism="k-same-synth", kind=Kind.K_ANONYMITY, unit=Unit.RECORDING,
                      k=3).compose({"a": 1, "b": 1})
    paper = pure(1.0, ("a", "b"), mode="paper")
    assert len(Ledger(led).reserve(kanon).charges) == 2  # no cap: recorded, not refused
    for g in (kanon, paper):
        with pytest.raises(UnaccountedReleaseError, match="--allow-unaccounted"):
            Ledger(led, max_epsilon_per_participant=5).reserve(g)
    r = Ledger(led, max_epsilon_per_participant=5, allow_unaccounted=True).reserve(paper)
    Ledger(led).commit(r)
    rows = [x for x in Ledger(led).entries() if x["release_id"] == r.id]
    assert {(x["status"], x["accounted"], x["allowed_unaccounted"]) for x in rows} == {
        ("unaccounted", 0, 1)}
    bal = Ledger(led).balances()
    assert all(b.unaccounted == 2 and "unaccounted" in b.method for b in bal)
    assert all(b.epsilon_basic == 1.0 for b in bal)  # the paper mode's nominal epsilon counts


def test_participants_without_a_budget_in_the_record_are_charged_as_unaccounted(tmp_path):
    g = Guarantee(mechanism="event-synth-pd", kind=Kind.PLAUSIBLE_DENIABILITY, unit=Unit.EVENT,
                  k=2, gamma=3.0)
    r = Ledger(tmp_path / "l.sqlite").reserve(g, participants=["a", "b", "c"])
    assert not r.accounted and [c.epsilon for c in r.charges] == [None] * 3


def test_zcdp_is_used_only_where_it_applies_and_is_tighter(tmp_path):
    led = Ledger(tmp_path / "l.sqlite")
    for _ in range(50):
        led.reserve(pure(0.1, ("a", "b")))
    led.reserve(pure(0.1, ("a",), kind=Kind.LOCAL_DP))
    led.reserve(pure(0.1, ("b",), kind=Kind.W_EVENT_DP, unit=Unit.W_WINDOW))
    bal = {x.participant: x for x in led.balances(delta=1e-6)}
    a, b = bal[keyed(led.path, "a")], bal[keyed(led.path, "b")]
    rho = 51 * 0.1**2 / 2
    standard = rho + 2 * math.sqrt(rho * math.log(1e6))
    assert a.epsilon_basic == pytest.approx(5.1) and a.rho == pytest.approx(rho)
    # one conversion whatever is installed (Canonne, Kamath & Steinke 2020), tighter than the
    # standard one (3.58 vs 4.01 here)
    assert a.epsilon == pytest.approx(rho_to_epsilon(rho, 1e-6))
    assert "Canonne, Kamath & Steinke" in a.method and 0.8 * standard < a.epsilon < standard
    assert a.epsilon < a.epsilon_basic and a.delta == 1e-6 and a.method.startswith("zCDP")
    assert b.epsilon == pytest.approx(5.1) and b.delta == 0 and "not applicable" in b.method
    assert [x.epsilon for x in led.balances()] == pytest.approx([5.1, 5.1])  # no delta given
    assert zcdp_epsilon(rho, 1e-6) == pytest.approx(standard)
    with pytest.raises(Exception, match="delta target"):
        led.balances(delta=2.0)


def test_a_uniform_bound_is_charged_to_every_participant_and_composes_in_rho(tmp_path):
    # a synthetic population's record lists no input id: its bound (EVERY_PARTICIPANT) is
    # charged to each participant given, and its rho composes with pure-DP releases in zCDP
    led = Ledger(tmp_path / "l.sqlite")
    synth = Guarantee(mechanism="participant-synth", kind=Kind.RHO_ZCDP, unit=Unit.PARTICIPANT,
                      epsilon=3.0, delta=1e-6,
                      per_participant={EVERY_PARTICIPANT: Budget(3.0, 1e-6, 1, "participant")})
    with pytest.raises(LedgerError, match="give the participants"):
        led.reserve(synth)
    led.reserve(synth, participants=("a", "b"))
    led.reserve(pure(0.5, ("a",)))
    bal = {x.participant: x for x in led.balances(delta=1e-5)}
    assert len(bal) == 2
    a, b = bal[keyed(led.path, "a")], bal[keyed(led.path, "b")]
    assert b.epsilon_basic == pytest.approx(3.0) and b.delta_basic == pytest.approx(1e-6)
    assert a.epsilon_basic == pytest.approx(3.5)
    assert a.rho == pytest.approx(epsilon_to_rho(3.0, 1e-6) + 0.5**2 / 2, rel=1e-6)
    # the Spend check compares the uniform bound with the uniform plan
    from gazeprivacy.accounting.ledger import Spend

    spend = Spend(led, synth, participants=("c",))
    spend.check(synth)
    more = Guarantee(mechanism="participant-synth", kind=Kind.RHO_ZCDP, unit=Unit.PARTICIPANT,
                     epsilon=4.0, delta=1e-6,
                     per_participant={EVERY_PARTICIPANT: Budget(4.0, 1e-6, 1, "participant")})
    with pytest.raises(LedgerError, match="spend more than the plan"):
        spend.check(more)


def test_a_corrupt_or_foreign_ledger_file_is_refused_naming_it(tmp_path):
    bad = tmp_path / "corrupt.sqlite"
    bad.write_bytes(np.random.default_rng(1).bytes(8192))
    for call in (lambda: Ledger(bad).reserve(pure(1.0)), lambda: Ledger(bad).balances()):
        with pytest.raises(LedgerError, match=r"corrupt\.sqlite.*not a usable gazeprivacy "
                                              "ledger"):
            call()
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t (x)")
    with pytest.raises(LedgerError, match="other.sqlite.*not a gazeprivacy ledger"):
        Ledger(other).reserve(pure(1.0))
    with pytest.raises(LedgerError, match="no ledger file"):
        Ledger(tmp_path / "missing.sqlite").balances()


def test_a_missing_foreign_or_readable_key_is_refused(tmp_path):
    led = tmp_path / "l.sqlite"
    Ledger(led).reserve(pure(1.0))
    key = key_path(led)
    text = key.read_text()
    key.chmod(0o644)
    with pytest.raises(LedgerError, match="readable by others"):
        Ledger(led).reserve(pure(1.0))
    key.unlink()
    with pytest.raises(LedgerError, match="key file .* is missing"):
        Ledger(led).reserve(pure(1.0))
    assert not key.exists()  # not silently replaced by a new key
    key.write_text("00" * 32)
    key.chmod(0o600)
    with pytest.raises(LedgerError, match="not the key of ledger"):
        Ledger(led).reserve(pure(1.0))
    key.write_text(text)
    assert len(Ledger(led).entries()) == 1


def test_concurrent_reservations_never_overspend(tmp_path):
    path = tmp_path / "l.sqlite"
    Ledger(path).reserve(pure(0.5, ("a", "b")))  # the file and key exist before the race
    barrier, results = threading.Barrier(8), []

    def worker():
        barrier.wait()
        try:
            Ledger(path, max_epsilon_per_participant=3.5).reserve(pure(1.0, ("a", "b")))
            results.append("ok")
        except BudgetExceededError:
            results.append("refused")

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["ok"] * 3 + ["refused"] * 5
    assert [b.epsilon_basic for b in Ledger(path).balances()] == [3.5, 3.5]


def test_ldp_records_compose_per_unit_in_zcdp_and_central_ones_do_not(tmp_path):
    led = Ledger(tmp_path / "l.sqlite")
    ldp = Guarantee(mechanism="m", kind=Kind.LOCAL_DP, unit=Unit.WINDOW, epsilon=0.05)
    central = Guarantee(mechanism="m", kind=Kind.PURE_DP, unit=Unit.WINDOW, epsilon=0.05)
    for _ in range(4):
        led.reserve(ldp.compose({"a": 100}))
        led.reserve(central.compose({"b": 100}))
    bal = {x.participant: x for x in led.balances(delta=1e-6)}
    a, b = bal[keyed(led.path, "a")], bal[keyed(led.path, "b")]
    assert a.epsilon_basic == b.epsilon_basic == pytest.approx(20.0)
    assert a.rho == pytest.approx(0.5) and a.epsilon < 0.5 * a.epsilon_basic  # 4x100x0.05^2/2
    assert b.epsilon == pytest.approx(20.0) and "not tighter" in b.method  # rho = 4 x 5^2/2


def test_an_empty_sqlite_file_is_an_empty_ledger(tmp_path):
    path = tmp_path / "l.sqlite"
    path.touch()  # what a first reservation killed inside its transaction leaves
    assert Ledger(path).entries() == [] and Ledger(path).balances() == []
    Ledger(path).reserve(pure(1.0))
    assert len(Ledger(path).entries()) == 1


def test_bad_cap_is_named(tmp_path):
    with pytest.raises(Exception, match="max_epsilon_per_participant must be"):
        Ledger(tmp_path / "l.sqlite", max_epsilon_per_participant=-1)


def test_feature_series_releases_are_charged_too(tmp_path):
    from gazeprivacy.features.ranges import FeatureRange

    g = np.random.default_rng(0)
    tab = pl.DataFrame({"participant": ["alice-raw-id"] * 64 + ["bob-raw-id"] * 32,
                        "recording": ["r1"] * 64 + ["r2"] * 32,
                        "t_start": np.concatenate([np.arange(64), np.arange(32)]) * 0.5,
                        "ratio": g.uniform(0, 1, 96)})
    tab.write_parquet(tmp_path / "f.parquet")
    led = tmp_path / "l.sqlite"
    sealed = protect_file(tmp_path / "f.parquet", tmp_path / "o.parquet", mechanism="series-lpa",
                          epsilon=1.0, ranges={"ratio": FeatureRange(0, 1, "declared", "test")},
                          ledger=led)
    spent = sorted(b.epsilon_basic for b in Ledger(led).balances())
    assert spent == sorted(b.epsilon for b in sealed.guarantee.per_participant.values())
    assert {r["status"] for r in Ledger(led).entries()} == {"committed"}


def test_a_record_spending_more_than_its_privacy_map_is_not_written(tmp_path, monkeypatch):
    src = gaze_file(tmp_path / "in.csv")
    real = mechanisms.build_params

    def understated(mechanism, params=None, /, **kw):  # the privacy map sees half the epsilon
        return real(mechanism, params, **{**kw, "epsilon": kw["epsilon"] / 2})

    monkeypatch.setattr(mechanisms, "build_params", understated)
    led = tmp_path / "l.sqlite"
    with pytest.raises(LedgerError, match="spend more than the plan"):
        protect_file(src, tmp_path / "o.csv", ledger=led, **KALEIDO)
    assert not (tmp_path / "o.csv").exists()
    assert {r["status"] for r in Ledger(led).entries()} == {"cancelled"}


def test_a_run_failing_before_the_write_cancels_its_reservation(tmp_path):
    src = gaze_file(tmp_path / "in.csv")
    led = Ledger(tmp_path / "l.sqlite", max_epsilon_per_participant=4.0)
    with pytest.raises(InvalidParameterError, match="alice-raw-id"):  # refused by the sealing
        protect_file(src, tmp_path / "o.csv", ledger=led, public=["alice-raw-id"], **KALEIDO)
    rows = Ledger(led.path).entries()
    assert {(r["status"], r["reason"]) for r in rows} == {
        ("cancelled", "failed before the write (InvalidParameterError)")}
    assert Ledger(led.path).balances() == [] and b"alice" not in led.path.read_bytes()
    protect_file(src, tmp_path / "o.csv", ledger=led, **KALEIDO)  # the budget was not spent
