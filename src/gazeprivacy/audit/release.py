# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The whole-release audit: every column of a real ``protect`` run on neighbouring datasets.

For one registered sample-level mechanism, a :class:`ReleaseScenario` holds two neighbouring
*datasets* under the mechanism's own relation (its record's ``neighbouring`` and ``unit``): one
window changed for DPGazeSynth, one ``w``-window moved by at most ``r`` for Kaleido, one
recording (k-same-synth) or one stretch of gaze (event-synth-PD) changed for the event
mechanisms. Any other sample- or event-level mechanism with an ``example`` gets a scenario
derived from its contract (:func:`generic_scenario`: its example dataset, one unit of its
record changed). Inside the changed unit *every* per-sample column changes: gaze, the pupil, a
head-pose channel, a pixel copy of gaze and the clock jitter. Labels include a declared-public
``stimulus`` and an undeclared ``gender``.

:func:`audit_release` runs :func:`gazeprivacy.mechanisms.protect` end to end on both datasets
and checks each column of the released table:

* a column that is public by design (pseudonymous ids, the sampling grid) or declared public
  passes;
* a column whose values are identical in both releases for every paired draw (same seed) is
  unaffected by the unit; it passes only when public, otherwise it is raw data that the record
  does not cover (``unchanged, not public``);
* every other numeric column goes through the statistical auditor on draws of the real release,
  with features of that column in the changed unit (first value, mean, number of distinct
  values, length of the first run); its lower bound must stay below the record's epsilon
  (Bonferroni over the audited columns). For mechanisms without an epsilon (k-anonymity,
  plausible deniability in paper mode) the bound is reported as distinguishing power;
* no non-public column may equal a raw column of the input, row by row (raw values leak);
* keys that the mechanism adds to the dataset's metadata are reported (they are written too).

What "the released table" is lives in one function, :func:`release_table` (today the table that
``write_dataset`` writes for the in-memory release).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy.audit.auditor import AuditResult, audit
from gazeprivacy.exceptions import ImplausibleEventsWarning, NotFormallyPrivateWarning

__all__ = [
    "PUBLIC_BY_DESIGN",
    "RELEASE_SCENARIOS",
    "ColumnVerdict",
    "ReleaseAudit",
    "ReleaseScenario",
    "audit_release",
    "derives_scenario",
    "generic_scenario",
    "release_table",
    "released_recording_id",
    "unit_rows",
]

#: columns that every release may carry: pseudonymous ids and the public sampling grid
PUBLIC_BY_DESIGN = ("participant", "recording", "t")
_IDS = ("participant", "recording")


@dataclass(frozen=True)
class ReleaseScenario:
    """Two neighbouring datasets for one mechanism, and where they differ."""

    mechanism: str
    params: Any
    a: Any  # Dataset
    b: Any  # Dataset
    recording: str          # the recording that holds the changed unit
    rows: np.ndarray        # its changed rows
    public: tuple[str, ...]  # columns the user declares public
    unit: str
    description: str
    name: str = ""  # the audit row's name when it is not the mechanism's (a parameter variant)


@dataclass(frozen=True)
class ColumnVerdict:
    """One released column: its status, raw-equality count and (if audited) the audit."""

    column: str
    status: str
    passed: bool
    raw_equal_rows: int = 0
    result: AuditResult | None = None
    note: str = ""


