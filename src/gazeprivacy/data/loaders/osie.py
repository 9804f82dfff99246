# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""OSIE fixations: 15 subjects free-viewing 700 natural images (800 x 600 px, 3 s each).

Xu, Jiang, Wang, Kankanhalli, Zhao. Predicting human gaze beyond pixels. Journal of Vision
14(1):28, 2014 (NUS VIP lab; MIT licence). Folder ``osie_fixations/`` of the data directory;
see its PROVENANCE.md.

Participant id: ``"S<subject_index>"`` (1..15, the position in the release's ``subjects``
array, which the original code treats as the subject identity across images; not verified
against participant records). Stimulus: the image file name without ``.jpg`` (e.g. ``"1001"``).
Durations in ms as released.
"""

from __future__ import annotations

import os

import polars as pl

from gazeprivacy.data.fixations import Fixations
from gazeprivacy.data.loaders._paths import dataset_dir, dataset_file
from gazeprivacy.data.loaders._spec import DatasetDescription
from gazeprivacy.exceptions import InvalidDataError

__all__ = ["OSIE_HEIGHT_PX", "OSIE_WIDTH_PX", "describe_osie_fixations", "load_osie_fixations"]

FOLDER = "osie_fixations"
FILE = "osie_fixations_long.csv.gz"
OSIE_WIDTH_PX, OSIE_HEIGHT_PX = 800, 600


def load_osie_fixations(data_dir: str | os.PathLike[str] | None = None) -> Fixations:
    """Load the OSIE fixation lists as :class:`Fixations` on 800 x 600 images.

    Columns: ``participant`` (``S1``..``S15``), ``stimulus`` (image name, e.g. ``"1001"``),
    ``fixation`` (order within the trial), ``x_px``, ``y_px``, ``duration_ms``. Every row of the
    source is kept; ``info["n_off_image"]`` counts fixations outside the image (kept as
    recorded).

    Raises
    ------
    InvalidDataError
        The data directory, the ``osie_fixations`` folder or its CSV is missing or unreadable.
    """
    folder = dataset_dir(FOLDER, data_dir)
    path = dataset_file(folder, FILE)
    try:
        raw = pl.read_csv(path, schema={"image": pl.String, "subject_index": pl.Int64,
                                        "fixation": pl.Int64, "x_px": pl.Float64,
                                        "y_px": pl.Float64, "duration_ms": pl.Float64})
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise InvalidDataError(f"cannot read {str(path)!r}: {exc}") from None
    tab = raw.select(pl.format("S{}", pl.col("subject_index")).alias("participant"),
                     pl.col("image").str.replace(r"\.jpg$", "").alias("stimulus"),
                     "fixation", "x_px", "y_px", "duration_ms")
    off = tab.select(((pl.col("x_px") < 0) | (pl.col("x_px") > OSIE_WIDTH_PX)
                      | (pl.col("y_px") < 0) | (pl.col("y_px") > OSIE_HEIGHT_PX)).sum()).item()
    info = {"source": str(path),
            "citation": "Xu, Jiang, Wang, Kankanhalli, Zhao. Predicting human gaze beyond "
                        "pixels. Journal of Vision 14(1):28, 2014.",
            "licence": "MIT (c) 2014 NUS VIP", "n_off_image": int(off),
            "participant_rule": "S<subject_index>: position in the release's subjects array"}
    return Fixations(tab, width_px=OSIE_WIDTH_PX, height_px=OSIE_HEIGHT_PX,
                     name="osie_fixations", info=info)


def describe_osie_fixations(
        data_dir: str | os.PathLike[str] | None = None) -> DatasetDescription:
    """Count subjects, trials (subject x image) and fixations."""
    fx = load_osie_fixations(data_dir)
    return DatasetDescription(
        participants=fx.n_participants,
        recordings=fx.table.select(pl.struct("participant", "stimulus").n_unique()).item(),
        samples=fx.table.height, note=f"{len(fx.stimuli)} images")
