# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Path safety: ids from data never become paths as they are, and manifests stay in their folder."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

__all__ = ["is_within", "safe_filename"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_filename(text: object, *, max_len: int = 80) -> str:
    """A file-name fragment from an id (stimulus, participant, ...): never a path.

    Characters other than letters, digits, ``.``, ``_`` and ``-`` become ``_``; leading dots are
    dropped (no ``..``, no hidden files). When the id had to change, a short hash of the original
    is appended so that two different ids never share a file name.

    >>> safe_filename("1001.jpg")
    '1001.jpg'
    >>> "/" in safe_filename("../../etc/passwd"), safe_filename("..").startswith(".")
    (False, False)
    """
    raw = str(text)
    clean = _UNSAFE.sub("_", raw).lstrip(".")[:max_len]
    if clean == raw and clean:
        return clean
    digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{clean or 'id'}-{digest}"


def is_within(path: str | Path, root: str | Path) -> bool:
    """Whether ``path`` (relative paths taken from ``root``) resolves inside ``root``.

    Symbolic links are followed, so a link that leaves ``root`` is outside.

    >>> is_within("part-0.parquet", "/data/x"), is_within("../y/part-0.parquet", "/data/x")
    (True, False)
    """
    base = Path(root).resolve()
    target = (base / Path(path)).resolve()
    return target == base or base in target.parents
