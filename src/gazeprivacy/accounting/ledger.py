# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""A persistent per-participant privacy-budget ledger across releases (issue 17, part 3).

Every release made with a :class:`Ledger` (``protect_file(..., ledger=)`` or ``gazeprivacy
protect --ledger FILE``) charges each participant the per-participant epsilon and delta of its
guarantee record. The ledger is the data holder's SQLite file (standard library ``sqlite3``):

* it links one person across releases (whose released ids are different pseudonyms) through
  an HMAC-SHA256 of the raw participant id under a 256-bit key kept in ``LEDGER.key`` beside it
  (created on first use with 0600 permissions, never released). The ledger holds no raw id and
  no guarantee record (a record keys its budgets by raw id);
* the spend is computed from the data-free privacy map and *reserved* in one ``BEGIN
  IMMEDIATE`` transaction before any work: the cap check and the insert of every charge are
  one atomic step, so two processes on one ledger never overspend, and a crash leaves either
  the whole reservation or nothing. A killed run's reservation stays spent (conservative);
  after the write it is marked ``committed`` (or ``unaccounted``) with the output's SHA-256. A
  run that fails with an error before writing released nothing: its reservation is marked
  ``cancelled`` and no longer counts;
* ``max_epsilon_per_participant`` is a lifetime cap, checked under basic composition (the sum
  of every epsilon charged, reserved or committed). It is stored in the ledger when first given
  (normally at creation) and can only be lowered afterwards: a later call without a cap uses
  the stored one, a call with a higher one is refused. A release whose record gives no epsilon,
  or whose record is not formally private (k-anonymity, plausible deniability, paper mode,
  guarantee-breaking flags), is *unaccounted*: refused under a cap unless
  ``allow_unaccounted``, and then recorded as such (its nominal epsilon, if any, still counts).
  A written release made from a fixed seed (flag ``seeded-release``) is refused with or without
  a cap unless ``allow_unaccounted``;
* participant ids are normalised before they are hashed (:func:`normalise_id`: surrounding
  whitespace trimmed, case folded), so ``P01``, ``p01`` and ``P01 `` are one person: their
  budgets in one release add up, and the raw spellings merged are reported
  (:attr:`Reservation.merged`). A ledger written before this policy hashed raw spellings: the
  cap check also counts charges under the exact spellings of the release.

Composition (:meth:`Ledger.balances`): basic sequential composition always (epsilons and deltas
add). With a ``delta`` target, zero-concentrated DP where it is justified: when every release
charged to a participant is accounted, pure (no delta) and of kind ``epsilon-DP`` or
``epsilon-LDP``, each release is eps_i-DP for that participant under one neighbouring relation
(the record's, lifted to the participant), hence eps_i^2/2-zCDP (Bun & Steinke 2016, Prop.
1.4). An LDP record of n units at eps0 each (eps_i = n eps0) is charged n eps0^2/2: each
unit's report is a separate randomiser of that unit's data alone, with its own randomness, and
eps0-DP under the record's per-unit relation, so the participant's reports are an adaptive
composition of n eps0-DP mechanisms -- the argument behind the record's own n eps0 -- which
zCDP composes as n eps0^2/2. A central record of several units needs group privacy across
them, hence eps_i^2/2 only. rho adds under composition (ibid.) and converts to (eps, delta)-DP
by :func:`gazeprivacy.accounting.zcdp.rho_to_epsilon` (Canonne, Kamath & Steinke 2020), the one
conversion, whatever is installed; a rho-zCDP release (participant-synth) adds its own rho. The
tighter of
basic and zCDP is reported, with its method. The lifetime cap is always checked under basic
composition. ``(epsilon,w,r)-DP``
(w-event: Kaleido allocates its budget adaptively over sliding windows, so its disjoint windows
are not fixed randomisers) and approximate-DP records get basic composition only.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import math
import os
import secrets
import sqlite3
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gazeprivacy.accounting.composition import ParticipantBalance, _balance, zcdp_epsilon
from gazeprivacy.exceptions import GazePrivacyError, InvalidParameterError
from gazeprivacy.guarantees import EVERY_PARTICIPANT, FlagCode, Guarantee, Kind

