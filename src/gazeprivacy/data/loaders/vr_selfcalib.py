# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""VR free-walking gaze (HTC Vive Pro Eye), office vs supermarket: 17 participants, 30 recordings.

Raw data of "Fixation-based Self-calibration for Eye Tracking in VR Headsets" (GitHub
``ryuryu0226/Fixation-based-Self-calibration-for-Eye-Tracking-in-VR-Headsets``, 2024; authors and
venue not named in the repository). Folder ``vr_selfcalib_office_supermarket/`` of the data
directory; see its PROVENANCE.md (research use only; not redistributable). Of the study's 22
participants only the files under 4 MiB survived the snapshot: 16 office and 14 supermarket
logs from 17 distinct users (users 10-22 have both).

Units and labels
----------------
* Gaze: the combined gaze direction ``(ray_x, ray_y, ray_z)`` in HMD coordinates, converted by
  :func:`~gazeprivacy.data.direction_to_angles_deg`: ``x = atan2(ray_x, ray_z)``,
  ``y = atan2(ray_y, hypot(ray_x, ray_z))`` in degrees, head-fixed. The ray is in Unity's
  camera-local frame (x right, y up, z forward), so positive ``x`` is rightwards and positive
  ``y`` upwards: checked on the data, where ``cameraToWorldMatrix`` applied to
  ``(ray_x, ray_y, -ray_z)`` points from the head position to the logged gaze hit point
  ``(xc, yc, zc)`` within 0.1 deg (median). (The hit points are therefore *world*
  coordinates, not HMD coordinates as the logger's comments suggest.) Observed gaze stays
  within about +-32 deg.
* :data:`VR_GEOMETRY` (kind ``"vr"``): +-55 deg on both axes. Assumption: HTC states a 110 deg
  field of view for the Vive Pro Eye (and a 110 deg trackable field for its eye tracker); the
  square +-55 deg region is a nominal bound, not a measured per-eye field.
* ``t``: the logger's ``time`` (s) shifted to start at 0 (original start in ``info``). Nominal
  50 Hz (dt = 0.02 s); about 6 % of intervals are 0.04 s (the ``frame`` counter still steps by
  one, so no sample is missing: the logger's clock is uneven) and a few are 0.06-0.08 s. They
  are kept as recorded and counted per recording (``n_long_intervals``).
* Channels: head position ``head_x_m, head_y_m, head_z_m`` (translation of Unity's
  ``cameraToWorldMatrix``, world units ~ m), head orientation ``head_yaw_deg, head_pitch_deg``
  of the camera's forward axis ``f = -(ctw_02, ctw_12, ctw_22)`` (Unity camera space looks down
  -z): yaw ``atan2(f_x, f_z)``, pitch ``atan2(f_y, hypot(f_x, f_z))``; eye openness
  ``openness_left, openness_right`` (0..1).
* Recording id ``"user<N>_<environment>"``; participant ``"user<N>"``; labels
  ``environment`` (office / supermarket) and ``task="free-walking"``.

Policies (counted per recording in ``Dataset.info``):

* **Blinks**: rows with openness < ``openness_threshold`` (0.5, the authors' rule) on **both**
  eyes get ``x = y = NaN`` (``blinks="nan"``, default) or keep their values (``"keep"``);
  never dropped. Zero or non-finite direction vectors also become NaN (counted).
* **Timestamps**: rows repeating or going back from an earlier time are dropped and counted
  (none in these files).
"""

from __future__ import annotations

import gzip
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy._validation import check_range
from gazeprivacy.data.geometry import Geometry, direction_to_angles_deg
from gazeprivacy.data.loaders._paths import dataset_dir
from gazeprivacy.data.loaders._spec import DatasetDescription
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["VR_ENVIRONMENTS", "VR_GEOMETRY", "VR_SAMPLING_RATE_HZ", "describe_vr_selfcalib",
           "load_vr_selfcalib"]

FOLDER = "vr_selfcalib_office_supermarket"
VR_ENVIRONMENTS = ("office", "supermarket")
VR_SAMPLING_RATE_HZ = 50.0
VR_GEOMETRY = Geometry(x_min_deg=-55.0, x_max_deg=55.0, y_min_deg=-55.0, y_max_deg=55.0,
                       kind="vr")
_FILE = re.compile(r"gaze_user(\d+)_(office|supermarket)\.csv(\.gz)?$")


def _files(folder: Path, environments: tuple[str, ...]) -> list[tuple[int, str, Path]]:
    out = []
    for env in environments:
        sub = folder / f"{env}_data"
        if not sub.is_dir():
            raise InvalidDataError(f"expected folder {str(sub)!r} is missing; the dataset "
                                   f"folder {str(folder)!r} is incomplete")
        for p in sub.iterdir():
            m = _FILE.match(p.name)
            if m and m.group(2) == env:
                out.append((int(m.group(1)), env, p))
    if not out:
        raise InvalidDataError(f"no gaze_user<N>_<environment>.csv.gz files in {str(folder)!r}")
    return sorted(out, key=lambda f: (VR_ENVIRONMENTS.index(f[1]), f[0]))


def _read(path: Path) -> pl.DataFrame:
    # All 52 columns are numeric, but some columns (openness, hit points) start with integer-
    # looking values, so polars' type inference fails; read the header and declare Float64.
    try:
        with gzip.open(path, "rt") if path.suffix == ".gz" else open(path) as fh:
            header = fh.readline().strip().split(",")
        return pl.read_csv(path, schema=dict.fromkeys(header, pl.Float64))
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise InvalidDataError(f"cannot read {str(path)!r}: {exc}") from None


def _head_angles(d: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    fwd = -d.select("ctw_02", "ctw_12", "ctw_22").to_numpy()
    return direction_to_angles_deg(fwd)


def _select_users(files: list[tuple[int, str, Path]], participants: Iterable[int | str] | int | str,
                  envs: tuple[str, ...]) -> list[tuple[int, str, Path]]:
    """The files of the requested users (numbers or ids like ``"user10"``)."""
    parts = [participants] if isinstance(participants, int | str) else list(participants)
    wanted = set()
    for p in parts:
        s = str(p).lower().removeprefix("user")
        if not s.isdigit():
            raise InvalidParameterError(
                f"participants must hold user numbers or ids like 'user10', got {p!r}")
        wanted.add(int(s))
    known = {u for u, _, _ in files}
    unknown = sorted(wanted - known)
    if unknown:
        raise InvalidParameterError(
            f"participants: no {'/'.join(envs)} recording for user(s) {unknown}; "
            f"valid: {sorted(known)}")
    return [f for f in files if f[0] in wanted]


def _read_recording(user: int, env: str, path: Path, *, openness_threshold: float,
                    blinks: str) -> tuple[Recording, dict[str, Any]]:
    """One log as a recording (repeated and backward timestamps dropped, blinks marked) and
    its counts for ``info["per_recording"]``."""
    d = _read(path)
    ts = d["time"].to_numpy()
    prev_max = np.concatenate([[-np.inf], np.maximum.accumulate(ts)[:-1]])
    dup, back = ts == prev_max, ts < prev_max
    d = d.filter(pl.Series(~(dup | back)))
    x, y = direction_to_angles_deg(d.select("ray_x", "ray_y", "ray_z").to_numpy())
    invalid = np.isnan(x)
    blink = ((d["opennessl"] < openness_threshold)
             & (d["opennessr"] < openness_threshold)).fill_null(False).to_numpy()
    if blinks == "nan":
        x[blink] = np.nan
        y[blink] = np.nan
    t_raw = d["time"].to_numpy()
    t = t_raw - t_raw[0]
    dt = np.diff(t)
    yaw, pitch = _head_angles(d)
    rec = Recording(
        recording=f"user{user}_{env}", participant=f"user{user}", t=t, x=x, y=y,
        sampling_rate_hz=VR_SAMPLING_RATE_HZ,
        labels={"environment": env, "task": "free-walking"}, geometry=VR_GEOMETRY,
        channels={"head_x_m": d["ctw_03"].to_numpy(), "head_y_m": d["ctw_13"].to_numpy(),
                  "head_z_m": d["ctw_23"].to_numpy(), "head_yaw_deg": yaw,
                  "head_pitch_deg": pitch, "openness_left": d["opennessl"].to_numpy(),
                  "openness_right": d["opennessr"].to_numpy()})
    counts = {"n_rows": d.height, "n_blink": int(blink.sum()),
              "n_invalid_direction": int(invalid.sum()),
              # 1.5 x the nominal interval separates 0.02 s steps from 0.04 s ones.
              "n_long_intervals": int((dt > 1.5 / VR_SAMPLING_RATE_HZ).sum()),
              "n_duplicate_timestamps_dropped": int(dup.sum()),
              "n_backward_timestamps_dropped": int(back.sum()),
              "t0_s": float(t_raw[0]), "source": path.name}
    return rec, counts


def load_vr_selfcalib(data_dir: str | os.PathLike[str] | None = None, *,
                      participants: Iterable[int | str] | None = None,
                      environments: Iterable[str] | None = None,
                      openness_threshold: float = 0.5, blinks: str = "nan") -> Dataset:
    """Load the VR office / supermarket free-walking gaze: 50 Hz, degrees, head pose channels.

    Parameters
    ----------
    data_dir : path, optional
        Folder containing ``vr_selfcalib_office_supermarket/``; default ``$GAZEPRIVACY_DATA``.
    participants : iterable of int or str, optional
        User numbers (e.g. ``[10, 11]`` or ``["user10"]``); default all 17.
    environments : iterable of {"office", "supermarket"}, optional
        Default both.
    openness_threshold : float in [0, 1]
        A row is a blink when both eyes' openness is below it (default 0.5).
    blinks : {"nan", "keep"}
        ``"nan"`` sets x, y of blink rows to NaN (rows kept); ``"keep"`` leaves them.

    Returns
    -------
    Dataset
        Office recordings, then supermarket, each by user number. ``info["per_recording"]``
        has ``n_blink``, ``n_invalid_direction``, ``n_long_intervals`` and the timestamp
        counts; ``info`` has the totals.

    Raises
    ------
    InvalidDataError
        The data directory, the dataset folder or its files are missing or unreadable.
    InvalidParameterError
        A bad option, an unknown participant or environment.
    """
    check_range(openness_threshold=openness_threshold, lo=0.0, hi=1.0)
    if blinks not in ("nan", "keep"):
        raise InvalidParameterError(f"blinks must be 'nan' or 'keep', got {blinks!r}")
    envs = VR_ENVIRONMENTS if environments is None else (
        (environments,) if isinstance(environments, str) else tuple(environments))
    bad_env = [e for e in envs if e not in VR_ENVIRONMENTS]
    if bad_env or not envs:
        raise InvalidParameterError(
            f"environments must be a subset of {VR_ENVIRONMENTS}, got {environments!r}")
    folder = dataset_dir(FOLDER, data_dir)
    files = _files(folder, envs)
    if participants is not None:
        files = _select_users(files, participants, envs)
    recs, per_rec = [], {}
    for user, env, path in files:
        rec, per_rec[f"user{user}_{env}"] = _read_recording(
            user, env, path, openness_threshold=openness_threshold, blinks=blinks)
        recs.append(rec)
    totals = {k: sum(v[k] for v in per_rec.values())
              for k in ("n_blink", "n_invalid_direction", "n_long_intervals",
                        "n_duplicate_timestamps_dropped", "n_backward_timestamps_dropped")}
    info = {"source": str(folder),
            "citation": "Fixation-based Self-calibration for Eye Tracking in VR Headsets (raw "
                        "data, GitHub ryuryu0226, 2024)",
            "licence": "none stated; research use only; do not redistribute",
            "units": "x, y = yaw, pitch of the HMD-frame gaze direction (deg); t in s from "
                     "the first sample",
            "openness_threshold": openness_threshold, "blinks": blinks, **totals,
            "per_recording": per_rec}
    return Dataset(tuple(recs), name="vr_selfcalib_office_supermarket", info=info)


def describe_vr_selfcalib(data_dir: str | os.PathLike[str] | None = None) -> DatasetDescription:
    """Count participants, recordings and samples (reads only the ``time`` column, ~1 s)."""
    files = _files(dataset_dir(FOLDER, data_dir), VR_ENVIRONMENTS)
    n = sum(pl.read_csv(p, columns=["time"]).height for _, _, p in files)
    both = ({u for u, e, _ in files if e == "office"}
            & {u for u, e, _ in files if e == "supermarket"})
    return DatasetDescription(
        participants=len({u for u, _, _ in files}), recordings=len(files), samples=n,
        sampling_rate_hz=VR_SAMPLING_RATE_HZ,
        note=f"{len(both)} users in both environments; users whose logs were >= 4 MiB are "
             "missing from the source snapshot (22 in the study)")
