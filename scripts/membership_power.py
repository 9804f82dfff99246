# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""How many participants does the frontier's membership verdict need to certify a release?

The pooled verdict (:func:`gazeprivacy.report.membership.pooled_membership`) certifies a target
when the upper end of its 95 % participant-bootstrap interval is at or under it (AUC <= 0.6,
TPR - FPR <= 0.1). This script feeds it the scores of a release that carries **nothing** about
its members (every candidate's score an independent draw, plus a per-person typicality that is
the same whether the person is in or out), in the frontier protocol's design: ``--seeds``
seeds, ``--folds`` folds per seed, each participant out once per seed. It prints, per number of
participants n, the mean upper ends of both intervals over ``--reps`` simulated runs and the
share of runs that certify each target. A measured release cannot do better than this null: a
target this null does not certify at n is out of reach of every mechanism at that n, however
private (``docs/privacy/limits.md``, "Membership").

``--shift d`` gives members' scores a shift of d standard deviations instead (a leaking release;
AUC about Phi(d / sqrt 2)), to see at which n a given leak is refuted.

Run::

    PYTHONPATH=src python scripts/membership_power.py --n 8 16 29 60 120 240
"""

from __future__ import annotations

import argparse

import numpy as np
import polars as pl

from gazeprivacy.report.membership import pooled_membership

__all__ = ["main", "null_scores"]


def null_scores(n: int, *, seeds: int, folds: int, shift: float, typicality: float,
                rng: np.random.Generator) -> pl.DataFrame:
    """One simulated run's fold scores (the columns :func:`pooled_membership` reads): per seed
    the n participants permuted and cut into ``folds`` groups, each group out in one fold."""
    person = typicality * rng.standard_normal(n)
    rows: dict[str, list] = {k: [] for k in ("seed", "fold", "participant", "member", "score")}
    for s in range(seeds):
        groups = np.array_split(rng.permutation(n), folds)
        for f, group in enumerate(groups):
            out = np.zeros(n, dtype=bool)
            out[group] = True
            score = person + rng.standard_normal(n) + shift * ~out
            rows["seed"] += [s] * n
            rows["fold"] += [f] * n
            rows["participant"] += [f"p{i:03d}" for i in range(n)]
            rows["member"] += (~out).tolist()
            rows["score"] += score.tolist()
    return pl.DataFrame(rows).with_columns(dataset=pl.lit("sim"), mechanism=pl.lit("null"),
                                           parameters=pl.lit("{}"))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="*", default=[8, 16, 29, 60, 120, 240])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--folds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--shift", type=float, default=0.0)
    ap.add_argument("--typicality", type=float, default=0.5,
                    help="sd of a per-person score offset shared by its in and out games")
    ap.add_argument("--bootstrap", type=int, default=1000)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    print(f"{args.seeds} seeds x {args.folds} folds, shift {args.shift:g}, {args.reps} runs each")
    print("n".rjust(5) + "auc_high".rjust(10) + "P(auc<=0.6)".rjust(13)
          + "adv_high".rjust(10) + "P(adv<=0.1)".rjust(13))
    for n in args.n:
        tabs = [pooled_membership(null_scores(n, seeds=args.seeds, folds=args.folds,
                                              shift=args.shift, typicality=args.typicality,
                                              rng=rng),
                                  rng=rng, n_bootstrap=args.bootstrap)
                for _ in range(args.reps)]
        t = pl.concat(tabs)
        print(f"{n:5d}{t['auc_high'].mean():10.3f}"
              f"{(t['auc_verdict'] == 'certified').mean():13.2f}"
              f"{t['advantage_high'].mean():10.3f}"
              f"{(t['advantage_verdict'] == 'certified').mean():13.2f}", flush=True)


if __name__ == "__main__":
    main()