__all__ = [
    "BudgetExceededError",
    "Charge",
    "Ledger",
    "LedgerError",
    "ParticipantBalance",
    "Reservation",
    "Spend",
    "UnaccountedReleaseError",
    "file_sha256",
    "key_path",
    "normalise_id",
    "zcdp_epsilon",
]

_FORMAT = "gazeprivacy-ledger"
_VERSION = "1"
_KEY_CHECK = b"gazeprivacy-ledger key check v1"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS releases (
    id TEXT PRIMARY KEY, mechanism TEXT NOT NULL, kind TEXT NOT NULL, unit TEXT NOT NULL,
    mode TEXT NOT NULL, epsilon REAL, delta REAL, accounted INTEGER NOT NULL,
    allowed_unaccounted INTEGER NOT NULL, reason TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('reserved', 'committed', 'unaccounted', 'cancelled')),
    cap REAL, reserved_at TEXT NOT NULL, committed_at TEXT, output TEXT, output_sha256 TEXT);
CREATE TABLE IF NOT EXISTS charges (
    release_id TEXT NOT NULL REFERENCES releases(id), participant TEXT NOT NULL,
    epsilon REAL, delta REAL, units INTEGER NOT NULL, rule TEXT NOT NULL,
    PRIMARY KEY (release_id, participant));
"""


class LedgerError(GazePrivacyError):
    """The ledger file (or its key) cannot be used, or the ledger refuses a release."""


class BudgetExceededError(LedgerError):
    """A release would take participants past the lifetime cap; refused before any work."""


class UnaccountedReleaseError(LedgerError):
    """A release without a usable epsilon under a cap, without ``allow_unaccounted``."""


@dataclass(frozen=True, slots=True)
class Charge:
    """One participant's charge of one release (``participant`` is the keyed hash)."""

    participant: str
    epsilon: float | None
    delta: float | None
    units: int
    rule: str


@dataclass(frozen=True, slots=True)
class Reservation:
    """A reserved release: ``id`` in the ledger and what it charged."""

    id: str
    ledger: Path
    mechanism: str
    accounted: bool
    charges: tuple[Charge, ...]
    #: raw spellings charged as one person (normalise_id), one tuple per merged person
    merged: tuple[tuple[str, ...], ...] = ()

    @property
    def max_epsilon(self) -> float | None:
        vals = [c.epsilon for c in self.charges if c.epsilon is not None]
        return max(vals) if vals else None




def normalise_id(pid: object) -> str:
    """The ledger's participant id policy: surrounding whitespace trimmed, case folded.

    >>> print(*(normalise_id(p) for p in ("P01", "p01", "P01 ", " Straße")))
    p01 p01 p01 strasse
    """
    return str(pid).strip().casefold()


def key_path(ledger: str | Path) -> Path:
    """The key file of ``ledger``: ``LEDGER.key`` beside it."""
    ledger = Path(ledger)
    return ledger.with_name(ledger.name + ".key")


