# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""SB-SAT trial-level features: 95 participants reading 4 SAT passages (aggregated, type B).

Ahn, Kelton, Balasubramanian, Zelinsky. Towards predicting reading comprehension from gaze
behavior. ETRA 2020. Folder ``sbsat_features/`` of the data directory; see its PROVENANCE.md
(no licence stated; research use).

The table is ``18sat_trialfinal.csv`` (one row per page or question screen, all source columns
kept with their names) with, in front, ``participant`` (= ``RECORDING_SESSION_LABEL``, e.g.
``msd001``; the source's ``Session_Name_`` differs for three participants, e.g. ``msd0011``,
and is kept as is), and joined on (participant, passage) the labels of ``18sat_labels.csv``:
per passage ``acc, confidence, difficulty, familiarity, recognition, interest, pressured,
sleepiness, sleephours, acc_level``, per participant ``subj_acc, subj_acc_level, language,
sex, native``. Every trial row finds its labels. Features (EyeLink DataViewer trial report):
``AVERAGE_BLINK_DURATION`` (ms; null when the trial has no blink: 987 rows),
``AVERAGE_FIXATION_DURATION``, ``SD_FIXATION_DURATION`` (ms), ``AVERAGE_SACCADE_AMPLITUDE``,
``SD_SACCADE_AMPLITUDE`` (deg; null in 15 rows), ``BLINK_COUNT``, ``FIXATION_COUNT``,
``SACCADE_COUNT``, ``PUPIL_SIZE_MEAN`` (EyeLink units), ``VISITED_INTEREST_AREA_COUNT`` (null on
question screens), ``RT`` (ms on screen). Nulls are kept as nulls.
"""

from __future__ import annotations

import os

import polars as pl

from gazeprivacy.data.loaders._paths import dataset_dir, dataset_file
from gazeprivacy.data.loaders._spec import DatasetDescription
from gazeprivacy.exceptions import InvalidDataError

__all__ = ["SBSAT_FEATURES", "describe_sbsat_features", "load_sbsat_features"]

FOLDER = "sbsat_features"
SBSAT_FEATURES = ("AVERAGE_BLINK_DURATION", "AVERAGE_FIXATION_DURATION", "SD_FIXATION_DURATION",
                  "AVERAGE_SACCADE_AMPLITUDE", "SD_SACCADE_AMPLITUDE", "BLINK_COUNT",
                  "FIXATION_COUNT", "PUPIL_SIZE_MEAN", "SACCADE_COUNT",
                  "VISITED_INTEREST_AREA_COUNT", "RT")


def _read(path: os.PathLike[str]) -> pl.DataFrame:
    try:
        return pl.read_csv(path, infer_schema_length=None)
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise InvalidDataError(f"cannot read {str(path)!r}: {exc}") from None


def load_sbsat_features(data_dir: str | os.PathLike[str] | None = None, *,
                        labels: bool = True) -> pl.DataFrame:
    """Load the SB-SAT trial feature table (7298 rows), with participant and passage labels.

    Parameters
    ----------
    data_dir : path, optional
        Folder containing ``sbsat_features/``; default ``$GAZEPRIVACY_DATA``.
    labels : bool
        Join the passage and participant labels (default); ``False`` gives the trial table
        with only the ``participant`` column added.

    Raises
    ------
    InvalidDataError
        The data directory, the folder or a CSV is missing, or a trial has no labels.
    """
    folder = dataset_dir(FOLDER, data_dir)
    trials = _read(dataset_file(folder, "18sat_trialfinal.csv"))
    tab = trials.select(pl.col("RECORDING_SESSION_LABEL").alias("participant"), pl.all())
    if not labels:
        return tab
    lab = _read(dataset_file(folder, "18sat_labels.csv")).rename(
        {"subj": "participant", "book": "book_name"})
    out = tab.join(lab, on=["participant", "book_name"], how="left", validate="m:1")
    missing = out["acc"].is_null().sum()
    if missing:
        raise InvalidDataError(f"{missing} SB-SAT trials have no row in 18sat_labels.csv")
    return out


def describe_sbsat_features(
        data_dir: str | os.PathLike[str] | None = None) -> DatasetDescription:
    """Count participants and trial rows."""
    tab = load_sbsat_features(data_dir, labels=False)
    return DatasetDescription(participants=tab["participant"].n_unique(), recordings=tab.height,
                              samples=tab.height, note="trial-level feature table")
