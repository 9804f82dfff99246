# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The bundled DOVES sample: 12 observers x 12 images (144 recordings, 200 Hz), no download.

The only data shipped with the package. DOVES' terms allow redistribution of the eye-movement
data provided the copyright notice travels with it: see ``NOTICE_DOVES.md`` in this folder;
``PROVENANCE.md`` says which observers and images and how the file was made
(``scripts/make_doves_sample.py``). :func:`load_sample` returns the same format as
:func:`gazeprivacy.data.loaders.load_doves` (degrees, 200 Hz, labels ``stimulus`` and ``task``,
``Geometry.screen_px(1024, 768, px_per_deg=60, kind="image")``) and the same values: the file
stores gaze as integer micro-pixels, which reproduce the source's 6 decimals exactly.

>>> ds = load_sample()
>>> len(ds), len(ds.participants), ds.sampling_rate_hz
(144, 12, 200.0)
"""

from __future__ import annotations

from importlib import resources

import polars as pl

from gazeprivacy.data.loaders.doves import doves_dataset_from_table
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidDataError

__all__ = ["SAMPLE_FILE", "load_sample", "sample_path"]

SAMPLE_FILE = "doves_sample.parquet"


def sample_path() -> str:
    """Path of the bundled Parquet file (inside the installed package)."""
    return str(resources.files(__name__).joinpath(SAMPLE_FILE))


def load_sample() -> Dataset:
    """Load the bundled DOVES sample as a :class:`~gazeprivacy.data.Dataset`.

    Needs no data directory. Recordings are ordered by observer, then image.

    Raises
    ------
    InvalidDataError
        The packaged file is missing (a broken installation).
    """
    ref = resources.files(__name__).joinpath(SAMPLE_FILE)
    try:
        with resources.as_file(ref) as path:
            raw = pl.read_parquet(path)
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise InvalidDataError(f"the bundled sample {SAMPLE_FILE!r} cannot be read ({exc}); "
                               "reinstall gazeprivacy") from None
    table = raw.select(pl.col("observer").cast(pl.String), pl.col("image").cast(pl.Int64),
                       pl.col("sample").cast(pl.Int64),
                       (pl.col("x_upx").cast(pl.Float64) / 1e6).alias("x_px"),
                       (pl.col("y_upx").cast(pl.Float64) / 1e6).alias("y_px"))
    info = {"source": f"gazeprivacy.data.sample/{SAMPLE_FILE} (bundled DOVES subset)",
            "citation": "van der Linde, I., Rajashekar, U., Bovik, A.C., Cormack, L.K. (2009). "
                        "DOVES: A database of visual eye movements. Spatial Vision, 22(2): "
                        "161-177.",
            "licence": "DOVES terms; see NOTICE_DOVES.md", "sampling_rate_hz": 200.0,
            "px_per_deg": 60.0,
            "units": "t = sample * 5 ms; x, y = px / 60 (deg), origin top-left, y down"}
    return doves_dataset_from_table(table, name="doves_sample", info=info)
