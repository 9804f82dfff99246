# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""A real-time privacy filter between an LSL gaze stream and its readers (Lab Streaming Layer).

:class:`LSLFilter` (alias ``Filter``) reads the source through an inlet, protects each chunk as it
arrives with :class:`~gazeprivacy.mechanisms.samples.kaleido.KaleidoStream` and publishes an
outlet: the protected ``x, y`` (degrees) plus the channels declared public (released unchanged),
at the source's nominal rate. The outlet's XML ``desc`` carries the guarantee record
(``desc/gazeprivacy/guarantee``, JSON) and each channel's status
(``desc/channels/channel/status``). Every other channel of the source is not released.
:func:`open_filter` resolves the source by name and sets the filter up; ``gazeprivacy stream``
is the command line over it.

Real streams: NaN in x or y (or a confidence channel below its threshold) is a missing sample,
which spends nothing and whose mask is public; chunks of any size; a source that drops is waited
for and picked up again when it returns (same name), the privacy state carried over.
Timestamps: ``nominal`` releases ``t0 + i / rate`` on the filter's clock
(:class:`NominalClock`), so nothing of the source clock (its offset, jitter, drift, dropped
samples) is released beyond the sample count and the times at which the filter (re)anchors its
clock (declared in the record); ``source`` releases the source's LSL timestamps, clock-corrected
to this machine, and the record declares them public.

