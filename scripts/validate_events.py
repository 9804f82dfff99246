# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Print the event-detection validation tables of ``docs/events.md`` (Markdown).

Usage::

    PYTHONPATH=src python scripts/validate_events.py > /tmp/events_tables.md
    PYTHONPATH=src python scripts/validate_events.py --quick   # fewer recordings, ~1 min

Tables: (1) per-sample Cohen's kappa against the simulator's ground truth for I-VT and the
adaptive detector at 30, 60, 200 and 1000 Hz, with the simulator's noise and with added white
noise; (2) the adaptive detector's filter-window variants behind the per-rate defaults; (3)
DOVES detected fixations against the DOVES fixation lists (counts, durations, positions);
(4) the saccade-sample share on the real recordings (DOVES, MPIIDPEye, the VR set, GazeGraph).
Real data are read from ``$GAZEPRIVACY_DATA`` or ``--data``. Seeds are fixed.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings

import numpy as np
import polars as pl

from gazeprivacy.data.loaders import load
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.events import (
    AdaptiveParams,
    adaptive_threshold,
    detect_events_dataset,
    saccade_share,
    smoothed_speed_deg_s,
)
from gazeprivacy.events.kinematics import interval_speed_deg_s, resolve_metric
from gazeprivacy.events.validation import (
    compare_fixation_lists,
    saccade_event_agreement,
    sample_kappa,
)

RATES = (30.0, 60.0, 200.0, 1000.0)
NOISES = (None, 0.1, 0.3)  # None: the simulator's default (0.03 * min(1, 100 / rate) deg)
DOVES_IMAGES = tuple(range(1, 102, 5))  # 21 of 101 images, all 29 observers


def _detect(ds, **kw) -> pl.DataFrame:
    """These tables compare I-VT and the adaptive detector (scripts/event_kappa.py has
    REMoDNaV, the library's default since): the adaptive one unless ``method`` is given."""
    kw.setdefault("method", "adaptive")
    with warnings.catch_warnings():  # the tables report the shares; no warning spam
        warnings.simplefilter("ignore")
        return detect_events_dataset(ds, **kw)


def _fmt(v: float) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.2f}"