@dataclass(frozen=True)
class ReleaseAudit:
    """The verdict on every column of one mechanism's release."""

    scenario: ReleaseScenario
    guarantee: Any
    claimed_epsilon: float | None
    columns: tuple[ColumnVerdict, ...]
    metadata_added: tuple[str, ...] = ()
    n_trials: int = 0

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.columns) and not self.metadata_added

    def column_rows(self) -> list[dict[str, Any]]:
        """One dict per column (for tables)."""
        out = []
        for c in self.columns:
            r = c.result
            out.append({"column": c.column, "status": c.status,
                        "verdict": "pass" if c.passed else "FAIL",
                        "lower_bound": None if r is None else r.epsilon_lower_bound,
                        "p_value": None if r is None else r.p_value,
                        "raw_equal_rows": c.raw_equal_rows, "note": c.note})
        return out

    def row(self) -> dict[str, Any]:
        """One line of the audit table: the largest lower bound over the audited columns."""
        audited = [c for c in self.columns if c.result is not None]
        worst = max(audited, key=lambda c: c.result.epsilon_lower_bound, default=None)
        res = worst.result if worst is not None else None
        failed = [c.column for c in self.columns if not c.passed] + [
            f"metadata {k}" for k in self.metadata_added]
        return {
            "mechanism": f"{self.scenario.name or self.scenario.mechanism}-release",
            "mode": str(self.guarantee.mode), "unit": self.scenario.unit,
            "claimed_epsilon": self.claimed_epsilon if self.claimed_epsilon is not None
            else math.nan,
            "claim": (f"{self.claimed_epsilon:.4g}" if self.claimed_epsilon is not None else
                      f"none ({self.guarantee.kind.value}: power reported)"),
            "claimed_delta": float(self.guarantee.delta or 0.0),
            "epsilon_lower_bound": res.epsilon_lower_bound if res else 0.0,
            "epsilon_estimate": res.epsilon_estimate if res else 0.0,
            "p_value": min((c.result.p_value for c in audited), default=1.0),
            "verdict": "pass" if self.passed else "FAIL", "n_trials": self.n_trials,
            "pair": self.scenario.description + (
                f"; failing: {', '.join(failed)}" if failed else ""),
            "event": "" if worst is None else f"{worst.column}: {res.event}",
            "expected": "pass",
        }


# --------------------------------------------------------------------------------------------
# the released table


def release_table(sealed: Any) -> pl.DataFrame:
    """The table a user receives: THE place that says what is written (the sealed writer's
    table, :func:`gazeprivacy.mechanisms.release.seal`)."""
    return sealed.table


def released_recording_id(sealed: Any, recording: str) -> str:
    """The pseudonym under which ``release_table(sealed)`` holds raw recording ``recording``
    (from the data holder's id map, which is never written)."""
    m = sealed.id_map.filter((pl.col("kind") == "recording") & (pl.col("raw") == recording))
    return str(m["pseudonym"][0]) if m.height else recording


def _run(scn: ReleaseScenario, data: Any, rng: np.random.Generator) -> Any:
    """Protect ``data`` with the real ``protect`` and seal it with the real writer (one
    generator: the release's draws, then the pseudonym key and any pupil noise)."""
    from gazeprivacy.mechanisms import protect
    from gazeprivacy.mechanisms.release import seal

    r_protect, r_seal = rng.spawn(2)
    with warnings.catch_warnings():
        # the scenarios' synthetic gaze is not a detector's test: its warnings say nothing here
        warnings.simplefilter("ignore", NotFormallyPrivateWarning)
        warnings.simplefilter("ignore", ImplausibleEventsWarning)
        rel = protect(data, mechanism=scn.mechanism, params=scn.params, rng=r_protect)
    return seal(rel, public=scn.public, source=data, rng=r_seal)


def _info(sealed: Any) -> dict[str, Any]:
    return dict(sealed.dataset.info) if sealed.dataset is not None else {}


def _in_input_order(sealed: Any, data: Any) -> pl.DataFrame:
    """The sealed table with its recordings in the input's order (the writer orders them by
    pseudonym), so that comparisons across draws and with the raw table line up row by row."""
    ids = sealed.id_map.filter(pl.col("kind") == "recording")
    pseudo = dict(zip(ids["raw"], ids["pseudonym"], strict=True))
    parts = sealed.table.partition_by("recording", as_dict=True)
    return pl.concat([parts[(pseudo.get(r.recording, r.recording),)] for r in data])


