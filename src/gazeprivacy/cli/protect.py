"""``gazeprivacy protect INPUT OUTPUT --mechanism M --epsilon E``: protect a data file.

A thin wrapper over :func:`gazeprivacy.mechanisms.release.protect_file`: reads CSV or Parquet
(long format), runs one registered mechanism, and writes the *sealed* release
(:mod:`gazeprivacy.mechanisms.release`): the protected gaze, the public sampling grid,
pseudonymised ids in pseudonym order, and only the columns declared with ``--public COLUMN``
(pupil may instead be protected with ``--pupil-epsilon E --pupil-range LO HI``). The record,
listing every written column's status, goes to ``OUTPUT.guarantee.json``; the id map only to
``--id-map FILE``; counts a mechanism reports (e.g. event-synth-PD's failed tests) only to
``--report FILE``. No privacy parameter is filled in by the command (Kaleido needs
``--window-s`` or ``--param window_samples=N``). Without ``--seed`` the generator is seeded from
OS entropy.

When INPUT is a partitioned folder (``gazeprivacy partition``), OUTPUT is a partitioned folder
too, written one partition at a time (``--engine local``, bounded memory) or on Dask
(``--engine dask [--scheduler ADDRESS]``), with the record in ``OUTPUT/guarantee.json``; every
partition is sealed the same way (one pseudonym key per run). ``--report`` does not apply there
(the partition-wise mechanisms report nothing).
"""

from __future__ import annotations

import enum
import json
import warnings
from dataclasses import MISSING, fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from gazeprivacy.cli._common import open_ledger, parse_geometry
from gazeprivacy.cli._reading import (
    ColumnsOpt,
    DistanceOpt,
    EyeOpt,
    RateOpt,
    ScreenCmOpt,
    ScreenPxOpt,
    TrialMessageOpt,
    input_file,
    reader_options,
)
from gazeprivacy.exceptions import InvalidParameterError, NotFormallyPrivateWarning

if TYPE_CHECKING:
    from gazeprivacy.data.geometry import Geometry
    from gazeprivacy.data.partitioned import PartitionedDataset

__all__ = ["InputFormat", "XyUnit", "protect"]


class XyUnit(enum.StrEnum):
    """``--xy-unit``: the unit of x and y in the input (gazeprivacy.data.io.XY_UNITS)."""

    deg = "deg"
    px = "px"
    norm = "norm"


class InputFormat(enum.StrEnum):
    """``--input-format`` (gazeprivacy.data.readers.INPUT_FORMATS)."""

    long = "long"
    tobii = "tobii"
    pupil_core = "pupil-core"
    neon = "neon"
    eyelink = "eyelink"


def _value(option: enum.StrEnum | None) -> str | None:
    return None if option is None else option.value



def _parse_param(item: str) -> tuple[str, Any]:
    if "=" not in item:
        raise InvalidParameterError(f"--param must be NAME=VALUE, got {item!r}")
    name, raw = item.split("=", 1)
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return name.strip().replace("-", "_"), value


