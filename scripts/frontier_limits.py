# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Where the privacy floor sits against the centre-Gaussian prior, per dataset and grid.

For each dataset (the frontier configs' selections) and each square grid of g x g cells over the
screen, prints:

* ``n`` participants and ``n_fit`` (after holding 30 % out, as the frontier configs do);
* ``prior``: the Jensen-Shannon density error (base 2, Ren et al. 2025, eq. 16) of the data-free
  centre Gaussian N(centre, (W/6, H/6)) (clipped to the screen) against the held-out
  participants' data (every number: the mean over 20 random splits holding 30 % out);
* ``split``: the error of the training participants' raw data against the held-out ones':
  what a release without any noise scores under the frontier protocol
  (when it is above ``prior``, *no* release fitted on these participants beats the prior at
  this grid, private or not);
* per epsilon (delta 1e-6; rho the largest with that (epsilon, delta), Canonne, Kamath &
  Steinke 2020): ``gauss``, the expected error of the participant-level Gaussian histogram
  (each participant's normalised histogram, sum + N(0, 1/rho) per cell, i.e. L2 sensitivity
  sqrt(2) under replace-one, clipped at 0 and renormalised) against the held-out data;
  ``shrunk``, the same histogram mixed with the prior at the *oracle* weight (the best mixture
  for this dataset: an optimistic floor for "histogram + prior" mechanisms of this grid); and
  ``keep``, the two-point lower bound of docs/privacy/limits.md around the prior: on inputs as
  far from the prior as this data (L1 distance ``prior_l1``), some input makes every
  mechanism's L1 error at least ``keep`` times the prior's (0: the bound does not bind).

Run:  PYTHONPATH=src python scripts/frontier_limits.py [--data DIR] [--grids 2 4 8 16 60]
"""

from __future__ import annotations

import argparse
import math
import os

import numpy as np
from scipy.optimize import brentq
from scipy.spatial.distance import jensenshannon

__all__ = ["epsilon_to_rho", "keep_share", "main", "two_point_l1"]

EPSILONS = (1.0, 3.0, 10.0)
DELTA = 1e-6
_DOVES_IMAGES = list(range(1, 101, 8))
DATASETS = {  # name -> (loader, options): the frontier configs' selections
    "DOVES": ("doves", {"images": _DOVES_IMAGES}),
    "MPIIDPEye": ("mpiidpeye", {}),
    "VR": ("vr_selfcalib_office_supermarket", {}),
    "GazeGraph": ("gazegraph_desktop_activity", {}),
}


def _cks_log_delta(rho: float, eps: float) -> float:
    """log of the delta of rho-zCDP at eps (Canonne, Kamath & Steinke 2020, Proposition 12):
    inf over a > 1 of (a - 1)(a rho - eps) - log(a - 1) + a log(1 - 1/a)."""
    a = np.exp(np.linspace(np.log(1.0001), np.log(1e5), 20000))
    return float(np.min((a - 1) * (a * rho - eps) - np.log(a - 1) + a * np.log1p(-1 / a)))


def epsilon_to_rho(eps: float, delta: float) -> float:
    """The largest rho whose conversion at ``delta`` is at most ``eps`` (the library's
    :func:`gazeprivacy.accounting.zcdp.epsilon_to_rho` when it exists)."""
    try:
        from gazeprivacy.accounting.zcdp import epsilon_to_rho as lib
    except ImportError:
        return float(brentq(lambda r: _cks_log_delta(r, eps) - math.log(delta), 1e-9, eps))
    return float(lib(eps, delta))


def two_point_l1(n: int, rho: float) -> float:
    """max over m of (m / n)(1 - m sqrt(rho / 2)): Le Cam with zCDP group privacy (limits.md)."""
    best = 0.0
    for m in range(1, n + 1):
        best = max(best, (m / n) * (1 - m * math.sqrt(rho / 2)))
    return best


def keep_share(n: int, r: float, rho: float) -> float:
    """The two-point bound around a prior: on inputs at L1 distance r from it, some input makes
    every rho-zCDP mechanism's expected L1 error at least this share of r (limits.md, 2a):
    1 - m sqrt(rho / 2) with m = round(n r) participants moved (at least 1), floored at 0."""
    m = max(1, round(n * min(r, 1.0)))
    return max(0.0, 1 - m * math.sqrt(rho / 2))


def _hist(x: np.ndarray, y: np.ndarray, geo, g: int) -> np.ndarray:
    ok = np.isfinite(x) & np.isfinite(y) & geo.contains(x, y)
    h, _, _ = np.histogram2d(y[ok], x[ok], bins=g, range=[[geo.y_min_deg, geo.y_max_deg],
                                                         [geo.x_min_deg, geo.x_max_deg]])
    return h.ravel()


def _js(p: np.ndarray, q: np.ndarray) -> float:
    return float(jensenshannon(p, q, base=2.0) ** 2)


def _prior(geo, g: int, rng: np.random.Generator) -> np.ndarray:
    n = 2_000_000
    cx, cy = (geo.x_min_deg + geo.x_max_deg) / 2, (geo.y_min_deg + geo.y_max_deg) / 2
    x = np.clip(rng.normal(cx, geo.width_deg / 6, n), geo.x_min_deg, geo.x_max_deg)
    y = np.clip(rng.normal(cy, geo.height_deg / 6, n), geo.y_min_deg, geo.y_max_deg)
    h = _hist(x, y, geo, g)
    return h / h.sum()


def _per_participant(ds, geo, g: int) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Participants, their sample-count histograms and their normalised histograms."""
    people = sorted(ds.participants)
    counts = []
    for p in people:
        recs = [r for r in ds.recordings if r.participant == p]
        counts.append(_hist(np.concatenate([r.x for r in recs]),
                            np.concatenate([r.y for r in recs]), geo, g))
    c = np.array(counts)
    return people, c, c / np.maximum(c.sum(axis=1, keepdims=True), 1)


def _row(name: str, ds, g: int, rng: np.random.Generator, draws: int = 20) -> dict:
    """One table row; every number is the mean over ``draws`` random splits (30 % held out),
    scored against the held-out participants' pooled samples, as in the frontier protocol."""
    geo = ds.recordings[0].geometry
    _, counts, norm = _per_participant(ds, geo, g)
    n = len(norm)
    n_fit = n - max(1, round(0.3 * n))
    prior = _prior(geo, g, rng)
    rhos = {eps: epsilon_to_rho(eps, DELTA) for eps in EPSILONS}
    acc: dict[str, list[float]] = {}
    for _ in range(draws):
        perm = rng.permutation(n)
        fit, held = perm[:n_fit], counts[perm[n_fit:]].sum(0)
        acc.setdefault("prior", []).append(_js(held, prior))
        acc.setdefault("prior_l1", []).append(float(np.abs(held / held.sum() - prior).sum()))
        acc.setdefault("split", []).append(_js(counts[fit].sum(0), held))
        mean = norm[fit].sum(axis=0)
        for eps, rho in rhos.items():
            noisy = np.clip(mean + rng.normal(0, 1 / math.sqrt(rho), mean.size), 0, None)
            est = noisy / noisy.sum() if noisy.sum() > 0 else np.full(mean.size, 1 / mean.size)
            acc.setdefault(f"gauss@{eps:g}", []).append(_js(held, est))
            acc.setdefault(f"shrunk@{eps:g}", []).append(
                min(_js(held, w * est + (1 - w) * prior) for w in np.linspace(0, 1, 21)))
    out = {"dataset": name, "grid": g, "k": g * g, "n": n, "n_fit": n_fit,
           **{k: float(np.mean(v)) for k, v in acc.items()}}
    for eps, rho in rhos.items():
        out[f"lb@{eps:g}"] = two_point_l1(n_fit, rho) ** 2 / (8 * math.log(2))
        out[f"keep@{eps:g}"] = keep_share(n_fit, out["prior_l1"], rho)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.environ.get("GAZEPRIVACY_DATA", "/work/shared/data"))
    ap.add_argument("--grids", type=int, nargs="+", default=[2, 4, 8, 16, 60])
    args = ap.parse_args(argv)
    os.environ["GAZEPRIVACY_DATA"] = args.data
    from gazeprivacy.data.loaders import load

    for eps in EPSILONS:
        print(f"epsilon {eps:g}, delta {DELTA:g}: rho = {epsilon_to_rho(eps, DELTA):.4f}")
    head = ["dataset", "grid", "n", "n_fit", "prior", "split", "prior_l1"] + [
        f"{what}@{e:g}" for e in EPSILONS for what in ("gauss", "shrunk", "keep")]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    rng = np.random.default_rng(0)
    for name, (loader, opts) in DATASETS.items():
        ds = load(loader, None, **opts)
        for g in args.grids:
            r = _row(name, ds, g, rng)
            cells = [str(r["dataset"]), f"{g} x {g}", str(r["n"]), str(r["n_fit"])] + [
                f"{r[h]:.3g}" for h in head[4:]]
            print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