def _same(u: pl.Series, v: pl.Series) -> bool:
    if u.len() != v.len() or u.dtype != v.dtype:
        return False
    if u.dtype.is_numeric():
        return bool(np.array_equal(u.to_numpy(), v.to_numpy(), equal_nan=True))
    return bool((u == v).fill_null(False).all() and u.null_count() == v.null_count())


def _raw_equal_rows(out: pl.Series, raw: pl.DataFrame) -> int:
    """Rows where a released numeric column equals some raw numeric column (finite values)."""
    if not out.dtype.is_numeric() or out.len() != raw.height:
        return 0
    o = out.to_numpy().astype(np.float64)
    hit = np.zeros(o.size, dtype=bool)
    for name in raw.columns:
        col = raw[name]
        if name in _IDS or not col.dtype.is_numeric():
            continue
        r = col.to_numpy().astype(np.float64)
        hit |= np.isfinite(o) & (o == r)
    return int(hit.sum())


def _unit_features(table: pl.DataFrame, column: str, recording: str,
                   rows: np.ndarray) -> np.ndarray:
    """First value, mean, number of distinct values and first-run length of ``column`` in the
    changed unit (NaN as a sentinel)."""
    sub = table.filter(pl.col("recording") == recording)
    if column not in sub.columns or sub.height == 0:
        return np.zeros(4)
    v = sub[column].to_numpy().astype(np.float64)[rows]
    v = np.where(np.isnan(v), -1e9, v)
    first_run = int(np.argmax(np.r_[v[1:] != v[:-1], True])) + 1
    return np.round(np.array([v[0], v.mean(), np.unique(v).size, first_run]), 9)


class _Replay:
    """A sampler that serves pre-drawn feature rows in order (``audit`` asks for its selection
    draws, then its test draws; each row is one independent release)."""

    def __init__(self, rows: np.ndarray) -> None:
        self.rows, self.pos = rows, 0

    def __call__(self, n: int, rng: np.random.Generator) -> np.ndarray:
        out = self.rows[self.pos:self.pos + n]
        self.pos += n
        return out


# --------------------------------------------------------------------------------------------
# the audit


def _paired(scn: ReleaseScenario, draws: int, seed: int) -> tuple[list, list, Any]:
    """``draws`` releases of ``a`` and ``b`` with the same seeds, as tables; and a record."""
    ta, tb, record = [], [], None
    for s in range(draws):
        ra = _run(scn, scn.a, np.random.default_rng([seed, s]))
        rb = _run(scn, scn.b, np.random.default_rng([seed, s]))
        record = ra.guarantee
        ta.append((_in_input_order(ra, scn.a), _info(ra)))
        tb.append((_in_input_order(rb, scn.b), _info(rb)))
    return ta, tb, record


def _by_design(c: str, table: pl.DataFrame, raw: pl.DataFrame, ds: Any) -> str:
    """Why a column named as public by design is not (empty when it is)."""
    if c in _IDS:
        leaked = set(table[c].unique().to_list()) & set(raw[c].unique().to_list())
        return f"raw {c} ids written (not pseudonymised): {sorted(leaked)[:3]}" if leaked else ""
    if c == "t":  # the public sampling grid: 0, 1 / rate, 2 / rate, ... per recording
        rate = ds.sampling_rate_hz  # the audit's datasets have one rate
        for part in table.partition_by("recording", maintain_order=True):
            t = part[c].to_numpy()
            if not np.allclose(t, np.arange(t.size) / rate, rtol=0.0, atol=1e-9):
                return "timestamps are not the public sampling grid (clock time or jitter)"
    return ""


