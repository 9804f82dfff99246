# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""What the runner's attacks see of a release: the in-memory release, or what a user publishes.

A mechanism's in-memory release keeps the input's raw clock, labels, pupil and extra channels,
its recording lengths and (under ``missing="keep"``) its missing-sample mask, so that the runner
can align raw and protected recordings. :func:`~gazeprivacy.mechanisms.release.seal` writes
less. An attack on the in-memory release therefore measures more than a user releases, and it
also measures the *structure* every release keeps: on DOVES the gaze-free screen-centre baseline
is re-identified at 4x chance from its recording lengths alone (a constant gaze path is one
I-VT fixation whose duration is the recording's length; docs/results/honest.md).

A :class:`ReleaseView` (config table ``[release_view]``) makes the attacks (and the utility
tasks, which read the same event features) run on the release as written:

* ``sealed = true``: what :func:`~gazeprivacy.mechanisms.release.seal` writes by default: the
  public sampling grid ``t = i / rate`` instead of the raw clock; no labels, pupil, extra
  channels or extras. Ids stay raw inside the runner, only for scoring (no attack reads an id).
  NaN rows where the input was missing stay NaN: ``seal`` writes them only under
  ``public=["mask"]`` (it refuses otherwise), and the cell gets a note saying the release needs
  that declaration;
* ``length_s``: every recording is released with ``max(2, round(length_s * rate))`` samples,
  a public length: longer ones are cut, shorter ones are continued by repeating the release's own
  samples from its start (post-processing of the release, so no guarantee changes). With it
  no release carries its input's recording lengths.

Fidelity and realism still compare the in-memory release with the raw data sample by sample
(same length); only the attacks and utility tasks see the view.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import polars as pl

from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["ReleaseView", "attack_side", "mask_rows_released", "view_release"]


@dataclass(frozen=True, kw_only=True)
class ReleaseView:
    """How the runner shows a release to its attacks (see the module docstring)."""

    sealed: bool = True
    length_s: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.sealed, bool):
            raise InvalidParameterError(f"release_view.sealed must be true or false, got "
                                        f"{self.sealed!r}")
        if self.length_s is not None and (
                isinstance(self.length_s, bool) or not isinstance(self.length_s, int | float)
                or not math.isfinite(self.length_s) or self.length_s <= 0):
            raise InvalidParameterError(f"release_view.length_s must be a positive number of "
                                        f"seconds, got {self.length_s!r}")


def _fixed(values: np.ndarray | None, n: int) -> np.ndarray | None:
    """``values`` cut to ``n`` rows, or continued by repeating from its start."""
    return None if values is None else np.resize(values, n)


def _view_recording(r: Recording, view: ReleaseView) -> Recording:
    n = r.n_samples if view.length_s is None else max(2, round(view.length_s
                                                               * r.sampling_rate_hz))
    x, y = _fixed(r.x, n), _fixed(r.y, n)
    if view.sealed:
        return Recording(recording=r.recording, participant=r.participant,
                         t=np.arange(n) / r.sampling_rate_hz, x=x, y=y,
                         sampling_rate_hz=r.sampling_rate_hz, geometry=r.geometry)
    if n == r.n_samples:
        return r
    t = r.t[0] + np.arange(n) / r.sampling_rate_hz  # a longer clock than the input has
    return replace(r, t=t, x=x, y=y, pupil=_fixed(r.pupil, n),
                   channels={k: _fixed(v, n) for k, v in r.channels.items()},
                   extras={k: _fixed(v, n) for k, v in r.extras.items()})


def view_release(release: Dataset, view: ReleaseView) -> Dataset:
    """The release as the attacks see it under ``view``.

    >>> from gazeprivacy.data.simulate import simulate_dataset
    >>> ds = simulate_dataset(n_participants=2, tasks="reading", duration_s=1.0,
    ...                       sampling_rate_hz=60, rng=np.random.default_rng(0))
    >>> seen = view_release(ds, ReleaseView(length_s=0.5))
    >>> {r.n_samples for r in seen}, seen.recordings[0].labels
    ({30}, {})
    """
    return Dataset(tuple(_view_recording(r, view) for r in release.recordings),
                   name=release.name)


def mask_rows_released(release: Dataset, source: Dataset) -> int:
    """NaN gaze rows of ``release`` where ``source`` (its input) was missing: the rows that
    release the missing-sample mask (``seal`` writes them only under ``public=["mask"]``)."""
    src = {r.recording: r.missing for r in source.recordings}
    return sum(int((r.missing & src[r.recording]).sum()) for r in release.recordings
               if r.recording in src and src[r.recording].shape == r.missing.shape)


def attack_side(view: ReleaseView | None, raw: Dataset, release: Dataset | None,
                events: pl.DataFrame | None, featurize: Callable[[Dataset], pl.DataFrame],
                notes: list[str], *, needs_events: bool
                ) -> tuple[Dataset | None, pl.DataFrame | None]:
    """The runner's hook: (release, its event features) as the attacks see them.

    Without a view, or without an in-memory release (the raw cell, a streamed release), the
    arguments come back unchanged.
    """
    if view is None or release is None:
        return release, events
    masked = mask_rows_released(release, raw)
    if masked:
        notes.append(f"release_view: {masked} NaN gaze rows of the release fall where the "
                     "input was missing; seal() writes such rows only under public=['mask'] "
                     "(the attacks see them)")
    seen = view_release(release, view)
    return seen, (featurize(seen) if needs_events else None)
