# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy stream``: a real-time privacy filter between an LSL gaze stream and its readers.

Resolves the LSL stream ``--inlet NAME``, protects each chunk as it arrives with
:class:`~gazeprivacy.mechanisms.samples.kaleido.KaleidoStream` and publishes the outlet
``--outlet NAME``: the protected ``x, y`` (degrees) plus the channels declared ``--public``
(released unchanged), at the source's nominal rate. The outlet's XML ``desc`` carries the
guarantee record (``desc/gazeprivacy/guarantee``, JSON) and each channel's status
(``desc/channels/channel/status``). Every other channel of the source is not released.

It runs until stopped -- Ctrl-C (or SIGTERM) is its normal stop, exit 0 -- or for
``--duration S``, then writes the record of what it released (samples, per-w-window epsilon,
per-session bound) to ``--record FILE`` (written beside and renamed: never half a file).

Real streams: NaN in x or y (or a ``--confidence-channel`` below ``--min-confidence``) is a
missing sample, which spends nothing and whose mask is public; chunks of any size; a source that
drops is waited for and picked up again when it returns (same name), the privacy state carried
over. Timestamps: ``--timestamps nominal`` (default) releases ``t0 + i / rate`` on the filter's
clock, so nothing of the source clock (its offset, jitter, drift, dropped samples) is released
beyond the sample count and the times at which the filter (re)anchors its clock (declared in the
record); ``--timestamps source`` releases the source's LSL timestamps, clock-corrected to this
machine, and the record declares them public.

LSL's network settings come from liblsl's configuration file (environment variable
``LSLAPICFG``, or ``--lsl-config FILE``; ``--lsl-config loopback``: the packaged
``gazeprivacy/deploy/lsl_api.cfg``, which keeps every LSL packet on this machine). The filter
itself is the library :mod:`gazeprivacy.deploy.lsl`; this command parses the options, calls it
and prints.
"""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Annotated

import typer
from rich.console import Console

from gazeprivacy.cli._common import Output, check_outputs, parse_geometry, write_text_atomic
from gazeprivacy.deploy.lsl import LOOPBACK_CONFIG, Halt, open_filter
from gazeprivacy.exceptions import InvalidParameterError, MissingDependencyError

__all__ = ["LOOPBACK_CONFIG", "stream"]


def _import_pylsl(config: Path | None) -> ModuleType:
    """pylsl, with ``LSLAPICFG`` set first when ``config`` is given (liblsl reads it once)."""
    if config is not None:
        if str(config) == "loopback":
            config = LOOPBACK_CONFIG
        if not config.is_file():
            raise InvalidParameterError(f"--lsl-config {config}: no such file")
        os.environ["LSLAPICFG"] = str(config.resolve())
    try:
        import pylsl
    except ImportError:
        raise MissingDependencyError(
            "gazeprivacy stream needs pylsl (its wheels carry liblsl); install it with: "
            "pip install 'gazeprivacy[stream]'") from None
    return pylsl


def _realtime(err: Console) -> None:
    """Real-time FIFO scheduling for this process (the filter waits in liblsl between chunks,
    so it never spins); a warning when the OS refuses."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
    except (AttributeError, OSError) as exc:
        err.print(f"warning: --realtime: the OS refused real-time scheduling ({exc}); running "
                  "at normal priority", highlight=False, markup=False)


