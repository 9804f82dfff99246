# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Synthetic-population releases in the plain runner (a registry entry with
``synthetic_population``, e.g. participant-synth: new pseudonyms, its own recording counts and
lengths, only t / x / y and the public labels).

The plain protocol's raw-against-release evaluations pair a release's recordings with the
input's: re-identification scores a released recording against the input participant it came
from, the per-recording utility task and ``rmse`` / ``rss_distance`` / ``suppressed_fraction``
compare recording with recording, linkage and learned utilities align both sides. A synthetic
population has none of the input's recordings or participants, so those evaluations are **not
applicable**; the cell says so in one note each (:func:`not_applicable_notes`) instead of
scoring pseudonyms that belong to nobody. What it measures instead:

* **privacy: membership inference on a held-out split** (:func:`membership_rows`, the frontier
  protocol's attacker, :func:`gazeprivacy.attacks.membership.membership_attack`). Per seed the
  input's participants are split once (:func:`~gazeprivacy.experiments.frontier.frontier_split`
  with the frontier's default shares: 30 % held out, a third of each participant's recordings
  kept back as probes); the mechanism runs a second time, with the same parameters, on the
  training part, and the attacker tells the training participants from the held-out ones by
  their probes. The raw cell of a run with a synthetic-population mechanism gets the same
  attack on the copy of the training part (the reference: no protection). The second release
  is an evaluation device, never published: the release the report describes is the one of
  the whole input, with the same per-participant guarantee.
* **fidelity**: ``density_error`` (pooled spatial densities, :func:`density_rows`), its
  standard error a bootstrap over each side's recordings;
* **realism**: every view, the train-on-release / test-on-raw task labelling the release's
  windows with the release's own public labels
  (:func:`gazeprivacy.metrics.realism.realism_metrics` with ``synthetic=True``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from gazeprivacy.attacks.membership import membership_attack
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.experiments.config import ExperimentConfig, FrontierConfig
from gazeprivacy.experiments.engine.views import _preview
from gazeprivacy.experiments.frontier import FrontierSplit, frontier_split
from gazeprivacy.metrics.fidelity import density_error

__all__ = ["MEMBERSHIP", "density_rows", "is_synthetic", "membership_rows",
           "not_applicable_notes", "population_preview", "synthetic_in_run"]

#: the evaluation id of the held-out membership attack (the frontier protocol's)
MEMBERSHIP = "membership:relative-distance"
_SPLIT = FrontierConfig()  # the frontier's default split shares and window length
_BOOTSTRAP = 20


def is_synthetic(registry: Mapping[str, Any], mechanism: str) -> bool:
    """Whether ``mechanism``'s registry entry releases a synthetic population."""
    return bool(getattr(registry.get(mechanism), "synthetic_population", False))


def synthetic_in_run(registry: Mapping[str, Any]) -> bool:
    """Whether any mechanism of the run releases a synthetic population (then the raw cell
    gets the membership reference)."""
    return any(is_synthetic(registry, name) for name in registry)


def not_applicable_notes(config: ExperimentConfig, mechanism: str) -> list[str]:
    """One line per configured evaluation that needs the input's recordings or participants."""
    why = (f"not applicable to {mechanism}: its release is a synthetic population (new "
           "participants and recordings), so there is no input ")
    notes = [f"attack {a.id} {why}participant to re-identify behind a released recording "
             f"(the held-out membership attack stands in)" for a in config.attacks]
    notes += [f"utility {u.id} {why}recording to pair with a released one (the realism "
              "train-on-release / test-on-raw task stands in)" for u in config.utility]
    notes += [f"fidelity {m} {why}recording to compare sample by sample"
              for m in config.fidelity if m != "density_error"]
    if config.release_view is not None:
        notes.append(f"release_view {why}structure to hide: the release has its own")
    return notes


def _split(raw: Dataset, split_rng: np.random.Generator) -> FrontierSplit:
    return frontier_split(raw, rng=split_rng, holdout_fraction=_SPLIT.holdout_fraction,
                          probe_fraction=_SPLIT.probe_fraction)


def membership_rows(raw: Dataset, split_rng: np.random.Generator,
                    protect: Callable[[Dataset], Dataset] | None, notes: list[str]
                    ) -> dict[str, float]:
    """Metrics of the held-out membership attack (empty, with a note, when it cannot run).

    ``split_rng`` is the seed's split stream (the same for every cell of a seed);
    ``protect(fit)`` releases the training part (None: the raw reference, the copy of ``fit``).
    """
    try:
        split = _split(raw, split_rng)
        release = split.fit if protect is None else protect(split.fit)
        res = membership_attack(release, split.member_probes, split.nonmember_probes,
                                window_s=_SPLIT.window_s)
    except (InvalidDataError, InvalidParameterError) as exc:
        notes.append(f"attack {MEMBERSHIP} skipped: {exc}")
        return {}
    return res.metrics()


def _bootstrap(raw: Dataset, release: Dataset, n: int) -> tuple[Dataset, Dataset]:
    rng = np.random.default_rng(n)
    a = rng.integers(0, len(raw), len(raw))
    b = rng.integers(0, len(release), len(release))
    return (Dataset(tuple(replace(raw.recordings[i], recording=f"b{k}")
                          for k, i in enumerate(a))),
            Dataset(tuple(replace(release.recordings[i], recording=f"b{k}")
                          for k, i in enumerate(b))))


def density_rows(raw: Dataset, release: Dataset, notes: list[str]) -> dict[str, float]:
    """``density_error`` of the release against the raw data and its standard error (a
    bootstrap of 20 resamples, fixed seeds, over the raw and the released recordings
    independently: the two sides share no recording)."""
    geo = next((r.geometry for r in raw.recordings if r.geometry is not None), None)
    try:
        value = density_error(raw, release, geometry=geo)
        reps = [density_error(*_bootstrap(raw, release, i), geometry=geo)
                for i in range(_BOOTSTRAP)]
    except (InvalidDataError, InvalidParameterError) as exc:
        notes.append(f"fidelity density_error skipped: {exc}")
        return {}
    return {"density_error": value, "density_error_se": float(np.std(reps, ddof=1))}


def population_preview(raw: Dataset, release: Dataset) -> dict[str, Any]:
    """The report's preview: the first raw recording's path beside the release's first
    recording's (not the same person: the release has its own), and both densities on the
    same grid."""
    out = _preview(raw, None)
    rel = release.recordings[0]
    n = min(out["t"].size, rel.n_samples)
    out.update(t=out["t"][:n], x=out["x"][:n], y=out["y"][:n], px=rel.x[:n], py=rel.y[:n])
    b = out["bounds"]
    x = np.concatenate([r.x for r in release])
    y = np.concatenate([r.y for r in release])
    ok = np.isfinite(x) & np.isfinite(y)
    out["density_protected"] = np.histogram2d(
        y[ok], x[ok], bins=out["density_raw"].shape[0], range=[[b[0], b[1]], [b[2], b[3]]])[0]
    return out
