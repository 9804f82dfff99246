# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Composition for the privacy-budget ledger: one participant's spend over its releases.

Basic sequential composition always; zero-concentrated DP where it is justified (pure epsilon-DP
and LDP releases, and rho-zCDP releases such as participant-synth), converted to (epsilon,
delta)-DP at a delta target by the one conversion of :mod:`gazeprivacy.accounting.zcdp`, whatever
optional packages are installed. The argument is in :mod:`gazeprivacy.accounting.ledger` and
docs/ledger.md.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.guarantees import Kind

__all__ = ["ParticipantBalance", "zcdp_epsilon"]

_ZCDP_KINDS = (Kind.PURE_DP.value, Kind.LOCAL_DP.value)
_RHO_KIND = Kind.RHO_ZCDP.value



@dataclass(frozen=True, slots=True)
class ParticipantBalance:
    """What one participant (keyed hash) has spent over the ledger's releases.

    ``epsilon_basic`` / ``delta_basic``: basic composition (what the cap is checked against);
    ``epsilon`` / ``delta``: the tightest bound the ledger can justify, by ``method``; ``rho``:
    the zCDP total where zCDP applies; ``remaining``: cap minus ``epsilon_basic``.
    """

    participant: str
    releases: int
    unaccounted: int
    reserved: int
    epsilon_basic: float
    delta_basic: float
    epsilon: float
    delta: float
    rho: float | None
    method: str
    remaining: float | None

    def to_dict(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in self.__slots__}


def zcdp_epsilon(rho: float, delta: float) -> float:
    """(epsilon, delta)-DP from rho-zCDP: rho + 2 sqrt(rho ln(1/delta)) (Bun & Steinke 2016).

    >>> round(zcdp_epsilon(0.5, 1e-6), 4)
    5.7565
    """
    if not 0 < delta < 1:
        raise InvalidParameterError(f"delta target must be in (0, 1), got {delta!r}")
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


@functools.lru_cache(maxsize=4096)
def _zcdp_to_approx(rho: float, delta: float) -> tuple[float, str]:
    """epsilon at ``delta`` of a rho-zCDP mechanism by the project's one conversion
    (:func:`gazeprivacy.accounting.zcdp.rho_to_epsilon`), and its name."""
    from gazeprivacy.accounting.zcdp import CONVERSION, rho_to_epsilon

    return rho_to_epsilon(rho, delta), CONVERSION


_BASIC = "basic composition (epsilons and deltas add)"


def _rho(row: dict[str, Any]) -> float:
    """rho of one release for one participant: eps^2/2 of its per-participant epsilon; for an
    LDP record of n units at eps0 each (eps = n eps0), n eps0^2/2 -- each unit's report is a
    separate eps0-DP randomiser of that unit's data, so the units compose (the same argument as
    the record's n eps0) rather than needing group privacy, as a central record of several
    units does (eps^2/2 only)."""
    eps, e0, n = row["epsilon"], row["unit_epsilon"], row["units"]
    if row["kind"] == _RHO_KIND:  # its (epsilon, delta) came from rho by the one conversion
        from gazeprivacy.accounting.zcdp import epsilon_to_rho

        return epsilon_to_rho(eps, row["delta"])
    if row["kind"] == Kind.LOCAL_DP.value and e0 and n and math.isclose(eps, n * e0,
                                                                         rel_tol=1e-9):
        return n * e0 * e0 / 2
    return eps * eps / 2


def _balance(participant: str, rows: list[dict[str, Any]], delta: float | None,
             cap: float | None) -> ParticipantBalance:
    eps = math.fsum(r["epsilon"] or 0.0 for r in rows)
    dlt = min(1.0, math.fsum(r["delta"] or 0.0 for r in rows))
    unaccounted = sum(not r["accounted"] for r in rows)
    method, eps_out, delta_out, rho = _BASIC, eps, dlt, None
    if delta is not None:
        covered = all(r["accounted"] and r["epsilon"] is not None and (
            (r["kind"] in _ZCDP_KINDS and not r["delta"]) or r["kind"] == _RHO_KIND)
            for r in rows)
        if not covered:
            method = _BASIC + "; zCDP not applicable (a release is not pure epsilon-DP/LDP " \
                              "or is unaccounted)"
        else:
            rho = math.fsum(_rho(r) for r in rows)
            ez, how = _zcdp_to_approx(rho, delta)
            if ez < eps:
                method = (f"zCDP (Bun & Steinke 2016): rho = sum of eps^2/2 per release (n "
                          f"eps0^2/2 for an LDP record of n units at eps0; a rho-zCDP "
                          f"release's own rho), converted at delta = {delta:g} by {how}")
                eps_out, delta_out = ez, delta
            else:
                method = _BASIC + f"; zCDP at delta = {delta:g} gives {ez:.6g}, not tighter"
    if unaccounted:
        method += f"; {unaccounted} unaccounted release(s): the bound does not cover them"
    return ParticipantBalance(
        participant=participant, releases=len(rows), unaccounted=unaccounted,
        reserved=sum(r["status"] == "reserved" for r in rows), epsilon_basic=eps,
        delta_basic=dlt, epsilon=eps_out, delta=delta_out, rho=rho, method=method,
        remaining=None if cap is None else cap - eps)

