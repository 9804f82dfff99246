# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The data model: a :class:`Recording` of gaze samples and a :class:`Dataset` of recordings.

Policies (SPEC section 1), each tested in ``tests/data/test_recording.py``:

* **Missing samples** (blinks, tracking loss) are rows with ``x = y = NaN``. They are legal and
  are never removed: every mechanism returns the same row count, and a NaN input row stays NaN in
  its output unless the mechanism's docs say otherwise. A row with only one of ``x``/``y``
  missing is made fully missing and a :class:`DataPolicyWarning` says how many.
* **Timestamps** must be finite and strictly increasing; otherwise :class:`InvalidDataError`
  names the recording and the first bad row (``repair_timestamps`` sorts or drops duplicates on
  request, and says what it did).
* **Units**: time in seconds (``time_unit="ms"``, ``"us"`` or ``"ns"`` converts once at load);
  a median sample interval above 0.5 s is refused with the unit the timestamps are probably in.
  Gaze in degrees; values beyond 360 degrees are refused as "probably pixels" (the loaders in
  :mod:`gazeprivacy.data.io` also detect normalised 0-1 and pixel coordinates below 360).
* **Columns are kept as they are**: per-sample columns that are not float (text, Boolean,
  integer, dates) travel as :attr:`Recording.extras`, exact polars Series that mechanisms never
  read; :attr:`Dataset.schema` keeps the input's column order and dtypes, which
  :meth:`Dataset.to_table` restores (e.g. an integer ``stimulus`` label is written as an
  integer again).
* **Empty recordings** (no rows) are refused; a one-sample recording is legal data, but needs
  ``sampling_rate_hz`` and is refused by mechanisms that need two samples.
* **Off-screen points** are kept as recorded; mechanisms that work on a bounded region clamp them
  to the nearest valid point and document it.
* **Mixed sampling rates** across recordings are legal; :attr:`Dataset.sampling_rate_hz` raises
  when a caller needs one rate and there are several.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.rates import clock_rate_hz, nominal_rate
from gazeprivacy.exceptions import DataPolicyWarning, InvalidDataError, InvalidParameterError

__all__ = ["CORE_COLUMNS", "Dataset", "Recording", "adopt", "repair_timestamps",
           "restore_schema"]

CORE_COLUMNS = ("participant", "recording", "t", "x", "y")
_TIME_SCALE = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
#: ids of the arrays a loader hands over for the duration of :func:`adopt` (alive meanwhile,
#: so their ids are unique).
_ADOPTED: set[int] = set()


@contextmanager
def adopt(*arrays: np.ndarray) -> Iterator[None]:
    """Within this block, recordings take the 1-D float64 ``arrays`` as they are (made
    read-only) instead of copying them.

    For loaders that hand over arrays nothing else holds or writes (e.g. zero-copy views of a
    table read from a file, which is dropped afterwards): a recording's columns are otherwise
    copied so that a caller's later writes cannot change it, which costs a pass over memory
    per column.

    >>> a = np.array([0.0, 0.01])
    >>> with adopt(a):
    ...     r = Recording.from_arrays(recording="r", participant="p", t=a, x=a, y=a)
    >>> r.t is a, a.flags.writeable
    (True, False)
    """
    ids = {id(a) for a in arrays if isinstance(a, np.ndarray)} - _ADOPTED
    _ADOPTED.update(ids)
    try:
        yield
    finally:
        _ADOPTED.difference_update(ids)


def _frozen(a: np.ndarray | None, name: str, rec: str) -> np.ndarray | None:
    if a is None:
        return None
    if id(a) in _ADOPTED and a.dtype == np.float64 and a.ndim == 1:
        a.setflags(write=False)
        return a
    try:
        out = np.array(a, dtype=np.float64, copy=True)
    except (TypeError, ValueError) as exc:
        raise InvalidDataError(
            f"recording {rec!r}: column {name!r} is not numeric ({exc})") from None
    if out.ndim != 1:
        raise InvalidDataError(f"recording {rec!r}: column {name!r} must be 1-D, got {out.shape}")
    out.setflags(write=False)
    return out


