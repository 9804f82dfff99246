# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Data model, units, I/O, loaders for real datasets, the bundled sample and the simulator."""

from gazeprivacy.data.geometry import (
    Geometry,
    direction_to_angles_deg,
    pixels_per_degree,
    px_to_deg,
)
from gazeprivacy.data.io import dataset_from_table, read_dataset, write_dataset
from gazeprivacy.data.partitioned import PartitionedDataset, PartitionWriter, write_partitioned
from gazeprivacy.data.pymovements_bridge import from_pymovements, to_pymovements
from gazeprivacy.data.readers import read_input
from gazeprivacy.data.recording import CORE_COLUMNS, Dataset, Recording, repair_timestamps

__all__ = [
    "CORE_COLUMNS",
    "Dataset",
    "Geometry",
    "PartitionWriter",
    "PartitionedDataset",
    "Recording",
    "dataset_from_table",
    "direction_to_angles_deg",
    "from_pymovements",
    "pixels_per_degree",
    "px_to_deg",
    "read_dataset",
    "read_input",
    "repair_timestamps",
    "to_pymovements",
    "write_dataset",
    "write_partitioned",
]
