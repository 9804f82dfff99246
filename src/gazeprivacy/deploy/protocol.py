# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth as a client / curator protocol: the versioned wire message of one device.

The mechanism is :mod:`gazeprivacy.mechanisms.samples.dpgazesynth` (event-level epsilon-LDP per
window; Ren, Fan et al., seed 000 section 4; see docs/privacy/dpgazesynth.md), cut where a
deployment cuts it: a **device** runs the client step on its own gaze
(:func:`~gazeprivacy.mechanisms.samples.dpgazesynth.protocol_phases.client_message`, with the
:class:`~gazeprivacy.mechanisms.samples.dpgazesynth.protocol_phases.Announcement` and the
:class:`~gazeprivacy.mechanisms.samples.dpgazesynth.protocol_phases.ClientMessage`: the
mechanism's side) and sends one message (:func:`encode_client_message`, this module: the wire
format); the **curator** decodes and validates any number of them
(:func:`decode_client_message`), estimates the transition model (:func:`curate_messages`) and
synthesises every device's rows (:func:`curator_release`).

What a message holds (and so what the curator learns; the device's raw gaze never leaves it):

* the **announcement** (:class:`Announcement`, public): epsilon and split, grid ``G``, window
  length and ``W``, sampling rate, radius ``r``, screen bounds, mode, transitions mode,
  missing-sample policy and OUE path, and the protocol version;
* the **public shape**: recording and participant ids (who reported; not protected by LDP, the
  sealed writer pseudonymises them), the row count of each recording, and -- only under
  ``missing="keep"``, whose record says the mask is released -- the missing rows as gap
  intervals (start row, length) over the concatenated recordings. Under ``missing="fill"``
  every row is synthesised and no gap is sent;
* the **randomised report** per window: the noisy start cell (eps1; -1 for a window without
  valid rows), the noisy run lengths (eps2; they sum to the window's valid rows), and the OUE
  reports (eps3): either every report itself (``oue_path="client-reports"``, the deployment
  path) as a packed bitmap of the domain ``8 G^2 + 1`` with the number of reports per window,
  or (``"curator-view"``) the device's column sums and report count, which is post-processing
  of those reports and exact in distribution.

Wire format: a 32-byte frame (magic ``GPDGSYN\\0``, format version, payload length, BLAKE2b-128
digest of the payload) around an Arrow IPC stream of one record batch with one row of list
columns (:data:`SCHEMA`); the schema metadata carries the protocol name, its version and the
announcement as JSON. Arrow rather than a JSON schema: the reports are a few hundred kilobytes of
bits per second of gaze under ``transitions="all"``, which JSON would inflate by 4-8 x, and the
Arrow schema is checked field by field. The digest only detects corruption and truncation (it is
not authentication); a well-formed but inconsistent message is refused by the checks of
:func:`validate_message`. An OUE report is sent dense (1 bit per domain entry) rather than as the
sparse list of its 1 bits: with ``q`` near 1/2 (``eps3 / (W - 1)`` is small) about half of the
``8 G^2 + 1`` bits are 1, so indices would cost 16-32 x more.

Every refusal is an :class:`~gazeprivacy.exceptions.InvalidDataError` that names the message.
"""

from __future__ import annotations

import hashlib
import json
import struct
import warnings
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from gazeprivacy._atomic import Output, atomic_files, check_outputs
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import (
    InvalidDataError,
    InvalidParameterError,
    NotFormallyPrivateWarning,
)
from gazeprivacy.guarantees import Guarantee, Release
from gazeprivacy.mechanisms.contract import SampleShape
from gazeprivacy.mechanisms.samples.dpgazesynth import (
    DPGazeSynthParams,
    TransitionModel,
    curate,
    shape_guarantee,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.protocol_phases import (
    Announcement,
    ClientMessage,
    announcement_diff,
    client_message,
    synthesise_message,
)

__all__ = [
    "MAGIC",
    "PROTOCOL",
    "SCHEMA",
    "VERSION",
    "client_file",
    "curate_messages",
    "curator_files",
    "curator_release",
    "decode_client_message",
    "encode_client_message",
    "validate_message",
]

PROTOCOL = "gazeprivacy/dpgazesynth-client-message"
#: Version of the message format (frame, schema and announcement keys).
VERSION = 1
MAGIC = b"GPDGSYN\x00"
_FRAME = struct.Struct("<8sH6sQ")  # magic, version, reserved (zero), payload length: 24 bytes
_RESERVED = bytes(6)
_DIGEST = 16
_HEADER = _FRAME.size + _DIGEST


SCHEMA = pa.schema([
    ("recording", pa.list_(pa.string())),
    ("participant", pa.list_(pa.string())),
    ("n_samples", pa.list_(pa.int64())),
    ("gap_start", pa.list_(pa.int64())),
    ("gap_length", pa.list_(pa.int64())),
    ("start_cell", pa.list_(pa.int32())),
    ("runs_per_window", pa.list_(pa.uint16())),
    ("run_length", pa.list_(pa.uint16())),
    ("reports_per_window", pa.list_(pa.uint16())),
    ("oue_bits", pa.large_binary()),
    ("oue_sums", pa.list_(pa.uint32())),
    ("oue_n", pa.int64()),
])
"""The Arrow schema of a message, version 1 (one row; the metadata is added per message)."""


# --------------------------------------------------------------------------------------------
# wire format
# --------------------------------------------------------------------------------------------


def encode_client_message(message: ClientMessage) -> bytes:
    """The message's bytes: frame + Arrow IPC stream (see the module docstring).

    >>> from gazeprivacy.data import Recording
    >>> geo = Geometry(x_min_deg=0, x_max_deg=10, y_min_deg=0, y_max_deg=10)
    >>> rec = Recording.from_arrays(recording="r", participant="p", x=np.linspace(1, 9, 200),
    ...                             y=np.full(200, 5.0), sampling_rate_hz=200, geometry=geo)
    >>> msg = client_message(rec, DPGazeSynthParams(epsilon=2.0, grid_size=10),
    ...                      rng=np.random.default_rng(0))
    >>> back = decode_client_message(encode_client_message(msg))
    >>> back.recordings, bool((back.run_length == msg.run_length).all())
    (('r',), True)
    """
    m = message
    bits = None if m.oue_bits is None else m.oue_bits.tobytes()
    cols = [
        pa.array([list(m.recordings)], pa.list_(pa.string())),
        pa.array([list(m.participants)], pa.list_(pa.string())),
        *(_list(v, pa.int64()) for v in (m.n_samples, m.gap_start, m.gap_length)),
        _list(m.start_cell, pa.int32()),
        _list(m.runs_per_window, pa.uint16()),
        _list(m.run_length, pa.uint16()),
        _list(m.reports_per_window, pa.uint16()),
        pa.array([bits], pa.large_binary()),
        _list(m.oue_sums, pa.uint32()),
        pa.array([int(m.oue_n)], pa.int64()),
    ]
    meta = {"protocol": PROTOCOL, "version": str(VERSION),
            "announcement": json.dumps(m.announcement.to_dict(), sort_keys=True)}
    schema = SCHEMA.with_metadata(meta)
    batch = pa.RecordBatch.from_arrays(cols, schema=schema)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, schema) as writer:
        writer.write_batch(batch)
    payload = sink.getvalue().to_pybytes()
    return (_FRAME.pack(MAGIC, VERSION, _RESERVED, len(payload))
            + hashlib.blake2b(payload, digest_size=_DIGEST).digest() + payload)


def _list(values: np.ndarray | None, typ: Any) -> Any:
    if values is None:
        return pa.array([None], pa.list_(typ))
    flat = pa.array(np.ascontiguousarray(values).ravel(), typ)
    return pa.ListArray.from_arrays(pa.array([0, len(flat)], pa.int32()), flat)


def decode_client_message(data: bytes, *, name: str = "message",
                          announced: Announcement | None = None) -> ClientMessage:
    """Parse and validate one device's message (:func:`validate_message`).

    Parameters
    ----------
    data : bytes
    name : str
        How errors name the message (e.g. its file).
    announced : Announcement, optional
        The curator's announcement; the message's must equal it.

    Raises
    ------
    InvalidDataError
        Corrupt, truncated, of another protocol or version, of another schema, with other
        parameters than announced, or inconsistent; the message says which and names ``name``.
    """
    try:
        return validate_message(_parse(bytes(data)), announced=announced)
    except InvalidDataError as exc:
        raise InvalidDataError(f"client message {name!r} refused: {exc}") from None


def _parse(data: bytes) -> ClientMessage:
    if len(data) < _HEADER:
        raise InvalidDataError(f"{len(data)} bytes is shorter than the {_HEADER}-byte frame")
    magic, version, reserved, length = _FRAME.unpack_from(data)
    if magic != MAGIC:
        raise InvalidDataError(f"not a DPGazeSynth client message (magic {magic!r})")
    if version != VERSION:
        raise InvalidDataError(f"message format version {version}; this curator reads "
                               f"version {VERSION}")
    if reserved != _RESERVED:
        raise InvalidDataError(f"reserved frame bytes must be zero, got {reserved.hex()}")
    payload = data[_HEADER:]
    if len(payload) != length:
        raise InvalidDataError(f"payload has {len(payload)} bytes, the frame says {length} "
                               "(truncated or padded)")
    if hashlib.blake2b(payload, digest_size=_DIGEST).digest() != data[_FRAME.size:_HEADER]:
        raise InvalidDataError("payload digest mismatch (corrupted in transit or storage)")
    try:
        with pa.ipc.open_stream(pa.py_buffer(payload)) as reader:
            schema = reader.schema
            table = reader.read_all()
        table.validate(full=True)
    except (pa.ArrowException, ValueError, OSError, EOFError, IndexError) as exc:
        raise InvalidDataError(f"payload is not a readable Arrow IPC stream ({exc})") from None
    return _from_table(table, schema)


def _from_table(table: Any, schema: Any) -> ClientMessage:
    meta = {k.decode(errors="replace"): v.decode(errors="replace")
            for k, v in (schema.metadata or {}).items()}
    if meta.get("protocol") != PROTOCOL:
        raise InvalidDataError(f"schema metadata names protocol {meta.get('protocol')!r}, "
                               f"expected {PROTOCOL!r}")
    if meta.get("version") != str(VERSION):
        raise InvalidDataError(f"schema version {meta.get('version')!r}, expected {VERSION}")
    if not schema.remove_metadata().equals(SCHEMA):
        raise InvalidDataError(f"schema differs from version {VERSION}'s: got {schema}")
    if table.num_rows != 1:
        raise InvalidDataError(f"a message has one row, got {table.num_rows}")
    try:
        announcement = Announcement.from_dict(json.loads(meta.get("announcement", "")))
    except json.JSONDecodeError as exc:
        raise InvalidDataError(f"announcement is not JSON ({exc})") from None
    row = {c: table.column(c)[0] for c in table.column_names}

    def arr(col: str, dtype: Any) -> np.ndarray | None:
        v = row[col]
        return None if not v.is_valid else v.values.to_numpy(zero_copy_only=False).astype(dtype)

    def ids(col: str) -> tuple[str, ...]:
        v = row[col]
        if not v.is_valid or v.values.null_count:
            raise InvalidDataError(f"{col} ids must be non-null strings")
        return tuple(v.values.to_pylist())

    bits = row["oue_bits"].as_py() if row["oue_bits"].is_valid else None
    if bits is not None and len(bits) % announcement.report_bytes:
        raise InvalidDataError(f"oue_bits has {len(bits)} bytes, not a multiple of the report "
                               f"size {announcement.report_bytes}")
    required = ("n_samples", "gap_start", "gap_length", "start_cell", "runs_per_window",
                "run_length")
    missing = [c for c in required if not row[c].is_valid]
    if missing or not row["oue_n"].is_valid:
        raise InvalidDataError(f"null columns: {', '.join(missing) or 'oue_n'}")
    return ClientMessage(
        announcement=announcement, recordings=ids("recording"),
        participants=ids("participant"),
        **{c: arr(c, np.int64) for c in required},
        reports_per_window=arr("reports_per_window", np.int64),
        oue_bits=None if bits is None else np.frombuffer(bits, np.uint8).reshape(
            -1, announcement.report_bytes),
        oue_sums=arr("oue_sums", np.int64), oue_n=int(row["oue_n"].as_py()))


# --------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------


def validate_message(message: ClientMessage, *, announced: Announcement | None = None
                     ) -> ClientMessage:
    """Check a message against its announcement (and ``announced``); return it unchanged.

    Checks: the parameters equal the announced ones; ids, row counts and the number of windows
    (``ceil(rows / W)`` per recording); gap intervals sorted, disjoint, within the rows, and
    none under ``missing="fill"``; a start cell in ``[0, G^2)`` exactly for the windows with
    valid rows (-1 otherwise); run lengths > 0 summing to each window's valid rows; the OUE part
    of the announced path, with the number of reports each window must send (``W_v - 1`` in
    sound mode, at most that in paper mode, one per window with >= 2 valid rows under
    ``one-per-window``), no bit set outside the domain, column sums within ``[0, n]``.

    Raises
    ------
    InvalidDataError
        The first failed check, named.
    """
    m, a = message, message.announcement
    if announced is not None and a != announced:
        raise InvalidDataError("parameters differ from the announced ones: "
                               f"{announcement_diff(a, announced)}")
    _check_shape(m, a)
    _, n_valid = m.window_layout()
    _check_runs(m, a, n_valid)
    _check_oue(m, a, n_valid)
    return m


def _check_shape(m: ClientMessage, a: Announcement) -> None:
    k = len(m.recordings)
    if k == 0 or len(m.participants) != k or m.n_samples.shape != (k,):
        raise InvalidDataError(f"{k} recording ids, {len(m.participants)} participant ids and "
                               f"{m.n_samples.size} row counts: need one of each per recording")
    if any(not r for r in (*m.recordings, *m.participants)):
        raise InvalidDataError("recording and participant ids must be non-empty")
    if len(set(m.recordings)) != k:
        raise InvalidDataError("recording ids repeat within the message")
    if m.n_samples.min() < 1:
        raise InvalidDataError(f"row counts must be >= 1, got {m.n_samples.min()}")
    w = a.window_samples
    n_windows = sum(-(-int(n) // w) for n in m.n_samples)
    if m.start_cell.size != n_windows or m.runs_per_window.size != n_windows:
        raise InvalidDataError(
            f"{n_windows} windows of W = {w} in {int(m.n_samples.sum())} rows, but "
            f"{m.start_cell.size} start cells and {m.runs_per_window.size} run counts")
    start, length = m.gap_start, m.gap_length
    if start.shape != length.shape:
        raise InvalidDataError(f"{start.size} gap starts but {length.size} gap lengths")
    if a.missing == "fill" and start.size:
        raise InvalidDataError("missing='fill' synthesises every row: the message must not "
                               f"carry gaps, got {start.size}")
    total = int(m.n_samples.sum())  # < 2^63: the window count bounds every row count
    if start.size:
        if length.min() < 1 or start.min() < 0 or length.max() > total or start.max() >= total:
            raise InvalidDataError(f"gaps must lie within the {total} rows")
        end = start + length
        if end[-1] > total or (start[1:] <= end[:-1]).any():
            raise InvalidDataError("gaps must be sorted, disjoint, non-adjacent intervals of "
                                   ">= 1 row within the recordings' rows")


def _check_runs(m: ClientMessage, a: Announcement, n_valid: np.ndarray) -> None:
    g2 = a.grid_size ** 2
    has = n_valid > 0
    cell = m.start_cell
    if (cell[~has] != -1).any() or (cell[has] < 0).any() or (cell[has] >= g2).any():
        raise InvalidDataError(f"start cells must be in [0, {g2}) for windows with valid rows "
                               "and -1 for windows without")
    runs = m.runs_per_window
    if ((runs > 0) != has).any() or (runs > n_valid).any():
        raise InvalidDataError("every window with valid rows has between 1 and its valid rows "
                               "runs, a window without none")
    if int(runs.sum()) != m.run_length.size:
        raise InvalidDataError(f"run counts add up to {int(runs.sum())}, but the message has "
                               f"{m.run_length.size} run lengths")
    if m.run_length.size and m.run_length.min() < 1:
        raise InvalidDataError("run lengths must be >= 1")
    per = np.bincount(np.repeat(np.arange(runs.size), runs), weights=m.run_length,
                      minlength=runs.size)
    bad = np.flatnonzero(per != n_valid)
    if bad.size:
        i = int(bad[0])
        raise InvalidDataError(f"run lengths of window {i} sum to {int(per[i])}, its valid rows "
                               f"are {int(n_valid[i])} ({bad.size} such windows)")


def _check_oue(m: ClientMessage, a: Announcement, n_valid: np.ndarray) -> None:
    if a.transitions == "one-per-window":
        need, exact = (n_valid >= 2).astype(np.int64), True
    else:
        need, exact = np.clip(n_valid - 1, 0, None), a.mode == "sound"
    reports = a.oue_path == "client-reports"
    if reports != (m.oue_bits is not None) or reports != (m.reports_per_window is not None) \
            or reports == (m.oue_sums is not None):
        raise InvalidDataError(f"oue_path={a.oue_path!r} sends "
                               + ("reports_per_window and oue_bits" if reports else "oue_sums")
                               + " and nothing else of the OUE part")
    if m.oue_n < 0 or m.oue_n > int(need.sum()) or (exact and m.oue_n != int(need.sum())):
        raise InvalidDataError(f"{m.oue_n} OUE reports; the windows' valid rows call for "
                               f"{'exactly' if exact else 'at most'} {int(need.sum())}")
    if reports:
        per, bits = m.reports_per_window, m.oue_bits
        if per.size != n_valid.size or (per > need).any() or (exact and (per != need).any()):
            raise InvalidDataError(
                f"reports per window must be {'' if exact else 'at most '}"
                + ("1 per window with >= 2 valid rows" if a.transitions == "one-per-window"
                   else "the window's valid rows - 1"))
        if int(per.sum()) != m.oue_n or bits.shape[0] != m.oue_n:
            raise InvalidDataError(f"{bits.shape[0]} OUE reports sent, {int(per.sum())} counted "
                                   f"per window, oue_n = {m.oue_n}")
        spare = a.domain_size % 8
        if spare and bits.size and (bits[:, -1] >> spare).any():
            raise InvalidDataError(f"an OUE report sets a bit outside the domain "
                                   f"[0, {a.domain_size})")
    else:
        s = m.oue_sums
        if s.shape != (a.domain_size,) or (s.size and (s.min() < 0 or s.max() > m.oue_n)):
            raise InvalidDataError(f"oue_sums must be {a.domain_size} counts in [0, "
                                   f"{m.oue_n}]")


# --------------------------------------------------------------------------------------------
# curator
# --------------------------------------------------------------------------------------------


def _load(messages: Sequence[ClientMessage | bytes], announced: Announcement | None,
          names: Sequence[str] | None) -> tuple[list[ClientMessage], Announcement]:
    if not messages:
        raise InvalidDataError("the curator got no client messages")
    names = list(names) if names is not None else [f"#{i}" for i in range(len(messages))]
    if len(names) != len(messages):
        raise InvalidParameterError(f"{len(names)} names for {len(messages)} messages")
    out: list[ClientMessage] = []
    owner: dict[str, str] = {}
    for msg, name in zip(messages, names, strict=True):
        if isinstance(msg, ClientMessage):
            try:
                m = validate_message(msg, announced=announced)
            except InvalidDataError as exc:
                raise InvalidDataError(f"client message {name!r} refused: {exc}") from None
        else:
            m = decode_client_message(msg, name=name, announced=announced)
        announced = announced or m.announcement
        for r in m.recordings:
            if r in owner:
                raise InvalidDataError(f"client message {name!r} refused: recording {r!r} was "
                                       f"already reported by message {owner[r]!r}")
            owner[r] = name
        out.append(m)
    assert announced is not None
    return out, announced


def curate_messages(messages: Sequence[ClientMessage | bytes], *,
                    announced: Announcement | None = None,
                    names: Sequence[str] | None = None) -> TransitionModel:
    """The curator's transition model from validated device messages.

    The messages' OUE column sums are reduced exactly as the partition phases' messages
    (:func:`~gazeprivacy.mechanisms.samples.dpgazesynth.curate`). Without ``announced``, the
    first message's announcement is the one every other message must equal.

    Raises
    ------
    InvalidDataError
        No messages, a refused message (named), or a recording reported twice.
    """
    msgs, a = _load(messages, announced, names)
    return curate([m.column_sums() for m in msgs], a.params())


def curator_release(messages: Sequence[ClientMessage | bytes], *, rng: np.random.Generator,
                    announced: Announcement | None = None,
                    names: Sequence[str] | None = None) -> Release[Dataset]:
    """The curator's whole step: validate, estimate the model, synthesise every device.

    ``rng`` is spawned into one stream per message, in order. The record is the mechanism's
    privacy map of the reported public shape (per window, composed per participant over all
    messages).

    Examples
    --------
    >>> from gazeprivacy.data import Recording
    >>> geo = Geometry(x_min_deg=0, x_max_deg=10, y_min_deg=0, y_max_deg=10)
    >>> recs = [Recording.from_arrays(recording=f"r{i}", participant=f"p{i}",
    ...         x=np.linspace(1, 9, 200), y=np.full(200, 5.0), sampling_rate_hz=200,
    ...         geometry=geo) for i in range(2)]
    >>> p = DPGazeSynthParams(epsilon=2.0, grid_size=10)
    >>> wire = [encode_client_message(client_message(r, p, rng=np.random.default_rng(i)))
    ...         for i, r in enumerate(recs)]
    >>> rel = curator_release(wire, rng=np.random.default_rng(7))
    >>> [r.n_samples for r in rel.output], rel.guarantee.per_participant["p1"].epsilon
    ([200, 200], 4.0)
    """
    msgs, a = _load(messages, announced, names)
    params = a.params()
    if params.mode == "paper":
        warnings.warn("DPGazeSynth paper mode releases the number of runs per window; see the "
                      "guarantee's flags", NotFormallyPrivateWarning, stacklevel=2)
    model = curate([m.column_sums() for m in msgs], params)
    rngs = rng.spawn(len(msgs))
    out = [r for m, g in zip(msgs, rngs, strict=True)
           for r in synthesise_message(m, model, rng=g)]
    shape = SampleShape(tuple(r for m in msgs for r in m.shape().recordings))
    record = shape_guarantee(params, shape)
    return Release(Dataset(tuple(out), name="curator"), _protocol_note(record, len(msgs)))


def _protocol_note(record: Guarantee, n: int) -> Guarantee:
    return replace(record, notes=(*record.notes, (
        f"run as the client / curator protocol (message version {VERSION}): {n} device "
        "message(s), each randomised on its device; the curator saw only the announced "
        "parameters, ids, row counts" + (", gap intervals" if record.parameters.get("missing")
                                         == "keep" else "")
        + " and the noisy reports")))


# --------------------------------------------------------------------------------------------
# files (behind `gazeprivacy client` / `gazeprivacy curator`)
# --------------------------------------------------------------------------------------------


def client_file(in_path: str | Path, out_path: str | Path, params: DPGazeSynthParams, *,
                seed: int | None = None, time_unit: str = "s",
                geometry: Geometry | None = None, overwrite: bool = False) -> ClientMessage:
    """A device's step on a data file: read its recordings (one sampling rate), write the
    encoded :class:`ClientMessage` to ``out_path`` (checked first, never the input, an existing
    file only with ``overwrite``; written beside, then renamed). Without ``seed`` the noise comes
    from OS entropy.

    Raises
    ------
    InvalidParameterError
        Recordings at several sampling rates, or no screen bounds.
    InvalidDataError
        The file cannot be read.
    """
    from gazeprivacy.data.io import read_dataset
    from gazeprivacy.rng import make_rng

    check_outputs([Output(out_path, "out_path")], inputs=[in_path], overwrite=overwrite)
    ds = read_dataset(in_path, time_unit=time_unit, geometry=geometry)
    msg = client_message(ds.recordings, params, rng=make_rng(seed))
    with atomic_files(out_path) as (tmp,):
        tmp.write_bytes(encode_client_message(msg))
    return msg


def curator_files(paths: Sequence[str | Path], out_path: str | Path, *,
                  announced: Announcement | None = None, seed: int | None = None,
                  public: Sequence[str] = (), id_map_path: str | Path | None = None,
                  overwrite: bool = False) -> Any:
    """The curator's step on message files: validate every message (named by its path),
    synthesise, and write the release through the sealed writer
    (:func:`gazeprivacy.mechanisms.release.write_release`: pseudonymised ids, public sampling
    grid, the record at ``OUT.guarantee.json``). One generator (``seed``, else OS entropy) is
    spawned into the synthesis and the sealing (pseudonym key).

    Returns
    -------
    SealedRelease
        What was written.

    Raises
    ------
    InvalidDataError
        A message that is unreadable, malformed, inconsistent or of other parameters than
        ``announced`` (or than the first message's), named by its path.
    InvalidParameterError
        A sealing refusal, e.g. gaps (``missing="keep"``) without ``public=["mask"]``.
    """
    from gazeprivacy.mechanisms.release import release_outputs, write_release
    from gazeprivacy.rng import make_rng

    if not paths:
        raise InvalidParameterError("the curator needs at least one message file")
    check_outputs(release_outputs(out_path, id_map_path=id_map_path), inputs=paths,
                  overwrite=overwrite)
    data = []
    for p in paths:
        try:
            data.append(Path(p).read_bytes())
        except OSError as exc:
            raise InvalidDataError(f"cannot read client message {str(p)!r}: {exc}") from None
    syn_rng, seal_rng = make_rng(seed).spawn(2)
    rel = curator_release(data, rng=syn_rng, announced=announced, names=[str(p) for p in paths])
    rel = Release(rel.output, rel.guarantee.with_seed(seed))
    return write_release(rel, out_path, public=public, id_map_path=id_map_path, rng=seal_rng,
                         overwrite=overwrite)