# The body only gathers the flags into protect_file / the partition-wise engine.
# long: one typed declaration per CLI flag (typer reads them from the signature)
def protect(
    input: Annotated[Path, typer.Argument(
        help="Long-format CSV or Parquet file, or a partitioned folder.")],
    output: Annotated[Path, typer.Argument(
        help="Output file (.csv, .csv.gz or .parquet); a folder for a partitioned INPUT.")],
    mechanism: Annotated[str, typer.Option(
        help="A registered mechanism's name (`gazeprivacy mechanisms` lists them).")],
    epsilon: Annotated[float | None, typer.Option(
        help="Privacy budget, per the mechanism's unit (DP mechanisms).")] = None,
    k: Annotated[int | None, typer.Option(
        help="k of k-same-synth (k-anonymity) or event-synth-pd (plausible deniability).")] = None,
    gamma: Annotated[float | None, typer.Option(
        help="gamma of event-synth-pd (likelihood-ratio bound, >= 1).")] = None,
    mode: Annotated[str | None, typer.Option(
        help="sound (default where a mechanism has both) or paper.")] = None,
    radius_deg: Annotated[float | None, typer.Option(
        help="Protection radius r in degrees (Kaleido: required unless --radius-frac).")] = None,
    radius_frac: Annotated[float | None, typer.Option(
        help="r as a fraction of the smaller screen side (e.g. 0.05).")] = None,
    window_s: Annotated[float | None, typer.Option(
        help="Window length in seconds (Kaleido: required unless --param window_samples=N).")
    ] = None,
    grid_size: Annotated[int | None, typer.Option(help="DPGazeSynth grid G.")] = None,
    per_participant_epsilon: Annotated[float | None, typer.Option(
        help="DPGazeSynth participant level (unit=participant): the budget per participant, "
             "instead of --epsilon per window. Needs --windows-per-participant.")] = None,
    windows_per_participant: Annotated[int | None, typer.Option(
        help="DPGazeSynth participant level: m windows per participant, drawn at random across "
             "its recordings, each at the budget / m.")] = None,
    per_participant_delta: Annotated[float | None, typer.Option(
        help="participant-synth: the delta of the per-participant (epsilon, delta) guarantee "
             "(required; no default).")] = None,
    participants: Annotated[int | None, typer.Option(
        help="participant-synth: synthetic participants to write (default: the input's "
             "participant count, public by design).")] = None,
    output_length_s: Annotated[float | None, typer.Option(
        help="participant-synth: length of every synthetic recording (required). "
             "DPGazeSynth participant level (with --param missing=fill): every released "
             "recording is S seconds long (round(S x rate) rows, synthesised), so the file does "
             "not carry the input's recording lengths. Without it the row counts are the "
             "input's (public, listed in the record).")] = None,
    recordings_per_participant: Annotated[int | None, typer.Option(
        help="participant-synth: synthetic recordings per participant and public label value "
             "(default 1; more cost no budget and lower the rendered density's sampling "
             "error, docs/privacy/participant-synth.md). DPGazeSynth participant level (with "
             "--output-length-s): every "
             "participant gets exactly R released recordings (synthesised, new recording ids, "
             "no labels), so the file does not carry the input's number of recordings per "
             "participant either. Without it that number is the input's (public, listed in "
             "the record).")] = None,
    declared_tracker: Annotated[list[Path] | None, typer.Option(
        help="participant-synth: a recording made on no participant of INPUT (e.g. the "
             "experimenter's own pilot), read with INPUT's options. Its tracker (noise level, "
             "smoothing, gaps, shoulder) is declared public and used without noise, and the "
             "budget the tracker would take goes to the other marginals. Repeat it for pilots "
             "on several people (one file each): each synthetic participant then takes one of "
             "their trackers at random.")] = None,
    param: Annotated[list[str] | None, typer.Option(
        help="Further mechanism parameter NAME=VALUE (repeatable), e.g. "
             "transitions=one-per-window.")] = None,
    public: Annotated[list[str] | None, typer.Option(
        "--public", help="Write this column / label as is (repeatable): e.g. pupil, task, "
                         "t (raw clock), mask (missing-sample mask), participant / recording "
                         "(raw ids), name / info (dataset metadata). Nothing else is written.")
    ] = None,
    pupil_epsilon: Annotated[float | None, typer.Option(
        help="Protect pupil at this epsilon per privacy unit (window mechanisms; added to the "
             "record's totals). Needs --pupil-range.")] = None,
    pupil_range: Annotated[tuple[float, float] | None, typer.Option(
        help="Declared pupil range LO HI (the data's unit) for --pupil-epsilon.")] = None,
    id_map: Annotated[Path | None, typer.Option(
        "--id-map", help="Write the raw id -> pseudonym map here (CSV or Parquet), for the data "
                         "holder only.")] = None,
    report: Annotated[Path | None, typer.Option(
        help="Write the data holder's report (e.g. counts of failed events) here (JSON).")
    ] = None,
    geometry: Annotated[str | None, typer.Option(
        help="Screen X_MIN,X_MAX,Y_MIN,Y_MAX in degrees (default: the file's metadata).")] = None,
    time_unit: Annotated[str, typer.Option(
        help="Unit of the t column: s, ms, us or ns (the long format).")] = "s",
    label: Annotated[list[str] | None, typer.Option(
        "--label", help="This column is a recording label (one value per recording), whatever "
                        "its type (repeatable); task, stimulus, trial, session, ... are "
                        "recognised by name. Whether it is written is --public.")] = None,
    xy_unit: Annotated[XyUnit | None, typer.Option(
        help="Unit of x and y: deg, px (with --px-per-deg) or norm (0-1 of the screen, with "
             "--geometry). Default: degrees, checked for normalised and pixel values.")] = None,
    px_per_deg: Annotated[float | None, typer.Option(
        help="Pixels per degree for pixel gaze (--xy-unit px, Tobii, EyeLink).")] = None,
    input_format: Annotated[InputFormat | None, typer.Option(
        help="long, tobii (Pro Lab TSV), pupil-core (gaze_positions.csv), neon (gaze.csv) or "
             "eyelink (.asc). Default: told by the file's name and header.")] = None,
    participant: Annotated[str | None, typer.Option(
        help="The participant of a device export that names none (default: its file or "
             "folder name, with a warning). Pseudonymised unless --public participant.")
    ] = None,
    rate: RateOpt = None,
    columns: ColumnsOpt = None,
    eye: EyeOpt = None,
    trial_message: TrialMessageOpt = None,
    screen_px: ScreenPxOpt = None,
    screen_cm: ScreenCmOpt = None,
    distance_cm: DistanceOpt = None,
    seed: Annotated[int | None, typer.Option(
        help="Fix the generator (research run; noted in the record; >= 0). Default: OS entropy.",
        min=0)] = None,
    ranges: Annotated[str | None, typer.Option(
        help="Feature-series mechanisms, sound mode: declared feature ranges, a JSON file "
             "{feature: [lo, hi]} or catalogue:mpiidpeye / catalogue:degrees (the built-in "
             "ranges of the 52 window features).")] = None,
    engine: Annotated[str, typer.Option(
        help="Partitioned INPUT: local (one process, one partition in memory) or dask.")
    ] = "local",
    scheduler: Annotated[str | None, typer.Option(
        help="--engine dask: scheduler address (default: a local cluster).")] = None,
    overwrite: Annotated[bool, typer.Option(
        help="Replace an existing OUTPUT (file and record, or partitioned folder), --id-map "
             "and --report.")] = False,
    ledger: Annotated[Path | None, typer.Option(
        "--ledger", help="Charge each participant in this privacy-budget ledger (SQLite; its "
                         "key goes to FILE.key, keep both private). See `gazeprivacy ledger`.")
    ] = None,
    max_epsilon_per_participant: Annotated[float | None, typer.Option(
        help="--ledger: lifetime cap on each participant's epsilon (basic composition); a "
             "release that would pass it is refused before any work.")] = None,
    allow_unaccounted: Annotated[bool, typer.Option(
        help="--ledger with a cap: accept a release without a usable epsilon (k-anonymity, "
             "plausible deniability, paper mode, flagged); the ledger records it.")] = False,
    accept_implausible_events: Annotated[bool, typer.Option(
        help="Event mechanisms (k-same-synth, event-synth-pd): release even when the detected "
             "events are implausible (saccade share outside 2-25 %, or the detector's checks "
             "fail on most recordings).")] = False,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Print the guarantee and the forecasts that need only public "
                          "parameters (vacuous bound, expected to lose to data-free points); "
                          "reads only the input's public shape, runs no mechanism, writes "
                          "nothing, charges no ledger.")] = False,
) -> None:
    """Protect a gaze data file (or, for feature-series mechanisms, a window feature table) and
    write the sealed release with its guarantee record beside it."""
    from gazeprivacy.data.partitioned import is_partitioned
    from gazeprivacy.mechanisms import MECHANISMS
    from gazeprivacy.mechanisms.release import protect_file

    spec = MECHANISMS[mechanism]
    partitioned = is_partitioned(input)
    _check_outputs(input, output, partitioned, (id_map, report), ledger=ledger,
                   ranges=ranges, overwrite=overwrite)
    geo = parse_geometry(geometry) if geometry else None
    kw: dict[str, Any] = {name: value for name, value in
                          (("epsilon", epsilon), ("k", k), ("gamma", gamma), ("mode", mode),
                           ("radius_deg", radius_deg), ("window_s", window_s),
                           ("grid_size", grid_size), ("output_length_s", output_length_s),
                           ("recordings_per_participant", recordings_per_participant))
                          if value is not None}
    kw.update(dict(_parse_param(p) for p in param or ()))
    if accept_implausible_events:
        if "accept_implausible_events" not in {f.name for f in fields(spec.params_type)}:
            raise InvalidParameterError(f"--accept-implausible-events applies to the event "
                                        f"mechanisms (k-same-synth, event-synth-pd), not "
                                        f"{mechanism}")
        kw["accept_implausible_events"] = True
    if spec.synthetic_population:
        kw.update(_synthetic_population(kw, per_participant_epsilon, per_participant_delta,
                                        windows_per_participant, participants,
                                        recordings_per_participant, public or ()))
    else:
        _no_synthetic_flags(per_participant_delta, participants)
        kw.update(_participant_level(kw, per_participant_epsilon, windows_per_participant))
    if ranges is not None:
        if spec.level != "series":
            raise InvalidParameterError("--ranges applies to the feature-series mechanisms "
                                        "(series-*) only")
        kw["ranges"] = _declared_ranges(ranges)
    reading = reader_options(rate=rate, columns=columns, eye=eye, trial_message=trial_message,
                             screen_px=screen_px, screen_cm=screen_cm, distance_cm=distance_cm,
                             geometry=geo, px_per_deg=px_per_deg)
    # how a file is read (INPUT, and a --declared-tracker pilot): its options and the reader's
    file_options = {"time_unit": time_unit, "labels": tuple(label or ()),
                    "input_format": _value(input_format), "xy_unit": _value(xy_unit),
                    "px_per_deg": px_per_deg, **reading}
    if declared_tracker:
        kw["tracker"] = _declared_trackers(declared_tracker, spec, input, file_options)
    if not partitioned and (engine != "local" or scheduler is not None):
        raise InvalidParameterError(
            "--engine / --scheduler apply to a partitioned INPUT folder; make one with "
            "`gazeprivacy partition INPUT OUTDIR --recordings-per-partition N`")
    if radius_frac is not None:
        if "radius_deg" in kw:
            raise InvalidParameterError("give --radius-deg or --radius-frac, not both")
        kw["radius_deg"] = radius_frac * _smaller_side(input, geo, partitioned, file_options)
    _check_required(mechanism, spec, kw)
    if partitioned and (label or xy_unit or px_per_deg is not None or input_format
                        or participant is not None or reading):
        raise InvalidParameterError("--label, --xy-unit, --px-per-deg, --input-format, "
                                    "--participant and the reader options (--rate, --columns, "
                                    "--eye, --trial-message, --screen-*) apply to a file INPUT; "
                                    "a partitioned folder was read already")
    if dry_run:
        _dry_run(input, mechanism, kw, partitioned, reading={
            "geometry": geo, "participant": participant, **file_options})
        return
    led = open_ledger(ledger, max_epsilon_per_participant, allow_unaccounted)
    if partitioned:
        _protect_partitioned_checked(input, output, mechanism, spec, geo, seed=seed,
                                     engine=engine, scheduler=scheduler, overwrite=overwrite,
                                     time_unit=time_unit, kw={**kw, "ledger": led},
                                     sealing=(public, pupil_epsilon, pupil_range, id_map, report))
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", NotFormallyPrivateWarning)
        sealed = protect_file(input_file(input, reading), output, mechanism=mechanism,
                              public=public or (),
                              pupil_epsilon=pupil_epsilon, pupil_range=pupil_range,
                              id_map_path=id_map, report_path=report, seed=seed,
                              time_unit=time_unit, geometry=geo, ledger=led,
                              labels=label or (), xy_unit=_value(xy_unit),
                              px_per_deg=px_per_deg, input_format=_value(input_format),
                              participant=participant, overwrite=overwrite, **kw)
    console = Console()
    for w in caught:  # paper mode and other unproven paths: say so, do not fail
        if issubclass(w.category, NotFormallyPrivateWarning):
            console.print(f"[yellow]warning:[/] {w.message}", highlight=False, soft_wrap=True)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    _warn_release(sealed, mechanism, kw)
    console.print(f"[bold]{output}[/]: {sealed.table.height} rows, columns "
                  f"{', '.join(sealed.table.columns)}", highlight=False)
    console.print(sealed.guarantee.summary(), highlight=False, markup=False, soft_wrap=True)
    from gazeprivacy.mechanisms.release import guarantee_path

    console.print(f"guarantee record: {guarantee_path(output)}", highlight=False)
    if id_map is not None:
        console.print(f"id map (keep private): {id_map}", highlight=False)
    for spellings in sealed.report.get("ledger_merged_ids", ()):
        console.print(f"[yellow]ledger:[/] {', '.join(map(repr, spellings))} are one "
                      "participant to the ledger (ids are trimmed and case-folded); their "
                      "budgets were added up", highlight=False, soft_wrap=True)


