# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Sealed releases: a written release holds only what its record lists (SPEC section 8).

A mechanism's in-memory :class:`~gazeprivacy.guarantees.Release` keeps the raw ids, labels,
timestamps and every other column of its input, so that evaluations can align raw and protected
recordings. :func:`seal` turns it into what may leave the data holder, and
:func:`write_release` writes that, atomically (written beside, then renamed):

* **gaze** ``x, y``: the mechanism's output (status ``protected``);
* **ids**: ``participant`` and ``recording`` are replaced by pseudonyms, a keyed hash
  (BLAKE2b) of the raw id under a 256-bit key drawn once from the release's generator (OS entropy
  without a seed), so partitions of one run agree. The raw -> pseudonym map goes only to
  ``id_map_path`` when asked for, ordered by pseudonym. Recordings are written in pseudonym order,
  so positions do not reveal raw ids. ``public=["participant"]`` keeps raw ids;
* **time**: the public sampling grid ``t = i / sampling_rate_hz`` (public by design); the raw
  clock, with its jitter, only under ``public=["t"]``;
* **pupil**: dropped, copied under ``public=["pupil"]``, or protected with ``pupil_epsilon`` and
  a declared ``pupil_range`` by :func:`protect_pupil` at the mechanism's unit (window or
  w-window mechanisms only; k-same-synth and event-synth-PD drop it unless declared public);
* **every other column** (head pose, pixel copies of gaze, confidence, labels such as gender):
  written only when declared in ``public``;
* **the missing-sample mask**: a NaN gaze row at a row where the input was missing releases the
  mask. Such a release is refused unless ``public=["mask"]`` or the mechanism's record lists a
  ``mask`` column as protected. A mechanism that synthesises every row writes no NaN and so no
  mask; NaN rows that the mechanism made itself (e.g. suppressed events) are its output;
* **shape**: rows per recording and recordings per participant are the input's (public by
  design), unless the mechanism's record sets one public length (``output_length_s``:
  DPGazeSynth at participant level), which every recording must then have (else the release is
  refused) and beside which the input's per-row columns cannot be declared public. A
  **synthetic population** (``participant-synth``) departs from "same recordings, same row
  counts": its participants, recordings and lengths are set by its parameters, and only
  synthetic pseudonyms, the grid, ``x``, ``y`` and declared labels are written (``public``
  names labels only; docs/release.md);
* **metadata**: sampling rate and geometry are public by design; dataset name and info are
  written only under ``public=["name"]`` / ``public=["info"]``. Counts a mechanism leaves in
  ``Dataset.info`` (e.g. event-synth-PD's failed tests) go to the data holder's ``report`` and to
  ``report_path`` when asked for, never into the release.

The record's ``columns`` lists every written column (and the public-by-design properties and the
input columns left out) with its status.
"""

from gazeprivacy.mechanisms.release.files import protect_file
from gazeprivacy.mechanisms.release.pupil import protect_pupil
from gazeprivacy.mechanisms.release.sealing import (
    PUBLIC_KEYWORDS,
    Pseudonymiser,
    SealedRelease,
    SealPolicy,
    merge_columns,
    seal,
    seal_series_table,
    sealed_name_info,
)
from gazeprivacy.mechanisms.release.write import (
    RECORD_KEY,
    guarantee_path,
    record_json,
    release_outputs,
    write_release,
    write_sealed,
    write_sealed_table,
)

__all__ = [
    "PUBLIC_KEYWORDS",
    "RECORD_KEY",
    "Pseudonymiser",
    "SealPolicy",
    "SealedRelease",
    "guarantee_path",
    "merge_columns",
    "protect_file",
    "protect_pupil",
    "record_json",
    "release_outputs",
    "seal",
    "seal_series_table",
    "sealed_name_info",
    "write_release",
    "write_sealed",
    "write_sealed_table",
]
