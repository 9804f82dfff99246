# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The reader options that ``protect`` and ``info`` share (``--rate``, ``--columns``, ``--eye``,
``--trial-message``, ``--screen-px``, ``--screen-cm``, ``--distance-cm``), parsed into
:func:`gazeprivacy.data.readers.read_input`'s arguments. ``docs/inputs.md`` is the guide.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated, Any

import typer

from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["ColumnsOpt", "DistanceOpt", "Eye", "EyeOpt", "RateOpt", "ScreenCmOpt",
           "ScreenPxOpt", "TrialMessageOpt", "input_file", "reader_options"]


class Eye(enum.StrEnum):
    """``--eye`` (gazeprivacy.data.readers.EYES)."""

    left = "left"
    right = "right"
    mean = "mean"
    both = "both"


RateOpt = Annotated[float | None, typer.Option(
    "--rate", help="The nominal sampling rate in Hz (default: the export's, else the clock's "
                   "snapped to a standard rate).")]
ColumnsOpt = Annotated[str | None, typer.Option(
    "--columns", help="Map your table's columns to the long format's, e.g. "
                      "participant=subject,recording=trial,t=timestamp,x=gaze_x,y=gaze_y.")]
EyeOpt = Annotated[Eye | None, typer.Option(
    "--eye", help="Binocular exports (Tobii, EyeLink): left, right, mean, or both (one "
                  "recording per eye, each protected). Default: Tobii's combined gaze point; "
                  "EyeLink's left eye (or the one recorded).")]
TrialMessageOpt = Annotated[str | None, typer.Option(
    "--trial-message", help="EyeLink: a message matching this regular expression starts a "
                            "trial (default: TRIALID ... TRIAL_RESULT).")]
ScreenPxOpt = Annotated[str | None, typer.Option(
    "--screen-px", help="Screen size W,H in pixels (default: the export's resolution).")]
ScreenCmOpt = Annotated[str | None, typer.Option(
    "--screen-cm", help="Screen size W,H in cm, with --distance-cm: pixels become degrees "
                        "exactly (atan). Not with --geometry or --px-per-deg.")]
DistanceOpt = Annotated[float | None, typer.Option(
    "--distance-cm", help="Eye-to-screen distance in cm (with --screen-cm).")]


def _pair(text: str, flag: str, kind: type) -> tuple[Any, Any]:
    try:
        a, b = (kind(v) for v in text.split(","))
    except ValueError:
        raise InvalidParameterError(f"{flag} must be W,H, got {text!r}") from None
    return a, b


def _columns(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in text.split(","):
        if "=" not in item:
            raise InvalidParameterError(f"--columns must be NAME=COLUMN,..., e.g. "
                                        f"participant=subject,t=timestamp; got {item!r}")
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def reader_options(*, rate: float | None = None, columns: str | None = None,
                   eye: Eye | None = None, trial_message: str | None = None,
                   screen_px: str | None = None, screen_cm: str | None = None,
                   distance_cm: float | None = None, geometry: Any = None,
                   px_per_deg: float | None = None) -> dict[str, Any]:
    """The flags as ``read_input`` arguments (only those given).

    >>> reader_options(columns="participant=subject,t=ts", rate=120)
    {'sampling_rate_hz': 120, 'columns': {'participant': 'subject', 't': 'ts'}}
    """
    from gazeprivacy.data.geometry import ScreenSetup

    out: dict[str, Any] = {}
    if rate is not None:
        if not rate > 0:
            raise InvalidParameterError(f"--rate must be > 0 Hz, got {rate:g}")
        out["sampling_rate_hz"] = rate
    if columns:
        out["columns"] = _columns(columns)
    if eye is not None:
        out["eye"] = eye.value
    if trial_message is not None:
        out["trial_message"] = trial_message
    if (screen_cm is None) != (distance_cm is None) or (screen_px and screen_cm is None):
        raise InvalidParameterError("--screen-cm W,H and --distance-cm D go together "
                                    "(--screen-px W,H with them, when the file does not say it)")
    if screen_cm is not None:
        if geometry is not None or px_per_deg is not None:
            raise InvalidParameterError(
                "--screen-cm / --distance-cm convert pixels and give the geometry: not with "
                "--geometry or --px-per-deg (one of the three; see docs/inputs.md)")
        w, h = _pair(screen_cm, "--screen-cm", float)
        px = _pair(screen_px, "--screen-px", int) if screen_px else (None, None)
        out["screen"] = ScreenSetup(width_cm=w, height_cm=h, distance_cm=float(distance_cm),
                                    width_px=px[0], height_px=px[1])
    return out


def input_file(path: Path, options: dict[str, Any]) -> Any:
    """``path`` carrying ``options`` (:class:`~gazeprivacy.data.readers.InputFile`) for
    library calls that take a path; the path itself without options."""
    if not options:
        return path
    from gazeprivacy.data.readers import InputFile

    return InputFile(path, **options)
