# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""All mechanism benchmarks in one run, as ratios against baselines measured in the same run.

Run: ``make bench`` or ``PYTHONPATH=src python benchmarks/run.py [--scale 0.1] [--out FILE.md]``.

Workload: the simulator at seed 001's EHTask size — 30 participants, 15 h at 100 Hz (5.4 M
samples) — times ``--scale`` (default 0.1, i.e. 540 k samples, so the run takes minutes; use
``--scale 1`` for the full size). For every sample-level mechanism it reports single-process
throughput, the ratio of its time to a *physical-limit baseline* measured in the same run (one
vectorised numpy pass that reads every sample and writes the same number of noisy samples), and
the speed-up over seed 001's Table 2 runtime for the full workload, extrapolated linearly from
the measured scale (event detection excluded, as in the paper; the paper's event-synth-PD time
includes training the C-VAE and building the PMFs, and so does ours, shown also as its own
column). The speed-up compares unlike things: the paper's wall-clock time on the real EHTask
data with its C-VAE trained on a GPU (David-John et al. 2023, Table 2: the longest over their
parameter grid) against our CPU time on simulated data, at one setting, with event-synth-PD's
C-VAE trained the shortened way (``cvae_training="fast"``). event-synth-PD's privacy test
compares every candidate with the models *near* it, so its cost could grow faster than
linearly with the population; compare two scales to see it. Rates and ratios use CPU time
(``time.process_time``; best of ``--repeat``), which a busy machine distorts less than
wall-clock time; both are printed. Importing torch and its first
training step (seconds, once per process) are done before timing and reported in a note.

Every run appends its ratios (x baseline, µs per sample, event-synth-PD's extrapolated
seconds) to ``benchmarks/history.csv`` (``--no-history`` to skip); ``make bench-check`` prints
the rows that got more than 20 % worse than the run before (``benchmarks/history.py``).

Kaleido's streaming API is timed pushing 250-sample chunks and single samples (microseconds per
sample). The second table puts the noise primitives next to their peers on PyPI where those are
installed (``pip install 'gazeprivacy[bench]'``; ``make bench`` does it): OUE perturbation and
aggregation against ``pure-ldp``, Laplace vectors against ``diffprivlib`` and OpenDP, planar
Laplace against ``privkit`` (not installable next to our dependencies; see the README).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import math
import os
import platform
import sys
import time
import types
from collections.abc import Callable

import numpy as np

from gazeprivacy.data.recording import Dataset
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.events import detect_events_dataset
from gazeprivacy.mechanisms.noise.laplace import laplace_mechanism
from gazeprivacy.mechanisms.noise.oue import (
    oue_aggregate,
    oue_curator_view,
    oue_encode,
    oue_estimate,
)
from gazeprivacy.mechanisms.noise.planar_laplace import planar_laplace
from gazeprivacy.mechanisms.samples._event_synth_pd_fit import train_cvae
from gazeprivacy.mechanisms.samples._event_synthesis import fit_events, group_events
from gazeprivacy.mechanisms.samples.dpgazesynth import DPGazeSynthParams, dpgazesynth
from gazeprivacy.mechanisms.samples.event_synth_pd import EventSynthPDParams, event_synth_pd
from gazeprivacy.mechanisms.samples.k_same_synth import KSameSynthParams, k_same_synth
from gazeprivacy.mechanisms.samples.kaleido import KaleidoParams, KaleidoStream, kaleido_dataset

__all__: list[str] = []

#: ``(row, metric, value)`` of this run for the history (lower is better for every metric)
RESULTS: list[tuple[str, str, float]] = []

FULL_SAMPLES = 15 * 3600 * 100  # EHTask: 15 h in all (30 participants) at 100 Hz = 5.4 M
#: seed 001, Table 2 (EHTask row), seconds
PAPER_S = {"k-same-synth": 2.2 * 60, "event-synth-pd": 14.8 * 60, "kaleido": 5.2 * 60}


