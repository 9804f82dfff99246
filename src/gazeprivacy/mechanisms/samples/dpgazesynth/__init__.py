# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth: event-level epsilon-LDP semi-synthetic gaze paths (per 0.5 s window).

Ren, Fan, et al. DPGazeSynth: Enhancing eye-tracking virtual reality privacy with
differentially private data synthesis. Section 4 (Algorithm 1, Theorem 1); implemented as
SPEC section 2.

Each participant's device (client) discretises gaze onto a ``G x G`` grid, splits it into windows
of ``W`` samples and releases per window: the start point through planar Laplace
(``eps1 / r``), the run lengths ("fixation times") through the Laplace mechanism (sensitivity
``2W - 2``, ``eps2``) and its cell transitions through OUE (``eps3 / (W - 1)`` each). The curator
estimates a first-order 8-neighbour transition model from all reports and synthesises every
window (Algorithm 1). Guarantee: ``eps1 + eps2 + eps3`` per window (start points
geo-indistinguishable within ``r``), ``T x eps`` for a participant with ``T`` windows.

Deviations. *Paper mode* noises the ``m`` actual run lengths and sends ``m - 1`` OUE reports,
which releases ``m`` exactly; its proof covers only neighbours with equal ``m`` and the record
says so. *Sound mode* (default) pads the run-length series to ``W`` entries before the noise and
pads the transition reports to ``W - 1`` per window with a "no transition" symbol (domain
``8 G^2 + 1``), so ``m`` is protected. The radius default is ``3 min(H, V) / G`` (the paper's
pairs G = 60 / r = 5 %, G = 30 / r = 10 %), not eq. (8)'s ``min(H, V) / (6 G)``. The option
``transitions="one-per-window"`` (a "beyond" variant) sends one uniformly chosen transition (or
the "no transition" symbol) per window at the full ``eps3``. Rounding keeps sums by largest
remainder; a window whose noisy lengths all clip to 0 becomes one run. Missing samples: see
``missing`` (``fill`` never reaches across a window boundary). See docs/privacy/dpgazesynth.md.

Participant level (``unit="participant"``, beyond the paper, issue 15): ``epsilon`` is the
budget per participant; each participant reports ``m = windows_per_participant`` windows drawn
at random from the public shape, at ``epsilon / m`` each (basic sequential composition), and
every released window is synthesised from the population's reports
(:func:`population_windows`), one synthetic recording per input recording: with the input's
row count (public), or with ``output_length_s`` every recording ``round(output_length_s *
rate)`` rows long, so the written release does not carry the input's recording lengths.

