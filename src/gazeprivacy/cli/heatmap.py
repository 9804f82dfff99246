# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy heatmap INPUT --stimulus ID --epsilon E --delta D --cap M --out FILE.png``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from gazeprivacy.experiments.fixation_tables import read_fixation_table
from gazeprivacy.experiments.heatmap_release import release_heatmap
from gazeprivacy.report.heatmap_render import read_stimulus_image, render_heatmap_png
from gazeprivacy.rng import make_rng

__all__ = ["heatmap"]


def heatmap(
    input_path: Annotated[Path, typer.Argument(
        metavar="INPUT", help="Fixation table (CSV/Parquet; project, OSIE or FIGRIM layout).")],
    stimulus: Annotated[str, typer.Option(help="Stimulus id, e.g. 1001.jpg.")],
    epsilon: Annotated[float, typer.Option(help="Privacy parameter epsilon (> 0).")],
    width_px: Annotated[int, typer.Option(help="Image width in pixels.")],
    height_px: Annotated[int, typer.Option(help="Image height in pixels.")],
    out: Annotated[Path, typer.Option(help="Output PNG; the record goes to OUT.guarantee.json.")],
    cap: Annotated[str, typer.Option(
        help="Per-observer cap m (integer), or 'auto' for Algorithm 1 (reads the private data; "
             "flagged).")],
    delta: Annotated[float | None, typer.Option(
        help="Privacy parameter delta (Gaussian mechanisms), e.g. n^-1.5.")] = None,
    mechanism: Annotated[str, typer.Option(
        help="gaussian (Theorem 3.4) | laplace (Theorem 3.5) | analytic-gaussian.")] = "gaussian",
    sigma_px: Annotated[float, typer.Option(help="Heatmap point-spread sigma (px).")] = 24.0,
    cell_px: Annotated[int, typer.Option(help="Gaze-map cell size in pixels.")] = 1,
    mode: Annotated[str, typer.Option(help="sound | paper (gaussian only).")] = "sound",
    stimulus_image: Annotated[Path | None, typer.Option(
        help="Stimulus image to draw the heatmap over.")] = None,
    seed: Annotated[int | None, typer.Option(
        help="Fixed seed (research runs; the record notes it). Default: OS entropy.")] = None,
) -> None:
    """Release a differentially private heatmap of one stimulus (Liu et al. 2019)."""
    fx = read_fixation_table(input_path, width_px=width_px, height_px=height_px)
    cap_value: int | str = cap if cap == "auto" else _int(cap)
    rel = release_heatmap(fx, stimulus, mechanism=mechanism, epsilon=epsilon, delta=delta,
                          cap=cap_value, sigma_px=sigma_px, rng=make_rng(seed), cell_px=cell_px,
                          mode=mode)
    record = rel.guarantee.with_seed(seed)
    image = read_stimulus_image(stimulus_image) if stimulus_image is not None else None
    png = render_heatmap_png(rel.output.heatmap, out, stimulus_image=image,
                             title=f"{stimulus}: {record.summary()}", cell_px=cell_px)
    rec_path = png.parent / (png.stem + ".guarantee.json")
    rec_path.write_text(record.to_json())
    console = Console()
    console.print(f"wrote [bold]{png}[/] and {rec_path}")
    console.print(record.summary(), highlight=False, markup=False)
    for f in record.flags:
        console.print(f"flag {f.code.value}: {f.message}", highlight=False, markup=False)


def _int(text: str) -> int:
    from gazeprivacy.exceptions import InvalidParameterError

    try:
        return int(text)
    except ValueError:
        raise InvalidParameterError(f"cap must be a positive integer or 'auto', got {text!r}"
                                    ) from None