@dataclass(frozen=True, eq=False, kw_only=True)
class Recording:
    """One participant's gaze samples on one stimulus / task / session.

    Parameters
    ----------
    recording : str
        Identifier, unique within a dataset.
    participant : str
        Participant identifier.
    t : array of float, seconds
        Strictly increasing timestamps.
    x, y : array of float, degrees
        Gaze position; NaN marks a missing sample (blink, tracking loss).
    sampling_rate_hz : float
        Nominal sampling rate (> 0).
    labels : mapping of str to str
        Recording labels: task, stimulus, session, document type, gender, ...
    pupil : array of float, optional
        Pupil diameter (device units).
    geometry : Geometry, optional
        Valid region of gaze and pixel grid.
    channels : mapping of str to array, optional
        Further numeric per-sample columns (e.g. head pose; float64), carried through unchanged.
    extras : mapping of str to polars.Series, optional
        Per-sample columns of any other type (text, Boolean, integer, dates, with nulls), kept
        exactly as given and carried through unchanged; mechanisms never read them.

    Examples
    --------
    >>> r = Recording.from_arrays(recording="r1", participant="p1", t=[0, 5, 10], x=[1, 2, 3],
    ...                           y=[0, 0, 0], time_unit="ms")
    >>> r.sampling_rate_hz, r.n_samples
    (200.0, 3)
    """

    recording: str
    participant: str
    t: np.ndarray
    x: np.ndarray
    y: np.ndarray
    sampling_rate_hz: float
    labels: Mapping[str, str] = field(default_factory=dict)
    pupil: np.ndarray | None = None
    geometry: Geometry | None = None
    channels: Mapping[str, np.ndarray] = field(default_factory=dict)
    extras: Mapping[str, pl.Series] = field(default_factory=dict)

    def __post_init__(self) -> None:
        rec = str(self.recording)
        object.__setattr__(self, "recording", rec)
        object.__setattr__(self, "participant", str(self.participant))
        object.__setattr__(self, "labels", {str(k): str(v) for k, v in self.labels.items()})
        for name in ("t", "x", "y", "pupil"):
            object.__setattr__(self, name, _frozen(getattr(self, name), name, rec))
        object.__setattr__(self, "channels",
                           {k: _frozen(v, k, rec) for k, v in self.channels.items()})
        n = self.t.shape[0]
        if n == 0:
            raise InvalidDataError(f"recording {rec!r} has no samples; drop it before loading")
        object.__setattr__(self, "extras", _extras(self.extras, n, rec))
        for name in ("x", "y", "pupil", *self.channels):
            a = getattr(self, name) if name in ("x", "y", "pupil") else self.channels[name]
            if a is not None and a.shape[0] != n:
                raise InvalidDataError(
                    f"recording {rec!r}: column {name!r} has {a.shape[0]} rows, t has {n}")
        if not (np.isfinite(self.sampling_rate_hz) and self.sampling_rate_hz > 0):
            raise InvalidDataError(
                f"recording {rec!r}: sampling_rate_hz must be > 0, got {self.sampling_rate_hz!r}")
        _check_timestamps(self.t, rec)
        self._set_gaze(self.x, self.y, stacklevel=4)

    def _set_gaze(self, x: np.ndarray, y: np.ndarray, *, stacklevel: int) -> None:
        """Check frozen ``x, y`` (finite or NaN, within 360 degrees), apply the missing-sample
        policy and store them."""
        rec = self.recording
        _check_gaze(x, y, rec)
        half = np.isnan(x) ^ np.isnan(y)
        if half.any():
            warnings.warn(f"recording {rec!r}: {int(half.sum())} rows had only one of x/y "
                          "missing; both are now NaN (missing-sample policy)",
                          DataPolicyWarning, stacklevel=stacklevel)
            x, y = x.copy(), y.copy()
            x[half] = np.nan
            y[half] = np.nan
            x, y = _frozen(x, "x", rec), _frozen(y, "y", rec)
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "y", y)

    @classmethod
    def from_arrays(cls, *, recording: str, participant: str, x: Any, y: Any,
                    t: Any | None = None, sampling_rate_hz: float | None = None,
                    time_unit: str = "s", **kwargs: Any) -> Recording:
        """Build a recording, converting time to seconds and inferring the sampling rate.

        Without ``t``, timestamps are ``i / sampling_rate_hz``. Without ``sampling_rate_hz`` it is
        the clock's nominal rate (:mod:`gazeprivacy.data.rates`: snapped to a standard rate,
        never the clock's drift; a warning when none fits); when both are given they must agree
        within 25 % (of ``1 / median(diff(t))``).
        """
        if time_unit not in _TIME_SCALE:
            raise InvalidParameterError(
                f"time_unit must be one of {sorted(_TIME_SCALE)}, got {time_unit!r}")
        x = np.asarray(x, dtype=np.float64)
        if t is None:
            if sampling_rate_hz is None:
                raise InvalidParameterError(
                    f"recording {recording!r}: give t or sampling_rate_hz")
            t = np.arange(x.shape[0]) / float(sampling_rate_hz)
        else:
            t = np.asarray(t, dtype=np.float64)
            if time_unit != "s":  # (seconds: no copy)
                t = t * _TIME_SCALE[time_unit]
        if t.shape[0] == 0:
            raise InvalidDataError(
                f"recording {recording!r} has no samples; drop it before loading")
        _check_timestamps(t, str(recording))
        if t.shape[0] >= 2:
            dt = float(np.median(np.diff(t)))
            if dt > 0.5 or dt < 1.0 / MAX_RATE_HZ:
                raise InvalidDataError(_time_unit_message(str(recording), dt, time_unit))
            inferred = 1.0 / dt
            if sampling_rate_hz is None:
                sampling_rate_hz = _nominal_from_clock(t, str(recording))
            elif abs(inferred - sampling_rate_hz) > 0.25 * sampling_rate_hz:
                raise InvalidDataError(
                    f"recording {recording!r}: sampling_rate_hz={sampling_rate_hz} but the "
                    f"timestamps say {inferred:.3g} Hz; check the time unit or the declared rate")
        elif sampling_rate_hz is None:
            raise InvalidDataError(
                f"recording {recording!r} has one sample: its sampling_rate_hz must be given")
        return cls(recording=recording, participant=participant, t=t, x=x, y=y,
                   sampling_rate_hz=float(sampling_rate_hz), **kwargs)

    @property
    def n_samples(self) -> int:
        return int(self.t.shape[0])

    @property
    def duration_s(self) -> float:
        return float(self.t[-1] - self.t[0]) + 1.0 / self.sampling_rate_hz

    @property
    def missing(self) -> np.ndarray:
        """Boolean mask of missing samples (NaN gaze)."""
        return np.isnan(self.x)

    def label(self, name: str) -> str:
        """A label's value; the error lists the labels this recording has."""
        try:
            return self.labels[name]
        except KeyError:
            raise InvalidParameterError(
                f"recording {self.recording!r} has no label {name!r}; it has: "
                f"{', '.join(sorted(self.labels)) or 'none'}") from None

    def _relabelled(self, *, recording: str, participant: str, t: np.ndarray | None,
                    pupil: np.ndarray | None, labels: Mapping[str, str],
                    channels: Mapping[str, np.ndarray], extras: Mapping[str, pl.Series]
                    ) -> Recording:
        """A copy with new ids and a subset of its own columns (the sealed release's copy),
        without re-checking what this recording's checks passed: ``pupil``, ``labels``,
        ``channels`` and ``extras`` must be this recording's own (or None); ``t`` its own or
        None for the public grid ``i / sampling_rate_hz``."""
        if t is None:
            t = np.arange(self.n_samples) / self.sampling_rate_hz
            t.setflags(write=False)
        out = copy.copy(self)
        for name, value in (("recording", str(recording)), ("participant", str(participant)),
                            ("t", t), ("pupil", pupil), ("labels", dict(labels)),
                            ("channels", dict(channels)), ("extras", dict(extras))):
            object.__setattr__(out, name, value)
        return out

    def with_gaze(self, x: np.ndarray, y: np.ndarray, **changes: Any) -> Recording:
        """A copy with new gaze (same timestamps, labels and row count)."""
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        if x.shape != self.x.shape or y.shape != self.y.shape:
            raise InvalidDataError(
                f"recording {self.recording!r}: new gaze has {x.shape[0]} rows, expected "
                f"{self.n_samples}")
        if changes:
            return replace(self, x=x, y=y, **changes)
        # Only the gaze changes: check it alone (timestamps, labels and the other columns were
        # checked when this recording was built; re-checking them cost as much as a mechanism)
        out = copy.copy(self)
        out._set_gaze(_frozen(x, "x", self.recording), _frozen(y, "y", self.recording),
                      stacklevel=3)
        return out

    def to_table(self) -> pl.DataFrame:
        """This recording in the long format (see :mod:`gazeprivacy.data.io`)."""
        n = self.n_samples
        cols: dict[str, Any] = {
            "participant": pl.repeat(self.participant, n, dtype=pl.String, eager=True),
            "recording": pl.repeat(self.recording, n, dtype=pl.String, eager=True),
            "t": self.t, "x": self.x, "y": self.y,
        }
        if self.pupil is not None:
            cols["pupil"] = self.pupil
        cols.update({k: v for k, v in self.channels.items()})
        cols.update({k: v.alias(k) for k, v in self.extras.items()})
        cols.update({k: pl.repeat(v, n, dtype=pl.String, eager=True)
                     for k, v in self.labels.items()})
        return pl.DataFrame(cols).with_columns(pl.col("x", "y").fill_nan(None).fill_null(np.nan))

    def __repr__(self) -> str:
        return (f"Recording({self.recording!r}, participant={self.participant!r}, "
                f"n_samples={self.n_samples}, {self.sampling_rate_hz:g} Hz, labels={self.labels})")