def _classify(scn: ReleaseScenario, ta: list, tb: list) -> tuple[list[ColumnVerdict],
                                                                  list[str]]:
    """Schema checks on paired draws; returns the settled verdicts and the columns to audit.

    A column is *unchanged* when it is identical between ``a`` and ``b`` for every seed and
    identical across seeds (a deterministic copy); a random column that the seed couples is
    audited like any other.
    """
    raw = scn.a.to_table()
    cols = list(dict.fromkeys([*ta[0][0].columns, *tb[0][0].columns]))
    settled: list[ColumnVerdict] = []
    to_audit: list[str] = []
    for c in cols:
        if any(c not in t.columns for t, _ in (*ta, *tb)):
            settled.append(ColumnVerdict(c, "in one release only", False))
            continue
        why = _by_design(c, ta[0][0], raw, scn.a) if c in PUBLIC_BY_DESIGN else "no"
        public = not why or c in scn.public
        eq = 0 if public else max(_raw_equal_rows(t[c], raw) for t, _ in ta)
        unchanged = all(_same(x[0][c], y[0][c]) for x, y in zip(ta, tb, strict=True)) \
            and all(_same(ta[0][0][c], x[0][c]) for x in ta[1:])
        if public:
            status = "public by design" if not why else "declared public"
            settled.append(ColumnVerdict(c, status, True))
        elif c in _IDS:
            settled.append(ColumnVerdict(c, "raw ids", False, note=why))
        elif unchanged:
            settled.append(ColumnVerdict(c, "unchanged, not public", False, eq,
                                         note="raw data the record does not cover"))
        elif not ta[0][0][c].dtype.is_numeric():
            settled.append(ColumnVerdict(c, "changed, not numeric", False, eq,
                                         note="a label that differs between neighbours"))
        else:
            to_audit.append(c)
            if eq:
                settled.append(ColumnVerdict(c, "equals a raw column", False, eq,
                                             note=f"{eq} rows equal a raw input column"))
    return settled, to_audit


def _draw_features(scn: ReleaseScenario, data: Any, columns: list[str], n: int,
                   rng: np.random.Generator) -> dict[str, np.ndarray]:
    feats: dict[str, list[np.ndarray]] = {c: [] for c in columns}
    for child in rng.spawn(n):
        rel = _run(scn, data, child)
        table, rid = release_table(rel), released_recording_id(rel, scn.recording)
        for c in columns:
            feats[c].append(_unit_features(table, c, rid, scn.rows))
    return {c: np.array(v) for c, v in feats.items()}


def audit_release(name: str, *, n_trials: int, rng: np.random.Generator,
                  confidence: float = 0.99, paired_draws: int = 2,
                  statistical: bool = True) -> ReleaseAudit:
    """Audit every column of mechanism ``name``'s release on its neighbouring datasets.

    Parameters
    ----------
    name : str
        A mechanism with a scenario in :data:`RELEASE_SCENARIOS`.
    n_trials : int
        Releases per dataset for the statistical audit of each changed column (>= 20).
    rng : numpy.random.Generator
    confidence : float
        Overall confidence, Bonferroni-split over the audited columns.
    paired_draws : int
        Same-seed release pairs for the schema checks (unchanged columns, raw equality).
    statistical : bool
        False runs the schema checks only (for slow mechanisms in tests).
    """
    scn = RELEASE_SCENARIOS[name]()
    seed = int(rng.integers(2**31))
    ta, tb, record = _paired(scn, paired_draws, seed)
    settled, to_audit = _classify(scn, ta, tb)
    claim = record.epsilon
    delta = float(record.delta or 0.0)
    added = tuple(sorted(set(ta[0][1]) - set(scn.a.info)))
    results: list[ColumnVerdict] = []
    if statistical and to_audit:
        r_a, r_b, r_audit = rng.spawn(3)
        fa = _draw_features(scn, scn.a, to_audit, n_trials, r_a)
        fb = _draw_features(scn, scn.b, to_audit, n_trials, r_b)
        conf = 1.0 - (1.0 - confidence) / len(to_audit)
        for c, child in zip(to_audit, r_audit.spawn(len(to_audit)), strict=True):
            res = audit(_Replay(fa[c]), _Replay(fb[c]), n_trials=n_trials,
                        claimed_epsilon=claim if claim is not None else 0.0,
                        claimed_delta=delta, confidence=conf, rng=child,
                        label=f"{name}-release {c}")
            ok = res.passed if claim is not None else True
            results.append(ColumnVerdict(c, "audited", ok, result=res, note="" if claim is not
                                         None else "no epsilon: distinguishing power"))
    elif to_audit:
        results += [ColumnVerdict(c, "changed (not audited: statistical=False)", True)
                    for c in to_audit]
    merged = _merge(settled, results)
    return ReleaseAudit(scn, record, claim, tuple(merged), added, n_trials)


