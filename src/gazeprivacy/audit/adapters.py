# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Audit adapters: how the auditor meets each mechanism.

An adapter says, for one mechanism and one mode, what the privacy unit is, which neighbouring
pairs to try (hand-picked extremes plus random pairs, under *that mechanism's own* neighbouring
definition), how to draw many releases of one unit at once, which features of a release the event
search looks at, and which epsilon / delta to compare with -- always read from the mechanism's own
``guarantee(...)`` record (for the noise primitives, which have no record, the budget they are
called with). Registered mechanisms are reached only through
:data:`gazeprivacy.mechanisms.MECHANISMS` (the adapter looks the module up from the registry
entry); the noise primitives under ``mechanisms/noise`` are imported directly.

``ADAPTERS`` also lists ``<name>-release`` for every registered sample- or event-level mechanism
with an ``example`` and no hand-written one (:func:`derived_adapters`, looked up over
``MECHANISMS`` when asked, so a mechanism registered later is covered without an edit here).

Deliberately broken variants (``broken-*``) show that the auditor has teeth: each is the real
mechanism with one documented flaw, audited against the real mechanism's claim.

:func:`audit_mechanism` runs the worst-pair search and returns a :class:`MechanismAudit` whose
:meth:`~MechanismAudit.row` is one line of the audit table (``gazeprivacy audit`` and
``scripts/audit_table.py`` print these).
"""

from __future__ import annotations

import importlib
import importlib.util
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from gazeprivacy._registry import Registry
from gazeprivacy._validation import check_in, check_int
from gazeprivacy.audit import dpgazesynth as _dpgs
from gazeprivacy.audit.auditor import (
    AuditResult,
    AutoSearch,
    audit,
)
from gazeprivacy.audit.cases import AuditCase, mechanism_module
from gazeprivacy.audit.mechanism_cases import (
    _gaussian_case,
    _heatmap_case,
    _kaleido_case,
    _laplace_case,
    _oue_case,
    _planar_case,
    _series_case,
)
from gazeprivacy.audit.neighbours import (
    NeighbourPair,
    NeighbourStrategy,
    PairSearchResult,
    search_worst_pair,
)
from gazeprivacy.exceptions import InvalidParameterError, NotFormallyPrivateWarning
from gazeprivacy.mechanisms import MECHANISMS

if TYPE_CHECKING:
    from gazeprivacy.audit.release import ReleaseAudit

__all__ = [
    "ADAPTERS",
    "MAX_TRIALS_FACTOR",
    "AuditAdapter",
    "AuditCase",
    "MechanismAudit",
    "audit_mechanism",
    "available_adapters",
    "derived_adapters",
    "markdown_table",
    "mechanism_module",
]


#: Most trials an audit takes, as a multiple of its adapter's default: beyond that a run takes
#: hours to days (or, for a whole-release audit, memory for every release's features).
MAX_TRIALS_FACTOR = 50


@dataclass(frozen=True)
class AuditAdapter:
    """A named way to audit a mechanism; ``build(mode)`` gives the :class:`AuditCase`.

    ``requires`` names the ``MECHANISMS`` entry the adapter needs (None for noise primitives,
    which name their module in ``requires_module``);
    ``expect_violation`` marks the deliberately broken variants and the paper modes known to be
    broken, so tests and the table can say what the audit should find.
    """

    name: str
    build: Callable[[str], AuditCase]
    modes: tuple[str, ...] = ("sound",)
    requires: str | None = None
    description: str = ""
    expect_violation: tuple[str, ...] = ()
    requires_module: str | None = None
    known_defect: str = ""  # a defect of the current code that the audit exposes (fix pending)
    #: "unit" (one privacy unit, :func:`audit_mechanism` runs the pair search) or "release"
    #: (the whole-release audit of :mod:`gazeprivacy.audit.release`; ``build`` is unused)
    kind: str = "unit"
    #: draws per input (unit) or releases per dataset (release) when the caller gives none
    default_trials: int = 20_000

    @property
    def max_trials(self) -> int:
        """The most trials :func:`audit_mechanism` accepts (``MAX_TRIALS_FACTOR`` x default)."""
        return MAX_TRIALS_FACTOR * self.default_trials

    def expected_to_fail(self, mode: str) -> bool:
        """True for the deliberately broken variants, the paper modes known to be broken and
        the non-private baselines: a FAIL there is the audit's point, not a defect."""
        return mode in self.expect_violation

    @property
    def available(self) -> bool:
        if self.requires_module is not None:
            try:
                if importlib.util.find_spec(self.requires_module) is None:
                    return False
            except ModuleNotFoundError:
                return False
        # set(): Registry.__contains__ raises instead of returning False for unknown names
        return self.requires is None or self.requires in MECHANISMS


