# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""MPIIDPEye: pupil positions of 20 participants reading 3 document types (60 recordings, ~30 Hz).

Steil, Hagestedt, Huang, Bulling. Privacy-aware eye tracking using differential privacy.
ETRA 2019. Folder ``mpiidpeye/`` of the data directory; see its PROVENANCE.md (non-commercial
scientific use only; not redistributable).

Units and labels
----------------
The eye tracker was **not calibrated**: the signal is the pupil centre in the eye-camera image,
in normalised image coordinates (0..1). The loader maps it to **pseudo-degrees**::

    x = (pupil_x - 0.5) * deg_per_unit,   y = (pupil_y - 0.5) * deg_per_unit

with ``deg_per_unit = 100`` by default (:data:`MPIIDPEYE_DEG_PER_UNIT`): the eye-camera image
width is treated as a nominal 100-degree field. With this scale the central 95 % of each
recording's high-confidence samples spans a median of ~22 x 26 pseudo-degrees (range 15-39),
the size of a page read at close range, and the median sample-to-sample step (~0.16 pseudo-deg
per 33 ms, ~5 deg/s) lies well below, the 90th percentile (~1.7 per 33 ms, ~50 deg/s) above
the 30 deg/s I-VT threshold. It is *not* a calibration: angles are only comparable within this
dataset. :data:`MPIIDPEYE_GEOMETRY` (kind ``"eye-camera"``) is the image, [-50, 50] pseudo-deg
on both axes; the axes keep the camera's orientation.

* ``t``: the Pupil Labs timestamp (seconds, arbitrary origin), shifted to start at 0 (the
  original first timestamp is in ``info["t0_s"]``).
* ``sampling_rate_hz``: the nominal 30.4 Hz of :data:`MPIIDPEYE_SAMPLING_RATE_HZ` for every
  recording (files measure 30.4-30.5 Hz; each one's ``1 / median(diff(t))`` is in
  ``info["per_recording"][id]["measured_rate_hz"]``). Gaps (dropped camera frames, up to ~1 s)
  are kept as gaps in ``t``.
* ``pupil``: pupil diameter in eye-camera pixels; ``channels["confidence"]``: the detector's
  confidence (0..1), kept for every row.
* Recording id ``"P<p>_<document>"``; participant ``"P<p>"``; labels ``document``
  (comic / newspaper / textbook, from R1 / R2 / R3) and ``gender`` (from Ground_Truth.csv),
  ``task="reading"``.

Policies (counted per recording in ``Dataset.info``):

* **Low confidence** (``confidence < confidence_threshold``, default 0.6 as in the provenance):
  ``low_confidence="nan"`` (default) keeps the rows with ``x = y = pupil = NaN`` (the missing-
  sample convention); ``"keep"`` keeps the raw values. Rows are never dropped.
* **Timestamps**: rows whose timestamp exactly repeats the previous one are dropped (first kept)
  and rows that go back in time are dropped; both counted in ``info``. The 60 files of the
  data set have none (checked by the tests), so the default load keeps every row.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy._validation import check_positive, check_range
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.loaders._paths import dataset_dir, dataset_file
from gazeprivacy.data.loaders._spec import DatasetDescription
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError

__all__ = [
    "MPIIDPEYE_CITATION",
    "MPIIDPEYE_DEG_PER_UNIT",
    "MPIIDPEYE_DOCUMENTS",
    "MPIIDPEYE_GEOMETRY",
    "MPIIDPEYE_SAMPLING_RATE_HZ",
    "describe_mpiidpeye",
    "load_mpiidpeye",
]

FOLDER = "mpiidpeye"
MPIIDPEYE_DOCUMENTS = {1: "comic", 2: "newspaper", 3: "textbook"}
MPIIDPEYE_DEG_PER_UNIT = 100.0
# Median of the 60 files' median sample rates (1 / median diff of the timestamps); the files
# range 30.4-30.5 Hz. One nominal value so that the dataset has one rate.
MPIIDPEYE_SAMPLING_RATE_HZ = 30.4
MPIIDPEYE_CITATION = ("J. Steil, I. Hagestedt, M. X. Huang, A. Bulling. Privacy-Aware Eye "
                      "Tracking Using Differential Privacy. Proc. ETRA 2019.")
