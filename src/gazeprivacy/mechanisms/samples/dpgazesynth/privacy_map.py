# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth's privacy map: the record of a window, of a participant and of a public shape.

Reads public parameters and the public shape only, never gaze values.
"""

from __future__ import annotations

from dataclasses import replace

from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidDataError, ReleaseRefusedError
from gazeprivacy.guarantees import Budget, Flag, FlagCode, Guarantee, Kind, Unit
from gazeprivacy.mechanisms.contract import SampleShape, sample_shape
from gazeprivacy.mechanisms.samples.dpgazesynth.grid import _geometry
from gazeprivacy.mechanisms.samples.dpgazesynth.params import (
    DPGazeSynthParams,
    output_samples,
    window_samples,
)

__all__ = [
    "guarantee",
    "shape_guarantee",
]


def guarantee(params: DPGazeSynthParams, *, sampling_rate_hz: float,
              geometry: Geometry | None = None) -> Guarantee:
    """The privacy map: per-window record from public parameters only (never reads data).

    >>> g = guarantee(DPGazeSynthParams(epsilon=2.0), sampling_rate_hz=200.0)
    >>> g.kind.value, g.unit.value, g.epsilon, g.formally_private
    ('epsilon-LDP', 'window', 2.0, True)
    """
    w = window_samples(params, sampling_rate_hz)
    geometry = geometry or params.geometry
    r = params.radius_for(geometry) if geometry is not None else params.radius_deg
    eps = params.epsilon * params.split.total
    flags: list[Flag] = []
    if params.mode == "paper":
        flags.append(Flag(FlagCode.PARTIAL_COVERAGE, (
            "paper mode noises the m actual run lengths and sends m - 1 transition reports, "
            "which releases the number of runs m of every window exactly; Theorem 1's proof "
            "covers only neighbouring windows with the same m")))
    same = ("same missing-sample mask" if params.missing == "keep" else
            "any missing-sample masks, gaps filled within the window")
    neighbouring = (
        f"two versions of one window of W = {w} samples (same recording, same position, {same}) "
        "whose first valid samples"
        + ("" if params.missing == "keep" else " (the screen centre for a window without any)")
        + " lie within r = "
        f"{'3 min(H, V) / G' if r is None else f'{r:.6g} deg'} of each other; the cell sequence "
        "is otherwise arbitrary" + (" but has the same number of runs" if params.mode == "paper"
                                    else "") +
        ". Start points further apart than r are distinguishable at eps1 x distance / r")
    notes = [
        f"eps1 = {params.epsilon_start:g} (planar Laplace start point, radius r), "
        f"eps2 = {params.epsilon_times:g} (Laplace on run lengths, sensitivity 2W - 2 = "
        f"{2 * w - 2}), eps3 = {params.epsilon_transitions:g} (OUE, "
        f"{params.epsilon_per_report(w):.6g} per report)",
        "the transition model is the curator's aggregate over all participants; synthesis is "
        "post-processing",
    ]
    if params.missing == "keep":
        notes.append("missing samples (NaN rows, blinks) stay NaN: the missing-sample mask is "
                     "released as is and is not protected (use missing='fill' to protect it)")
    else:
        notes.append("missing='fill': a missing sample takes the previous valid sample of its "
                     "own window (missing samples at a window's start its first valid sample; "
                     "a window without valid samples the screen centre, public), never a sample "
                     "of another window; every row is synthesised and the missing-sample mask "
                     "is not released")
    record = Guarantee(
        mechanism="dpgazesynth", kind=Kind.LOCAL_DP, unit=Unit.WINDOW, epsilon=eps,
        mode=params.mode,
        neighbouring=neighbouring,
        parameters={
            "epsilon": params.epsilon, "split": {"start": params.split.start,
                                                 "times": params.split.times,
                                                 "transitions": params.split.transitions},
            "grid_size": params.grid_size, "window_s": params.window_s, "window_samples": w,
            "radius_deg": r, "transitions": params.transitions,
            "epsilon_per_report": params.epsilon_per_report(w), "oue_path": params.oue_path,
            "missing": params.missing, "sampling_rate_hz": sampling_rate_hz,
        },
        flags=tuple(flags),
        paper_claim="Theorem 1: event-level eps-LDP per window, eps = eps1 + eps2 + eps3",
        notes=tuple(notes),
    )
    return record if params.unit == "window" else _participant_record(record, params)


def _participant_record(window: Guarantee, params: DPGazeSynthParams) -> Guarantee:
    """The ``unit="participant"`` record: ``epsilon`` per participant (the headline), spent as
    ``epsilon / m`` on each of ``m`` randomly drawn windows (basic sequential composition)."""
    m = int(params.windows_per_participant)
    per_window = params.epsilon_window * params.split.total
    neighbouring = (
        "two versions of one participant's data with the same public shape (recordings, row "
        "counts, sampling rates, geometry, labels"
        + (", missing-sample mask" if params.missing == "keep" else "")
        + ") whose windows' first valid samples lie within r of each other (window by window); "
        "everything else may differ arbitrarily. Per window the relation of unit='window' "
        f"holds at eps / m = {per_window:.6g}; start points further apart than r are "
        f"distinguishable at {params.epsilon_start:.6g} x distance / r per window (the start "
        "share of eps / m)")
    notes = (
        f"participant level: each participant's client reports m = {m} windows drawn uniformly "
        "without replacement from all windows of all its recordings (ceil(rows / W) per "
        "recording, public shape; the draw uses the release's generator and no gaze value), "
        f"each at epsilon / m = {per_window:.6g} (basic sequential composition: {window.epsilon:g}"
        " per participant); the other windows send nothing",
        ("released: one synthetic recording per input recording (the number of recordings per "
         "participant is the input's, public shape), " if params.recordings_per_participant is None
         else f"released: {params.recordings_per_participant} synthetic recordings per "
              "participant whatever the input's number (recordings_per_participant, a fixed "
              "public structure; new recording ids, no labels), ")
        + (f"each of round({params.output_length_s:g} s x rate) rows whatever the input's "
           "length (output_length_s; the input's row counts are not written, but neither are "
           "they protected: the windows drawn and a recording's last, shorter window depend on "
           "them, and the neighbouring relation fixes them)"
           if params.output_length_s is not None else
           "each with the input's row count (public shape, not protected)")
        + "; every window is drawn from the population model (the start cell and run "
        "lengths of a uniformly drawn reporting window of any participant, the transition model "
        "of all reports), so a synthetic recording depends on the data only through the pooled "
        "reports: its participant / recording labels link it to the public shape, not to its "
        "owner's gaze",
        "a drawn window without valid samples (missing='keep') sends nothing: it still counts "
        "towards m (the bound is an upper bound)",
    )
    return replace(
        window, unit=Unit.PARTICIPANT, neighbouring=neighbouring,
        parameters={**window.parameters, "unit": params.unit, "windows_per_participant": m,
                    "epsilon_per_window": per_window,
                    "output_length_s": params.output_length_s,
                    "recordings_per_participant": params.recordings_per_participant,
                    "release": ("one synthetic recording per input recording ("
                                if params.recordings_per_participant is None else
                                f"{params.recordings_per_participant} synthetic recordings per "
                                "participant (")
                               + ("the input's row counts, public" if params.output_length_s
                                  is None else f"{params.output_length_s:g} s each, public")
                               + "), synthesised from the population model"},
        notes=(*window.notes, *notes))


def shape_guarantee(params: DPGazeSynthParams, shape: SampleShape) -> Guarantee:
    """The record of releasing a dataset of this public shape (per window, composed per
    participant over ``ceil(n / W)`` windows per recording); never reads gaze values."""
    recs = shape.recordings
    if not recs:
        raise InvalidDataError("the dataset has no recordings")
    record = guarantee(params, sampling_rate_hz=recs[0].sampling_rate_hz,
                       geometry=_geometry(recs[0], params))
    if len({(r.sampling_rate_hz, _geometry(r, params)) for r in recs}) > 1:
        record = _with_note(record, "recordings differ in sampling rate or geometry; the "
                                    "radius in 'parameters' is that of the first recording's "
                                    "geometry; W is round(window_s x each recording's own "
                                    "rate) (window_samples_by_rate when the rates differ)")
    if len({r.sampling_rate_hz for r in recs}) > 1:  # no single rate: each recording's own
        record = _per_rate(record, params, sorted({r.sampling_rate_hz for r in recs}))
    for rate in {r.sampling_rate_hz for r in recs}:
        output_samples(params, rate)  # refuses a too short output length
    windows = shape.units_per_participant(
        lambda r: -(-r.n_samples // window_samples(params, r.sampling_rate_hz)))
    if params.unit == "window":
        return record.compose(windows)
    m = _check_windows_available(windows, params)
    rule = (f"basic sequential composition over m = {m} windows drawn at random, "
            f"{record.parameters['epsilon_per_window']:.6g} each")
    return replace(record, per_participant={str(p): Budget(record.epsilon, None, m, rule)
                                            for p in windows})


def _check_windows_available(windows: dict[str, int], params: DPGazeSynthParams) -> int:
    """``m``, after checking that every participant has at least ``m`` windows (public shape);
    the policy is to refuse rather than to report fewer windows silently."""
    m = int(params.windows_per_participant)
    short = {p: n for p, n in windows.items() if n < m}
    if short:
        few = ", ".join(f"{p!r}: {n}" for p, n in sorted(short.items())[:5])
        raise ReleaseRefusedError(
            f"windows_per_participant={m} exceeds the windows some participants have "
            f"({len(short)} of {len(windows)}; windows = ceil(rows / W) over all their "
            f"recordings: {few}); choose m <= {min(windows.values())} or leave them out")
    return m


def _record(dataset: Dataset, params: DPGazeSynthParams) -> Guarantee:
    """The guarantee of releasing ``dataset``: its public shape's privacy map."""
    return shape_guarantee(params, sample_shape(dataset))