# --------------------------------------------------------------------------------------------
# registry


_NOISE = "gazeprivacy.mechanisms.noise."
#: releases per dataset of a whole-release audit when none is given (about 2-3 minutes each
#: for DPGazeSynth, Kaleido and k-same-synth on a loaded 2-core machine)
RELEASE_TRIALS = 10_000
#: per-component DPGazeSynth audits that fail on the current code, with the fix they wait for
_DPGS_KNOWN_BROKEN: dict[str, str] = {}


def _release_build(mode: str) -> AuditCase:
    raise InvalidParameterError("a whole-release adapter has no single-pair case: run it with "
                                "audit_mechanism (or gazeprivacy.audit.release.audit_release)")


def _adapters() -> dict[str, AuditAdapter]:
    a = [
        AuditAdapter("laplace", _laplace_case, description="Laplace mechanism (noise primitive)",
                     requires_module=_NOISE + "laplace"),
        AuditAdapter("planar-laplace", _planar_case,
                     description="planar Laplace, geo-indistinguishability (noise primitive)",
                     requires_module=_NOISE + "planar_laplace"),
        AuditAdapter("oue", _oue_case, description="Optimized Unary Encoding (noise primitive)",
                     requires_module=_NOISE + "oue"),
        AuditAdapter("gaussian", lambda m: _gaussian_case(m, calibration="classic"),
                     description="Gaussian mechanism, classic calibration",
                     requires_module=_NOISE + "gaussian"),
        AuditAdapter("analytic-gaussian", lambda m: _gaussian_case(m, calibration="analytic"),
                     description="Gaussian mechanism, analytic calibration (Balle & Wang)",
                     requires_module=_NOISE + "gaussian"),
        AuditAdapter("broken-laplace-half-scale",
                     lambda m: _laplace_case(m, scale_factor=0.5,
                                             name="broken-laplace-half-scale"),
                     description="Laplace noise at half the required scale",
                     expect_violation=("sound",), requires_module=_NOISE + "laplace"),
        AuditAdapter("broken-oue", lambda m: _oue_case(m, broken=True),
                     description="OUE keeping the true bit with p + (1 - p) q",
                     expect_violation=("sound",), requires_module=_NOISE + "oue"),
    ]
    a += [
        AuditAdapter("dpgazesynth", _dpgs.window_case, modes=("sound", "paper"),
                     requires="dpgazesynth", expect_violation=("paper",),
                     description="DPGazeSynth client release per window"),
        AuditAdapter("kaleido", _kaleido_case, modes=("sound", "paper"), requires="kaleido",
                     expect_violation=("paper",),
                     description="Kaleido per w-window"),
    ]
    for comp in _dpgs.COMPONENTS.values():
        a.append(AuditAdapter(
            f"dpgazesynth-{comp.name}", lambda m, c=comp.name: _dpgs.component_case(c, m),
            requires="dpgazesynth", description=f"DPGazeSynth client, {comp.description}",
            known_defect=_DPGS_KNOWN_BROKEN.get(comp.name, "")))
    for m in ("dpgazesynth", "kaleido", "k-same-synth", "event-synth-pd"):
        # the whole release runs the mechanism's default mode (sound); event-synth-PD trains
        # a (one-epoch) C-VAE for every release, hence its smaller default
        a.append(_release_adapter(m, f"{m}: every column of protect() on neighbouring datasets",
                                  default_trials=500 if m == "event-synth-pd" else
                                  RELEASE_TRIALS))
    a.append(_PARTICIPANT_RELEASE)
    a += _participant_synth_adapters()
    for hm, modes, bad in (("heatmap-laplace", ("sound",), ()),
                           ("heatmap-gaussian", ("sound", "paper"), ()),
                           ("heatmap-analytic-gaussian", ("sound",), ()),
                           ("heatmap-noise-free", ("baseline",), ("baseline",)),
                           ("heatmap-rs1", ("baseline",), ("baseline",)),
                           ("heatmap-rs2", ("baseline",), ("baseline",))):
        a.append(AuditAdapter(hm, lambda m, hm=hm: _heatmap_case(m, name=hm), modes=modes,
                              requires=hm, expect_violation=bad,
                              description=f"{hm}: noisy aggregate gaze map"))
    for sr in ("series-lpa", "series-fpa", "series-dct", "series-cfpa", "series-dcfpa",
               "series-steil-exponential"):
        a.append(AuditAdapter(sr, lambda m, sr=sr: _series_case(m, name=sr),
                              modes=("sound", "paper"), requires=sr, expect_violation=("paper",),
                              description=f"{sr}: feature-series release per block"))
    return {x.name: x for x in a}


