# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Randomised releases. Every mechanism is listed here, in one place, in ``MECHANISMS``.

Each entry is a :class:`~gazeprivacy.mechanisms.contract.Mechanism` declared in the ``SPEC``
block at the bottom of the module that implements it (see ``docs/architecture.md``).
"""

from gazeprivacy._registry import Registry
from gazeprivacy.mechanisms.base import protect_recordings
from gazeprivacy.mechanisms.contract import Level, Mechanism, Mode
from gazeprivacy.mechanisms.heatmaps import analytic_gaussian as hm_analytic_gaussian
from gazeprivacy.mechanisms.heatmaps import gaussian as hm_gaussian
from gazeprivacy.mechanisms.heatmaps import laplacian, noise_free, random_selection
from gazeprivacy.mechanisms.protect import build_params, protect
from gazeprivacy.mechanisms.samples import dpgazesynth, event_synth_pd, k_same_synth, kaleido
from gazeprivacy.mechanisms.series import cfpa, dcfpa, dct, fpa, lpa, steil_exponential

__all__ = ["MECHANISMS", "Level", "Mechanism", "Mode", "build_params", "names_at",
           "protect", "protect_recordings"]

MECHANISMS: Registry[Mechanism] = Registry("mechanism", {
    # name: entry  -- one line per mechanism; the entry is the module's SPEC
    "dpgazesynth": dpgazesynth.SPEC,
    "kaleido": kaleido.SPEC,
    "k-same-synth": k_same_synth.SPEC,
    "event-synth-pd": event_synth_pd.SPEC,
    "heatmap-noise-free": noise_free.SPEC,
    "heatmap-rs1": random_selection.RS1_SPEC,
    "heatmap-rs2": random_selection.RS2_SPEC,
    "heatmap-gaussian": hm_gaussian.SPEC,
    "heatmap-laplace": laplacian.SPEC,
    "heatmap-analytic-gaussian": hm_analytic_gaussian.SPEC,
    "series-lpa": lpa.SPEC,
    "series-fpa": fpa.SPEC,
    "series-dct": dct.SPEC,
    "series-cfpa": cfpa.SPEC,
    "series-dcfpa": dcfpa.SPEC,
    "series-steil-exponential": steil_exponential.SPEC,
})


def names_at(*levels: Level | str) -> tuple[str, ...]:
    """The registered names at ``levels`` (in registry order).

    >>> names_at("heatmap")[:2]
    ('heatmap-noise-free', 'heatmap-rs1')
    """
    wanted = {Level(lv) for lv in levels}
    return tuple(n for n, m in MECHANISMS.items() if m.level in wanted)
