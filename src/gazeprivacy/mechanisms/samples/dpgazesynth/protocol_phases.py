# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth as a client / curator protocol, the mechanism's side: what one device computes.

The mechanism is :mod:`gazeprivacy.mechanisms.samples.dpgazesynth` (event-level epsilon-LDP per
window; Ren, Fan et al., seed 000 section 4; see docs/privacy/dpgazesynth.md). Here it is cut
where a deployment cuts it: the public parameters a curator announces (:class:`Announcement`), a
**device**'s client step on its own gaze (:func:`client_message`, :func:`message_from_report`)
giving one :class:`ClientMessage`, and the synthesis of one device's rows from its message
(:func:`synthesise_message`). The wire format of a message (framing, encoding, validation against
the announcement, files) and the curator's step over many messages are
:mod:`gazeprivacy.deploy.protocol`, which describes what a message holds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import GazePrivacyError, InvalidDataError, InvalidParameterError
from gazeprivacy.mechanisms.contract import RecordingShape, SampleShape
from gazeprivacy.mechanisms.noise.oue import oue_encode
from gazeprivacy.mechanisms.samples.dpgazesynth import (
    BudgetSplit,
    ClientReport,
    DPGazeSynthParams,
    TransitionModel,
    client_release,
    perturb_reports,
    synthesise,
    window_samples,
)

__all__ = [
    "Announcement",
    "ClientMessage",
    "announcement_diff",
    "client_message",
    "message_from_report",
    "synthesise_message",
]

#: run lengths and report counts travel as uint16
_MAX_W = 65535
#: a report is 8 G^2 + 1 bits: G = 1024 gives 1 MiB per report
_MAX_G = 1024


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
            diff = announcement_diff(a, again)
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


def announcement_diff(a: Announcement, b: Announcement) -> str:
    """The fields of ``a`` that differ from ``b``'s, as ``name=value (expected other)``."""
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
# curator
# --------------------------------------------------------------------------------------------


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