_FILE = re.compile(r"Data_P(\d+)_R([123])\.csv(\.gz)?$")
_COLUMNS = ["pupil_x", "pupil_y", "timestamp", "confidence", "pupil_diameter"]


def _geometry(deg_per_unit: float) -> Geometry:
    """The eye-camera image in pseudo-degrees, centred on the image centre."""
    half = deg_per_unit / 2
    return Geometry(x_min_deg=-half, x_max_deg=half, y_min_deg=-half, y_max_deg=half,
                    kind="eye-camera")


MPIIDPEYE_GEOMETRY = _geometry(MPIIDPEYE_DEG_PER_UNIT)


def _files(folder: Path) -> list[tuple[int, int, Path]]:
    sub = folder / "Eye_Tracking_Data"
    if not sub.is_dir():
        raise InvalidDataError(f"expected folder {str(sub)!r} is missing; the dataset folder "
                               f"{str(folder)!r} is incomplete")
    out = []
    for p in sub.iterdir():
        m = _FILE.match(p.name)
        if m:
            out.append((int(m.group(1)), int(m.group(2)), p))
    if not out:
        raise InvalidDataError(f"no Data_P<p>_R<r>.csv.gz files in {str(sub)!r}")
    return sorted(out)


def _genders(folder: Path) -> dict[int, str]:
    gt = pl.read_csv(dataset_file(folder, "Ground_Truth.csv"))
    return dict(zip(gt["Participant"].to_list(), gt["Gender"].to_list(), strict=True))


def _participant_numbers(participants: Iterable[int | str] | None) -> set[int] | None:
    if participants is None:
        return None
    if isinstance(participants, int | str):
        participants = [participants]
    out = set()
    for p in participants:
        s = str(p).upper().removeprefix("P")
        if not s.isdigit():
            raise InvalidParameterError(
                f"participants must hold numbers 1..20 or ids like 'P3', got {p!r}")
        out.add(int(s))
    return out


def _read(path: Path) -> pl.DataFrame:
    try:
        return pl.read_csv(path, separator=";", has_header=False, new_columns=_COLUMNS,
                           schema_overrides=dict.fromkeys(_COLUMNS, pl.Float64))
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise InvalidDataError(f"cannot read {str(path)!r}: {exc}") from None


def _read_recording(p: int, r: int, path: Path, *, gender: str, geometry: Geometry,
                    confidence_threshold: float, low_confidence: str,
                    deg_per_unit: float) -> tuple[Recording, dict[str, Any]]:
    """Participant ``p``'s recording of document ``r`` and its counts for
    ``info["per_recording"]``."""
    d = _read(path)
    ts = d["timestamp"].to_numpy()
    # Timestamp policy: keep a row only if its time is later than every earlier kept row.
    # np.maximum.accumulate finds the running maximum; equal -> duplicate, less -> backward.
    prev_max = np.concatenate([[-np.inf], np.maximum.accumulate(ts)[:-1]])
    dup = ts == prev_max
    back = ts < prev_max
    keep = ~(dup | back)
    d = d.filter(pl.Series(keep))
    conf = d["confidence"].to_numpy()
    x = (d["pupil_x"].to_numpy() - 0.5) * deg_per_unit
    y = (d["pupil_y"].to_numpy() - 0.5) * deg_per_unit
    pupil = d["pupil_diameter"].to_numpy().copy()
    low = conf < confidence_threshold
    if low_confidence == "nan":
        x[low] = np.nan
        y[low] = np.nan
        pupil[low] = np.nan
    t_raw = d["timestamp"].to_numpy()
    t = t_raw - t_raw[0]
    measured = round(1.0 / float(np.median(np.diff(t))), 3)
    rec = Recording(
        recording=f"P{p}_{MPIIDPEYE_DOCUMENTS[r]}", participant=f"P{p}", t=t, x=x, y=y,
        sampling_rate_hz=MPIIDPEYE_SAMPLING_RATE_HZ,
        labels={"document": MPIIDPEYE_DOCUMENTS[r], "gender": gender, "task": "reading"},
        pupil=pupil, geometry=geometry, channels={"confidence": conf})
    counts = {"n_rows": int(d.height), "n_low_confidence": int(low.sum()),
              "n_duplicate_timestamps_dropped": int(dup.sum()),
              "n_backward_timestamps_dropped": int(back.sum()),
              "measured_rate_hz": measured, "t0_s": float(t_raw[0]), "source": path.name}
    return rec, counts


