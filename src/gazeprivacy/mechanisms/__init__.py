# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Randomised releases. Every mechanism is listed here, in one place, in ``MECHANISMS``.

Each entry is a :class:`~gazeprivacy.mechanisms.contract.Mechanism` declared in the ``SPEC``
block at the bottom of the module that implements it (see ``docs/architecture.md``).
"""

from gazeprivacy._registry import Registry
from gazeprivacy.mechanisms.base import protect_recordings
from gazeprivacy.mechanisms.contract import Level, Mechanism, Mode
from gazeprivacy.mechanisms.protect import build_params, protect

__all__ = ["MECHANISMS", "Level", "Mechanism", "Mode", "build_params", "names_at",
           "protect", "protect_recordings"]

_S, _H, _T = ("gazeprivacy.mechanisms.samples.", "gazeprivacy.mechanisms.heatmaps.",
              "gazeprivacy.mechanisms.series.")
#: Each entry is imported when it is first looked up: ``protect --mechanism kaleido`` imports
#: Kaleido's module alone, ``gazeprivacy mechanisms`` all of them (issue 18).
MECHANISMS: Registry[Mechanism] = Registry.lazy("mechanism", {
    # name: "module:SPEC"  -- one line per mechanism; the entry is the module's SPEC
    "dpgazesynth": _S + "dpgazesynth:SPEC",
    "kaleido": _S + "kaleido:SPEC",
    "k-same-synth": _S + "k_same_synth:SPEC",
    "event-synth-pd": _S + "event_synth_pd:SPEC",
    "participant-synth": _S + "participant_synth:SPEC",
    "heatmap-noise-free": _H + "noise_free:SPEC",
    "heatmap-rs1": _H + "random_selection:RS1_SPEC",
    "heatmap-rs2": _H + "random_selection:RS2_SPEC",
    "heatmap-gaussian": _H + "gaussian:SPEC",
    "heatmap-laplace": _H + "laplacian:SPEC",
    "heatmap-analytic-gaussian": _H + "analytic_gaussian:SPEC",
    "series-lpa": _T + "lpa:SPEC",
    "series-fpa": _T + "fpa:SPEC",
    "series-dct": _T + "dct:SPEC",
    "series-cfpa": _T + "cfpa:SPEC",
    "series-dcfpa": _T + "dcfpa:SPEC",
    "series-steil-exponential": _T + "steil_exponential:SPEC",
})


def names_at(*levels: Level | str) -> tuple[str, ...]:
    """The registered names at ``levels`` (in registry order).

    >>> names_at("heatmap")[:2]
    ('heatmap-noise-free', 'heatmap-rs1')
    """
    wanted = {Level(lv) for lv in levels}
    return tuple(n for n, m in MECHANISMS.items() if m.level in wanted)
