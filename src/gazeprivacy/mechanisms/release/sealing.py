# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Sealing: what of a mechanism's in-memory release may leave the data holder.

:func:`seal` (sample-level releases), :func:`seal_series_table` (feature series), the
pseudonyms (:class:`Pseudonymiser`) and the per-run policy of partition-wise engines
(:class:`SealPolicy`). The policies are described in :mod:`gazeprivacy.mechanisms.release`.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy.data.recording import Dataset, Recording, adopt
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.guarantees import ColumnStatus, Guarantee, Release, Status
from gazeprivacy.mechanisms.release.pupil import (
    _BLOCKS_TOUCHED,
    _block_samples,
    _Pupil,
    protect_pupil,
)
from gazeprivacy.mechanisms.release.structure import (
    PublicStructure,
    check_synthetic_public,
    synthetic_population,
    synthetic_structure,
)

__all__ = [
    "PUBLIC_KEYWORDS",
    "TEST_ONLY_KEY_ENV",
    "Pseudonymiser",
    "SealPolicy",
    "SealedRelease",
    "merge_columns",
    "seal",
    "seal_series_table",
    "sealed_name_info",
]

#: Names that ``public`` accepts besides column and label names.
PUBLIC_KEYWORDS = ("participant", "recording", "t", "mask", "name", "info")
_ID_KINDS = ("participant", "recording")
_PREFIX = {"participant": "P", "recording": "R"}


#: Test-only: a 64-hex-digit (256-bit) pseudonym key that :class:`Pseudonymiser` uses instead of
#: OS entropy, so that two runs of ``scripts/release_hashes.py`` give equal hashes. Only that
#: script and tests set it; a release sealed under it is flagged not formally private.
TEST_ONLY_KEY_ENV = "GAZEPRIVACY_TEST_ONLY_PSEUDONYM_KEY"


