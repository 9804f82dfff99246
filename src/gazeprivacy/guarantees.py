# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Guarantee records: what a release promised, as data (SPEC section 0).

Every mechanism has a ``guarantee(params, ...)`` privacy map that never reads the data and
returns a :class:`Guarantee`; every public release returns its output with that record inside a
:class:`Release`. When the paper's unit (window, chunk, event) is smaller than a participant, the
record also carries ``per_participant`` budgets under basic sequential composition, computed from
the public shape (how many units each participant contributed).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from typing import Any, Generic, TypeVar

__all__ = [
    "VACUOUS_EPSILON",
    "Budget",
    "ColumnStatus",
    "Flag",
    "FlagCode",
    "Guarantee",
    "Kind",
    "Release",
    "Status",
    "Unit",
]

T = TypeVar("T")


class Kind(StrEnum):
    """The formal notion a record speaks of."""

    PURE_DP = "epsilon-DP"
    APPROX_DP = "(epsilon,delta)-DP"
    #: rho-zero-concentrated DP (Bun & Steinke 2016); the record's epsilon and delta are its
    #: conversion (``parameters["rho"]``, ``parameters["conversion"]``:
    #: :mod:`gazeprivacy.accounting.zcdp`)
    RHO_ZCDP = "rho-zCDP"
    LOCAL_DP = "epsilon-LDP"
    W_EVENT_DP = "(epsilon,w,r)-DP"
    K_ANONYMITY = "k-anonymity"
    PLAUSIBLE_DENIABILITY = "(k,gamma)-PD"
    NONE = "none"


class Unit(StrEnum):
    """The unit of privacy: what two neighbouring inputs differ in."""

    SAMPLE = "sample"
    WINDOW = "window"
    W_WINDOW = "w-window"
    EVENT = "event"
    CHUNK = "chunk"
    SERIES = "series"
    RECORDING = "recording"
    PARTICIPANT = "participant"


class FlagCode(StrEnum):
    """Why a record is weaker than its headline. ``FIXED_SEED`` is informational."""

    DATA_DEPENDENT_SENSITIVITY = "data-dependent-sensitivity"
    TUNED_ON_PRIVATE_DATA = "tuned-on-private-data"
    PROOF_GAP = "proof-gap"
    NOT_PRIVATE = "not-private"
    PARTIAL_COVERAGE = "partial-coverage"
    FIXED_SEED = "fixed-seed"


_INFORMATIONAL = {FlagCode.FIXED_SEED}

VACUOUS_EPSILON = 10.0
"""A per-participant epsilon above this promises nothing a reader can use: the odds of any
yes/no inference about the participant may grow by e^10 ~ 22,000 x (a 1 % prior may become a
99.5 % posterior). ``Guarantee.summary`` says so in words, as it does for delta >= 1."""


class Status(StrEnum):
    """What protects a written column (or a public-by-design property) of a release."""

    PROTECTED = "protected"              # a mechanism's output, at a budget share
    PUBLIC_DECLARED = "public-declared"  # copied as is because the user declared it public
    PUBLIC_BY_DESIGN = "public-by-design"  # derived from public shape only (grid, rate, geometry)
    PSEUDONYMISED = "pseudonymised"      # raw ids replaced by random pseudonyms
    NOT_WRITTEN = "not-written"          # an input column the release leaves out


@dataclass(frozen=True, slots=True, kw_only=True)
class ColumnStatus:
    """One output column (or public-by-design property) of a release and what covers it.

    ``by`` names the mechanism or policy; ``epsilon_share`` is the column's part of the per-unit
    epsilon (None when it spends none or the kind has no epsilon).
    """

    name: str
    status: Status
    by: str = ""
    epsilon_share: float | None = None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status.value, "by": self.by,
                "epsilon_share": self.epsilon_share, "note": self.note}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ColumnStatus:
        return cls(name=d["name"], status=Status(d["status"]), by=d.get("by", ""),
                   epsilon_share=d.get("epsilon_share"), note=d.get("note", ""))


@dataclass(frozen=True, slots=True)
class Flag:
    """One reason the formal guarantee does not (fully) hold, in words a user can act on."""

    code: FlagCode
    message: str

    @property
    def breaks_guarantee(self) -> bool:
        return self.code not in _INFORMATIONAL


@dataclass(frozen=True, slots=True)
class Budget:
    """A privacy budget at one unit, e.g. the whole participant after composition."""

    epsilon: float | None
    delta: float | None = None
    units: int = 1
    rule: str = "single unit"


