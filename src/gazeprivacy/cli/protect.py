# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy protect INPUT OUTPUT --mechanism M --epsilon E``: protect a data file.

Reads CSV or Parquet (long format), runs one registered mechanism, writes the same format with the
same recordings, row count, order and labels, and the guarantee record as
``OUTPUT.guarantee.json``. Without ``--seed`` the generator is seeded from OS entropy.

When INPUT is a partitioned folder (``gazeprivacy partition``), OUTPUT is a partitioned folder
too, written one partition at a time (``--engine local``, bounded memory) or on Dask
(``--engine dask [--scheduler ADDRESS]``), with the record in ``OUTPUT/guarantee.json``.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import fields
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.io import read_dataset, write_dataset
from gazeprivacy.data.partitioned import PartitionedDataset, is_partitioned
from gazeprivacy.exceptions import InvalidParameterError, NotFormallyPrivateWarning
from gazeprivacy.mechanisms import MECHANISMS, build_params
from gazeprivacy.mechanisms import protect as protect_dataset

__all__ = ["guarantee_path", "protect"]


def guarantee_path(output: Path) -> Path:
    """Where the record of ``output`` goes: ``OUTPUT.guarantee.json``."""
    return output.with_name(output.name + ".guarantee.json")


def _parse_geometry(text: str) -> Geometry:
    try:
        x0, x1, y0, y1 = (float(v) for v in text.split(","))
    except ValueError:
        raise InvalidParameterError(
            f"--geometry must be X_MIN,X_MAX,Y_MIN,Y_MAX in degrees, got {text!r}") from None
    return Geometry(x_min_deg=x0, x_max_deg=x1, y_min_deg=y0, y_max_deg=y1)


def _parse_param(item: str) -> tuple[str, Any]:
    if "=" not in item:
        raise InvalidParameterError(f"--param must be NAME=VALUE, got {item!r}")
    name, raw = item.split("=", 1)
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return name.strip().replace("-", "_"), value


