# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Membership inference against a release: was participant P in the mechanism's input?

A synthetic-population release (e.g. participant-synth) writes pseudonyms that belong to no real
person, so re-identification ("which participant is this pseudonym?") has no ground truth. The
question a participant-level guarantee answers is membership: an (epsilon, delta)-DP release
bounds any attacker's true-positive rate by ``e^epsilon * FPR + delta`` (Kairouz, Oh &
Viswanath, ICML 2015), so its ROC curve must stay near the diagonal at small epsilon.

**Attacker** (a distance attacker in the style of the "distance to closest record" tests of
synthetic-data evaluation, Stadler, Oprisanu & Troncoso, USENIX Security 2022; calibrated by a
reference population as in Carlini et al.'s likelihood-ratio attack, S&P 2022). The attacker
holds the release and, for each candidate P, *other* recordings of P (its probes: recordings
that were not in the mechanism's input). It looks through two views (:data:`VIEWS`):

* ``profile``: every recording described by a profile (:func:`recording_profiles`: a coarse
  spatial histogram, Hellinger-transformed, and per-recording medians of the kinematic window
  features of :mod:`gazeprivacy.metrics.realism`), standardised on the pooled profiles it
  holds; per probe ``log(d_ref / d_rel)``, where ``d_rel`` is the distance to the closest
  release record and ``d_ref`` the distance to the closest probe of another candidate (how
  typical P is anyway); P's score is its best probe's;
* ``signature`` (:mod:`gazeprivacy.attacks.membership_signature`): how a person moves -- speed,
  acceleration, noise, fast-run and spectral percentiles and the gaze position's percentiles of
  every recording, weighted by how well they tell the candidates apart on their own probes,
  averaged per person (P's probes; a release participant's recordings); the same
  ``log(d_ref / d_rel)`` between people.

The score is the sum of the two views' scores, each standardised over the game's candidates
(centred, divided by its standard deviation; no membership read): a fixed attacker, not the
better view chosen after seeing the answers. The profile view catches copies where people look
at different places (GazeGraph, MPIIDPEye); on free viewing of shared images (DOVES) where a
recording looks is the image's, and only the signature view catches a copy.
A release that copies its input puts a record of each member near the member's other recordings
(score high); a data-free release is as far from members as from non-members (AUC 0.5 in
expectation).

**Scores.** ``auc`` (members positive), its Hanley & McNeil (1982) standard error ``auc_se``,
``advantage`` = max over thresholds of TPR - FPR, and ``accuracy`` = (1 + advantage) / 2 beside
``chance`` = 0.5 (so the report's strongest-attack ratio covers it). With few candidates the
AUC of a null release spreads widely (SE about 0.1 with 10 members and 10 non-members): read the
standard error, and average over seeds.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.metrics import roc_curve

from gazeprivacy.attacks.membership_signature import signature_profiles, signature_scores
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.metrics.realism import WINDOW_FEATURES, window_feature_table

__all__ = ["VIEWS", "MembershipResult", "hanley_mcneil_se", "membership_attack",
           "profile_geometry", "recording_profiles", "standardise"]

_GRID = (6, 4)  # profile histogram cells (x, y): coarse, so a short recording fills it
_KINEMATIC = WINDOW_FEATURES


def profile_geometry(*datasets: Dataset) -> Geometry:
    for ds in datasets:
        for r in ds.recordings:
            if r.geometry is not None:
                return r.geometry
    raise InvalidDataError("membership / attribute profiles need a screen geometry; give the "
                           "datasets a Geometry")


def recording_profiles(dataset: Dataset, *, geometry: Geometry,
                       window_s: float = 1.0) -> tuple[np.ndarray, list[str], list[str]]:
    """One profile vector per recording: the square root of the share of its on-screen samples
    in each cell of a 6 x 4 grid over ``geometry`` (Hellinger coordinates), then the medians of
    its 1-s window kinematic features. Returns ``(matrix, recording ids, participant ids)``.

    >>> from gazeprivacy.data.simulate import simulate_dataset
    >>> ds = simulate_dataset(n_participants=2, tasks="reading", duration_s=3.0,
    ...                       sampling_rate_hz=60, rng=np.random.default_rng(0))
    >>> X, recs, who = recording_profiles(ds, geometry=ds.recordings[0].geometry)
    >>> X.shape[0] == len(ds), X.shape[1] == 24 + len(_KINEMATIC)
    (True, True)
    """
    wins = window_feature_table(dataset, window_s=window_s)
    rows, recs, who = [], [], []
    for rec in dataset.recordings:
        on = geometry.contains(rec.x, rec.y)
        h, _, _ = np.histogram2d(rec.x[on], rec.y[on], bins=_GRID,
                                 range=[[geometry.x_min_deg, geometry.x_max_deg],
                                        [geometry.y_min_deg, geometry.y_max_deg]])
        h = h.ravel() / max(h.sum(), 1.0)
        w = wins.filter(wins["recording"] == rec.recording).select(_KINEMATIC).to_numpy()
        with warnings.catch_warnings():  # a recording with no valid window: NaN medians
            warnings.simplefilter("ignore", RuntimeWarning)
            kin = (np.nanmedian(w.astype(np.float64), axis=0) if w.size
                   else np.full(len(_KINEMATIC), np.nan))
        rows.append(np.r_[np.sqrt(h), kin])
        recs.append(rec.recording)
        who.append(rec.participant)
    return np.vstack(rows), recs, who


def standardise(*blocks: np.ndarray) -> list[np.ndarray]:
    """The blocks scaled by the pooled mean and standard deviation of their columns (NaN -> 0,
    constant columns -> 0): the attacker's own normalisation of what it holds."""
    pooled = np.vstack(blocks)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mu = np.nanmean(pooled, axis=0)
        sd = np.nanstd(pooled, axis=0)
    mu = np.where(np.isfinite(mu), mu, 0.0)
    sd = np.where(np.isfinite(sd) & (sd > 0), sd, np.inf)
    return [np.nan_to_num((b - mu) / sd, nan=0.0) for b in blocks]


@dataclass(frozen=True)
class MembershipResult:
    """Membership scores of the candidates (members positive) and their summary.

    ``candidates`` and ``scores``: every candidate's participant id and score, the
    ``n_members`` members first (what a pooled measurement over several releases needs,
    :mod:`gazeprivacy.report.membership`)."""

    auc: float
    auc_se: float
    advantage: float
    n_members: int
    n_nonmembers: int
    candidates: tuple[str, ...] = ()
    scores: tuple[float, ...] = ()

    def metrics(self) -> dict[str, float]:
        return {"auc": self.auc, "auc_se": self.auc_se, "advantage": self.advantage,
                "accuracy": (1.0 + self.advantage) / 2.0, "chance": 0.5,
                "n_members": float(self.n_members), "n_nonmembers": float(self.n_nonmembers)}


def hanley_mcneil_se(auc: float, n_pos: int, n_neg: int) -> float:
    """Standard error of an AUC (Hanley & McNeil, Radiology 1982, eq. 2).

    >>> round(hanley_mcneil_se(0.5, 10, 10), 3)
    0.132
    """
    q1, q2 = auc / (2 - auc), 2 * auc ** 2 / (1 + auc)
    var = (auc * (1 - auc) + (n_pos - 1) * (q1 - auc ** 2)
           + (n_neg - 1) * (q2 - auc ** 2)) / (n_pos * n_neg)
    return float(np.sqrt(max(var, 0.0)))


def _auc(y: np.ndarray, s: np.ndarray) -> float:
    from scipy.stats import rankdata

    r = rankdata(s)
    n1, n0 = int(y.sum()), int((1 - y).sum())
    return float((r[y == 1].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


VIEWS = ("profile", "signature")


def _z(score: np.ndarray) -> np.ndarray:
    """A view's scores centred and scaled over the candidates of the game (no labels read)."""
    sd = score.std()
    return (score - score.mean()) / (sd if sd > 0 else 1.0)


def _profile_scores(release: Dataset, member_probes: Dataset, nonmember_probes: Dataset,
                    geo: Geometry, window_s: float, cands: list[str]) -> np.ndarray:
    """The profile view: per probe recording ``log(d_ref / d_rel)``, a candidate's best probe."""
    x_rel, _, _ = recording_profiles(release, geometry=geo, window_s=window_s)
    x_m, _, who_m = recording_profiles(member_probes, geometry=geo, window_s=window_s)
    x_n, _, who_n = recording_profiles(nonmember_probes, geometry=geo, window_s=window_s)
    x_rel, x_m, x_n = standardise(x_rel, x_m, x_n)
    probes = np.vstack([x_m, x_n])
    who = np.array(who_m + who_n, dtype=object)
    d_rel = np.sqrt(((probes[:, None, :] - x_rel[None, :, :]) ** 2).sum(-1)).min(axis=1)
    d_all = np.sqrt(((probes[:, None, :] - probes[None, :, :]) ** 2).sum(-1))
    d_all[who[:, None] == who[None, :]] = np.inf  # the reference: other candidates only
    d_ref = d_all.min(axis=1)
    eps = 1e-9
    score_rec = np.log((d_ref + eps) / (d_rel + eps))
    return np.array([score_rec[who == p].max() for p in cands])


def _signature_view(release: Dataset, member_probes: Dataset, nonmember_probes: Dataset,
                    cands: list[str]) -> np.ndarray:
    """The signature view (:mod:`gazeprivacy.attacks.membership_signature`)."""
    x_rel, who_rel = signature_profiles(release)
    x_m, who_m = signature_profiles(member_probes)
    x_n, who_n = signature_profiles(nonmember_probes)
    x_rel, x_m, x_n = standardise(x_rel, x_m, x_n)
    return signature_scores(x_rel, who_rel, np.vstack([x_m, x_n]), who_m + who_n, cands)


def membership_attack(release: Dataset, member_probes: Dataset, nonmember_probes: Dataset, *,
                      window_s: float = 1.0,
                      views: tuple[str, ...] = VIEWS) -> MembershipResult:
    """The relative-distance membership attack (see the module docstring).

    Parameters
    ----------
    release : Dataset
        What the mechanism wrote from an input that held the members (and not the non-members).
    member_probes, nonmember_probes : Dataset
        Recordings of the candidates that were *not* in the input, grouped by ``participant``.
    window_s : float
        Window of the kinematic profile features.
    views : tuple of str
        The views whose standardised scores are summed (:data:`VIEWS`; the attacker is both,
        a fixed sum, never a choice made on the answers; one view alone for measuring it).

    Returns
    -------
    MembershipResult

    Raises
    ------
    InvalidDataError
        No member or no non-member, fewer than 3 candidates, no screen geometry, or an unknown
        view.
    """
    geo = profile_geometry(member_probes, nonmember_probes, release)
    members = sorted(set(member_probes.participants))
    others = sorted(set(nonmember_probes.participants))
    if not members or not others or len(members) + len(others) < 3:
        raise InvalidDataError(f"membership inference needs members and non-members (at least "
                               f"3 candidates), got {len(members)} and {len(others)}")
    if not views or any(v not in VIEWS for v in views):
        raise InvalidDataError(f"membership views must be some of {list(VIEWS)}, got {views!r}")
    cands = members + others
    score = np.zeros(len(cands))
    if "profile" in views:
        score += _z(_profile_scores(release, member_probes, nonmember_probes, geo, window_s,
                                    cands))
    if "signature" in views:
        score += _z(_signature_view(release, member_probes, nonmember_probes, cands))
    y = np.r_[np.ones(len(members)), np.zeros(len(others))].astype(int)
    auc = _auc(y, score)
    fpr, tpr, _ = roc_curve(y, score)
    return MembershipResult(auc=auc, auc_se=hanley_mcneil_se(auc, len(members), len(others)),
                            advantage=float(np.max(tpr - fpr)), n_members=len(members),
                            n_nonmembers=len(others), candidates=tuple(cands),
                            scores=tuple(float(v) for v in score))
