# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth's device protocol at the participant level, the mechanism's side: the curator's
public plan (:class:`ParticipantPlan`: which windows each device reports, drawn from public row
counts) and a device's report of its planned windows (:func:`planned_report`, used by
:func:`~gazeprivacy.mechanisms.samples.dpgazesynth.protocol_phases.client_message`). The
curator's validation against the plan is :mod:`gazeprivacy.deploy.protocol`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gazeprivacy.data.recording import Recording
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.mechanisms.samples.dpgazesynth.grid import (
    ClientReport,
    _subset_windows,
    client_windows,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.params import DPGazeSynthParams
from gazeprivacy.mechanisms.samples.dpgazesynth.participant_plan import (
    PartitionShape,
    draw_windows,
    noise_windows,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.protocol_phases import (
    Announcement,
    _int,
    _str,
    announcement_diff,
)

__all__ = [
    "ParticipantPlan",
    "planned_report",
]


@dataclass(frozen=True, kw_only=True)
class ParticipantPlan:
    """The curator's public plan at ``unit="participant"``: which windows each device reports.

    Drawn by :meth:`draw` from public counts only (every recording's participant and row count:
    recording lengths are public at this level), ``m`` windows per participant uniformly
    without replacement over all of its recordings (:func:`draw_windows`, the draw of
    :func:`participant_windows`). ``recordings`` holds ``(recording, participant, rows)`` in
    the order drawn; ``windows`` each recording's drawn window indices (``W`` rows each).

    >>> from gazeprivacy.data import Geometry
    >>> geo = Geometry(x_min_deg=0, x_max_deg=10, y_min_deg=0, y_max_deg=10)
    >>> p = DPGazeSynthParams(epsilon=3.0, grid_size=10, unit="participant",
    ...                       windows_per_participant=2)
    >>> a = Announcement.of(p, sampling_rate_hz=100.0, geometry=geo)
    >>> plan = ParticipantPlan.draw(a, [("r1", "ann", 500), ("r2", "ann", 250)],
    ...                             rng=np.random.default_rng(0))
    >>> sum(len(w) for w in plan.windows.values())  # m = 2 of ann's 5 + 3 windows
    2
    """

    announcement: Announcement
    recordings: tuple[tuple[str, str, int], ...]
    windows: dict[str, tuple[int, ...]]

    @classmethod
    def draw(cls, announcement: Announcement, recordings: Sequence[tuple[str, str, int]], *,
             rng: np.random.Generator) -> ParticipantPlan:
        """Draw the plan from public counts ``(recording, participant, rows)``.

        Raises
        ------
        InvalidParameterError
            A window-level announcement.
        InvalidDataError
            Repeated recording ids, or a participant with fewer than ``m`` windows.
        """
        a = announcement
        if a.unit != "participant":
            raise InvalidParameterError("a participant plan needs a unit='participant' "
                                        "announcement (it has windows_per_participant)")
        recs = tuple((str(r), str(q), int(n)) for r, q, n in recordings)
        if len({r for r, _, _ in recs}) != len(recs):
            raise InvalidDataError("recording ids repeat in the public counts")
        n_win = [-(-n // a.window_samples) for _, _, n in recs]
        (drawn,) = draw_windows([PartitionShape(tuple(q for _, q, _ in recs), tuple(n_win))],
                                a.params(), rng)
        ends = np.cumsum(n_win)
        rec = np.searchsorted(ends, drawn, side="right")
        local = drawn - (ends[rec] - np.asarray(n_win)[rec])
        windows = {recs[j][0]: tuple(int(w) for w in local[rec == j]) for j in np.unique(rec)}
        return cls(announcement=a, recordings=recs, windows=windows)

    def selection(self, recordings: Sequence[str], rows: Sequence[int]) -> np.ndarray:
        """The planned windows of these recordings (in this order, ``W`` rows per window) as
        indices into their concatenated windows.

        Raises
        ------
        InvalidDataError
            A recording not in the plan, or with other rows than the plan was drawn from.
        """
        known = {r: n for r, _, n in self.recordings}
        w = self.announcement.window_samples
        out, offset = [], 0
        for r, n in zip(recordings, rows, strict=True):
            if r not in known:
                raise InvalidDataError(f"recording {r!r} is not in the curator's plan")
            if int(n) != known[r]:
                raise InvalidDataError(f"recording {r!r} has {int(n)} rows, the plan was drawn "
                                       f"from {known[r]}")
            out += [offset + k for k in self.windows.get(r, ())]
            offset += -(-int(n) // w)
        return np.array(out, dtype=np.int64)

    def participant_of(self, recording: str) -> str | None:
        return next((q for r, q, _ in self.recordings if r == recording), None)

    def to_dict(self) -> dict[str, Any]:
        return {"announcement": self.announcement.to_dict(),
                "recordings": [list(t) for t in self.recordings],
                "windows": {r: list(w) for r, w in self.windows.items()}}

    @classmethod
    def from_dict(cls, d: Any) -> ParticipantPlan:
        """Parse a plan; :class:`InvalidDataError` if it is malformed."""
        if not isinstance(d, dict) or sorted(d) != ["announcement", "recordings", "windows"]:
            raise InvalidDataError("a participant plan has exactly the keys announcement, "
                                   "recordings and windows")
        try:
            recs = tuple((_str(r), _str(q), _int(n)) for r, q, n in d["recordings"])
            windows = {_str(r): tuple(_int(k) for k in w) for r, w in d["windows"].items()}
        except (TypeError, ValueError, AttributeError) as exc:
            raise InvalidDataError(f"participant plan is not valid: {exc}") from None
        return cls(announcement=Announcement.from_dict(d["announcement"]), recordings=recs,
                   windows=windows)



def planned_report(recs: tuple[Recording, ...], p: DPGazeSynthParams,
                    plan: ParticipantPlan | None, a: Announcement,
                    rng: np.random.Generator) -> ClientReport:
    """``unit="participant"``: the device's report of its planned windows only, laid out over
    all of its windows (the others send nothing)."""
    if plan is None:
        raise InvalidParameterError("a unit='participant' device reports the windows of the "
                                    "curator's plan: pass plan= (ParticipantPlan)")
    if plan.announcement != a:
        raise InvalidParameterError("the plan was drawn under another announcement: "
                                    f"{announcement_diff(plan.announcement, a)}")
    for r in recs:
        if plan.participant_of(r.recording) not in (None, r.participant):
            raise InvalidDataError(f"recording {r.recording!r} belongs to participant "
                                   f"{r.participant!r}, the plan says "
                                   f"{plan.participant_of(r.recording)!r}")
    sel = plan.selection([r.recording for r in recs], [r.n_samples for r in recs])
    windows = client_windows(recs, p)
    sub = noise_windows(_subset_windows(windows, sel), p, rng.spawn(3))
    return ClientReport(
        valid_rows=windows.valid_rows, run_window=sel[sub.run_window],
        run_length=sub.run_length, start_cell=_spread(sub.start_cell, sel, windows.n_windows),
        window_x0=windows.x0, window_y0=windows.y0, window_cw=windows.cw, window_ch=windows.ch,
        reports=sub.reports, report_windows={e: sel[v] for e, v in sub.report_windows.items()})


def _spread(values: np.ndarray, at: np.ndarray, n: int) -> np.ndarray:
    out = np.full(n, -1, dtype=np.int64)
    out[at] = values
    return out
