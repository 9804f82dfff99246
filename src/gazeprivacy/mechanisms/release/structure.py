# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The public structure of a written release: recordings per participant and rows per recording.

By default both are the input's (public by design, not protected: the record lists them and
:meth:`~gazeprivacy.guarantees.Guarantee.explain` says what they identified in the project's
evaluations). A mechanism that synthesises every row may instead fix them with a
:class:`PublicStructure` (a fixed number of recordings per participant and a fixed length), set in
its record's parameters (``recordings_per_participant``, ``output_length_s``): the writer then
checks that every participant and recording has it and that no per-row input column is declared
public beside it. Participant-level DPGazeSynth uses it (``--recordings-per-participant R
--output-length-s S``); so can any synthesis mechanism. Part of
:mod:`gazeprivacy.mechanisms.release`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.guarantees import ColumnStatus, Guarantee, Status

__all__ = ["PublicStructure", "check_synthetic_public", "synthetic_population",
           "synthetic_structure"]


@dataclass(frozen=True, kw_only=True)
class PublicStructure:
    """A fixed public structure: every participant has ``recordings_per_participant`` released
    recordings, every recording ``round(length_s x its rate)`` rows (either may be None: the
    input's, public by design).

    >>> s = PublicStructure(recordings_per_participant=2, length_s=5.0)
    >>> s.parameters()
    {'recordings_per_participant': 2, 'output_length_s': 5.0}
    >>> from gazeprivacy.guarantees import Kind, Unit
    >>> PublicStructure.of(Guarantee(mechanism="m", kind=Kind.PURE_DP, unit=Unit.PARTICIPANT,
    ...     parameters=s.parameters())) == s
    True
    """

    recordings_per_participant: int | None = None
    length_s: float | None = None

    def __post_init__(self) -> None:
        r = self.recordings_per_participant
        if r is not None and (isinstance(r, bool) or not isinstance(r, int) or r < 1):
            raise InvalidParameterError(f"recordings_per_participant must be an integer >= 1, "
                                        f"got {r!r}")
        n = self.length_s
        if n is not None and not (isinstance(n, int | float) and math.isfinite(n) and n > 0):
            raise InvalidParameterError(f"output_length_s must be > 0, got {n!r}")

    @classmethod
    def of(cls, g: Guarantee) -> PublicStructure:
        """The structure a record sets (its parameters ``recordings_per_participant`` and
        ``output_length_s``)."""
        p: Mapping[str, Any] = g.parameters
        return cls(recordings_per_participant=p.get("recordings_per_participant"),
                   length_s=p.get("output_length_s"))

    def parameters(self) -> dict[str, Any]:
        """The record parameters that state this structure."""
        return {"recordings_per_participant": self.recordings_per_participant,
                "output_length_s": self.length_s}

    def check(self, out: Dataset, source: Dataset | None, g: Guarantee,
              public: Iterable[str]) -> None:
        """Refuse a release that does not have this structure, or per-row input columns
        declared public beside a fixed length."""
        self._check_recordings(out, g)
        length = self.length_s
        if length is None:
            return
        wrong = [(r.recording, r.n_samples, round(length * r.sampling_rate_hz)) for r in out
                 if r.n_samples != round(length * r.sampling_rate_hz)]
        if wrong:
            rec, n, want = wrong[0]
            raise InvalidDataError(
                f"{g.mechanism}'s record says every recording is {length:g} s long "
                f"(output_length_s), but {len(wrong)} recordings are not (e.g. {rec!r}: {n} "
                f"rows, not {want}); the release is not written")
        rows = {"t"} | {c for r in (source if source is not None else out)
                        for c in ((*r.channels, *r.extras, "pupil") if r.pupil is not None
                                  else (*r.channels, *r.extras))}
        clash = sorted(rows & {str(p) for p in public})
        if clash:
            raise InvalidParameterError(
                f"{', '.join(clash)} cannot be declared public: {g.mechanism} releases every "
                f"recording at a public length ({length:g} s, output_length_s) and these "
                "per-row columns have the input's lengths; drop them from --public / public, or "
                "release without output_length_s")

    def _check_recordings(self, out: Dataset, g: Guarantee) -> None:
        want = self.recordings_per_participant
        if want is None:
            return
        counts: dict[str, int] = {}
        for r in out:
            counts[r.participant] = counts.get(r.participant, 0) + 1
        wrong = sorted(n for n in counts.values() if n != want)
        if wrong:
            raise InvalidDataError(
                f"{g.mechanism}'s record says every participant has {want} recordings "
                f"(recordings_per_participant), but {len(wrong)} participants do not (e.g. "
                f"{wrong[0]}); the release is not written")

    def columns(self, g: Guarantee) -> tuple[ColumnStatus, ColumnStatus]:
        """The record's entries for rows per recording and recordings per participant."""
        length, per = self.length_s, self.recordings_per_participant
        if length is None:
            rows = ColumnStatus(name="rows", status=Status.PUBLIC_BY_DESIGN, by="input",
                                note="public (the input's): row count of every recording, as "
                                     "in the input (SPEC 8); not protected")
        else:
            rows = ColumnStatus(name="rows", status=Status.PUBLIC_BY_DESIGN,
                                by=f"{g.mechanism} output_length_s",
                                note=f"public (set to {length:g} s by the release): every "
                                     f"recording has round({length:g} x sampling_rate_hz) "
                                     "rows, synthesised; the input's row counts are not "
                                     "written")
        if per is None:
            recordings = ColumnStatus(
                name="recordings", status=Status.PUBLIC_BY_DESIGN, by="input",
                note="public (the input's): one released recording per input recording, so "
                     "each participant's number of recordings is the input's; not protected")
        else:
            recordings = ColumnStatus(
                name="recordings", status=Status.PUBLIC_BY_DESIGN,
                by=f"{g.mechanism} recordings_per_participant",
                note=f"public (set to {per} by the release): every participant has {per} "
                     "synthesised recordings; the input's number of recordings per participant "
                     "is not written")
        return rows, recordings