def _check_outputs(input: Path, output: Path, partitioned: bool,
                   extra: tuple[Path | None, Path | None], *, ledger: Path | None,
                   ranges: str | None, overwrite: bool) -> None:
    """Every output of this run, checked before any work (gazeprivacy._atomic.check_outputs):
    the release (a file with its record, or a folder), --id-map and --report."""
    from gazeprivacy._atomic import Output, check_outputs, sidecars
    from gazeprivacy.data.partitioned import PARTITIONED_MARKERS

    id_map, report = extra
    if partitioned:
        release = [Output(output, "OUTPUT", folder=True, markers=PARTITIONED_MARKERS,
                          holds="partitioned release")]
    else:
        release = [Output(output, "OUTPUT", suffixes=(".csv", ".csv.gz", ".parquet", ".pq")),
                   *(Output(p, "the record" if p.name.endswith(".guarantee.json")
                            else "OUTPUT's metadata file") for p in sidecars(output))]
    ranges_file = Path(ranges) if ranges and not ranges.startswith("catalogue:") else None
    check_outputs([*release, Output(id_map, "--id-map"), Output(report, "--report")],
                  inputs=[input, ranges_file], ledger=ledger, overwrite=overwrite)


def _warn_release(sealed: Any, mechanism: str, kw: dict[str, Any]) -> None:
    """One ``warning:`` line on stderr per check of gazeprivacy.mechanisms.forecast."""
    from gazeprivacy.cli._common import err
    from gazeprivacy.mechanisms import build_params
    from gazeprivacy.mechanisms.forecast import release_warnings

    for line in release_warnings(sealed.guarantee, sealed.dataset, mechanism=mechanism,
                                 params=build_params(mechanism, None, **kw)):
        err().print(f"[yellow]warning:[/] {line}", highlight=False, soft_wrap=True)


