# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Build the bundled DOVES sample ``src/gazeprivacy/data/sample/doves_sample.parquet``.

Usage (from the repository root)::

    python scripts/make_doves_sample.py [--data-dir DIR]

``DIR`` contains ``doves/``; default ``$GAZEPRIVACY_DATA``, else ``../shared/data``.

Selection: the first 12 observers of ``doves/observers.txt`` (source order) x the 12 images
1, 10, 19, ..., 100 (every 9th image from the first) -> 144 recordings. All samples of those
trials are kept, in source order. Gaze is stored as int32 micro-pixels (``x_upx = round(x_px *
1e6)``): the source values have exactly 6 decimals, so the stored integers reproduce them
exactly (lossless); the loader divides by 1e6. Parquet, zstd level 22, no statistics.

Only DOVES may be shipped: its terms allow redistribution of the eye-movement data with the
copyright notice (``NOTICE_DOVES.md`` next to the file).
"""

from __future__ import annotations

import argparse
import io
import lzma
import os
from pathlib import Path

import polars as pl

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "src" / "gazeprivacy" / "data" / "sample" / "doves_sample.parquet"
N_OBSERVERS = 12
IMAGES = list(range(1, 101, 9))


def build(data_dir: Path, out: Path = OUT) -> pl.DataFrame:
    folder = data_dir / "doves"
    observers = [ln.strip() for ln in (folder / "observers.txt").read_text().splitlines()
                 if ln.strip()][:N_OBSERVERS]
    with lzma.open(folder / "doves_gaze_200hz.csv.xz") as fh:
        raw = pl.read_csv(io.BytesIO(fh.read()),
                          schema={"observer": pl.String, "image": pl.Int64, "sample": pl.Int64,
                                  "x_px": pl.Float64, "y_px": pl.Float64})
    sub = raw.filter(pl.col("observer").is_in(observers) & pl.col("image").is_in(IMAGES))
    # The source has exactly 6 decimals, so x_px * 1e6 is an integer up to float rounding.
    scaled = sub.select((pl.col("x_px", "y_px") * 1e6).round(0))
    assert ((scaled - sub.select(pl.col("x_px", "y_px") * 1e6)).max().max_horizontal().item()
            < 1e-3), "source gaze has more than 6 decimals"
    table = pl.DataFrame({
        "observer": sub["observer"], "image": sub["image"].cast(pl.Int16),
        "sample": sub["sample"].cast(pl.Int16),
        "x_upx": scaled["x_px"].cast(pl.Int32), "y_upx": scaled["y_px"].cast(pl.Int32)})
    out.parent.mkdir(parents=True, exist_ok=True)
    table.write_parquet(out, compression="zstd", compression_level=22, statistics=False)
    n_rec = table.select(pl.struct("observer", "image").n_unique()).item()
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB): {len(observers)} observers "
          f"{observers}, images {IMAGES}, {n_rec} recordings, {table.height} samples")
    return table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = os.environ.get("GAZEPRIVACY_DATA") or REPO.parent / "shared" / "data"
    ap.add_argument("--data-dir", type=Path, default=Path(default),
                    help="folder containing doves/ (default $GAZEPRIVACY_DATA or "
                         "../shared/data)")
    build(ap.parse_args().data_dir)


if __name__ == "__main__":
    main()