def _time(fn: Callable[[], object], repeat: int = 1) -> tuple[float, float]:
    """Best of ``repeat`` runs: wall-clock and CPU seconds of this process (each the least
    disturbed by other processes; CPU time is what a loaded machine distorts least)."""
    wall = cpu = math.inf
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall = min(wall, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    return wall, cpu


def baseline(ds: Dataset, rng: np.random.Generator) -> Callable[[], None]:
    """Read every sample, write as many noisy ones: the floor any mechanism pays."""
    def run() -> None:
        for r in ds:
            _ = r.x + rng.laplace(0.0, 1.0, r.n_samples)
            _ = r.y + rng.laplace(0.0, 1.0, r.n_samples)
    return run


def mechanisms(ds: Dataset, rng: np.random.Generator, *, skip: list[str], repeat: int,
               ) -> list[str]:
    n = ds.n_samples
    w_base, t_base = _time(baseline(ds, rng), repeat=max(repeat, 5))
    events = detect_events_dataset(ds, method="ivt")  # event-synth-PD's paper detector
    pd_sound = EventSynthPDParams(k=2, gamma=2.0, epsilon0=1.0)  # the default: sound, fast C-VAE
    pd_paper = EventSynthPDParams(k=2, gamma=2.0, mode="paper")
    has_torch = importlib.util.find_spec("torch") is not None

    def train_only(recs: tuple = ds.recordings, epochs: int = 60) -> None:
        by_rec = group_events(events, [r.recording for r in recs])
        fitted = [fit_events(r, by_rec[r.recording]) for r in recs]
        params = EventSynthPDParams(k=2, gamma=2.0, cvae_epochs=epochs, mode="paper")
        train_cvae(Dataset(tuple(recs)), fitted, params, rng)

    notes = []
    if has_torch:  # importing torch and its first training step are paid once per process
        w_warm, _ = _time(lambda: (importlib.import_module("torch"),
                                   train_only(ds.recordings[:3], 1)))
        notes.append(f"torch import and first-use initialisation, once per process, not "
                     f"counted: {w_warm:.1f} s wall")

    runs: dict[str, Callable[[], object]] = {
        "dpgazesynth": lambda: dpgazesynth(ds, DPGazeSynthParams(epsilon=2.0, grid_size=30),
                                           rng=rng),
        "kaleido": lambda: kaleido_dataset(ds, KaleidoParams(epsilon=2.0, radius_deg=2.0,
                                                             window_s=0.5), rng=rng),
        "k-same-synth": lambda: k_same_synth(ds, KSameSynthParams(k=4, group_by="task"),
                                             rng=rng, events=events),
        "event-synth-pd": lambda: event_synth_pd(ds, pd_sound, rng=rng, events=events),
        "event-synth-pd (paper mode)": lambda: event_synth_pd(ds, pd_paper, rng=rng,
                                                              events=events),
    }
    rows = [f"| baseline (numpy read + noisy write) | {n:,} | {w_base:.3f} | {t_base:.3f} | - | "
            f"{n / t_base:,.0f} | 1 | - | - |"]
    for name, fn in runs.items():
        if any(name == k or name.startswith(k + " ") for k in skip):
            continue
        pd = name.startswith("event-synth-pd")
        if pd and not has_torch:
            rows.append(f"| {name} | - | torch not installed | - | - | - | - | - | - |")
            continue
        wall, t = _time(fn, repeat=repeat if not pd else 1)
        train = f"{_time(train_only)[1]:.2f}" if name == "event-synth-pd" else "-"
        full = t * FULL_SAMPLES / n
        RESULTS.append((name, "x baseline (CPU)", t / t_base))
        if pd:
            RESULTS.append((name, "full EHTask CPU s (extrapolated)", full))
        paper = PAPER_S.get(name.split(" (")[0])
        speedup = f"{paper / full:.1f}x" if paper else "-"
        rows.append(f"| {name} | {n:,} | {wall:.3f} | {t:.3f} | {train} | {n / t:,.0f} | "
                    f"{t / t_base:.1f} | {full / 60:.2f} min | {speedup} |")
    p = KaleidoParams(epsilon=2.0, radius_deg=2.0, window_samples=50)
    rec = ds[0]
    x = np.resize(rec.x[~np.isnan(rec.x)], 250_000)  # a long stream from one recording
    y = np.resize(rec.y[~np.isnan(rec.y)], 250_000)
    for chunk in (250, 1):
        m = 250_000 if chunk > 1 else 20_000
        stream = KaleidoStream(p, rng=rng)

        def push(stream: KaleidoStream = stream, m: int = m, chunk: int = chunk) -> None:
            for i in range(0, m, chunk):
                stream.push(x[i:i + chunk], y[i:i + chunk])
        wall, t = _time(push)
        RESULTS.append((f"kaleido stream, chunks of {chunk}", "us per sample (CPU)",
                        1e6 * t / m))
        rows.append(f"| kaleido stream, chunks of {chunk} ({1e6 * t / m:.2f} µs per sample) | "
                    f"{m:,} | {wall:.3f} | {t:.3f} | - | {m / t:,.0f} | - | - | - |")
    return [
        "| run | samples | wall s | CPU s | of which C-VAE training (CPU s, separate run) "
        "| samples/s (CPU) | x baseline (CPU) | full EHTask (extrapolated, CPU) "
        "| speed-up vs seed 001 Table 2 |",
        "|---|---|---|---|---|---|---|---|---|",
        *rows, "", *[f"Note: {s}." for s in notes]]


# --------------------------------------------------------------------------------------------
# peers
# --------------------------------------------------------------------------------------------


def _import_diffprivlib_mechanisms() -> types.ModuleType:
    """``diffprivlib.mechanisms`` without the package ``__init__``, which imports diffprivlib's
    scikit-learn models and fails on scikit-learn >= 1.8 (``sklearn.tree._tree.DOUBLE`` is gone);
    the mechanisms do not need them."""
    try:
        return importlib.import_module("diffprivlib.mechanisms")
    except ImportError:
        spec = importlib.util.find_spec("diffprivlib")
        if spec is None or spec.submodule_search_locations is None:
            raise
        for mod in [m for m in sys.modules if m == "diffprivlib" or m.startswith("diffprivlib.")]:
            del sys.modules[mod]
        stub = types.ModuleType("diffprivlib")
        stub.__path__ = list(spec.submodule_search_locations)
        sys.modules["diffprivlib"] = stub
        return importlib.import_module("diffprivlib.mechanisms")


def peers(rng: np.random.Generator, *, size: int, oue_reports: int, repeat: int) -> list[str]:
    rows: list[str] = []

    def row(primitive: str, impl: str, n: int, t: float | None, ours: float | None,
            note: str = "") -> None:
        if t is None:
            rows.append(f"| {primitive} | {impl} | {n:,} | - | - | - | {note} |")
            return
        ratio = "1" if ours is None else f"{t / ours:,.3g}"
        rows.append(f"| {primitive} | {impl} | {n:,} | {t:.4f} | {n / t:,.0f} | {ratio} | "
                    f"{note} |")

    # Laplace vectors
    values = rng.normal(size=size)
    t_ours = _time(lambda: laplace_mechanism(values, sensitivity=1.0, epsilon=1.0, rng=rng),
                   repeat=repeat)[1]
    row("Laplace vector", "gazeprivacy (numpy)", size, t_ours, None)
    try:
        mech = _import_diffprivlib_mechanisms()
        lap = mech.Laplace(epsilon=1.0, sensitivity=1.0, random_state=0)
        m = min(size, 50_000)  # one Python call per value
        t = _time(lambda: [lap.randomise(float(v)) for v in values[:m]])[1] * size / m
        row("Laplace vector", "diffprivlib (Laplace.randomise per value)", size, t, t_ours,
            f"timed on {m:,}, scaled")
    except ImportError as exc:
        row("Laplace vector", "diffprivlib", size, None, None, f"not installed ({exc})")
    try:
        dp = importlib.import_module("opendp.prelude")
        dp.enable_features("contrib")
        meas = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float, nan=False)),
                                 dp.l1_distance(T=float), scale=1.0)
        m = min(size, 50_000)
        as_list = values[:m].tolist()
        t = _time(lambda: meas(as_list), repeat=repeat)[1] * size / m
        row("Laplace vector", "OpenDP make_laplace (vector domain)", size, t, t_ours,
            f"exact sampler, OS entropy; timed on {m:,}, scaled")
    except ImportError as exc:
        row("Laplace vector", "OpenDP", size, None, None, f"not installed ({exc})")
    # planar Laplace
    px, py = rng.normal(size=size), rng.normal(size=size)
    t_ours = _time(lambda: planar_laplace(px, py, epsilon_per_unit=1.0, rng=rng),
                   repeat=repeat)[1]
    row("planar Laplace", "gazeprivacy (numpy)", size, t_ours, None)
    try:
        pk = importlib.import_module("privkit.ppms.planar_laplace")
        mech = pk.PlanarLaplace(epsilon=1.0)
        m = min(size, 20_000)
        t = _time(lambda: [mech.get_obfuscated_point(a, b) for a, b in
                           zip(px[:m].tolist(), py[:m].tolist(), strict=True)])[1] * size / m
        row("planar Laplace", "privkit (get_obfuscated_point per point)", size, t, t_ours,
            f"timed on {m:,}, scaled")
    except ImportError:
        row("planar Laplace", "privkit", size, None, None,
            "not installed: privkit 0.5.1 pins numpy==1.26.4 and needs TensorFlow (deepface, "
            "tf-keras), open3d and osmnx; see README")
    # OUE: perturb every report, aggregate, estimate
    d = 8 * 30 * 30 + 1  # DPGazeSynth's transition domain at G = 30
    items = rng.integers(0, d, oue_reports)
    eps = 1.0
    t_ours = _time(lambda: oue_aggregate(oue_encode(items, domain_size=d, epsilon=eps, rng=rng)),
                   repeat=repeat)[1]
    row(f"OUE, d = {d:,}", "gazeprivacy oue_encode + oue_aggregate (real reports)",
        oue_reports, t_ours, None)
    t = _time(lambda: oue_estimate(oue_curator_view(np.bincount(items, minlength=d),
                                                    epsilon=eps, rng=rng),
                                   n=oue_reports, epsilon=eps), repeat=repeat)[1]
    row(f"OUE, d = {d:,}", "gazeprivacy oue_curator_view (same column-sum distribution)",
        oue_reports, t, t_ours)
    try:
        ue = importlib.import_module("pure_ldp.frequency_oracles.unary_encoding")
        client = ue.UEClient(epsilon=eps, d=d, use_oue=True, index_mapper=lambda v: v)
        server = ue.UEServer(epsilon=eps, d=d, use_oue=True, index_mapper=lambda v: v)

        def pure() -> None:
            server.reset()
            for v in items.tolist():
                server.aggregate(client.privatise(v))
            server.check_and_update_estimates()
        row(f"OUE, d = {d:,}", "pure-ldp UEClient/UEServer(use_oue=True)", oue_reports,
            _time(pure)[1], t_ours, "global numpy RNG")
    except ImportError as exc:
        row(f"OUE, d = {d:,}", "pure-ldp", oue_reports, None, None, f"not installed ({exc})")
    return [
        "| primitive | implementation | values | CPU s | values/s | x ours | note |",
        "|---|---|---|---|---|---|---|",
        *rows]