def _nominal_from_clock(t: np.ndarray, rec: str) -> float:
    """The nominal rate of timestamps ``t`` (:func:`~gazeprivacy.data.rates.nominal_rate`),
    with a warning when it is no standard rate."""
    clock = clock_rate_hz(t)
    rate, how = nominal_rate(clock)
    if how == "unsure":
        warnings.warn(f"recording {rec!r}: the timestamps say {clock:.4g} Hz, no standard "
                      f"eye-tracker rate; taken as {rate:g} Hz: declare the nominal rate with "
                      "sampling_rate_hz=...", DataPolicyWarning, stacklevel=4)
    return rate


def _extras(extras: Mapping[str, Any], n: int, rec: str) -> dict[str, pl.Series]:
    out = {}
    for name, values in extras.items():
        name = str(name)
        series = values if isinstance(values, pl.Series) else pl.Series(name, values)
        if series.len() != n:
            raise InvalidDataError(
                f"recording {rec!r}: column {name!r} has {series.len()} rows, t has {n}")
        out[name] = series.alias(name)
    return out


#: The fastest sampling rate a recording may have (Hz): eye trackers record at up to 2 kHz (a
#: few research systems more); a faster clock means the timestamps are read in too fine a unit.
MAX_RATE_HZ = 10_000.0