def _merge(settled: list[ColumnVerdict], results: list[ColumnVerdict]) -> list[ColumnVerdict]:
    """One verdict per column: a raw-equality failure keeps the audit result beside it."""
    by = {c.column: c for c in results}
    out = []
    for c in settled:
        if c.column in by:
            r = by.pop(c.column)
            out.append(replace(c, result=r.result))
        else:
            out.append(c)
    return out + list(by.values())


# --------------------------------------------------------------------------------------------
# the scenarios

RATE = 100.0
SECONDS = 2.0
PX_PER_DEG = 35.0
PUBLIC = ("stimulus",)


def _dataset(n_participants: int) -> Any:
    """Simulated free viewing (no blinks) with every kind of column a user's file may have."""
    from gazeprivacy.data.simulate import simulate_dataset

    rng = np.random.default_rng(14)
    sim = simulate_dataset(n_participants=n_participants, tasks=("free-viewing",),
                           duration_s=SECONDS, sampling_rate_hz=RATE, blink_rate_hz=0.0,
                           rng=rng)
    return _with_every_column(sim, rng)


def _with_every_column(ds: Any, rng: np.random.Generator) -> Any:
    """``ds`` with pupil, a head-pose channel, a pixel copy of gaze, jittered timestamps, a
    declared-public ``stimulus`` and an undeclared ``gender`` label added to every recording."""
    from gazeprivacy.data.recording import Dataset

    recs = []
    for i, r in enumerate(ds):
        n = r.n_samples
        pupil = r.pupil if r.pupil is not None else rng.uniform(3.0, 4.0, n)
        recs.append(replace(
            r, t=r.t + rng.uniform(0.0, 2e-3, n), pupil=pupil,
            labels={**r.labels, "stimulus": "s1", "gender": "fm"[i % 2]},
            channels={"head_yaw": np.cumsum(rng.normal(0, 0.1, n)),
                      "x_px": r.x * PX_PER_DEG}))
    return Dataset(tuple(recs), name="release-audit")


def _neighbour(ds: Any, rows: np.ndarray, dx: np.ndarray) -> Any:
    """``ds`` with recording 0 changed in ``rows``: gaze moved by ``dx`` (deg, per row), pupil,
    head pose, pixel copy and clock jitter changed too."""
    from gazeprivacy.data.recording import Dataset

    r = ds.recordings[0]
    geo = r.geometry
    x = r.x.copy()
    x[rows] = x[rows] + dx
    if geo is not None:
        x[rows] = np.clip(x[rows], geo.x_min_deg, geo.x_max_deg)
    t, pupil = r.t.copy(), r.pupil.copy()
    t[rows] += 1e-3
    pupil[rows] *= 1.2
    yaw = r.channels["head_yaw"].copy()
    yaw[rows] += 5.0
    changed = replace(r, x=x, t=t, pupil=pupil,
                      channels={"head_yaw": yaw, "x_px": x * PX_PER_DEG})
    return Dataset((changed, *ds.recordings[1:]), name=ds.name)


def _scenario(mechanism: str, params: Any, n_participants: int, rows: np.ndarray,
              dx: np.ndarray, unit: str, description: str) -> ReleaseScenario:
    a = _dataset(n_participants)
    return ReleaseScenario(mechanism=mechanism, params=params, a=a, b=_neighbour(a, rows, dx),
                           recording=a.recordings[0].recording, rows=rows, public=PUBLIC,
                           unit=unit, description=description)


def _params(mechanism: str, **kw: Any) -> Any:
    from gazeprivacy.mechanisms import build_params

    return build_params(mechanism, **kw)


