# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Sealed releases: a written release holds only what its record lists (SPEC section 8).

A mechanism's in-memory :class:`~gazeprivacy.guarantees.Release` keeps the raw ids, labels,
timestamps and every other column of its input, so that evaluations can align raw and protected
recordings. :func:`seal` turns it into what may leave the data holder, and
:func:`write_release` writes that, atomically (written beside, then renamed):

* **gaze** ``x, y``: the mechanism's output (status ``protected``);
* **ids**: ``participant`` and ``recording`` are replaced by pseudonyms, a keyed hash
  (BLAKE2b) of the raw id under a 256-bit key drawn once from the release's generator (OS entropy
  without a seed), so partitions of one run agree. The raw -> pseudonym map goes only to
  ``id_map_path`` when asked for, ordered by pseudonym. Recordings are written in pseudonym order,
  so positions do not reveal raw ids. ``public=["participant"]`` keeps raw ids;
* **time**: the public sampling grid ``t = i / sampling_rate_hz`` (public by design); the raw
  clock, with its jitter, only under ``public=["t"]``;
* **pupil**: dropped, copied under ``public=["pupil"]``, or protected with ``pupil_epsilon`` and
  a declared ``pupil_range`` by :func:`protect_pupil` at the mechanism's unit (window or
  w-window mechanisms only; k-same-synth and event-synth-PD drop it unless declared public);
* **every other column** (head pose, pixel copies of gaze, confidence, labels such as gender):
  written only when declared in ``public``;
* **the missing-sample mask**: a NaN gaze row at a row where the input was missing releases the
  mask. Such a release is refused unless ``public=["mask"]`` or the mechanism's record lists a
  ``mask`` column as protected. A mechanism that synthesises every row writes no NaN and so no
  mask; NaN rows that the mechanism made itself (e.g. suppressed events) are its output;
* **shape**: rows per recording and recordings per participant are the input's (public by
  design), unless the mechanism's record sets one public length (``output_length_s``:
  DPGazeSynth at participant level), which every recording must then have (else the release is
  refused) and beside which the input's per-row columns cannot be declared public;
* **metadata**: sampling rate and geometry are public by design; dataset name and info are
  written only under ``public=["name"]`` / ``public=["info"]``. Counts a mechanism leaves in
  ``Dataset.info`` (e.g. event-synth-PD's failed tests) go to the data holder's ``report`` and to
  ``report_path`` when asked for, never into the release.

The record's ``columns`` lists every written column (and the public-by-design properties and the
input columns left out) with its status.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import os
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.io import write_dataset
from gazeprivacy.data.recording import Dataset, Recording, adopt
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.guarantees import Budget, ColumnStatus, Guarantee, Kind, Release, Status, Unit
from gazeprivacy.ledger import file_sha256
from gazeprivacy.mechanisms.contract import Level
from gazeprivacy.rng import make_rng

if TYPE_CHECKING:
    from gazeprivacy.ledger import Ledger, Spend

__all__ = [
    "PUBLIC_KEYWORDS",
    "RECORD_KEY",
    "Pseudonymiser",
    "SealPolicy",
    "SealedRelease",
    "guarantee_path",
    "merge_columns",
    "protect_file",
    "protect_pupil",
    "record_json",
    "seal",
    "seal_series_table",
    "sealed_name_info",
    "write_release",
    "write_sealed",
    "write_sealed_table",
]

#: Names that ``public`` accepts besides column and label names.
PUBLIC_KEYWORDS = ("participant", "recording", "t", "mask", "name", "info")
_ID_KINDS = ("participant", "recording")
_PREFIX = {"participant": "P", "recording": "R"}
_PUPIL_KINDS = (Kind.PURE_DP, Kind.APPROX_DP, Kind.LOCAL_DP, Kind.W_EVENT_DP)
#: How many pupil blocks (of one unit's length, aligned at row 0) one privacy unit can touch.
_BLOCKS_TOUCHED = {Unit.WINDOW: 1, Unit.W_WINDOW: 2}


class Pseudonymiser:
    """Random pseudonyms for ids: a keyed BLAKE2b hash under a key drawn from ``rng``.

    One instance per release run; the same raw id always gets the same pseudonym within it (so
    partitions agree), and without the key a pseudonym says nothing of the raw id.

    >>> p = Pseudonymiser(rng=np.random.default_rng(0))
    >>> p("participant", "alice") == p("participant", "alice"), p("participant", "alice")[:2]
    (True, 'P-')
    """

    def __init__(self, *, rng: np.random.Generator) -> None:
        self._key = rng.bytes(32)

    def __call__(self, kind: str, raw: str) -> str:
        digest = hashlib.blake2b(str(raw).encode(), key=self._key, digest_size=8,
                                 person=kind.encode()[:16]).hexdigest()
        return f"{_PREFIX[kind]}-{digest}"


@dataclass(frozen=True, kw_only=True)
class SealedRelease:
    """What may leave the data holder, and what stays.

    ``table`` (as written; for a sample-level release also as ``dataset``, which carries the
    per-recording metadata) and ``guarantee`` are the release: pseudonymised, only the columns
    that the record lists. ``id_map`` (kind, pseudonym, raw; ordered by pseudonym) and ``report``
    (e.g. counts of failed or suppressed events) stay with the data holder unless written on
    request.
    """

    table: pl.DataFrame
    guarantee: Guarantee
    id_map: pl.DataFrame
    report: Mapping[str, Any] = field(default_factory=dict)
    dataset: Dataset | None = None


# ------------------------------------------------------------------------------------- pupil


