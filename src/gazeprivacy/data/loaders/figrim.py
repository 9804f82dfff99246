# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""FIGRIM fixations: 67 participant slots on 630 target + 2157 filler scene images.

Bylinskii, Isola, Bainbridge, Torralba, Oliva. Intrinsic and extrinsic effects on image
memorability. Vision Research, 2015 (MIT). Folder ``figrim_fixations/`` of the data directory;
see its PROVENANCE.md (no licence stated; research use; not redistributable).

* Participant id ``"U<user_slot>"`` (slot 1..67, the same person for every image per the
  release's README; ``subject_code`` initials are ambiguous and kept only as a column).
* Stimulus: the image file name without extension (e.g. ``"sun_awmodvmqonpeudqi"``).
* Image size: **1000 x 1000 px**. The release's ``.mat`` files store no image size (the LabelMe
  annotations hold only polygons), so this is taken from the FIGRIM paper / image set (images
  resized to 1000 x 1000) and is consistent with the data: all 424 712 fixations lie in
  [0.3, 999.9] px on both axes. Not verified against the image files, which are not here.
* No fixation durations in this release: ``duration_ms`` is null.
* Extra columns: ``image_set`` (target / filler), ``presentation`` (``enc``, ``rec``, ``rec2``:
  encoding and the recognition repeats of targets; fillers have ``enc`` and a few ``rec``),
  ``category`` (SUN scene category), ``sdt`` (1 hit, 2 false alarm, 3 miss, 4 correct
  rejection), ``subject_code``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import polars as pl

from gazeprivacy.data.fixations import Fixations
from gazeprivacy.data.loaders._paths import dataset_dir, dataset_file
from gazeprivacy.data.loaders._spec import DatasetDescription
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["FIGRIM_HEIGHT_PX", "FIGRIM_WIDTH_PX", "describe_figrim_fixations",
           "load_figrim_fixations"]

FOLDER = "figrim_fixations"
FILES = {"target": "figrim_target_fixations_long.csv.gz",
         "filler": "figrim_filler_fixations_long.csv.gz"}
FIGRIM_WIDTH_PX = FIGRIM_HEIGHT_PX = 1000
_PRESENTATIONS = ("enc", "rec", "rec2")
_SCHEMA = {"image_set": pl.String, "image_index": pl.Int64, "filename": pl.String,
           "category": pl.String, "user_slot": pl.Int64, "recording_session_label": pl.String,
           "subject_code": pl.String, "presentation": pl.String, "fixation": pl.Int64,
           "x_px": pl.Float64, "y_px": pl.Float64, "sdt": pl.Int64}


def load_figrim_fixations(data_dir: str | os.PathLike[str] | None = None, *,
                          image_set: str = "target",
                          presentation: str | Iterable[str] | None = None) -> Fixations:
    """Load FIGRIM fixations as :class:`Fixations` on 1000 x 1000 images.

    Parameters
    ----------
    data_dir : path, optional
        Folder containing ``figrim_fixations/``; default ``$GAZEPRIVACY_DATA``.
    image_set : {"target", "filler", "both"}
        Which images (default the 630 targets).
    presentation : str or iterable of {"enc", "rec", "rec2"}, optional
        Keep only these viewings (e.g. ``"enc"`` for first viewings); default all. With several
        presentations a participant has several trials on one stimulus: group by
        ``(participant, stimulus, presentation)``.

    Raises
    ------
    InvalidDataError
        The data directory, the folder or a CSV is missing or unreadable.
    InvalidParameterError
        An unknown image set or presentation.
    """
    if image_set not in ("target", "filler", "both"):
        raise InvalidParameterError(
            f"image_set must be 'target', 'filler' or 'both', got {image_set!r}")
    pres = None
    if presentation is not None:
        pres = [presentation] if isinstance(presentation, str) else list(presentation)
        bad = [p for p in pres if p not in _PRESENTATIONS]
        if bad or not pres:
            raise InvalidParameterError(
                f"presentation must be among {_PRESENTATIONS}, got {presentation!r}")
    folder = dataset_dir(FOLDER, data_dir)
    sets = ("target", "filler") if image_set == "both" else (image_set,)
    parts = []
    for s in sets:
        path = dataset_file(folder, FILES[s])
        try:
            parts.append(pl.read_csv(path, schema=_SCHEMA))
        except (OSError, pl.exceptions.PolarsError) as exc:
            raise InvalidDataError(f"cannot read {str(path)!r}: {exc}") from None
    raw = pl.concat(parts)
    if pres is not None:
        raw = raw.filter(pl.col("presentation").is_in(pres))
    tab = raw.select(pl.format("U{}", pl.col("user_slot")).alias("participant"),
                     pl.col("filename").str.replace(r"\.[A-Za-z]+$", "").alias("stimulus"),
                     "fixation", "x_px", "y_px",
                     pl.lit(None, dtype=pl.Float64).alias("duration_ms"),
                     "presentation", "image_set", "category", "sdt", "subject_code")
    info = {"source": [str(folder / FILES[s]) for s in sets],
            "citation": "Bylinskii, Isola, Bainbridge, Torralba, Oliva. Intrinsic and extrinsic "
                        "effects on image memorability. Vision Research, 2015.",
            "licence": "none stated; research use; do not redistribute",
            "image_size_rule": "1000 x 1000 px from the FIGRIM image set; fixations span "
                               "[0.3, 999.9] px (not in the .mat)",
            "image_set": image_set, "presentation": pres,
            "participant_rule": "U<user_slot>"}
    return Fixations(tab, width_px=FIGRIM_WIDTH_PX, height_px=FIGRIM_HEIGHT_PX,
                     name="figrim_fixations", info=info)


def describe_figrim_fixations(
        data_dir: str | os.PathLike[str] | None = None) -> DatasetDescription:
    """Count participant slots, trials (participant x image x presentation) and fixations."""
    fx = load_figrim_fixations(data_dir, image_set="both")
    trials = fx.table.select(pl.struct("participant", "stimulus", "presentation").n_unique())
    return DatasetDescription(participants=fx.n_participants, recordings=trials.item(),
                              samples=fx.table.height,
                              note=f"{len(fx.stimuli)} images (targets and fillers)")