def _dry_run(input: Path, mechanism: str, kw: dict[str, Any], partitioned: bool,
             reading: dict[str, Any]) -> None:
    """``--dry-run``: the guarantee (stdout) and the public forecasts (stderr); no release."""
    from gazeprivacy.cli._common import err
    from gazeprivacy.mechanisms import build_params
    from gazeprivacy.mechanisms.forecast import PUBLIC_SHAPE_READ, plan_file

    if partitioned:
        raise InvalidParameterError("--dry-run applies to a file INPUT, not a partitioned folder")
    plan = plan_file(input, mechanism=mechanism, params=build_params(mechanism, None, **kw),
                     reading=reading)
    console = Console()
    console.print(f"dry run: no release made, nothing written, no ledger charged; read from "
                  f"{input}: {PUBLIC_SHAPE_READ}", highlight=False, markup=False, soft_wrap=True)
    console.print(plan.guarantee.summary(), highlight=False, markup=False, soft_wrap=True)
    for line in plan.warnings:
        err().print(f"[yellow]warning:[/] {line}", highlight=False, soft_wrap=True)


#: Mechanism parameters that have their own option (the others: ``--param NAME=VALUE``).
_PARAM_FLAGS = ("epsilon", "k", "gamma", "mode", "radius_deg", "window_s", "grid_size",
                "output_length_s")