def protect(
    input: Annotated[Path, typer.Argument(
        help="Long-format CSV or Parquet file, or a partitioned folder.")],
    output: Annotated[Path, typer.Argument(
        help="Output file (.csv, .csv.gz or .parquet); a folder for a partitioned INPUT.")],
    mechanism: Annotated[str, typer.Option(help=f"One of: {', '.join(MECHANISMS)}.")],
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
    window_s: Annotated[float | None, typer.Option(help="Window length in seconds.")] = None,
    grid_size: Annotated[int | None, typer.Option(help="DPGazeSynth grid G.")] = None,
    param: Annotated[list[str] | None, typer.Option(
        help="Further mechanism parameter NAME=VALUE (repeatable), e.g. "
             "transitions=one-per-window.")] = None,
    geometry: Annotated[str | None, typer.Option(
        help="Screen X_MIN,X_MAX,Y_MIN,Y_MAX in degrees (default: the file's metadata).")] = None,
    time_unit: Annotated[str, typer.Option(help="Unit of the t column: s, ms or us.")] = "s",
    seed: Annotated[int | None, typer.Option(
        help="Fix the generator (research run; noted in the record). Default: OS entropy.")] = None,
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
        help="Partitioned INPUT: replace an existing OUTPUT folder.")] = False,
) -> None:
    """Protect a gaze data file (or, for feature-series mechanisms, a window feature table) and
    write the guarantee record beside it."""
    spec = MECHANISMS[mechanism]
    if spec.level == "series":
        _protect_series_table(input, output, mechanism, seed=seed, ranges=ranges,
                              kw={name: value for name, value in (("epsilon", epsilon),
                                                                  ("mode", mode))
                                  if value is not None} | dict(_parse_param(p)
                                                               for p in param or ()))
        return
    if not spec.level.takes_samples:
        raise InvalidParameterError(
            f"{mechanism} is a {spec.level}-level mechanism; protect takes gaze samples or "
            "feature tables (heatmaps: use `gazeprivacy heatmap`)")
    geo = _parse_geometry(geometry) if geometry else None
    partitioned = is_partitioned(input)
    if not partitioned and (engine != "local" or scheduler is not None):
        raise InvalidParameterError(
            "--engine / --scheduler apply to a partitioned INPUT folder; make one with "
            "`gazeprivacy partition INPUT OUTDIR --recordings-per-partition N`")
    if partitioned:
        if time_unit != "s":
            raise InvalidParameterError("--time-unit does not apply to a partitioned INPUT "
                                        "(its Parquet partitions are in seconds)")
        pds = PartitionedDataset(input)
        ds = pds.partition(0)  # for --radius-frac's default geometry only
    else:
        ds = read_dataset(input, time_unit=time_unit, geometry=geo)
    kw: dict[str, Any] = {name: value for name, value in
                          (("epsilon", epsilon), ("k", k), ("gamma", gamma), ("mode", mode))
                          if value is not None}
    if radius_frac is not None:
        if radius_deg is not None:
            raise InvalidParameterError("give --radius-deg or --radius-frac, not both")
        g = geo or ds[0].geometry
        if g is None:
            raise InvalidParameterError("--radius-frac needs a geometry: pass --geometry")
        radius_deg = radius_frac * min(g.width_deg, g.height_deg)
    for name, value in (("radius_deg", radius_deg), ("window_s", window_s),
                        ("grid_size", grid_size)):
        if value is not None:
            kw[name] = value
    kw.update(dict(_parse_param(p) for p in param or ()))
    names = {f.name for f in fields(spec.params_type)}
    if "window_s" in names and "window_samples" in names and "window_s" not in kw \
            and "window_samples" not in kw:
        kw["window_s"] = 0.5  # seed 000's window, for Kaleido too
    if partitioned:
        if geo is not None:
            if "geometry" not in names:
                raise InvalidParameterError(f"{mechanism} takes no geometry parameter; "
                                            "drop --geometry for a partitioned INPUT")
            kw["geometry"] = geo
        del ds
        _protect_partitioned(pds, output, mechanism, seed=seed, engine=engine,
                             scheduler=scheduler, overwrite=overwrite, kw=kw)
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", NotFormallyPrivateWarning)
        rel = protect_dataset(ds, mechanism=mechanism, seed=seed, **kw)
    out = write_dataset(rel.output, output)
    gpath = guarantee_path(out)
    gpath.write_text(rel.guarantee.to_json())
    console = Console()
    for w in caught:  # paper mode and other unproven paths: say so, do not fail
        if issubclass(w.category, NotFormallyPrivateWarning):
            console.print(f"[yellow]warning:[/] {w.message}", highlight=False, soft_wrap=True)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    console.print(f"[bold]{out}[/]: {len(rel.output)} recordings, {rel.output.n_samples} rows")
    console.print(rel.guarantee.summary(), highlight=False, markup=False, soft_wrap=True)
    console.print(f"guarantee record: {gpath}", highlight=False)


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


def _protect_series_table(input: Path, output: Path, mechanism: str, *, seed: int | None,
                          ranges: str | None, kw: dict[str, Any]) -> None:
    """Feature-series mechanisms on a window feature table (CSV or Parquet)."""
    import polars as pl

    from gazeprivacy.mechanisms.series import protect_series
    from gazeprivacy.rng import make_rng

    try:
        table = (pl.read_parquet(input) if input.suffix in (".parquet", ".pq")
                 else pl.read_csv(input))
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise InvalidParameterError(f"cannot read feature table {str(input)!r}: {exc}") from None
    if ranges is not None:
        kw["ranges"] = _declared_ranges(ranges)
    params = build_params(mechanism, **kw)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", NotFormallyPrivateWarning)
        rel = protect_series(table, mechanism, params, rng=make_rng(seed))
    record = rel.guarantee.with_seed(seed)
    output.parent.mkdir(parents=True, exist_ok=True)
    if output.suffix in (".parquet", ".pq"):
        rel.output.write_parquet(output)
    else:
        rel.output.write_csv(output)
    gpath = guarantee_path(output)
    gpath.write_text(record.to_json())
    console = Console()
    for w in caught:
        console.print(f"[yellow]warning:[/] {w.message}", highlight=False, soft_wrap=True)
    console.print(f"[bold]{output}[/]: {rel.output.height} windows")
    console.print(record.summary(), highlight=False, markup=False, soft_wrap=True)
    console.print(f"guarantee record: {gpath}", highlight=False)