def file_sha256(path: str | Path) -> str:
    """SHA-256 (hex) of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _is_unaccounted(g: Guarantee) -> str:
    """Why ``g`` cannot be accounted ('' when it can)."""
    if g.kind in (Kind.K_ANONYMITY, Kind.PLAUSIBLE_DENIABILITY, Kind.NONE):
        return f"{g.kind.value} has no epsilon"
    if g.mode != "sound":
        return f"{g.mode} mode"
    breaking = [f.code.value for f in g.flags if f.breaks_guarantee]
    if breaking:
        return f"flagged ({', '.join(breaking)})"
    if g.per_participant is None or any(b.epsilon is None for b in g.per_participant.values()):
        return "no per-participant epsilon in the record"
    return ""



class Ledger:
    """A per-participant privacy-budget ledger in the SQLite file ``path``.

    Parameters
    ----------
    path : path
        The ledger file (created on first reservation, with its key file ``PATH.key``).
    max_epsilon_per_participant : float, optional
        Lifetime cap: a release that would take any participant's total epsilon (basic
        composition, reservations included) past it is refused before any work. Stored in the
        ledger when first given; afterwards it can only be lowered (None: the stored cap).
    allow_unaccounted : bool
        Under a cap, accept releases without a usable epsilon (recorded as unaccounted).
    timeout_s : float
        How long to wait for another process's transaction on the same ledger.

    Examples
    --------
    >>> import tempfile
    >>> from gazeprivacy.guarantees import Unit
    >>> g = Guarantee(mechanism="m", kind=Kind.PURE_DP, unit=Unit.WINDOW, epsilon=0.5)
    >>> led = Ledger(Path(tempfile.mkdtemp()) / "l.sqlite", max_epsilon_per_participant=3)
    >>> r = led.reserve(g.compose({"alice": 4}))
    >>> led.commit(r)
    >>> [(b.epsilon_basic, b.remaining) for b in led.balances()]
    [(2.0, 1.0)]
    >>> "alice" in led.path.read_bytes().decode("latin-1")
    False
    """

    def __init__(self, path: str | Path, *, max_epsilon_per_participant: float | None = None,
                 allow_unaccounted: bool = False, timeout_s: float = 60.0) -> None:
        cap = max_epsilon_per_participant
        if cap is not None and not (math.isfinite(cap) and cap > 0):
            raise InvalidParameterError(f"max_epsilon_per_participant must be a finite number "
                                        f"> 0, got {cap!r}")
        self.path = Path(path)
        self.max_epsilon_per_participant = None if cap is None else float(cap)
        self.allow_unaccounted = bool(allow_unaccounted)
        self.timeout_s = float(timeout_s)

    def __repr__(self) -> str:
        return (f"Ledger({str(self.path)!r}, max_epsilon_per_participant="
                f"{self.max_epsilon_per_participant!r}, allow_unaccounted="
                f"{self.allow_unaccounted!r})")

    @classmethod
    def coerce(cls, ledger: Ledger | str | Path) -> Ledger:
        """``ledger`` as a :class:`Ledger` (a path opens one without a cap)."""
        return ledger if isinstance(ledger, Ledger) else cls(ledger)

    # ------------------------------------------------------------------ file and key

    @contextlib.contextmanager
    def _transaction(self, *, write: bool) -> Iterator[sqlite3.Connection]:
        """One transaction (``BEGIN IMMEDIATE`` when writing) on a checked ledger file."""
        if not write and not self.path.is_file():
            raise LedgerError(f"no ledger file at {str(self.path)!r}")
        new_file = not self.path.exists()
        try:
            conn = sqlite3.connect(self.path, timeout=self.timeout_s, isolation_level=None)
        except sqlite3.Error as exc:
            raise LedgerError(f"cannot open ledger {str(self.path)!r}: {exc}") from None
        try:
            if new_file:
                os.chmod(self.path, 0o600)
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                self._check_or_create(conn, create=write)
                yield conn
            except BaseException:
                conn.rollback()
                raise
            conn.commit()
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise LedgerError(f"ledger {str(self.path)!r} stayed locked by another process "
                                  f"for {self.timeout_s:g} s; try again") from None
            raise self._corrupt(exc) from None
        except sqlite3.DatabaseError as exc:
            raise self._corrupt(exc) from None
        finally:
            conn.close()

    def _corrupt(self, exc: Exception) -> LedgerError:
        return LedgerError(f"{str(self.path)!r} is not a usable gazeprivacy ledger ({exc}); "
                           "refusing to read or write it (restore it from a backup)")

    def _check_or_create(self, conn: sqlite3.Connection, *, create: bool) -> None:
        tables = {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables and not create:
            return  # an empty SQLite file (e.g. a first reservation that was killed): no entries
        if not tables:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            key = self._key(create=True)
            conn.executemany("INSERT INTO meta VALUES (?, ?)", [
                ("format", _FORMAT), ("version", _VERSION), ("created_at", _now()),
                ("key_check", hmac.new(key, _KEY_CHECK, hashlib.sha256).hexdigest())])
            return
        if not {"meta", "releases", "charges"} <= tables:
            raise LedgerError(f"{str(self.path)!r} is an SQLite file but not a gazeprivacy "
                              "ledger (no meta / releases / charges tables); refusing it")
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("format") != _FORMAT or meta.get("version") != _VERSION:
            raise LedgerError(f"{str(self.path)!r} is not a gazeprivacy ledger of version "
                              f"{_VERSION} (format {meta.get('format')!r}, version "
                              f"{meta.get('version')!r})")

    def _key(self, *, create: bool) -> bytes:
        kp = key_path(self.path)
        if not kp.exists() and create:
            tmp = kp.with_name(f".{uuid.uuid4().hex[:12]}.{kp.name}")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                with os.fdopen(fd, "w") as f:
                    f.write(secrets.token_hex(32) + "\n")
                    f.flush()
                    os.fsync(f.fileno())
                with contextlib.suppress(FileExistsError):
                    os.link(tmp, kp)  # atomic: never a half-written key file
            finally:
                tmp.unlink(missing_ok=True)
        if not kp.exists():
            raise LedgerError(f"the key file {str(kp)!r} of ledger {str(self.path)!r} is "
                              "missing: without it the ledger cannot link participants across "
                              "releases; restore it (never release it)")
        if kp.stat().st_mode & 0o077:
            raise LedgerError(f"the ledger key file {str(kp)!r} is readable by others; "
                              f"`chmod 600 {kp}` (and never release it)")
        text = kp.read_text().strip()
        try:
            key = bytes.fromhex(text)
        except ValueError:
            key = b""
        if len(key) != 32:
            raise LedgerError(f"the ledger key file {str(kp)!r} does not hold a 256-bit hex key")
        return key

    def _checked_key(self, conn: sqlite3.Connection) -> bytes:
        key = self._key(create=False)
        (check,) = conn.execute("SELECT value FROM meta WHERE key = 'key_check'").fetchone()
        if not hmac.compare_digest(check, hmac.new(key, _KEY_CHECK, hashlib.sha256).hexdigest()):
            raise LedgerError(f"the key file {str(key_path(self.path))!r} is not the key of "
                              f"ledger {str(self.path)!r}; refusing to charge participants "
                              "under another key")
        return key

    # ------------------------------------------------------------------ reserve / commit

    def reserve(self, guarantee: Guarantee, *, participants: Iterable[str] = ()) -> Reservation:
        """Charge every participant of ``guarantee`` (and ``participants``) in one transaction.

        ``guarantee`` is the release's record from the privacy map, before any work, with
        ``per_participant`` keyed by raw participant id; ``participants`` adds ids the record
        does not list (charged as unaccounted). Ids are normalised (:func:`normalise_id`); the
        budgets of spellings of one person add up. Raises :class:`BudgetExceededError` or
        :class:`UnaccountedReleaseError` (the ledger unchanged) when the cap refuses it.
        """
        per = _per_participant(guarantee, participants)
        groups: dict[str, list[str]] = {}
        for pid in dict.fromkeys([*per, *(str(p) for p in participants)]):
            groups.setdefault(normalise_id(pid), []).append(pid)
        if not groups:
            raise LedgerError(f"the {guarantee.mechanism} release names no participant; "
                              "nothing to charge")
        reason = _is_unaccounted(guarantee)
        seeded = any(f.code is FlagCode.SEEDED_RELEASE for f in guarantee.flags)
        if seeded and not self.allow_unaccounted:
            raise UnaccountedReleaseError(
                f"{self.path}: refused before any work: the {guarantee.mechanism} release is "
                "made from a fixed seed (--seed / seed=), so it is not formally private and "
                "the ledger cannot account it; drop --seed, or pass --allow-unaccounted "
                "(Python: allow_unaccounted=True) to record it as unaccounted")
        rid = uuid.uuid4().hex
        with self._transaction(write=True) as conn:
            key = self._checked_key(conn)
            cap = self._settle_cap(conn)
            charges = tuple(_charge(key, norm, [per.get(p) for p in raw])
                            for norm, raw in groups.items())
            legacy = {c.participant: {_hash(key, p) for p in raw} - {c.participant}
                      for c, raw in zip(charges, groups.values(), strict=True)}
            self._check_cap(conn, guarantee.mechanism, charges, reason, cap, legacy)
            conn.execute("INSERT INTO releases VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                         "NULL, NULL, NULL)",
                         (rid, guarantee.mechanism, guarantee.kind.value,
                          guarantee.unit.value, str(guarantee.mode), guarantee.epsilon,
                          guarantee.delta, int(not reason),
                          int(bool(reason) and self.allow_unaccounted), reason, "reserved",
                          cap, _now()))
            _insert_charges(conn, rid, charges)
        merged = tuple(tuple(raw) for raw in groups.values() if len(raw) > 1)
        return Reservation(rid, self.path, guarantee.mechanism, not reason, charges, merged)

    def _settle_cap(self, conn: sqlite3.Connection) -> float | None:
        """The lifetime cap in force: the stored one, lowered (never raised) by this call's."""
        stored = _stored_cap(conn)
        given = self.max_epsilon_per_participant
        if given is None:
            return stored
        if stored is not None and given > stored * (1 + 1e-12):
            raise LedgerError(
                f"{self.path}: the ledger's lifetime cap is epsilon {stored:g} per participant; "
                f"it can only be lowered, not raised to {given:g} "
                "(--max-epsilon-per-participant)")
        if stored is None or given < stored:
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('max_epsilon_per_participant', ?)",
                         (repr(float(given)),))
        return given if stored is None else min(given, stored)

    def cap(self) -> float | None:
        """The lifetime cap stored in the ledger (None: no cap yet, or no ledger file)."""
        if not self.path.is_file():
            return self.max_epsilon_per_participant
        with self._transaction(write=False) as conn:
            if conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0:
                return self.max_epsilon_per_participant
            return _stored_cap(conn)

    def _check_cap(self, conn: sqlite3.Connection, mechanism: str, charges: Sequence[Charge],
                   reason: str, cap: float | None,
                   legacy: dict[str, set[str]]) -> None:
        if cap is None:
            return
        where = f"{self.path}: refused before any work"
        if reason and not self.allow_unaccounted:
            raise UnaccountedReleaseError(
                f"{where}: the {mechanism} release is unaccounted ({reason}) and the ledger "
                f"has a lifetime cap of epsilon {cap:g} per participant; pass "
                "--allow-unaccounted (Python: allow_unaccounted=True) to release it anyway, "
                "recorded as unaccounted")
        spent = dict(conn.execute(
            "SELECT c.participant, SUM(COALESCE(c.epsilon, 0)) FROM charges c JOIN releases r "
            "ON r.id = c.release_id WHERE r.status != 'cancelled' GROUP BY c.participant"))
        over = sorted(spent.get(c.participant, 0.0) + (c.epsilon or 0.0) - cap
                      + sum(spent.get(h, 0.0) for h in legacy.get(c.participant, ()))
                      for c in charges)
        over = [v for v in over if v > 1e-12 * max(1.0, cap)]
        if over:
            most = max(c.epsilon or 0.0 for c in charges)
            by = (f"{over[0]:.4g}" if math.isclose(over[0], over[-1])
                  else f"{over[0]:.4g} to {over[-1]:.4g}")
            raise BudgetExceededError(
                f"{where}: {mechanism} (up to epsilon {most:g} per participant) would take "
                f"{len(over)} of {len(charges)} participants past the lifetime cap of epsilon "
                f"{cap:g}, by {by}; the ledger is unchanged")

    def commit(self, reservation: Reservation, output: str | Path | None = None) -> None:
        """Mark ``reservation`` written: ``committed`` (``unaccounted`` when it is), with the
        output's path and SHA-256."""
        digest = file_sha256(output) if output is not None else None
        status = "committed" if reservation.accounted else "unaccounted"
        self._close(reservation, status, output=None if output is None else str(output),
                    digest=digest)

    def cancel(self, reservation: Reservation, reason: str) -> None:
        """Mark ``reservation`` ``cancelled``: the run failed with an error before writing
        anything, so it released nothing and its charges no longer count. (A killed or
        interrupted run cannot know that and keeps its reservation.)"""
        self._close(reservation, "cancelled", reason=reason[:500])

    def _close(self, reservation: Reservation, status: str, *, output: str | None = None,
               digest: str | None = None, reason: str | None = None) -> None:
        with self._transaction(write=True) as conn:
            cur = conn.execute("UPDATE releases SET status = ?, committed_at = ?, output = ?, "
                               "output_sha256 = ?, reason = COALESCE(?, reason) WHERE id = ? "
                               "AND status = 'reserved'",
                               (status, _now(), output, digest, reason, reservation.id))
            if cur.rowcount != 1:
                raise LedgerError(f"{self.path}: reservation {reservation.id} is not an open "
                                  "reservation of this ledger")

    # ------------------------------------------------------------------ read

    def entries(self) -> list[dict[str, Any]]:
        """Every charge, one row per release and participant (hash), oldest release first."""
        with self._transaction(write=False) as conn:
            if conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0:
                return []
            cur = conn.execute(
                "SELECT r.id AS release_id, c.participant, r.mechanism, r.kind, r.unit, r.mode, "
                "c.epsilon, c.delta, c.units, c.rule, r.epsilon AS unit_epsilon, r.status, "
                "r.accounted, "
                "r.allowed_unaccounted, r.reason, r.cap, r.reserved_at, r.committed_at, "
                "r.output, r.output_sha256 FROM charges c JOIN releases r "
                "ON r.id = c.release_id ORDER BY r.reserved_at, r.id, c.participant")
            names = [d[0] for d in cur.description]
            return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]

    def balances(self, *, delta: float | None = None,
                 max_epsilon_per_participant: float | None = None) -> list[ParticipantBalance]:
        """Spent and remaining per participant hash (see the module docstring for the
        composition methods). ``delta`` is the target of the zCDP conversion (None: basic
        composition only); the cap defaults to the one stored in the ledger."""
        rows = [r for r in self.entries() if r["status"] != "cancelled"]
        cap = max_epsilon_per_participant or self.cap()
        if delta is not None:
            zcdp_epsilon(0.0, delta)  # validates the target
        by: dict[str, list[dict[str, Any]]] = {}
        for r in rows:
            by.setdefault(r["participant"], []).append(r)
        return [_balance(p, rs, delta, cap) for p, rs in sorted(by.items())]


