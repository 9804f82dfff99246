# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DOVES: raw 200 Hz gaze of 29 observers free-viewing 101 natural images (2929 recordings).

van der Linde, Rajashekar, Bovik, Cormack. DOVES: a database of visual eye movements.
Spatial Vision 22(2):161-177, 2009 (LIVE / CPS, UT Austin). Folder ``doves/`` of the data
directory; see its PROVENANCE.md.

Units and labels
----------------
* ``t = sample * 5 ms`` (200 Hz dual-Purkinje-image tracker), in seconds.
* ``x = x_px / 60``, ``y = y_px / 60``: the images are 1024 x 768 px and 1 px = 1 arcmin, so
  gaze is in degrees with origin at the image's top-left corner, ``y`` downwards;
  :data:`DOVES_GEOMETRY` is ``Geometry.screen_px(1024, 768, px_per_deg=60, kind="image")``
  (17.07 x 12.8 deg).
* Recording id ``"<observer>_img<NNN>"``; participant = DOVES observer code (e.g. ``ABT2``);
  labels ``stimulus="img<NNN>"`` (the DOVES image number) and ``task="free-viewing"``.
* DOVES has no missing samples (no NaN) and no timestamps beyond the sample index.

Speed: the 25 MB ``.xz`` file is decompressed with :mod:`lzma` (single-threaded; the file is a
single xz block, so no decoder can parallelise it, ~3 s) and parsed with polars (~0.7 s);
recordings are then cut out of one numpy array without per-row Python work. The parsed table
(~70 MB) is memoised for the process, keyed by the file's path, size and modification time, so
that a second load or ``describe`` is quick; :func:`clear_doves_cache` releases it.
"""

from __future__ import annotations

import functools
import io
import itertools
import lzma
import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import polars as pl

from gazeprivacy.data.fixations import Fixations
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.loaders._paths import dataset_dir, dataset_file
from gazeprivacy.data.loaders._spec import DatasetDescription
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError

__all__ = [
    "DOVES_CITATION",
    "DOVES_GEOMETRY",
    "DOVES_PX_PER_DEG",
    "DOVES_SAMPLING_RATE_HZ",
    "clear_doves_cache",
    "describe_doves",
    "describe_doves_fixations",
    "doves_dataset_from_table",
    "load_doves",
    "load_doves_fixations",
]

FOLDER = "doves"
GAZE_FILE = "doves_gaze_200hz.csv.xz"
FIXATION_FILE = "doves_fixations.csv.gz"
DOVES_SAMPLING_RATE_HZ = 200.0
DOVES_PX_PER_DEG = 60.0
DOVES_WIDTH_PX, DOVES_HEIGHT_PX = 1024, 768
DOVES_GEOMETRY = Geometry.screen_px(width_px=DOVES_WIDTH_PX, height_px=DOVES_HEIGHT_PX,
                                    px_per_deg=DOVES_PX_PER_DEG, kind="image")
DOVES_CITATION = ("van der Linde, I., Rajashekar, U., Bovik, A.C., Cormack, L.K. (2009). DOVES: "
                  "A database of visual eye movements. Spatial Vision, 22(2): 161-177.")
_GAZE_SCHEMA = {"observer": pl.String, "image": pl.Int64, "sample": pl.Int64,
                "x_px": pl.Float64, "y_px": pl.Float64}


def _image_numbers(images: Iterable[int | str] | None) -> list[int] | None:
    """Accept 7, "7", "img007" or "img007.mat"; return image numbers."""
    if images is None:
        return None
    if isinstance(images, int | str):
        images = [images]
    out = []
    for im in images:
        s = str(im).lower().removesuffix(".mat").removeprefix("img")
        if not s.isdigit() or not 1 <= int(s) <= 101:
            raise InvalidParameterError(
                f"images must hold DOVES image numbers 1..101 (or ids like 'img007'), got {im!r}")
        out.append(int(s))
    return out


def _check_observers(observers: Iterable[str] | None, known: Iterable[str]) -> list[str] | None:
    if observers is None:
        return None
    obs = [observers] if isinstance(observers, str) else [str(o) for o in observers]
    known = set(known)
    unknown = [o for o in obs if o not in known]
    if unknown:
        raise InvalidParameterError(
            f"observers: unknown DOVES observer(s) {unknown}; valid: {', '.join(sorted(known))}")
    return obs


def _known_observers(folder: Path) -> list[str] | None:
    """The observer codes of ``observers.txt``, so that a bad selection fails before reading."""
    path = folder / "observers.txt"
    if not path.is_file():
        return None
    return [ln.strip() for ln in path.read_text().splitlines() if ln.strip()]


def _filter(table: pl.DataFrame, observers: Iterable[str] | None,
            images: Iterable[int | str] | None, *, what: str) -> pl.DataFrame:
    obs = _check_observers(observers, table["observer"].unique().to_list())
    if obs is not None:
        table = table.filter(pl.col("observer").is_in(obs))
    nums = _image_numbers(images)
    if nums is not None:
        table = table.filter(pl.col("image").is_in(nums))
    if table.height == 0:
        raise InvalidParameterError(f"observers={observers!r}, images={images!r} select no {what}")
    return table


@functools.lru_cache(maxsize=1)
def _parse_gaze(path: str, size: int, mtime_ns: int) -> pl.DataFrame:
    # size and mtime_ns are part of the cache key only: a changed file is read again.
    with lzma.open(path) as fh:
        raw = fh.read()
    return pl.read_csv(io.BytesIO(raw), schema=_GAZE_SCHEMA)


def _read_gaze(folder: Path) -> pl.DataFrame:
    path = dataset_file(folder, GAZE_FILE)
    try:
        st = path.stat()
        return _parse_gaze(str(path.resolve()), st.st_size, st.st_mtime_ns)
    except (OSError, lzma.LZMAError, pl.exceptions.PolarsError) as exc:
        raise InvalidDataError(f"cannot read {str(path)!r}: {exc}") from None


def clear_doves_cache() -> None:
    """Forget the memoised DOVES gaze table (frees ~70 MB)."""
    _parse_gaze.cache_clear()


def doves_dataset_from_table(table: pl.DataFrame, *, name: str = "doves",
                             info: dict | None = None) -> Dataset:
    """Build the DOVES :class:`Dataset` from a table ``observer, image, sample, x_px, y_px``.

    Rows of one (observer, image) trial must be contiguous and ordered by ``sample``;
    recordings are ordered by observer code, then image number. Shared by :func:`load_doves`
    and the bundled sample.
    """
    missing = [c for c in _GAZE_SCHEMA if c not in table.columns]
    if missing:
        raise InvalidDataError(f"DOVES table lacks column(s) {missing}")
    obs = table["observer"].to_numpy()
    img = table["image"].to_numpy()
    sample = table["sample"].to_numpy()
    x = table["x_px"].cast(pl.Float64).to_numpy() / DOVES_PX_PER_DEG
    y = table["y_px"].cast(pl.Float64).to_numpy() / DOVES_PX_PER_DEG
    t = sample.astype(np.float64) / DOVES_SAMPLING_RATE_HZ
    change = np.flatnonzero((obs[1:] != obs[:-1]) | (img[1:] != img[:-1])) + 1
    bounds = np.concatenate([[0], change, [len(obs)]])
    # The source file is image-major; order the trials (not the rows) by observer, then image.
    trials = sorted(itertools.pairwise(bounds),
                    key=lambda ab: (str(obs[ab[0]]), int(img[ab[0]])))
    recs = []
    for a, b in trials:
        stim = f"img{int(img[a]):03d}"
        recs.append(Recording(
            recording=f"{obs[a]}_{stim}", participant=str(obs[a]), t=t[a:b], x=x[a:b],
            y=y[a:b], sampling_rate_hz=DOVES_SAMPLING_RATE_HZ,
            labels={"stimulus": stim, "task": "free-viewing"}, geometry=DOVES_GEOMETRY))
    return Dataset(tuple(recs), name=name, info=dict(info or {}))


def load_doves(data_dir: str | os.PathLike[str] | None = None, *,
               observers: Iterable[str] | None = None,
               images: Iterable[int | str] | None = None) -> Dataset:
    """Load DOVES raw gaze: one recording per observer and image, 200 Hz, degrees.

    Parameters
    ----------
    data_dir : path, optional
        Folder containing ``doves/``; default ``$GAZEPRIVACY_DATA``.
    observers : iterable of str, optional
        Observer codes to keep (e.g. ``["ABT2", "CE2"]``); default all 29.
    images : iterable of int or str, optional
        Image numbers 1..101 (or ``"img007"``) to keep; default all 101.

    Returns
    -------
    Dataset
        Recordings ordered by observer code, then image number; see the module docstring for
        units and labels. ``info`` holds source, citation, licence and counts.

    Raises
    ------
    InvalidDataError
        The data directory, the ``doves`` folder or its gaze file is missing or unreadable.
    InvalidParameterError
        An unknown observer or image, or a selection with no data.
    """
    folder = dataset_dir(FOLDER, data_dir)
    known = _known_observers(folder)
    if known is not None:  # validate the cheap arguments before the ~4 s read
        _check_observers(observers, known)
    _image_numbers(images)
    table = _filter(_read_gaze(folder), observers, images, what="recordings")
    info = {"source": str(folder / GAZE_FILE), "citation": DOVES_CITATION,
            "licence": "DOVES terms (free use/redistribution of the eye data with the notice)",
            "sampling_rate_hz": DOVES_SAMPLING_RATE_HZ, "px_per_deg": DOVES_PX_PER_DEG,
            "units": "t = sample * 5 ms; x, y = px / 60 (deg), origin top-left, y down"}
    return doves_dataset_from_table(table, info=info)


def load_doves_fixations(data_dir: str | os.PathLike[str] | None = None, *,
                         observers: Iterable[str] | None = None,
                         images: Iterable[int | str] | None = None) -> Fixations:
    """Load the DOVES fixation lists (``fix_data``) as :class:`Fixations` on 1024 x 768 images.

    Policies (counted in ``Fixations.info``):

    * **Degenerate rows are dropped**: fixations with a missing or non-positive ``duration_raw``.
      The source has exactly two (CLM2/img012 fixation 6 with x ~ 1e-320 and no duration;
      ABT2/img067 fixation 16 with a negative duration); ``info["dropped_degenerate"]`` lists
      them.
    * ``duration_ms = duration_raw * 5``: the raw value is read as a count of 200 Hz samples
      (median 59 -> ~300 ms). This is **not verified** against the DOVES documentation;
      ``info["duration_unit_verified"]`` is ``False`` and ``duration_raw`` is kept as a column.

    Columns: ``participant`` (observer), ``stimulus`` (``img<NNN>``), ``fixation`` (order),
    ``x_px``, ``y_px`` (image px, origin top-left), ``duration_ms``, ``duration_raw``.

    Raises
    ------
    InvalidDataError
        The data directory, the ``doves`` folder or the fixation file is missing.
    InvalidParameterError
        An unknown observer or image, or a selection with no data.
    """
    folder = dataset_dir(FOLDER, data_dir)
    path = dataset_file(folder, FIXATION_FILE)
    raw = pl.read_csv(path, schema={"observer": pl.String, "image": pl.Int64,
                                    "fixation": pl.Int64, "x_px": pl.Float64,
                                    "y_px": pl.Float64, "duration_raw": pl.Float64})
    raw = _filter(raw, observers, images, what="fixations")
    bad = raw["duration_raw"].is_null() | (raw["duration_raw"] <= 0)
    dropped = raw.filter(bad)
    tab = (raw.filter(~bad)
           .with_columns(pl.format("img{}", pl.col("image").cast(pl.String).str.zfill(3))
                         .alias("stimulus"),
                         (pl.col("duration_raw") * 5.0).alias("duration_ms"))
           .select(pl.col("observer").alias("participant"), "stimulus", "fixation", "x_px",
                   "y_px", "duration_ms", "duration_raw"))
    info = {"source": str(path), "citation": DOVES_CITATION,
            "n_dropped_degenerate": dropped.height,
            "dropped_degenerate": dropped.select("observer", "image", "fixation").rows(),
            "duration_unit_verified": False,
            "duration_rule": "duration_ms = duration_raw * 5 (200 Hz samples; unverified)"}
    return Fixations(tab, width_px=DOVES_WIDTH_PX, height_px=DOVES_HEIGHT_PX,
                     name="doves_fixations", info=info)


def describe_doves(data_dir: str | os.PathLike[str] | None = None) -> DatasetDescription:
    """Count observers, recordings and samples (decompresses the file, ~4 s; builds nothing)."""
    table = _read_gaze(dataset_dir(FOLDER, data_dir)).select("observer", "image")
    return DatasetDescription(
        participants=table["observer"].n_unique(),
        recordings=table.select(pl.struct("observer", "image").n_unique()).item(),
        samples=table.height, sampling_rate_hz=DOVES_SAMPLING_RATE_HZ)


def describe_doves_fixations(
        data_dir: str | os.PathLike[str] | None = None) -> DatasetDescription:
    """Count observers, trials and fixations of the DOVES fixation lists."""
    fx = load_doves_fixations(data_dir)
    return DatasetDescription(
        participants=fx.n_participants,
        recordings=fx.table.select(pl.struct("participant", "stimulus").n_unique()).item(),
        samples=fx.table.height,
        note=f"{fx.info['n_dropped_degenerate']} degenerate rows dropped")
