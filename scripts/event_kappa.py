# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Print the per-event kappa table of ``docs/events.md`` (Markdown): three detectors against the
simulator's ground truth with synthetic smooth pursuit, by stimulus and sampling rate.

Usage::

    PYTHONPATH=src python scripts/event_kappa.py > /tmp/event_kappa.md
    PYTHONPATH=src python scripts/event_kappa.py --participants 2   # faster

Data: ``simulate_dataset(n_participants=N, duration_s=20, ground_truth=True,
rng=default_rng(1))`` at 60, 250, 500 and 1000 Hz with the three tasks, then
``add_pursuit_dataset(..., rng=default_rng(2))``: 70 % of the fixations of the random-dot task
("moving dots") and 20 % of free viewing ("images / free viewing") become smooth pursuit at
2-30 deg/s with catch-up saccades; reading has none. Kappa is Cohen's kappa of one event type
against the rest over the valid samples (:func:`gazeprivacy.events.validation.sample_kappa`);
pursuit kappa is "n/a" where the truth has no pursuit (reading: the pursuit share column shows
what REMoDNaV invents there). Seeds are fixed.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings

import numpy as np

from gazeprivacy.data.recording import Dataset
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.events import detect_events_dataset
from gazeprivacy.events.synthetic_pursuit import add_pursuit_dataset
from gazeprivacy.events.validation import sample_kappa

RATES = (60.0, 250.0, 500.0, 1000.0)
STIMULI = {"free-viewing": "images / free viewing", "random-dot": "moving dots",
           "reading": "reading"}
PURSUIT_SHARE = {"random-dot": 0.7, "free-viewing": 0.2, "reading": 0.0}
DETECTORS = ("adaptive", "ivt", "remodnav")


def simulated(rate: float, n: int) -> Dataset:
    """The validation data at ``rate`` (see the module docstring)."""
    ds = simulate_dataset(n_participants=n, duration_s=20.0, sampling_rate_hz=rate,
                          rng=np.random.default_rng(1), ground_truth=True)
    return add_pursuit_dataset(ds, pursuit_share=PURSUIT_SHARE, rng=np.random.default_rng(2))


def kappas(ds: Dataset) -> dict[str, dict[str, float]]:
    """``sample_kappa`` of every detector on ``ds``."""
    out = {}
    for method in DETECTORS:
        with warnings.catch_warnings():  # the table reports the shares
            warnings.simplefilter("ignore")
            ev = detect_events_dataset(ds, method=method)
        out[method] = sample_kappa(ds, ev)
    return out


def _f(v: float) -> str:
    return "-" if math.isnan(v) else f"{v:.2f}"


def _row(rate: float, stimulus: str, k: dict[str, dict[str, float]]) -> str:
    r = k["remodnav"]
    cells = [f"{rate:g}", stimulus,
             f"{r['true_saccade_share']:.2f} / {r['true_pursuit_share']:.2f}",
             f"{_f(k['adaptive']['fixation'])} / {_f(k['adaptive']['saccade'])}",
             f"{_f(k['ivt']['fixation'])} / {_f(k['ivt']['saccade'])}",
             f"{_f(r['fixation'])} / {_f(r['saccade'])} / "
             f"{_f(r['pursuit']) if r['true_pursuit_share'] > 0 else 'n/a'}",
             f"{k['adaptive']['saccade_share']:.2f} / {k['ivt']['saccade_share']:.2f} / "
             f"{r['saccade_share']:.2f}",
             f"{r['pursuit_share']:.2f}"]
    return "| " + " | ".join(cells) + " |"


def table(n: int) -> str:
    header = ["rate Hz", "stimulus", "true saccade / pursuit share",
              "adaptive kappa fix / sac", "I-VT kappa fix / sac",
              "REMoDNaV kappa fix / sac / pursuit",
              "saccade share adaptive / I-VT / REMoDNaV", "REMoDNaV pursuit share"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for rate in RATES:
        ds = simulated(rate, n)
        for task, label in STIMULI.items():
            part = Dataset(tuple(r for r in ds.recordings if r.labels.get("task") == task),
                           name=f"{ds.name}-{task}")
            lines.append(_row(rate, label, kappas(part)))
        lines.append(_row(rate, "**all**", kappas(ds)))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--participants", type=int, default=3, help="simulated participants")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    print(table(args.participants))
    print(f"_generated in {time.perf_counter() - t0:.0f} s_", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