class Spend:
    """One release's charge in a ledger, around the work that makes the release.

    Reserved on creation from ``planned`` (the record of the data-free privacy map, with
    ``per_participant`` keyed by raw id): refused there, before any work, past the ledger's
    cap. :meth:`guard` cancels the reservation when the work or the write fails with an error
    (put the write inside it); :meth:`check` refuses a release whose actual record spends more
    than was reserved for any participant (or lost its formal guarantee), before anything is
    written; :meth:`commit` marks it written with the output's SHA-256. With ``ledger`` None
    every step does nothing, so callers need no branches.

    >>> Spend(None, None).check(None)  # no ledger: nothing to charge or check
    """

    def __init__(self, ledger: Ledger | str | Path | None, planned: Guarantee | None, *,
                 participants: Iterable[str] = ()) -> None:
        self.ledger = None if ledger is None else Ledger.coerce(ledger)
        self.planned = planned
        self.reservation = (None if self.ledger is None or planned is None
                            else self.ledger.reserve(planned, participants=participants))
        self._so_far: dict[str, tuple[float, float]] = {}

    @contextlib.contextmanager
    def guard(self) -> Iterator[None]:
        """Cancel the reservation when the work in the block fails with an error."""
        try:
            yield
        except Exception as exc:
            if self.reservation is not None:
                # the type only: an error message may name raw ids, which the ledger never holds
                self.ledger.cancel(self.reservation,
                                   f"failed before the write ({type(exc).__name__})")
            raise

    def check(self, actual: Guarantee | None, *, ids: Mapping[str, str] | None = None,
              partial: bool = False) -> None:
        """Refuse (:class:`LedgerError`) a record that spends more than the reservation, for
        any participant (or that lost its formal guarantee).

        ``ids`` maps a raw participant id (as in the plan) to its key in ``actual`` (e.g. its
        pseudonym in a sealed record; default: the raw id). With ``partial`` the record is one
        part of the release (a partition, before it is written): its spends add up over the
        calls, and the running total is checked.
        """
        if self.reservation is None or self.planned is None or actual is None:
            return
        assert self.ledger is not None
        planned = {(ids or {}).get(p, p): (b.epsilon or 0.0, b.delta or 0.0)
                   for p, b in (self.planned.per_participant or {}).items()}
        got = self._so_far if partial else {}
        for key, b in (actual.per_participant or {}).items():
            e, d = got.get(key, (0.0, 0.0))
            got[key] = (e + (b.epsilon or 0.0), d + (b.delta or 0.0))
        over = sorted(k for k, (e, d) in got.items() if k not in planned or _more(
            e, planned[k][0]) or _more(d, planned[k][1]))
        lost = self.planned.formally_private and not actual.formally_private
        if over or lost:
            why = (f"{len(over)} participants spend more than the plan (or are not in it)"
                   if over else "it lost its formal guarantee")
            raise LedgerError(f"{self.ledger.path}: the {actual.mechanism} release's record "
                              f"does not match what its privacy map reserved before the work: "
                              f"{why}; nothing was written")

    @property
    def merged(self) -> tuple[tuple[str, ...], ...]:
        """Raw spellings the ledger charged as one person (:func:`normalise_id`)."""
        return () if self.reservation is None else self.reservation.merged

    def commit(self, output: str | Path | None) -> None:
        """Mark the reservation written, with ``output``'s SHA-256."""
        if self.reservation is not None:
            self.ledger.commit(self.reservation, output)