def _dpgazesynth() -> ReleaseScenario:
    w = round(0.5 * RATE)
    rows = np.arange(w, 2 * w)
    dx = np.r_[0.0, np.full(w - 1, 8.0)]  # same first sample (within r); the rest moves
    return _scenario("dpgazesynth", _params("dpgazesynth", epsilon=1.0, grid_size=8), 2, rows,
                     dx, "window", "window 1 of recording 0 changed after its first sample "
                     "(gaze +8 deg, pupil, head pose, pixel copy, clock jitter)")


def _dpgazesynth_participant() -> ReleaseScenario:
    """``unit="participant"``: participant 0's only recording changed in every window after
    the window's first sample (the relation keeps each window's start within r)."""
    w = round(0.5 * RATE)
    n = round(SECONDS * RATE)
    rows = np.arange(n)
    dx = np.where(rows % w == 0, 0.0, 8.0)
    params = _params("dpgazesynth", epsilon=1.0, grid_size=8, unit="participant",
                     windows_per_participant=2)
    return replace(_scenario("dpgazesynth", params, 2, rows, dx, "participant",
                             "participant 0 (one recording) changed after every window's first "
                             "sample (gaze +8 deg, pupil, head pose, pixel copy, clock jitter)"),
                   name="dpgazesynth-participant")


def _kaleido() -> ReleaseScenario:
    w, r = 50, 2.0
    rows = np.arange(w, 2 * w)
    return _scenario("kaleido", _params("kaleido", epsilon=1.0, radius_deg=r,
                                        window_samples=w), 2, rows, np.full(w, 0.99 * r),
                     "w-window", "samples 50-99 of recording 0 moved by 0.99 r (and pupil, "
                     "head pose, pixel copy, clock jitter changed)")


def _k_same_synth() -> ReleaseScenario:
    n = round(SECONDS * RATE)
    rows = np.arange(n)
    return _scenario("k-same-synth", _params("k-same-synth", k=2, group_by="stimulus"), 4,
                     rows, np.full(n, 3.0), "recording", "recording 0 replaced by a copy "
                     "moved by 3 deg (and its other columns changed)")


def _event_synth_pd() -> ReleaseScenario:
    rows = np.arange(50, 100)
    return _scenario("event-synth-pd", _params("event-synth-pd", k=2, gamma=3.0,
                                               epsilon0=1.0, cvae_epochs=1,
                                               max_tries=3), 4, rows,
                     np.full(rows.size, 3.0), "event", "samples 50-99 of recording 0 (about "
                     "one event) moved by 3 deg (and their other columns changed)")


def _scenarios() -> dict[str, Callable[[], ReleaseScenario]]:
    return {"dpgazesynth": _dpgazesynth, "dpgazesynth-participant": _dpgazesynth_participant,
            "kaleido": _kaleido, "k-same-synth": _k_same_synth,
            "event-synth-pd": _event_synth_pd}


# --------------------------------------------------------------------------------------------
# the generic scenario, derived from the contract

#: units whose rows the generic scenario can derive from a record (others need a hand-written
#: scenario in :func:`_scenarios`)
GENERIC_UNITS = ("sample", "window", "w-window", "recording", "participant")


def derives_scenario(name: str) -> bool:
    """True when mechanism ``name`` gets the generic scenario: a registered sample- or
    event-level mechanism with an ``example`` and no hand-written scenario."""
    from gazeprivacy.mechanisms import MECHANISMS

    if name in _scenarios() or name not in MECHANISMS:
        return False
    mech = MECHANISMS[name]
    # a synthetic population's recordings are not the input's: the generic scenario, which
    # lines the release up with its input recording by recording, does not apply (its audit:
    # gazeprivacy.audit.participant_synth, the curator's measurements)
    return mech.level.takes_samples and mech.example is not None and \
        not mech.synthetic_population


