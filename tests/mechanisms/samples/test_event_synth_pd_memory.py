# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""event-synth-PD's memory does not grow with saccades x participants: the saccade test and the
C-VAE's decoder work in chunks (one batch of both reached 22.5 GB on 5.4 M simulated samples
of thousands of participants), with the same release as one batch."""

from __future__ import annotations

import numpy as np
import pytest

from gazeprivacy.events import cvae as cvae_mod
from gazeprivacy.mechanisms.samples import _event_synth_pd_privacy as esp
from gazeprivacy.mechanisms.samples.event_synth_pd import EventSynthPDParams, event_synth_pd

pytest.importorskip("torch")


def _release(ds, events, mode):
    kw = {"epsilon0": 1.0} if mode == "sound" else {}
    params = EventSynthPDParams(k=2, gamma=3.0, cvae_epochs=2, max_tries=3, mode=mode, **kw)
    return event_synth_pd(ds, params, rng=np.random.default_rng(4), events=events)


@pytest.mark.parametrize("mode", ["sound", "paper"])
def test_saccade_test_holds_at_most_its_budget_and_releases_the_same(make_event_dataset,
                                                                    monkeypatch, mode):
    ds, events = make_event_dataset(5, 2, rng=np.random.default_rng(3))
    whole = _release(ds, events, mode)
    n_part = len(ds.participants)
    sizes: list[int] = []
    passes = esp._passes_batch

    def spy(lps, *a, **k):
        sizes.append(lps.size)
        return passes(lps, *a, **k)

    monkeypatch.setattr(esp, "_passes_batch", spy)
    monkeypatch.setattr(esp, "_PAIR_BUDGET", 3 * n_part)  # 3 candidates per chunk
    monkeypatch.setattr(cvae_mod, "_COND_BUDGET", 2 * n_part)  # 2 rows per decoder chunk
    chunked = _release(ds, events, mode)
    saccade_calls = [s for s in sizes if s % n_part == 0]
    assert saccade_calls and max(saccade_calls) <= 3 * n_part
    for a, b in zip(whole.output, chunked.output, strict=True):
        np.testing.assert_allclose(a.x, b.x, rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(a.y, b.y, rtol=1e-6, atol=1e-9)
    assert (whole.output.info["holder_report"] == chunked.output.info["holder_report"])


def test_cvae_decoder_builds_conditions_in_chunks(monkeypatch):
    rng = np.random.default_rng(0)
    n, parts = 40, np.array([f"p{i}" for i in range(8)], dtype=object)
    prof = np.abs(rng.normal(200.0, 50.0, (n, 30)))
    who = parts[rng.integers(0, 8, n)]
    model = cvae_mod.SaccadeCVAE(epochs=1).fit(prof, rng.uniform(1, 10, n),
                                                rng.uniform(0.02, 0.06, n), who,
                                                rng=np.random.default_rng(1))
    whole = model.sample(np.full(n, 5.0), np.full(n, 0.04), who, rng=np.random.default_rng(2))
    rows: list[int] = []
    cond = model._cond
    monkeypatch.setattr(model, "_cond", lambda *a: rows.append(len(a[2])) or cond(*a))
    monkeypatch.setattr(cvae_mod, "_COND_BUDGET", 5 * 8)
    chunked = model.sample(np.full(n, 5.0), np.full(n, 0.04), who, rng=np.random.default_rng(2))
    assert max(rows) == 5 and sum(rows) == n
    np.testing.assert_allclose(whole, chunked, rtol=1e-6, atol=1e-6)


def test_cvae_trains_on_compact_conditions(monkeypatch):
    """Training holds (amplitude, duration, participant index) per profile and makes the
    one-hot conditions a minibatch at a time, not a profiles x participants array."""
    import gazeprivacy._torch as loop

    seen: list[tuple[int, ...]] = []
    train = loop.train_loop

    def spy(build, arrays, *a, **k):
        seen.extend(tuple(arr.shape) for arr in arrays)
        return train(build, arrays, *a, **k)

    monkeypatch.setattr(cvae_mod, "train_loop", spy)
    rng = np.random.default_rng(0)
    n, parts = 60, np.array([f"p{i}" for i in range(12)], dtype=object)
    cvae_mod.SaccadeCVAE(epochs=1).fit(np.abs(rng.normal(200.0, 50.0, (n, 30))),
                                       rng.uniform(1, 10, n), rng.uniform(0.02, 0.06, n),
                                       parts[rng.integers(0, 12, n)],
                                       rng=np.random.default_rng(1))
    assert seen == [(n, 30), (n, 3)]
