# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Print the privacy-audit table (Markdown) for every mechanism and mode that has an adapter.

Usage::

    PYTHONPATH=src python scripts/audit_table.py --trials 20000 --seed 8 > table.md
    PYTHONPATH=src python scripts/audit_table.py --trials 4000 --only laplace --only kaleido
    PYTHONPATH=src python scripts/audit_table.py --trials 20000 --mode sound  # the gate's modes

``--mode sound`` audits each adapter in sound mode, or in its only mode when it has no sound mode
(the heatmap baselines). Whole-release adapters (``NAME-release``) use their own default number
of releases unless ``--release-trials`` is given.

The seed is fixed by default so that the table in ``docs/audit.md`` can be reproduced (a
research run); the random pair search is on.
"""

from __future__ import annotations

import argparse
import sys
import time

from gazeprivacy.audit.adapters import ADAPTERS, audit_mechanism, available_adapters, markdown_table
from gazeprivacy.rng import make_rng


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=20_000, help="draws per input (confirmation)")
    ap.add_argument("--seed", type=int, default=8, help="seed of the research run")
    ap.add_argument("--confidence", type=float, default=0.99)
    ap.add_argument("--only", action="append", default=None, help="restrict to these adapters")
    ap.add_argument("--mode", default=None, help="audit only this mode (an adapter without it: "
                                                 "its own modes)")
    ap.add_argument("--release-trials", type=int, default=None,
                    help="releases per dataset for NAME-release (default: the adapter's)")
    args = ap.parse_args(argv)
    names = args.only or available_adapters()
    rng = make_rng(args.seed)
    audits = []
    jobs = [(n, m) for n in names for m in ADAPTERS[n].modes
            if args.mode is None or m == args.mode or args.mode not in ADAPTERS[n].modes]
    for (name, mode), child in zip(jobs, rng.spawn(len(jobs)), strict=True):
        t0 = time.perf_counter()
        trials = args.trials if ADAPTERS[name].kind == "unit" else (
            args.release_trials or ADAPTERS[name].default_trials)
        a = audit_mechanism(name, mode=mode, n_trials=trials, rng=child,
                            confidence=args.confidence)
        print(f"{name} [{mode}]: {a.row()['verdict']} in {time.perf_counter() - t0:.1f} s",
              file=sys.stderr)
        audits.append(a)
    print(f"Audit at {args.confidence:.0%} confidence, {args.trials} draws per input in the "
          f"confirmation run, seed {args.seed}.\n")
    print(markdown_table(audits))
    missing = sorted(set(ADAPTERS) - set(names))
    if missing and not args.only:
        print(f"\nNot audited in this build (mechanism not installed): {', '.join(missing)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
