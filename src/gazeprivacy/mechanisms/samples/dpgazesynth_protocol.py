# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth as a client / curator protocol: the versioned wire message of one device.

The mechanism is :mod:`gazeprivacy.mechanisms.samples.dpgazesynth` (event-level epsilon-LDP per
window; Ren, Fan et al., seed 000 section 4; see docs/privacy/dpgazesynth.md). This module cuts
it where a deployment cuts it: a **device** runs the client step on its own gaze
(:func:`client_message`) and sends one :class:`ClientMessage` (:func:`encode_client_message`);
the **curator** decodes and validates any number of them (:func:`decode_client_message`),
estimates the transition model (:func:`curate_messages`) and synthesises every device's rows
(:func:`curator_release`).

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
import math
import struct
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from gazeprivacy._atomic import Output, atomic_files, check_outputs
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import (
    GazePrivacyError,
    InvalidDataError,
    InvalidParameterError,
    NotFormallyPrivateWarning,
)
from gazeprivacy.guarantees import Guarantee, Release
from gazeprivacy.mechanisms.contract import RecordingShape, SampleShape
from gazeprivacy.mechanisms.noise.oue import oue_encode
from gazeprivacy.mechanisms.samples.dpgazesynth import (
    BudgetSplit,
    ClientReport,
    DPGazeSynthParams,
    TransitionModel,
    client_release,
    curate,
    perturb_reports,
    shape_guarantee,
    synthesise,
    window_samples,
)

