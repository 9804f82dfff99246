# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The event mechanisms' detector and plausibility gate: REMoDNaV in sound mode, I-VT in paper
mode, implausible events refused unless accepted."""

from __future__ import annotations

import numpy as np
import pytest

from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.exceptions import ImplausibleEventsWarning, InvalidDataError
from gazeprivacy.mechanisms.samples._event_synthesis import fit_dataset_events
from gazeprivacy.mechanisms.samples.event_synth_pd import (
    EventSynthPDParams,
    _detection,
    event_synth_pd,
)
from gazeprivacy.mechanisms.samples.k_same_synth import KSameSynthParams, k_same_synth


def _sim(rate: float) -> Dataset:
    return simulate_dataset(n_participants=4, tasks=("reading",), duration_s=3.0,
                            sampling_rate_hz=rate, rng=np.random.default_rng(0))


def _noise() -> Dataset:
    """Uniform random points: not gaze; every detector's checks fail."""
    rng = np.random.default_rng(1)
    return Dataset(tuple(
        Recording.from_arrays(recording=f"r{i}", participant=f"p{i}",
                              x=rng.uniform(-10, 10, 600), y=rng.uniform(-10, 10, 600),
                              sampling_rate_hz=200, labels={"task": "t"})
        for i in range(4)))


def test_k_same_synth_refuses_implausible_events_and_accepts_with_the_flag():
    ds = _noise()
    with pytest.raises(InvalidDataError, match=r"k-same-synth refuses to release.*"
                                               r"--accept-implausible-events"):
        k_same_synth(ds, KSameSynthParams(k=2, group_by="task"), rng=np.random.default_rng(0))
    params = KSameSynthParams(k=2, group_by="task", accept_implausible_events=True)
    with pytest.warns(ImplausibleEventsWarning, match="as accepted"):
        rel = k_same_synth(ds, params, rng=np.random.default_rng(0))
    assert [r.n_samples for r in rel.output] == [r.n_samples for r in ds]


def test_paper_ivt_is_refused_where_it_labels_most_samples_saccade():
    # 1000 Hz: tremor and noise pass 30 deg/s, I-VT labels about 70 % saccade; REMoDNaV not
    ds = _sim(1000)
    with pytest.raises(InvalidDataError, match="method ivt labels"):
        k_same_synth(ds, KSameSynthParams.paper(k=2), rng=np.random.default_rng(0))
    rel = k_same_synth(ds, KSameSynthParams(k=2, group_by="task"), rng=np.random.default_rng(0))
    assert len(rel.output) == len(ds)
    with pytest.raises(InvalidDataError, match="event-synth-pd refuses to release"):
        event_synth_pd(ds, EventSynthPDParams(k=2, gamma=2.0, mode="paper"),
                       rng=np.random.default_rng(0))


def test_detector_per_mode():
    # sound mode: REMoDNaV; paper mode and the paper preset: seed 001's I-VT
    assert KSameSynthParams(k=2).event_detector == "remodnav"
    assert KSameSynthParams.paper(k=2).event_detector == "ivt"
    assert _detection(EventSynthPDParams(k=2, gamma=2.0, epsilon0=1.0))["method"] == "remodnav"
    assert _detection(EventSynthPDParams(k=2, gamma=2.0, mode="paper"))["method"] == "ivt"
    # the fitted events follow the method: I-VT has no pursuit and more saccades
    ds = _sim(250)
    rem = fit_dataset_events(ds, method="remodnav")
    ivt = fit_dataset_events(ds, method="ivt", accept_implausible_events=True)
    assert sum(f.n_saccades for f in rem) != sum(f.n_saccades for f in ivt)


def test_given_events_are_not_gated():
    from gazeprivacy.events import detect_events_dataset

    ds = _noise()
    events = detect_events_dataset(ds, method="ivt", max_saccade_share=None)
    fitted = fit_dataset_events(ds, events)  # the caller's events: no gate
    assert len(fitted) == len(ds)


def test_reproduction_keeps_ivt():
    from gazeprivacy.experiments.reproduce import _runs, seed001
    from gazeprivacy.experiments.reproduce.seed001 import Seed001Settings

    assert _runs.ivt_event_features_of.__name__ == "ivt_event_features_of"
    for role in ("mpiidpeye", "vr"):
        for settings in (Seed001Settings.quick_run(), Seed001Settings()):
            mechs = {m["name"]: m["fixed"] for m in seed001._mechanisms(role, settings)}
            assert mechs["k-same-synth"]["event_detector"] == "ivt"
            assert mechs.get("event-synth-pd", {"mode": "paper"})["mode"] == "paper"


def test_cli_flag(tmp_path):
    from typer.testing import CliRunner

    from gazeprivacy.cli.app import app
    from gazeprivacy.data import write_dataset

    ds = _noise()
    ds = Dataset(tuple(r.with_gaze(r.x, r.y, labels={"stimulus": "s"}) for r in ds), name="n")
    src = write_dataset(ds, tmp_path / "in.parquet")
    base = ["protect", str(src), str(tmp_path / "out.parquet"), "--mechanism", "k-same-synth",
            "--k", "2", "--seed", "0"]
    runner = CliRunner()
    res = runner.invoke(app, base)
    assert res.exit_code != 0
    assert "--accept-implausible-events" in res.output + str(res.exception)
    res = runner.invoke(app, [*base, "--accept-implausible-events"])
    assert res.exit_code == 0, res.output + repr(res.exception)
    assert (tmp_path / "out.parquet").is_file()
    res = runner.invoke(app, ["protect", str(src), str(tmp_path / "k.parquet"), "--mechanism",
                              "kaleido", "--epsilon", "1", "--radius-deg", "2", "--window-s",
                              "0.5", "--accept-implausible-events"])
    assert res.exit_code != 0
    assert "applies to the event mechanisms" in res.output + str(res.exception)