@dataclass(frozen=True, kw_only=True)
class Guarantee:
    """What a release promises, per unit and per participant.

    Examples
    --------
    >>> g = Guarantee(mechanism="laplace", kind=Kind.PURE_DP, unit=Unit.WINDOW, epsilon=0.5)
    >>> g.compose({"p1": 4}).per_participant["p1"].epsilon
    2.0
    >>> Guarantee.from_json(g.to_json()) == g
    True
    """

    mechanism: str
    kind: Kind
    unit: Unit
    epsilon: float | None = None
    delta: float | None = None
    k: int | None = None
    gamma: float | None = None
    mode: str = "sound"
    neighbouring: str = ""
    parameters: Mapping[str, Any] = field(default_factory=dict)
    flags: tuple[Flag, ...] = ()
    per_participant: Mapping[str, Budget] | None = None
    paper_claim: str | None = None
    notes: tuple[str, ...] = ()
    seed: int | None = None
    columns: tuple[ColumnStatus, ...] = ()

    @property
    def formally_private(self) -> bool:
        """True when the headline holds as stated: a private kind and no guarantee-breaking flag."""
        return self.kind is not Kind.NONE and not any(f.breaks_guarantee for f in self.flags)

    def with_flags(self, *flags: Flag) -> Guarantee:
        """A copy with ``flags`` added (duplicates by code and message are kept once)."""
        merged = tuple(dict.fromkeys((*self.flags, *flags)))
        return replace(self, flags=merged)

    def with_seed(self, seed: int | None) -> Guarantee:
        """Note a fixed seed (a research run; a release run has ``seed=None``)."""
        if seed is None:
            return self
        flag = Flag(FlagCode.FIXED_SEED, f"research run: the generator was seeded with {seed}; "
                    "a release must draw its seed from OS entropy")
        return replace(self, seed=seed).with_flags(flag)

    def compose(self, units_per_participant: Mapping[str, int]) -> Guarantee:
        """Fill ``per_participant`` by basic sequential composition over each participant's units.

        ``units_per_participant`` is public shape (e.g. windows per participant). k-anonymity and
        plausible deniability do not compose this way; for them the per-unit statement is repeated
        with ``rule`` saying so.
        """
        out: dict[str, Budget] = {}
        for pid, n in units_per_participant.items():
            n = int(n)
            if self.kind in (Kind.K_ANONYMITY, Kind.PLAUSIBLE_DENIABILITY, Kind.NONE):
                out[str(pid)] = Budget(None, None, n, f"{self.kind.value} per {self.unit.value}; "
                                       "no composition theorem across units")
                continue
            if self.unit is Unit.PARTICIPANT:
                out[str(pid)] = Budget(self.epsilon, self.delta, n, "single unit")
                continue
            eps = None if self.epsilon is None else self.epsilon * n
            delta = None if self.delta is None else min(1.0, self.delta * n)
            out[str(pid)] = Budget(eps, delta, n, f"basic sequential composition over {n} "
                                   f"{self.unit.value}s")
        return replace(self, per_participant=out)

    @property
    def max_participant_epsilon(self) -> float | None:
        """The largest per-participant epsilon (None when not composed or not applicable)."""
        if not self.per_participant:
            return None
        vals = [b.epsilon for b in self.per_participant.values() if b.epsilon is not None]
        return max(vals) if vals else None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["kind"] = self.kind.value
        d["unit"] = self.unit.value
        d["flags"] = [{"code": f.code.value, "message": f.message,
                       "breaks_guarantee": f.breaks_guarantee} for f in self.flags]
        d["formally_private"] = self.formally_private
        d["parameters"] = _jsonable(dict(self.parameters))
        d["notes"] = list(self.notes)
        d["columns"] = [c.to_dict() for c in self.columns]
        return d

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), indent=kwargs.pop("indent", 2), allow_nan=False,
                          **kwargs)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Guarantee:
        d = dict(d)
        d.pop("formally_private", None)
        d.pop("written", None)  # software version and time of a written record (release.py)
        d["kind"] = Kind(d["kind"])
        d["unit"] = Unit(d["unit"])
        d["flags"] = tuple(Flag(FlagCode(f["code"]), f["message"]) for f in d.get("flags", ()))
        d["notes"] = tuple(d.get("notes", ()))
        d["columns"] = tuple(ColumnStatus.from_dict(c) for c in d.get("columns", ()))
        if d.get("per_participant") is not None:
            d["per_participant"] = {k: Budget(**v) for k, v in d["per_participant"].items()}
        return cls(**d)

    @classmethod
    def from_json(cls, text: str) -> Guarantee:
        return cls.from_dict(json.loads(text))

    def column(self, name: str) -> ColumnStatus | None:
        """The status of written column ``name`` (None when the record does not list it)."""
        return next((c for c in self.columns if c.name == name), None)

    @property
    def max_participant_delta(self) -> float | None:
        """The largest per-participant delta (None when not composed or not applicable)."""
        if not self.per_participant:
            return None
        vals = [b.delta for b in self.per_participant.values() if b.delta is not None]
        return max(vals) if vals else None

    def summary(self) -> str:
        """One line for tables and logs: epsilon and delta per unit and per participant.

        A pure kind (``epsilon-DP``, ``epsilon-LDP``, ``(epsilon,w,r)-DP``) has delta = 0. When
        the per-participant bound is vacuous (delta >= 1, or epsilon above
        :data:`VACUOUS_EPSILON`) the line says so in words.

        >>> g = Guarantee(mechanism="m", kind=Kind.LOCAL_DP, unit=Unit.WINDOW, epsilon=0.5)
        >>> g.compose({"p": 40}).summary()
        'm [sound]: epsilon-LDP per window; epsilon=0.5, delta=0 per window; per participant \
epsilon <= 20, delta = 0 (vacuous: epsilon 20 > 10 promises nothing per participant)'
        """
        parts = [f"{self.mechanism} [{self.mode}]: {self.kind.value} per {self.unit.value}"]
        pure = self.kind in _PURE_KINDS
        unit_parts = [f"epsilon={self.epsilon:g}"] if self.epsilon is not None else []
        if self.delta is not None or (pure and self.epsilon is not None):
            unit_parts.append(f"delta={self.delta or 0:g}")
        unit_parts += [f"{n}={getattr(self, n):g}" for n in ("k", "gamma")
                       if getattr(self, n) is not None]
        if unit_parts:
            parts.append(", ".join(unit_parts) + f" per {self.unit.value}")
        parts.extend(self._participant_summary(pure))
        if not self.formally_private:
            parts.append("NOT FORMALLY PRIVATE (" + ", ".join(
                f.code.value for f in self.flags if f.breaks_guarantee) + ")"
                if self.kind is not Kind.NONE else "NOT PRIVATE")
        return "; ".join(parts)

    def _participant_summary(self, pure: bool) -> list[str]:
        eps, delta = self.max_participant_epsilon, self.max_participant_delta
        if eps is None and delta is None:
            return []
        text = "per participant"
        if eps is not None:
            text += f" epsilon <= {eps:g}"
        text += f", delta <= {delta:g}" if delta is not None else (", delta = 0" if pure else "")
        vacuous = self._vacuous_reasons()
        if vacuous:
            text += f" (vacuous: {' and '.join(vacuous)} promises nothing per participant)"
        return [text]

    def _vacuous_reasons(self) -> list[str]:
        """Why the per-participant bound is vacuous (empty when it is not): the one rule
        :meth:`summary` and :meth:`explain` share."""
        eps, delta = self.max_participant_epsilon, self.max_participant_delta
        out = []
        if delta is not None and delta >= 1:
            out.append(f"delta {delta:g} >= 1")
        if eps is not None and eps > VACUOUS_EPSILON:
            out.append(f"epsilon {eps:g} > {VACUOUS_EPSILON:g}")
        return out

    @property
    def participant_bound_vacuous(self) -> bool:
        """True when the per-participant bound promises nothing (see :data:`VACUOUS_EPSILON`)."""
        return bool(self._vacuous_reasons())

    def explain(self) -> str:
        """Markdown for a privacy officer and a researcher: what was released, the guarantee
        per unit in words and as odds, the per-participant bound (called *vacuous* when
        :meth:`summary` calls it so), every guarantee-breaking flag and the neighbouring
        relation.

        >>> g = Guarantee(mechanism="m", kind=Kind.PURE_DP, unit=Unit.WINDOW, epsilon=1.0)
        >>> "factor e^epsilon = 2.72" in g.explain()
        True
        """
        from gazeprivacy._text import reader_text

        return reader_text("\n".join([f"# What `{self.mechanism}` promises ({self.mode} mode)",
                                       "", *_explain_columns(self), *_explain_unit(self),
                                       *_explain_participant(self), *_explain_flags(self),
                                       *_explain_neighbouring(self)]), markdown=True
                           ).rstrip() + "\n"


