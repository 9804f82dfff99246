# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""gazeprivacy: release eye-tracking data with formal privacy guarantees, and measure the cost.

The public facade; modules inside the package never import it. Its names are loaded on first
use (PEP 562), so ``import gazeprivacy`` and the command line's start-up stay fast:
``from gazeprivacy import protect`` imports the mechanisms then, not before.

>>> import gazeprivacy
>>> gazeprivacy.Geometry.__module__
'gazeprivacy.data.geometry'
>>> "protect" in dir(gazeprivacy) and "protect" in gazeprivacy.__all__
True
"""

import os as _os
import typing as _typing

__version__ = "0.1.0"

# Memory (issue 18): polars' allocator (jemalloc) keeps the pages of freed buffers under its
# 8 MiB "oversize" threshold for ~10 s, and a partition's columns (a few MB each) are such
# buffers, so partition-wise runs held ~30-80 MB of freed pages at their peak. From 256 KiB up,
# buffers now come from jemalloc's oversize arena, which returns freed pages at once (time
# unchanged within noise: benchmarks/memory.py). "At once" needs ``muzzy_decay_ms:0``: else
# the pages are only marked free (MADV_FREE) and stay in the resident set until the system runs
# short of memory, so that on an idle machine a whole ``protect`` run's peak RSS counted every
# buffer freed before it (Kaleido: ~1000 MB against ~730 MB; time unchanged within noise).
# Read when polars is first imported, so it applies only if gazeprivacy is imported first; a
# value the user sets is kept.
_os.environ.setdefault("_RJEM_MALLOC_CONF", "oversize_threshold:262144,muzzy_decay_ms:0")

# Public name -> the module that defines it (imported on first access).
_SOURCES: dict[str, str] = {
    **dict.fromkeys(["Dataset", "Geometry", "Recording", "dataset_from_table", "read_dataset",
                     "read_input", "write_dataset"], "gazeprivacy.data"),
    **dict.fromkeys(["LOADERS", "load"], "gazeprivacy.data.loaders"),
    "load_sample": "gazeprivacy.data.sample",
    **dict.fromkeys(["DataPolicyWarning", "GazePrivacyError", "ImplausibleEventsWarning",
                     "InvalidDataError", "InvalidParameterError", "NotFormallyPrivateWarning"],
                    "gazeprivacy.exceptions"),
    **dict.fromkeys(["ColumnStatus", "Flag", "FlagCode", "Guarantee", "Kind", "Release",
                     "Status", "Unit"], "gazeprivacy.guarantees"),
    "Ledger": "gazeprivacy.accounting.ledger",
    **dict.fromkeys(["MECHANISMS", "Level", "Mechanism", "Mode", "protect"],
                    "gazeprivacy.mechanisms"),
    **dict.fromkeys(["SealedRelease", "protect_file", "seal", "write_release"],
                    "gazeprivacy.mechanisms.release"),
    **dict.fromkeys(["KaleidoParams", "KaleidoStream"],
                    "gazeprivacy.mechanisms.samples.kaleido"),
    "make_rng": "gazeprivacy.rng",
}

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
    "dataset_from_table",
    "load",
    "load_sample",
    "make_rng",
    "protect",
    "protect_file",
    "read_dataset",
    "read_input",
    "seal",
    "write_dataset",
    "write_release",
]


if not _typing.TYPE_CHECKING:  # type checkers read the imports below instead
    from gazeprivacy._lazy import lazy_attributes as _lazy_attributes

    __getattr__, __dir__ = _lazy_attributes(__name__, _SOURCES, globals(), __all__)


if _typing.TYPE_CHECKING:  # the same names, eagerly, for type checkers and IDEs
    from gazeprivacy.accounting.ledger import Ledger
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
    from gazeprivacy.mechanisms import MECHANISMS, Level, Mechanism, Mode, protect
    from gazeprivacy.mechanisms.release import SealedRelease, protect_file, seal, write_release
    from gazeprivacy.mechanisms.samples.kaleido import KaleidoParams, KaleidoStream
    from gazeprivacy.rng import make_rng