# long: one typed declaration per CLI flag (typer reads them from the signature)
def stream(
    inlet: Annotated[str, typer.Option(help="Name of the LSL gaze stream to protect.")],
    outlet: Annotated[str, typer.Option(help="Name of the protected LSL stream to publish.")],
    mechanism: Annotated[str, typer.Option(help="Streaming mechanism: kaleido.")],
    epsilon: Annotated[float, typer.Option(help="Budget per w consecutive samples.")],
    radius_deg: Annotated[float, typer.Option(
        help="r: how far each sample of a neighbouring stream may move, in degrees.")],
    window_s: Annotated[float, typer.Option(help="w in seconds (at the source's rate).")],
    geometry: Annotated[str | None, typer.Option(
        help="Screen X_MIN,X_MAX,Y_MIN,Y_MAX in degrees: published points are clamped to it "
             "(without it: to +-360 deg).")] = None,
    x_channel: Annotated[str, typer.Option(help="Label (or index) of the x channel, in "
                                                "degrees.")] = "x",
    y_channel: Annotated[str, typer.Option(help="Label (or index) of the y channel, in "
                                                "degrees.")] = "y",
    public: Annotated[list[str] | None, typer.Option(
        help="A channel released unchanged (repeatable); every channel not named is not "
             "released.")] = None,
    confidence_channel: Annotated[str | None, typer.Option(
        help="A confidence channel: samples below --min-confidence are missing.")] = None,
    min_confidence: Annotated[float | None, typer.Option(
        help="Threshold for --confidence-channel.")] = None,
    missing: Annotated[str, typer.Option(
        help="keep (missing samples are NaN) or hold (repeat the last point); the mask is "
             "public either way.")] = "keep",
    timestamps: Annotated[str, typer.Option(
        help="nominal (t0 + i / rate on this machine's clock) or source (the source's LSL "
             "timestamps, declared public).")] = "nominal",
    duration: Annotated[float | None, typer.Option(
        help="Stop after S seconds (default: run until Ctrl-C).")] = None,
    record: Annotated[Path | None, typer.Option(
        help="Write the record of what was released (JSON) here when stopping.")] = None,
    overwrite: Annotated[bool, typer.Option(help="Replace an existing --record file.")] = False,
    resolve_timeout: Annotated[float, typer.Option(
        help="Seconds to wait for the inlet stream.")] = 30.0,
    lsl_config: Annotated[Path | None, typer.Option(
        help="liblsl configuration file (sets LSLAPICFG); 'loopback': the packaged "
             "gazeprivacy/deploy/lsl_api.cfg, which keeps all LSL traffic on this machine.")
    ] = None,
    seed: Annotated[int | None, typer.Option(
        help="Fix the generator (research run; noted in the record). Default: OS entropy.")
    ] = None,
    realtime: Annotated[bool, typer.Option(
        help="Ask the OS for real-time scheduling (SCHED_FIFO; needs the privilege): lower "
             "latency on a busy machine.")] = False,
) -> None:
    """Protect a live LSL gaze stream with Kaleido and publish it as a new LSL stream."""
    if mechanism != "kaleido":
        raise InvalidParameterError(f"--mechanism {mechanism!r}: streaming supports kaleido")
    for flag, value, options in (("--timestamps", timestamps, ("nominal", "source")),
                                 ("--missing", missing, ("keep", "hold"))):
        if value not in options:
            raise InvalidParameterError(f"{flag} must be one of {', '.join(options)}, got "
                                        f"{value!r}")
    if (confidence_channel is None) != (min_confidence is None):
        raise InvalidParameterError("give --confidence-channel and --min-confidence together")
    if duration is not None and not duration > 0:
        raise InvalidParameterError(f"--duration must be > 0, got {duration!r}")
    from gazeprivacy.mechanisms.samples.kaleido import KaleidoParams

    geo = parse_geometry(geometry) if geometry else None
    params = KaleidoParams(epsilon=epsilon, radius_deg=radius_deg, window_s=window_s,
                           missing=missing, clamp=geo is not None)
    check_outputs([Output(record, "--record")],
                  inputs=[lsl_config if lsl_config and str(lsl_config) != "loopback" else None],
                  overwrite=overwrite)
    pylsl = _import_pylsl(lsl_config)
    err = Console(stderr=True)
    if realtime:
        _realtime(err)
    with Halt() as halt:
        filt = open_filter(pylsl, inlet=inlet, outlet=outlet, params=params, geometry=geo,
                           x_channel=x_channel, y_channel=y_channel, public=public or [],
                           confidence_channel=confidence_channel,
                           min_confidence=min_confidence, timestamps=timestamps,
                           resolve_timeout=resolve_timeout, seed=seed, halt=halt)
        if filt is None:
            err.print(f"stopped before {inlet!r} was found: nothing released", highlight=False,
                      markup=False)
            return
        layout = filt.layout
        started = datetime.now(UTC).isoformat(timespec="seconds")
        err.print(f"streaming {inlet!r} -> {outlet!r} ({layout.labels[layout.x]}, "
                  f"{layout.labels[layout.y]} protected; public: "
                  f"{', '.join(layout.labels[i] for i in layout.public) or 'none'}); "
                  "Ctrl-C stops", highlight=False, markup=False)
        t0 = time.monotonic()
        try:
            filt.run(duration)
        finally:  # what was released is recorded however the run ends
            rec = filt.record(started)
            if record is not None:
                write_text_atomic(record, json.dumps(rec, indent=2, allow_nan=False) + "\n")
    err.print(f"stopped ({filt.stop_reason}) after {time.monotonic() - t0:.1f} s: "
              f"{filt.released} samples released, per-session bound epsilon <= "
              f"{rec['per_session_epsilon_bound']:.4g}"
              + (f"; record: {record}" if record else ""), highlight=False, markup=False)