_PURE_KINDS = (Kind.PURE_DP, Kind.LOCAL_DP, Kind.W_EVENT_DP)


def _jsonable(v: Any) -> Any:
    if isinstance(v, Mapping):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_jsonable(x) for x in v]
    if isinstance(v, StrEnum):
        return v.value
    if hasattr(v, "item") and callable(v.item):  # numpy scalars
        return v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return v


@dataclass(frozen=True, slots=True)
class Release(Generic[T]):
    """A mechanism's output together with its guarantee record; never a bare array."""

    output: T
    guarantee: Guarantee


_STATUS_WORDS = {
    Status.PROTECTED: "protected",
    Status.PUBLIC_DECLARED: "copied as is: declared public by the user (NOT protected)",
    Status.PUBLIC_BY_DESIGN: "public by design (derived from public shape only)",
    Status.PSEUDONYMISED: "pseudonymised (raw ids replaced by random pseudonyms)",
    Status.NOT_WRITTEN: "not written (left out of the release)",
}


def _explain_columns(g: Guarantee) -> list[str]:
    lines = ["## What was released", ""]
    if not g.columns:
        # a mechanism's own record (an evaluation, the library's protect()): no file was
        # written yet; the record that a written release carries lists its columns
        return [*lines, f"The output of `{g.mechanism}` as the guarantee below describes it. "
                "A written release (`gazeprivacy protect`) carries a record that also lists "
                "every column of the file and what covers it.", ""]
    for c in g.columns:
        text = f"- `{c.name}`: {_STATUS_WORDS[c.status]}"
        if c.status is Status.PROTECTED and c.by:
            text += f" by {c.by}"
        if c.epsilon_share is not None:
            text += f" (epsilon share {c.epsilon_share:g})"
        if c.note:
            text += f"; {c.note}"
        lines.append(text)
    return [*lines, ""]


