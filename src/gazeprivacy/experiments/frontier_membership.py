# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The frontier's pooled membership measurement: every participant a candidate several times.

One split of 8-29 participants gives the membership attack 3-9 non-members: far too few to
certify an AUC of at most 0.6. Under ``[frontier] membership_folds = K`` every cell also plays
the membership game on K *folds* of its seed (:func:`membership_folds`): the participants are
permuted once per seed and cut into K groups of nearly equal size; in fold k group k is out
(non-members) and the others are in (members). The cell's release is **regenerated for every
fold** from that fold's members' kept recordings (the raw cell: the kept recordings themselves),
and the attack (:func:`gazeprivacy.attacks.membership.membership_attack`) scores every candidate
with its probes (``membership_probes``: ``"segments"`` keeps back the last ``probe_fraction`` of
every recording, the attacker that catches a copy of the input; ``"recordings"`` whole
recordings, as the main split). Over a seed each participant is a non-member exactly once and a
member K - 1 times, so the members' and the non-members' scores mix the same people in the same
shares: a person's typicality cannot pass for membership.

:func:`fold_scores` returns one row per (fold, candidate); the runner keeps them per cell in
``membership/<cell>.parquet`` and :func:`gazeprivacy.report.membership.pooled_membership` pools
them over folds and seeds (AUC, TPR - FPR, bootstrap over participants, the certificate).

The attribute attack (:mod:`gazeprivacy.attacks.release_attribute`: a forest trained on the
release's labels of an attribute not declared public) plays on the **same fold releases** (the
runner generates each once and hands it to both attacks): :func:`fold_attribute_guesses`
returns one row per (fold, candidate) with the attacker's answer, scored from the candidate's
probes (never the recordings the release was fitted on); the runner keeps them in
``attribute/<cell>.parquet`` and :func:`gazeprivacy.report.attribute.pooled_attribute` pools
the members' answers over folds and seeds against the majority share.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import polars as pl

from gazeprivacy.attacks.membership import VIEWS, membership_attack
from gazeprivacy.attacks.release_attribute import release_attribute_guesses
from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidDataError
from gazeprivacy.experiments.frontier import FrontierSplit, probe_split

__all__ = ["ATTRIBUTE_SCHEMA", "SCORE_SCHEMA", "fold_attribute_guesses", "fold_scores",
           "membership_folds"]

#: one row per (fold, candidate) of a cell
SCORE_SCHEMA = {"fold": pl.Int64, "participant": pl.String, "member": pl.Boolean,
                "score": pl.Float64}

#: one row per (fold, candidate) of a cell's attribute attack: the true value, the attacker's
#: answer, and whether the fold's release carried the attribute (else the answer is the
#: members' majority value)
ATTRIBUTE_SCHEMA = {"fold": pl.Int64, "attribute": pl.String, "participant": pl.String,
                    "member": pl.Boolean, "value": pl.String, "guess": pl.String,
                    "carried": pl.Boolean}


def membership_folds(dataset: Dataset, *, rng: np.random.Generator, n_folds: int,
                     probe_fraction: float, probes: str) -> list[FrontierSplit]:
    """The K folds of one seed (module docstring): ``fit`` the members' kept recordings,
    ``held`` the non-members' whole recordings, and both sides' probes.

    >>> from gazeprivacy.data.simulate import simulate_dataset
    >>> ds = simulate_dataset(n_participants=7, tasks=("reading",), duration_s=3.0,
    ...                       sampling_rate_hz=60, rng=np.random.default_rng(0))
    >>> folds = membership_folds(ds, rng=np.random.default_rng(1), n_folds=3,
    ...                          probe_fraction=0.34, probes="segments")
    >>> [len(f.held.participants) for f in folds], sorted(
    ...     p for f in folds for p in f.nonmember_probes.participants) == sorted(ds.participants)
    ([3, 2, 2], True)
    """
    people = sorted(dataset.participants)
    if isinstance(n_folds, bool) or not isinstance(n_folds, int) or n_folds < 2:
        raise InvalidDataError(f"membership_folds must be an integer >= 2, got {n_folds!r}")
    if len(people) < n_folds + 1 or len(people) - len(people) // n_folds < 2:
        raise InvalidDataError(f"{n_folds} membership folds need at least {n_folds + 1} "
                               f"participants (2 members per fold), got {len(people)}")
    groups = np.array_split(rng.permutation(len(people)), n_folds)
    kept, back = {}, {}
    for p, child in zip(people, rng.spawn(len(people)), strict=True):
        recs = [r for r in dataset.recordings if r.participant == p]
        kept[p], back[p] = probe_split(recs, probe_fraction, child, probes)
    name, out = dataset.name, []
    for group in groups:
        out_of = {people[i] for i in group}
        ins = [p for p in people if p not in out_of]
        out.append(FrontierSplit(
            fit=Dataset(tuple(r for p in ins for r in kept[p]), name=f"{name}:fit"),
            held=Dataset(tuple(r for r in dataset.recordings if r.participant in out_of),
                         name=f"{name}:held-out"),
            member_probes=Dataset(tuple(r for p in ins for r in back[p]),
                                  name=f"{name}:member-probes"),
            nonmember_probes=Dataset(tuple(r for p in sorted(out_of) for r in back[p]),
                                     name=f"{name}:probes")))
    return out


def fold_scores(split: FrontierSplit, release: Dataset, *, fold: int, window_s: float,
                views: tuple[str, ...] = VIEWS) -> pl.DataFrame:
    """Every candidate's membership score against ``release`` (:data:`SCORE_SCHEMA`; ``views``
    of the attacker: :data:`gazeprivacy.attacks.membership.VIEWS`, both by default)."""
    res = membership_attack(release, split.member_probes, split.nonmember_probes,
                            window_s=window_s, views=views)
    n = len(res.candidates)
    return pl.DataFrame({"fold": [fold] * n, "participant": list(res.candidates),
                         "member": [i < res.n_members for i in range(n)],
                         "score": list(res.scores)}, schema=SCORE_SCHEMA)


def fold_attribute_guesses(split: FrontierSplit, release: Dataset,
                           attribute_of: Mapping[str, str], *, attribute: str, fold: int,
                           rng: np.random.Generator, window_s: float) -> pl.DataFrame:
    """Every candidate's answer of the release-trained attribute attacker
    (:data:`ATTRIBUTE_SCHEMA`): the members attacked with their probes, the non-members with
    theirs (:func:`gazeprivacy.attacks.release_attribute.release_attribute_guesses`).

    Raises
    ------
    InvalidDataError
        A candidate has no value, the members hold fewer than 2 values, or a probe recording is
        in the release (the attacker must score recordings the release was not fitted on).
    """
    fitted = {r.recording for r in split.fit} | {r.recording for r in release}
    if any(r.recording in fitted for r in (*split.member_probes, *split.nonmember_probes)):
        raise InvalidDataError("attribute folds: a probe recording is in the release's input")
    g = release_attribute_guesses(release, split.member_probes, split.nonmember_probes,
                                  attribute_of, attribute=attribute, rng=rng, window_s=window_s)
    who = [*g.members, *g.nonmembers]
    return pl.DataFrame({"fold": [fold] * len(who), "attribute": [attribute] * len(who),
                         "participant": who, "member": [p in set(g.members) for p in who],
                         "value": [str(attribute_of[p]) for p in who],
                         "guess": [str(g.guess[p]) for p in who],
                         "carried": [g.carried] * len(who)}, schema=ATTRIBUTE_SCHEMA)
