# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's output size: more rendered recordings per participant are
post-processing (the model, the record's budget and noise unchanged) and shrink the Monte-Carlo
error of the rendered density (docs/privacy/limits.md, "One more cost: rendering samples from
fixations"); the frontier configs set the documented size."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.experiments.config import load_config
from gazeprivacy.mechanisms.samples.participant_synth import (
    ParticipantSynthParams,
    participant_synth,
)
from gazeprivacy.metrics.fidelity import density_error

__all__: list[str] = []

CONFIGS = Path(__file__).resolve().parents[3] / "configs"
#: the frontier's recordings per participant (docs/privacy/participant-synth.md, "Output size")
FRONTIER_RECORDINGS = 5


@pytest.fixture(scope="module")
def viewing():
    return simulate_dataset(n_participants=6, tasks=("free-viewing",), duration_s=4.0,
                            sampling_rate_hz=60, rng=np.random.default_rng(5))


def _release(ds, per: int, seed: int):
    p = ParticipantSynthParams(epsilon_per_participant=3.0, delta=1e-6, output_length_s=2.0,
                               recordings_per_participant=per)
    return participant_synth(ds, p, rng=np.random.default_rng(seed))


def test_more_recordings_cost_no_budget_and_keep_the_noise(viewing):
    one, five = _release(viewing, 1, 3), _release(viewing, 5, 3)
    a, b = one.guarantee, five.guarantee
    assert (a.epsilon, a.delta) == (b.epsilon, b.delta)
    for key in ("rho", "noise_sd", "split", "n_participants"):
        assert a.parameters[key] == b.parameters[key]
    assert (a.parameters["recordings_per_participant"],
            b.parameters["recordings_per_participant"]) == (1, 5)
    assert len(five.output) == 5 * len(one.output) == 5 * 6


def test_more_recordings_bring_the_rendered_density_closer_to_the_input(viewing):
    """The same noisy model (same generator: the curator's stream ignores the output size)
    rendered at 1 and 8 recordings per participant: against the input's own 60 x 60 density
    the larger release is closer for every one of 4 seeds, by more than 0.05 on average
    (measured over seeds 0-7: 0.06-0.13 each; the input itself is sparse on 60 x 60, so both
    errors are high, about 0.9 and 0.85)."""
    gain = []
    for seed in range(4):
        e1 = density_error(viewing, _release(viewing, 1, seed).output)
        e8 = density_error(viewing, _release(viewing, 8, seed).output)
        gain.append(e1 - e8)
    assert min(gain) > 0, gain
    assert float(np.mean(gain)) > 0.05, gain


@pytest.mark.parametrize("name", ["vr", "mpiidpeye", "gazegraph", "gazegraph-segments",
                                  "doves"])
def test_frontier_configs_render_the_documented_output_size(name):
    cfg = load_config(CONFIGS / f"frontier-{name}.toml")
    ps = [m for m in cfg.mechanisms if m.name == "participant-synth"]
    assert ps, name
    for m in ps:
        assert m.fixed["recordings_per_participant"] == FRONTIER_RECORDINGS
