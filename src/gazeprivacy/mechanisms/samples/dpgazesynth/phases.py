# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth's partition phases (client, merge, curate, release) for the engines.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import (
    InvalidDataError,
    InvalidParameterError,
    NotFormallyPrivateWarning,
)
from gazeprivacy.guarantees import Release
from gazeprivacy.mechanisms.contract import Mode, check_partition
from gazeprivacy.mechanisms.samples.dpgazesynth.client import client_release
from gazeprivacy.mechanisms.samples.dpgazesynth.curator import curate, perturb_reports
from gazeprivacy.mechanisms.samples.dpgazesynth.params import DPGazeSynthParams
from gazeprivacy.mechanisms.samples.dpgazesynth.privacy_map import _record, _with_note
from gazeprivacy.mechanisms.samples.dpgazesynth.synthesis import synthesise

__all__ = [
    "PARTICIPANT_REFUSAL",
    "DPGazeSynthPhases",
    "plan",
]


@dataclass(frozen=True)
class DPGazeSynthPhases:
    """DPGazeSynth as a two-phase job (a :class:`~gazeprivacy.mechanisms.contract.
    PartitionPlan`).

    client: the client step on the partition (start points, run lengths, transition values;
    all noised on the client) and its OUE reports summed per budget -> state (the clients'
    release), message ``{eps: (column sums, n)}``. curate: the transition model from all
    messages. release: synthesis per partition with the model. Sums of per-partition OUE column
    sums are distributed exactly as the column sums of one aggregate over the union.
    """

    params: DPGazeSynthParams
    mechanism: str = "dpgazesynth"
    two_phase: bool = True

    def __post_init__(self) -> None:
        if self.params.unit == "participant":
            raise InvalidParameterError(f"dpgazesynth with unit='participant' cannot run "
                                        f"partition-wise: {PARTICIPANT_REFUSAL}")

    def client(self, part: Dataset, rng: np.random.Generator) -> tuple[Any, Any]:
        check_partition(part)
        rng_clients, rng_perturb = rng.spawn(2)
        state = client_release(part.recordings, self.params, rng_clients)
        return state, perturb_reports(state, self.params, rng_perturb)

    def merge(self, messages: list[Any] | tuple[Any, ...]) -> Any:
        """Several messages as one (column sums and counts added per budget): ``curate`` of
        the merged message equals ``curate`` of the parts exactly (integer-valued sums), so
        engines may reduce messages as they arrive, in any grouping."""
        out: dict[float, tuple[np.ndarray, int]] = {}
        for msg in messages:
            for eps, (col, n) in msg.items():
                if eps in out:
                    out[eps] = (out[eps][0] + col, out[eps][1] + int(n))
                else:
                    out[eps] = (np.array(col, dtype=np.float64), int(n))
        return out

    def curate(self, messages: Any, rng: np.random.Generator) -> Any:
        return curate(list(messages), self.params)

    def release(self, part: Dataset, state: Any, model: Any,
                rng: np.random.Generator) -> Release[Dataset]:
        check_partition(part)
        p = self.params
        if p.mode is Mode.PAPER:
            warnings.warn("DPGazeSynth paper mode releases the number of runs per window; see "
                          "the guarantee's flags", NotFormallyPrivateWarning, stacklevel=2)
        if state.valid_rows.size and int(state.valid_rows[-1]) >= part.n_samples:
            raise InvalidDataError("client state does not belong to this partition (its rows "
                                   "exceed the partition's); recompute the client phase")
        out = synthesise(part.recordings, state, model, p, rng)
        record = _with_note(_record(part, p), "run partition-wise: clients perturbed per "
                            "partition, the curator summed the OUE column sums of all "
                            "partitions")
        return Release(Dataset(tuple(out), name=part.name, info=part.info), record)


def plan(params: DPGazeSynthParams) -> DPGazeSynthPhases:
    """The partition phases of DPGazeSynth with ``params``.

    Raises
    ------
    InvalidParameterError
        ``unit="participant"``, which has no partition plan (see :data:`PARTICIPANT_REFUSAL`).
    """
    return DPGazeSynthPhases(params=params)  # refuses unit='participant'


#: Why ``unit="participant"`` has no partition plan.
PARTICIPANT_REFUSAL = (
    "each participant's m windows are drawn across all of its recordings, and a partition's "
    "clients cannot know whether the participant also has recordings in another partition "
    "(drawing m per partition would spend m x epsilon / m per partition, over the budget; "
    "finding out at the curator is too late, the reports are sent); and every released window "
    "is drawn from the reports of all partitions. Way out: protect it in memory, or run "
    "unit='window' partition-wise")
