# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Where the real datasets live: one helper resolves the data directory for every loader.

The data directory is a folder that *contains* the dataset folders (``doves/``, ``mpiidpeye/``,
...). It comes from the ``data_dir=`` argument or, when that is ``None``, from the environment
variable ``GAZEPRIVACY_DATA``. There is no silent fallback to a guessed location: a missing
folder or file raises :class:`~gazeprivacy.exceptions.InvalidDataError` naming the path that was
expected and how to point gazeprivacy at the data.
"""

from __future__ import annotations

import os
from pathlib import Path

from gazeprivacy.exceptions import InvalidDataError

__all__ = ["ENV_VAR", "dataset_dir", "dataset_file", "resolve_data_dir"]

ENV_VAR = "GAZEPRIVACY_DATA"


def resolve_data_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The folder holding the dataset folders: ``data_dir``, else ``$GAZEPRIVACY_DATA``.

    Raises
    ------
    InvalidDataError
        Neither is given, or the folder does not exist.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     resolve_data_dir(d) == Path(d)
    True
    """
    if data_dir is None:
        env = os.environ.get(ENV_VAR, "").strip()
        if not env:
            raise InvalidDataError(
                f"no data directory: pass data_dir=... or set the environment variable {ENV_VAR} "
                "to the folder that contains the dataset folders (doves/, mpiidpeye/, ...)")
        path, source = Path(env).expanduser(), f"${ENV_VAR}"
    else:
        path, source = Path(data_dir).expanduser(), "data_dir"
    if not path.is_dir():
        raise InvalidDataError(
            f"data directory {str(path)!r} (from {source}) does not exist or is not a folder; "
            f"pass data_dir=... or set {ENV_VAR} to the folder that contains the dataset folders")
    return path


def dataset_dir(folder: str, data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The folder of one dataset, e.g. ``<data_dir>/doves``; the error names the expected path."""
    root = resolve_data_dir(data_dir)
    path = root / folder
    if not path.is_dir():
        raise InvalidDataError(
            f"dataset folder {str(path)!r} not found: the data directory {str(root)!r} must "
            f"contain a folder {folder!r} (see its PROVENANCE.md for how it was obtained)")
    return path


def dataset_file(folder: Path, relative: str) -> Path:
    """A file inside a dataset folder; the error names the expected path."""
    path = folder / relative
    if not path.is_file():
        raise InvalidDataError(f"expected file {str(path)!r} is missing; the dataset folder "
                               f"{str(folder)!r} is incomplete")
    return path
