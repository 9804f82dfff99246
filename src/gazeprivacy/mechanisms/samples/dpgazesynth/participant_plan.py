# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth at the participant level, partition-wise: a participant-grouped plan.

``unit="participant"`` draws each participant's ``m`` windows across *all* of its recordings,
which may sit in several partitions, and synthesises every released window from the whole
population's reports. Its plan (:class:`ParticipantPhases`, ``grouped = True``) therefore has a
public pass before the clients (see :mod:`gazeprivacy.engines.plan`):

1. **shape** (per partition, public): each recording's participant and window count
   ``ceil(rows / W)`` (recording lengths are public at this level);
2. **assign** (driver, public): :func:`draw_windows` draws every participant's ``m`` windows
   from the counts of all partitions -- exactly :func:`participant_windows` over the whole
   dataset -- and tells each partition which of its windows report;
3. **client** (per partition): the drawn windows only, discretised (no other window is read);
4. **curate** (driver): the noise is added once, over the drawn windows of all partitions in
   partition order (start points, run lengths, transitions, OUE), the transition model is
   estimated, and every released window's reporting window is drawn;
5. **release** (per partition): synthesis of the partition's recordings from the population.

Every random number is the one the in-memory run draws at the same seed (the plan reproduces
:func:`~gazeprivacy.mechanisms.samples.dpgazesynth.dpgazesynth`'s streams from the seed's root
generator, and positions each partition's synthesis in the one global stream with PCG64's
``advance``), so the release is bit-equal to one process at a seed (tested). The driver sees
the drawn windows' cells before noise (``m`` windows per participant): the engines' driver and
workers are the data holder's, as the local engine's one process is; a device that noises its
own windows is the device protocol's path.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from gazeprivacy.data.recording import Dataset, adopt
from gazeprivacy.exceptions import (
    InvalidDataError,
    InvalidParameterError,
    NotFormallyPrivateWarning,
)
from gazeprivacy.guarantees import Budget, Guarantee, Release
from gazeprivacy.mechanisms.contract import Mode, check_partition
from gazeprivacy.mechanisms.samples.dpgazesynth.client import noise_windows
from gazeprivacy.mechanisms.samples.dpgazesynth.curator import (
    TransitionModel,
    curate,
    perturb_reports,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.grid import (
    ClientReport,
    ClientWindows,
    _round_keep_sum,
    _subset_windows,
    client_windows,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.params import DPGazeSynthParams, window_samples
from gazeprivacy.mechanisms.samples.dpgazesynth.participant import (
    _at_output_length,
    _public_windows,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.privacy_map import (
    _check_windows_available,
    guarantee,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.synthesis import _synthesise

__all__ = [
    "ParticipantPhases",
    "PartitionShape",
    "draw_windows",
    "noise_windows",
    "one_process_streams",
    "partition_shape",
]


@dataclass(frozen=True)
class PartitionShape:
    """The public pass over one partition: per recording its participant and its windows."""

    participants: tuple[str, ...]
    n_windows: tuple[int, ...]


def partition_shape(part: Dataset, params: DPGazeSynthParams) -> PartitionShape:
    """Each recording's participant and ``ceil(rows / W)`` (public shape; reads no gaze)."""
    return PartitionShape(
        tuple(r.participant for r in part),
        tuple(-(-r.n_samples // window_samples(params, r.sampling_rate_hz)) for r in part))


def draw_windows(shapes: Sequence[PartitionShape], params: DPGazeSynthParams,
                 rng: np.random.Generator) -> list[np.ndarray]:
    """Every participant's ``m`` windows, drawn from the public counts of all partitions: per
    partition the sorted indices of its drawn windows (its recordings in order, ``ceil(rows /
    W)`` windows each). The draws are :func:`participant_windows`'s over the partitions'
    recordings in order (participants sorted, ``rng.choice`` without replacement over each
    participant's windows), in O(recordings + participants) memory instead of O(windows).

    Raises
    ------
    InvalidDataError
        A participant with fewer than ``m`` windows over all partitions.
    """
    n_win = np.array([n for s in shapes for n in s.n_windows], dtype=np.int64)
    owner = [p for s in shapes for p in s.participants]
    rec_off = np.concatenate([[0], np.cumsum(n_win)[:-1]]).astype(np.int64)
    recs_of: dict[str, list[int]] = {}
    for j, p in enumerate(owner):
        recs_of.setdefault(p, []).append(j)
    m = _check_windows_available({p: int(n_win[js].sum()) for p, js in recs_of.items()},
                                 params)
    picks = []
    for p in sorted(recs_of):
        js = np.array(recs_of[p], dtype=np.int64)
        ends = np.cumsum(n_win[js])
        k = rng.choice(int(ends[-1]), size=m, replace=False)  # = choice(p's windows)[...]
        at = np.searchsorted(ends, k, side="right")
        picks.append(rec_off[js[at]] + k - (ends[at] - n_win[js[at]]))
    drawn = np.sort(np.concatenate(picks)) if picks else np.zeros(0, dtype=np.int64)
    cuts = np.cumsum([sum(s.n_windows) for s in shapes])
    starts = np.concatenate([[0], cuts[:-1]])
    lo, hi = np.searchsorted(drawn, starts), np.searchsorted(drawn, cuts)
    return [drawn[a:b] - s for a, b, s in zip(lo, hi, starts, strict=True)]


class _StreamSlices:
    """``random(n)`` from given slices of one PCG64 stream, in order: what a partition's
    synthesis draws from the in-memory run's one synthesis stream (each double is one 64-bit
    draw, so a slice starts at ``advance(position)``)."""

    def __init__(self, state: dict[str, Any], segments: Sequence[tuple[int, int]]) -> None:
        self._state, self._segments, self._pos = state, list(segments), 0

    def random(self, size: int) -> np.ndarray:
        n = int(size)
        out = np.empty(n)
        done = 0
        while done < n:
            seg_start, within = 0, self._pos
            for start, length in self._segments:
                if within < length:
                    seg_start = start
                    break
                within -= length
            else:
                raise AssertionError("the synthesis drew more numbers than the partition plan "
                                     "positioned")
            k = min(n - done, length - within)
            bit = getattr(np.random, self._state["bit_generator"])()
            bit.state = self._state
            bit.advance(seg_start + within)
            out[done:done + k] = np.random.Generator(bit).random(k)
            done += k
            self._pos += k
        return out


@dataclass(frozen=True)
class _Drawn:
    """A partition's client message: its drawn windows before noise, and how many rows of each
    of its released windows get gaze (public)."""

    windows: ClientWindows | None
    n_valid_out: np.ndarray


@dataclass(frozen=True)
class _Piece:
    """What one partition's release needs beyond the shared model: the reporting window drawn
    for each of its released windows and its place in the synthesis stream."""

    pick: np.ndarray
    offset: int
    n_runs: int
    total_runs: int


@dataclass(frozen=True)
class _Model:
    """The curator's output shared by every partition: the transition model, the noisy
    reports of the drawn windows (start cells, run lengths) and the synthesis stream."""

    transition: TransitionModel
    report: ClientReport
    synth_state: dict[str, Any]


def _concat(parts: Sequence[ClientWindows]) -> ClientWindows:
    """The partitions' drawn windows as one block, in partition order (what the in-memory
    run's ``_subset_windows`` of all windows gives, up to the unused ``valid_rows``)."""
    per_win = ("n_valid", "start_x", "start_y", "x0", "y0", "x1", "y1", "cw", "ch", "radius")
    per_run = ("run_length", "run_cell", "run_col", "run_row")
    win_shift = np.cumsum([0] + [w.n_windows for w in parts])
    rec_shift = np.cumsum([0] + [w.rec_w.size for w in parts])
    cat = {f: np.concatenate([getattr(w, f) for w in parts]) for f in (*per_win, *per_run)}
    return ClientWindows(
        n_windows=int(win_shift[-1]), valid_rows=np.zeros(0, dtype=np.int64),
        rec_of_win=np.concatenate([w.rec_of_win + s for w, s in zip(parts, rec_shift,
                                                                     strict=False)]),
        run_window=np.concatenate([w.run_window + s for w, s in zip(parts, win_shift,
                                                                     strict=False)]),
        rec_w=np.concatenate([w.rec_w for w in parts]), **cat)


def _population_runs(report: ClientReport, pick: np.ndarray, n_valid: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(released window of each run, its length) when released window ``k`` takes the runs of
    reporting window ``pick[k]`` rescaled to ``n_valid[k]`` rows (zero runs dropped), as
    :func:`population_windows` does."""
    first = np.searchsorted(report.run_window, pick)
    count = np.searchsorted(report.run_window, pick, side="right") - first
    group = np.repeat(np.arange(pick.size), count)
    rank = np.arange(group.size) - np.repeat(np.cumsum(count) - count, count)
    values = report.run_length[np.repeat(first, count) + rank].astype(np.float64)
    lengths = _round_keep_sum(values, group, n_valid)
    keep = lengths > 0
    return group[keep], lengths[keep]


def _count_runs(report: ClientReport, pick: np.ndarray, n_valid: np.ndarray) -> int:
    """The number of runs :func:`_population_runs` gives, from its distinct (pick, rows) pairs
    only (the driver's bookkeeping, O(windows) without the rounding of every run)."""
    if pick.size == 0:
        return 0
    key = pick.astype(np.int64) * (int(n_valid.max()) + 1) + n_valid
    uniq, inv = np.unique(key, return_inverse=True)
    group, _ = _population_runs(report, uniq // (int(n_valid.max()) + 1),
                                uniq % (int(n_valid.max()) + 1))
    return int(np.bincount(group, minlength=uniq.size)[inv].sum())


@dataclass(frozen=True)
class _Streams:
    """The in-memory run's generators at a seed (see :func:`one_process_streams`)."""

    select: np.random.Generator
    start: np.random.Generator
    times: np.random.Generator
    trans: np.random.Generator
    curator: np.random.Generator
    draw: np.random.Generator
    synth: np.random.Generator


def one_process_streams(root: np.random.Generator) -> _Streams:
    """The generators :func:`dpgazesynth` spawns from ``root`` for ``unit="participant"`` (one
    block): clients (select, start, times, transitions), curator, synthesis (draw, the rest)."""
    clients, cur, synth = (r.spawn(1)[0] for r in root.spawn(3))
    select, rest = clients.spawn(2)
    start, times, trans = rest.spawn(3)
    draw, rest_synth = synth.spawn(2)
    return _Streams(select, start, times, trans, cur, draw, rest_synth)


@dataclass(frozen=True)
class ParticipantPhases:
    """DPGazeSynth ``unit="participant"`` as a participant-grouped plan (``grouped = True``).

    ``shape`` and ``assign`` are the public pass; :meth:`assign` returns the plan bound to the
    drawn windows (:class:`_Assigned`), whose ``client`` / ``curate`` / ``release`` the engines
    run. ``root`` is the seed's root generator (``PartitionStreams.root()``): the plan draws
    what the in-memory run draws, so the release is that of one process.
    """

    params: DPGazeSynthParams
    mechanism: str = "dpgazesynth"
    grouped: bool = True

    def __post_init__(self) -> None:
        # a fixed public structure (recordings per participant) releases recordings that belong
        # to no partition; not planned partition-wise yet
        if getattr(self.params, "recordings_per_participant", None) is not None:
            raise InvalidParameterError(
                "recordings_per_participant cannot run partition-wise yet (its released "
                "recordings belong to no input partition); protect the file in memory, or "
                "leave it out")

    def shape(self, part: Dataset) -> PartitionShape:
        check_partition(part)
        return partition_shape(part, self.params)

    def assign(self, shapes: Sequence[PartitionShape], root: np.random.Generator
               ) -> _Assigned:
        streams = one_process_streams(root)
        drawn = draw_windows(shapes, self.params, streams.select)
        return _Assigned(self.params, tuple(drawn), replace(streams, select=None))

    def combined(self, record: Guarantee) -> Guarantee:
        """The engines' combined record (units added over partitions: the ``m`` windows drawn
        per participant) with the in-memory record's composition rule."""
        return replace(record, per_participant={k: replace(b, rule=self._rule()) for k, b in
                                                (record.per_participant or {}).items()})

    def _rule(self) -> str:
        p = self.params
        return (f"basic sequential composition over m = {p.windows_per_participant} windows "
                f"drawn at random, {p.epsilon_window * p.split.total:.6g} each")


@dataclass(frozen=True)
class _Assigned:
    """The participant-level plan bound to the windows drawn in the public pass."""

    params: DPGazeSynthParams
    drawn: tuple[np.ndarray, ...]
    streams: _Streams
    mechanism: str = "dpgazesynth"

    def client(self, i: int, part: Dataset, rng: np.random.Generator) -> _Drawn:
        """Partition ``i``'s drawn windows, discretised (only their recordings are read)."""
        check_partition(part)
        p, sel = self.params, self.drawn[i]
        recs = part.recordings
        n_win = np.array(partition_shape(part, p).n_windows, dtype=np.int64)
        ends = np.cumsum(n_win)
        rec = np.searchsorted(ends, sel, side="right")
        chosen = np.unique(rec)
        windows = None
        if sel.size:
            cw = client_windows([recs[j] for j in chosen], p)
            base = np.concatenate([[0], np.cumsum(n_win[chosen])[:-1]])
            local = sel - (ends[rec] - n_win[rec]) + base[np.searchsorted(chosen, rec)]
            windows = _subset_windows(cw, local)
        n_valid = _public_windows(tuple(_at_output_length(r, p) for r in recs), p)[1]
        return _Drawn(windows, n_valid[n_valid > 0].astype(np.int32))

    def curate(self, messages: Sequence[_Drawn], rng: np.random.Generator
               ) -> tuple[_Model, list[_Piece]]:
        """Noise once over all drawn windows (in-memory order), the transition model, and every
        released window's reporting window; returns the shared model and each partition's
        piece."""
        p = self.params
        st = copy.deepcopy(self.streams)
        wins = _concat([m.windows for m in messages if m.windows is not None])
        report = noise_windows(wins, p, (st.start, st.times, st.trans))
        model = curate([perturb_reports(report, p, st.curator)], p)
        pool = np.flatnonzero(report.start_cell >= 0)
        if pool.size == 0:
            raise InvalidDataError("no reporting window has a valid sample: nothing to "
                                   "synthesise from (unit='participant')")
        sizes = [m.n_valid_out.size for m in messages]
        pick = pool[st.draw.integers(pool.size, size=sum(sizes))]
        cuts = np.concatenate([[0], np.cumsum(sizes)])
        runs = [_count_runs(report, pick[a:b], m.n_valid_out)
                for a, b, m in zip(cuts[:-1], cuts[1:], messages, strict=True)]
        offsets = np.concatenate([[0], np.cumsum(runs)])
        small = replace(report, reports={}, report_windows={})
        shared = _Model(model, small, st.synth.bit_generator.state)
        pieces = [_Piece(pick[a:b], int(o), int(r), int(offsets[-1]))  # views of one array
                  for a, b, o, r in zip(cuts[:-1], cuts[1:], offsets[:-1], runs, strict=True)]
        return shared, pieces

    def release(self, i: int, part: Dataset, model: _Model, piece: _Piece,
                rng: np.random.Generator) -> Release[Dataset]:
        """Partition ``i``'s synthetic recordings (post-processing of the model)."""
        check_partition(part)
        p = self.params
        if p.mode is Mode.PAPER:
            warnings.warn("DPGazeSynth paper mode releases the number of runs per window; see "
                          "the guarantee's flags", NotFormallyPrivateWarning, stacklevel=2)
        recs = tuple(_at_output_length(r, p) for r in part.recordings)
        valid_rows, n_valid, bounds = _public_windows(recs, p)
        out_win = np.flatnonzero(n_valid > 0)
        if out_win.size != piece.pick.size:
            raise InvalidDataError(f"partition {i} changed between the passes (its windows "
                                   "differ from the client phase's); run again")
        group, lengths = _population_runs(model.report, piece.pick, n_valid[out_win])
        start = np.full(n_valid.size, -1, dtype=np.int64)
        start[out_win] = model.report.start_cell[piece.pick]
        clients = ClientReport(valid_rows=valid_rows, run_window=out_win[group],
                               run_length=lengths, start_cell=start, reports={}, **bounds)
        total, own, at = piece.total_runs, piece.n_runs, piece.offset
        stream = _StreamSlices(model.synth_state, [(at, own), (total + at, own),
                                                   (2 * total + at, own)])
        sizes = [r.n_samples for r in recs]
        x, y = _synthesise(sum(sizes), clients, model.transition, p, stream)
        cuts = np.cumsum(sizes)[:-1]
        xs, ys = np.split(x, cuts), np.split(y, cuts)
        with adopt(*xs, *ys):
            out = [r.with_gaze(u, v) for r, u, v in zip(recs, xs, ys, strict=True)]
        return Release(Dataset(tuple(out), name=part.name, info=part.info),
                       self._record(i, part))

    def _record(self, i: int, part: Dataset) -> Guarantee:
        """Partition ``i``'s record: per participant the windows drawn here (they add up to
        ``m`` over the partitions)."""
        p = self.params
        first = part.recordings[0]
        g = guarantee(p, sampling_rate_hz=first.sampling_rate_hz,
                      geometry=p.geometry or first.geometry)
        n_win = np.array(partition_shape(part, p).n_windows, dtype=np.int64)
        owner = np.array([r.participant for r in part], dtype=object)
        here = owner[np.searchsorted(np.cumsum(n_win), self.drawn[i], side="right")]
        units = {str(q): int(np.count_nonzero(here == q)) for q in dict.fromkeys(owner)}
        per = {q: Budget(g.epsilon, g.delta, n, "single unit") for q, n in units.items()}
        note = ("run partition-wise: each participant's m windows drawn from the public window "
                "counts of all partitions, noised once over all partitions' drawn windows, "
                "every window synthesised from the population")
        return replace(g, per_participant=per, notes=(*g.notes, note))
