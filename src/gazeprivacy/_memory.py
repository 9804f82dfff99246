# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Give freed memory back to the operating system between partitions (bounded peak RSS).

NumPy allocates through the C library's ``malloc``. glibc returns freed memory to the system
only from the top of its heap, so after a partition's arrays are freed, tens of MB stay in the
process as free but resident holes, and the next partition's arrays do not always fit in them:
peak RSS of a partition-wise run grew by ~50-75 MB this way (issue 18). :func:`trim` asks glibc
(``malloc_trim(0)``) to return every free page; a no-op where glibc is not the C library.

>>> trim() in (True, False)
True
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from functools import cache

__all__ = ["trim"]


@cache
def _malloc_trim() -> object | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        fn = libc.malloc_trim  # glibc only (musl has none)
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_size_t]
    fn.restype = ctypes.c_int
    return fn


def trim() -> bool:
    """Return the C heap's free pages to the system; whether glibc's ``malloc_trim`` ran."""
    fn = _malloc_trim()
    if fn is None:
        return False
    fn(0)  # type: ignore[operator]
    return True
