# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy info FILE``: a summary of a data file (the long format or an eye-tracker export,
read as ``gazeprivacy protect`` reads it, with the same reader options), and its guarantee record
when it is a release (the sidecar ``FILE.guarantee.json`` or a record in the Parquet metadata).

Besides recordings, participants and labels it says what a release would rest on, before any
``protect``: the geometry and where it came from (or that it is missing, which screen-bounded
mechanisms refuse), the sampling rate and its source, the rows a reader dropped or made missing,
gaps in the clock, the coordinate range, and the share of samples outside the screen that
mechanisms bounded by it would clamp to its border. ``--json`` prints the same as one object.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from gazeprivacy.cli._common import echo_table, parse_geometry
from gazeprivacy.cli._common import out as out_console
from gazeprivacy.cli._reading import (
    ColumnsOpt,
    DistanceOpt,
    EyeOpt,
    RateOpt,
    ScreenCmOpt,
    ScreenPxOpt,
    TrialMessageOpt,
    reader_options,
)
from gazeprivacy.cli.protect import InputFormat, XyUnit

__all__ = ["info"]


# long: one typed declaration per CLI flag (the reader options of protect)
def info(
    path: Annotated[Path, typer.Argument(
        help="Long-format CSV or Parquet file, or an eye-tracker export (as for protect).")],
    time_unit: Annotated[str | None, typer.Option(
        help="Unit of the t column: s, ms, us or ns (the long format; default s).")] = None,
    input_format: Annotated[InputFormat | None, typer.Option(
        help="long, tobii, pupil-core, neon or eyelink. Default: told by the file's name and "
             "header.")] = None,
    px_per_deg: Annotated[float | None, typer.Option(
        help="Pixels per degree for pixel gaze (Tobii, EyeLink).")] = None,
    participant: Annotated[str | None, typer.Option(
        help="The participant of a device export that names none.")] = None,
    geometry: Annotated[str | None, typer.Option(
        help="Screen X_MIN,X_MAX,Y_MIN,Y_MAX in degrees (default: the file's metadata).")] = None,
    xy_unit: Annotated[XyUnit | None, typer.Option(
        help="Unit of x and y (the long format): deg, px or norm.")] = None,
    label: Annotated[list[str] | None, typer.Option(
        "--label", help="This column is a recording label (repeatable).")] = None,
    rate: RateOpt = None,
    columns: ColumnsOpt = None,
    eye: EyeOpt = None,
    trial_message: TrialMessageOpt = None,
    screen_px: ScreenPxOpt = None,
    screen_cm: ScreenCmOpt = None,
    distance_cm: DistanceOpt = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print the summary as one JSON object.")] = False,
) -> None:
    """Summarise a data file: recordings, participants, samples, rate and its source, geometry,
    gaps, coordinate range, the share clamped to the screen, labels, missing data."""
    from gazeprivacy.data.readers import read_input

    geo = parse_geometry(geometry) if geometry else None
    reading = reader_options(rate=rate, columns=columns, eye=eye, trial_message=trial_message,
                             screen_px=screen_px, screen_cm=screen_cm, distance_cm=distance_cm,
                             geometry=geo, px_per_deg=px_per_deg)
    ds = read_input(path, time_unit=time_unit, px_per_deg=px_per_deg, participant=participant,
                    input_format=None if input_format is None else input_format.value,
                    geometry=geo, labels=tuple(label or ()),
                    xy_unit=None if xy_unit is None else xy_unit.value, **reading)
    facts = summarise(ds)
    console = out_console()
    if as_json:
        facts["records"] = [where for where, _ in _records(path)]
        console.print(json.dumps({"file": str(path), **facts}, default=str), markup=False,
                      soft_wrap=True)
        return
    _print_facts(path, facts, console)
    labels = ds.label_names()
    if labels:
        summary = ds.summary()
        t = Table("label", "distinct values", "examples")
        for name in labels:
            vals = summary[name].drop_nulls().unique(maintain_order=True).to_list()
            t.add_row(Text(name), str(len(vals)), Text(", ".join(map(str, vals[:5]))))
        echo_table(t)
    _print_record(path, console)