def _per_rate(record: Guarantee, params: DPGazeSynthParams, rates: list[float]) -> Guarantee:
    """The record of recordings at several rates: no single rate, and W (and each OUE report's
    budget) per rate, never the first recording's (W = window_s x rate would give its rate).

    >>> g = guarantee(DPGazeSynthParams(epsilon=1.0), sampling_rate_hz=60.0)
    >>> p = _per_rate(g, DPGazeSynthParams(epsilon=1.0), [60.0, 240.0]).parameters
    >>> "sampling_rate_hz" in p, "window_samples" in p, p["window_samples_by_rate"]
    (False, False, {'60': 30, '240': 120})
    """
    ws = {f"{r:g}": window_samples(params, r) for r in rates}
    drop = ("sampling_rate_hz", "window_samples", "epsilon_per_report")
    out = {k: v for k, v in record.parameters.items() if k not in drop}
    out["window_samples_by_rate"] = ws
    out["epsilon_per_report_by_rate"] = {k: params.epsilon_per_report(w) for k, w in ws.items()}
    each = ", ".join(f"W = {w} at {r} Hz" for r, w in ws.items())
    import re

    neighbouring = re.sub(r"W = \d+ samples", f"W samples ({each})", record.neighbouring)
    notes = [re.sub(r"sensitivity 2W - 2 = \d+", "sensitivity 2W - 2", n) for n in record.notes]
    notes = [re.sub(r"eps3 = ([^ ]+) \(OUE, [^ ]+ per report\)",
                    r"eps3 = \1 (OUE, per report: epsilon_per_report_by_rate)", n) for n in notes]
    return replace(record, parameters=out, neighbouring=neighbouring, notes=tuple(notes))


def _with_note(g: Guarantee, note: str) -> Guarantee:
    return replace(g, notes=(*g.notes, note))
