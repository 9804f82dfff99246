# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The device protocol at the participant level, the curator's side: the public plan as a file
(:func:`write_plan`, :func:`read_plan`) and the check of a message against it
(:func:`planned_valid_rows`, called by :func:`gazeprivacy.deploy.protocol.validate_message`).

At ``unit="participant"`` the curator draws each participant's ``m`` windows from public row
counts (:class:`~gazeprivacy.mechanisms.samples.dpgazesynth.protocol_plan.ParticipantPlan`)
and hands the plan to the devices; a device reports its planned windows only (each at
``epsilon / m``) and sends nothing for the others. The curator refuses a message that reports a
window outside the plan, leaves out a planned window that has valid rows, or whose recordings
are not the plan's (participant, rows).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from gazeprivacy._atomic import Output, atomic_files, check_outputs
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.mechanisms.samples.dpgazesynth.protocol_phases import (
    ClientMessage,
    announcement_diff,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.protocol_plan import ParticipantPlan

__all__ = ["plan_of", "planned_valid_rows", "read_plan", "write_plan"]


def planned_valid_rows(m: ClientMessage, plan: ParticipantPlan | None, n_valid: np.ndarray
                       ) -> np.ndarray:
    """``unit="participant"``: the windows' valid rows where the plan has the device report,
    0 elsewhere (those windows must send nothing); a reported window outside the plan is
    refused."""
    a = m.announcement
    w = a.window_samples
    rec_of_win = np.repeat(np.arange(len(m.recordings)), -(-m.n_samples // w))
    declared = (m.runs_per_window > 0) | (m.start_cell >= 0)
    if plan is None:
        planned = declared
        counts: dict[str, int] = {}
        for j in rec_of_win[planned]:
            counts[m.participants[j]] = counts.get(m.participants[j], 0) + 1
        over = {q: c for q, c in counts.items() if c > int(a.windows_per_participant or 0)}
        if over:
            q, c = next(iter(over.items()))
            raise InvalidDataError(f"participant {q!r} reports {c} windows, more than m = "
                                   f"{a.windows_per_participant}")
    else:
        if plan.announcement != a:
            raise InvalidDataError("the plan was drawn under other parameters: "
                                   f"{announcement_diff(a, plan.announcement)}")
        for r, q in zip(m.recordings, m.participants, strict=True):
            if plan.participant_of(r) not in (None, q):
                raise InvalidDataError(f"recording {r!r} is participant "
                                       f"{plan.participant_of(r)!r}'s in the plan, not {q!r}'s")
        planned = np.zeros(m.n_windows, dtype=bool)
        planned[plan.selection(m.recordings, m.n_samples)] = True
    extra = np.flatnonzero(declared & ~planned)
    if extra.size:
        j = int(rec_of_win[extra[0]])
        first = int(extra[0] - np.searchsorted(rec_of_win, j))
        raise InvalidDataError(f"window {first} of recording {m.recordings[j]!r} is reported "
                               f"but not in the curator's plan ({extra.size} such windows)")
    return np.where(planned, n_valid, 0)


def write_plan(plan: ParticipantPlan, path: str | Path, *, overwrite: bool = False) -> Path:
    """Write the curator's participant plan (public) as JSON for the devices."""
    check_outputs([Output(path, "path", suffixes=(".json",))], overwrite=overwrite)
    with atomic_files(path) as (tmp,):
        tmp.write_text(json.dumps(plan.to_dict(), sort_keys=True))
    return Path(path)


def read_plan(path: str | Path) -> ParticipantPlan:
    """A participant plan written by :func:`write_plan`; :class:`InvalidDataError` if it is
    unreadable or malformed."""
    try:
        d = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise InvalidDataError(f"cannot read the participant plan {str(path)!r}: {exc}"
                               ) from None
    return ParticipantPlan.from_dict(d)


def plan_of(plan: ParticipantPlan | str | Path | None) -> ParticipantPlan | None:
    """The plan itself, or read from its file."""
    return read_plan(plan) if isinstance(plan, str | Path) else plan