def summarise(ds: Any) -> dict[str, Any]:
    """What ``info`` reports about a dataset, as plain data (the JSON object)."""
    import numpy as np

    rates = sorted({r.sampling_rate_hz for r in ds})
    n = ds.n_samples
    missing = sum(int(r.missing.sum()) for r in ds)
    gaps = gap_s = 0
    outside = valid = 0
    xs, ys = [], []
    geos = {r.geometry for r in ds}
    for r in ds:
        d = np.diff(r.t)
        big = d > 1.5 / r.sampling_rate_hz
        gaps += int(big.sum())
        gap_s += float((d[big] - 1.0 / r.sampling_rate_hz).sum())
        ok = ~r.missing
        xs.append(r.x[ok])
        ys.append(r.y[ok])
        if r.geometry is not None and r.geometry.kind.value in ("screen", "image"):
            valid += int(ok.sum())
            outside += int((ok & ~r.geometry.contains(r.x, r.y)).sum())
    x, y = np.concatenate(xs), np.concatenate(ys)
    reading = dict(ds.reading)
    geo = next(iter(geos)) if len(geos) == 1 else None
    return {
        "recordings": len(ds), "participants": len(ds.participants), "samples": n,
        "sampling_rate_hz": rates, "rate_source": reading.pop("rate_source", None) or "metadata",
        "missing_share": missing / n if n else 0.0,
        "gaps": gaps, "gap_seconds": round(gap_s, 3),
        "x_range_deg": [float(x.min()), float(x.max())] if x.size else None,
        "y_range_deg": [float(y.min()), float(y.max())] if y.size else None,
        "geometry": None if geo is None else geo.to_dict() | {"kind": geo.kind.value},
        "geometries": len(geos - {None}),
        "geometry_source": reading.pop("geometry", None),
        "clamped_share": outside / valid if valid else None,
        "reading": reading,
    }


def _print_facts(path: Path, f: dict[str, Any], console: Any) -> None:
    def p(text: str) -> None:
        console.print(text, markup=False)

    rate_text = ", ".join(f"{r:g}" for r in f["sampling_rate_hz"])
    p(f"{path}: {f['recordings']} recordings, {f['participants']} participants, "
      f"{f['samples']} samples; sampling rate(s) {rate_text} Hz (source: {f['rate_source']}); "
      f"missing {f['missing_share']:.1%} of samples")
    g = f["geometry"]
    if g is not None:
        src = f" (source: {f['geometry_source']})" if f["geometry_source"] else ""
        grid = f", {g['width_px']} x {g['height_px']} px" if g.get("width_px") else ""
        p(f"geometry: x {g['x_min_deg']:.3g} to {g['x_max_deg']:.3g} deg, y "
          f"{g['y_min_deg']:.3g} to {g['y_max_deg']:.3g} deg ({g['kind']}{grid}){src}")
    elif f["geometries"] > 1:
        p(f"geometry: {f['geometries']} different geometries across recordings")
    else:
        p("geometry: missing; mechanisms bounded by the screen (kaleido, dpgazesynth, ...) "
          "refuse the file: pass --geometry X_MIN,X_MAX,Y_MIN,Y_MAX (degrees), or the screen "
          "(--screen-cm W,H --distance-cm D, or --px-per-deg N for pixel gaze)")
    if f["x_range_deg"] is not None:
        p(f"coordinates: x {f['x_range_deg'][0]:.3g} to {f['x_range_deg'][1]:.3g}, y "
          f"{f['y_range_deg'][0]:.3g} to {f['y_range_deg'][1]:.3g} deg")
    if f["clamped_share"] is not None:
        p(f"outside the screen: {f['clamped_share']:.1%} of valid samples (mechanisms bounded "
          "by the screen clamp them to its border)")
    p(f"gaps: {f['gaps']} (intervals over 1.5 samples; {f['gap_seconds']:g} s in all)")
    rows = f["reading"].get("rows")
    if rows:
        p("reading: " + "; ".join(f"{n} {what}" for what, n in rows.items()))
    for k, v in f["reading"].items():
        if k != "rows":
            p(f"{k}: {v}")


def _records(path: Path) -> list[tuple[str, str]]:
    """(where, JSON text) of every guarantee record found for ``path``."""
    found = [(str(side), side.read_text()) for side in
             (path.with_name(path.name + ".guarantee.json"),
              path.with_name(path.stem + ".guarantee.json")) if side.is_file()]
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        meta = pq.read_metadata(path).metadata or {}
        for key, raw in meta.items():
            name = key.decode(errors="replace")
            if "guarantee" in name or "record" in name:
                found.append((f"Parquet metadata {name!r}", raw.decode(errors="replace")))
    return found


def _print_record(path: Path, console) -> None:
    from gazeprivacy.guarantees import Guarantee

    records = _records(path)
    if not records:
        console.print("record: none found (no FILE.guarantee.json beside it and none in its "
                      "metadata): not a gazeprivacy release, or its record was not kept",
                      markup=False)
        return
    where, text = records[0]
    try:
        g = Guarantee.from_json(text)
    except (ValueError, KeyError, TypeError) as exc:
        console.print(f"record ({where}): unreadable: {exc}", markup=False)
        return
    console.print(f"record ({where}): {g.summary()}", markup=False)
    for f in g.flags:
        console.print(f"  flag {f.code.value}: {f.message}", markup=False)
