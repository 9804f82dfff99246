# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy heatmap INPUT --stimulus ID --epsilon E --delta D --cap M --out FILE.png``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gazeprivacy.cli._common import atomic_files, check_output, make_rng, say
from gazeprivacy.cli._common import out as out_console
from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["heatmap"]


def heatmap(
    input_path: Annotated[Path, typer.Argument(
        metavar="INPUT", help="Fixation table (CSV/Parquet; project, OSIE or FIGRIM layout).")],
    stimulus: Annotated[str, typer.Option(help="Stimulus id, e.g. 1001.jpg.")],
    epsilon: Annotated[float, typer.Option(help="Privacy parameter epsilon (> 0).")],
    width_px: Annotated[int, typer.Option(help="Image width in pixels.")],
    height_px: Annotated[int, typer.Option(help="Image height in pixels.")],
    out: Annotated[Path, typer.Option(
        help="Output PNG (must end in .png); the record goes to OUT.guarantee.json.")],
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
        help="Fixed seed (research runs; the record notes it; >= 0). Default: OS entropy.",
        min=0)] = None,
    overwrite: Annotated[bool, typer.Option(help="Replace an existing OUT and its record.")
                         ] = False,
) -> None:
    """Release a differentially private heatmap of one stimulus (Liu et al. 2019)."""
    from gazeprivacy.experiments.fixation_tables import read_fixation_table
    from gazeprivacy.experiments.heatmap_release import release_heatmap
    from gazeprivacy.report.heatmap_render import read_stimulus_image, render_heatmap_png

    # Everything about the output is checked before the (possibly long) work.
    inputs = (input_path, stimulus_image)
    rec_path = out.with_name(out.stem + ".guarantee.json")
    check_output(out, suffixes=(".png",), inputs=inputs, overwrite=overwrite, option="--out")
    check_output(rec_path, suffixes=(".json",), inputs=inputs, overwrite=overwrite,
                 option="the record")
    cap_value: int | str = cap if cap == "auto" else _int(cap)
    say(f"reading {input_path}")
    fx = read_fixation_table(input_path, width_px=width_px, height_px=height_px)
    say(f"releasing the heatmap of {stimulus!r} ({mechanism})")
    rel = release_heatmap(fx, stimulus, mechanism=mechanism, epsilon=epsilon, delta=delta,
                          cap=cap_value, sigma_px=sigma_px, rng=make_rng(seed), cell_px=cell_px,
                          mode=mode)
    record = rel.guarantee.with_seed(seed)
    image = read_stimulus_image(stimulus_image) if stimulus_image is not None else None
    with atomic_files(out, rec_path) as (tmp_png, tmp_rec):
        render_heatmap_png(rel.output.heatmap, tmp_png, stimulus_image=image,
                           title=f"{stimulus}: {record.summary()}", cell_px=cell_px)
        tmp_rec.write_text(record.to_json())
    console = out_console()
    console.print(f"wrote {out} and {rec_path}", markup=False)
    console.print(record.summary(), markup=False)
    for f in record.flags:
        console.print(f"flag {f.code.value}: {f.message}", markup=False)


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InvalidParameterError(f"cap must be a positive integer or 'auto', got {text!r}"
                                    ) from None
