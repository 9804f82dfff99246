# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy client IN OUT.reports --epsilon E --grid-size G``: a device's DPGazeSynth step.

Reads the device's own recordings (CSV or Parquet, one sampling rate) and writes its randomised
report as one versioned client message (:mod:`gazeprivacy.deploy.protocol`): noisy start
cells, noisy run lengths and OUE reports per 0.5 s window, the ids, row counts and (``--missing
keep``) gap intervals, and the announced parameters. The raw gaze never leaves the device. Every
parameter must be the curator's announced one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from gazeprivacy.cli._common import Output, check_outputs, parse_geometry

__all__ = ["client"]



def client(
    input: Annotated[Path, typer.Argument(help="The device's recordings: long-format CSV or "
                                               "Parquet.")],
    output: Annotated[Path, typer.Argument(help="Message file to send (e.g. OUT.reports).")],
    epsilon: Annotated[float, typer.Option(help="Announced budget per window.")],
    grid_size: Annotated[int, typer.Option(help="Announced grid G.")],
    window_s: Annotated[float, typer.Option(help="Announced window length (s).")] = 0.5,
    radius_deg: Annotated[float | None, typer.Option(
        help="Announced radius r (deg); default 3 min(H, V) / G.")] = None,
    mode: Annotated[str, typer.Option(help="sound or paper.")] = "sound",
    transitions: Annotated[str, typer.Option(help="all or one-per-window.")] = "all",
    oue_path: Annotated[str, typer.Option(
        help="client-reports (real OUE reports, the deployment path) or curator-view (the "
             "device's column sums).")] = "client-reports",
    missing: Annotated[str, typer.Option(help="keep (gaps sent, public) or fill.")] = "keep",
    geometry: Annotated[str | None, typer.Option(
        help="Screen X_MIN,X_MAX,Y_MIN,Y_MAX in degrees (default: the file's metadata).")
    ] = None,
    time_unit: Annotated[str, typer.Option(help="Unit of the t column: s, ms or us.")] = "s",
    seed: Annotated[int | None, typer.Option(
        help="Fix the generator (tests only). Default: OS entropy.")] = None,
    overwrite: Annotated[bool, typer.Option(help="Replace an existing OUTPUT.")] = False,
) -> None:
    """Randomise this device's gaze into one DPGazeSynth client message."""
    from gazeprivacy.deploy.protocol import client_file
    from gazeprivacy.mechanisms.samples.dpgazesynth import DPGazeSynthParams

    check_outputs([Output(output, "OUTPUT")], inputs=[input], overwrite=overwrite)
    geo = parse_geometry(geometry) if geometry else None
    params = DPGazeSynthParams(epsilon=epsilon, grid_size=grid_size, window_s=window_s,
                               radius_deg=radius_deg, mode=mode, transitions=transitions,
                               oue_path=oue_path, missing=missing, geometry=geo)
    msg = client_file(input, output, params, seed=seed, time_unit=time_unit,
                      overwrite=overwrite)
    Console().print(f"[bold]{output}[/]: {output.stat().st_size:,} bytes, {msg.n_windows} "
                    f"windows, {msg.oue_n} OUE reports, {len(msg.recordings)} recordings",
                    highlight=False)
