# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The DPGazeSynth protocol's files, behind ``gazeprivacy client`` / ``gazeprivacy curator``:
a device's gaze file -> one message file, message files -> the sealed release. The wire format
and the curator's checks are :mod:`gazeprivacy.deploy.protocol`; these functions only read,
check outputs (:func:`gazeprivacy._atomic.check_outputs`) and write atomically.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gazeprivacy._atomic import Output, atomic_files, check_outputs
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.deploy.protocol import curator_release, encode_client_message
from gazeprivacy.deploy.protocol_plan import plan_of
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.guarantees import Release
from gazeprivacy.mechanisms.samples.dpgazesynth import DPGazeSynthParams
from gazeprivacy.mechanisms.samples.dpgazesynth.protocol_phases import (
    Announcement,
    ClientMessage,
    client_message,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.protocol_plan import ParticipantPlan

__all__ = ["client_file", "curator_files"]


def client_file(in_path: str | Path, out_path: str | Path, params: DPGazeSynthParams, *,
                seed: int | None = None, time_unit: str = "s",
                geometry: Geometry | None = None, overwrite: bool = False,
                plan: ParticipantPlan | str | Path | None = None) -> ClientMessage:
    """A device's step on a data file: read its recordings (one sampling rate), write the
    encoded :class:`ClientMessage` to ``out_path`` (checked first, never the input, an existing
    file only with ``overwrite``; written beside, then renamed). Without ``seed`` the noise comes
    from OS entropy. At ``unit="participant"`` pass the curator's ``plan`` (or its JSON file):
    the device reports its planned windows only.

    Raises
    ------
    InvalidParameterError
        Recordings at several sampling rates, or no screen bounds.
    InvalidDataError
        The file cannot be read.
    """
    from gazeprivacy.data.io import read_dataset
    from gazeprivacy.rng import make_rng

    check_outputs([Output(out_path, "out_path")], inputs=[in_path], overwrite=overwrite)
    ds = read_dataset(in_path, time_unit=time_unit, geometry=geometry)
    msg = client_message(ds.recordings, params, rng=make_rng(seed), plan=plan_of(plan))
    with atomic_files(out_path) as (tmp,):
        tmp.write_bytes(encode_client_message(msg))
    return msg


def curator_files(paths: Sequence[str | Path], out_path: str | Path, *,
                  announced: Announcement | None = None, seed: int | None = None,
                  public: Sequence[str] = (), id_map_path: str | Path | None = None,
                  overwrite: bool = False,
                  plan: ParticipantPlan | str | Path | None = None) -> Any:
    """The curator's step on message files: validate every message (named by its path),
    synthesise, and write the release through the sealed writer
    (:func:`gazeprivacy.mechanisms.release.write_release`: pseudonymised ids, public sampling
    grid, the record at ``OUT.guarantee.json``). One generator (``seed``, else OS entropy) is
    spawned into the synthesis and the sealing; the pseudonym key always comes from OS entropy.
    A seeded release is written as not formally private (a guarantee-breaking flag, without the
    seed's value). At ``unit="participant"`` ``plan`` (the curator's, or its JSON file) is
    required: every message is checked against it.

    Returns
    -------
    SealedRelease
        What was written.

    Raises
    ------
    InvalidDataError
        A message that is unreadable, malformed, inconsistent or of other parameters than
        ``announced`` (or than the first message's), named by its path.
    InvalidParameterError
        A sealing refusal, e.g. gaps (``missing="keep"``) without ``public=["mask"]``.
    """
    from gazeprivacy.mechanisms.release import release_outputs, write_release
    from gazeprivacy.rng import make_rng

    if not paths:
        raise InvalidParameterError("the curator needs at least one message file")
    check_outputs(release_outputs(out_path, id_map_path=id_map_path), inputs=paths,
                  overwrite=overwrite)
    data = []
    for p in paths:
        try:
            data.append(Path(p).read_bytes())
        except OSError as exc:
            raise InvalidDataError(f"cannot read client message {str(p)!r}: {exc}") from None
    syn_rng, seal_rng = make_rng(seed).spawn(2)
    rel = curator_release(data, rng=syn_rng, announced=announced, names=[str(p) for p in paths],
                          plan=plan_of(plan))
    rel = Release(rel.output, rel.guarantee.as_seeded_release(seed is not None))
    return write_release(rel, out_path, public=public, id_map_path=id_map_path, rng=seal_rng,
                         overwrite=overwrite)