def _participant_synth_adapters() -> list[AuditAdapter]:
    """participant-synth: the curator's measurements (all, and each against its own share)
    and a broken variant with the noise at an eighth (gazeprivacy.audit.participant_synth)."""
    from gazeprivacy.audit import participant_synth as ps

    out = [AuditAdapter("participant-synth", lambda m: ps.measurement_case(None, m),
                        requires="participant-synth", default_trials=20_000,
                        description="participant-synth: every curator measurement on one "
                                    "participant replaced (the rest is post-processing)"),
           AuditAdapter("broken-participant-synth-eighth-noise",
                        lambda m: ps.measurement_case(None, m, noise_factor=0.125),
                        requires="participant-synth", expect_violation=("sound",),
                        description="participant-synth with the noise at an eighth of its sd")]
    out += [AuditAdapter(f"participant-synth-{c}", lambda m, c=c: ps.measurement_case(c, m),
                         requires="participant-synth", default_trials=20_000,
                         description=f"participant-synth: the {c} measurement, against its "
                                     "share of rho")
            for c in (*ps.MEASURED, *ps.MEASURED_LABELS)]
    return out


#: DPGazeSynth ``unit="participant"``: a parameter variant with a hand-written release scenario
_PARTICIPANT_RELEASE = AuditAdapter(
    "dpgazesynth-participant-release", _release_build, requires="dpgazesynth", kind="release",
    modes=("sound",), default_trials=RELEASE_TRIALS,
    description="dpgazesynth unit='participant': every column of protect() with one "
                "participant's recording changed")


def _release_adapter(mechanism: str, description: str, **kw: Any) -> AuditAdapter:
    return AuditAdapter(f"{mechanism}-release", _release_build, requires=mechanism,
                        kind="release", modes=("sound",), description=description, **kw)


def derived_adapters(static: Mapping[str, AuditAdapter]) -> dict[str, AuditAdapter]:
    """``<name>-release`` for every registered mechanism that gets the generic whole-release
    scenario (:func:`gazeprivacy.audit.release.derives_scenario`: sample or event level, an
    ``example``, no hand-written scenario) and has no adapter of that name in ``static``."""
    from gazeprivacy.audit.release import derives_scenario

    return {f"{n}-release": _release_adapter(
        n, f"{n}: every column of protect() on the generic neighbouring datasets derived from "
           "its contract (example dataset, one unit of its record changed)",
        default_trials=RELEASE_TRIALS)
        for n in MECHANISMS if f"{n}-release" not in static and derives_scenario(n)}


class _Adapters(Registry[AuditAdapter]):
    """The hand-written adapters plus those derived from the contract, looked up when asked
    (so a mechanism registered later -- a toy in a test -- gets its ``<name>-release``)."""

    def _all(self) -> dict[str, AuditAdapter]:
        return {**self._entries, **derived_adapters(self._entries)}

    def __getitem__(self, name: str) -> AuditAdapter:
        entries = self._all()
        if name in entries:
            return entries[name]
        return Registry(self._what, entries)[name]  # the named error listing valid names

    def __contains__(self, name: object) -> bool:
        return name in self._all()

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


ADAPTERS: Registry[AuditAdapter] = _Adapters("audit adapter", _adapters())


def available_adapters() -> list[str]:
    """Names of adapters whose mechanism is registered in ``MECHANISMS`` (or a primitive)."""
    return [name for name, ad in ADAPTERS.items() if ad.available]


# --------------------------------------------------------------------------------------------
# running an audit


@dataclass(frozen=True)
class MechanismAudit:
    """One mechanism, one mode: the case, the pair search and its confirmation audit."""

    adapter: AuditAdapter
    case: AuditCase
    search: PairSearchResult

    @property
    def result(self) -> AuditResult:
        return self.search.confirmation

    @property
    def passed(self) -> bool:
        return self.result.passed

    def row(self) -> dict[str, Any]:
        r = self.result
        return {
            "mechanism": self.adapter.name, "mode": self.case.mode, "unit": self.case.unit,
            "claimed_epsilon": r.claimed_epsilon, "claimed_delta": r.claimed_delta,
            "epsilon_lower_bound": r.epsilon_lower_bound,
            "epsilon_estimate": r.epsilon_estimate, "p_value": r.p_value,
            "verdict": "pass" if r.passed else "FAIL", "n_trials": r.n_trials,
            "pair": self.search.worst.description, "event": r.event,
            "expected": "violation" if self.case.mode in self.adapter.expect_violation
            else ("pass after the fix" if self.adapter.known_defect else "pass"),
            "claim": (f"{r.claimed_epsilon:.4g}" if self.case.guarantee is None
                      or self.case.guarantee.epsilon is not None else "none (kind none: "
                      "audited against 0)"),
        }