def _check_required(mechanism: str, spec: Any, kw: dict[str, Any]) -> None:
    """Refuse, naming the options, a call without a privacy parameter that has no default
    (before any work; the library's message names the Python parameters). A heatmap
    mechanism is left to the library, which points to `gazeprivacy heatmap`."""
    if spec.level != "series" and not spec.level.takes_samples:
        return
    need = [f.name for f in fields(spec.params_type) if f.default is MISSING
            and f.default_factory is MISSING and f.name not in kw]
    if need:
        flags = ", ".join(f"--{n.replace('_', '-')}" if n in _PARAM_FLAGS
                          else f"--param {n}=VALUE" for n in need)
        raise InvalidParameterError(
            f"--mechanism {mechanism} needs {flags} (privacy parameters have no defaults; "
            f"`gazeprivacy mechanisms {mechanism}` lists the papers' values)")


def _participant_level(kw: dict[str, Any], budget: float | None, m: int | None
                       ) -> dict[str, Any]:
    """``--per-participant-epsilon E --windows-per-participant M`` as parameters (both needed,
    and not beside ``--epsilon``); nothing when neither is given."""
    if budget is None and m is None:
        return {}
    if budget is None or m is None:
        raise InvalidParameterError("--per-participant-epsilon and --windows-per-participant go "
                                    "together (the budget per participant and the number of "
                                    "windows it is spent on); give both")
    if "epsilon" in kw:
        raise InvalidParameterError("give --epsilon (per window) or --per-participant-epsilon "
                                    "(per participant), not both")
    return {"epsilon": budget, "unit": "participant", "windows_per_participant": m}


