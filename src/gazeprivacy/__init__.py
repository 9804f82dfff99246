# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""gazeprivacy: release eye-tracking data with formal privacy guarantees, and measure the cost.

The public facade; modules inside the package never import it.
"""

from gazeprivacy.data import Dataset, Geometry, Recording, read_dataset, write_dataset
from gazeprivacy.data.loaders import LOADERS, load
from gazeprivacy.data.sample import load_sample
from gazeprivacy.exceptions import (
    DataPolicyWarning,
    GazePrivacyError,
    ImplausibleEventsWarning,
    InvalidDataError,
    InvalidParameterError,
    NotFormallyPrivateWarning,
)
from gazeprivacy.guarantees import (
    ColumnStatus,
    Flag,
    FlagCode,
    Guarantee,
    Kind,
    Release,
    Status,
    Unit,
)
from gazeprivacy.ledger import Ledger
from gazeprivacy.mechanisms import MECHANISMS, Level, Mechanism, Mode, protect
from gazeprivacy.mechanisms.release import SealedRelease, protect_file, seal, write_release
from gazeprivacy.mechanisms.samples.kaleido import KaleidoParams, KaleidoStream
from gazeprivacy.rng import make_rng

__version__ = "0.1.0"

__all__ = [
    "LOADERS",
    "MECHANISMS",
    "ColumnStatus",
    "DataPolicyWarning",
    "Dataset",
    "Flag",
    "FlagCode",
    "GazePrivacyError",
    "Geometry",
    "Guarantee",
    "ImplausibleEventsWarning",
    "InvalidDataError",
    "InvalidParameterError",
    "KaleidoParams",
    "KaleidoStream",
    "Kind",
    "Ledger",
    "Level",
    "Mechanism",
    "Mode",
    "NotFormallyPrivateWarning",
    "Recording",
    "Release",
    "SealedRelease",
    "Status",
    "Unit",
    "__version__",
    "load",
    "load_sample",
    "make_rng",
    "protect",
    "protect_file",
    "read_dataset",
    "seal",
    "write_dataset",
    "write_release",
]