def unit_rows(record: Any, n_samples: int) -> np.ndarray:
    """The rows of one privacy unit of a recording of ``n_samples``, from the record alone.

    ``sample``: the middle sample; ``window`` / ``w-window``: the second window of
    ``parameters["window_samples"]`` samples (the first when there is only one);
    ``recording`` / ``participant``: every row (the audited recording is its participant's
    only one in the examples). Other units raise :class:`InvalidParameterError`.
    """
    from gazeprivacy.exceptions import InvalidParameterError

    unit = str(record.unit)
    if unit == "sample":
        return np.array([n_samples // 2])
    if unit in ("window", "w-window"):
        w = int(record.parameters.get("window_samples", 0))
        if w < 1:
            raise InvalidParameterError(f"a {unit}-level record must give parameters"
                                        f"['window_samples'] for the generic release audit")
        start = w if 2 * w <= n_samples else 0
        return np.arange(start, min(start + w, n_samples))
    if unit in ("recording", "participant"):
        return np.arange(n_samples)
    raise InvalidParameterError(
        f"the generic release audit derives {', '.join(GENERIC_UNITS)} units, not {unit!r}: "
        f"add a hand-written scenario for {record.mechanism!r} in gazeprivacy.audit.release")


def generic_scenario(name: str) -> ReleaseScenario:
    """The whole-release scenario of a mechanism without a hand-written one, from its contract.

    The example dataset of ``example("sound")`` (every kind of extra column added, as in the
    hand-written scenarios) against its neighbour: in the rows of one unit of recording 0
    (:func:`unit_rows`, from the record's ``unit`` and parameters), gaze moves by ``0.99 r``
    when the record has a ``radius_deg`` (geo-indistinguishability bounds the move), otherwise
    to the far edge of the screen (the extreme change of a bounded domain); pupil, head pose,
    pixel copy and clock change too. The claim is the record's epsilon per unit.
    """
    from gazeprivacy.exceptions import InvalidParameterError
    from gazeprivacy.mechanisms import MECHANISMS
    from gazeprivacy.mechanisms.contract import Mode

    mech = MECHANISMS[name]
    example = mech.example(Mode.SOUND) if mech.example is not None else None
    if example is None or not mech.level.takes_samples:
        raise InvalidParameterError(f"{name!r} has no sound-mode example of gaze samples: "
                                    "no generic release scenario")
    data, params = example
    a = _with_every_column(data, np.random.default_rng(14))
    record = mech.guarantee(params, mech.shape_of(a))
    r0 = a.recordings[0]
    rows = unit_rows(record, r0.n_samples)
    radius = record.parameters.get("radius_deg")
    geo = r0.geometry
    if radius is not None:
        dx, how = np.full(rows.size, 0.99 * float(radius)), f"moved by 0.99 r = {radius:.3g} deg"
    elif geo is not None:
        mid, width = (geo.x_min_deg + geo.x_max_deg) / 2, geo.x_max_deg - geo.x_min_deg
        dx, how = np.where(r0.x[rows] < mid, width, -width), "moved to the far edge of the screen"
    else:
        dx, how = np.full(rows.size, 3.0), "moved by 3 deg"
    return ReleaseScenario(
        mechanism=name, params=params, a=a, b=_neighbour(a, rows, dx), recording=r0.recording,
        rows=rows, public=PUBLIC, unit=str(record.unit),
        description=f"generic (from the contract): {record.unit} of recording 0 (rows "
                    f"{rows[0]}-{rows[-1]}) {how}; pupil, head pose, pixel copy, clock changed")


class _Scenarios(dict):  # type: ignore[type-arg]
    """name -> scenario builder: the hand-written ones, else the generic scenario of any
    mechanism that :func:`derives_scenario`; other names raise the registry's named error."""

    def __missing__(self, key: str) -> Any:
        from gazeprivacy._registry import Registry

        if derives_scenario(key):
            return lambda: generic_scenario(key)
        return Registry("release scenario", dict(self))[key]


RELEASE_SCENARIOS: dict[str, Callable[[], ReleaseScenario]] = _Scenarios(_scenarios())