def _time_unit_message(rec: str, dt: float, time_unit: str) -> str:
    """Why a median interval of ``dt`` seconds (after ``time_unit``) is refused, and which unit
    the timestamps are probably in: slower than 2 Hz, the first finer unit that gives at least
    2 Hz; faster than :data:`MAX_RATE_HZ`, the first coarser unit that gives at most that.

    >>> _time_unit_message("r", 5e-6, "ms").split("; ")[1]
    "timestamps are probably in seconds: pass time_unit='s'"
    """
    raw = dt / _TIME_SCALE[time_unit]
    units = list(_TIME_SCALE)
    if dt > 0.5:
        likely = next((u for u in units[units.index(time_unit) + 1:]
                       if raw * _TIME_SCALE[u] <= 0.5), None)
    else:  # too fast: a coarser unit (s is the coarsest)
        likely = next((u for u in reversed(units[:units.index(time_unit)])
                       if raw * _TIME_SCALE[u] >= 1.0 / MAX_RATE_HZ), None)
    head = (f"recording {rec!r}: median sample interval is {dt:g} s ({1 / dt:.3g} Hz) with "
            f"time_unit={time_unit!r}")
    if dt <= 0.5:
        head += f", faster than any eye tracker ({MAX_RATE_HZ:g} Hz at most)"
    if likely is None:
        return f"{head}; the timestamps are not in a known unit (s, ms, us, ns)"
    names = {"s": "seconds", "ms": "milliseconds", "us": "microseconds", "ns": "nanoseconds"}
    return (f"{head}; timestamps are probably in {names[likely]}: pass "
            f"time_unit='{likely}'")