# participant-synth (a synthetic population): its flags, checked in one place
_SYNTH_NOT_PUBLIC = ("participant", "recording", "t", "mask", "name", "info", "pupil")


def _synthetic_population(kw: dict[str, Any], epsilon: float | None, delta: float | None,
                          windows: int | None, participants: int | None,
                          recordings: int | None, public: Any) -> dict[str, Any]:
    """The flags of a synthetic-population mechanism as parameters: ``--per-participant-epsilon``
    and ``--per-participant-delta`` (both required), ``--participants``,
    ``--recordings-per-participant``; every ``--public`` name is a public label."""
    if windows is not None:
        raise InvalidParameterError("--windows-per-participant does not apply to a synthetic "
                                    "population: its unit is the participant with all their "
                                    "recordings; drop it")
    if "epsilon" in kw:
        raise InvalidParameterError("--epsilon does not apply to a synthetic population; give "
                                    "--per-participant-epsilon and --per-participant-delta")
    if epsilon is None or delta is None:
        raise InvalidParameterError("a synthetic population needs --per-participant-epsilon "
                                    "and --per-participant-delta (no defaults)")
    ids = sorted(set(public) & set(_SYNTH_NOT_PUBLIC))
    if ids:
        raise InvalidParameterError(f"--public {ids[0]} does not apply to a synthetic "
                                    "population: its file holds only synthetic pseudonyms, the "
                                    "public time grid, x, y and the declared labels; declare "
                                    "labels only (e.g. --public task)")
    out: dict[str, Any] = {"epsilon_per_participant": epsilon, "delta": delta,
                           "public_labels": tuple(public)}
    if participants is not None:
        out["n_participants"] = participants
    if recordings is not None:
        out["recordings_per_participant"] = recordings
    return out


def _declared_trackers(paths: list[Path], spec: Any, input: Path, reading: dict[str, Any]
                       ) -> Any:
    """``--declared-tracker`` (repeatable): the tracker of each pilot file, declared public;
    one file gives the tracker, several a population of them."""
    from gazeprivacy.data.readers import read_input
    from gazeprivacy.mechanisms.samples.participant_synth import DeclaredTracker

    if not spec.synthetic_population:
        raise InvalidParameterError("--declared-tracker applies to a synthetic-population "
                                    "mechanism (participant-synth) only")
    trackers, seen = [], set()
    for path in paths:
        if path.resolve() == input.resolve():
            raise InvalidParameterError("--declared-tracker must be a recording of no "
                                        "participant of INPUT, not INPUT itself")
        if path.resolve() in seen:
            raise InvalidParameterError(f"--declared-tracker: {path} is given twice (each "
                                        "pilot once: a population weighs its trackers alike)")
        seen.add(path.resolve())
        if not path.is_file():
            raise InvalidParameterError(f"--declared-tracker: no such file: {path}")
        pilot = read_input(path, **reading)
        trackers.append(DeclaredTracker.from_recordings(pilot.recordings,
                                                        source=f"file {path.name}"))
    return trackers[0] if len(trackers) == 1 else tuple(trackers)


def _no_synthetic_flags(delta: float | None, participants: int | None) -> None:
    given = [flag for flag, v in (("--per-participant-delta", delta),
                                  ("--participants", participants)) if v is not None]
    if given:
        raise InvalidParameterError(f"{given[0]} applies to a synthetic-population mechanism "
                                    "(participant-synth) only")


