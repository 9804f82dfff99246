# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Train / test split protocols over recordings. A recording is never on both sides.

* By stimulus (David-John et al. 4.5.1: "training and testing sets were randomly selected from
  unique stimuli"): the distinct values of a group label are split, and every recording of a test
  stimulus goes to the test side.
* Per participant (Ren, Fan et al. 5.2: "10 for training and the remaining three for testing"):
  each participant's recordings are split; a participant with one recording only trains.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from gazeprivacy._validation import check_range
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["Split", "recording_index", "split_recordings"]


@dataclass(frozen=True)
class Split:
    """Recording ids on each side of one split (disjoint by construction, and checked)."""

    train: tuple[str, ...]
    test: tuple[str, ...]

    def __post_init__(self) -> None:
        both = set(self.train) & set(self.test)
        if both:
            raise AssertionError(f"split leaks recordings into both sides: {sorted(both)[:5]}")


def recording_index(dataset: Dataset, *, group_label: str | None = "stimulus") -> pl.DataFrame:
    """The split universe of a dataset: ``recording``, ``participant``, ``group``.

    ``group`` is the recording's ``group_label`` label (e.g. stimulus) or, when ``group_label``
    is None, null (split per participant). A recording without that label is an error.
    """
    rows = []
    for r in dataset.recordings:
        group = None if group_label is None else r.label(group_label)
        rows.append({"recording": r.recording, "participant": r.participant, "group": group})
    return pl.DataFrame(rows, schema={"recording": pl.String, "participant": pl.String,
                                      "group": pl.String})


def split_recordings(index: pl.DataFrame, *, test_fraction: float,
                     rng: np.random.Generator) -> Split:
    """One random split of the recordings in ``index`` (see :func:`recording_index`).

    With a non-null ``group`` column the groups are split (at least one on each side); otherwise
    each participant's recordings are split (at least one test recording per participant that
    has two or more).

    Examples
    --------
    >>> idx = pl.DataFrame({"recording": ["a1", "a2", "b1", "b2"], "participant": list("aabb"),
    ...                     "group": ["s1", "s2", "s1", "s2"]})
    >>> s = split_recordings(idx, test_fraction=0.5, rng=np.random.default_rng(0))
    >>> sorted(s.train + s.test)
    ['a1', 'a2', 'b1', 'b2']
    """
    check_range(test_fraction=test_fraction, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    if index.height == 0:
        raise InvalidDataError("cannot split an empty set of recordings")
    recs = index["recording"].to_list()
    if len(set(recs)) != len(recs):
        raise InvalidDataError("recording ids in the split index must be unique")
    grouped = "group" in index.columns and index["group"].null_count() == 0
    if grouped:
        groups = sorted(set(index["group"].to_list()))
        if len(groups) < 2:
            raise InvalidParameterError(
                f"split by group needs at least 2 distinct groups, got {groups}; split per "
                "participant instead (group_label=None)")
        n_test = int(np.clip(round(test_fraction * len(groups)), 1, len(groups) - 1))
        test_groups = set(rng.permutation(groups)[:n_test].tolist())
        is_test = [g in test_groups for g in index["group"].to_list()]
    else:
        is_test = [False] * len(recs)
        by_p: dict[str, list[int]] = {}
        for i, p in enumerate(index["participant"].to_list()):
            by_p.setdefault(p, []).append(i)
        for p in sorted(by_p):
            rows = by_p[p]
            if len(rows) < 2:
                continue
            n_test = int(np.clip(round(test_fraction * len(rows)), 1, len(rows) - 1))
            for j in rng.permutation(rows)[:n_test]:
                is_test[int(j)] = True
    train = tuple(r for r, t in zip(recs, is_test, strict=True) if not t)
    test = tuple(r for r, t in zip(recs, is_test, strict=True) if t)
    return Split(train, test)