def _per_participant(guarantee: Guarantee, participants: Iterable[str]) -> dict[str, Any]:
    """The record's budgets keyed by raw id; a uniform bound (:data:`EVERY_PARTICIPANT`, a
    synthetic population's record) is charged to every participant given."""
    per = dict(guarantee.per_participant or {})
    if set(per) == {EVERY_PARTICIPANT}:
        who = [str(p) for p in participants]
        if not who:
            raise LedgerError(f"the {guarantee.mechanism} release bounds every participant "
                              "alike; give the participants to charge")
        return dict.fromkeys(who, per[EVERY_PARTICIPANT])
    return per


def _more(value: float, planned: float) -> bool:
    return value > planned * (1 + 1e-9) + 1e-12


def _hash(key: bytes, pid: str) -> str:
    return hmac.new(key, pid.encode(), hashlib.sha256).hexdigest()


def _charge(key: bytes, pid: str, budgets: Sequence[Any]) -> Charge:
    """One person's charge: the budgets of its raw spellings (sequential composition)."""
    h = _hash(key, pid)
    known = [b for b in budgets if b is not None]
    if not known:
        return Charge(h, None, None, 0, "no per-participant budget in the record")
    eps = None if any(b.epsilon is None for b in known) else sum(b.epsilon for b in known)
    delta = (None if all(b.delta is None for b in known)
             else min(1.0, sum(b.delta or 0.0 for b in known)))
    rule = str(known[0].rule) if len(known) == 1 else (
        f"{len(known)} spellings of one id, added (sequential composition): "
        + "; ".join(str(b.rule) for b in known))
    return Charge(h, eps, delta, sum(int(b.units) for b in known), rule)


def _stored_cap(conn: sqlite3.Connection) -> float | None:
    """The cap in ``meta``; a ledger from before the stored cap: the lowest cap recorded."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'max_epsilon_per_participant'"
                       ).fetchone()
    if row is not None:
        return float(row[0])
    (old,) = conn.execute("SELECT MIN(cap) FROM releases").fetchone()
    return None if old is None else float(old)


def _insert_charges(conn: sqlite3.Connection, rid: str, charges: Sequence[Charge]) -> None:
    conn.executemany("INSERT INTO charges VALUES (?, ?, ?, ?, ?, ?)",
                     [(rid, c.participant, c.epsilon, c.delta, c.units, c.rule)
                      for c in charges])