def protect_pupil(pupil: np.ndarray, *, block_samples: int, epsilon_per_block: float,
                  pupil_range: tuple[float, float], rng: np.random.Generator) -> np.ndarray:
    """Block-mean Laplace release of a pupil series: epsilon_per_block-DP per block.

    Rows are cut into blocks of ``block_samples`` from row 0. Each block's value is the mean of
    its non-missing samples clipped to ``pupil_range = (lo, hi)`` (``(lo + hi) / 2`` when it has
    none), which lies in ``[lo, hi]`` whatever the block holds, so its sensitivity to any change
    inside one block (values or missing rows) is ``hi - lo``; Laplace noise of scale
    ``(hi - lo) / epsilon_per_block`` makes it epsilon_per_block-DP. The noisy mean, clipped to
    the range (post-processing), is written on every row of the block: no row is missing, so the
    pupil column carries no missing-sample mask.

    >>> out = protect_pupil(np.array([3.0, 3.2, np.nan, 9.0]), block_samples=2,
    ...                     epsilon_per_block=1.0, pupil_range=(2.0, 6.0),
    ...                     rng=np.random.default_rng(0))
    >>> out.shape, bool(np.isnan(out).any()), bool(((out >= 2) & (out <= 6)).all())
    ((4,), False, True)
    """
    lo, hi = pupil_range
    n = pupil.shape[0]
    n_blocks = -(-n // block_samples)
    padded = np.full(n_blocks * block_samples, np.nan)
    padded[:n] = np.clip(pupil, lo, hi)
    blocks = padded.reshape(n_blocks, block_samples)
    valid = ~np.isnan(blocks)
    counts = valid.sum(axis=1)
    sums = np.where(valid, blocks, 0.0).sum(axis=1)
    means = np.where(counts > 0, sums / np.maximum(counts, 1), (lo + hi) / 2)
    noisy = np.clip(means + rng.laplace(0.0, (hi - lo) / epsilon_per_block, n_blocks), lo, hi)
    return np.repeat(noisy, block_samples)[:n]


def _block_samples(g: Guarantee, sampling_rate_hz: float) -> int:
    """The mechanism's unit length in samples (its window), from the record's parameters."""
    p = g.parameters
    if p.get("window_s") is not None:
        return max(1, round(float(p["window_s"]) * sampling_rate_hz))
    if p.get("window_samples") is not None:
        return int(p["window_samples"])
    raise InvalidParameterError(f"{g.mechanism}'s record names no window (window_s or "
                                "window_samples); pupil_epsilon needs the unit's length")


@dataclass(frozen=True, slots=True)
class _Pupil:
    epsilon: float
    lo: float
    hi: float

    @classmethod
    def check(cls, g: Guarantee, epsilon: float | None, value_range: Sequence[float] | None,
              public: frozenset[str]) -> _Pupil | None:
        if epsilon is None:
            if value_range is not None:
                raise InvalidParameterError("pupil_range is given without pupil_epsilon; give "
                                            "both to protect pupil, or neither to drop it")
            return None
        if "pupil" in public:
            raise InvalidParameterError("pupil is declared public and given a pupil_epsilon; "
                                        "choose one")
        if not (math.isfinite(epsilon) and epsilon > 0):
            raise InvalidParameterError(f"pupil_epsilon must be > 0, got {epsilon!r}")
        if value_range is None or len(value_range) != 2:
            raise InvalidParameterError("pupil_epsilon needs pupil_range=(lo, hi), the declared "
                                        f"range of pupil diameters; got {value_range!r}")
        lo, hi = (float(v) for v in value_range)
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise InvalidParameterError(f"pupil_range must be finite with lo < hi, got "
                                        f"({lo!r}, {hi!r})")
        if g.kind not in _PUPIL_KINDS or g.unit not in _BLOCKS_TOUCHED:
            raise InvalidParameterError(
                f"pupil_epsilon applies to window or w-window DP mechanisms; {g.mechanism} is "
                f"{g.kind.value} per {g.unit.value}: drop pupil (the default) or declare it "
                "public (public=['pupil'])")
        return cls(float(epsilon), lo, hi)

    def record(self, g: Guarantee, blocks: Mapping[str, int]) -> Guarantee:
        touched = _BLOCKS_TOUCHED[g.unit]
        per_block = self.epsilon / touched
        rule = (f"pupil: block-mean Laplace, {per_block:g} per block of one {g.unit.value}'s "
                f"length; one {g.unit.value} touches at most {touched} block(s)")
        per_part = None
        if g.per_participant is not None:
            per_part = {pid: Budget(None if b.epsilon is None
                                    else b.epsilon + blocks.get(pid, 0) * per_block,
                                    b.delta, b.units, f"{b.rule}; + {blocks.get(pid, 0)} pupil "
                                    f"blocks at {per_block:g} (sequential composition)")
                        for pid, b in g.per_participant.items()}
        note = (f"pupil protected at pupil_epsilon = {self.epsilon:g} per {g.unit.value} "
                f"({rule}; declared range [{self.lo:g}, {self.hi:g}], clipped); the per-unit "
                "epsilon is gaze + pupil by sequential composition")
        return replace(g, epsilon=(g.epsilon or 0.0) + self.epsilon, per_participant=per_part,
                       parameters={**g.parameters, "pupil_epsilon": self.epsilon,
                                   "pupil_range": [self.lo, self.hi],
                                   "pupil_epsilon_per_block": per_block},
                       notes=(*g.notes, note))


# -------------------------------------------------------------------------------------- seal


def seal(release: Release[Dataset], *, public: Iterable[str] = (),
         pupil_epsilon: float | None = None, pupil_range: Sequence[float] | None = None,
         source: Dataset | None = None, rng: np.random.Generator,
         pseudonymiser: Pseudonymiser | None = None) -> SealedRelease:
    """Seal a sample-level release for writing (see the module docstring for each policy).

    Parameters
    ----------
    release : Release[Dataset]
        A mechanism's in-memory release (raw ids and every input column still inside).
    public : iterable of str
        Columns or labels declared public, and the keywords ``participant``, ``recording``
        (raw ids), ``t`` (raw clock), ``mask`` (missing-sample mask), ``name``, ``info``.
    pupil_epsilon : float, optional
        Protect pupil at this epsilon per privacy unit (added to the record's totals); needs
        ``pupil_range``.
    pupil_range : (lo, hi), optional
        Declared pupil range, in the data's unit.
    source : Dataset, optional
        The mechanism's input; lets the writer tell input gaps from NaN rows the mechanism
        made itself. Without it, any NaN gaze row counts as releasing the mask.
    rng : numpy.random.Generator
        Draws the pseudonym key and the pupil noise.
    pseudonymiser : Pseudonymiser, optional
        Share one across partitions of a run (default: a new one from ``rng``).

    Raises
    ------
    InvalidParameterError
        An unknown public name, a bad pupil policy, or NaN rows that would release an
        undeclared mask.

    Examples
    --------
    >>> from gazeprivacy.mechanisms import protect
    >>> rec = Recording.from_arrays(recording="r1", participant="alice", x=np.zeros(100),
    ...     y=np.zeros(100), sampling_rate_hz=100, labels={"gender": "f"},
    ...     geometry=Geometry(x_min_deg=-5, x_max_deg=5, y_min_deg=-5, y_max_deg=5))
    >>> rel = protect(Dataset((rec,)), mechanism="kaleido", epsilon=1.0, radius_deg=1.0,
    ...               window_samples=50, seed=0)
    >>> sealed = seal(rel, rng=np.random.default_rng(1))
    >>> sealed.table.columns
    ['participant', 'recording', 't', 'x', 'y']
    >>> "alice" in sealed.table["participant"].to_list()
    False
    """
    out = release.output
    g = release.guarantee
    public = tuple(public)  # read twice below: a generator would be used up by the first
    if len(out) == 0:
        raise InvalidDataError("the release has no recordings")
    _check_release_length(out, source, g, public)
    pub = _check_public(out, public)
    pupil = _Pupil.check(g, pupil_epsilon, pupil_range, pub)
    if pupil is not None and any(r.pupil is None for r in out):
        raise InvalidDataError("pupil_epsilon is given but some recordings have no pupil column")
    pseudo = pseudonymiser or Pseudonymiser(rng=rng)
    ids = {kind: {raw: (raw if kind in pub else pseudo(kind, raw))
                  for raw in dict.fromkeys(getattr(r, kind) for r in out)} for kind in _ID_KINDS}
    if any(len(set(m.values())) != len(m) for m in ids.values()):  # 64-bit digests: ~never
        raise InvalidDataError("two ids got the same pseudonym; seal again with another rng")
    mask = _mask_status(out, source, pub, g)
    pupil_rngs = rng.spawn(len(out))
    recs, blocks = [], {}
    for r, child in zip(out, pupil_rngs, strict=True):
        values = None
        if pupil is not None:
            b = _block_samples(g, r.sampling_rate_hz)
            values = protect_pupil(r.pupil, block_samples=b,
                                   epsilon_per_block=pupil.epsilon / _BLOCKS_TOUCHED[g.unit],
                                   pupil_range=(pupil.lo, pupil.hi), rng=child)
            blocks[r.participant] = blocks.get(r.participant, 0) + -(-r.n_samples // b)
        recs.append(_seal_recording(r, ids, pub, values))
    recs.sort(key=lambda r: (r.participant, r.recording))
    report = _report(out, source, g)
    info = {k: v for k, v in (source.info if source is not None else out.info).items()
            if k not in report} if "info" in pub else {}
    # the input's column order and dtypes (an integer label is written as an integer again)
    schema = source.schema if source is not None and source.schema is not None else out.schema
    dataset = Dataset(tuple(recs), name=out.name if "name" in pub else "release", info=info,
                      schema=schema)
    record = pupil.record(g, blocks) if pupil is not None else g
    if record.per_participant is not None:
        record = replace(record, per_participant={
            ids["participant"].get(k, k): v
            for k, v in sorted(record.per_participant.items(),
                               key=lambda kv: ids["participant"].get(kv[0], kv[0]))})
    # the input's columns (a release at a public length carries none of its per-row ones)
    cols = _columns(source if source is not None else out, dataset, g, pub, pupil, mask)
    return SealedRelease(table=dataset.to_table(), dataset=dataset,
                         guarantee=replace(record, columns=cols), id_map=_id_map(ids, pub),
                         report=report)


def _check_public(out: Dataset, public: Iterable[str]) -> frozenset[str]:
    pub = frozenset(str(p) for p in public)
    known = set(PUBLIC_KEYWORDS) | {"pupil"} | set(out.label_names())
    known |= {c for r in out for c in (*r.channels, *r.extras)}
    gaze = pub & {"x", "y"}
    if gaze:
        raise InvalidParameterError(f"{', '.join(sorted(gaze))} is the protected gaze and is "
                                    "always written; do not list it in public")
    unknown = sorted(pub - known)
    if unknown:
        raise InvalidParameterError(
            f"public names {', '.join(unknown)} are neither columns, labels nor keywords of "
            f"this release; valid: {', '.join(sorted(known))}")
    return pub


def _check_release_length(out: Dataset, source: Dataset | None, g: Guarantee,
                          public: Iterable[str]) -> None:
    """A record that sets the release's length (``output_length_s``, e.g. DPGazeSynth at
    participant level) must hold for every recording; the input's per-row columns (raw clock,
    pupil, channels, extras) have the input's lengths and cannot be declared public beside it."""
    length = g.parameters.get("output_length_s")
    if length is None:
        return
    wrong = [(r.recording, r.n_samples, round(length * r.sampling_rate_hz)) for r in out
             if r.n_samples != round(length * r.sampling_rate_hz)]
    if wrong:
        rec, n, want = wrong[0]
        raise InvalidDataError(
            f"{g.mechanism}'s record says every recording is {length:g} s long "
            f"(output_length_s), but {len(wrong)} recordings are not (e.g. {rec!r}: {n} rows, "
            f"not {want}); the release is not written")
    rows = {"t"} | {c for r in (source if source is not None else out)
                    for c in ((*r.channels, *r.extras, "pupil") if r.pupil is not None
                              else (*r.channels, *r.extras))}
    clash = sorted(rows & {str(p) for p in public})
    if clash:
        raise InvalidParameterError(
            f"{', '.join(clash)} cannot be declared public: {g.mechanism} releases every "
            f"recording at a public length ({length:g} s, output_length_s) and these per-row "
            "columns have the input's lengths; drop them from --public / public, or release "
            "without output_length_s")


def _seal_recording(r: Recording, ids: Mapping[str, Mapping[str, str]], pub: frozenset[str],
                    pupil: np.ndarray | None) -> Recording:
    t = r.t if "t" in pub else None  # None: the public grid i / sampling_rate_hz
    channels = {k: v for k, v in r.channels.items() if k in pub}
    kw: dict[str, Any] = dict(recording=ids["recording"][r.recording],
                              participant=ids["participant"][r.participant],
                              labels={k: v for k, v in r.labels.items() if k in pub},
                              channels=channels,
                              extras={k: v for k, v in r.extras.items() if k in pub})
    if pupil is None:
        # the output's own (checked, read-only) columns and the public time grid: shared, not
        # copied and checked again
        return r._relabelled(t=t, pupil=r.pupil if "pupil" in pub else None, **kw)
    if t is None:
        t = np.arange(r.n_samples) / r.sampling_rate_hz
    with adopt(t, r.x, r.y, *channels.values()):  # protected pupil: a new column, checked
        return Recording(t=t, x=r.x, y=r.y, sampling_rate_hz=r.sampling_rate_hz, pupil=pupil,
                         geometry=r.geometry, **kw)


def _mask_status(out: Dataset, source: Dataset | None, pub: frozenset[str],
                 g: Guarantee) -> ColumnStatus:
    """How gaps are released; refuses a NaN row that would release an undeclared mask."""
    missing = sum(int(r.missing.sum()) for r in out)
    # without the input, the output's NaN rows are all we can see of its gaps
    input_gaps = missing if source is None else sum(int(r.missing.sum()) for r in source)
    if g.parameters.get("missing_mask") == "public" and input_gaps != 0:
        # the mechanism's output reveals the mask even without NaN rows (Kaleido's hold mode
        # publishes only at valid samples): its record says so, and the user must say so too
        if "mask" not in pub:
            raise InvalidParameterError(
                f"{g.mechanism} releases the missing-sample mask (its record: the mask is "
                f"public under missing={g.parameters.get('missing')!r}) and the input has gaps; "
                "declare it public (--public mask / public=['mask']) or fill the gaps first")
        return ColumnStatus(name="mask", status=Status.PUBLIC_DECLARED, by="user",
                            note="the mechanism's output reveals the missing-sample mask (see "
                                 "its record); released as declared")
    if missing == 0:
        return ColumnStatus(name="mask", status=Status.NOT_WRITTEN, by=g.mechanism,
                            note="every written row carries gaze: the input's missing samples "
                                 "are not visible in the release")
    if "mask" in pub:
        return ColumnStatus(name="mask", status=Status.PUBLIC_DECLARED, by="user",
                            note=f"{missing} gaze rows are NaN: the missing-sample mask is "
                                 "released as declared")
    own = g.column("mask")
    if own is not None and own.status is Status.PROTECTED:
        return own
    if source is not None:
        src = {r.recording: r.missing for r in source}
        overlap = sum(int((r.missing & src[r.recording]).sum()) for r in out
                      if r.recording in src and src[r.recording].shape == r.missing.shape)
        if overlap == 0 and all(r.recording in src for r in out):
            return ColumnStatus(name="mask", status=Status.PROTECTED, by=g.mechanism,
                                note=f"{missing} gaze rows are NaN where the input had gaze: "
                                     "the mechanism's own output (e.g. suppressed events); no "
                                     "input gap is visible")
    fill = ("fill the gaps in the mechanism (--param missing=fill / missing='fill'), which "
            "synthesises every row and protects the mask" if _can_fill(g) else
            "use a mechanism option that fills gaps")
    raise InvalidParameterError(
        f"{g.mechanism}'s output keeps {missing} missing (NaN) gaze rows where the input was "
        "missing: writing them releases the missing-sample mask, which its record does not "
        f"cover. Declare it public (--public mask / public=['mask']) or {fill}")


def _can_fill(g: Guarantee) -> bool:
    """Whether ``g``'s mechanism has the option ``missing="fill"`` (e.g. DPGazeSynth) and
    ran without it."""
    from dataclasses import fields
    from enum import Enum

    from gazeprivacy.mechanisms import MECHANISMS

    if g.parameters.get("missing") == "fill" or g.mechanism not in MECHANISMS:
        return False
    default = next((f.default for f in fields(MECHANISMS[g.mechanism].params_type)
                    if f.name == "missing"), None)
    return isinstance(default, Enum) and any(v.value == "fill" for v in type(default))


def _report(out: Dataset, source: Dataset | None, g: Guarantee) -> dict[str, Any]:
    """What the mechanism added to ``Dataset.info`` (e.g. counts of failed tests)."""
    base = source.info if source is not None else {}
    return {k: v for k, v in out.info.items()
            if k == g.mechanism or k not in base or base[k] != v}


def _id_map(ids: Mapping[str, Mapping[str, str]], pub: frozenset[str]) -> pl.DataFrame:
    rows = [(kind, pseudo, raw) for kind in _ID_KINDS if kind not in pub
            for raw, pseudo in ids[kind].items()]
    return pl.DataFrame(rows, schema={"kind": pl.String, "pseudonym": pl.String,
                                      "raw": pl.String}, orient="row").sort("pseudonym")


def _columns(source: Dataset, sealed: Dataset, g: Guarantee, pub: frozenset[str],
             pupil: _Pupil | None, mask: ColumnStatus) -> tuple[ColumnStatus, ...]:
    def declared(name: str) -> ColumnStatus:
        return ColumnStatus(name=name, status=Status.PUBLIC_DECLARED, by="user",
                            note="copied as is: declared public")

    cols = []
    for kind in _ID_KINDS:
        cols.append(declared(kind) if kind in pub else ColumnStatus(
            name=kind, status=Status.PSEUDONYMISED, by="keyed BLAKE2b pseudonym",
            note="key drawn once per release from its generator; map only in the id map; "
                 "rows ordered by pseudonym"))
    cols.append(declared("t") if "t" in pub else ColumnStatus(
        name="t", status=Status.PUBLIC_BY_DESIGN, by="sampling grid",
        note="t = i / sampling_rate_hz from 0, one per released row; the raw clock is not "
             "written"))
    for axis in ("x", "y"):
        cols.append(ColumnStatus(name=axis, status=Status.PROTECTED, by=g.mechanism,
                                 epsilon_share=g.epsilon,
                                 note=f"{g.kind.value} per {g.unit.value} ({g.mode} mode)"))
    if pupil is not None:
        cols.append(ColumnStatus(name="pupil", status=Status.PROTECTED,
                                 by="pupil block-mean Laplace", epsilon_share=pupil.epsilon,
                                 note=f"declared range [{pupil.lo:g}, {pupil.hi:g}]; one value "
                                      f"per block of one {g.unit.value}'s length"))
    written = _written(sealed)
    # the input's columns and any the release itself carries (a custom mechanism's): every
    # written column is in the record
    for name in dict.fromkeys([*_input_columns(source), *_input_columns(sealed)]):
        if name in written and name not in {c.name for c in cols}:
            cols.append(declared(name))
    cols.append(mask)
    cols.extend(_shape_columns(g))
    cols.append(ColumnStatus(name="sampling_rate_hz", status=Status.PUBLIC_BY_DESIGN,
                             by="metadata", note="nominal rate per recording (declared in the "
                                                 "input's metadata, else the rounded median "
                                                 "sample interval)"))
    cols.append(ColumnStatus(name="geometry", status=Status.PUBLIC_BY_DESIGN, by="metadata",
                             note="screen / field-of-view bounds per recording"))
    for meta in ("name", "info"):
        cols.append(declared(meta) if meta in pub else ColumnStatus(
            name=meta, status=Status.NOT_WRITTEN, by="metadata",
            note=f"dataset {meta} replaced by a neutral value"))
    for name in _input_columns(source):
        if name not in written:
            cols.append(ColumnStatus(name=name, status=Status.NOT_WRITTEN, by="release schema",
                                     note="not declared public and not protected"))
    return tuple(cols)


def _shape_columns(g: Guarantee) -> tuple[ColumnStatus, ColumnStatus]:
    """The public-by-design shape of the release: rows per recording (the input's, or the
    public length the mechanism's record sets with ``output_length_s``) and recordings per
    participant (one released recording per input recording)."""
    length = g.parameters.get("output_length_s")
    if length is None:
        rows = ColumnStatus(name="rows", status=Status.PUBLIC_BY_DESIGN, by="input",
                            note="public (the input's): row count of every recording, as in "
                                 "the input (SPEC 8); not protected")
    else:
        rows = ColumnStatus(name="rows", status=Status.PUBLIC_BY_DESIGN,
                            by=f"{g.mechanism} output_length_s",
                            note=f"public (set to {length:g} s by the release): every "
                                 f"recording has round({length:g} x sampling_rate_hz) rows, "
                                 "synthesised; the input's row counts are not written")
    recordings = ColumnStatus(name="recordings", status=Status.PUBLIC_BY_DESIGN, by="input",
                              note="public (the input's): one released recording per input "
                                   "recording, so each participant's number of recordings is "
                                   "the input's; not protected")
    return rows, recordings


def _input_columns(ds: Dataset) -> list[str]:
    names: dict[str, None] = {}
    for r in ds:
        if r.pupil is not None:
            names["pupil"] = None
        names.update(dict.fromkeys(r.channels))
        names.update(dict.fromkeys(r.extras))
        names.update(dict.fromkeys(r.labels))
    return list(names)


def _written(ds: Dataset) -> set[str]:
    names = {"participant", "recording", "t", "x", "y"}
    for r in ds:
        if r.pupil is not None:
            names.add("pupil")
        names.update(r.channels)
        names.update(r.extras)
        names.update(r.labels)
    return names


@dataclass(frozen=True)
class SealPolicy:
    """How one run seals its partitions (small and picklable, for partition-wise engines).

    ``entropy`` (256 bits, drawn once per run: OS entropy, or derived from a research seed) keys
    the pseudonyms, so every partition and worker maps an id to the same pseudonym, and seeds
    each partition's own sealing generator (pupil noise).
    """

    public: tuple[str, ...] = ()
    pupil_epsilon: float | None = None
    pupil_range: tuple[float, float] | None = None
    entropy: int = 0

    @classmethod
    def create(cls, *, seed: int | None = None, public: Iterable[str] = (),
               pupil_epsilon: float | None = None,
               pupil_range: Sequence[float] | None = None) -> SealPolicy:
        ss = np.random.SeedSequence(None if seed is None else [int(seed), 0x5EA1])
        entropy = int.from_bytes(ss.generate_state(4, np.uint64).tobytes(), "little")
        return cls(public=tuple(public), pupil_epsilon=pupil_epsilon,
                   pupil_range=None if pupil_range is None else tuple(pupil_range),
                   entropy=entropy)

    @property
    def pseudonymiser(self) -> Pseudonymiser:
        return Pseudonymiser(rng=np.random.default_rng(
            np.random.SeedSequence(self.entropy, spawn_key=(0,))))

    def rng(self, index: int) -> np.random.Generator:
        """Partition ``index``'s sealing generator."""
        return np.random.default_rng(np.random.SeedSequence(self.entropy,
                                                            spawn_key=(1, int(index))))

    @property
    def name_info_public(self) -> tuple[bool, bool]:
        return "name" in self.public, "info" in self.public

    def seal(self, release: Release[Dataset], *, source: Dataset, index: int) -> SealedRelease:
        """Seal partition ``index`` (its raw partition as ``source``)."""
        return seal(release, public=self.public, pupil_epsilon=self.pupil_epsilon,
                    pupil_range=self.pupil_range, source=source, rng=self.rng(index),
                    pseudonymiser=self.pseudonymiser)

    def id_map(self, participants: Iterable[str], recordings: Iterable[str]) -> pl.DataFrame:
        """The raw -> pseudonym map of these ids (e.g. from a partitioned source's manifest)."""
        p = self.pseudonymiser
        ids = {"participant": {r: r if "participant" in self.public else p("participant", r)
                               for r in dict.fromkeys(participants)},
               "recording": {r: r if "recording" in self.public else p("recording", r)
                             for r in dict.fromkeys(recordings)}}
        return _id_map(ids, frozenset(self.public))


def sealed_name_info(sealing: SealPolicy | None, name: str, info: dict[str, Any]
                     ) -> tuple[str, dict[str, Any]]:
    """The dataset name and info a sealed partitioned release writes (declared ones only)."""
    if sealing is None:
        return name, info
    public_name, public_info = sealing.name_info_public
    return (name if public_name else "release"), (info if public_info else {})


def merge_columns(records: Sequence[Guarantee]) -> tuple[ColumnStatus, ...]:
    """One column list for the records of one run's partitions: per name, the first status
    that writes something (a partition without gaps writes no mask, another may)."""
    out: dict[str, ColumnStatus] = {}
    for g in records:
        for c in g.columns:
            if c.name not in out or (out[c.name].status is Status.NOT_WRITTEN
                                     and c.status is not Status.NOT_WRITTEN):
                out[c.name] = c
    return tuple(out.values())


# ------------------------------------------------------------------------------------- write


def _atomic_write(files: Mapping[Path, Any]) -> None:
    """Write each ``path -> writer(tmp_path)`` beside its target, then rename all in the order
    given (write_sealed: the record, the id map, the data, then the report that hashes it)."""
    tmps = {}
    try:
        for path, writer in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{uuid.uuid4().hex[:12]}.{path.name}")
            writer(tmp)
            tmps[path] = tmp
        for path, tmp in tmps.items():  # in the order given: the record before its data
            os.replace(tmp, path)
            side = tmp.with_name(tmp.name + ".meta.json")
            if side.exists():
                os.replace(side, path.with_name(path.name + ".meta.json"))
    finally:
        for tmp in tmps.values():
            tmp.unlink(missing_ok=True)
            tmp.with_name(tmp.name + ".meta.json").unlink(missing_ok=True)


def _write_table(table: pl.DataFrame, path: Path,
                 metadata: dict[str, str] | None = None) -> None:
    if path.name.lower().endswith((".parquet", ".pq")):
        if metadata:
            import pyarrow.parquet as pq

            arrow = table.to_arrow()
            pq.write_table(arrow.replace_schema_metadata(
                {**(arrow.schema.metadata or {}), **metadata}), path)
        else:
            table.write_parquet(path)
    else:
        table.write_csv(path)


def write_sealed_table(table: pl.DataFrame, path: str | Path) -> Path:
    """Write a table (e.g. an id map) atomically, CSV or Parquet by suffix."""
    path = Path(path)
    _atomic_write({path: lambda p: _write_table(table, p)})
    return path


def guarantee_path(output: str | Path) -> Path:
    """Where the record of ``output`` goes: ``OUTPUT.guarantee.json``."""
    output = Path(output)
    return output.with_name(output.name + ".guarantee.json")


#: Parquet schema-metadata key of the record embedded in a written release.
RECORD_KEY = "gazeprivacy.guarantee"


def _software() -> dict[str, str]:
    import sys

    version = getattr(sys.modules.get("gazeprivacy"), "__version__", "unknown")
    return {"software": "gazeprivacy", "version": str(version),
            "at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")}


def record_json(guarantee: Guarantee) -> str:
    """The written record: the guarantee plus ``written`` (package, version, UTC time).
    :meth:`Guarantee.from_json` reads it back (ignoring ``written``)."""
    return json.dumps({**guarantee.to_dict(), "written": _software()}, indent=2,
                      allow_nan=False)


def write_sealed(sealed: SealedRelease, path: str | Path, *, id_map_path: str | Path | None = None,
                 report_path: str | Path | None = None,
                 input_path: str | Path | None = None) -> Path:
    """Write a sealed release (format by suffix) and its record, atomically; the id map and the
    data holder's report only when their paths are given.

    The record goes to ``PATH.guarantee.json`` and, for Parquet, also into the file's schema
    metadata (key :data:`RECORD_KEY`), each with the package version and the time. The SHA-256
    of the output (and of ``input_path``) goes only to the data holder's report: a hash of the
    raw input identifies it, so it is never written into the release or its record.
    """
    path = Path(path)
    text = record_json(sealed.guarantee)
    files: dict[Path, Any] = {guarantee_path(path): lambda p: p.write_text(text)}
    if id_map_path is not None:
        files[Path(id_map_path)] = lambda p: _write_table(sealed.id_map, p)
    written: dict[str, Path] = {}

    def write_data(p: Path) -> None:
        if sealed.dataset is not None:
            write_dataset(sealed.dataset, p, metadata={RECORD_KEY: text}, table=sealed.table)
        else:
            _write_table(sealed.table, p, metadata={RECORD_KEY: text})
        written["data"] = p

    files[path] = write_data
    if report_path is not None:
        files[Path(report_path)] = lambda p: p.write_text(json.dumps(
            {**dict(sealed.report), "files": _hashes(path, written["data"], input_path)},
            indent=2, default=str))
    _atomic_write(files)
    return path


def _hashes(out: Path, written: Path, input_path: str | Path | None) -> dict[str, Any]:
    files: dict[str, Any] = {"output": str(out), "output_sha256": file_sha256(written)}
    side = written.with_name(written.name + ".meta.json")
    if side.is_file():
        files["output_meta_sha256"] = file_sha256(side)
    if input_path is not None and Path(input_path).is_file():
        files["input"] = str(input_path)
        files["input_sha256"] = file_sha256(input_path)
    return files


def write_release(release: Release[Dataset], path: str | Path, *, public: Iterable[str] = (),
                  pupil_epsilon: float | None = None, pupil_range: Sequence[float] | None = None,
                  source: Dataset | None = None, id_map_path: str | Path | None = None,
                  report_path: str | Path | None = None,
                  rng: np.random.Generator | None = None) -> SealedRelease:
    """:func:`seal` ``release`` and write it with :func:`write_sealed`; returns the sealed
    release. Without ``rng`` the pseudonym key and pupil noise come from OS entropy."""
    sealed = seal(release, public=public, pupil_epsilon=pupil_epsilon, pupil_range=pupil_range,
                  source=source, rng=rng if rng is not None else make_rng(None))
    write_sealed(sealed, path, id_map_path=id_map_path, report_path=report_path)
    return sealed


# ------------------------------------------------------------------------- feature series


_SERIES_TIME = "t_start"


def seal_series_table(table: pl.DataFrame, guarantee: Guarantee, *, public: Iterable[str] = (),
                      rng: np.random.Generator) -> SealedRelease:
    """Seal a protected feature-series table (``participant, recording, t_start``, features,
    labels): the numeric feature columns are the mechanism's output; ids are pseudonymised;
    ``t_start`` becomes the window grid ``j * step`` (step: the table's median window step,
    rounded to 1 ms, a public design parameter) unless declared public; string labels only
    when declared public.
    """
    pub = frozenset(public)
    features = [c for c, dt in table.schema.items()
                if dt.is_numeric() and c not in (_SERIES_TIME, *_ID_KINDS)]
    labels = [c for c in table.columns if c not in (*_ID_KINDS, _SERIES_TIME, *features)]
    unknown = sorted(pub - set(labels) - {*_ID_KINDS, _SERIES_TIME, "name", "info"})
    if unknown:
        raise InvalidParameterError(f"public names {', '.join(unknown)} are not label columns of "
                                    f"the feature table; valid: {', '.join(labels)}")
    pseudo = Pseudonymiser(rng=rng)
    ids = {k: {raw: raw if k in pub else pseudo(k, raw)
               for raw in table[k].cast(pl.String).unique(maintain_order=True)}
           for k in _ID_KINDS}
    step = table.group_by("recording", maintain_order=True).agg(pl.col(_SERIES_TIME).diff()
                                                                 .median())[_SERIES_TIME]
    step = round(float(step.drop_nulls().median() or 0.0), 3)
    out = table.with_columns(*(pl.col(k).cast(pl.String).replace_strict(ids[k]) for k in _ID_KINDS))
    if _SERIES_TIME not in pub:
        out = out.with_columns((pl.int_range(pl.len()).over("recording") * step)
                               .cast(pl.Float64).alias(_SERIES_TIME))
    out = out.select(*_ID_KINDS, _SERIES_TIME, *features, *[c for c in labels if c in pub])
    out = out.with_row_index("_row").sort(["participant", "recording", "_row"]).drop("_row")
    cols = [ColumnStatus(name=k, status=Status.PUBLIC_DECLARED if k in pub
                         else Status.PSEUDONYMISED, by="user" if k in pub else "keyed BLAKE2b "
                         "pseudonym") for k in _ID_KINDS]
    cols.append(ColumnStatus(name=_SERIES_TIME, status=Status.PUBLIC_DECLARED if _SERIES_TIME
                             in pub else Status.PUBLIC_BY_DESIGN, by="window grid",
                             note=f"j * {step:g} s from 0 per recording"))
    cols += [ColumnStatus(name=f, status=Status.PROTECTED, by=guarantee.mechanism,
                          epsilon_share=guarantee.epsilon) for f in features]
    cols += [ColumnStatus(name=c, status=Status.PUBLIC_DECLARED if c in pub
                          else Status.NOT_WRITTEN, by="user" if c in pub else "release schema")
             for c in labels]
    record = guarantee
    if record.per_participant is not None:
        record = replace(record, per_participant={ids["participant"].get(k, k): v for k, v in
                                                  record.per_participant.items()})
    return SealedRelease(table=out, guarantee=replace(record, columns=tuple(cols)),
                         id_map=_id_map(ids, pub))


# --------------------------------------------------------------------------- protect_file


def protect_file(in_path: str | Path, out_path: str | Path, *, mechanism: str,
                 params: Any = None, public: Iterable[str] = (),
                 pupil_epsilon: float | None = None, pupil_range: Sequence[float] | None = None,
                 id_map_path: str | Path | None = None, report_path: str | Path | None = None,
                 seed: int | None = None, time_unit: str = "s", geometry: Geometry | None = None,
                 progress: bool = False, ledger: Ledger | str | Path | None = None,
                 labels: Iterable[str] = (), xy_unit: str | None = None,
                 px_per_deg: float | None = None, input_format: str | None = None,
                 participant: str | None = None, **param_kwargs: Any) -> SealedRelease:
    """Read a long-format file, protect it with ``mechanism``, and write the sealed release.

    The library function behind ``gazeprivacy protect``: every privacy parameter comes from the
    caller (``params`` or keyword arguments); nothing is filled in here. Feature-series
    mechanisms read a feature table instead. One generator (``seed``, else OS entropy) drives the
    mechanism, then (spawned) the pseudonyms and the pupil noise.

    Parameters
    ----------
    in_path, out_path : path
        Input file (the long format, or an eye-tracker export: :mod:`gazeprivacy.data.readers`)
        and output file (``.csv``, ``.csv.gz`` or ``.parquet``); the record goes to
        ``OUT.guarantee.json`` and, for Parquet, into the file's metadata.
    mechanism : str
        A sample-level or feature-series name in ``MECHANISMS``.
    params : parameter object, optional
        The mechanism's ``*Params``; or give its fields as keyword arguments.
    public, pupil_epsilon, pupil_range
        As in :func:`seal`.
    id_map_path, report_path : path, optional
        Write the id map / the data holder's report there (only when given).
    seed : int, optional
        Research run (noted in the record); None draws OS entropy.
    time_unit : {"s", "ms", "us"}
        Unit of the input's ``t`` column.
    geometry : Geometry, optional
        Overrides the file's metadata.
    labels, xy_unit, px_per_deg, input_format, participant
        How the input is read (:func:`gazeprivacy.data.readers.read_input`): columns that are
        recording labels, the unit of x and y, pixels per degree, the input's format, the
        participant of a device export that names none.
    ledger : Ledger or path, optional
        Charge each participant in this privacy-budget ledger (:mod:`gazeprivacy.ledger`): the
        spend, from the data-free privacy map, is reserved before any work (refused past the
        ledger's cap) and committed with the output's SHA-256 after the write.

    Returns
    -------
    SealedRelease
        What was written, with the id map and report (which stay with the caller).

    Raises
    ------
    InvalidParameterError
        Unknown mechanism or parameter, a heatmap mechanism, or a sealing policy refusal.
    InvalidDataError
        The input cannot be read or breaks a data-model rule.
    LedgerError
        The ledger refuses the release (before any work) or cannot be used.
    """
    from gazeprivacy.mechanisms import MECHANISMS, build_params
    from gazeprivacy.mechanisms import protect as protect_dataset

    spec = MECHANISMS[mechanism]
    public = tuple(public)
    rng = make_rng(seed)
    mech_rng, seal_rng = rng.spawn(2)
    if spec.level is Level.SERIES:
        if pupil_epsilon is not None or pupil_range is not None:
            raise InvalidParameterError("pupil_epsilon applies to sample-level releases")
        return _protect_series_file(Path(in_path), Path(out_path), mechanism,
                                    build_params(mechanism, params, **param_kwargs),
                                    public=public, seed=seed, id_map_path=id_map_path,
                                    rngs=(mech_rng, seal_rng), ledger=ledger)
    if not spec.level.takes_samples:
        raise InvalidParameterError(
            f"{mechanism} is a {spec.level}-level mechanism; protect takes gaze samples or "
            "feature tables (heatmaps: use `gazeprivacy heatmap`)")
    from gazeprivacy.data.readers import read_input

    ds = read_input(in_path, input_format=input_format, time_unit=time_unit, geometry=geometry,
                    labels=tuple(labels), xy_unit=xy_unit, px_per_deg=px_per_deg,
                    participant=participant)
    entry = _ledger_reserve(ledger, mechanism, params, param_kwargs, ds, seed=seed,
                            pupil=(pupil_epsilon, pupil_range, public))
    with entry.guard():
        rel = protect_dataset(ds, mechanism=mechanism, params=params, rng=mech_rng,
                              progress=progress, **param_kwargs)
        rel = Release(rel.output, rel.guarantee.with_seed(seed))
        sealed = seal(rel, public=public, pupil_epsilon=pupil_epsilon, pupil_range=pupil_range,
                      source=ds, rng=seal_rng)
        entry.check(sealed.guarantee)
    write_sealed(sealed, out_path, id_map_path=id_map_path, report_path=report_path,
                 input_path=in_path)
    entry.commit(out_path)
    return sealed


def _protect_series_file(in_path: Path, out_path: Path, mechanism: str, params: Any, *,
                         public: Iterable[str], seed: int | None,
                         id_map_path: str | Path | None,
                         rngs: tuple[np.random.Generator, np.random.Generator],
                         ledger: Ledger | str | Path | None = None) -> SealedRelease:
    from gazeprivacy.mechanisms.series import protect_series

    try:
        table = (pl.read_parquet(in_path) if in_path.suffix in (".parquet", ".pq")
                 else pl.read_csv(in_path))
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise InvalidDataError(f"cannot read feature table {str(in_path)!r}: {exc}") from None
    entry = _ledger_reserve(ledger, mechanism, params, {}, table, seed=seed)
    with entry.guard():
        rel = protect_series(table, mechanism, params, rng=rngs[0])
        sealed = seal_series_table(rel.output, rel.guarantee.with_seed(seed), public=public,
                                   rng=rngs[1])
        entry.check(sealed.guarantee)
    write_sealed(sealed, out_path, id_map_path=id_map_path)
    entry.commit(out_path)
    return sealed


# ---------------------------------------------------------------------- ledger hook
# The privacy-budget ledger (gazeprivacy.ledger.Spend) around protect_file: reserve the spend
# from the data-free privacy map before any work, check the written record spends no more,
# commit after. A run that fails with an error before the write released nothing: its
# reservation is cancelled. A killed or interrupted run keeps it (the ledger cannot tell).


def _ledger_reserve(ledger: Ledger | str | Path | None, mechanism: str, params: Any,
                    param_kwargs: Mapping[str, Any], data: Any, *, seed: int | None,
                    pupil: tuple[Any, Any, Iterable[str]] = (None, None, ())) -> Spend:
    """Reserve the release's per-participant spend (privacy map on the public shape, plus the
    pupil budget) in ``ledger`` (nothing without a ledger)."""
    from gazeprivacy.ledger import Spend

    if ledger is None:
        return Spend(None, None)
    from gazeprivacy.mechanisms import MECHANISMS, build_params

    spec = MECHANISMS[mechanism]
    shape = spec.shape_of(data)
    g = spec.guarantee(build_params(mechanism, params, **param_kwargs), shape).with_seed(seed)
    recordings = getattr(shape, "recordings", ())
    participants = getattr(shape, "participants", None) or [r.participant for r in recordings]
    pupil_policy = _Pupil.check(g, pupil[0], pupil[1], frozenset(str(p) for p in pupil[2]))
    if pupil_policy is not None:
        blocks: dict[str, int] = {}
        for r in recordings:
            b = _block_samples(g, r.sampling_rate_hz)
            blocks[r.participant] = blocks.get(r.participant, 0) + -(-r.n_samples // b)
        g = pupil_policy.record(g, blocks)
    return Spend(ledger, g, participants=participants)