def _check_timestamps(t: np.ndarray, rec: str) -> None:
    if t.shape[0] == 0:
        return
    bad = np.flatnonzero(~np.isfinite(t))
    if bad.size:
        raise InvalidDataError(f"recording {rec!r}: timestamp at row {int(bad[0])} is "
                               f"{float(t[bad[0]])}; timestamps must be finite")
    d = np.diff(t)
    bad = np.flatnonzero(d <= 0)
    if bad.size:
        i = int(bad[0]) + 1
        what = "duplicates" if d[bad[0]] == 0 else "goes back from"
        raise InvalidDataError(
            f"recording {rec!r}: timestamps must be strictly increasing; row {i} (t={float(t[i])}) "
            f"{what} row {i - 1} (t={float(t[i - 1])}); {bad.size} such rows. Sort or de-duplicate "
            "with gazeprivacy.data.repair_timestamps(table, how='sort'|'drop-duplicates')")


#: the advice of the gaze range check (a recording beyond 360 degrees), which reads the input as
#: pixels; ``gazeprivacy evaluate`` drops it from a release's failure (a mechanism's output)
GAZE_UNIT_HINT = ("; gaze is probably in pixels: convert with "
                  "gazeprivacy.data.px_to_deg(values, px_per_deg=...)")


def _check_gaze(x: np.ndarray, y: np.ndarray, rec: str) -> None:
    for name, a in (("x", x), ("y", y)):
        # two reductions, no temporary arrays; fmax / fmin skip NaN (all NaN: NaN, compares
        # False); inf is caught here
        if not a.size or not (np.fmax.reduce(a) > 360 or np.fmin.reduce(a) < -360):
            continue
        inf = np.flatnonzero(np.isinf(a))
        if inf.size:
            raise InvalidDataError(f"recording {rec!r}: {name} at row {int(inf[0])} is infinite; "
                                   "use NaN for missing samples")
        big = np.flatnonzero(np.abs(a) > 360)
        if big.size:
            raise InvalidDataError(
                f"recording {rec!r}: {name} at row {int(big[0])} is {a[big[0]]:g}, beyond 360 "
                f"degrees{GAZE_UNIT_HINT}")


def _restore_column(s: pl.Series, dtype: Any) -> pl.Series:
    """``s`` (a label written as text, or a float channel) back in its input ``dtype``; left as
    it is when a value would not survive the cast."""
    if s.dtype == dtype:
        return s
    if s.dtype == pl.String and dtype == pl.Boolean:
        out = s.replace_strict({"True": True, "False": False, "true": True, "false": False},
                               default=None, return_dtype=pl.Boolean)
    else:
        try:
            out = s.cast(dtype, strict=False)
        except (pl.exceptions.PolarsError, TypeError, ValueError):
            return s
    return out if out.null_count() == s.null_count() else s


