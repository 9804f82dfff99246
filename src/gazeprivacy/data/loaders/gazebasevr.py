# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""GazeBaseVR vergence-task biomarkers: per-recording feature tables (407 participants).

Biomarkers computed by the repository ``KMDR82/gazebasevr-vergence-reliability`` from the VRG task
of GazeBaseVR (Lohr, Aziz, Friedman, Komogortsev 2023, CC BY 4.0; 250 Hz binocular VR eye
tracking). Folder ``gazebasevr_vergence_features/`` of the data directory; see its PROVENANCE.md.
No raw gaze: aggregated (type B) features with longitudinal repeats per participant.

Tables (``table=``):

* ``"biomarker"`` (1004 rows, 407 participants): ``valid_frac``, ``corr``, ``ddem``,
  ``n_conv``, ``n_div``, ``conv_latency_ms``, ``conv_gain``, ``conv_peakvel`` (deg/s),
  ``conv_settle_ms`` and the ``div_*`` counterparts (nulls kept: 284 cells).
* ``"model"`` (740 rows, 354 participants): first-order exponential fits ``conv_lat_m,
  conv_tau_m, conv_A_m, conv_pv_m, conv_r2`` and ``div_*``.
* ``"model2"`` (740 rows): first- vs second-order model parameters, R^2 and AIC.

Every table gets, in front, ``participant`` (``"S<subject>"``, e.g. ``S213``) and ``recording``
(the source file name, e.g. ``S_1213_S1_1_VRG.csv``); the source columns ``subject, round,
session, file`` are kept. Round and session are the longitudinal labels (rounds 1-3 present).
"""

from __future__ import annotations

import os

import polars as pl

from gazeprivacy.data.loaders._paths import dataset_dir, dataset_file
from gazeprivacy.data.loaders._spec import DatasetDescription
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["describe_gazebasevr_vergence", "load_gazebasevr_vergence"]

FOLDER = "gazebasevr_vergence_features"
TABLES = {"biomarker": "biomarker_table.csv", "model": "model_biomarker_table.csv",
          "model2": "model2_table.csv"}


def load_gazebasevr_vergence(data_dir: str | os.PathLike[str] | None = None, *,
                             table: str = "biomarker") -> pl.DataFrame:
    """Load one GazeBaseVR vergence feature table with ``participant`` and ``recording`` ids.

    Parameters
    ----------
    data_dir : path, optional
        Folder containing ``gazebasevr_vergence_features/``; default ``$GAZEPRIVACY_DATA``.
    table : {"biomarker", "model", "model2"}
        Which table (module docstring); default the descriptive biomarkers.

    Raises
    ------
    InvalidDataError
        The data directory, the folder or the CSV is missing or unreadable.
    InvalidParameterError
        An unknown table name.
    """
    if table not in TABLES:
        raise InvalidParameterError(
            f"table must be one of {sorted(TABLES)}, got {table!r}")
    path = dataset_file(dataset_dir(FOLDER, data_dir), TABLES[table])
    try:
        raw = pl.read_csv(path, infer_schema_length=None)
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise InvalidDataError(f"cannot read {str(path)!r}: {exc}") from None
    return raw.select(pl.format("S{}", pl.col("subject")).alias("participant"),
                      pl.col("file").alias("recording"), pl.all())


def describe_gazebasevr_vergence(
        data_dir: str | os.PathLike[str] | None = None) -> DatasetDescription:
    """Count participants and recordings of the biomarker table."""
    tab = load_gazebasevr_vergence(data_dir)
    return DatasetDescription(participants=tab["participant"].n_unique(),
                              recordings=tab["recording"].n_unique(), samples=tab.height,
                              note="per-recording feature table (no raw gaze)")