def audit_mechanism(name: str, *, mode: str = "sound", n_trials: int,
                    rng: np.random.Generator, confidence: float = 0.99,
                    exploration_trials: int | None = None,
                    explore: bool = True) -> MechanismAudit | ReleaseAudit:
    """Audit adapter ``name`` in ``mode``: explore its pairs, confirm the worst on fresh draws.

    Parameters
    ----------
    name : str
        An entry of :data:`ADAPTERS`.
    mode : {"sound", "paper"}
        Must be one of the adapter's modes.
    n_trials : int
        Draws per input of the confirmation audit (>= 20).
    rng : numpy.random.Generator
    confidence : float
        Confidence of the epsilon lower bound.
    exploration_trials : int, optional
        Draws per input for each explored pair (default ``max(200, n_trials // 4)``).
    explore : bool
        False audits only the first hand-picked extreme pair (fast; for tests).

    A ``*-release`` adapter returns the :class:`~gazeprivacy.audit.release.ReleaseAudit` of the
    whole release instead (``mode`` and ``explore`` do not apply).

    Raises
    ------
    InvalidParameterError
        Unknown adapter, a mode the adapter does not have, or a mechanism that is not
        registered.
    """
    adapter = ADAPTERS[name]
    if not isinstance(n_trials, bool) and isinstance(n_trials, int) and \
            n_trials > adapter.max_trials:
        raise InvalidParameterError(
            f"n_trials must be at most {adapter.max_trials:,} for {name!r} "
            f"({MAX_TRIALS_FACTOR} x its default of {adapter.default_trials:,}; a larger "
            f"audit runs for hours), got {n_trials:,}")
    if adapter.kind == "release":  # whole release: its mode is the mechanism's default
        from gazeprivacy.audit.release import audit_release

        return audit_release(name.removesuffix("-release"), n_trials=n_trials, rng=rng,
                             confidence=confidence)
    check_in(mode=mode, options=adapter.modes)
    check_int(n_trials=n_trials, minimum=20)
    if not adapter.available:
        need = adapter.requires or adapter.requires_module
        raise InvalidParameterError(
            f"audit adapter {name!r} needs {need!r}, which is not installed in this build; "
            f"available adapters: {', '.join(available_adapters()) or 'none'}")
    with warnings.catch_warnings():
        # paper modes warn on every call; the audit row reports what they break instead
        warnings.simplefilter("ignore", NotFormallyPrivateWarning)
        case = adapter.build(mode)

        def run(pair: NeighbourPair, n: int, r: np.random.Generator) -> AuditResult:
            sa, sb = case.samplers(pair)
            return audit(sa, sb, n_trials=n, claimed_epsilon=case.claimed_epsilon,
                         claimed_delta=case.claimed_delta,
                         event_search=case.event_search or AutoSearch(), confidence=confidence,
                         rng=r, label=f"{name} [{mode}] {pair.description}")

        strategy = case.strategy if explore else NeighbourStrategy(case.strategy.extremes[:1])
        search = search_worst_pair(strategy, run,
                                   exploration_trials=exploration_trials or max(200,
                                                                                n_trials // 4),
                                   confirmation_trials=n_trials, rng=rng)
    return MechanismAudit(adapter, case, search)


def markdown_table(audits: list[MechanismAudit | ReleaseAudit | dict[str, Any]]) -> str:
    """The audit table in Markdown: claimed epsilon (delta), audited lower bound, verdict."""
    head = ("| mechanism | mode | unit | claimed epsilon | delta | audited epsilon lower bound "
            "| point estimate | verdict | p-value | expected | worst pair |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|\n")
    lines = []
    for a in audits:
        row = a if isinstance(a, dict) else a.row()
        p = row["p_value"]
        lines.append(
            f"| {row['mechanism']} | {row['mode']} | {row['unit']} | "
            f"{row.get('claim', format(row['claimed_epsilon'], '.4g'))} | "
            f"{row['claimed_delta']:.3g} | "
            f"{row['epsilon_lower_bound']:.3f} | {row['epsilon_estimate']:.3f} | "
            f"**{row['verdict']}** | {'< 1e-300' if p == 0 else format(p, '.2g')} | "
            f"{row['expected']} | {row['pair']} |")
    return head + "\n".join(lines) + "\n"