def restore_schema(table: pl.DataFrame, schema: Mapping[str, Any]) -> pl.DataFrame:
    """``table`` with the columns of ``schema`` in its order (the others after them) and its
    non-core columns back in their dtypes (labels are held as text, float channels as float64).

    >>> tab = pl.DataFrame({"x": [1.0], "stimulus": ["3"], "t": [0.0]})
    >>> restore_schema(tab, {"t": pl.Float64, "stimulus": pl.Int64, "x": pl.Float64}).schema
    Schema([('t', Float64), ('stimulus', Int64), ('x', Float64)])
    """
    order = [c for c in schema if c in table.columns]
    order += [c for c in table.columns if c not in schema]
    fixed = [_restore_column(table[c], schema[c]) for c in table.columns
             if c in schema and c not in CORE_COLUMNS and table.schema[c] != schema[c]]
    return table.with_columns(fixed).select(order) if fixed else table.select(order)


def repair_timestamps(table: pl.DataFrame, *, how: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Opt-in repair of a long-format table's timestamps, per recording.

    ``how="sort"`` orders each recording's rows by ``t`` (stable) and keeps every row;
    ``how="drop-duplicates"`` also removes rows whose ``t`` repeats an earlier row of the same
    recording (the first is kept). Returns ``(repaired, removed)`` so nothing is lost unseen.

    >>> tab = pl.DataFrame({"recording": ["a"] * 3, "t": [0.0, 0.0, 0.01], "x": [1.0, 2, 3]})
    >>> fixed, removed = repair_timestamps(tab, how="drop-duplicates")
    >>> fixed.height, removed["x"].to_list()
    (2, [2.0])
    """
    if how not in ("sort", "drop-duplicates"):
        raise InvalidParameterError(f"how must be 'sort' or 'drop-duplicates', got {how!r}")
    tab = table.with_row_index("_row").sort(["recording", "t", "_row"], maintain_order=True)
    order = tab.select(pl.col("recording").unique(maintain_order=True))["recording"]
    tab = tab.join(pl.DataFrame({"recording": order}).with_row_index("_rec"), on="recording")
    tab = tab.sort(["_rec", "t", "_row"])
    if how == "sort":
        return tab.drop("_row", "_rec"), tab.clear().drop("_row", "_rec")
    dup = tab.select(pl.struct("recording", "t").is_first_distinct().not_())["recording"]
    return (tab.filter(~dup).drop("_row", "_rec"), tab.filter(dup).drop("_row", "_rec"))


@dataclass(frozen=True, eq=False)
class Dataset:
    """An ordered collection of recordings with unique ids.

    Examples
    --------
    >>> r = Recording.from_arrays(recording="r1", participant="p1", x=[0, 1], y=[0, 1],
    ...                           sampling_rate_hz=100)
    >>> ds = Dataset((r,), name="tiny")
    >>> ds.participants, ds.n_samples
    (('p1',), 2)
    """

    recordings: tuple[Recording, ...]
    name: str = "dataset"
    info: Mapping[str, Any] = field(default_factory=dict)
    #: The input table's column names and polars dtypes, in order (None: the default order).
    #: :meth:`to_table` restores both for the columns it writes.
    schema: Mapping[str, Any] | None = None
    #: How a reader read the data (the rate's source, rows dropped or made missing, the
    #: geometry's source), for ``gazeprivacy info``; never written.
    reading: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        recs = tuple(self.recordings)
        object.__setattr__(self, "recordings", recs)
        seen: set[str] = set()
        for r in recs:
            if not isinstance(r, Recording):
                raise InvalidDataError(f"dataset {self.name!r}: expected Recording, got {type(r)}")
            if r.recording in seen:
                raise InvalidDataError(
                    f"dataset {self.name!r}: recording id {r.recording!r} appears twice")
            seen.add(r.recording)

    def __len__(self) -> int:
        return len(self.recordings)

    def __iter__(self) -> Iterator[Recording]:
        return iter(self.recordings)

    def __getitem__(self, key: int | str) -> Recording:
        if isinstance(key, str):
            for r in self.recordings:
                if r.recording == key:
                    return r
            raise KeyError(f"dataset {self.name!r} has no recording {key!r}")
        return self.recordings[key]

    @property
    def participants(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.participant for r in self.recordings))

    @property
    def n_samples(self) -> int:
        return sum(r.n_samples for r in self.recordings)

    @property
    def sampling_rate_hz(self) -> float:
        """The one sampling rate of all recordings; raises when they differ."""
        rates = {r.sampling_rate_hz for r in self.recordings}
        if len(rates) != 1:
            raise InvalidDataError(
                f"dataset {self.name!r} mixes sampling rates {sorted(rates)}; resample or select "
                "recordings of one rate")
        return rates.pop()

    def label_names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(k for r in self.recordings for k in r.labels))

    def units_per_participant(self, per_recording: Callable[[Recording], int]) -> dict[str, int]:
        """Sum a per-recording unit count (e.g. windows) per participant: the public shape."""
        out: dict[str, int] = {}
        for r in self.recordings:
            out[r.participant] = out.get(r.participant, 0) + int(per_recording(r))
        return out

    def map(self, fn: Callable[[Recording], Recording], *, name: str | None = None) -> Dataset:
        """Apply ``fn`` to every recording (same order) and return a new dataset."""
        return Dataset(tuple(fn(r) for r in self.recordings), name=name or self.name,
                       info=self.info, schema=self.schema)

    def select(self, predicate: Callable[[Recording], bool]) -> Dataset:
        return Dataset(tuple(r for r in self.recordings if predicate(r)), name=self.name,
                       info=self.info, schema=self.schema)

    def summary(self) -> pl.DataFrame:
        """One row per recording: ids, labels, samples, duration, rate, missing fraction."""
        rows = []
        for r in self.recordings:
            rows.append({"recording": r.recording, "participant": r.participant,
                         **r.labels, "n_samples": r.n_samples,
                         "duration_s": round(r.duration_s, 3),
                         "sampling_rate_hz": r.sampling_rate_hz,
                         "missing_fraction": float(r.missing.mean())})
        return pl.DataFrame(rows, infer_schema_length=None)

    def to_table(self, *, chunks: bool = False) -> pl.DataFrame:
        """The whole dataset in the long format, recordings in order.

        ``chunks=True``: the float columns are the recordings' own read-only arrays, one chunk
        each, instead of one new array (no copy; gaze with a NaN of another bit pattern than
        ``np.nan``'s is still copied): for a table that is written and dropped (a sealed
        release). The values are the same either way.
        """
        if not self.recordings:
            return pl.DataFrame(schema={c: (pl.String if c in ("participant", "recording")
                                            else pl.Float64) for c in CORE_COLUMNS})
        table = _uniform_table(self.recordings, chunks=chunks)
        if table is None:  # recordings with different columns: per recording, then aligned
            table = pl.concat([r.to_table() for r in self.recordings], how="diagonal_relaxed")
        return table if self.schema is None else restore_schema(table, self.schema)

    def __repr__(self) -> str:
        return (f"Dataset({self.name!r}, {len(self)} recordings, "
                f"{len(self.participants)} participants, {self.n_samples} samples)")


def _uniform_table(recs: tuple[Recording, ...], *, chunks: bool = False
                   ) -> pl.DataFrame | None:
    """:meth:`Dataset.to_table` of recordings that all have the same columns (pupil, channels,
    extras of one dtype each, labels), built from whole concatenated columns at once: the same
    table as concatenating the recordings' own tables, in a fraction of the time.
    None when the recordings' columns differ. ``chunks``: float columns as the recordings' own
    arrays, one chunk each (:meth:`Dataset.to_table`)."""
    first = recs[0]
    keys = (first.pupil is None, tuple(first.channels), tuple(first.labels),
            tuple((k, v.dtype) for k, v in first.extras.items()))
    if any((r.pupil is None, tuple(r.channels), tuple(r.labels),
            tuple((k, v.dtype) for k, v in r.extras.items())) != keys for r in recs[1:]):
        return None
    sizes = np.fromiter((r.n_samples for r in recs), dtype=np.int64, count=len(recs))
    which = pl.Series(np.repeat(np.arange(len(recs), dtype=np.uint32), sizes))

    def per_rec(values: list[str], which: pl.Series) -> pl.Series:
        return pl.Series(values, dtype=pl.String).gather(which)

    def joined(get: Callable[[Recording], np.ndarray], gaze: bool = False) -> Any:
        parts = [get(r) for r in recs]
        if chunks and all(not p.flags.writeable and (not gaze or _canonical_nans(p))
                          for p in parts):
            # zero-copy Series of read-only arrays (kept alive by polars), one chunk each
            return pl.concat([pl.Series(p) for p in parts], rechunk=False)
        whole = np.concatenate(parts)  # a new array, also for one recording
        return _nan_canonical(whole) if gaze else whole

    ids = {k: per_rec([getattr(r, k) for r in recs], which) for k in ("participant",
                                                                      "recording")}
    labels = {k: per_rec([r.labels[k] for r in recs], which) for k in first.labels}
    del which  # (the row index, as long as a column: freed before the numeric columns)
    ts = [r.t for r in recs]
    whole_t = _consecutive(ts)  # the sealed release's grid: one array, not copied again
    cols: dict[str, Any] = {
        **ids, "t": whole_t if whole_t is not None else np.concatenate(ts),
        "x": joined(lambda r: r.x, gaze=True), "y": joined(lambda r: r.y, gaze=True),
    }
    del ts, whole_t
    if first.pupil is not None:
        cols["pupil"] = joined(lambda r: r.pupil)  # type: ignore[arg-type,return-value]
    cols.update({k: joined(lambda r, k=k: r.channels[k]) for k in first.channels})
    cols.update({k: pl.concat([r.extras[k] for r in recs]).alias(k) for k in first.extras})
    cols.update(labels)
    return pl.DataFrame(cols)


def _consecutive(parts: list[np.ndarray]) -> np.ndarray | None:
    """The one read-only array whose consecutive slices ``parts`` are, in order (a view of
    their common base), or None when they are not."""
    base = parts[0].base
    if (not isinstance(base, np.ndarray) or base.flags.writeable or base.ndim != 1
            or any(p.base is not base or p.dtype != base.dtype or p.ndim != 1
                   or p.strides != (p.itemsize,) for p in parts)):
        return None
    at = parts[0].__array_interface__["data"][0]
    start = at - base.__array_interface__["data"][0]
    for p in parts:
        if p.__array_interface__["data"][0] != at:
            return None
        at += p.nbytes
    first = start // base.itemsize
    return base[first:first + sum(p.size for p in parts)]


#: The bit pattern of ``np.nan`` (:func:`_nan_canonical`).
_NAN_BITS = np.array(np.nan).view(np.uint64)


def _canonical_nans(a: np.ndarray) -> bool:
    """Whether every NaN of float64 ``a`` has ``np.nan``'s bit pattern (0 / 0 gives another)."""
    nan = np.isnan(a)
    return not nan.any() or bool((a.view(np.uint64)[nan] == _NAN_BITS).all())


def _nan_canonical(a: np.ndarray) -> np.ndarray:
    """``a`` (a new array, changed in place) with every NaN as the one NaN bit pattern of
    ``np.nan``, as :meth:`Recording.to_table` writes it."""
    np.copyto(a, np.nan, where=np.isnan(a))
    return a


# polars' Rust code loads NumPy's C API lazily, on the first ``to_numpy``, by running Python
# code (NumPy's version check). A Ctrl-C landing in that call is turned into a Rust panic (a
# PanicException and a Rust backtrace on stderr), not a KeyboardInterrupt, so the command line
# cannot report it as an interruption (exit 130). One conversion when the data model is
# imported, before anything long can be interrupted, loads it; later conversions run no NumPy
# Python code. (Measured: 233 Python calls on the first conversion, 19 polars wrappers after.)
pl.Series([0.0]).to_numpy()
