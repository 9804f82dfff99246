# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy heatmap INPUT --stimulus ID --epsilon E --delta D --cap M --out FILE.png``."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Annotated, Any

import typer

from gazeprivacy.cli._common import (
    Output,
    atomic_files,
    check_outputs,
    err,
    make_rng,
    open_ledger,
    say,
)
from gazeprivacy.cli._common import out as out_console
from gazeprivacy.exceptions import InvalidParameterError, LowExpectedUtilityWarning

__all__ = ["heatmap"]


# long: one typed declaration per CLI flag (typer reads them from the signature)
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
    off_image: Annotated[str, typer.Option(
        help="Fixations outside the image: raise (refuse, the default), clamp (nearest border "
             "cell) or exclude.")] = "raise",
    seed: Annotated[int | None, typer.Option(
        help="Fixed seed (research runs; the record notes it; >= 0). Default: OS entropy.",
        min=0)] = None,
    overwrite: Annotated[bool, typer.Option(help="Replace an existing OUT and its record.")
                         ] = False,
    prior_fixations: Annotated[float, typer.Option(
        help="Fixations per observer of the public centre-bias prior used only to predict the "
             "heatmap's correlation with the true one before the release (a warning when "
             "low).", min=0.0)] = 10.0,
    ledger: Annotated[Path | None, typer.Option(
        "--ledger", help="Charge each observer in this privacy-budget ledger (see "
                         "`gazeprivacy ledger`).")] = None,
    max_epsilon_per_participant: Annotated[float | None, typer.Option(
        help="--ledger: lifetime cap on each participant's epsilon; a release that would pass "
             "it is refused before any work.")] = None,
    allow_unaccounted: Annotated[bool, typer.Option(
        help="--ledger with a cap: accept a release without a usable epsilon (--cap auto, "
             "paper mode); the ledger records it.")] = False,
) -> None:
    """Release a differentially private heatmap of one stimulus (Liu et al. 2019)."""
    from gazeprivacy.accounting.ledger import Spend
    from gazeprivacy.experiments.fixation_tables import read_fixation_table
    from gazeprivacy.report.heatmap_render import read_stimulus_image, render_heatmap_png

    # A flag the mechanism does not read is refused, as protect does (never dropped in silence).
    if mechanism == "laplace" and delta is not None:
        raise InvalidParameterError("--delta applies to the Gaussian mechanisms (gaussian, "
                                    "analytic-gaussian); laplace is epsilon-DP (delta 0)")
    if mode != "sound" and mechanism != "gaussian":
        raise InvalidParameterError(f"--mode {mode} applies to --mechanism gaussian only "
                                    "(Liu et al. 2019's calibration); drop it")
    # Everything about the output is checked before the (possibly long) work.
    rec_path = out.with_name(out.stem + ".guarantee.json")
    check_outputs([Output(out, "--out", suffixes=(".png",)), Output(rec_path, "the record")],
                  inputs=[input_path, stimulus_image], ledger=ledger, overwrite=overwrite)
    cap_value: int | str = cap if cap == "auto" else _int(cap)
    led = open_ledger(ledger, max_epsilon_per_participant, allow_unaccounted)
    say(f"reading {input_path}")
    fx = read_fixation_table(input_path, width_px=width_px, height_px=height_px)
    planned = _planned(led, fx, stimulus, mechanism, epsilon, delta, cap_value, cell_px, mode,
                       off_image)
    # a written release from a fixed seed is not formally private (the seed is not written)
    spend = Spend(led, None if planned is None else planned.as_seeded_release(seed is not None))
    say(f"releasing the heatmap of {stimulus!r} ({mechanism})")
    with spend.guard():  # a failed write cancels the reservation too
        rel = _release(fx, stimulus, mechanism=mechanism, epsilon=epsilon, delta=delta,
                       cap=cap_value, sigma_px=sigma_px, rng=make_rng(seed), cell_px=cell_px,
                       mode=mode, off_image=off_image, fixations_per_observer=prior_fixations)
        record = rel.guarantee.as_seeded_release(seed is not None)
        # checked per observer id: the record composes one map per observer ("each observer")
        spend.check(None if planned is None else record.compose(
            dict.fromkeys(planned.per_participant or {}, 1)))
        image = read_stimulus_image(stimulus_image) if stimulus_image is not None else None
        with atomic_files(out, rec_path) as (tmp_png, tmp_rec):
            render_heatmap_png(rel.output.heatmap, tmp_png, stimulus_image=image,
                               title=f"{stimulus}: {record.summary()}", cell_px=cell_px)
            tmp_rec.write_text(record.to_json())
    spend.commit(out)
    console = out_console()
    console.print(f"wrote {out} and {rec_path}", markup=False)
    console.print(record.summary(), markup=False)
    for f in record.flags:
        console.print(f"flag {f.code.value}: {f.message}", markup=False)


def _release(fx: Any, stimulus: str, **kw: Any) -> Any:
    """:func:`release_heatmap`, its low-utility forecast printed as one warning line."""
    from gazeprivacy.experiments.heatmap_release import release_heatmap

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LowExpectedUtilityWarning)
        rel = release_heatmap(fx, stimulus, **kw)
    for w in caught:
        if issubclass(w.category, LowExpectedUtilityWarning):
            err().print(f"warning: {w.message}", markup=False)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return rel


def _planned(ledger: Any, fx: Any, stimulus: str, mechanism: str, epsilon: float,
             delta: float | None, cap: int | str, cell_px: int, mode: str,
             off_image: str) -> Any:
    """The ledger's planned record (per observer id) before the work; None without a ledger."""
    if ledger is None:
        return None
    from gazeprivacy.experiments.heatmap_release import planned_guarantee
    from gazeprivacy.features.gaze_maps import gaze_maps_from_fixations

    maps = gaze_maps_from_fixations(fx, stimulus, cell_px=cell_px, off_image=off_image)
    return planned_guarantee(maps, mechanism=mechanism, epsilon=epsilon, delta=delta, cap=cap,
                             mode=mode)


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InvalidParameterError(f"cap must be a positive integer or 'auto', got {text!r}"
                                    ) from None
