# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""GazeGraph DesktopActivity: 8 participants x 6 desktop activities, 30 Hz scene-camera gaze.

Lan, Heit, Scargill, Gorlatova. GazeGraph: graph-based few-shot cognitive context sensing from
human visual behavior. ACM SenSys 2020. Folder ``gazegraph_desktop_activity/`` of the data
directory; see its PROVENANCE.md (no licence stated; research use only; not redistributable).

Units and labels
----------------
* No timestamps in the source: rows are consecutive 30 Hz samples, so ``t = i / 30`` s.
* Gaze is in Pupil Core **world-camera** normalised coordinates (origin bottom-left, y up,
  nominally 0..1, observed -0.2..1.5). It is mapped linearly to degrees of the scene camera's
  field of view, centred on the image centre::

      x = (nx - 0.5) * 99,   y = (ny - 0.5) * 53

  Assumption: the Pupil Core world camera at its default 1280 x 720 resolution, whose field of
  view Pupil Labs states as about 99 x 53 deg (wide-angle lens). The resolution used in the
  study is not documented and lens distortion is ignored, so these degrees are approximate
  (:data:`GAZEGRAPH_FOV_DEG`). Coordinates are head-fixed (free head movement), not screen
  coordinates. :data:`GAZEGRAPH_GEOMETRY` is the camera image, +-49.5 x +-26.5 deg, kind
  ``"scene-camera"``; samples outside it (the tracker reports points beyond the image) are kept.
* Recording id ``"P<n>_<activity>"``; participant ``"P<n>"``; labels ``activity`` (browse,
  play, read, search, watch, write, lower case) and ``task`` (the same value).
* The source has no missing values; 9000 rows per file (P1_WATCH 8998).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import polars as pl

from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.loaders._paths import dataset_dir
from gazeprivacy.data.loaders._spec import DatasetDescription
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import InvalidDataError

__all__ = ["GAZEGRAPH_ACTIVITIES", "GAZEGRAPH_FOV_DEG", "GAZEGRAPH_GEOMETRY",
           "GAZEGRAPH_SAMPLING_RATE_HZ", "describe_gazegraph", "load_gazegraph"]

FOLDER = "gazegraph_desktop_activity"
GAZEGRAPH_ACTIVITIES = ("browse", "play", "read", "search", "watch", "write")
GAZEGRAPH_SAMPLING_RATE_HZ = 30.0
GAZEGRAPH_FOV_DEG = (99.0, 53.0)
GAZEGRAPH_GEOMETRY = Geometry(x_min_deg=-GAZEGRAPH_FOV_DEG[0] / 2,
                              x_max_deg=GAZEGRAPH_FOV_DEG[0] / 2,
                              y_min_deg=-GAZEGRAPH_FOV_DEG[1] / 2,
                              y_max_deg=GAZEGRAPH_FOV_DEG[1] / 2, kind="scene-camera")
_FILE = re.compile(r"P(\d+)_([A-Z]+)\.csv(\.gz)?$")


def _files(folder: Path) -> list[tuple[int, str, Path]]:
    out = []
    for sub in sorted(folder.glob("P*")):
        for p in sub.iterdir() if sub.is_dir() else ():
            m = _FILE.match(p.name)
            if m and m.group(2).lower() in GAZEGRAPH_ACTIVITIES:
                out.append((int(m.group(1)), m.group(2).lower(), p))
    if not out:
        raise InvalidDataError(f"no P<n>/P<n>_<ACTIVITY>.csv.gz files in {str(folder)!r}")
    return sorted(out, key=lambda f: (f[0], GAZEGRAPH_ACTIVITIES.index(f[1])))


def load_gazegraph(data_dir: str | os.PathLike[str] | None = None) -> Dataset:
    """Load GazeGraph DesktopActivity: 48 recordings, 30 Hz, approximate scene-camera degrees.

    Parameters
    ----------
    data_dir : path, optional
        Folder containing ``gazegraph_desktop_activity/``; default ``$GAZEPRIVACY_DATA``.

    Returns
    -------
    Dataset
        Recordings by participant, then activity (module docstring: units and labels).

    Raises
    ------
    InvalidDataError
        The data directory, the dataset folder or its files are missing or unreadable.
    """
    folder = dataset_dir(FOLDER, data_dir)
    recs = []
    for p, act, path in _files(folder):
        try:
            d = pl.read_csv(path, has_header=False, new_columns=["nx", "ny"],
                            schema_overrides={"nx": pl.Float64, "ny": pl.Float64})
        except (OSError, pl.exceptions.PolarsError) as exc:
            raise InvalidDataError(f"cannot read {str(path)!r}: {exc}") from None
        n = d.height
        recs.append(Recording(
            recording=f"P{p}_{act}", participant=f"P{p}",
            t=np.arange(n) / GAZEGRAPH_SAMPLING_RATE_HZ,
            x=(d["nx"].to_numpy() - 0.5) * GAZEGRAPH_FOV_DEG[0],
            y=(d["ny"].to_numpy() - 0.5) * GAZEGRAPH_FOV_DEG[1],
            sampling_rate_hz=GAZEGRAPH_SAMPLING_RATE_HZ,
            labels={"activity": act, "task": act}, geometry=GAZEGRAPH_GEOMETRY))
    info = {"source": str(folder),
            "citation": "Lan, Heit, Scargill, Gorlatova. GazeGraph. ACM SenSys 2020.",
            "licence": "none stated; research use only; do not redistribute",
            "units": "x = (nx - 0.5) * 99, y = (ny - 0.5) * 53 deg (Pupil Core 720p world "
                     "camera FOV, assumed; linear); t = i / 30 s"}
    return Dataset(tuple(recs), name="gazegraph_desktop_activity", info=info)


def describe_gazegraph(data_dir: str | os.PathLike[str] | None = None) -> DatasetDescription:
    """Count participants, recordings and samples (parses the 48 small files, < 1 s)."""
    files = _files(dataset_dir(FOLDER, data_dir))
    n = sum(pl.read_csv(path, has_header=False).height for _, _, path in files)
    return DatasetDescription(participants=len({p for p, _, _ in files}), recordings=len(files),
                              samples=n, sampling_rate_hz=GAZEGRAPH_SAMPLING_RATE_HZ,
                              note="scene-camera coordinates; approximate degrees")