class Pseudonymiser:
    """Random pseudonyms for ids: a keyed BLAKE2b hash under a 256-bit key.

    The key comes from OS entropy (:func:`secrets.token_bytes`), never from the release's
    generator: a research seed fixes the noise, not the pseudonyms. ``key`` (bytes, test-only:
    bit-equality and hash checks) or the environment variable :data:`TEST_ONLY_KEY_ENV` fix it;
    then :attr:`fixed` is True and the sealed record says the release is not formally private.

    One instance per release run; the same raw id always gets the same pseudonym within it (so
    partitions agree), and without the key a pseudonym says nothing of the raw id.

    >>> p = Pseudonymiser()
    >>> p("participant", "alice") == p("participant", "alice"), p("participant", "alice")[:2]
    (True, 'P-')
    >>> Pseudonymiser()("participant", "alice") == p("participant", "alice")  # a new key
    False
    """

    def __init__(self, key: bytes | None = None, *, fixed: bool | None = None) -> None:
        env = os.environ.get(TEST_ONLY_KEY_ENV)
        if key is None and env:
            try:
                key = bytes.fromhex(env.strip())
            except ValueError:
                key = b""
            if len(key) != 32:
                raise InvalidParameterError(f"{TEST_ONLY_KEY_ENV} (test-only) must be 64 hex "
                                            "digits (a 256-bit key)")
        if key is not None and (not isinstance(key, bytes) or not 16 <= len(key) <= 64):
            raise InvalidParameterError("pseudonym_key (test-only) must be 16 to 64 bytes, got "
                                        f"{type(key).__name__}")
        self.fixed = (key is not None) if fixed is None else bool(fixed)
        self._key = key if key is not None else secrets.token_bytes(32)

    @property
    def key(self) -> bytes:
        """The key (kept by the run; never written)."""
        return self._key

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

    A sample-level release's ``table`` is built from ``dataset`` on first use (its float
    columns are the sealed recordings' own arrays, not a copy), so that a caller that drops the
    mechanism's input before writing never holds both; a feature-series release
    gives its table (``_table``).
    """

    guarantee: Guarantee
    id_map: pl.DataFrame
    report: Mapping[str, Any] = field(default_factory=dict)
    dataset: Dataset | None = None
    _table: pl.DataFrame | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self._table is None and self.dataset is None:
            raise InvalidParameterError("a sealed release needs its table or its dataset")

    @property
    def table(self) -> pl.DataFrame:
        """The release as written (built from ``dataset`` on first use)."""
        if self._table is None:
            assert self.dataset is not None  # (__post_init__)
            object.__setattr__(self, "_table", self.dataset.to_table(chunks=True))
        return self._table


# -------------------------------------------------------------------------------------- seal


def seal(release: Release[Dataset], *, public: Iterable[str] = (),
         pupil_epsilon: float | None = None, pupil_range: Sequence[float] | None = None,
         source: Dataset | None = None, rng: np.random.Generator,
         pseudonymiser: Pseudonymiser | None = None,
         pseudonym_key: bytes | None = None) -> SealedRelease:
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
        Draws the pupil noise (the pseudonym key always comes from OS entropy).
    pseudonymiser : Pseudonymiser, optional
        Share one across partitions of a run (default: a new one, key from OS entropy).
    pseudonym_key : bytes, optional
        Test-only: a fixed pseudonym key (bit-equality and hash checks); the record then says
        the release is not formally private.

    Raises
    ------
    InvalidParameterError
        An unknown public name, a bad pupil policy, or NaN rows that would release an
        undeclared mask.

    Examples
    --------
    >>> from gazeprivacy.mechanisms import protect
    >>> from gazeprivacy.data.geometry import Geometry
    >>> rec = Recording.from_arrays(recording="r1", participant="alice", x=np.zeros(100),
    ...     y=np.zeros(100), sampling_rate_hz=100, labels={"gender": "f"},
    ...     geometry=Geometry(x_min_deg=-5, x_max_deg=5, y_min_deg=-5, y_max_deg=5))
    >>> rel = protect(Dataset((rec,)), mechanism="kaleido", epsilon=1.0, radius_deg=1.0,
    ...               window_samples=50, seed=0)
    >>> sealed = seal(rel, rng=np.random.default_rng(1))
    >>> sealed.guarantee.formally_private
    True
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
    structure = PublicStructure.of(g)
    if synthetic_population(g):
        check_synthetic_public(g, public, pupil_epsilon)
        # R recordings per participant *per public label value*: its record entry says so
        structure = replace(structure, recordings_per_participant=None)
    structure.check(out, source, g, public)
    pub = _check_public(out, public)
    pupil = _Pupil.check(g, pupil_epsilon, pupil_range, pub)
    if pupil is not None and any(r.pupil is None for r in out):
        raise InvalidDataError("pupil_epsilon is given but some recordings have no pupil column")
    pseudo = pseudonymiser or Pseudonymiser(pseudonym_key)
    ids = {kind: {raw: (raw if kind in pub else pseudo(kind, raw))
                  for raw in dict.fromkeys(getattr(r, kind) for r in out)} for kind in _ID_KINDS}
    if any(len(set(m.values())) != len(m) for m in ids.values()):  # 64-bit digests: ~never
        raise InvalidDataError("two ids got the same pseudonym; seal again (a new key)")
    mask = _mask_status(out, source, pub, g)
    pupil_rngs = rng.spawn(len(out))
    grid = _public_grids(out, ids, pub)
    recs, blocks = [], {}
    for r, child, t in zip(out, pupil_rngs, grid, strict=True):
        values = None
        if pupil is not None:
            b = _block_samples(g, r.sampling_rate_hz)
            values = protect_pupil(r.pupil, block_samples=b,
                                   epsilon_per_block=pupil.epsilon / _BLOCKS_TOUCHED[g.unit],
                                   pupil_range=(pupil.lo, pupil.hi), rng=child)
            blocks[r.participant] = blocks.get(r.participant, 0) + -(-r.n_samples // b)
        recs.append(_seal_recording(r, ids, pub, values, t))
    recs.sort(key=lambda r: (r.participant, r.recording))
    report = _report(out, source, g)
    info = {k: v for k, v in (source.info if source is not None else out.info).items()
            if k not in report} if "info" in pub else {}
    # the input's column order and dtypes (an integer label is written as an integer again)
    schema = source.schema if source is not None and source.schema is not None else out.schema
    dataset = Dataset(tuple(recs), name=out.name if "name" in pub else "release", info=info,
                      schema=schema)
    record = pupil.record(g, blocks) if pupil is not None else g
    record = _public_rate(record, dataset).as_seeded_release(
        False, pseudonym_key=pseudo.fixed and not {"participant", "recording"} <= pub)
    if record.per_participant is not None:
        record = replace(record, per_participant={
            ids["participant"].get(k, k): v
            for k, v in sorted(record.per_participant.items(),
                               key=lambda kv: ids["participant"].get(kv[0], kv[0]))})
    # the input's columns (a release at a public length carries none of its per-row ones)
    cols = _columns(source if source is not None else out, dataset, g, pub, pupil, mask,
                    structure)
    return SealedRelease(dataset=dataset,
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


def _public_grids(out: Dataset, ids: Mapping[str, Mapping[str, str]], pub: frozenset[str]
                  ) -> list[np.ndarray | None]:
    """Per recording of ``out``, its public time grid ``i / sampling_rate_hz`` (None where the
    raw clock is public): read-only slices of one array, in the sealed order, so that the
    release table's ``t`` column is that array itself rather than a second copy of every
    grid (``Dataset.to_table`` takes consecutive slices of one array uncopied)."""
    if "t" in pub:
        return [None] * len(out)
    order = sorted(range(len(out)), key=lambda i: (ids["participant"][out[i].participant],
                                                   ids["recording"][out[i].recording]))
    whole = np.empty(sum(r.n_samples for r in out))
    grids: list[np.ndarray | None] = [None] * len(out)
    a = 0
    for i in order:
        r = out[i]
        # the same operation as Recording's own grid (np.arange(n) / rate), written in place
        grids[i] = np.divide(np.arange(r.n_samples), r.sampling_rate_hz,
                             out=whole[a:a + r.n_samples])
        a += r.n_samples
    whole.setflags(write=False)
    return grids


def _seal_recording(r: Recording, ids: Mapping[str, Mapping[str, str]], pub: frozenset[str],
                    pupil: np.ndarray | None, grid: np.ndarray | None = None) -> Recording:
    # t: the raw clock if public, else the public grid i / sampling_rate_hz (``grid``, or None:
    # the recording makes it)
    t = r.t if "t" in pub else grid
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
                f"{g.mechanism} releases the missing-sample mask (its record: the mask is public "
                f"under missing={str(g.parameters.get('missing'))!r}) and the input has gaps; "
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


def _public_rate(g: Guarantee, released: Dataset) -> Guarantee:
    """The record's ``sampling_rate_hz``: the one rate of every released recording, or absent
    when they differ (each recording's own rate is in its metadata); never the first input
    recording's, which would hint at the input's order."""
    if "sampling_rate_hz" not in g.parameters:
        return g
    rates = sorted({float(r.sampling_rate_hz) for r in released})
    params = {k: v for k, v in g.parameters.items() if k != "sampling_rate_hz"}
    if len(rates) == 1:
        params["sampling_rate_hz"] = rates[0]
    return replace(g, parameters=params)


def _id_map(ids: Mapping[str, Mapping[str, str]], pub: frozenset[str]) -> pl.DataFrame:
    rows = [(kind, pseudo, raw) for kind in _ID_KINDS if kind not in pub
            for raw, pseudo in ids[kind].items()]
    return pl.DataFrame(rows, schema={"kind": pl.String, "pseudonym": pl.String,
                                      "raw": pl.String}, orient="row").sort("pseudonym")


def _columns(source: Dataset, sealed: Dataset, g: Guarantee, pub: frozenset[str],
             pupil: _Pupil | None, mask: ColumnStatus,
             structure: PublicStructure) -> tuple[ColumnStatus, ...]:
    def declared(name: str) -> ColumnStatus:
        return ColumnStatus(name=name, status=Status.PUBLIC_DECLARED, by="user",
                            note="copied as is: declared public")

    cols = []
    for kind in _ID_KINDS:
        cols.append(declared(kind) if kind in pub else ColumnStatus(
            name=kind, status=Status.PSEUDONYMISED, by="keyed BLAKE2b pseudonym",
            note="key drawn once per release from OS entropy; map only in the id map; "
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
    cols.extend(synthetic_structure(g) if synthetic_population(g) else structure.columns(g))
    cols.append(ColumnStatus(name="sampling_rate_hz", status=Status.PUBLIC_BY_DESIGN,
                             by="metadata", note="each recording's own nominal rate, as its "
                                                 "Recording carries it (the record names one "
                                                 "rate only when every recording has it)"))
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

    ``key`` (256 bits from OS entropy, drawn once per run; fixed only by the test-only
    ``pseudonym_key``) keys the pseudonyms, so every partition and worker maps an id to the same
    pseudonym. ``entropy`` (OS entropy, or derived from a research seed) seeds each partition's
    own sealing generator (pupil noise): a seed fixes the noise, never the pseudonyms.
    """

    public: tuple[str, ...] = ()
    pupil_epsilon: float | None = None
    pupil_range: tuple[float, float] | None = None
    entropy: int = 0
    key: bytes = b""
    key_fixed: bool = False

    def __post_init__(self) -> None:
        if not self.key:  # made directly, not by create(): one OS-entropy key for the run
            object.__setattr__(self, "key", Pseudonymiser().key)

    @classmethod
    def create(cls, *, seed: int | None = None, public: Iterable[str] = (),
               pupil_epsilon: float | None = None,
               pupil_range: Sequence[float] | None = None,
               pseudonym_key: bytes | None = None) -> SealPolicy:
        ss = np.random.SeedSequence(None if seed is None else [int(seed), 0x5EA1])
        entropy = int.from_bytes(ss.generate_state(4, np.uint64).tobytes(), "little")
        pseudo = Pseudonymiser(pseudonym_key)
        return cls(public=tuple(public), pupil_epsilon=pupil_epsilon,
                   pupil_range=None if pupil_range is None else tuple(pupil_range),
                   entropy=entropy, key=pseudo.key, key_fixed=pseudo.fixed)

    @property
    def pseudonymiser(self) -> Pseudonymiser:
        return Pseudonymiser(self.key, fixed=self.key_fixed)

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


# ------------------------------------------------------------------------- feature series


_SERIES_TIME = "t_start"


def seal_series_table(table: pl.DataFrame, guarantee: Guarantee, *, public: Iterable[str] = (),
                      rng: np.random.Generator | None = None,
                      pseudonym_key: bytes | None = None) -> SealedRelease:
    """Seal a protected feature-series table (``participant, recording, t_start``, features,
    labels): the numeric feature columns are the mechanism's output; ids are pseudonymised;
    ``t_start`` becomes the window grid ``j * step`` (step: the table's median window step,
    rounded to 1 ms, a public design parameter) unless declared public; string labels only
    when declared public. The pseudonym key comes from OS entropy (``rng`` is accepted for
    compatibility and draws nothing); ``pseudonym_key`` is the test-only fixed key.
    """
    del rng
    pub = frozenset(public)
    features = [c for c, dt in table.schema.items()
                if dt.is_numeric() and c not in (_SERIES_TIME, *_ID_KINDS)]
    labels = [c for c in table.columns if c not in (*_ID_KINDS, _SERIES_TIME, *features)]
    unknown = sorted(pub - set(labels) - {*_ID_KINDS, _SERIES_TIME, "name", "info"})
    if unknown:
        raise InvalidParameterError(f"public names {', '.join(unknown)} are not label columns of "
                                    f"the feature table; valid: {', '.join(labels)}")
    pseudo = Pseudonymiser(pseudonym_key)
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
    record = guarantee.as_seeded_release(
        False, pseudonym_key=pseudo.fixed and not {"participant", "recording"} <= pub)
    if record.per_participant is not None:
        record = replace(record, per_participant={ids["participant"].get(k, k): v for k, v in
                                                  record.per_participant.items()})
    return SealedRelease(_table=out, guarantee=replace(record, columns=tuple(cols)),
                         id_map=_id_map(ids, pub))