Phases (public, shared by the in-memory run, the partition-wise engines and the auditor): the
client, one function per budget share (:func:`release_start_cells`, :func:`release_run_lengths`,
:func:`transition_values` + :func:`perturb_reports`, each with its analytic noise scale and
variance), composed by :func:`client_release`; the curator's :func:`curate` and
:func:`synthesise`.
"""

from __future__ import annotations

import warnings

import numpy as np

from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import InvalidDataError, NotFormallyPrivateWarning
from gazeprivacy.guarantees import Release
from gazeprivacy.mechanisms.contract import Level, Mechanism, Mode

# The package, one seam per module: params (parameters, W, the output length), privacy_map (the
# records), grid (cells, windows, runs: the client's data), client (one function per budget
# share), participant (unit="participant"), curator (OUE aggregate, transition model), synthesis
# (Algorithm 1), phases (the partition plan) and protocol_phases (the device protocol's side, not
# imported here). This module: the in-memory run (dpgazesynth) and the registry entry (SPEC).
from gazeprivacy.mechanisms.samples.dpgazesynth.client import (
    TRANSITION_OUE_P,
    client_release,
    noisy_run_lengths,
    noisy_start_points,
    release_run_lengths,
    release_start_cells,
    run_length_noise_scale,
    run_length_noise_variance,
    run_length_series,
    start_noise_scale,
    start_radius_variance,
    transition_estimate_variance,
    transition_oue_q,
    transition_values,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.curator import (
    TransitionModel,
    curate,
    perturb_reports,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.curator import (
    transition_model_from_estimates as transition_model_from_estimates,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.grid import (
    ClientReport,
    ClientWindows,
    client_windows,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.params import (
    OUTPUT_LENGTH_REFUSAL,
    BudgetSplit,
    DPGazeSynthParams,
    Missing,
    OUEPath,
    PrivacyUnit,
    Transitions,
    output_samples,
    window_samples,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.participant import (
    participant_windows,
    population_windows,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.phases import (
    PARTICIPANT_REFUSAL,
    DPGazeSynthPhases,
    plan,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.privacy_map import (
    _record,
    guarantee,
    shape_guarantee,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.synthesis import synthesise

__all__ = [
    "OUTPUT_LENGTH_REFUSAL",
    "PARTICIPANT_REFUSAL",
    "SPEC",
    "TRANSITION_OUE_P",
    "BudgetSplit",
    "ClientReport",
    "ClientWindows",
    "DPGazeSynthParams",
    "DPGazeSynthPhases",
    "Missing",
    "OUEPath",
    "PrivacyUnit",
    "TransitionModel",
    "Transitions",
    "client_release",
    "client_windows",
    "curate",
    "dpgazesynth",
    "dpgazesynth_recording",
    "guarantee",
    "noisy_run_lengths",
    "noisy_start_points",
    "output_samples",
    "participant_windows",
    "perturb_reports",
    "plan",
    "population_windows",
    "release_run_lengths",
    "release_start_cells",
    "run_length_noise_scale",
    "run_length_noise_variance",
    "run_length_series",
    "shape_guarantee",
    "start_noise_scale",
    "start_radius_variance",
    "synthesise",
    "transition_estimate_variance",
    "transition_oue_q",
    "transition_values",
    "window_samples",
]

#: samples per block of recordings in the in-memory run (cache-sized vectorised arrays)
_BLOCK_SAMPLES = 1 << 19


def _blocks(recs: tuple[Recording, ...]) -> list[tuple[Recording, ...]]:
    """Consecutive recordings in blocks of about ``_BLOCK_SAMPLES`` samples (at least one
    recording each)."""
    out: list[tuple[Recording, ...]] = []
    start = total = 0
    for i, r in enumerate(recs):
        total += r.n_samples
        if total >= _BLOCK_SAMPLES:
            out.append(recs[start:i + 1])
            start, total = i + 1, 0
    if start < len(recs):
        out.append(recs[start:])
    return out


def dpgazesynth(dataset: Dataset, params: DPGazeSynthParams, *, rng: np.random.Generator,
                progress: bool = False) -> Release[Dataset]:
    """Protect a dataset with DPGazeSynth (clients per recording, one curator for all).

    Parameters
    ----------
    dataset : Dataset
        Recordings with a geometry (or ``params.geometry``); any sampling rates.
    params : DPGazeSynthParams
    rng : numpy.random.Generator
        Split into independent streams for the client steps, the curator and the synthesis.
    progress : bool
        Accepted for the registry contract; the run is one vectorised pass.

    Returns
    -------
    Release[Dataset]
        Same recordings, order, row counts, timestamps and labels; synthetic ``x, y``. The record
        is per window, composed per participant over its windows. With ``output_length_s``
        (participant level) every recording has :func:`output_samples` rows on the public grid
        ``i / rate``, its labels, rate and geometry, and no other per-row column.

    Raises
    ------
    InvalidParameterError
        No geometry, or a window shorter than 2 samples.

    Examples
    --------
    >>> from gazeprivacy.data import Geometry, Recording, Dataset
    >>> geo = Geometry(x_min_deg=0, x_max_deg=10, y_min_deg=0, y_max_deg=10)
    >>> rec = Recording.from_arrays(recording="r", participant="p", x=np.linspace(1, 9, 400),
    ...                             y=np.full(400, 5.0), sampling_rate_hz=200, geometry=geo)
    >>> rel = dpgazesynth(Dataset((rec,)), DPGazeSynthParams(epsilon=2.0, grid_size=10),
    ...                   rng=np.random.default_rng(0))
    >>> rel.output[0].n_samples, rel.guarantee.per_participant["p"].epsilon
    (400, 8.0)
    """
    if len(dataset) == 0:
        raise InvalidDataError(f"dataset {dataset.name!r} has no recordings")
    for rate in {r.sampling_rate_hz for r in dataset}:
        output_samples(params, rate)  # a too short output length: refused before any work
    if params.mode == "paper":
        warnings.warn("DPGazeSynth paper mode releases the number of runs per window; see the "
                      "guarantee's flags", NotFormallyPrivateWarning, stacklevel=2)
    # Clients and synthesis run over blocks of consecutive recordings (about _BLOCK_SAMPLES
    # samples each) so the vectorised arrays stay cache-sized; the curator sums the blocks' OUE
    # column sums, which is exactly the aggregate over all clients (see perturb_reports).
    # unit="participant": one block, since each participant's m windows are drawn across all
    # of its recordings and every window is synthesised from the whole population's reports
    blocks = _blocks(dataset.recordings) if params.unit == "window" else [dataset.recordings]
    rng_clients, rng_curator, rng_synth = (r.spawn(len(blocks)) for r in rng.spawn(3))
    states = [client_release(b, params, g) for b, g in zip(blocks, rng_clients, strict=True)]
    model = curate([perturb_reports(c, params, g) for c, g in
                    zip(states, rng_curator, strict=True)], params)
    out = [r for b, c, g in zip(blocks, states, rng_synth, strict=True)
           for r in synthesise(b, c, model, params, g)]
    return Release(Dataset(tuple(out), name=dataset.name, info=dataset.info),
                   _record(dataset, params))


def dpgazesynth_recording(recording: Recording, params: DPGazeSynthParams, *,
                          rng: np.random.Generator) -> Release[Recording]:
    """DPGazeSynth on one recording whose own reports are the curator's whole input."""
    rel = dpgazesynth(Dataset((recording,), name=recording.recording), params, rng=rng)
    return Release(rel.output[0], rel.guarantee)


def _example(mode: Mode) -> tuple[Dataset, DPGazeSynthParams] | None:
    from gazeprivacy.mechanisms.base import example_dataset

    if mode is Mode.BASELINE:
        return None
    return example_dataset(), DPGazeSynthParams(epsilon=2.0, grid_size=10, mode=mode)


SPEC = Mechanism(
    name="dpgazesynth", level=Level.SAMPLES, params_type=DPGazeSynthParams, run=dpgazesynth,
    guarantee=shape_guarantee, plan=plan, example=_example,
    summary="local-DP semi-synthetic gaze paths: noisy start cells, run lengths and an OUE "
            "transition model per 0.5 s window (epsilon-LDP per window)",
    citation="Ren, Fan et al., DPGazeSynth, section 4",
)
