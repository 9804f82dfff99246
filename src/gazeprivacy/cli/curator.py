# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy curator REPORTS... OUT --seed S``: DPGazeSynth's curator over device messages.

Validates every client message (schema, version, parameters, report sizes; a refused message is
named by its file), estimates the transition model from all OUE reports, synthesises every
device's rows and writes the sealed release (pseudonymised ids, public sampling grid) with its
record at ``OUT.guarantee.json``. With ``--epsilon`` and ``--grid-size`` (and the other options
when not their defaults) the curator checks every message against that announcement; without,
the first message's parameters are the announcement every other message must equal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

__all__ = ["curator"]


def curator(
    reports: Annotated[list[Path], typer.Argument(help="Client message files.")],
    output: Annotated[Path, typer.Argument(help="Release file (.csv, .csv.gz or .parquet).")],
    seed: Annotated[int | None, typer.Option(
        help="Fix the generator (research run; noted in the record). Default: OS entropy.")
    ] = None,
    epsilon: Annotated[float | None, typer.Option(help="Announced budget per window.")] = None,
    grid_size: Annotated[int | None, typer.Option(help="Announced grid G.")] = None,
    window_s: Annotated[float, typer.Option(help="Announced window length (s).")] = 0.5,
    radius_deg: Annotated[float | None, typer.Option(help="Announced radius r (deg).")] = None,
    mode: Annotated[str, typer.Option(help="Announced mode.")] = "sound",
    transitions: Annotated[str, typer.Option(help="Announced transitions mode.")] = "all",
    oue_path: Annotated[str, typer.Option(help="Announced OUE path.")] = "client-reports",
    missing: Annotated[str, typer.Option(help="Announced missing-sample policy.")] = "keep",
    sampling_rate_hz: Annotated[float | None, typer.Option(
        help="Announced sampling rate (default: the first message's).")] = None,
    geometry: Annotated[str | None, typer.Option(
        help="Announced screen X_MIN,X_MAX,Y_MIN,Y_MAX (default: the first message's).")
    ] = None,
    public: Annotated[list[str] | None, typer.Option(
        "--public", help="Write this as is (repeatable), e.g. mask (the gaps devices sent "
                         "under --missing keep), participant / recording (raw ids).")] = None,
    id_map: Annotated[Path | None, typer.Option(
        "--id-map", help="Write the raw id -> pseudonym map here (keep private).")] = None,
    overwrite: Annotated[bool, typer.Option(
        help="Replace an existing OUTPUT (and its record) and --id-map.")] = False,
) -> None:
    """Validate client messages, synthesise every device's rows and write the sealed release."""
    from gazeprivacy._atomic import Output, check_outputs, sidecars
    from gazeprivacy.cli._common import parse_geometry
    from gazeprivacy.deploy import protocol as proto
    from gazeprivacy.exceptions import InvalidParameterError
    from gazeprivacy.mechanisms.samples.dpgazesynth import DPGazeSynthParams
    from gazeprivacy.mechanisms.samples.dpgazesynth.protocol_phases import Announcement

    check_outputs([Output(output, "OUTPUT", suffixes=(".csv", ".csv.gz", ".parquet", ".pq")),
                   *(Output(p, "the record" if p.name.endswith(".guarantee.json")
                            else "OUTPUT's metadata file") for p in sidecars(output)),
                   Output(id_map, "--id-map")], inputs=reports, overwrite=overwrite)
    announced = None
    if (epsilon is None) != (grid_size is None):
        raise InvalidParameterError("give both --epsilon and --grid-size to announce the "
                                    "parameters, or neither (the first message announces)")
    if epsilon is not None and grid_size is not None:
        first = proto.decode_client_message(reports[0].read_bytes(), name=str(reports[0])) \
            if reports and (sampling_rate_hz is None or geometry is None) else None
        params = DPGazeSynthParams(
            epsilon=epsilon, grid_size=grid_size, window_s=window_s, radius_deg=radius_deg,
            mode=mode, transitions=transitions, oue_path=oue_path, missing=missing,
            geometry=parse_geometry(geometry) if geometry else first.announcement.screen)
        announced = Announcement.of(
            params, sampling_rate_hz=sampling_rate_hz or first.announcement.sampling_rate_hz)
    sealed = proto.curator_files(reports, output, announced=announced, seed=seed,
                                 public=public or (), id_map_path=id_map,
                                 overwrite=overwrite)
    console = Console()
    console.print(f"[bold]{output}[/]: {len(reports)} messages, {sealed.table.height} rows",
                  highlight=False)
    console.print(sealed.guarantee.summary(), highlight=False, markup=False, soft_wrap=True)
    console.print(f"guarantee record: {output}.guarantee.json", highlight=False)