LSL's network settings come from liblsl's configuration file (environment variable
``LSLAPICFG``, set before pylsl is imported). ``lsl_api.cfg`` beside this module
(:data:`LOOPBACK_CONFIG`) keeps every LSL packet on this machine (loopback only); the tests and
benchmarks use it. pylsl is the optional extra ``stream``; this module imports neither it nor
NumPy: the caller passes the imported ``pylsl`` module.
"""

from __future__ import annotations

import inspect
import os
import signal
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from gazeprivacy.exceptions import GazePrivacyError, InvalidDataError, InvalidParameterError

if TYPE_CHECKING:  # NumPy and the mechanism are imported when the filter runs
    import numpy as np

    from gazeprivacy.data.geometry import Geometry
    from gazeprivacy.guarantees import Guarantee
    from gazeprivacy.mechanisms.samples.kaleido import KaleidoParams, KaleidoStream

__all__ = [
    "LOOPBACK_CONFIG",
    "RECORD_VERSION",
    "Filter",
    "Halt",
    "LSLFilter",
    "Layout",
    "NominalClock",
    "channel_labels",
    "open_filter",
    "open_inlet",
    "session_plan",
]

#: liblsl configuration that keeps all LSL traffic on this machine (see the module docstring).
LOOPBACK_CONFIG = Path(__file__).with_name("lsl_api.cfg")
RECORD_VERSION = 1


# -- channel layout ----------------------------------------------------------------------------


def channel_labels(info: Any) -> list[str]:
    """Labels of an LSL stream's channels from ``desc/channels/channel/label`` (``ch<i>`` for
    a channel without one)."""
    labels: list[str] = []
    ch = info.desc().child("channels").child("channel")
    while not ch.empty() and len(labels) < info.channel_count():
        labels.append(ch.child_value("label"))
        ch = ch.next_sibling("channel")
    labels += [""] * (info.channel_count() - len(labels))
    return [lab or f"ch{i}" for i, lab in enumerate(labels)]


def _index(labels: list[str], name: str, flag: str) -> int:
    if name in labels:
        return labels.index(name)
    if name.isdigit() and int(name) < len(labels):
        return int(name)
    raise InvalidParameterError(
        f"{flag} {name!r}: the source has no such channel; it has: {', '.join(labels)} "
        "(or give a 0-based index)")


@dataclass(frozen=True)
class Layout:
    """Which source channels are read, protected and released."""

    x: int
    y: int
    public: tuple[int, ...]
    confidence: int | None
    labels: tuple[str, ...]

    @classmethod
    def build(cls, labels: list[str], *, x: str, y: str, public: list[str],
              confidence: str | None) -> Layout:
        ix, iy = _index(labels, x, "--x-channel"), _index(labels, y, "--y-channel")
        if ix == iy:
            raise InvalidParameterError("--x-channel and --y-channel name the same channel")
        pub = tuple(_index(labels, p, "--public") for p in public)
        if ix in pub or iy in pub:
            raise InvalidParameterError(
                "--public names the gaze channel; x and y are released protected, never as is")
        if len(set(pub)) != len(pub):
            raise InvalidParameterError("--public names a channel twice")
        conf = None if confidence is None else _index(labels, confidence,
                                                      "--confidence-channel")
        return cls(ix, iy, pub, conf, tuple(labels))

    def statuses(self, g: Guarantee) -> list[tuple[str, str]]:
        """(label, status) of each released channel, in outlet order."""
        p = g.parameters
        prot = (f"protected: {g.mechanism} [{g.mode}] {g.kind.value}, epsilon = {g.epsilon:g} "
                f"per w = {p['window_samples']} samples, r = {p['radius_deg']:g} deg"
                + ("" if g.formally_private else " (NOT FORMALLY PRIVATE: see the guarantee)"))
        return ([("x", prot), ("y", prot)]
                + [(self.labels[i], "public: declared --public, released unchanged")
                   for i in self.public])

    def unreleased(self) -> list[str]:
        used = {self.x, self.y, *self.public}
        return [lab for i, lab in enumerate(self.labels) if i not in used]


# -- timestamps --------------------------------------------------------------------------------


@dataclass
class NominalClock:
    """Released timestamps ``t0 + i / rate`` on the filter's clock.

    ``t0`` is set (anchored) at the first chunk so that its last sample gets the arrival time,
    and set again only when the nominal times drift more than ``max_drift_s`` from the arrival
    clock (after a reconnection or a long gap); the anchor times are public (counted in the
    record).
    """

    rate: float
    max_drift_s: float = 1.0
    t0: float | None = None
    i: int = 0
    anchors: int = 0

    def last_stamp(self, n: int, now: float) -> float:
        """The stamp of the last of the next ``n`` samples (the others are ``1 / rate``
        apart before it; LSL derives them from the stream's rate)."""
        last = None if self.t0 is None else self.t0 + (self.i + n - 1) / self.rate
        if last is None or abs(last - now) > self.max_drift_s:
            self.t0 = now - (self.i + n - 1) / self.rate
            self.anchors += 1
            last = now
        self.i += n
        return last

    def stamps(self, n: int, now: float) -> np.ndarray:
        """The stamps of the next ``n`` samples."""
        import numpy as np

        last = self.last_stamp(n, now)
        return last - np.arange(n - 1, -1, -1) / self.rate


# -- the filter --------------------------------------------------------------------------------


class Halt:
    """Ctrl-C / SIGTERM as the normal stop: a flag checked between pulls, so a chunk is never
    cut in half."""

    def __init__(self) -> None:
        self.flag = False
        self._old: dict[int, Any] = {}

    def __call__(self, *_: Any) -> None:
        self.flag = True

    def __enter__(self) -> Halt:
        self._old = {s: signal.signal(s, self) for s in (signal.SIGINT, signal.SIGTERM)}
        return self

    def __exit__(self, *_: Any) -> None:
        for s, h in self._old.items():
            signal.signal(s, h)


@dataclass
class LSLFilter:
    """Inlet -> KaleidoStream -> outlet; ``run`` until stopped or the deadline."""

    pylsl: ModuleType
    name: str
    inlet: Any                        # open StreamInlet of the source
    source: Any                       # its full StreamInfo (with desc)
    layout: Layout
    stream: KaleidoStream
    outlet_name: str
    timestamps: str
    min_confidence: float | None
    resolve_timeout: float
    seed: int | None = None
    halt: Halt = field(default_factory=Halt)
    rate: float = field(init=False)
    released: int = 0
    reconnections: int = 0
    stop_reason: str = "error"
    #: seconds without a sample after which the filter looks for the source under a new
    #: source id (liblsl recovers a source only under its old id, and waits for it silently)
    stall_s: float = 1.0
    #: at most this many samples are released (the session's ledger reservation,
    #: :func:`session_plan`); then the run stops with ``stop_reason == "budget"``
    max_samples: int | None = None

    def __post_init__(self) -> None:
        params = inspect.signature(self.pylsl.StreamInlet.pull_chunk).parameters
        self._one_call = "min_samples" in params and "as_numpy" in params
        lay = self.layout
        self._columns = [lay.x, lay.y, *lay.public]
        self.rate = float(self.source.nominal_srate())
        self.clock = NominalClock(self.rate)
        self.outlet = self.pylsl.StreamOutlet(self._outlet_info())
        self._uid, self._sid = self.source.uid(), self.source.source_id()
        self._resolver: Any = None

    def _open_inlet(self, info: Any) -> Any:
        return open_inlet(self.pylsl, info, self.timestamps, self.resolve_timeout)

    def _outlet_info(self) -> Any:
        lsl = self.pylsl
        layout = self.layout
        g = self.window_guarantee()
        chans = layout.statuses(g)
        info = lsl.StreamInfo(self.outlet_name, self.source.type() or "Gaze", len(chans),
                              self.rate, lsl.cf_double64, f"gazeprivacy-{self.outlet_name}")
        desc = info.desc()
        ch = desc.append_child("channels")
        for label, status in chans:
            c = ch.append_child("channel")
            c.append_child_value("label", label)
            c.append_child_value("unit", "degrees" if label in ("x", "y") else "")
            c.append_child_value("status", status)
        gp = desc.append_child("gazeprivacy")
        gp.append_child_value("record_version", str(RECORD_VERSION))
        gp.append_child_value("source", self.name)
        gp.append_child_value("guarantee", g.to_json(indent=None))
        gp.append_child_value("per_session", (
            f"after n samples: epsilon x ceil(n / {g.parameters['window_samples']}) (basic "
            "composition over disjoint w-windows); the filter's --record gives it at the end"))
        gp.append_child_value("timestamps", _timestamp_policy(self.timestamps))
        gp.append_child_value("missing", _missing_policy(self.min_confidence is not None))
        gp.append_child_value("not_released", ", ".join(layout.unreleased()))
        return info

    def guarantee(self) -> Guarantee:
        """The record so far: per w-window, samples released, per-session bound. A session
        from a fixed seed is not formally private (flagged; the seed's value is not in it)."""
        return self.stream.guarantee().as_seeded_release(self.seed is not None)

    def window_guarantee(self) -> Guarantee:
        """The per-w-window record (what a reader of the outlet needs up front)."""
        from gazeprivacy.mechanisms.samples.kaleido import guarantee as kaleido_guarantee

        return kaleido_guarantee(self.stream.params, sampling_rate_hz=self.rate
                                 ).as_seeded_release(self.seed is not None)

    def _pull(self, timeout: float) -> tuple[np.ndarray, np.ndarray]:
        """Wait up to ``timeout`` for one sample, then take what else is there (never wait for
        a full chunk: that would add latency)."""
        import numpy as np

        if self._one_call:  # pylsl >= 1.18: one call, straight into numpy
            data, ts = self.inlet.pull_chunk(timeout=timeout, max_samples=1024, min_samples=1,
                                             as_numpy=True)
            return np.asarray(data, dtype=np.float64), ts
        first, ts0 = self.inlet.pull_sample(timeout=timeout)
        if first is None:
            return np.zeros((0, len(self.layout.labels))), np.zeros(0)
        rest, ts = self.inlet.pull_chunk(timeout=0.0, max_samples=1024)
        data = np.asarray([first, *rest], dtype=np.float64)
        return data, np.asarray([ts0, *ts], dtype=np.float64)

    def _protect(self, data: np.ndarray, ts: np.ndarray) -> None:
        import numpy as np

        lay = self.layout
        if self.max_samples is not None and self.released + data.shape[0] > self.max_samples:
            keep = max(0, self.max_samples - self.released)  # the reservation's last samples
            data, ts = data[:keep], ts[:keep]
            if not keep:
                return
        out = data[:, self._columns]  # a copy: x, y (overwritten below), then the public ones
        x, y = out[:, 0], out[:, 1]
        if lay.confidence is not None and self.min_confidence is not None:
            x[~(data[:, lay.confidence] >= self.min_confidence)] = np.nan  # NaN conf.: missing
        with np.errstate(invalid="ignore", over="ignore"):  # inf - inf: NaN, not a warning
            s = float(x.sum()) + float(y.sum())
        if s - s != 0.0:  # an inf from a device (in x or y) is a missing sample here
            bad = ~(np.isfinite(x) & np.isfinite(y))
            x[bad] = np.nan
            y[bad] = np.nan  # a finite x beside an infinite y too: never an inf to the mechanism
        out[:, 0], out[:, 1] = self.stream.push(x, y)
        n = data.shape[0]
        if self.timestamps == "nominal":
            self.outlet.push_chunk(out, self.clock.last_stamp(n, self.pylsl.local_clock()))
        else:
            self.outlet.push_chunk(out, ts.tolist())
        self.released += n

    def _reconnect(self, deadline: float | None) -> bool:
        """The source is gone (not silently recoverable): resolve it again by name."""
        lsl = self.pylsl
        while not self.halt.flag and (deadline is None or lsl.local_clock() < deadline):
            found = lsl.resolve_byprop("name", self.name, 1, 1.0)
            if found and self._switch_to(found[0]):
                return True
        return False

    def _replaced(self) -> bool:
        """After a stall: is the source back under a new source id (a device restarted with a
        fresh id, which liblsl's own recovery never picks up)? Then switch to it."""
        if self._resolver is None:  # resolves in liblsl's background thread: never blocks
            self._resolver = self.pylsl.ContinuousResolver(prop="name", value=self.name,
                                                           forget_after=2.0)
        found = self._resolver.results()
        if not found or any(i.uid() == self._uid or (self._sid and i.source_id() == self._sid)
                            for i in found):
            return False  # gone, still there, or back under its id (liblsl recovers that)
        return self._switch_to(found[0])

    def _switch_to(self, info: Any) -> bool:
        if info.channel_count() != len(self.layout.labels) or info.nominal_srate() != self.rate:
            raise InvalidDataError(
                f"LSL stream {self.name!r} came back with {info.channel_count()} "
                f"channels at {info.nominal_srate():g} Hz; it had "
                f"{len(self.layout.labels)} at {self.rate:g} Hz")
        try:
            self.inlet = self._open_inlet(info)
        except GazePrivacyError:
            return False
        self._uid, self._sid = info.uid(), info.source_id()
        self.reconnections += 1
        return True

    def run(self, duration: float | None) -> None:
        """Filter until Ctrl-C / SIGTERM or ``duration`` seconds; ``stop_reason`` says which
        (it stays "error" when an exception ends the run)."""
        lsl = self.pylsl
        deadline = None if duration is None else lsl.local_clock() + duration
        last = lsl.local_clock()
        while not self.halt.flag:
            if self.max_samples is not None and self.released >= self.max_samples:
                self.stop_reason = "budget"
                return
            wait = 0.1 if deadline is None else min(0.1, deadline - lsl.local_clock())
            if wait <= 0:
                self.stop_reason = "duration"
                return
            try:
                data, ts = self._pull(wait)
            except _lost_error(lsl):
                if not self._reconnect(deadline):
                    break
                continue
            if data.shape[0]:
                self._protect(data, ts)
                last = lsl.local_clock()
            elif lsl.local_clock() - last > self.stall_s:
                self._replaced()
                last = lsl.local_clock()
        self.stop_reason = "interrupted" if self.halt.flag else "duration"

    def record(self, started: str) -> dict[str, Any]:
        g = self.guarantee()
        p = g.parameters
        return {
            "gazeprivacy_stream_record": RECORD_VERSION,
            "inlet": self.name, "outlet": self.outlet_name,
            "started_utc": started,
            "stopped_utc": datetime.now(UTC).isoformat(timespec="seconds"),
            "stop": self.stop_reason,
            "nominal_rate_hz": self.rate,
            "samples_released": self.released,
            "samples_missing": p["samples_missing"],
            "epsilon_per_w_window": g.epsilon,
            "window_samples": p["window_samples"],
            "windows": p["windows"],
            "per_session_epsilon_bound": p["session_epsilon_bound"],
            "reconnections": self.reconnections,
            "channels": [{"label": lab, "status": s} for lab, s in self.layout.statuses(g)],
            "not_released": self.layout.unreleased(),
            "timestamps": {"policy": self.timestamps,
                           "public": _timestamp_policy(self.timestamps),
                           "anchors": self.clock.anchors},
            "missing": _missing_policy(self.min_confidence is not None),
            "guarantee": g.to_dict(),
        }


def _timestamp_policy(kind: str) -> str:
    if kind == "nominal":
        return ("released timestamps are t0 + i / nominal rate on the filter's clock: public are "
                "the sample count and the times at which t0 was anchored (the first chunk, and "
                "again only after a drift over 1 s, e.g. a reconnection); the source clock, its "
                "jitter and dropped samples are not in the timestamps. Chunks are published as "
                "they arrive, so a reader's receipt times follow the source's sending times "
                "(transport timing, not covered by the guarantee)")
    return ("released timestamps are the source's LSL timestamps, clock-corrected to this "
            "machine: they are public, released as is (no privacy guarantee covers them), as "
            "are the times at which chunks are published")


def _missing_policy(confidence: bool) -> str:
    return ("a sample whose x or y is NaN or infinite"
            + (" or whose confidence is below --min-confidence (or NaN)" if confidence else "")
            + " is missing: it spends nothing, and the missing-sample mask is public")



def _lost_error(pylsl: ModuleType) -> type[Exception]:
    """pylsl's LostError (top level up to 1.16, in ``pylsl.util`` since)."""
    err = getattr(pylsl, "LostError", None)
    if err is None:
        from pylsl.util import LostError as err
    return err


def open_inlet(pylsl: ModuleType, info: Any, timestamps: str, timeout: float) -> Any:
    """An open inlet; with ``timestamps="source"`` its timestamps are clock-corrected to this
    machine (and kept monotonic)."""
    flags = (pylsl.proc_clocksync | pylsl.proc_monotonize) if timestamps == "source" else 0
    inlet = pylsl.StreamInlet(info, max_buflen=360, recover=True, processing_flags=flags)
    try:
        inlet.open_stream(timeout=timeout)
    except TimeoutError:
        raise GazePrivacyError(f"LSL stream {info.name()!r} was found but did not open within "
                               f"{timeout:g} s") from None
    return inlet



def _resolve(pylsl: ModuleType, name: str, timeout: float, halt: Halt) -> Any:
    """The source's StreamInfo, or None when stopped while waiting for it."""
    end = time.monotonic() + timeout
    found: list[Any] = []
    while not found and not halt.flag and time.monotonic() < end:
        found = pylsl.resolve_byprop("name", name, 1, min(1.0, max(end - time.monotonic(),
                                                                   0.05)))
    if halt.flag:
        return None
    if not found:
        raise GazePrivacyError(
            f"no LSL stream named {name!r} found within {timeout:g} s (LSL configuration: "
            f"{os.environ.get('LSLAPICFG', 'liblsl defaults')})")
    info = found[0]
    if not info.nominal_srate() > 0:
        raise InvalidDataError(f"LSL stream {name!r} has no nominal rate (irregular); Kaleido's "
                               "window needs one")
    if info.channel_format() in (pylsl.cf_string, getattr(pylsl, "cf_undefined", -1)):
        raise InvalidDataError(f"LSL stream {name!r} carries text, not gaze coordinates")
    return info


def open_filter(pylsl: ModuleType, *, inlet: str, outlet: str, params: KaleidoParams,
                geometry: Geometry | None, x_channel: str, y_channel: str, public: list[str],
                confidence_channel: str | None, min_confidence: float | None, timestamps: str,
                resolve_timeout: float, seed: int | None, halt: Halt) -> LSLFilter | None:
    """Resolve the LSL stream ``inlet``, open it and set up the filter that publishes the
    protected stream ``outlet`` (Kaleido at ``params``; generator from ``seed``, else OS
    entropy); None when ``halt`` stops the wait for the source."""
    from gazeprivacy.mechanisms.samples.kaleido import KaleidoStream

    info = _resolve(pylsl, inlet, resolve_timeout, halt)
    if info is None:
        return None
    source = open_inlet(pylsl, info, timestamps, resolve_timeout)
    full = source.info(timeout=resolve_timeout)  # with its desc (channel labels)
    layout = Layout.build(channel_labels(full), x=x_channel, y=y_channel,
                          public=public, confidence=confidence_channel)
    from gazeprivacy.rng import make_rng

    ks = KaleidoStream(params, rng=make_rng(seed), sampling_rate_hz=info.nominal_srate(),
                       geometry=geometry)
    return LSLFilter(pylsl, inlet, source, full, layout, ks, outlet, timestamps,
                     min_confidence, resolve_timeout, seed, halt)


def session_plan(params: KaleidoParams, *, sampling_rate_hz: float, duration_s: float,
                 participant: str, seed: int | None = None) -> tuple[Guarantee, int]:
    """What a privacy-budget ledger reserves for one streaming session of at most
    ``duration_s`` seconds of ``participant``'s gaze, before anything is released: the record
    composed over ``ceil(n / w)`` w-windows for ``n = ceil(duration_s x rate)`` samples, and
    ``n``, the most samples the filter may then release (:attr:`LSLFilter.max_samples`).

    >>> from gazeprivacy.mechanisms.samples.kaleido import KaleidoParams
    >>> g, n = session_plan(KaleidoParams(epsilon=1.0, radius_deg=2.0, window_s=0.5),
    ...                     sampling_rate_hz=100.0, duration_s=10.0, participant="p")
    >>> n, g.per_participant["p"].epsilon
    (1000, 20.0)
    """
    import math

    from gazeprivacy.mechanisms.samples.kaleido import guarantee as kaleido_guarantee

    if not (math.isfinite(duration_s) and duration_s > 0):
        raise InvalidParameterError(f"--duration must be > 0 with --ledger, got {duration_s!r}")
    n = math.ceil(duration_s * sampling_rate_hz)
    g = kaleido_guarantee(params, sampling_rate_hz=sampling_rate_hz)
    w = int(g.parameters["window_samples"])
    g = g.compose({participant: -(-n // w)}).as_seeded_release(seed is not None)
    return g, n


#: The class's former name (``gazeprivacy.cli.stream.Filter``).
Filter = LSLFilter
