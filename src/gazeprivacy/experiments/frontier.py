# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The frontier protocol: is a release both bounded per participant and better than a guess?

With a ``[frontier]`` table (:class:`~gazeprivacy.experiments.config.FrontierConfig`) the runner
changes what a cell measures:

1. **Split** (:func:`frontier_split`, one per seed, the same for every cell of the seed): a
   random ``holdout_fraction`` of the participants is *held out*; of every participant a
   ``probe_fraction`` of the recordings (one recording: its last ``probe_fraction`` in time) is
   kept back as the attackers' *probes* (``probes = "segments"``: the last ``probe_fraction``
   of *every* recording instead, a stronger attacker that holds part of the very recordings
   the input has). The mechanism (or baseline) sees only the training
   participants' other recordings (``fit``); the raw cell's "release" is ``fit`` itself (the
   release that copies its input: the attacks' reference).
2. **Score against the held-out participants' raw data** (:func:`frontier_metrics`):

   * ``frontier:density`` / ``frontier:density-coarse``: Jensen-Shannon density error
     (:func:`gazeprivacy.metrics.fidelity.density_error`, Ren et al. 2025, eq. 16) on the
     ``density_grid`` (60) and ``coarse_grid`` (16) square grids, with a bootstrap standard
     error over held-out participants; ``frontier:density:<label>`` the mean over the label's
     values of the error between the held-out recordings and the release's recordings of
     that value (the whole release when it does not carry the label);
   * ``<label>:tstr-frontier``: a forest trained on the release's windows (labelled by the
     release's own recording labels) classifies the held-out participants' raw windows:
     ``accuracy`` (chance: the majority share) and ``balanced_accuracy`` (chance:
     ``uniform_chance`` = 1 / classes), each with a bootstrap ``_se`` over held-out
     participants;
   * ``realism:discriminator`` and ``realism:events`` (:mod:`gazeprivacy.metrics.realism`):
     release against held-out raw data;
   * ``membership:relative-distance`` (:mod:`gazeprivacy.attacks.membership`): members are the
     training participants, non-members the held-out ones, each attacked with its probes;
   * ``<attribute>:release-attribute`` (:mod:`gazeprivacy.attacks.release_attribute`).

Nothing here reads a release's participant ids except the attacks' scoring and the window
tables' grouping; a synthetic-population release (new pseudonyms, its own lengths) is scored
like any other.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import polars as pl
from scipy.spatial.distance import jensenshannon
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import balanced_accuracy_score

from gazeprivacy.attacks.membership import membership_attack
from gazeprivacy.attacks.release_attribute import release_attribute_attack
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.events import detect_events_dataset
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.experiments.config import AttackConfig, FrontierConfig
from gazeprivacy.metrics.fidelity import gaze_density
from gazeprivacy.metrics.realism import (
    WINDOW_FEATURES,
    discriminator_auc,
    event_distances,
    saccade_table,
    window_feature_table,
)
from gazeprivacy.rng import seed_for_sklearn

__all__ = ["FrontierSplit", "first_seconds", "frontier_metrics", "frontier_preview",
           "frontier_split", "pilot_tracker", "probe_split"]

_BOOTSTRAP = 30


@dataclass(frozen=True)
class FrontierSplit:
    """The datasets of one seed's frontier split (see the module docstring)."""

    fit: Dataset
    held: Dataset
    member_probes: Dataset
    nonmember_probes: Dataset


def _slice(rec: Recording, a: int, b: int, suffix: str) -> Recording:
    return replace(rec, recording=rec.recording + suffix, t=rec.t[a:b], x=rec.x[a:b],
                   y=rec.y[a:b], pupil=None if rec.pupil is None else rec.pupil[a:b],
                   channels={k: v[a:b] for k, v in rec.channels.items()},
                   extras={k: v[a:b] for k, v in rec.extras.items()})


def _cut(rec: Recording, fraction: float) -> tuple[Recording, Recording]:
    cut = rec.n_samples - max(2, round(fraction * rec.n_samples))
    if cut < 2:
        raise InvalidDataError(f"recording {rec.recording!r} is too short to keep a probe back")
    return _slice(rec, 0, cut, ""), _slice(rec, cut, rec.n_samples, ":probe")


def first_seconds(dataset: Dataset, seconds: float | None) -> Dataset:
    """Every recording cut to its samples within ``seconds`` of its first (None: unchanged)."""
    if seconds is None:
        return dataset
    out = []
    for r in dataset.recordings:
        n = int(np.searchsorted(r.t, r.t[0] + seconds, side="left"))
        out.append(r if n >= r.n_samples else _slice(r, 0, max(n, 2), ""))
    return Dataset(tuple(out), name=dataset.name)


def pilot_tracker(fit: Dataset, k: int = 1) -> tuple[Dataset, Any]:
    """A mechanism's input without its first participant by id, and that participant's
    tracker declared (participant-synth's ``tracker``): the evaluation's stand-in for an
    experimenter's pilot recording on the study's tracker (``docs/results/frontier.md``). The
    pilot stays a member for the attacks: its tracker is in the release without noise. With
    ``k`` > 1 the first ``k`` participants leave, and their trackers are a declared
    population (a tuple: pilots on several people).

    >>> from gazeprivacy.data.simulate import simulate_dataset
    >>> ds = simulate_dataset(n_participants=3, tasks=("free-viewing",), duration_s=2.0,
    ...                       sampling_rate_hz=60, rng=np.random.default_rng(0))
    >>> rest, tracker = pilot_tracker(ds)
    >>> sorted(ds.participants)[0] in rest.participants, len(rest.participants)
    (False, 2)
    >>> rest, trackers = pilot_tracker(ds, 2)
    >>> len(rest.participants), len(trackers), trackers[1].source[:22]
    (1, 2, 'evaluation pilot 2 of ')
    """
    from gazeprivacy.mechanisms.samples.participant_synth import DeclaredTracker

    pilots = sorted(fit.participants)[:k]
    if len(fit.participants) <= k:
        raise InvalidDataError(f"{k} pilot(s) would leave no participant in the mechanism's "
                               f"input ({len(fit.participants)} in the training part)")
    trackers = tuple(DeclaredTracker.from_recordings(
        [r for r in fit.recordings if r.participant == pilot],
        source="evaluation pilot: the training part's first participant by id, left out of "
               "the input" if k == 1 else
               f"evaluation pilot {i + 1} of {k}: the training part's participant {i + 1} by "
               "id, left out of the input") for i, pilot in enumerate(pilots))
    rest = fit.select(lambda r: r.participant not in pilots)
    return rest, trackers[0] if k == 1 else trackers


def probe_split(recs: list[Recording], fraction: float, rng: np.random.Generator,
                 probes: str = "recordings") -> tuple[list[Recording], list[Recording]]:
    """(kept, probes) of one participant's recordings: whole recordings (one recording: its
    end), or with ``probes="segments"`` the last ``fraction`` of every recording."""
    if probes == "segments":
        pairs = [_cut(r, fraction) for r in recs]
        return [a for a, _ in pairs], [b for _, b in pairs]
    if len(recs) >= 2:
        k = min(len(recs) - 1, max(1, round(fraction * len(recs))))
        pick = set(rng.choice(len(recs), size=k, replace=False).tolist())
        return ([r for i, r in enumerate(recs) if i not in pick],
                [r for i, r in enumerate(recs) if i in pick])
    kept, probe = _cut(recs[0], fraction)
    return [kept], [probe]


def frontier_split(dataset: Dataset, *, rng: np.random.Generator, holdout_fraction: float,
                   probe_fraction: float, probes: str = "recordings") -> FrontierSplit:
    """Hold participants out and keep probes back (see the module docstring).

    >>> from gazeprivacy.data.simulate import simulate_dataset
    >>> ds = simulate_dataset(n_participants=6, tasks=("reading", "free-viewing"), duration_s=2.0,
    ...                       sampling_rate_hz=60, rng=np.random.default_rng(0))
    >>> s = frontier_split(ds, rng=np.random.default_rng(1), holdout_fraction=0.34,
    ...                    probe_fraction=0.5)
    >>> len(s.held.participants), len(s.fit.participants), len(s.fit), len(s.member_probes)
    (2, 4, 4, 4)
    """
    people = sorted(dataset.participants)
    n_held = min(len(people) - 2, max(1, round(holdout_fraction * len(people))))
    if n_held < 1:
        raise InvalidDataError(f"the frontier protocol needs at least 3 participants, got "
                               f"{len(people)}")
    order = rng.permutation(len(people))
    held = {people[i] for i in order[:n_held]}
    fit, m_probe, held_recs, n_probe = [], [], [], []
    for p, child in zip(people, rng.spawn(len(people)), strict=True):
        recs = [r for r in dataset.recordings if r.participant == p]
        kept, back = probe_split(recs, probe_fraction, child, probes)
        if p in held:
            held_recs += recs
            n_probe += back
        else:
            fit += kept
            m_probe += back
    name = dataset.name
    return FrontierSplit(fit=Dataset(tuple(fit), name=f"{name}:fit"),
                         held=Dataset(tuple(held_recs), name=f"{name}:held-out"),
                         member_probes=Dataset(tuple(m_probe), name=f"{name}:member-probes"),
                         nonmember_probes=Dataset(tuple(n_probe), name=f"{name}:probes"))


def _geometry(ds: Dataset) -> Geometry:
    geos = {r.geometry for r in ds.recordings if r.geometry is not None}
    if len(geos) != 1:
        raise InvalidParameterError(f"the frontier protocol needs one screen geometry; "
                                    f"{ds.name!r} has {len(geos)}")
    return geos.pop()


def _js(p: np.ndarray, q: np.ndarray) -> float:
    if p.sum() == 0 or q.sum() == 0:
        return float("nan")
    return float(jensenshannon(p.ravel(), q.ravel(), base=2.0) ** 2)


def _density(held: Dataset, release: Dataset, geo: Geometry, grid: int,
             rng: np.random.Generator) -> dict[str, float]:
    """Density error of the release against the pooled held-out data, and its bootstrap
    standard error over held-out participants (the release fixed)."""
    q = gaze_density(release, geometry=geo, grid_size=grid)
    per = {p: gaze_density(held.select(lambda r, p=p: r.participant == p), geometry=geo,
                           grid_size=grid) for p in held.participants}
    people = sorted(per)
    value = _js(sum(per.values()), q)
    reps = [_js(sum(per[people[i]] for i in rng.integers(0, len(people), len(people))), q)
            for _ in range(_BOOTSTRAP)]
    return {"density_error": value, "density_error_se": float(np.nanstd(reps, ddof=1))}


def _by_label(held: Dataset, release: Dataset, label: str, geo: Geometry, grid: int
              ) -> dict[str, float] | None:
    values = sorted({r.labels[label] for r in held.recordings if label in r.labels})
    if not values:
        return None
    carried = all(label in r.labels for r in release.recordings)
    errs = []
    for v in values:
        h = held.select(lambda r, v=v: r.labels.get(label) == v)
        rel = release.select(lambda r, v=v: r.labels.get(label) == v) if carried else release
        errs.append(_js(gaze_density(h, geometry=geo, grid_size=grid),
                        gaze_density(rel, geometry=geo, grid_size=grid)) if len(rel) else 1.0)
    return {"density_error": float(np.mean(errs)), "values": float(len(values)),
            "label_in_release": float(carried)}


def _tstr(w_held: pl.DataFrame, w_rel: pl.DataFrame, held: Dataset, release: Dataset,
          label: str, n_trees: int, rng: np.random.Generator) -> dict[str, float] | None:
    """Train on the release's windows (its own labels), test on held-out raw windows.

    ``accuracy`` (chance: ``chance``, the majority share, which a constant answer scores) and
    ``balanced_accuracy`` (the mean per-class recall, scikit-learn's; chance
    ``uniform_chance`` = 1 / classes whatever the balance), each with a bootstrap standard error
    over held-out participants (the same resamples for both).
    """
    lab_held = {r.recording: r.labels.get(label) for r in held.recordings}
    lab_rel = {r.recording: r.labels.get(label) for r in release.recordings}
    y_te = np.array([lab_held[r] for r in w_held["recording"].to_list()], dtype=object)
    y_tr = np.array([lab_rel[r] for r in w_rel["recording"].to_list()], dtype=object)
    if any(v is None for v in y_te) or len(set(y_te.tolist())) < 2:
        return None
    keep = np.array([v is not None for v in y_tr])
    x_tr = w_rel.select(WINDOW_FEATURES).to_numpy().astype(float)[keep]
    x_te = w_held.select(WINDOW_FEATURES).to_numpy().astype(float)
    _, counts = np.unique(y_te.astype(str), return_counts=True)
    chances = {"chance": float(counts.max() / counts.sum()),
               "uniform_chance": 1.0 / counts.size}
    if keep.sum() == 0 or len(set(y_tr[keep].tolist())) < 2:
        return {"accuracy": float("nan"), "balanced_accuracy": float("nan"), **chances,
                "label_in_release": 0.0}
    clf = RandomForestClassifier(n_estimators=n_trees, min_samples_leaf=3, n_jobs=1,
                                 random_state=seed_for_sklearn(rng))
    clf.fit(np.where(np.isfinite(x_tr), x_tr, np.nan), y_tr[keep].astype(str))
    truth = y_te.astype(str)
    pred = clf.predict(np.where(np.isfinite(x_te), x_te, np.nan))
    who = w_held["participant"].to_numpy().astype(str)
    people = np.unique(who)
    idx = [np.flatnonzero(who == p) for p in people]
    reps = []
    for _ in range(_BOOTSTRAP):
        i = np.concatenate([idx[j] for j in rng.integers(0, len(people), len(people))])
        reps.append((float(np.mean(pred[i] == truth[i])), _balanced(truth[i], pred[i])))
    acc, bal = np.array(reps).T
    return {"accuracy": float(np.mean(pred == truth)), "accuracy_se": float(np.std(acc, ddof=1)),
            "balanced_accuracy": _balanced(truth, pred),
            "balanced_accuracy_se": float(np.nanstd(bal, ddof=1)), **chances,
            "label_in_release": 1.0}


def _balanced(truth: np.ndarray, pred: np.ndarray) -> float:
    """Balanced accuracy over the classes present in ``truth`` (NaN with fewer than two: a
    bootstrap resample that drew one class only says nothing about balance)."""
    if np.unique(truth).size < 2:
        return float("nan")
    with warnings.catch_warnings():  # predicted classes absent from truth: not scored, by design
        warnings.simplefilter("ignore", UserWarning)
        return float(balanced_accuracy_score(truth, pred))


def _held_events(held: Dataset, memo: dict[str, Any]) -> tuple[pl.DataFrame, pl.DataFrame]:
    if "events" not in memo:
        ev = detect_events_dataset(held, method="adaptive", max_saccade_share=None)
        memo["events"] = (ev, saccade_table(held, ev))
    return memo["events"]


def _events(held: Dataset, release: Dataset, rng: np.random.Generator,
            memo: dict[str, Any]) -> dict[str, float]:
    ev_h, s_h = _held_events(held, memo)
    ev_r = detect_events_dataset(release, method="adaptive", max_saccade_share=None)
    return event_distances(ev_h, ev_r, s_h, saccade_table(release, ev_r), rng=rng,
                           n_bootstrap=_BOOTSTRAP)


def _stream(rng: np.random.Generator, name: str) -> np.random.Generator:
    seq = rng.bit_generator.seed_seq
    word = sum(ord(c) * 31 ** i for i, c in enumerate(name)) % (2 ** 31)
    return np.random.default_rng(np.random.SeedSequence(seq.entropy,
                                                        spawn_key=(*seq.spawn_key, word)))


def frontier_metrics(cfg: FrontierConfig, split: FrontierSplit, release: Dataset, *,
                     attacks: Sequence[AttackConfig], attribute_of: Mapping[str, Mapping[str, str]],
                     rng: np.random.Generator, notes: list[str],
                     memo: dict[str, Any] | None = None
                     ) -> dict[str, tuple[str, dict[str, float]]]:
    """``evaluation -> (kind, metrics)`` of ``release`` under the protocol (module docstring).

    ``attribute_of[label][participant]`` are the participants' labels (for the attribute
    attacks' scoring); ``rng`` is the seed's evaluation stream (every evaluation derives its
    own stream from it by name, so every cell of a seed meets the same folds). ``memo`` keeps
    what depends on the held-out data only (its events and windows) between the cells of one
    split: pass the same dict for the cells of one (dataset, seed).
    """
    memo = {} if memo is None else memo
    held, geo = split.held, _geometry(split.held)
    out: dict[str, tuple[str, dict[str, float]]] = {
        "frontier:density": ("fidelity", _density(held, release, geo, cfg.density_grid,
                                                  _stream(rng, "density"))),
        "frontier:density-coarse": ("fidelity", _density(held, release, geo, cfg.coarse_grid,
                                                         _stream(rng, "coarse")))}
    for label in cfg.labels:
        d = _by_label(held, release, label, geo, cfg.density_grid)
        if d is not None:
            out[f"frontier:density:{label}"] = ("fidelity", d)
    if "windows" not in memo:
        memo["windows"] = window_feature_table(held, window_s=cfg.window_s)
    w_held = memo["windows"]
    w_rel = window_feature_table(release, window_s=cfg.window_s)
    for label in cfg.labels:
        t = _tstr(w_held, w_rel, held, release, label, cfg.n_trees, _stream(rng, "tstr" + label))
        if t is None:
            notes.append(f"frontier task {label!r} skipped: label missing or constant on the "
                         "held-out participants")
        else:
            out[f"{label}:tstr-frontier"] = ("utility", t)
    disc = discriminator_auc(w_held, w_rel, rng=_stream(rng, "discriminator"),
                             n_splits=cfg.discriminator_splits)
    out["realism:discriminator"] = ("realism", disc.metrics())
    out["realism:events"] = ("realism", _events(held, release, _stream(rng, "events"), memo))
    out.update(_attack_metrics(split, release, attacks, attribute_of, rng, notes, cfg))
    return out


def _attack_metrics(split: FrontierSplit, release: Dataset, attacks: Sequence[AttackConfig],
                    attribute_of: Mapping[str, Mapping[str, str]], rng: np.random.Generator,
                    notes: list[str], cfg: FrontierConfig
                    ) -> dict[str, tuple[str, dict[str, float]]]:
    out: dict[str, tuple[str, dict[str, float]]] = {}
    for a in attacks:
        try:
            if a.kind == "membership":
                res = membership_attack(release, split.member_probes, split.nonmember_probes,
                                        window_s=cfg.window_s)
                out[a.id] = ("privacy", res.metrics())
            elif a.kind == "attribute":
                values = attribute_of.get(a.attribute or "")
                if values is None:
                    notes.append(f"attack {a.attribute}:release-attribute skipped: not every "
                                 f"recording has label {a.attribute!r}")
                    continue
                res = release_attribute_attack(
                    release, split.member_probes, split.nonmember_probes, values,
                    attribute=str(a.attribute), rng=_stream(rng, "attribute" + str(a.attribute)),
                    window_s=cfg.window_s)
                out[f"{a.attribute}:release-attribute"] = ("privacy", res.metrics())
            else:
                notes.append(f"attack {a.id} skipped: the frontier protocol runs membership and "
                             "attribute inference only")
        except InvalidDataError as exc:
            notes.append(f"attack {a.id} skipped: {exc}")
    return out


def frontier_preview(held: Dataset, release: Dataset, grid: int = 60) -> dict[str, Any]:
    """The report's preview of a frontier cell: the first held-out recording's path, the
    release's first recording's path and both density grids."""
    first, geo = held.recordings[0], _geometry(held)
    rel = release.recordings[0]
    n = m = min(first.n_samples, rel.n_samples, 1500)
    return {"t": first.t[:n], "x": first.x[:n], "y": first.y[:n],
            "bounds": np.array([geo.y_min_deg, geo.y_max_deg, geo.x_min_deg, geo.x_max_deg]),
            "density_raw": gaze_density(held, geometry=geo, grid_size=grid),
            "px": rel.x[:m], "py": rel.y[:m],
            "density_protected": gaze_density(release, geometry=geo, grid_size=grid)}