def _odds(eps: float) -> str:
    return f"{math.exp(eps):.3g}" if eps < 700 else "astronomically large"


def _explain_unit(g: Guarantee) -> list[str]:
    unit = g.unit.value
    lines = ["## The guarantee per " + unit, ""]
    if g.kind in (*_PURE_KINDS, Kind.APPROX_DP, Kind.RHO_ZCDP) and g.epsilon is not None:
        text = (f"{g.kind.value} with epsilon = {g.epsilon:g} per {unit}: an observer's odds of "
                f"telling two neighbouring inputs apart change by at most a factor "
                f"e^epsilon = {_odds(g.epsilon)}")
        if g.delta:
            text += f", except with probability delta = {g.delta:g}"
        lines.append(text + ".")
        if g.kind is Kind.LOCAL_DP:
            lines.append("The noise is added before the data leave the device (local DP).")
        if g.kind is Kind.RHO_ZCDP:
            lines.append(f"It holds as rho-zCDP with rho = {g.parameters.get('rho')}; epsilon "
                         f"and delta are its conversion ({g.parameters.get('conversion')}).")
    elif g.kind is Kind.K_ANONYMITY:
        lines.append(f"k-anonymity with k = {g.k}: each released {unit} is indistinguishable "
                     f"from at least {g.k} - 1 others in the released attributes. This is not "
                     "differential privacy: it gives no bound on what an attacker with "
                     "background knowledge learns.")
    elif g.kind is Kind.PLAUSIBLE_DENIABILITY:
        lines.append(f"(k, gamma)-plausible deniability with k = {g.k}, gamma = {g.gamma}: each "
                     f"released {unit} could have come from at least {g.k} inputs, each within "
                     f"a factor gamma of the likeliest. This is not differential privacy.")
    else:
        lines.append(f"No formal privacy guarantee ({g.kind.value}).")
    return [*lines, ""]


def _explain_participant(g: Guarantee) -> list[str]:
    lines = ["## Per participant", ""]
    eps, delta = g.max_participant_epsilon, g.max_participant_delta
    if eps is None and delta is None:
        if g.per_participant:
            rule = next(iter(g.per_participant.values())).rule
            return [*lines, f"No per-participant epsilon: {rule}.", ""]
        return [*lines, "The record was not composed per participant.", ""]
    text = "The worst-off participant is covered by epsilon <= " + (
        f"{eps:g} (odds factor up to {_odds(eps)})" if eps is not None else "(unknown)")
    if delta:
        text += f", except with probability delta <= {delta:g}"
    lines.append(text + ".")
    vacuous = g._vacuous_reasons()
    if vacuous:
        lines.append(f"**This bound is vacuous** ({' and '.join(vacuous)}): it promises "
                     "nothing a reader can use about any single participant.")
    return [*lines, ""]


def _explain_flags(g: Guarantee) -> list[str]:
    lines = ["## What is NOT protected", ""]
    breaking = [f for f in g.flags if f.breaks_guarantee]
    lines += [f"- **{f.code.value}**: {f.message}" for f in breaking]
    if not breaking:
        lines.append("- No flag breaks the stated guarantee.")
    lines += [f"- `{c.name}`: declared public, released unprotected"
              for c in g.columns if c.status is Status.PUBLIC_DECLARED]
    info = [f for f in g.flags if not f.breaks_guarantee]
    lines += [f"- (informational) {f.code.value}: {f.message}" for f in info]
    if g.paper_claim:
        lines.append(f"\nThe paper claims: {g.paper_claim}")
    return [*lines, ""]


def _explain_neighbouring(g: Guarantee) -> list[str]:
    rel = g.neighbouring or f"two inputs that differ in one {g.unit.value}"
    return ["## Neighbouring inputs", "", f"Neighbouring inputs: {rel}.", ""]