def _table(header: list[str], rows: list[list[object]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(c if isinstance(c, str) else _fmt(c) for c in r) + " |"
            for r in rows]
    return "\n".join(out)


def _sim(rate: float, noise: float | None, n: int):
    return simulate_dataset(n_participants=n, duration_s=20.0, sampling_rate_hz=rate,
                            rng=np.random.default_rng(1), ground_truth=True,
                            measurement_noise_deg=noise)


def simulator_table(n: int) -> str:
    rows = []
    for rate in RATES:
        for noise in NOISES:
            ds = _sim(rate, noise, n)
            ev_i, ev_a = _detect(ds, method="ivt"), _detect(ds, method="adaptive")
            ki, ka = sample_kappa(ds, ev_i), sample_kappa(ds, ev_a)
            ei, ea = saccade_event_agreement(ds, ev_i), saccade_event_agreement(ds, ev_a)
            rows.append([f"{rate:g}", "default" if noise is None else f"{noise:g}",
                         ki["fixation"], ki["saccade"], ka["fixation"], ka["saccade"],
                         ki["true_saccade_share"], ki["saccade_share"], ka["saccade_share"],
                         f"{ei['recall']:.2f} / {ei['precision']:.2f}",
                         f"{ea['recall']:.2f} / {ea['precision']:.2f}"])
    return _table(["rate Hz", "noise deg", "I-VT k fix", "I-VT k sac", "adaptive k fix",
                   "adaptive k sac", "true sac share", "I-VT sac share",
                   "adaptive sac share", "I-VT sac R / P", "adaptive sac R / P"], rows)


def window_table(n: int) -> str:
    rows = []
    for rate in RATES:
        for noise in (None, 0.1):
            ds = _sim(rate, noise, n)
            row: list[object] = [f"{rate:g}", "default" if noise is None else f"{noise:g}"]
            for w in (None, 0.01, 0.02):
                row.append(sample_kappa(ds, _detect(ds, adaptive=AdaptiveParams(window_s=w)))
                           ["saccade"])
            p4 = AdaptiveParams.for_rate(rate, peak_sd=4.0)
            ev = _detect(ds, adaptive=p4)
            agree = saccade_event_agreement(ds, ev)
            row += [sample_kappa(ds, ev)["saccade"],
                    f"{agree['recall']:.2f} / {agree['precision']:.2f}"]
            rows.append(row)
    return _table(["rate Hz", "noise deg", "two-point", "SG 10 ms", "SG 20 ms",
                   "default filter, PT = mean + 4 sd", "same, sac R / P"], rows)


def doves_table(data: str | None, images: tuple[int, ...]) -> str:
    ds = load("doves", data, images=images)
    fx = load("doves_fixations", data, images=images).table
    ref = fx.select((pl.col("participant") + "_" + pl.col("stimulus")).alias("recording"),
                    (pl.col("x_px") / 60.0).alias("x_deg"), (pl.col("y_px") / 60.0).alias("y_deg"),
                    (pl.col("duration_ms") / 1000.0).alias("duration_s"))
    rows = []
    ref_durations = ref["duration_s"]
    for method in ("ivt", "adaptive"):
        ev = _detect(ds, method=method)
        c = compare_fixation_lists(ev, ref)
        fix = ev.filter(pl.col("name") == "fixation")
        ratio = c["n_detected"].sum() / c["n_reference"].sum()
        count_corr = float(np.corrcoef(c["n_detected"], c["n_reference"])[0, 1])
        rows.append([method, f"{len(ds)}", ratio, count_corr,
                     float((c["n_detected"] - c["n_reference"]).abs().median()),
                     float(fix["duration_s"].median()), float(ref_durations.median()),
                     float(c["median_distance_deg"].median()),
                     float(c["median_reverse_distance_deg"].median()),
                     saccade_share(ds, ev)])
    return _table(["detector", "recordings", "fixations detected / listed",
                   "count correlation", "median abs count difference",
                   "median fixation s", "median listed s", "listed -> nearest detected deg",
                   "detected -> nearest listed deg", "saccade share"], rows)


def _median_peak(ds) -> tuple[float, float]:
    peaks = []
    for r in ds.recordings:
        p = AdaptiveParams.for_rate(r.sampling_rate_hz)
        if p.window_s is None:
            v = interval_speed_deg_s(r.t, r.x, r.y, metric=resolve_metric(r))
        else:
            v = smoothed_speed_deg_s(r, window_s=p.window_s)
        peaks.append(adaptive_threshold(v, p)[0])
    arr = np.array(peaks)
    return float(np.nanmedian(arr)), float(np.mean(arr > 300.0))


def real_table(data: str | None, quick: bool) -> str:
    """Both detectors at their defaults, and the adaptive one with PT = mean + 4 sd."""
    sets = {
        "DOVES (200 Hz, lab DPI)": ("doves", {"images": DOVES_IMAGES[:5] if quick
                                              else DOVES_IMAGES}),
        "MPIIDPEye (30 Hz, VR headset, eye camera)": ("mpiidpeye", {}),
        "VR office/supermarket (50 Hz, walking)": ("vr_selfcalib_office_supermarket", {}),
        "GazeGraph (30 Hz, head-mounted)": ("gazegraph_desktop_activity", {}),
    }
    rows = []
    for label, (name, opts) in sets.items():
        ds = load(name, data, **opts)
        dur = sum(r.duration_s for r in ds.recordings)
        peak, implausible = _median_peak(ds)
        variants = {"ivt": {"method": "ivt"}, "adaptive": {},
                    "adaptive, 4 sd": {"adaptive": AdaptiveParams.for_rate(
                        ds.recordings[0].sampling_rate_hz, peak_sd=4.0)}}
        for method, kw in variants.items():
            ev = _detect(ds, **kw)
            fix = ev.filter(pl.col("name") == "fixation")
            rows.append([label, method, f"{len(ds)}", saccade_share(ds, ev),
                         fix.height / dur, float(fix["duration_s"].median()),
                         peak if method == "adaptive" else "-",
                         implausible if method == "adaptive" else "-"])
    return _table(["dataset", "detector", "recordings", "saccade share", "fixations per s",
                   "median fixation s", "peak threshold deg/s (median)",
                   "share of recordings with PT > 300"], rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=None, help="data directory (default $GAZEPRIVACY_DATA)")
    ap.add_argument("--quick", action="store_true", help="fewer participants and images")
    args = ap.parse_args(argv)
    n = 2 if args.quick else 4
    t0 = time.perf_counter()
    print("### Simulator: per-sample Cohen's kappa (microsaccades count as fixation)\n")
    print(simulator_table(n) + "\n")
    print("### Adaptive detector variants (kappa of saccade samples; R / P: saccade events)\n")
    print(window_table(n) + "\n")
    print("### DOVES: detected fixations against the DOVES fixation lists\n")
    print(doves_table(args.data, DOVES_IMAGES[:5] if args.quick else DOVES_IMAGES) + "\n")
    print("### Real recordings: saccade share and fixations\n")
    print(real_table(args.data, args.quick) + "\n")
    print(f"_generated in {time.perf_counter() - t0:.0f} s_", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