def _smaller_side(input: Path, geo: Geometry | None, partitioned: bool,
                  reading: dict[str, Any]) -> float:
    """The smaller screen side (deg) for --radius-frac: --geometry, else the file's metadata."""
    from gazeprivacy.data.partitioned import PartitionedDataset
    from gazeprivacy.data.readers import read_input

    if geo is None:
        ds = (PartitionedDataset(input).partition(0) if partitioned
              else read_input(input, **reading))
        geo = ds[0].geometry
    if geo is None:
        raise InvalidParameterError("--radius-frac needs a geometry: pass --geometry")
    return min(geo.width_deg, geo.height_deg)


def _protect_partitioned_checked(input: Path, output: Path, mechanism: str, spec: Any,
                                 geo: Geometry | None, *, seed: int | None, engine: str,
                                 scheduler: str | None, overwrite: bool, time_unit: str,
                                 kw: dict[str, Any], sealing: tuple[Any, ...]) -> None:
    from gazeprivacy.data.partitioned import PartitionedDataset

    public, pupil_epsilon, pupil_range, id_map, report = sealing
    if report is not None:
        raise InvalidParameterError("--report does not apply to a partitioned INPUT (the "
                                    "partition-wise mechanisms report nothing)")
    kw = {**kw, "public": public or (), "pupil_epsilon": pupil_epsilon,
          "pupil_range": pupil_range, "id_map_path": id_map}
    if time_unit != "s":
        raise InvalidParameterError("--time-unit does not apply to a partitioned INPUT "
                                    "(its Parquet partitions are in seconds)")
    if geo is not None:
        if "geometry" not in {f.name for f in fields(spec.params_type)}:
            raise InvalidParameterError(f"{mechanism} takes no geometry parameter; "
                                        "drop --geometry for a partitioned INPUT")
        kw["geometry"] = geo
    _protect_partitioned(PartitionedDataset(input), output, mechanism, seed=seed, engine=engine,
                         scheduler=scheduler, overwrite=overwrite, kw=kw)


def _protect_partitioned(pds: PartitionedDataset, output: Path, mechanism: str, *,
                         seed: int | None, engine: str, scheduler: str | None, overwrite: bool,
                         kw: dict[str, Any]) -> None:
    """A partitioned folder in, a partitioned folder out (gazeprivacy.engines)."""
    from gazeprivacy.engines import protect_partitioned

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", NotFormallyPrivateWarning)
        rel = protect_partitioned(pds, output, mechanism=mechanism, seed=seed, engine=engine,
                                  scheduler=scheduler, overwrite=overwrite, **kw)
    console = Console()
    for msg in dict.fromkeys(str(w.message) for w in caught
                             if issubclass(w.category, NotFormallyPrivateWarning)):
        console.print(f"[yellow]warning:[/] {msg}", highlight=False, soft_wrap=True)
    out = rel.output
    console.print(f"[bold]{out.path}[/]: {out.n_partitions} partitions, {out.n_recordings} "
                  f"recordings, {out.n_samples} rows (engine {engine})", highlight=False)
    console.print(rel.guarantee.summary(), highlight=False, markup=False, soft_wrap=True)
    console.print(f"guarantee record: {out.path / 'guarantee.json'}", highlight=False)


def _declared_ranges(text: str) -> dict[str, Any]:
    from gazeprivacy.features.ranges import FeatureRange, default_ranges
    from gazeprivacy.features.window_features import WindowFeatureParams

    if text.startswith("catalogue:"):
        which = text.split(":", 1)[1]
        presets = {"mpiidpeye": WindowFeatureParams.mpiidpeye,
                   "degrees": WindowFeatureParams.degrees}
        if which not in presets:
            raise InvalidParameterError(f"--ranges catalogue must be one of "
                                        f"{', '.join(presets)}, got {which!r}")
        return default_ranges(presets[which]())
    try:
        raw = json.loads(Path(text).read_text())
        return {name: FeatureRange(float(lo), float(hi), "declared", "--ranges file")
                for name, (lo, hi) in raw.items()}
    except (OSError, ValueError, TypeError) as exc:
        raise InvalidParameterError(
            f"--ranges must be catalogue:NAME or a JSON file {{feature: [lo, hi]}}: {exc}"
        ) from None