def machine() -> str:
    from history import cpu_model  # benchmarks/ is the script's folder

    cpu = cpu_model()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"Machine: {cpu}, {os.cpu_count()} logical CPUs, Python "
            f"{platform.python_version()}, numpy {np.__version__}; load average {load:.2f} at "
            "the start.")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="best of N runs (event-synth-pd: 1)")
    ap.add_argument("--skip", nargs="*", default=[], help="mechanisms to leave out "
                    "(dpgazesynth kaleido k-same-synth event-synth-pd peers)")
    ap.add_argument("--out", default=None, help="also write the tables to this file")
    ap.add_argument("--no-history", action="store_true",
                    help="do not append this run to benchmarks/history.csv")
    a = ap.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    rng = np.random.default_rng(a.seed)
    tasks = ("reading", "free-viewing", "random-dot")
    duration_s = a.scale * 15 * 3600 / (30 * len(tasks))
    head = machine()
    ds = simulate_dataset(n_participants=30, tasks=tasks, duration_s=duration_s,
                          sampling_rate_hz=100, rng=rng)
    lines = [
        head, "",
        f"Workload: simulator, 30 participants x 3 tasks x {duration_s:.0f} s at 100 Hz "
        f"({ds.n_samples:,} samples, scale {a.scale:g} of EHTask's 5.4 M); one process, best of "
        f"{a.repeat} (event-synth-pd: one run); rates and ratios from CPU time.", "",
        *mechanisms(ds, rng, skip=a.skip, repeat=a.repeat)]
    if "peers" not in a.skip:
        lines += ["", "Noise primitives and their peers (same sizes, same run):", "",
                  *peers(rng, size=200_000, oue_reports=2_000, repeat=a.repeat)]
    table = "\n".join(lines)
    print(table)
    if a.out:
        with open(a.out, "w") as fh:
            fh.write(table + "\n")
    if not a.no_history:
        from history import append  # benchmarks/ is the script's folder

        print(f"\nappended to {append(f'run.py scale={a.scale:g}', RESULTS, load=load)}")


if __name__ == "__main__":
    main()