# A synthetic population (participant-synth): its structure is set by its parameters.

def synthetic_population(g: Guarantee) -> bool:
    """Whether ``g``'s mechanism releases a synthetic population (its registry entry says so):
    a structure set by its parameters, not the input's recordings (docs/release.md)."""
    from gazeprivacy.mechanisms import MECHANISMS

    return g.mechanism in MECHANISMS and MECHANISMS[g.mechanism].synthetic_population


#: What a synthetic population never writes, whatever ``public`` says: the input's ids, clock,
#: mask, pupil and metadata do not exist in it (its ids are synthetic, its clock the grid).
_NOT_IN_SYNTHETIC = ("participant", "recording", "t", "mask", "name", "info", "pupil")


def synthetic_structure(g: Guarantee) -> tuple[ColumnStatus, ColumnStatus]:
    """The record's rows and recordings entries of a synthetic population: both set by its
    parameters, none of the input's."""
    p = g.parameters
    length = p.get("output_length_s")
    rows = ColumnStatus(name="rows", status=Status.PUBLIC_BY_DESIGN,
                        by=f"{g.mechanism} output_length_s",
                        note=f"public (set to {length:g} s by the release): every recording has "
                             f"round({length:g} x sampling_rate_hz) rows, synthesised; the "
                             "input's row counts are not written")
    recordings = ColumnStatus(
        name="recordings", status=Status.PUBLIC_BY_DESIGN, by=f"{g.mechanism} parameters",
        note=f"public (set by the release): {p.get('n_participants')} synthetic participants x "
             f"{len(p.get('label_values', [[]]))} public label values x "
             f"{p.get('recordings_per_participant')} recordings; the input's recordings, their "
             "number per participant and their order are not written")
    return rows, recordings


def check_synthetic_public(g: Guarantee, public: Iterable[str],
                            pupil_epsilon: float | None) -> None:
    bad = sorted(set(public) & set(_NOT_IN_SYNTHETIC))
    if bad or pupil_epsilon is not None:
        what = bad[0] if bad else "pupil_epsilon"
        raise InvalidParameterError(
            f"{what} does not apply to {g.mechanism}: a synthetic population writes only "
            "synthetic pseudonyms, the public time grid, x, y and the declared labels; declare "
            "labels only")
