# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Which window features tell participant-synth's release from held-out raw gaze.

The realism discriminator (:func:`gazeprivacy.metrics.realism.discriminator_auc`) reads the
17 per-window features of :data:`~gazeprivacy.metrics.realism.WINDOW_FEATURES` together; this
script reads them one at a time, to find where a release differs before trying a change to the
generator. Per feature, the AUC of the feature's value for "release window over held-out raw
window" (0.5: the same distribution; above 0.5: the release's values are larger) and the two
medians. The fitted participants' raw windows (the raw copy) are scored the same way: the
floor that different people alone give. Means over seeds, on the split and streams of
``scripts/frontier_quick.py`` (the same releases as its runs; the frontier config's split
fractions, the loop's own draws).

With ``--saccades`` it prints instead what the adaptive detector finds in each release and in
the held-out raw data (:func:`~gazeprivacy.metrics.realism.saccade_table`): saccades per
second, their median duration, amplitude and peak velocity, and the share of time in them.

With ``--groups`` it prints instead the discriminator's AUC read by parts
(:data:`~gazeprivacy.metrics.realism.WINDOW_FEATURE_GROUPS`): with every feature, with one
group alone, and with every group but one (the discriminator's own folds and estimator, seeded
by the seed). A group alone near 0.5 carries nothing; every group but one still high means no
single part of the release is the gap.

With ``--people K [K ...]`` it prints instead the discriminator's AUC (the frontier's estimator,
``frontier_metrics`` with the loop's settings) of **real gaze of K people**: the raw
recordings of the first K fitted participants by id, each cut into 4 pieces under pseudonyms
(:func:`people_release`), against the held-out raw data, beside the raw copy of every fitted
participant. It is what a release made of K people's own gaze would read, e.g. one rendered
from K declared pilots' recordings: the floor such a release can hope for
(``docs/privacy/limits.md``, *Realism*).

Run (real data in ``$GAZEPRIVACY_DATA``)::

    PYTHONPATH=src python scripts/realism_features.py vr --eps 1 3 10 --seeds 0 1
    PYTHONPATH=src python scripts/realism_features.py doves --eps 10 --saccades
    PYTHONPATH=src python scripts/realism_features.py vr --eps 1e6 10 --groups
    PYTHONPATH=src python scripts/realism_features.py doves --seeds 0 1 2 3 4 5 --people 1 3 5
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import polars as pl

from gazeprivacy.data.loaders import load
from gazeprivacy.data.recording import Dataset
from gazeprivacy.experiments.config import FrontierConfig
from gazeprivacy.experiments.frontier import (
    _slice,
    first_seconds,
    frontier_metrics,
    frontier_split,
)
from gazeprivacy.mechanisms.samples.participant_synth import (
    ParticipantSynthParams,
    participant_synth,
)
from gazeprivacy.metrics.realism import (
    WINDOW_FEATURE_GROUPS,
    WINDOW_FEATURES,
    discriminator_auc,
    saccade_table,
    window_feature_table,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import frontier_quick as fq  # a script beside this one: the data sets and the streams

__all__ = ["SACCADE_COLUMNS", "by_groups", "main", "people_release", "saccade_summary",
           "separation"]


def separation(raw: pl.DataFrame, release: pl.DataFrame) -> dict[str, tuple[float, float, float]]:
    """Per window feature: ``(AUC, median raw, median release)``, the AUC the probability that
    a release window's value exceeds a raw window's (ties half; NaN values dropped; NaN when a
    side has no finite value).

    >>> raw = pl.DataFrame({f: [0.0, 1.0, 2.0] for f in WINDOW_FEATURES})
    >>> sep = separation(raw, raw.with_columns(pl.col("x_mean_deg") + 10.0))
    >>> sep["x_mean_deg"], sep["y_mean_deg"][0]
    ((1.0, 1.0, 11.0), 0.5)
    """
    out = {}
    for f in WINDOW_FEATURES:
        a, b = raw[f].to_numpy(), release[f].to_numpy()
        a, b = a[np.isfinite(a)], b[np.isfinite(b)]
        if a.size == 0 or b.size == 0:
            out[f] = (float("nan"),) * 3
            continue
        # Mann-Whitney by sorting (no classifier: one feature, a threshold at every value)
        srt = np.sort(a)
        above = np.searchsorted(srt, b, side="left")
        ties = np.searchsorted(srt, b, side="right") - above
        auc = float((above.sum() + 0.5 * ties.sum()) / (a.size * b.size))
        out[f] = (auc, float(np.median(a)), float(np.median(b)))
    return out


#: what :func:`saccade_summary` reports, in this order
SACCADE_COLUMNS = ("per_s", "duration_ms", "amplitude_deg", "peak_deg_s", "time_share")


def saccade_summary(dataset: Dataset) -> dict[str, float]:
    """The saccades the adaptive detector finds in ``dataset``: per second of recording, the
    medians of duration (ms), amplitude and peak velocity, and the share of time in saccades
    (NaN medians when it finds none).

    >>> from gazeprivacy.data.sample import load_sample
    >>> s = saccade_summary(load_sample())
    >>> 1.0 < s["per_s"] < 5.0, 20.0 < s["duration_ms"] < 100.0
    (True, True)
    """
    sac = saccade_table(dataset)
    seconds = sum(r.n_samples / r.sampling_rate_hz for r in dataset.recordings)
    if sac.height == 0:
        return {"per_s": 0.0, "duration_ms": float("nan"), "amplitude_deg": float("nan"),
                "peak_deg_s": float("nan"), "time_share": 0.0}
    return {"per_s": sac.height / seconds,
            "duration_ms": 1e3 * float(sac["duration_s"].median()),
            "amplitude_deg": float(sac["amplitude_deg"].median()),
            "peak_deg_s": float(sac["peak_velocity_deg_s"].median()),
            "time_share": float(sac["duration_s"].sum()) / seconds}


def by_groups(raw: pl.DataFrame, release: pl.DataFrame, seed: int) -> dict[str, float]:
    """The discriminator's AUC of ``release`` against ``raw`` windows with every feature
    (``"all"``), with each group of :data:`WINDOW_FEATURE_GROUPS` alone (``"only <group>"``)
    and with every group but one (``"all but <group>"``), each from the generator of ``seed``.

    >>> from gazeprivacy.data.sample import load_sample
    >>> w = window_feature_table(load_sample())
    >>> fast = w.with_columns(pl.col("speed_max_deg_s") * 3)
    >>> auc = by_groups(w, fast, 0)
    >>> auc["only speed"] > 0.9, auc["only position"], auc["all but speed"]
    (True, 0.5, 0.5)
    """
    sets = {"all": WINDOW_FEATURES}
    for g, fs in WINDOW_FEATURE_GROUPS.items():
        sets[f"only {g}"] = fs
        sets[f"all but {g}"] = tuple(f for f in WINDOW_FEATURES if f not in fs)
    return {name: discriminator_auc(raw, release, rng=np.random.default_rng(seed),
                                    features=fs).auc for name, fs in sets.items()}


def people_release(fit: Dataset, k: int, pieces: int = 4) -> Dataset:
    """Real gaze of ``k`` people: the recordings of ``fit``'s first ``k`` participants by id,
    each cut into ``pieces`` consecutive parts, every part its own pseudonym (the discriminator
    holds participants out, so one person's recordings must spread over its folds, as a
    release's synthetic participants rendered from one pilot would).

    >>> from gazeprivacy.data.sample import load_sample
    >>> ds = load_sample()
    >>> rel = people_release(ds, 2)
    >>> first = sorted(ds.participants)[:2]
    >>> n = sum(r.n_samples for r in ds.recordings if r.participant in first)
    >>> len(rel) == 4 * sum(r.participant in first for r in ds.recordings)
    True
    >>> len(rel.participants) == len(rel), rel.n_samples == n
    (True, True)
    >>> people_release(ds, 13)
    Traceback (most recent call last):
    ...
    ValueError: --people 13 is more than the 12 fitted participants
    """
    people = sorted(fit.participants)
    if not 1 <= k <= len(people):
        raise ValueError(f"--people {k} is more than the {len(people)} fitted participants"
                         if k > len(people) else f"--people must be at least 1, got {k}")
    out = []
    for r in (r for r in fit.recordings if r.participant in people[:k]):
        for q in range(pieces):
            a, b = q * r.n_samples // pieces, (q + 1) * r.n_samples // pieces
            piece = _slice(r, a, b, f":{q}")
            name = f"person-{len(out)}"
            out.append(piece.with_gaze(piece.x, piece.y, participant=name, recording=name))
    return Dataset(tuple(out), name=f"{k} people")


def _people(data: str, seeds: list[int], ks: list[int]) -> None:
    loader, options, label, _length_s, first_s = fq.DATA[data]
    ds = first_seconds(load(loader, **options), first_s)
    cfg = FrontierConfig(labels=(label,), n_trees=50, discriminator_splits=3)
    holdout, probes = fq.split_fractions(data)
    runs: dict[str, list[float]] = {}
    for seed in seeds:
        split_rng, _prot_rng, eval_rng = np.random.default_rng(seed).spawn(3)
        split = frontier_split(ds, rng=split_rng, holdout_fraction=holdout,
                               probe_fraction=probes)
        memo: dict = {}
        rels = {"raw": split.fit} | {f"pilots{k}": people_release(split.fit, k) for k in ks}
        for name, rel in rels.items():
            out = frontier_metrics(cfg, split, rel, attacks=(), attribute_of={},
                                   rng=fq._keyed(eval_rng, name), notes=[], memo=memo)
            runs.setdefault(name, []).append(
                float(out["realism:discriminator"][1]["discriminator_auc"]))
    print(f"{data}, seeds {seeds}: discriminator AUC of real gaze of K people against the "
          "held-out raw data (mean +- SE over seeds)")
    for name, v in runs.items():
        a = np.array(v)
        se = a.std(ddof=1) / np.sqrt(a.size) if a.size > 1 else float("nan")
        k = name[6:]
        who = ("raw copy (every fitted participant)" if name == "raw"
               else f"{k} {'person' if k == '1' else 'people'}")
        print(f"{who:38s} {a.mean():.3f} +- {se:.3f}   " + " ".join(f"{x:.3f}" for x in a))


def _releases(data: str, eps: list[float], seed: int, per: int
              ) -> tuple[Dataset, dict[str, Dataset]]:
    loader, options, label, length_s, first_s = fq.DATA[data]
    ds = first_seconds(load(loader, **options), first_s)
    split_rng, prot_rng, _ = np.random.default_rng(seed).spawn(3)
    holdout, probes = fq.split_fractions(data)
    split = frontier_split(ds, rng=split_rng, holdout_fraction=holdout, probe_fraction=probes)
    rels = {"raw copy": split.fit}
    for e in eps:
        p = ParticipantSynthParams(epsilon_per_participant=e, delta=1e-6,
                                   output_length_s=length_s, public_labels=(label,),
                                   recordings_per_participant=per)
        rels[f"epsilon {e:g}"] = participant_synth(
            split.fit, p, rng=fq._keyed(prot_rng, f"ps@{e}")).output
    return split.held, rels


def _print_saccades(data: str, seeds: list[int], runs: dict[str, list[dict[str, float]]]
                    ) -> None:
    print(f"{data}, seeds {seeds}: saccades of the adaptive detector (means over seeds)")
    print("release".ljust(16) + "".join(c.rjust(15) for c in SACCADE_COLUMNS))
    for name, rows in runs.items():
        print(name.ljust(16) + "".join(
            f"{np.nanmean([r[c] for r in rows]):15.3g}" for c in SACCADE_COLUMNS))


def _print_groups(data: str, seeds: list[int], runs: dict[str, list[dict[str, float]]]
                  ) -> None:
    print(f"{data}, seeds {seeds}: discriminator AUC by feature group (means over seeds)")
    names = list(next(iter(runs.values()))[0])
    print("features".ljust(26) + "".join(n.rjust(16) for n in runs))
    for f in names:
        print(f.ljust(26) + "".join(f"{np.mean([r[f] for r in rows]):16.3f}"
                                    for rows in runs.values()))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", choices=sorted(fq.DATA))
    ap.add_argument("--eps", type=float, nargs="*", default=[1.0, 3.0, 10.0])
    ap.add_argument("--seeds", type=int, nargs="*", default=[0, 1])
    ap.add_argument("--recordings-per-participant", type=int, default=5)
    ap.add_argument("--saccades", action="store_true",
                    help="the detected saccades of each release instead of the features")
    ap.add_argument("--groups", action="store_true",
                    help="the discriminator's AUC by feature group instead of the features")
    ap.add_argument("--people", type=int, nargs="*", default=None, metavar="K",
                    help="the discriminator on real gaze of K fitted people instead of the "
                         "features (no release is made)")
    args = ap.parse_args(argv)
    if sum(map(bool, (args.saccades, args.groups, args.people is not None))) > 1:
        ap.error("--saccades, --groups and --people print different tables; give one")
    if args.people is not None:
        try:
            _people(args.data, args.seeds, args.people or [1])
        except ValueError as e:
            ap.error(str(e))
        return
    groups: dict[str, list[dict[str, float]]] = {}
    saccades: dict[str, list[dict[str, float]]] = {}
    sums: dict[str, list[dict[str, tuple[float, float, float]]]] = {}
    for seed in args.seeds:
        held, rels = _releases(args.data, args.eps, seed, args.recordings_per_participant)
        if args.saccades:
            for name, d in {"held-out raw": held, **rels}.items():
                saccades.setdefault(name, []).append(saccade_summary(d))
            continue
        held_w = window_feature_table(held)
        for name, d in rels.items():
            if args.groups:
                groups.setdefault(name, []).append(
                    by_groups(held_w, window_feature_table(d), seed))
                continue
            sums.setdefault(name, []).append(separation(held_w, window_feature_table(d)))
    if args.saccades:
        _print_saccades(args.data, args.seeds, saccades)
        return
    if args.groups:
        _print_groups(args.data, args.seeds, groups)
        return
    mean = {n: {f: np.nanmean([s[f] for s in runs], axis=0) for f in WINDOW_FEATURES}
            for n, runs in sums.items()}
    # strongest first: the largest distance from 0.5 over the releases
    order = sorted(WINDOW_FEATURES, key=lambda f: -max(
        abs(mean[n][f][0] - 0.5) for n in mean if n != "raw copy"))
    print(f"{args.data}, seeds {args.seeds}: AUC (release over held-out raw), "
          "median raw > median release")
    print("feature".ljust(22) + "".join(n.rjust(26) for n in mean))
    for f in order:
        print(f.ljust(22) + "".join(
            f"{m[f][0]:.2f}  {m[f][1]:9.3g} > {m[f][2]:<9.3g}".rjust(26) for m in mean.values()))


if __name__ == "__main__":
    main()