def load_mpiidpeye(data_dir: str | os.PathLike[str] | None = None, *,
                   participants: Iterable[int | str] | None = None,
                   confidence_threshold: float = 0.6, low_confidence: str = "nan",
                   deg_per_unit: float = MPIIDPEYE_DEG_PER_UNIT) -> Dataset:
    """Load MPIIDPEye: 20 participants x 3 documents, ~30 Hz pupil positions in pseudo-degrees.

    Parameters
    ----------
    data_dir : path, optional
        Folder containing ``mpiidpeye/``; default ``$GAZEPRIVACY_DATA``.
    participants : iterable of int or str, optional
        Participant numbers 1..20 (or ``"P3"``); default all.
    confidence_threshold : float in [0, 1]
        Samples with a lower pupil-detection confidence are low-confidence (default 0.6).
    low_confidence : {"nan", "keep"}
        ``"nan"``: set x, y and pupil of those rows to NaN (rows kept); ``"keep"``: leave them.
    deg_per_unit : float > 0
        Pseudo-degrees per normalised eye-image unit (default 100; see the module docstring).

    Returns
    -------
    Dataset
        Recordings ordered by participant then document. ``info["per_recording"]`` has, per
        recording, ``n_low_confidence``, ``n_duplicate_timestamps_dropped`` and
        ``n_backward_timestamps_dropped``; ``info`` also has their totals.

    Raises
    ------
    InvalidDataError
        The data directory, the ``mpiidpeye`` folder or its files are missing or unreadable.
    InvalidParameterError
        A bad option or an unknown participant.
    """
    check_range(confidence_threshold=confidence_threshold, lo=0.0, hi=1.0)
    check_positive(deg_per_unit=deg_per_unit)
    if low_confidence not in ("nan", "keep"):
        raise InvalidParameterError(
            f"low_confidence must be 'nan' or 'keep', got {low_confidence!r}")
    folder = dataset_dir(FOLDER, data_dir)
    files = _files(folder)
    genders = _genders(folder)
    wanted = _participant_numbers(participants)
    if wanted is not None:
        unknown = sorted(wanted - {p for p, _, _ in files})
        if unknown:
            raise InvalidParameterError(
                f"participants: unknown MPIIDPEye participant(s) {unknown}; valid: 1..20")
        files = [f for f in files if f[0] in wanted]
    geometry = _geometry(deg_per_unit)
    recs, per_rec = [], {}
    for p, r, path in files:
        rec, per_rec[f"P{p}_{MPIIDPEYE_DOCUMENTS[r]}"] = _read_recording(
            p, r, path, gender=genders[p], geometry=geometry,
            confidence_threshold=confidence_threshold, low_confidence=low_confidence,
            deg_per_unit=deg_per_unit)
        recs.append(rec)
    totals = {k: sum(v[k] for v in per_rec.values())
              for k in ("n_low_confidence", "n_duplicate_timestamps_dropped",
                        "n_backward_timestamps_dropped")}
    info = {"source": str(folder), "citation": MPIIDPEYE_CITATION,
            "licence": "non-commercial scientific use; cite Steil et al. 2019; do not "
                       "redistribute",
            "units": f"x, y = (pupil - 0.5) * {deg_per_unit:g} pseudo-degrees (uncalibrated "
                     "eye-camera image); t in s from the first sample",
            "confidence_threshold": confidence_threshold, "low_confidence": low_confidence,
            "deg_per_unit": deg_per_unit, **totals, "per_recording": per_rec}
    return Dataset(tuple(recs), name="mpiidpeye", info=info)


def describe_mpiidpeye(data_dir: str | os.PathLike[str] | None = None) -> DatasetDescription:
    """Count participants, recordings, samples and the median sampling rate (~1 s)."""
    files = _files(dataset_dir(FOLDER, data_dir))
    n, dts = 0, []
    for _, _, path in files:
        ts = _read(path)["timestamp"].to_numpy()
        n += ts.shape[0]
        dts.append(float(np.median(np.diff(ts))))
    return DatasetDescription(participants=len({p for p, _, _ in files}), recordings=len(files),
                              samples=n, sampling_rate_hz=round(1.0 / float(np.median(dts)), 1),
                              note="uncalibrated pupil positions (pseudo-degrees)")
