# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""EyeLink ``.asc`` files (SR Research's ``edf2asc`` text export) as a Dataset.

* **Samples**: lines ``TIME X Y PUPIL [...]`` (monocular) or ``TIME XL YL PL XR YR PR [...]``
  (binocular), as the ``SAMPLES`` / ``START`` lines say (``LEFT``, ``RIGHT``); ``.`` is a missing
  value; further fields (flags, velocities) are ignored. A sample line that does not parse is
  skipped and counted (one warning with the count and the first such line).
* **Rate**: the ``RATE`` of the ``SAMPLES`` line (else of ``RECCFG``); a file without one gets
  the clock's nominal rate (:mod:`gazeprivacy.data.rates`), and the reading says so.
* **Screen**: ``DISPLAY_COORDS left top right bottom`` gives the pixel grid.
* **Trials**: ``MSG ... TRIALID id`` starts a trial and ``MSG ... TRIAL_RESULT`` ends it (or a
  message matching ``trial_message``, a regular expression, starts one; its first group, else
  its number, is the id). Each trial is a recording labelled ``trial`` (the id), ``stimulus``
  (the file of the trial's ``!V IMGLOAD``) and each ``!V TRIAL_VAR name value``. Samples outside
  every trial are dropped (counted). A file without trials is one recording.
* **Eye**: ``eye="left"`` (the default for binocular files, as before), ``"right"``, ``"mean"``
  (the mean of both eyes where both are valid, else the valid one) or ``"both"`` (one recording
  per eye, labelled ``eye``; each is protected). A monocular file is its recorded eye.

Our own parser, not ``pm.gaze.from_asc``: pymovements (0.28) stops with a ``TypeError`` on a
malformed sample line or a file without ``RATE``, and keeps neither trials nor both eyes here.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy.data.exports import Counts, finish, participant_from_name
from gazeprivacy.data.geometry import Geometry, ScreenSetup
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import DataPolicyWarning, InvalidDataError, InvalidParameterError

__all__ = ["AscFile", "parse_asc", "read_eyelink"]

_MISSING = "."


@dataclass
class _Trial:
    trial_id: str
    start: int                 # the line that opens it
    end: int | None = None     # its TRIAL_RESULT line
    labels: dict[str, str] = field(default_factory=dict)
    rows: list[int] = field(default_factory=list)


@dataclass
class AscFile:
    """What :func:`parse_asc` finds in an ``.asc`` file."""

    time_ms: np.ndarray        # per sample
    gaze: np.ndarray           # (n, 6): xl, yl, pl, xr, yr, pr (NaN: missing or not recorded)
    eyes: tuple[str, ...]      # "left", "right" or both
    rate_hz: float | None
    rate_from: str             # "RATE" (of a SAMPLES line) or "RECCFG"
    display_px: tuple[int, int] | None
    trials: list[_Trial]
    outside: int               # samples outside every trial (when there are trials)
    malformed: int
    first_malformed: str


class _Parser:
    """One pass over the lines (module docstring)."""

    def __init__(self, trial_message: str | None) -> None:
        try:
            self.pattern = re.compile(trial_message) if trial_message else None
        except re.error as exc:
            raise InvalidParameterError(f"trial_message is no regular expression: {exc}") \
                from None
        self.eyes: tuple[str, ...] = ()
        self.rates: list[float] = []
        self.reccfg_rate: float | None = None
        self.display: tuple[int, int] | None = None
        self.blocks: list[tuple[int, tuple[str, ...]]] = []  # (line, eyes) of each header
        self.trials: list[_Trial] = []
        self.current: _Trial | None = None
        self.last: _Trial | None = None
        self.markers = 0

    def header(self, parts: list[str], number: int) -> None:
        """A ``START`` / ``SAMPLES`` line: the eyes and the rate."""
        self.markers += 1
        words = [p.upper() for p in parts]
        eyes = tuple(e for e, w in (("left", "LEFT"), ("right", "RIGHT")) if w in words)
        if eyes:
            self.blocks.append((number, eyes))
            if parts[0].upper() == "SAMPLES" or not self.eyes:
                self.eyes = eyes
        if "RATE" in words:
            i = words.index("RATE")
            with contextlib.suppress(IndexError, ValueError):
                self.rates.append(float(parts[i + 1]))

    def message(self, text: str, number: int) -> None:
        self.markers += 1
        body = text.split(None, 1)[1] if len(text.split(None, 1)) > 1 else ""
        body = re.sub(r"^[\d.]+\s+(-?\d+\s+)?", "", body)  # the time, an optional offset
        if body.startswith("DISPLAY_COORDS"):
            v = body.split()[1:5]
            try:
                x0, y0, x1, y1 = (float(a) for a in v)
                self.display = (round(x1 - x0 + 1), round(y1 - y0 + 1))
            except ValueError:
                pass
        elif body.startswith("RECCFG"):
            v = body.split()
            if len(v) > 2 and v[2].replace(".", "", 1).isdigit():
                self.reccfg_rate = float(v[2])
        starts = self.pattern.search(body) if self.pattern is not None else (
            re.match(r"TRIALID\b\s*(.*)", body))
        if starts:
            tid = (starts.group(1) if starts.groups() and starts.group(1) else
                   str(len(self.trials) + 1)).strip() or str(len(self.trials) + 1)
            self.current = self.last = _Trial(tid, number)
            self.trials.append(self.current)
        elif body.startswith("TRIAL_RESULT"):
            if self.current is not None:
                self.current.end = number
            self.current = None
        elif body.startswith("!V TRIAL_VAR ") and self.last is not None:
            v = body.split(None, 3)
            if len(v) >= 3:
                self.last.labels[v[2]] = v[3].strip() if len(v) > 3 else ""
        elif body.startswith("!V IMGLOAD") and self.last is not None:
            v = body.split()
            if len(v) >= 4:
                self.last.labels["stimulus"] = v[3]


def _samples(lines: pl.Series, eyes_of: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sample lines parsed at once: (time, gaze (n, 6), ok); ``eyes_of`` per line: 0 left,
    1 right, 2 both. A line is not ok when its time or one of the values its eyes need is
    neither a number nor ``.``."""
    fields = lines.str.strip_chars().str.replace_all(r"\s+", " ").str.split(" ")
    cols = pl.DataFrame({"f": fields}).select(
        pl.col("f").list.get(i, null_on_oob=True).alias(str(i)) for i in range(7))
    num = cols.select(pl.all().cast(pl.Float64, strict=False)).to_numpy()
    valid = cols.select(((pl.all() == _MISSING) | pl.all().cast(pl.Float64, strict=False)
                         .is_not_null()).fill_null(False)).to_numpy()
    need = np.where(eyes_of == 2, 6, 3)
    ok = np.isfinite(num[:, 0])
    for k in range(1, 7):
        ok &= valid[:, k] | (k > need)
    gaze = np.full((len(lines), 6), np.nan)
    both, left, right = eyes_of == 2, eyes_of == 0, eyes_of == 1
    gaze[both] = num[both, 1:7]
    gaze[left, 0:3] = num[left, 1:4]
    gaze[right, 3:6] = num[right, 1:4]
    return num[:, 0], gaze, ok


# long: the parse in order (read, the few non-sample lines in a loop, the samples at once,
# trials by line number)
def parse_asc(path: str | Path, *, trial_message: str | None = None) -> AscFile:
    """Parse an EyeLink ``.asc`` file (module docstring). Sample lines are parsed at once by
    polars; the other lines (messages, headers) one by one.

    Raises
    ------
    InvalidDataError
        The file cannot be read, is no EyeLink ASC file, or holds no sample.
    """
    path = Path(path)
    p = _Parser(trial_message)
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        raise InvalidDataError(f"cannot read {str(path)!r}: {exc}") from None
    col = pl.Series("line", lines, dtype=pl.String)
    is_sample = col.str.contains(r"^\d").to_numpy() if lines else np.zeros(0, dtype=bool)
    for number in np.flatnonzero(~is_sample):
        line = lines[number]
        if line.startswith("MSG"):
            p.message(line, int(number))
        elif line.startswith(("START", "SAMPLES")):
            p.header(line.split(), int(number))
        elif line.startswith("**"):
            p.markers += 1
    if not p.markers:
        raise InvalidDataError(_not_asc(path))
    sidx = np.flatnonzero(is_sample)
    code = {("left",): 0, ("right",): 1, ("left", "right"): 2}
    block = np.searchsorted(np.asarray([n for n, _ in p.blocks], dtype=np.int64), sidx) - 1
    block_eyes = np.asarray([code[e] for _, e in p.blocks] or [0])
    eyes_of = np.where(block >= 0, block_eyes[np.maximum(block, 0)], block_eyes[0])
    t, gaze, ok = _samples(col.gather(sidx), eyes_of)
    bad = np.flatnonzero(~ok)
    first_bad = (f"line {sidx[bad[0]] + 1}: {lines[sidx[bad[0]]].strip()[:60]!r}"
                 if bad.size else "")
    sidx, t, gaze = sidx[ok], t[ok], gaze[ok]
    outside = 0
    if p.trials:
        starts = [tr.start for tr in p.trials] + [len(lines)]
        inside = np.zeros(sidx.shape[0], dtype=bool)
        for k, tr in enumerate(p.trials):
            end = min(tr.end if tr.end is not None else len(lines), starts[k + 1])
            rows = np.flatnonzero((sidx > tr.start) & (sidx < end))
            tr.rows = rows.tolist()
            inside[rows] = True
        outside = int((~inside).sum())
    if not t.size:
        raise InvalidDataError(
            f"{str(path)!r}: no gaze samples found in the EyeLink ASC file"
            + (f" ({bad.size} sample lines do not parse; first: {first_bad})"
               if bad.size else ""))
    rate, where = ((p.rates[0], "RATE") if p.rates else (p.reccfg_rate, "RECCFG"))
    eyes = p.eyes or ("left",)
    return AscFile(time_ms=t, gaze=gaze, eyes=eyes, rate_hz=rate, rate_from=where,
                   display_px=p.display, trials=p.trials, outside=outside,
                   malformed=int(bad.size), first_malformed=first_bad)


def _not_asc(path: Path) -> str:
    hint = ""
    try:
        from gazeprivacy.data.readers import detect_format

        fmt = detect_format(path) if not path.name.lower().endswith(".asc") else None
        if fmt and fmt != "eyelink":
            hint = f"; it looks like a {fmt} export: pass input_format={fmt}"
    except InvalidDataError:
        pass
    return (f"{str(path)!r} is not an EyeLink ASC file (no START, SAMPLES or MSG line){hint}")


def _eye_columns(asc: AscFile, eye: str | None, path: Path) -> list[tuple[str | None, Any]]:
    """(eye label or None, (x, y, pupil) arrays) per recording of one trial's rows."""
    g = asc.gaze
    left, right = (g[:, 0], g[:, 1], g[:, 2]), (g[:, 3], g[:, 4], g[:, 5])
    recorded = asc.eyes
    if eye in ("left", "right") and eye not in recorded:
        raise InvalidParameterError(f"{str(path)!r} recorded the {recorded[0]} eye only; "
                                    f"eye={eye} is not in the file")
    if eye in ("mean", "both") and len(recorded) < 2:
        raise InvalidParameterError(f"{str(path)!r} recorded one eye ({recorded[0]}); "
                                    f"eye={eye} needs a binocular file")
    if eye == "both":
        return [("left", left), ("right", right)]
    if eye == "mean":  # both eyes where both are valid, else the valid one
        return [(None, tuple(np.where(np.isnan(a), b, np.where(np.isnan(b), a, (a + b) / 2))
                             for a, b in zip(left, right, strict=True)))]
    which = eye or recorded[0]
    return [(None, left if which == "left" else right)]


# long: one reader, its options checked and applied in order; parse_asc does the parsing
def read_eyelink(path: str | Path, *, px_per_deg: float | None = None,
                 geometry: Geometry | None = None, experiment: Any = None,
                 screen: ScreenSetup | None = None, labels: tuple[str, ...] | list[str] = (),
                 name: str | None = None, sampling_rate_hz: float | None = None,
                 participant: str | None = None, eye: str | None = None,
                 trial_message: str | None = None) -> Dataset:
    """An EyeLink ``.asc`` file as a Dataset, one recording per trial (module docstring).

    Pixels become degrees with ``px_per_deg`` (linear; geometry: the file's ``DISPLAY_COORDS``
    at that scale) or with the screen in physical units, ``screen`` (or a ``pm.Experiment``
    ``experiment`` with the screen's size and distance): ``atan``, pymovements' ``pix2deg``.
    ``sampling_rate_hz`` declares the rate (default: the file's ``RATE``). ``participant``
    defaults to the file name (with a warning).
    """
    import warnings

    path = Path(path)
    if experiment is not None and screen is None:
        s = experiment.screen
        screen = ScreenSetup(width_cm=s.width_cm, height_cm=s.height_cm,
                             distance_cm=s.distance_cm, width_px=int(s.width_px),
                             height_px=int(s.height_px))
    if screen is None and px_per_deg is None:
        raise InvalidParameterError(
            f"{str(path)!r}: EyeLink gaze is in pixels; pass px_per_deg=... or the screen's "
            "size and distance, screen=ScreenSetup(...)")
    if screen is not None and (px_per_deg is not None or geometry is not None):
        raise InvalidParameterError("the screen in physical units gives the conversion and the "
                                    "geometry: it goes without px_per_deg and geometry")
    asc = parse_asc(path, trial_message=trial_message)
    counts = Counts(path)
    counts.add(asc.malformed, f"malformed sample lines skipped (first: {asc.first_malformed})")
    counts.add(asc.outside, "samples outside every trial dropped")
    geo_source = ("the screen in physical units" if screen is not None else
                  "declared" if geometry is not None else
                  "missing (the file has no DISPLAY_COORDS)")
    if asc.display_px is not None:
        if screen is not None:
            screen = screen.with_pixels(*asc.display_px)
        elif geometry is None:
            geometry = Geometry.screen_px(width_px=asc.display_px[0],
                                          height_px=asc.display_px[1], px_per_deg=px_per_deg)
            geo_source = "export (DISPLAY_COORDS) at px_per_deg"
    if sampling_rate_hz is not None:
        rate, source = sampling_rate_hz, "declared"
    elif asc.rate_hz is not None:
        rate, source = asc.rate_hz, f"export (EyeLink {asc.rate_from})"
    else:
        rate, source = None, "declared"
        warnings.warn(f"{str(path)!r} has no RATE (SAMPLES line): the sampling rate is the "
                      "clock's nominal rate; declare it with sampling_rate_hz=...",
                      DataPolicyWarning, stacklevel=3)
    pid = participant or participant_from_name(path, path.name.split(".")[0],
                                               "EyeLink files carry none")
    stem = path.name.split(".")[0]
    parts = []
    trials = asc.trials or [_Trial("", 0, rows=list(range(len(asc.time_ms))))]
    empty = 0
    for trial in trials:
        if not trial.rows:
            empty += 1
            continue
        idx = np.asarray(trial.rows)
        sub = AscFile(time_ms=asc.time_ms[idx], gaze=asc.gaze[idx], eyes=asc.eyes,
                      rate_hz=asc.rate_hz, rate_from=asc.rate_from,
                      display_px=asc.display_px, trials=[], outside=0,
                      malformed=0, first_malformed="")
        for which, (x, y, pupil) in _eye_columns(sub, eye, path):
            rid = stem + (f" trial {trial.trial_id}" if asc.trials else "") + \
                (f" {which}" if which else "")
            parts.append(pl.DataFrame({
                "participant": pid, "recording": rid, "t": sub.time_ms / 1000.0, "x": x,
                "y": y, "pupil": pupil,
                **({"trial": trial.trial_id} if asc.trials else {}),
                **({"eye": which} if which else {}),
                **{k: v for k, v in trial.labels.items()
                   if k not in ("participant", "recording", "t", "x", "y", "pupil")}}))
    counts.add(empty, "trials without samples skipped")
    if not parts:
        raise InvalidDataError(f"{str(path)!r}: no trial holds a sample")
    table = pl.concat(parts, how="diagonal_relaxed")
    return finish(table, path, geometry=geometry, labels=labels, name=name,
                  sampling_rate_hz=rate, rate_source=source, xy_unit="px",
                  px_per_deg=px_per_deg if screen is None else None, screen=screen,
                  counts=counts, reading={"geometry": geo_source, "eye": eye or asc.eyes[0],
                                          "trials": len(asc.trials)})