__all__ = [
    "MAGIC",
    "PROTOCOL",
    "SCHEMA",
    "VERSION",
    "Announcement",
    "ClientMessage",
    "client_file",
    "client_message",
    "curate_messages",
    "curator_files",
    "curator_release",
    "decode_client_message",
    "encode_client_message",
    "message_from_report",
    "synthesise_message",
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
#: run lengths and report counts travel as uint16
_MAX_W = 65535
#: a report is 8 G^2 + 1 bits: G = 1024 gives 1 MiB per report
_MAX_G = 1024


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
# announcement
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Announcement:
    """The public parameters a curator announces; every device runs with exactly these.

    Build it with :meth:`of`; :meth:`params` gives the :class:`DPGazeSynthParams` of the
    devices' run (geometry and radius resolved).

    >>> geo = Geometry(x_min_deg=0, x_max_deg=10, y_min_deg=0, y_max_deg=10)
    >>> a = Announcement.of(DPGazeSynthParams(epsilon=2.0, grid_size=10), sampling_rate_hz=200.0,
    ...                     geometry=geo)
    >>> a.window_samples, a.radius_deg, a.domain_size
    (100, 3.0, 801)
    """

    epsilon: float
    split: tuple[float, float, float]
    grid_size: int
    window_s: float
    sampling_rate_hz: float
    window_samples: int
    radius_deg: float
    geometry: tuple[float, float, float, float]  # x_min, x_max, y_min, y_max in degrees
    mode: str
    transitions: str
    missing: str
    oue_path: str

    @classmethod
    def of(cls, params: DPGazeSynthParams, *, sampling_rate_hz: float,
           geometry: Geometry | None = None) -> Announcement:
        """The announcement of running ``params`` at this rate on this screen (default:
        ``params.geometry``)."""
        if params.unit != "window":  # the message format has no m and no window draw
            raise InvalidParameterError(
                "the device protocol announces unit='window' only: a unit='participant' "
                "announcement would hand the devices the per-participant budget as a per-window "
                "epsilon. Run the participant level with protect (in memory)")
        geo = geometry or params.geometry
        if geo is None:
            raise InvalidParameterError("the announcement needs the screen bounds: pass "
                                        "geometry= or set DPGazeSynthParams.geometry")
        w = window_samples(params, sampling_rate_hz)
        if params.grid_size > _MAX_G:
            raise InvalidParameterError(f"grid_size must be <= {_MAX_G} for the client "
                                        f"message, got {params.grid_size}")
        if w > _MAX_W:
            raise InvalidParameterError(f"window_samples must be <= {_MAX_W} for the client "
                                        f"message, got {w}: use a shorter window_s")
        s = params.split
        return cls(epsilon=float(params.epsilon), split=(s.start, s.times, s.transitions),
                   grid_size=int(params.grid_size), window_s=float(params.window_s),
                   sampling_rate_hz=float(sampling_rate_hz), window_samples=w,
                   radius_deg=float(params.radius_for(geo)),
                   geometry=(geo.x_min_deg, geo.x_max_deg, geo.y_min_deg, geo.y_max_deg),
                   mode=str(params.mode), transitions=str(params.transitions),
                   missing=str(params.missing), oue_path=str(params.oue_path))

    @property
    def screen(self) -> Geometry:
        x0, x1, y0, y1 = self.geometry
        return Geometry(x_min_deg=x0, x_max_deg=x1, y_min_deg=y0, y_max_deg=y1)

    def params(self) -> DPGazeSynthParams:
        """The devices' parameters (geometry and radius explicit)."""
        a, b, c = self.split
        return DPGazeSynthParams(epsilon=self.epsilon, grid_size=self.grid_size,
                                 window_s=self.window_s, radius_deg=self.radius_deg,
                                 split=BudgetSplit(start=a, times=b, transitions=c),
                                 mode=self.mode, transitions=self.transitions,
                                 oue_path=self.oue_path, missing=self.missing,
                                 geometry=self.screen)

    @property
    def domain_size(self) -> int:
        """OUE domain ``8 G^2 + 1`` (the last entry is "no transition")."""
        return 8 * self.grid_size ** 2 + 1

    @property
    def report_bytes(self) -> int:
        """Bytes of one packed OUE report."""
        return -(-self.domain_size // 8)

    @property
    def epsilon_per_report(self) -> float:
        return self.params().epsilon_per_report(self.window_samples)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: (list(v) if isinstance(v := getattr(self, f.name), tuple) else v)
                for f in fields(self)}

    @classmethod
    def from_dict(cls, d: Any) -> Announcement:
        """Parse and check an announcement (exact keys, types, and ``W`` and ``r``
        consistent with the other parameters); :class:`InvalidDataError` otherwise."""
        names = [f.name for f in fields(cls)]
        if not isinstance(d, dict) or sorted(d) != sorted(names):
            got = sorted(d) if isinstance(d, dict) else type(d).__name__
            raise InvalidDataError(f"announcement must have exactly the keys {names}, got {got}")
        try:
            a = cls(epsilon=_num(d["epsilon"]), split=_nums(d["split"], 3),
                    grid_size=_int(d["grid_size"]), window_s=_num(d["window_s"]),
                    sampling_rate_hz=_num(d["sampling_rate_hz"]),
                    window_samples=_int(d["window_samples"]), radius_deg=_num(d["radius_deg"]),
                    geometry=_nums(d["geometry"], 4), mode=_str(d["mode"]),
                    transitions=_str(d["transitions"]), missing=_str(d["missing"]),
                    oue_path=_str(d["oue_path"]))
            again = cls.of(a.params(), sampling_rate_hz=a.sampling_rate_hz)
        except (GazePrivacyError, TypeError, ValueError) as exc:
            raise InvalidDataError(f"announcement is not valid: {exc}") from None
        if again != a:
            diff = _diff(a, again)
            raise InvalidDataError(f"announcement is inconsistent: {diff}")
        return a


def _num(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise TypeError(f"expected a finite number, got {v!r}")
    return float(v)


def _int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"expected an integer, got {v!r}")
    return v


def _str(v: Any) -> str:
    if not isinstance(v, str):
        raise TypeError(f"expected a string, got {v!r}")
    return v


def _nums(v: Any, n: int) -> tuple[float, ...]:
    if not isinstance(v, list) or len(v) != n:
        raise TypeError(f"expected a list of {n} numbers, got {v!r}")
    return tuple(_num(x) for x in v)


def _diff(a: Announcement, b: Announcement) -> str:
    return ", ".join(f"{f.name}={getattr(a, f.name)!r} (expected {getattr(b, f.name)!r})"
                     for f in fields(a) if getattr(a, f.name) != getattr(b, f.name))


# --------------------------------------------------------------------------------------------
# the message
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, eq=False)
class ClientMessage:
    """What one device sends: the announcement, its public shape and its randomised report.

    Rows and windows are those of the device's recordings concatenated in order (windows of
    ``W`` samples never cross a recording). Exactly one of ``oue_bits`` (client-reports: one
    packed report of ``report_bytes`` bytes per row, rows sorted by window, with
    ``reports_per_window``) and ``oue_sums`` (curator-view: column sums over the domain) is set;
    ``oue_n`` is the number of OUE reports either way.
    """

    announcement: Announcement
    recordings: tuple[str, ...]
    participants: tuple[str, ...]
    n_samples: np.ndarray         # rows per recording
    gap_start: np.ndarray         # missing rows (keep only): start row, over all recordings
    gap_length: np.ndarray
    start_cell: np.ndarray        # per window: noisy start cell, -1 without valid rows
    runs_per_window: np.ndarray   # per window: number of released runs
    run_length: np.ndarray        # per run: noisy length (> 0)
    reports_per_window: np.ndarray | None
    oue_bits: np.ndarray | None   # uint8 (oue_n, report_bytes), bit i of a report = entry i
    oue_sums: np.ndarray | None   # (domain_size,) column sums
    oue_n: int

    @property
    def n_windows(self) -> int:
        return int(self.start_cell.size)

    def window_layout(self) -> tuple[np.ndarray, np.ndarray]:
        """``(valid_rows, n_valid)``: the rows that get synthetic gaze (all rows but the gaps)
        and their count per window."""
        w = self.announcement.window_samples
        n = self.n_samples.astype(np.int64)
        total = int(n.sum())
        missing = np.zeros(total + 1, dtype=np.int64)
        np.add.at(missing, self.gap_start, 1)
        np.add.at(missing, self.gap_start + self.gap_length, -1)
        valid_rows = np.flatnonzero(np.cumsum(missing[:-1]) == 0)
        offsets = np.concatenate([[0], np.cumsum(n)[:-1]])
        win_off = np.concatenate([[0], np.cumsum(-(-n // w))[:-1]])
        rec = np.searchsorted(offsets, valid_rows, side="right") - 1
        vwin = win_off[rec] + (valid_rows - offsets[rec]) // w
        return valid_rows, np.bincount(vwin, minlength=self.n_windows)

    def column_sums(self) -> dict[float, tuple[np.ndarray, int]]:
        """The OUE column sums in the partition phases' message form ``{eps: (sums, n)}``
        (:func:`~gazeprivacy.mechanisms.samples.dpgazesynth.curate` reduces them)."""
        eps = self.announcement.epsilon_per_report
        if self.oue_sums is not None:
            return {eps: (self.oue_sums.astype(np.float64), int(self.oue_n))}
        d = self.announcement.domain_size
        sums = np.zeros(d, dtype=np.int64)
        bits = self.oue_bits if self.oue_bits is not None else np.zeros((0, 1), np.uint8)
        for a in range(0, bits.shape[0], 1024):  # bounded memory: 1024 x d bytes unpacked
            sums += np.unpackbits(bits[a:a + 1024], axis=1, count=d, bitorder="little"
                                  ).sum(axis=0, dtype=np.int64)
        return {eps: (sums.astype(np.float64), int(self.oue_n))}

    def client_report(self) -> ClientReport:
        """The curator's view of the device as the mechanism's :class:`ClientReport` (what
        :func:`~gazeprivacy.mechanisms.samples.dpgazesynth.synthesise` reads)."""
        valid_rows, _ = self.window_layout()
        k = self.n_windows
        x0, x1, y0, y1 = self.announcement.geometry
        g = self.announcement.grid_size
        return ClientReport(
            valid_rows=valid_rows,
            run_window=np.repeat(np.arange(k), self.runs_per_window.astype(np.int64)),
            run_length=self.run_length.astype(np.int64),
            start_cell=self.start_cell.astype(np.int64),
            window_x0=np.full(k, x0), window_y0=np.full(k, y0),
            window_cw=np.full(k, (x1 - x0) / g), window_ch=np.full(k, (y1 - y0) / g),
            reports={})

    def shape(self) -> SampleShape:
        """The public shape of the device's recordings (for the privacy map)."""
        a = self.announcement
        return SampleShape(tuple(
            RecordingShape(recording=r, participant=p, n_samples=int(n),
                           sampling_rate_hz=a.sampling_rate_hz, geometry=a.screen)
            for r, p, n in zip(self.recordings, self.participants, self.n_samples, strict=True)))


# --------------------------------------------------------------------------------------------
# client (device)
# --------------------------------------------------------------------------------------------


def _announce(recs: tuple[Recording, ...], params: DPGazeSynthParams | Announcement
              ) -> Announcement:
    if isinstance(params, Announcement):
        return params
    if not isinstance(params, DPGazeSynthParams):
        raise InvalidParameterError(f"params must be DPGazeSynthParams or an Announcement, got "
                                    f"{type(params).__name__}")
    return Announcement.of(params, sampling_rate_hz=recs[0].sampling_rate_hz,
                           geometry=params.geometry or recs[0].geometry)


def _device_recordings(recordings: Recording | Sequence[Recording] | Dataset
                       ) -> tuple[Recording, ...]:
    recs = (recordings,) if isinstance(recordings, Recording) else tuple(recordings)
    if not recs:
        raise InvalidDataError("the device has no recordings to report")
    return recs


def client_message(recordings: Recording | Sequence[Recording] | Dataset,
                   params: DPGazeSynthParams | Announcement, *,
                   rng: np.random.Generator) -> ClientMessage:
    """The device's whole client step: its :class:`ClientMessage`.

    ``rng`` is split as :meth:`DPGazeSynthPhases.client
    <gazeprivacy.mechanisms.samples.dpgazesynth.DPGazeSynthPhases.client>` splits it (client
    noise, then the OUE randomisation), so a device given partition ``i``'s client stream sends
    exactly what that partition's phases compute.

    Parameters
    ----------
    recordings : Recording or sequence of Recording
        The device's own recordings, all at the announced sampling rate.
    params : DPGazeSynthParams or Announcement
        The announced parameters (from ``DPGazeSynthParams``: this rate and screen, the first
        recording's geometry unless ``params.geometry``).
    rng : numpy.random.Generator

    Raises
    ------
    InvalidParameterError
        A recording at another sampling rate than announced, or no screen bounds.

    Examples
    --------
    >>> geo = Geometry(x_min_deg=0, x_max_deg=10, y_min_deg=0, y_max_deg=10)
    >>> rec = Recording.from_arrays(recording="r", participant="p", x=np.linspace(1, 9, 200),
    ...                             y=np.full(200, 5.0), sampling_rate_hz=200, geometry=geo)
    >>> msg = client_message(rec, DPGazeSynthParams(epsilon=2.0, grid_size=10,
    ...                      oue_path="client-reports"), rng=np.random.default_rng(0))
    >>> msg.n_windows, int(msg.run_length.sum()), msg.oue_bits.shape
    (2, 200, (198, 101))
    """
    recs = _device_recordings(recordings)
    announcement = _announce(recs, params)
    rng_clients, rng_perturb = rng.spawn(2)
    report = client_release(recs, _device_params(recs, announcement), rng_clients)
    return message_from_report(recs, announcement, report, rng=rng_perturb)


def _device_params(recs: tuple[Recording, ...], a: Announcement) -> DPGazeSynthParams:
    for r in recs:
        if r.sampling_rate_hz != a.sampling_rate_hz:
            raise InvalidParameterError(
                f"recording {r.recording!r} is sampled at {r.sampling_rate_hz:g} Hz but the "
                f"announcement says {a.sampling_rate_hz:g} Hz; a device message covers "
                "recordings at the announced rate only (send one message per rate)")
    return a.params()


def message_from_report(recordings: Recording | Sequence[Recording] | Dataset,
                        params: DPGazeSynthParams | Announcement, report: ClientReport, *,
                        rng: np.random.Generator) -> ClientMessage:
    """Package a device's :func:`client_release` output: randomise its OUE reports with
    ``rng`` (real reports under ``client-reports``, the column sums under ``curator-view``,
    drawing exactly as :func:`perturb_reports`) and keep only what the curator may see."""
    recs = _device_recordings(recordings)
    a = _announce(recs, params)
    p = _device_params(recs, a)
    n = np.array([r.n_samples for r in recs], dtype=np.int64)
    k = -(-n // a.window_samples)
    n_windows = int(k.sum())
    gap_start, gap_length = _gaps(recs) if a.missing == "keep" else (np.zeros(0, np.int64),) * 2
    reps = {e: v for e, v in report.reports.items() if v.size}
    if len(reps) > 1 or (reps and next(iter(reps)) != a.epsilon_per_report):
        raise InvalidDataError(f"the client report has OUE budgets {sorted(reps)}, the "
                               f"announcement one of {a.epsilon_per_report:g}")
    values = next(iter(reps.values())) if reps else np.zeros(0, np.int64)
    wins = report.report_windows.get(a.epsilon_per_report, np.zeros(0, np.int64))
    bits = sums = per_window = None
    if a.oue_path == "client-reports":
        order = np.argsort(wins, kind="stable")
        bits = _encode_reports(values, a, rng)[order]
        per_window = np.bincount(wins, minlength=n_windows)
    else:
        (sums, _), = perturb_reports(report, p, rng).values() if reps else (
            (np.zeros(a.domain_size), 0),)
    return ClientMessage(
        announcement=a, recordings=tuple(r.recording for r in recs),
        participants=tuple(r.participant for r in recs), n_samples=n, gap_start=gap_start,
        gap_length=gap_length, start_cell=report.start_cell.astype(np.int32),
        runs_per_window=np.bincount(report.run_window, minlength=n_windows).astype(np.uint16),
        run_length=report.run_length.astype(np.uint16),
        reports_per_window=None if per_window is None else per_window.astype(np.uint16),
        oue_bits=bits, oue_sums=None if sums is None else sums.astype(np.uint32),
        oue_n=int(values.size))


def _gaps(recs: tuple[Recording, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Missing rows of the concatenated recordings as (start, length) intervals."""
    miss = np.concatenate([r.missing for r in recs]).astype(np.int8)
    edges = np.diff(np.concatenate([[0], miss, [0]]))
    start = np.flatnonzero(edges == 1)
    return start.astype(np.int64), (np.flatnonzero(edges == -1) - start).astype(np.int64)


def _encode_reports(values: np.ndarray, a: Announcement, rng: np.random.Generator
                    ) -> np.ndarray:
    """Real OUE reports (as :func:`perturb_reports` draws them), packed one row per report."""
    d = a.domain_size
    rep = oue_encode(values, domain_size=d, epsilon=a.epsilon_per_report, rng=rng)
    out = np.zeros((rep.n, a.report_bytes), dtype=np.uint8)
    for s in range(0, rep.n, 1024):
        e = min(s + 1024, rep.n)
        lo, hi = rep.indptr[s], rep.indptr[e]
        dense = np.zeros((e - s, d), dtype=bool)
        dense[np.repeat(np.arange(e - s), np.diff(rep.indptr[s:e + 1])),
              rep.indices[lo:hi]] = True
        out[s:e] = np.packbits(dense, axis=1, bitorder="little")
    return out


# --------------------------------------------------------------------------------------------
# wire format
# --------------------------------------------------------------------------------------------


def encode_client_message(message: ClientMessage) -> bytes:
    """The message's bytes: frame + Arrow IPC stream (see the module docstring).

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
        raise InvalidDataError(f"parameters differ from the announced ones: {_diff(a, announced)}")
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


def synthesise_message(message: ClientMessage, model: TransitionModel, *,
                       rng: np.random.Generator) -> list[Recording]:
    """Algorithm 1 for one device's rows (post-processing of its message and the model):
    its recordings on the public sampling grid, NaN at the gaps it reported."""
    a = message.announcement
    recs = [Recording(recording=r, participant=p, t=np.arange(int(n)) / a.sampling_rate_hz,
                      x=np.full(int(n), np.nan), y=np.full(int(n), np.nan),
                      sampling_rate_hz=a.sampling_rate_hz, geometry=a.screen)
            for r, p, n in zip(message.recordings, message.participants, message.n_samples,
                               strict=True)]
    return synthesise(recs, message.client_report(), model, a.params(), rng)


def curator_release(messages: Sequence[ClientMessage | bytes], *, rng: np.random.Generator,
                    announced: Announcement | None = None,
                    names: Sequence[str] | None = None) -> Release[Dataset]:
    """The curator's whole step: validate, estimate the model, synthesise every device.

    ``rng`` is spawned into one stream per message, in order. The record is the mechanism's
    privacy map of the reported public shape (per window, composed per participant over all
    messages).

    Examples
    --------
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
